"""``ir-bright export ID docs|queries|qrels``: ir_datasets' export, with ir_bright's ids."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import IrBrightError
from ..upstream import irds_exporters
from . import add_subcommand, described, output_format
from .dataset_args import add_dataset_argument

EPILOG = """examples:
  ir-bright export bright/biology queries                  tsv: query_id, text, ...
  ir-bright export bright/biology queries --fields query_id gpt4_reason
  ir-bright export bright/aops qrels                       TREC qrels (excluded docs: -100)
  ir-bright export bright/pony docs --format jsonl > pony.jsonl
The writers are ir_datasets' own (`python -m ir_datasets export`): the same columns and
formats, here also for the ids ir_bright registers."""

FORMATS = {"docs": ("tsv", "jsonl"), "queries": ("tsv", "jsonl"), "qrels": ("trec", "tsv", "jsonl")}
TREC_QRELS_COLUMNS = ("query_id", "iteration", "doc_id")
ENTITIES = {
    "docs": "the corpus",
    "queries": "the queries with every field",
    "qrels": "the judgements, excluded documents at -100",
}


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``export`` subcommand."""
    parser = add_subcommand(
        subparsers,
        run,
        "export",
        help="write a dataset's docs, queries or qrels (tsv, jsonl, trec)",
        description="Write a dataset's docs, queries or qrels to stdout.",
        epilog=EPILOG,
    )
    add_dataset_argument(parser, "id", "ID", "a dataset id (see `ir-bright list`)")
    parser.add_argument("entity", **described(ENTITIES, "what to export"))
    parser.add_argument(
        "--format",
        **output_format(
            ("tsv", "jsonl", "trec"),
            what="tsv or jsonl (docs, queries); trec (default), tsv or jsonl (qrels)",
        ),
    )
    parser.add_argument("--fields", nargs="+", help="only these fields, in this order")
    return parser


def run(args: argparse.Namespace) -> int:
    """Write the entity's records to stdout with ir_datasets' writer for the format."""
    from .. import registry

    dataset = registry.load(args.id)
    fmt = args.format or FORMATS[args.entity][0]
    if fmt not in FORMATS[args.entity]:
        raise IrBrightError(
            f"--format {fmt} does not apply to {args.entity}: "
            f"use one of {', '.join(FORMATS[args.entity])}"
        )
    if not getattr(dataset, f"has_{args.entity}")():
        raise IrBrightError(f"{args.id} has no {args.entity}: pick a dataset id that has them")
    record_cls = getattr(dataset, f"{args.entity}_cls")()
    if args.fields:
        unknown = [f for f in args.fields if f not in record_cls._fields]
        if unknown:
            raise IrBrightError(
                f"{args.id} {args.entity} have no field {', '.join(unknown)}: "
                f"choose --fields from {' '.join(record_cls._fields)}"
            )
    fields = args.fields
    if args.entity == "qrels" and fmt == "trec" and fields:
        fixed = [f for f in fields if f in TREC_QRELS_COLUMNS]
        if fixed:
            raise IrBrightError(
                f"--fields {' '.join(fixed)}: TREC qrels always hold query_id, iteration and "
                "doc_id; --fields picks the relevance column(s), e.g. --fields relevance "
                "(or use --format tsv)"
            )
    if fields is None and fmt == "trec" and args.entity == "qrels":
        fields = ["relevance"]  # plain TREC qrels; BRIGHT-Pro's aspect fields with --fields
    if fields is None and fmt == "tsv" and args.entity != "qrels":
        fields = list(record_cls._fields)  # the same columns, without ir_datasets' [INFO] line
    writer = irds_exporters(args.entity)[fmt](record_cls, sys.stdout, fields)
    for record in getattr(dataset, f"{args.entity}_iter")():
        writer.next(record)
    writer.flush()
    return 0
