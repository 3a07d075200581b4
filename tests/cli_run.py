"""Running ``pe-explorer`` in the test process (not a test module)."""

from __future__ import annotations

from explorer import cli


def run_cli(argv, capsys) -> tuple[int, str]:
    """(exit status, stderr) of ``pe-explorer ARGV`` run in this process; argparse's exits count as statuses."""
    try:
        rc = cli.main(argv)
    except SystemExit as exc:
        rc = exc.code
    return rc, capsys.readouterr().err
