"""``ir-bright bm25 ID``: the BRIGHT BM25 baseline as a TREC run."""

from __future__ import annotations

import argparse
import logging
import math
import sys
from pathlib import Path

from ..errors import IrBrightError
from ..outputs import check_writable
from . import add_subcommand

logger = logging.getLogger(__name__)

EPILOG = """examples:
  ir-bright bm25 bright/pony -o run.trec && ir-bright evaluate bright/pony run.trec
  ir-bright bm25 bright/biology --query-side -o bm25qs/bright__biology.trec
  ir-bright bm25 bright/biology/gpt4-reason -o gpt4/bright__biology.trec
  ir-bright bm25 mm-bright/academia/task1 -o mm/mm-bright__academia__task1.trec
  ir-bright bm25 bright/biology --lucene-norms -o pyserini/bright__biology.trec
  ir-bright bm25 bright/biology --queries hyde.tsv -o hyde/bright__biology.trec
Analysis: Lucene's English analysis exactly as Pyserini's default analyzer (StandardTokenizer,
possessives, lower case, 33 stop words, Lucene's Porter stemmer), without Java; Lucene's BM25
with k1=0.9, b=0.4. --query-side weights query terms with the same BM25 formula as documents:
the BRIGHT paper's gensim code ("paper, BM25"). --lucene-norms: Pyserini's own scores
(Pyserini's 2CR "BM25 (bag of words)"). The
index is cached next to the corpus and reused; each query's excluded documents are removed
before the ranking is cut to --depth."""


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = add_subcommand(
        subparsers,
        run,
        "bm25",
        help="run the BM25 baseline and write a TREC run",
        description="Run the BRIGHT BM25 baseline (bm25s, in process) on every query of a "
        "dataset and write a TREC run.",
        epilog=EPILOG,
    )
    parser.add_argument("id", metavar="ID", help="a dataset id (see `ir-bright list`)")
    parser.add_argument("-o", "--output", metavar="RUN", help="the run file (default: stdout)")
    parser.add_argument("--k1", type=float, default=0.9, help="BM25 k1 (default 0.9)")
    parser.add_argument("--b", type=float, default=0.4, help="BM25 b (default 0.4)")
    parser.add_argument(
        "--query-side",
        action="store_true",
        help="weight query terms by BM25 as the paper's gensim code does",
    )
    parser.add_argument(
        "--lucene-norms",
        action="store_true",
        help="Lucene's one-byte document lengths and float32 scores: Pyserini's BM25 exactly "
        "(its rankings and scores; ties by doc id)",
    )
    parser.add_argument(
        "--depth", type=int, default=1000, help="documents per query (default 1000)"
    )
    parser.add_argument("--tag", help="run tag (default ir_bright-bm25[-qs])")
    parser.add_argument(
        "--queries",
        metavar="FILE",
        help="your query texts instead of the dataset's: TSV query_id<TAB>text, or JSONL "
        "with query_id and text (every query of the dataset, none other)",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    from .. import bm25, registry

    if not (math.isfinite(args.k1) and args.k1 >= 0):
        raise IrBrightError(f"--k1 must be at least 0 and finite, not {args.k1}")
    if not 0 <= args.b <= 1:
        raise IrBrightError(f"--b must be between 0 and 1, not {args.b}")
    if args.depth < 1:
        raise IrBrightError(f"--depth must be at least 1, not {args.depth}")
    if args.tag is not None and not args.tag.strip():
        raise IrBrightError("--tag is empty: give a run tag, or leave --tag out for the default")
    if args.query_side and args.lucene_norms:
        raise IrBrightError(
            "--query-side (the paper's gensim code) and --lucene-norms (Pyserini's bag of "
            "words) reproduce different published rows: give one of them"
        )
    suffix = "-qs" if args.query_side else "-lucene" if args.lucene_norms else ""
    tag = args.tag or (bm25.RUN_TAG + suffix)
    if any(c.isspace() for c in tag):
        raise IrBrightError(f"--tag {tag!r} contains white space: a TREC run tag cannot")
    target = _target(args.output)
    dataset = registry.load(args.id)
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
    params = bm25.BM25Params(args.k1, args.b, args.lucene_norms).checked()
    ranked = bm25.retrieve(dataset, params, query_side=args.query_side, k=args.depth)
    if target is None:
        bm25.write_trec(ranked, sys.stdout, tag)
        return 0
    partial = target.with_name(target.name + ".part")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(partial, "w", encoding="utf-8") as out:
            lines = bm25.write_trec(ranked, out, tag)
        partial.replace(target)
    except OSError as exc:
        _remove(partial)
        raise IrBrightError(f"cannot write the run {target} ({_reason(exc, target)})") from exc
    except BaseException:
        _remove(partial)
        raise
    logger.info("wrote %d lines to %s", lines, target)
    return 0


def _target(output: str | None) -> Path | None:
    """The run file of ``-o`` (None: stdout), checked before any work is done."""
    if output is None or output == "-":
        return None
    if not output.strip():
        raise IrBrightError("-o is empty: give a file name, or - (or no -o) for stdout")
    target = Path(output)
    if target.is_dir():
        raise IrBrightError(f"-o {target} is a folder: give a file name, e.g. {target}/run.trec")
    return check_writable(target, "the run")


def _reason(exc: OSError, target: Path) -> str:
    if isinstance(exc, FileExistsError | NotADirectoryError):
        return f"a file is in the way of its folder {target.parent}"
    return exc.strerror or type(exc).__name__


def _remove(path: Path) -> None:
    try:
        path.unlink(missing_ok=True)
    except OSError:  # its folder may not even exist
        pass
