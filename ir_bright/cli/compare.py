"""``ir-bright compare (DATASET | --benchmark B) BASELINE SYSTEM...``: paired tests."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..errors import IrBrightError
from ..results.system_info import SETTING_HELP
from ..results.tables import FORMATS
from . import add_force_option, add_subcommand, described, one_of, output_format
from .dataset_args import add_dataset_argument, add_deprecated_dataset_flag, dataset_first

EPILOG = """For each dataset, measure and system: the means, their difference with a 95% paired
bootstrap interval, the two-sided paired t-test and Wilcoxon signed-rank p-values over the
dataset's queries, and the p-value of --test corrected over the whole table (Holm by default).
With --benchmark, a last row per system is the macro average over the domains, tested over
all queries of all domains pooled; before it, for BRIGHT, one row per group (StackExchange,
Coding, Theorem) whose domains are all compared, tested over the group's queries pooled.
Queries missing from a run count as 0 (a warning says so).
Wilcoxon: scipy's zero_method='wilcox' (equal scores dropped), average ranks for ties, exact
for small samples without ties, else normal approximation: as pt.Experiment(test='wilcoxon').

examples:
  ir-bright compare bright/biology bm25.trec mine.trec
  ir-bright compare runs/bm25 runs/mine runs/other --benchmark bright --plot deltas.png
  ir-bright compare runs/bm25 runs/mine -b bright --test wilcoxon --correction bh --format json
  ir-bright compare runs/bm25 runs/mine -b bright -m R@100 --samples 20000 --seed 7 --format latex
The DATASET comes first, as in `ir-bright evaluate` (write a run file named like an id ./ID).
With --benchmark (and no DATASET) each BASELINE or SYSTEM is a folder of runs named as for
`ir-bright report` (bright__biology.trec, ...), and a folder's system.json gives its setting;
the datasets compared are the baseline's."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``compare`` subcommand."""
    from ..results.benchmarks import benchmark_names
    from ..results.stats import CONFIDENCE, CORRECTIONS, SAMPLES, SEED, TESTS

    parser = add_subcommand(
        subparsers,
        run,
        "compare",
        help="paired significance tests and intervals of systems against a baseline",
        description="Compare systems with a baseline per dataset: differences, bootstrap "
        "intervals, paired t-test and Wilcoxon p-values, corrected for multiple comparisons.",
        epilog=EPILOG,
    )
    add_dataset_argument(
        parser, "dataset", "DATASET", "the runs' dataset, e.g. bright/aops", nargs="?"
    )
    parser.add_argument("baseline", metavar="BASELINE", help="run file, or folder of runs")
    parser.add_argument(
        "systems", metavar="SYSTEM", nargs="+", help="run files, or folders of runs"
    )
    parser.add_argument(
        "--benchmark", "-b", **one_of(benchmark_names(), "folders of runs, instead of DATASET")
    )
    add_deprecated_dataset_flag(parser, "ir-bright compare DATASET BASELINE SYSTEM ...", "-d")
    parser.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="measure (repeatable); default: the benchmark's or dataset's official one",
    )
    parser.add_argument("--test", **described(TESTS, "the test whose p-values are corrected", "t"))
    parser.add_argument(
        "--correction", **described(CORRECTIONS, "the multiple-comparison correction", "holm")
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level marked")
    parser.add_argument("--samples", type=int, default=SAMPLES, help="bootstrap resamples")
    parser.add_argument("--seed", type=int, default=SEED, help="bootstrap seed")
    parser.add_argument("--confidence", type=float, default=CONFIDENCE, help="interval level")
    add_force_option(parser)
    parser.add_argument("--format", **output_format(FORMATS, "markdown"))
    parser.add_argument("--plot", metavar="FILE.png", help="also draw the differences")
    parser.add_argument(
        "--setting", action="append", default=[], metavar="[SYSTEM=]SETTING", help=SETTING_HELP
    )
    return parser


def run(args: argparse.Namespace) -> int:
    """Compare, then print the table (and draw the plot)."""
    from ..results import paired, paired_tables, plots, stats

    dataset, (baseline, *systems) = dataset_first(
        args, [args.dataset, args.baseline, *args.systems], "the BASELINE and SYSTEM runs"
    )
    if (dataset is None) == (args.benchmark is None):
        raise IrBrightError(
            "give a DATASET first or --benchmark NAME (one of them): "
            "ir-bright compare DATASET BASELINE SYSTEM ... or "
            "ir-bright compare --benchmark NAME BASELINE SYSTEM ..."
        )
    if not systems:
        raise IrBrightError("give at least one SYSTEM after the BASELINE")
    options = stats.Options(
        args.test, args.correction, args.samples, args.seed, args.confidence, args.alpha
    )
    if args.plot is not None:
        plots.check_plot_path(args.plot)  # before the (long) scoring
    frame = paired.compare(
        _path(baseline),
        [_path(s) for s in systems],
        dataset,
        benchmark=args.benchmark,
        measures=args.measures,
        options=options,
        setting=args.setting,
        progress=True,
        force=args.force,
    )
    labels = paired_tables.column_labels(args.benchmark)
    if args.plot:
        paired_tables.plot_comparison(frame, args.plot, labels)
    sys.stdout.write(paired_tables.format_comparison(frame, args.format, labels))
    return 0


def _path(argument: str) -> Any:
    """A run argument as a path (a str holding a line break would be read as run text);
    ``-`` stays stdin."""
    return argument if argument == "-" else Path(argument)
