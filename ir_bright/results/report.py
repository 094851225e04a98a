"""Paper-style tables (and a bar chart) from a folder of runs, scored officially.

:func:`make_report` does what ``ir-bright report`` does: finds the systems' runs
(:func:`~ir_bright.results.systems.collect`, named by the rule of :mod:`.benchmarks`), scores them
(:func:`~ir_bright.results.scores.score`), sets published rows beside them or checks them
against one (:mod:`.references`) and draws the chart; :func:`format_table` writes the table in
markdown, csv, latex or json (:mod:`.tables`). Cells are x100 with one decimal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..families import Benchmark
from . import plots
from .benchmarks import (
    AVERAGE,
    benchmark,
)
from .errors import ReportError
from .plots import check_plot_path
from .references import check, check_tolerance, reference_rows
from .revision_check import revision_notes
from .scores import Check, CheckFailures, Table, score
from .system_info import apply_flags
from .systems import DEFAULT_SYSTEM, collect, infer_benchmark
from .tables import Grid, render


@dataclass(frozen=True)
class ReportRequest:
    """What to report: the arguments of ``ir-bright report`` as one object.

    ``runs`` are found as :func:`collect` finds them; ``benchmark`` defaults to the one they
    belong to, ``measure`` to its headline; ``references`` are published rows added below,
    ``check`` one whose cells are set beside ours within ``tolerance``; ``plot`` a PNG path.
    """

    runs: Sequence[str]
    benchmark: str | None = None
    measure: str | None = None
    references: Sequence[str] = ()
    check: str | None = None
    tolerance: float | None = None
    name: str = DEFAULT_SYSTEM
    plot: str | None = None
    settings: Sequence[str] = ()
    """``--setting [SYSTEM=]SETTING`` values (see
    :func:`~ir_bright.results.system_info.apply_flags`)."""
    progress: bool = True
    force: bool = False
    """Score runs none of whose ranked documents is judged (see :class:`~ir_bright.Scorer`)."""


@dataclass
class Report:
    """A report made: the table and the cells its check failed (outside the tolerance, or
    missing)."""

    table: Table
    failures: CheckFailures = field(default_factory=CheckFailures)


def make_report(request: ReportRequest) -> Report:
    """Score the request's runs into a table; every option is checked before the scoring."""
    from ..scoring import parse_measures

    bench = (
        infer_benchmark(request.runs) if request.benchmark is None else benchmark(request.benchmark)
    )
    if request.plot is not None:
        check_plot_path(request.plot)
    if request.measure is not None and bench.mixed:
        raise ReportError(
            f"benchmark {bench.name}'s columns are measures of their own "
            f"({', '.join(dict.fromkeys(bench.measures))}): drop --measure"
        )
    measure = str(parse_measures([request.measure or bench.measure])[0])
    reference_rows(
        [*request.references, *([request.check] if request.check else [])], bench, measure
    )
    if request.tolerance is not None:
        if not request.check:
            raise ReportError("--tolerance applies to --check: give --check NAME too")
        check_tolerance(request.tolerance)
    systems = collect(request.runs, bench, request.name)
    infos = apply_flags({s.name: s.info for s in systems}, request.settings)
    for system in systems:
        system.info = infos[system.name]
    table = score(systems, bench, measure, request.progress, request.force)
    failures = check(table, request.check, request.tolerance) if request.check else CheckFailures()
    if request.check:
        revision_notes(table, request.check, systems)
    table.rows += reference_rows(request.references, bench, table.measure)
    if request.plot:
        plot(table, request.plot)
    return Report(table, failures)


def _columns(table: Table) -> list[str]:
    """The table's value columns: the dataset ids, the groups, then the average (if the
    benchmark has one)."""
    return _benchmark_columns(table.benchmark)


def _benchmark_columns(bench: Benchmark) -> list[str]:
    return [*bench.columns, *([AVERAGE] if bench.average else [])]


def column_labels(bench: Benchmark) -> list[str]:
    """The labels of a report's value columns (its table's header, its chart's x axis)."""
    return [bench.label(c) for c in _benchmark_columns(bench)]


