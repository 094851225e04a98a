"""The scored table of a report: one :class:`Row` per system, scored officially (:func:`score`).

Every run is scored with :class:`ir_bright.scoring.Scorer` (the official protocol, qrels read
once per dataset); a cell is the mean over the dataset's queries; a group's cell (BRIGHT's
StackExchange, Coding, Theorem) is the unweighted mean of its domains, and the average that of
all domains, each given only when the system has a run for every domain it covers.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..families import Benchmark
from .system_info import SystemInfo
from .systems import System

logger = logging.getLogger(__name__)


@dataclass
class Row:
    """A scored row: values (fractions, not x100) by dataset id, then by group label (the mean
    of its domains); None where no run (or a group's domain has none)."""

    name: str
    values: dict[str, float | None]
    average: float | None
    reference: bool = False
    info: SystemInfo | None = None
    """The system's setting (:mod:`.system_info`), when its folder or a flag says."""


@dataclass(frozen=True)
class Check:
    """One published cell beside ours, x100 as published (``decimals`` places)."""

    published: float
    decimals: int
    value: float | None
    tolerance: float

    @property
    def within(self) -> bool:
        """Whether our value is within ``tolerance`` points of the published one."""
        if self.value is None:
            return False
        return abs(self.value - self.published) <= self.tolerance + 1e-9  # float noise only

    def text(self) -> str:
        """``18.24 (18.2 ok)``: ours, then the published value and the verdict."""
        published = f"{self.published:.{self.decimals}f}"
        if self.value is None:
            return f"- ({published} missing)"
        ours = f"{self.value:.{self.decimals}f}"
        verdict = "ok" if self.within else f"FAIL {self.value - self.published:+.{self.decimals}f}"
        return f"{ours} ({published} {verdict})"


@dataclass
class CheckFailures:
    """The cells a check against a published row failed, each ``system column``: ``outside``
    the tolerance, or ``missing`` (no value: no run, or an average over missing runs)."""

    outside: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.outside or self.missing)

    def summary(self, name: str) -> str:
        """One line counting the two kinds apart, each with its cells."""
        parts = [
            f"{len(cells)} {what}: {', '.join(cells)}"
            for what, cells in (
                (f"cells outside the tolerance of {name}", self.outside),
                ("cells missing (no run)", self.missing),
            )
            if cells
        ]
        return "; ".join(parts) or f"every cell within the tolerance of {name}"


@dataclass
class Table:
    """The report: a benchmark, a measure and its rows."""

    benchmark: Benchmark
    measure: str
    rows: list[Row]
    checks: dict[str, dict[str, Check]] = field(default_factory=dict)
    """``{system: {dataset id or "Avg": Check}}`` after a check; empty otherwise."""
    notes: list[str] = field(default_factory=list)
    """Lines printed under the markdown table (latex: comments), e.g. what a check means."""


def score(
    systems: Sequence[System],
    bench: Benchmark,
    measure: str | None = None,
    progress: bool = True,
    force: bool = False,
) -> Table:
    """Score every run officially; one :class:`Row` per system (``force``: as
    :class:`~ir_bright.scoring.Scorer` takes it). A dataset's qrels are read once, and each run
    scored once for all the measures of its dataset's columns."""
    from ..log import progress as bar_of
    from ..scoring import parse_measures

    key = str(parse_measures([measure or bench.measure])[0])
    by_dataset: dict[str, list[str]] = {}
    for column in bench.ids:
        by_dataset.setdefault(bench.dataset_of(column), []).append(column)
    values: dict[str, dict[str, float | None]] = {s.name: {} for s in systems}
    total = sum(
        1 for s in systems for cols in by_dataset.values() if bench.run_of(cols[0]) in s.runs
    )
    with bar_of(progress, total=total, unit="run", desc="scoring") as bar:
        for dataset_id, columns in by_dataset.items():
            _score_dataset(systems, bench, (dataset_id, columns), key, values, bar, force)
    rows = [_row(system.name, values[system.name], bench) for system in systems]
    for row, system in zip(rows, systems):
        row.info = system.info
    return Table(bench, key, rows)


def _score_dataset(
    systems: Sequence[System],
    bench: Benchmark,
    dataset: tuple[str, list[str]],
    key: str,
    values: dict[str, dict[str, float | None]],
    bar: Any,
    force: bool,
) -> None:
    """Fill ``values`` for the columns of one dataset (its id and its columns): each system's
    run, scored once."""
    from ..scoring import Scorer, parse_measures

    dataset_id, columns = dataset
    names = {c: str(parse_measures([bench.measure_of(c, key)])[0]) for c in columns}
    scorers: dict[str, Any] = {}
    for system in systems:
        run_id = bench.run_of(columns[0])
        path = system.runs.get(run_id)
        if path is None:
            values[system.name].update(dict.fromkeys(columns))
            continue
        # qrels read once per dataset (a query set's run: its own dataset's)
        scored_on = system.dataset_of(run_id) if run_id == dataset_id else dataset_id
        if scored_on not in scorers:
            scorers[scored_on] = Scorer(scored_on, list(dict.fromkeys(names.values())), force=force)
        scorer = scorers[scored_on]
        # a Path, never a str: a str holding a line break is read as run text
        result = scorer.evaluate(Path(path), str(path))
        values[system.name].update({c: float(result[names[c]]) for c in columns})
        bar.update(1)


def _row(name: str, values: dict[str, float | None], bench: Benchmark) -> Row:
    missing = [
        d
        for d in bench.run_ids
        if all(values[c] is None for c in bench.ids if bench.run_of(c) == d)
    ]
    if missing:
        logger.warning(
            "%s has no run for %d of %d datasets (%s ...)%s",
            name,
            len(missing),
            len(bench.run_ids),
            missing[0],
            ": no average" if bench.average else "",
        )
    for group in bench.groups:
        values[group.label] = mean_of(values[d] for d in group.ids)
    average = mean_of(values[d] for d in bench.ids) if bench.average else None
    return Row(name, values, average)


def mean_of(values: Iterable[float | None]) -> float | None:
    """The mean of ``values``, or None when one is None (or there are none)."""
    given = list(values)
    if not given or any(v is None for v in given):
        return None
    return sum(v for v in given if v is not None) / len(given)
