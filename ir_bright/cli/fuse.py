"""``ir-bright fuse [DATASET] RUN RUN ...``: one TREC run from several, by RRF, CombSUM,
CombMNZ or a weighted sum of normalised scores."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import IrBrightError
from . import add_subcommand, described
from .dataset_args import add_dataset_argument, add_deprecated_dataset_flag, dataset_first

METHOD_MEANINGS = {
    "rrf": "reciprocal rank fusion, the sum of 1 / (--rrf-k + rank)",
    "combsum": "the sum of the normalised scores",
    "combmnz": "that sum times the number of runs ranking the document",
    "wsum": "the sum of the normalised scores times each run's --weights",
}
NORM_MEANINGS = {
    "none": "the scores as they are",
    "min-max": "(s - min) / (max - min)",
    "max": "s / max",
    "sum": "(s - min) / sum(s - min)",
    "zmuv": "(s - mean) / standard deviation, the z-score",
}

EPILOG = """\
The fused run keeps the first run's queries and is written in TREC format, each query's
documents in trec_eval's order (score descending, ties by doc id descending). Given a DATASET
first (an id `ir-bright list` lists; write a run file named like an id ./ID), each query's
excluded ids are dropped before the --depth cut, so the cut never drops a document the
official scorer would keep. Norms are per query, as ranx's: min-max
(s-min)/(max-min), max s/max, sum (s-min)/sum(s-min), zmuv (the z-score) (s-mean)/std.

examples:
  ir-bright fuse bm25.trec dense.trec --method rrf -o fused.trec
  ir-bright fuse a.trec b.trec c.trec --method wsum --norm min-max --weights 0.5,0.3,0.2
  ir-bright fuse bright/aops bm25.trec dense.trec --method combsum | \\
      ir-bright evaluate bright/aops -
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``fuse`` subcommand."""
    from ..families import OFFICIAL_DEPTH
    from ..pipelines.fusion import METHODS, NORMS, RRF_K

    parser = add_subcommand(
        subparsers,
        run,
        "fuse",
        help="fuse several runs into one (RRF, CombSUM, CombMNZ, weighted sum)",
        description="Fuse TREC runs into one TREC run.",
        epilog=EPILOG,
    )
    add_dataset_argument(
        parser,
        "dataset",
        "DATASET",
        "the runs' dataset, e.g. bright/aops (optional): its excluded ids are dropped first",
        nargs="?",
    )
    parser.add_argument("runs", metavar="RUN", nargs="+", help="TREC run files (two or more)")
    parser.add_argument(
        "--method", **described({m: METHOD_MEANINGS[m] for m in METHODS}, "fusion method", "rrf")
    )
    parser.add_argument(
        "--norm",
        **described(
            {n: NORM_MEANINGS[n] for n in NORMS},
            "per-query score normalisation (default: none for rrf, min-max otherwise)",
        ),
    )
    parser.add_argument("--weights", metavar="W1,W2,...", help="one weight per run (wsum)")
    parser.add_argument("--rrf-k", type=int, default=RRF_K, help=f"RRF's k (default {RRF_K})")
    parser.add_argument(
        "--depth",
        type=int,
        help="documents per query (default: the official run depth of the DATASET's family, "
        f"{OFFICIAL_DEPTH:,} without DATASET)",
    )
    add_deprecated_dataset_flag(parser, "ir-bright fuse DATASET RUN RUN ...")
    parser.add_argument("--tag", default=None, help="run tag (default ir_bright-fuse-METHOD)")
    parser.add_argument("-o", "--output", metavar="RUN", help="the fused run (default: stdout)")
    return parser


def run(args: argparse.Namespace) -> int:
    """Read the runs, fuse them and write the fused run."""
    from ..families import run_depth
    from ..outputs import Output
    from ..pipelines import fuse
    from ..runs import read_run
    from ..runs.write import check_tag, ranked_docs, write_trec
    from ..scoring import excluded_docs

    dataset, paths = dataset_first(args, [args.dataset, *args.runs], "the runs")
    output = Output(args.output, "the fused run", inputs=paths)
    weights = _weights(args.weights)
    tag = check_tag(args.tag or f"ir_bright-fuse-{args.method}", "--tag")
    runs = [read_run(path, path) for path in paths]
    excluded = excluded_docs(dataset) if dataset else None
    depth = run_depth(dataset) if args.depth is None else args.depth
    fused = fuse(runs, args.method, args.norm, weights, args.rrf_k, depth, excluded)
    with output.open() as out:
        write_trec(ranked_docs(fused), out, tag)
    return 0


def _weights(text: str | None) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(part) for part in text.split(",")]
    except ValueError:
        raise IrBrightError(f"--weights {text!r}: give numbers separated by commas") from None
