"""``ir-bright candidates DATASET RUN --depth K``: each query's top K documents of a run, after
its excluded ids are dropped, with the query's and the documents' texts, as JSON lines."""

from __future__ import annotations

import argparse
from typing import Any

from . import add_subcommand
from .dataset_args import add_dataset_argument

EPILOG = """\
One JSON object per line: query_id, query (the dataset's query text), doc_id, text, rank
(1..K) and score. Excluded ids are dropped before the cut and ties ordered as trec_eval
orders them, so a reranker sees exactly the K documents the official scorer would count.
Rerank them, write a TREC run, and score it with evaluate, report or compare.

examples:
  ir-bright candidates bright/biology bm25.trec --depth 100 -o biology.top100.jsonl
  ir-bright candidates bright/biology/gpt4-reason bm25.trec --depth 10 | head -1
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``candidates`` subcommand."""
    parser = add_subcommand(
        subparsers,
        run,
        "candidates",
        help="a run's top K per query, exclusions dropped, with texts (JSON lines)",
        description="Reranking candidates: each query's top K documents of a run after its\n"
        "excluded ids are dropped, with query and document texts, as JSON lines.",
        epilog=EPILOG,
    )
    add_dataset_argument(parser, "dataset", "DATASET", "dataset id, e.g. bright/biology")
    parser.add_argument("run_file", metavar="RUN", help="the first-stage TREC run; - reads stdin")
    parser.add_argument(
        "--depth", type=int, required=True, metavar="K", help="candidates per query"
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="JSON lines (default: stdout)")
    return parser


def run(args: argparse.Namespace) -> int:
    """Write the candidates as JSON lines."""
    from ..outputs import Output
    from ..pipelines import candidates, write_jsonl

    output = Output(args.output, "the candidates", inputs=[args.run_file])
    rows = candidates(args.dataset, args.run_file, args.depth)
    with output.open() as out:
        write_jsonl(rows, out)
    return 0
