"""``pe-explorer schemes``: the scheme registry — every positional scheme with its traits and sources."""

from __future__ import annotations

import json


def add_parser(sub) -> None:
    p = sub.add_parser("schemes", help="list every positional scheme: id, title, kind, traits, sources",
                       description="List the scheme registry (explorer/schemes/): each scheme's id (as used by "
                       "--set, presets and the data commands), title, where position enters, whether the "
                       "score is relative, whether it is bounded, its sources and its parameters.")
    p.add_argument("--json", action="store_true", help="print the registry as JSON")
    p.set_defaults(func=_run)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _run(args) -> int:
    from .. import schemes as registry

    records = [s.record() for s in registry.all_schemes()]
    if args.json:
        print(json.dumps({"schemes": records}, indent=2, ensure_ascii=False))
        return 0
    rows = [("id", "title", "kind", "relative", "bounded", "panels")]
    rows += [(r["id"], r["title"], r["kind_text"], _yes(r["relative"]), _yes(r["bounded"]), ", ".join(r["panels"]))
             for r in records]
    widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    print()
    for r in records:
        params = ", ".join(f"{p['name']} {p['lo']:g} … {p['hi']:g}" for p in r["parameters"]) or "none"
        print(f"{r['id']}: {r['description']}")
        print(f"  parameters: {params}")
        for src in r["sources"]:
            print(f"  source: {src['text']}" + (f" <{src['link']}>" if src["link"] else ""))
        if r["used_by"]:
            print(f"  used by: {r['used_by']}")
    return 0
