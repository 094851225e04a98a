"""``ir-bright references [--benchmark B]``: the published rows ``report`` can set beside runs."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from . import add_subcommand, one_of, output_format

FORMATS = ("markdown", "csv", "json")
EPILOG = """Each row: its benchmark and name (what `report --reference NAME` and `--check NAME`
take), label, setting as the leaderboard labels it (original, <model>-reasoning, rerank with its
first stage, reranker and depth, agentic, unknown), date, the revision of the hub data it was
made at where its source says so (a commit; `report --check` warns when your runs were scored
at another), the measure, the published average and where it was read. json adds the
per-domain values (null where the source gives only the average), the leaderboard's
institution and link where it gives them, and the full revision with why it is known.

examples:
  ir-bright references --benchmark bright-long
  ir-bright references -b bright --format csv
  ir-bright references --format json
  ir-bright report runs/mine -b bright --reference paper-qwen,leaderboard-reasonrank"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``references`` subcommand."""
    from ..families.texts import references as references_held
    from ..results.references import reference_benchmarks

    parser = add_subcommand(
        subparsers,
        run,
        "references",
        help="the published rows (papers, leaderboard) to place a system among",
        description="List the published rows ir_bright holds, each with its source: the "
        "papers' retrievers, the leaderboards' dated submissions, reproductions. "
        + references_held().replace("`", ""),
        epilog=EPILOG,
    )
    parser.add_argument(
        "--benchmark", "-b", **one_of(reference_benchmarks(), "only this benchmark's rows")
    )
    parser.add_argument("--format", **output_format(FORMATS, "markdown"))
    return parser


def run(args: argparse.Namespace) -> int:
    """Print the published rows as a table or as JSON records."""
    from ..results.errors import ReportError
    from ..results.references import listing
    from ..results.system_info import SystemInfo
    from ..results.tables import Grid, render

    records = listing(args.benchmark)
    header = ["benchmark", "name", "label", "setting", "date", "revision", "measure", "source"]
    rows = []
    for r in records:
        info = SystemInfo(r["setting"], r.get("first_stage"), r.get("reranker"), r.get("depth"))
        setting = info.text() if info != SystemInfo() else "-"
        revision = r["revision"][:7] if r.get("revision") else "-"
        cells = (r["benchmark"], r["name"], r["label"], setting, r["date"] or "-", revision)
        rows.append([*cells, r["measure"], r["source"], _average(r["average"])])
    grid = Grid([*header, "Avg"], rows, text_columns=len(header))
    sys.stdout.write(render(grid, args.format, document=records, error=ReportError))
    return 0


def _average(value: float | None) -> str:
    return "-" if value is None else str(value)
