"""``ir-bright report RUNS... --benchmark NAME``: the paper's table from a folder of runs."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Any

from ..results.system_info import SETTING_HELP
from ..results.tables import FORMATS
from . import add_force_option, add_subcommand, output_format

EPILOG = """run files are found by name: the dataset id with each / written __, plus .trec, .run,
.txt, .tsv or .res (optionally .gz), e.g. bright__biology.trec, bright__pony-long.run.gz,
mm-bright__academia__task1.trec. A folder of such files is one system (named after the
folder); a folder of such folders is one system per sub-folder; loose files and ID=PATH
arguments form one system named --name. An optional system.json beside a system's runs says
how they were made, and the table gets a Setting column as the leaderboard's:
  {"setting": "rerank", "first_stage": "BM25", "reranker": "ReasonRank", "depth": 100,
   "label": "BM25 + ReasonRank"}
(setting: original, <model>-reasoning, rerank, agentic or unknown; label: the row's name).

examples:
  for d in biology earth-science economics psychology robotics stackoverflow \\
           sustainable-living leetcode pony aops theoremqa-questions theoremqa-theorems; do
    ir-bright bm25 bright/$d -o runs/bm25/bright__$d.trec; done
  ir-bright report runs/bm25 --benchmark bright
  ir-bright report runs/ --benchmark bright --reference paper-bm25 --plot bright.png
  ir-bright report bright/pony=pony.trec bright/aops=aops.trec --name mine --format json
  ir-bright report runs/long --benchmark bright-long --format latex
  ir-bright report runs/gpt4 --reference paper-bm25-gpt4-reason  # bright__*__gpt4-reason.trec
  ir-bright report runs/bm25-qs -b bright --check pyserini-bm25-query-side --tolerance 0.5
--check exits with status 1 when a published cell is outside the tolerance or has no run, so a
reproduction can be a CI step.
published rows (--reference, --check): those ir_bright holds for the benchmark (an unknown
NAME lists them), e.g. paper-bm25 and pyserini-bm25-query-side for bright; a row whose
source gives only the average fills (and checks) only the Avg column."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``report`` subcommand."""
    from ..results.benchmarks import benchmark_names

    parser = add_subcommand(
        subparsers,
        run,
        "report",
        help="the paper's per-domain table (and a bar chart) from runs",
        description="Score one run per dataset officially and print the paper's table: one "
        "row per system, one column per domain, per group of domains (BRIGHT: StackExchange, "
        "Coding, Theorem) and the macro average, x100 with one decimal.",
        epilog=EPILOG,
    )
    parser.add_argument(
        "runs", nargs="+", metavar="RUN_DIR_OR_FILE", help="folders, run files or ID=PATH"
    )
    parser.add_argument(
        "--benchmark",
        "-b",
        choices=benchmark_names(),
        metavar="NAME",
        help=f"one of {', '.join(benchmark_names())}; default: the one the run files belong to",
    )
    parser.add_argument("--format", **output_format(FORMATS, "markdown"))
    parser.add_argument(
        "-m", "--measure", help="another measure than the benchmark's headline, e.g. R@100"
    )
    parser.add_argument(
        "--reference",
        action="append",
        default=[],
        metavar="NAME",
        help="add a published row (repeatable or comma-separated), e.g. paper-bm25",
    )
    parser.add_argument("--plot", metavar="FILE.png", help="also draw a grouped bar chart")
    parser.add_argument(
        "--check",
        metavar="NAME",
        help="set each cell beside published row NAME; exit 1 if one is outside --tolerance",
    )
    parser.add_argument(
        "--tolerance",
        type=float,
        metavar="POINTS",
        help="x100 points a --check cell may differ by (default: half a unit of the published "
        "values' last decimal, 0.05 for 18.9: they are rounded)",
    )
    add_force_option(parser)
    parser.add_argument("--name", default="run", help="system name of loose files and ID=PATH")
    parser.add_argument(
        "--setting", action="append", default=[], metavar="[SYSTEM=]SETTING", help=SETTING_HELP
    )
    return parser


def run(args: argparse.Namespace) -> int:
    """Make the report, print the table; status 1 when a checked cell is outside."""
    from ..results import report

    request = report.ReportRequest(
        runs=args.runs,
        benchmark=args.benchmark,
        measure=args.measure,
        references=[n.strip() for value in args.reference for n in value.split(",") if n.strip()],
        check=args.check,
        tolerance=args.tolerance,
        name=args.name,
        plot=args.plot,
        settings=args.setting,
        force=args.force,
    )
    made = report.make_report(request)
    sys.stdout.write(report.format_table(made.table, args.format))
    if made.failures:
        logging.getLogger(__name__).error("%s", made.failures.summary(args.check))
        return 1
    return 0
