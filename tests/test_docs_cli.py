"""The command-line guide's lists of choices are the parsers' own (issue 25: it listed 6 of the 13 schemes that
``data swap --scheme`` takes): every ``--option a|b|c`` in docs/cli.md is compared with the parser that reads it."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from explorer import cli
from explorer import schemes as registry
from explorer.panels import PANELS

CLI_MD = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
#: ``--option a|b|c`` (in tables the bars are escaped as ``\\|``).
LISTED = re.compile(r"(--[a-z][a-z-]*) ([a-z0-9_]+(?:\\?\|[a-z0-9_]+)+)")


def _parsers(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _parsers(sub)


def _choices() -> dict[str, list[set[str]]]:
    """Option string -> the choice sets the parsers give it (several subcommands can share an option)."""
    out: dict[str, list[set[str]]] = {"--panel": [{pid for pid, _, _ in PANELS}]}  # checked after parsing
    for parser in _parsers(cli.build_parser()):
        for action in parser._actions:
            if action.choices and not isinstance(action, argparse._SubParsersAction):
                for opt in action.option_strings:
                    out.setdefault(opt, []).append({str(c) for c in action.choices})
    return out


def test_every_listed_choice_set_is_a_parsers():
    text = CLI_MD.read_text(encoding="utf-8")
    listed = [(m.group(1), set(m.group(2).replace("\\|", "|").split("|"))) for m in LISTED.finditer(text)]
    assert len(listed) >= 6, listed  # the guide still lists them (the regex finds them)
    known = _choices()
    for opt, values in listed:
        assert opt in known, f"docs/cli.md lists choices for {opt}, which no parser has"
        assert values in known[opt], f"docs/cli.md: {opt} {sorted(values)}; the parser: {known[opt]}"


def test_the_swap_schemes_listed_are_the_registrys():
    text = " ".join(CLI_MD.read_text(encoding="utf-8").split())
    m = re.search(r"`--scheme` takes any id that `pe-explorer schemes` lists for the Token-swap panel \(([^)]*)\)",
                  text)
    assert m, "docs/cli.md no longer says which ids data swap --scheme takes"
    assert re.findall(r"`([a-z0-9_]+)`", m.group(1)) == list(registry.swap_ids())


def test_json_only_commands_say_so_and_refuse_other_formats(tmp_path, capsys):
    import pytest

    for argv in (["data", "swap", "--sentence", "a b", "--swap", "0", "1"],
                 ["data", "rope-frequencies", "--head-dim", "8"]):
        with pytest.raises(SystemExit):
            cli.main([*argv, "--help"])
        assert "output file: .json\n" in " ".join(capsys.readouterr().out.split(" ")), argv
        assert cli.main([*argv, "--out", str(tmp_path / "x.npy")]) == 2
        assert "must end in .json" in capsys.readouterr().err


#: Synopses, not commands: a metavar in capitals, an ellipsis, a choice list or an optional part.
SYNOPSIS = re.compile(r"…|\[|\\\||->|\b[A-Z][A-Z0-9_.]*\b")


def _doc_commands() -> list[str]:
    root = CLI_MD.parents[1]
    pages = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    found = set()
    for page in pages:
        text = re.sub(r"\\\n\s*", " ", page.read_text(encoding="utf-8"))  # a shell line continued
        found.update(m.group(1) for m in re.finditer(r"`(pe-explorer [^`]+)`", text))
        found.update(m.group(1).strip() for m in re.finditer(r"^\s*(pe-explorer [^#\n]+)", text, re.MULTILINE))
    # A command with options is one to type; "pe-explorer data" alone names a subcommand in a sentence.
    return sorted(c.split(" > ")[0].split(" | ")[0] for c in found if " --" in c and not SYNOPSIS.search(c))


def test_every_command_the_guide_gives_is_accepted():
    """Each ``pe-explorer …`` command written out in the guide parses, and a ``lab`` command passes the checks it
    makes before training (docs/schemes.md once gave ``lab --layers 4 --scheme-param rope_nope.nope_every=4``,
    which exits 2: the hybrid was not among the schemes trained)."""
    import shlex

    from explorer.commands import lab

    commands = _doc_commands()
    assert any(c.startswith("pe-explorer lab --") for c in commands), commands
    parser = cli.build_parser()
    for command in commands:
        argv = shlex.split(command)[1:]
        if "--help" in argv or argv == ["--reset-layout"]:
            continue
        try:
            args = parser.parse_args(argv)
        except SystemExit:
            raise AssertionError(f"the guide gives {command!r}, which exits 2") from None
        if args.command == "lab":
            try:
                lab._configs(args)
            except cli.UsageError as exc:
                raise AssertionError(f"the guide gives {command!r}: {exc}") from None
