"""``ir-bright list [PATTERN]``: dataset ids with their counts and whether they are cached."""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from typing import Any

from ..errors import IrBrightError
from . import add_subcommand

EPILOG = """examples:
  ir-bright list                      every ir_bright id
  ir-bright list biology              ids containing "biology"
  ir-bright list 'bright/*-long'      a glob over the ids
  ir-bright list mm-bright --format json
cached: "yes" when every hub file the dataset reads is in the cache (see `ir-bright download`),
"no" when none is, "k/n" when k of its n files are."""


def add_parser(subparsers) -> argparse.ArgumentParser:
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
    parser.add_argument("--format", choices=("table", "tsv", "json"), default="table")
    return parser


def match_ids(pattern: str | None, ids: list[str] | None = None) -> list[str]:
    """Our ids matching ``pattern`` (a glob when it has * ? or [, else a substring)."""
    from .. import registry

    registry.register()
    ids = list(registry.our_ids()) if ids is None else ids
    if not pattern:
        return ids
    if any(c in pattern for c in "*?["):
        return [i for i in ids if fnmatch.fnmatchcase(i, pattern)]
    return [i for i in ids if pattern in i]


def cache_status(dataset: Any) -> str:
    """ "yes", "no" or "k/n" for the hub files of ``dataset``."""
    files = _hub_files(dataset)
    if not files:
        return "-"
    cached = sum(1 for f in files if f.is_cached())
    return "yes" if cached == len(files) else "no" if cached == 0 else f"{cached}/{len(files)}"


def _hub_files(dataset: Any) -> list[Any]:
    try:
        return list(dataset.hub_files())
    except AttributeError:
        return []


def counts(dataset: Any) -> dict[str, int | None]:
    """docs, queries and qrels counts known without downloading (None when unknown)."""
    result = {}
    for kind in ("docs", "queries", "qrels"):
        try:
            result[kind] = getattr(dataset, f"{kind}_count")()
        except Exception:  # noqa: BLE001 - a dataset without that entity or count
            result[kind] = None
    return result


def run(args: argparse.Namespace) -> int:
    import ir_datasets

    ids = match_ids(args.pattern)
    if not ids:
        raise IrBrightError(
            f"no dataset id matches {args.pattern!r}: run `ir-bright list` to see them all"
        )
    rows = []
    for dataset_id in ids:
        dataset = ir_datasets.load(dataset_id)
        if not dataset.has_docs() and not dataset.has_queries():
            continue  # a collection root such as "bright"
        rows.append({"id": dataset_id, **counts(dataset), "cached": cache_status(dataset)})
    out = sys.stdout
    if args.format == "json":
        json.dump(rows, out, indent=1)
        out.write("\n")
        return 0
    header = ["id", "docs", "queries", "qrels", "cached"]
    cells = [[_cell(row[h]) for h in header] for row in rows]
    if args.format == "tsv":
        for line in [header, *cells]:
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
    if value is None:
        return "?"
    if isinstance(value, int):
        return str(value)
    return str(value)
