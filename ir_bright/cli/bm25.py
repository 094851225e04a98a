"""``ir-bright bm25 ID``: the BM25 baseline as a TREC run, by default the official BM25 of the
dataset's family (the leaderboard's BM25 row)."""

from __future__ import annotations

import argparse
import logging
from typing import Any

from ..errors import IrBrightError
from ..outputs import Output
from . import add_subcommand
from .dataset_args import add_dataset_argument

logger = logging.getLogger(__name__)

EPILOG = """examples:
  ir-bright bm25 bright/pony -o run.trec && ir-bright evaluate bright/pony run.trec
  ir-bright bm25 bright/biology/gpt4-reason -o gpt4/bright__biology.trec
  ir-bright bm25 mm-bright/academia/task1 -o mm/mm-bright__academia__task1.trec
  ir-bright bm25 bright/biology --lucene-norms -o pyserini/bright__biology.trec
  ir-bright bm25 bright/biology --no-query-side -o bag-of-words/bright__biology.trec
  ir-bright bm25 bright/biology --queries hyde.tsv -o hyde/bright__biology.trec
By default the run is the official BM25 of the dataset's family, the leaderboards' BM25 row
(BRIGHT's "paper, BM25"): the BRIGHT paper's gensim code, which weights query terms with the
same BM25 formula as documents (--query-side), ranked as deep as the family's official runs
(`ir-bright info ID` shows the protocol). Analysis: Lucene's English analysis exactly as
Pyserini's default analyzer (StandardTokenizer, possessives, lower case, 33 stop words,
Lucene's Porter stemmer), without Java; Lucene's BM25 with the paper's k1 and b.
--no-query-side: each query term counts as often as it occurs. --lucene-norms: Pyserini's own
scores (Pyserini's 2CR "BM25 (bag of words)"). The index is cached next to the corpus and
reused; each query's excluded documents are removed before the ranking is cut to --depth."""


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = add_subcommand(
        subparsers,
        run,
        "bm25",
        help="run the BM25 baseline and write a TREC run",
        description="Run the BM25 baseline (in process) on every query of a dataset and write "
        "a TREC run: by default the official BM25 of the dataset's family.",
        epilog=EPILOG,
    )
    add_dataset_argument(parser, "id", "ID", "a dataset id (see `ir-bright list`)")
    parser.add_argument("-o", "--output", metavar="RUN", help="the run file (default: stdout)")
    from ..bm25.params import DEFAULT_PARAMS

    k1, b = DEFAULT_PARAMS.k1, DEFAULT_PARAMS.b
    parser.add_argument("--k1", type=float, default=k1, help=f"BM25 k1 (default {k1})")
    parser.add_argument("--b", type=float, default=b, help=f"BM25 b (default {b})")
    parser.add_argument(
        "--query-side",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="weight query terms by BM25 as the BRIGHT paper's gensim code does (default: as "
        "the family's official BM25, which does; not with --lucene-norms)",
    )
    parser.add_argument(
        "--lucene-norms",
        action="store_true",
        help="Lucene's one-byte document lengths and float32 scores: Pyserini's BM25 exactly "
        "(its rankings and scores; ties by doc id)",
    )
    parser.add_argument(
        "--depth",
        type=int,
        default=None,
        help="documents per query (default: the family's official run depth, as `ir-bright "
        "info ID` shows it)",
    )
    parser.add_argument("--tag", help="run tag (default ir_bright-bm25-qs, or -lucene)")
    parser.add_argument(
        "--queries",
        metavar="FILE",
        help="your query texts instead of the dataset's: TSV query_id<TAB>text, or JSONL "
        "with query_id and text (every query of the dataset, none other)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from ..signals import sigterm_exits

    with sigterm_exits():  # SIGTERM: exit 143 once workers and partial files are cleaned up
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from .. import bm25, registry
    from ..bm25.params import check_depth, check_mode, official_mode
    from ..runs.write import check_tag, write_trec

    params = bm25.BM25Params(args.k1, args.b, args.lucene_norms).checked(("--k1", "--b"))
    if args.depth is not None:
        check_depth(args.depth, "--depth")
    if args.tag is not None and not args.tag.strip():
        raise IrBrightError("--tag is empty: give a run tag, or leave --tag out for the default")
    check_mode(bool(args.query_side), args.lucene_norms, ("--query-side", "--lucene-norms"))
    inputs = [args.queries] if args.queries is not None else []
    output = Output(args.output, "the run", inputs, sidecar="the run's provenance")  # first
    dataset = registry.load(args.id)
    mode = official_mode(dataset, args.query_side, args.depth, args.lucene_norms)
    tag = check_tag(args.tag or mode.tag(args.lucene_norms), "--tag")
    if args.queries is not None:
        from ..pipelines import with_queries

        dataset = with_queries(dataset, args.queries)
    if not dataset.has_docs() or not dataset.has_queries():
        raise IrBrightError(f"{args.id} has no docs or no queries: BM25 needs both")
    fields = getattr(dataset.docs_cls(), "_fields", ())
    if "text" not in fields:
        raise IrBrightError(
            f"{args.id} has no document text (its documents have {', '.join(fields)}): BM25 "
            "ranks text; use a dataset with text documents, e.g. an MM-BRIGHT task1 or task2"
        )
    ranked = bm25.retrieve(dataset, params, query_side=mode.query_side, depth=mode.depth)
    with output.open(sidecar=lambda run: _provenance(run, args, params, mode, tag)) as out:
        lines = write_trec(ranked, out, tag)
    if output.path is not None:
        logger.info("wrote %d lines to %s", lines, output.path)
    return 0


def _provenance(
    run: dict[str, Any], args: argparse.Namespace, params: Any, mode: Any, tag: str
) -> str:
    """``RUN.json``: the data the run was ranked from, the BM25 parameters and analyzer, and
    the run's own size and sha256 (``run``)."""
    from ..bm25.analysis import ANALYSIS
    from ..provenance import run_provenance, sidecar_text

    parameters = {
        "k1": params.k1,
        "b": params.b,
        "lucene_norms": params.lucene_norms,
        "query_side": mode.query_side,
        "depth": mode.depth,
        "analyzer": ANALYSIS,
        "tag": tag,
        "queries_file": args.queries,
    }
    entities = ("docs",) if args.queries is not None else ("docs", "queries")
    return sidecar_text(run_provenance(args.id, {"bm25": parameters}, entities, run))
