"""``ir-bright list [PATTERN]``: dataset ids with their counts and whether they are cached."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from . import add_subcommand, output_format

EPILOG = """examples:
  ir-bright list                      every ir_bright id
  ir-bright list biology              ids containing "biology"
  ir-bright list 'bright/*-long'      a glob over the ids
  ir-bright list mm-bright --format json
The columns are id, docs, queries, qrels and cached (tsv: in that order, without a header).
cached: "yes" when every hub file the dataset reads is in the cache (see `ir-bright download`),
"no" when none is, "k/n" when k of its n files are."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``list`` subcommand."""
    parser = add_subcommand(
        subparsers,
        run,
        "list",
        help="list dataset ids with counts and cache status",
        description="List ir_bright's dataset ids with their doc, query and qrel counts and "
        "whether their files are cached.",
        epilog=EPILOG,
    )
    parser.add_argument("pattern", nargs="?", help="a substring or glob (* ? [...]) of the ids")
    parser.add_argument("--format", **output_format(("table", "tsv", "json"), "table"))
    return parser


def run(args: argparse.Namespace) -> int:
    """Print the ids matching the pattern with their counts and cache state."""
    from ..inventory import overview

    rows = overview(args.pattern)
    out = sys.stdout
    if args.format == "json":
        json.dump(rows, out, indent=1)
        out.write("\n")
        return 0
    header = ["id", "docs", "queries", "qrels", "cached"]
    cells = [[_cell(row[h]) for h in header] for row in rows]
    if args.format == "tsv":
        for line in cells:
            out.write("\t".join(line) + "\n")
        return 0
    widths = [max(len(line[i]) for line in [header, *cells]) for i in range(len(header))]
    for line in [header, *cells]:
        padded = [
            value.ljust(widths[i]) if i in (0, 4) else value.rjust(widths[i])
            for i, value in enumerate(line)
        ]
        out.write("  ".join(padded).rstrip() + "\n")
    return 0


def _cell(value: Any) -> str:
    return "?" if value is None else str(value)
