"""Published rows, declared by each family beside its benchmarks (:mod:`ir_bright.families`):
beside a report's rows (``--reference``) or set against them cell by cell (``--check``).

A published row holds ``label``, ``values`` (x100 as printed, by column label; ``null`` when
the source gives only the average), ``average`` and ``source``; optionally ``setting`` (text,
with ``first_stage``, ``reranker`` and ``depth`` beside it, or an object of those keys),
``date``, ``institution``, ``link``, ``name``, ``benchmark``, and ``revision`` (the commit of
the family's hub repository the row was made at, where its source says so) with
``revision_source`` (why). ``setting`` is ``original``
(the benchmark's queries), ``<model>-reasoning`` (an LLM's reasoning as the queries),
``rerank``, ``agentic`` or ``unknown`` (the source does not say); ``date`` is the row's date
on a leaderboard (ISO 8601); ``source`` names where each number was read (paper and table,
or repository, file, commit and entry). :func:`listing` gives every row as one record
(``ir-bright references``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import cache
from typing import Any

from ..families import Benchmark
from .benchmarks import AVERAGE, benchmark
from .errors import ReportError
from .scores import Check, CheckFailures, Row, Table
from .system_info import SystemInfo

_OPTIONAL = ("first_stage", "reranker", "depth")
_GIVEN = ("institution", "link", "revision", "revision_source")


@cache
def _published_rows() -> dict[str, Any]:
    """``{benchmark: {name: row}}`` of every published row, in the families' order."""
    from ..families import families

    return {bench: rows for family in families() for bench, rows in family.references().items()}


def reference_benchmarks() -> list[str]:
    """The benchmarks that have published rows, in the data file's order."""
    return list(_published_rows())


def listing(bench: str | None = None) -> list[dict[str, Any]]:
    """Every published row (of benchmark ``bench`` only, when given) as a record: ``benchmark``,
    ``name``, ``label``, ``setting`` (then ``first_stage``, ``reranker``, ``depth`` when the
    source names them), ``date``, ``measure`` (the benchmark's, which ``average`` and
    ``values`` are in), ``average``, ``values``, ``source`` (then ``institution`` and
    ``link`` when given). An unknown ``bench`` is a one-line error naming the known ones."""
    by_benchmark = _published_rows()
    if bench is not None and bench not in by_benchmark:
        raise ReportError(
            f"no published rows for benchmark {bench!r}: choose one of {', '.join(by_benchmark)}"
        )
    names = [bench] if bench is not None else list(by_benchmark)
    return [_record(b, name, spec) for b in names for name, spec in by_benchmark[b].items()]


def _record(bench: str, name: str, spec: dict[str, Any]) -> dict[str, Any]:
    """One published row as :func:`listing` gives it."""
    spec, setting = _flat(spec)
    record = {"benchmark": bench, "name": name, "label": spec["label"], "setting": setting}
    record |= {key: spec[key] for key in _OPTIONAL if spec.get(key) is not None}
    table = benchmark(bench)
    measure = ", ".join(dict.fromkeys(table.measures)) if table.mixed else table.measure
    record |= {"date": spec.get("date"), "measure": measure}
    record |= {key: spec.get(key) for key in ("average", "values", "source")}
    return record | {key: spec[key] for key in _GIVEN if spec.get(key) is not None}


def published(name: str, bench: Benchmark, measure: str) -> dict[str, Any]:
    """The published row ``name`` of ``bench``, or a one-line error
    when there is none or the table's ``measure`` is not the published one."""
    available = _published_rows().get(bench.name, {})
    if name not in available:
        hint = f"choose from {', '.join(available)}" if available else "none is in ir_bright"
        raise ReportError(f"no published row {name!r} for benchmark {bench.name}: {hint}")
    if measure != bench.measure:
        raise ReportError(
            f"the published rows are {bench.measure}, the table is {measure}: "
            "drop --reference (or --check) or --measure"
        )
    return dict(available[name])


def _cells(spec: dict[str, Any], bench: Benchmark) -> dict[str, float]:
    """``{dataset id or Avg: published value x100}`` of the cells a published row gives."""
    values = spec.get("values") or {}  # null: the source gives only the average
    labels = {bench.label(column): column for column in bench.columns}
    cells = {labels[label]: value for label, value in values.items() if label in labels}
    if spec.get("average") is not None:
        cells[AVERAGE] = spec["average"]
    return cells


def reference_rows(names: Iterable[str], bench: Benchmark, measure: str) -> list[Row]:
    """Published rows as :class:`Row` s (fractions, like scores)."""
    rows = []
    for name in names:
        spec = published(name, bench, measure)
        cells = {column: value / 100 for column, value in _cells(spec, bench).items()}
        values = {column: cells.get(column) for column in bench.columns}
        rows.append(Row(spec["label"], values, cells.get(AVERAGE), True, _info(spec)))
    return rows


def _info(spec: dict[str, Any]) -> SystemInfo | None:
    """The setting a published row states, if any (shown as given: the data is curated)."""
    spec, setting = _flat(spec)
    if setting is None and all(spec.get(k) is None for k in _OPTIONAL):
        return None
    first_stage, reranker, depth = (spec.get(k) for k in _OPTIONAL)
    return SystemInfo(setting and str(setting), first_stage, reranker, depth)


def _flat(spec: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """``spec`` with the keys of a ``setting`` object beside the others, and the setting."""
    setting = spec.get("setting")
    if isinstance(setting, dict):
        return {**spec, **setting}, setting.get("setting")
    return spec, setting


def check(table: Table, name: str, tolerance: float | None = None) -> CheckFailures:
    """Set each published cell of reference ``name`` beside every system's (``table.checks``)
    and return the failures: the cells outside ``tolerance`` points (x100) and the cells
    without a value, apart. The default tolerance is half a unit of the published values'
    last decimal (0.05 for one decimal): the published figures are rounded, so a value within
    it is one that rounds to the published figure. A row that publishes only its average is
    checked on the average only."""
    spec = published(name, table.benchmark, table.measure)
    cells = _cells(spec, table.benchmark)
    decimals = max([1, *(_decimals(v) for v in cells.values())])
    tolerance = 0.5 * 10**-decimals if tolerance is None else check_tolerance(tolerance)
    failures = CheckFailures()
    for row in table.rows:
        if row.reference:
            continue
        ours = {**row.values, AVERAGE: row.average}
        checks = {}
        for column, value in cells.items():
            mine = ours.get(column)
            checks[column] = Check(value, decimals, None if mine is None else mine * 100, tolerance)
            cell = f"{row.name} {table.benchmark.label(column)}"
            if mine is None:
                failures.missing.append(cell)
            elif not checks[column].within:
                failures.outside.append(cell)
        table.checks[row.name] = checks
    total = sum(len(c) for c in table.checks.values())
    table.notes.append(
        f"Checked against {spec['label']} ({name}): ours (published ok|FAIL difference), "
        f"within {tolerance:g} points of the published value; {len(failures.outside)} of "
        f"{total} cells outside, {len(failures.missing)} missing."
    )
    return failures


def check_tolerance(tolerance: float) -> float:
    """``tolerance`` if it is a finite number of points, 0 or more; else a one-line error."""
    if not (tolerance >= 0 and math.isfinite(tolerance)):
        raise ReportError(f"--tolerance must be 0 or more points (x100), not {tolerance}")
    return tolerance


def _decimals(value: float) -> int:
    """The decimals a published number was printed with (JSON drops trailing zeros, so the
    row's largest count stands for all of its values)."""
    text = repr(float(value))
    return len(text.split(".")[1].rstrip("0")) if "." in text else 0
