"""``ir-bright diff OLD NEW [--run RUN...]``: what changed between two revisions of a dataset,
and by how much that moves a run's score."""

from __future__ import annotations

import argparse
from typing import Any

from . import add_subcommand, output_format

FORMATS = ("markdown", "json")
EPILOG = """OLD and NEW are one dataset at two revisions (ID@REVISION: an alias the family declares,
such as mteb-v1 or mteb-v1.1 for BRIGHT, or a commit; ID alone is the default revision), or two
family-level ids (bright@mteb-v1 bright) for every dataset of the family. Per dataset: documents
added, removed and changed, queries added, removed and changed (their text), gold and excluded
pairs added and removed, and the change kinds touching each query: query_added, query_removed,
query_changed, gold_changed, excluded_changed, doc_changed (a document judged or excluded for
the query at either revision was edited or removed).
With --run, the run is scored under both revisions (the official measure, or -m): the mean
under each, the difference, and each query whose score moved with the changes that explain it.

examples:
  ir-bright diff bright/biology@mteb-v1 bright/biology@mteb-v1.1
  ir-bright diff bright@mteb-v1 bright --format json -o changes.json
  ir-bright diff bright/aops@mteb-v1 bright/aops --run runs/bm25/bright__aops.trec
  ir-bright diff bright@mteb-v1 bright --run runs/bm25/bright__biology.trec -m R@100
In a family-level diff each run's dataset is read from its file name (bright__biology.trec) or
given as ID=PATH."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``diff`` subcommand."""
    parser = add_subcommand(
        subparsers,
        run,
        "diff",
        help="what changed between two revisions of a dataset, and how it moves a run's score",
        description="Compare a dataset (or every dataset of a family) at two revisions of "
        "its hub data: documents, queries, gold and excluded pairs, and the queries each "
        "change touches; with --run, score runs under both and explain every query's move.",
        epilog=EPILOG,
    )
    parser.add_argument(
        "old", metavar="OLD", help="the id at the old revision, e.g. bright/biology@mteb-v1"
    )
    parser.add_argument(
        "new", metavar="NEW", help="the id at the new revision, e.g. bright/biology"
    )
    parser.add_argument(
        "--run",
        dest="runs",
        action="append",
        default=[],
        metavar="RUN",
        help="a run file to score under both revisions (repeatable; ID=PATH in a family diff)",
    )
    parser.add_argument(
        "-m", "--measure", help="the measure runs are scored with (default: the official one)"
    )
    parser.add_argument("--format", **output_format(FORMATS, "markdown"))
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the result to FILE (replaced only once complete) instead of stdout",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    """Compare, score the runs, write the result."""
    from ..outputs import Output
    from ..results.revision_report import format_diff, make_diff
    from ..results.revision_scores import run_paths

    output = Output(args.output, "the diff", inputs=run_paths(args.runs))
    report = make_diff(args.old, args.new, args.runs, args.measure)
    text = format_diff(report, args.format)
    with output.open() as out:
        out.write(text)
    return 0