def _measure_text(table: Table) -> str:
    """The measure a title names: the table's, or none where each column names its own."""
    return "" if table.benchmark.mixed else f"{table.measure} "


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}"


def grid(table: Table) -> Grid:
    """The table as text cells: x100 with one decimal, checked cells with their verdict; a
    Setting column after the system's name when a row has a setting."""
    settings = any(row.info is not None for row in table.rows)
    names = ["system", *(["Setting"] if settings else [])]
    header = [*names, *column_labels(table.benchmark)]
    body = []
    for row in table.rows:
        checks = table.checks.get(row.name, {}) if not row.reference else {}
        values = {**row.values, AVERAGE: row.average}
        cells = [checks[c].text() if c in checks else _cell(values.get(c)) for c in _columns(table)]
        setting = [row.info.text() if row.info else "-"] if settings else []
        body.append([row.name, *setting, *cells])
    title = f"{table.benchmark.title}, {_measure_text(table)}x100 (official protocol)"
    return Grid(header, body, len(names), title, table.notes)


def format_table(table: Table, fmt: str = "markdown") -> str:
    """The table as markdown, csv, latex or json text; json also carries the ``provenance``
    of the scored cells (:func:`ir_bright.provenance.provenance`: per dataset scored, the
    hub repository, commit and sha256 of each file its qrels were read from)."""
    document = _as_json(table) if fmt == "json" else None  # provenance only when written
    return render(grid(table), fmt, document=document, error=ReportError)


def _as_json(table: Table) -> dict[str, Any]:
    bench = table.benchmark
    columns: list[dict[str, Any]] = [
        {"id": i, "label": bench.label(i)}
        | (
            {"dataset": bench.dataset_of(i), "measure": bench.measure_of(i, "")}
            if bench.mixed
            else {}
        )
        for i in bench.ids
    ]
    columns += [
        {"id": g.label, "label": g.label, "group": list(g.ids)} for g in table.benchmark.groups
    ]
    rows = []
    for row in table.rows:
        rows.append(
            {"system": row.name, "reference": row.reference, "values": row.values}
            | {"setting": row.info.as_json() if row.info else None}
            | {"average": row.average}
            | ({"check": _check_json(table.checks[row.name])} if row.name in table.checks else {})
        )
    return {
        "benchmark": table.benchmark.name,
        "measure": table.measure,
        "columns": columns,
        "rows": rows,
        "provenance": _provenance(table),
    }


def _provenance(table: Table) -> dict[str, Any]:
    """The provenance of the datasets a system's row has a value for (published rows carry
    their own source)."""
    from ..provenance import provenance

    bench = table.benchmark
    ours = [row for row in table.rows if not row.reference]
    columns = [i for i in bench.ids if any(r.values.get(i) is not None for r in ours)]
    scored = list(dict.fromkeys(bench.dataset_of(i) for i in columns))
    measures = list(dict.fromkeys(bench.measure_of(i, table.measure) for i in columns))
    return provenance(scored, "official", measures or [table.measure])


def _check_json(checks: dict[str, Check]) -> dict[str, Any]:
    """``{column: {published, value, difference, tolerance, within}}``, x100 points."""
    return {
        column: {
            "published": c.published,
            "value": c.value,
            "difference": None if c.value is None else c.value - c.published,
            "tolerance": c.tolerance,
            "within": c.within,
        }
        for column, c in checks.items()
    }


def plot(table: Table, path: str | Path) -> Path:
    """Draw the table as a grouped bar chart (one group of bars per column) to PNG."""
    columns = _columns(table)
    series = []
    for row in table.rows:
        values = {**row.values, AVERAGE: row.average}
        heights = [None if (v := values.get(c)) is None else v * 100 for c in columns]
        series.append(plots.Bars(row.name, heights, row.reference))
    labels = column_labels(table.benchmark)
    title = f"{table.benchmark.title}, {_measure_text(table)}(official protocol)"
    return plots.bar_chart(path, labels, series, title, f"{_measure_text(table)}x100")
