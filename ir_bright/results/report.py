"""Paper-style tables (and a bar chart) from a folder of runs, scored officially.

A *benchmark* (``etc/benchmarks.json``) is an ordered list of dataset ids with the column labels
the papers print and a headline measure: ``bright`` (12 domains, nDCG@10), ``bright-<model>-reason``
(the same domains with an LLM's reasoning as queries), ``bright-long`` (8 domains, R@1),
``mm-bright-task1`` ... ``mm-bright-task4``, ``mm-bright-task4-legacy`` (29 domains, nDCG@10).
Without a benchmark, :func:`infer_benchmark` picks the one the run files belong to.

Finding the runs (:func:`collect`). Each argument is one of

- ``ID=PATH``: the run of dataset ``ID``;
- a run file: its dataset is read from its name (below);
- a folder holding run files named after datasets: one system, named after the folder;
- a folder of such folders: one system per sub-folder.

File-naming rule: the file name without its extensions (``.gz``, then ``.trec``, ``.run``,
``.txt`` or ``.tsv``) is the dataset id with each ``/`` written ``__`` (two underscores):
``bright__biology.trec``, ``bright__pony-long.run.gz``, ``mm-bright__academia__task1.trec``.
Loose files and ``ID=PATH`` arguments form one system named ``--name`` (default ``run``).

Every run is scored with :func:`ir_bright.scoring.evaluate` (the official protocol); a cell is
the mean over the dataset's queries x100, printed with one decimal; the average is the
unweighted mean of the domains, printed only when the system has a run for every domain.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from ..errors import IrBrightError, require
from ..outputs import check_writable

__all__ = [
    "Benchmark",
    "System",
    "Table",
    "benchmark",
    "check",
    "check_plot_path",
    "collect",
    "dataset_from_filename",
    "filename_for",
    "format_table",
    "plot",
    "reference_rows",
    "score",
]

logger = logging.getLogger(__name__)

RUN_SUFFIXES = (".trec", ".run", ".txt", ".tsv")
AVERAGE = "Avg"
DEFAULT_SYSTEM = "run"


class ReportError(IrBrightError, ValueError):
    """Runs or options that do not make a report."""


@dataclass(frozen=True)
class Benchmark:
    """An ordered set of datasets reported together."""

    name: str
    title: str
    measure: str
    ids: tuple[str, ...]
    labels: tuple[str, ...]


@dataclass
class System:
    """One row: a name and a run path per dataset id."""

    name: str
    runs: dict[str, Path] = field(default_factory=dict)


@dataclass
class Row:
    """A scored row: values (fractions, not x100) by dataset id; None where no run."""

    name: str
    values: dict[str, float | None]
    average: float | None
    reference: bool = False


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
class Table:
    """The report: a benchmark, a measure and its rows."""

    benchmark: Benchmark
    measure: str
    rows: list[Row]
    checks: dict[str, dict[str, Check]] = field(default_factory=dict)
    """``{system: {dataset id or "Avg": Check}}`` after :func:`check`; empty otherwise."""
    notes: list[str] = field(default_factory=list)
    """Lines printed under the markdown table (latex: comments), e.g. what a check means."""


@cache
def _etc(name: str) -> dict[str, Any]:
    from ..datafiles import etc_json

    return etc_json(name)


def benchmark_names() -> list[str]:
    """The benchmarks ``report`` knows."""
    return list(_etc("benchmarks.json")["benchmarks"])


def benchmark(name: str) -> Benchmark:
    """The benchmark called ``name``; unknown names raise a one-line error."""
    known = _etc("benchmarks.json")["benchmarks"]
    if name not in known:
        raise ReportError(f"unknown benchmark {name!r}: choose one of {', '.join(known)}")
    spec = known[name]
    return Benchmark(
        name=name,
        title=spec["title"],
        measure=spec["measure"],
        ids=tuple(c["id"] for c in spec["columns"]),
        labels=tuple(c["label"] for c in spec["columns"]),
    )


def benchmarks_of(dataset_id: str) -> list[str]:
    """The benchmarks that have ``dataset_id`` as a column."""
    known = _etc("benchmarks.json")["benchmarks"]
    return [
        name for name, spec in known.items() if dataset_id in {c["id"] for c in spec["columns"]}
    ]


def infer_benchmark(arguments: Sequence[str]) -> Benchmark:
    """The one benchmark the run files among ``arguments`` (scanned as :func:`collect` scans
    them) belong to; a one-line error when they name none or several."""
    found: dict[str, int] = {}
    for dataset_id in _named_datasets(arguments):
        for name in benchmarks_of(dataset_id):
            found[name] = found.get(name, 0) + 1
    if len(found) == 1:
        return benchmark(next(iter(found)))
    if not found:
        raise ReportError(
            "no run file named after a dataset of any benchmark: name runs like "
            f"{filename_for('bright/biology')} or pass --benchmark and ID=PATH"
        )
    listed = ", ".join(f"{name} ({count} runs)" for name, count in found.items())
    raise ReportError(f"the runs belong to several benchmarks: {listed}; pick one with --benchmark")


def _named_datasets(arguments: Sequence[str]) -> Iterable[str]:
    for argument in arguments:
        path = Path(argument)
        if "=" in argument and not path.exists():
            yield argument.partition("=")[0]
        elif path.is_file():
            yield dataset_from_filename(path.name)
        elif path.is_dir():
            for inner in sorted(path.iterdir()):
                files = sorted(inner.iterdir()) if inner.is_dir() else [inner]
                yield from (dataset_from_filename(f.name) for f in files if f.is_file())


def filename_for(dataset_id: str, suffix: str = ".trec") -> str:
    """The run file name of ``dataset_id`` under the naming rule: ``bright__biology.trec``."""
    return dataset_id.replace("/", "__") + suffix


def dataset_from_filename(name: str) -> str:
    """The dataset id a run file name stands for (the inverse of :func:`filename_for`)."""
    stem = name
    if stem.endswith(".gz"):
        stem = stem[:-3]
    for suffix in RUN_SUFFIXES:
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    return stem.replace("__", "/")


def collect(arguments: Sequence[str], bench: Benchmark, name: str = DEFAULT_SYSTEM) -> list[System]:
    """The systems and their runs found from the command line's arguments (module docstring)."""
    wanted = set(bench.ids)
    loose = System(name)
    systems: list[System] = []
    for argument in arguments:
        if "=" in argument and not Path(argument).exists():
            dataset_id, _, text = argument.partition("=")
            path = Path(text)
            if dataset_id not in wanted:
                raise ReportError(
                    f"{argument}: {dataset_id!r} is not a dataset of benchmark {bench.name} "
                    f"(its ids: {bench.ids[0]} ... {bench.ids[-1]})"
                )
            if not text.strip():
                raise ReportError(f"{argument}: no path after '=': write ID=PATH")
            if path.is_dir():
                raise ReportError(f"{argument}: {path} is a folder, not a run file")
            if not path.is_file():
                raise ReportError(f"{argument}: no run file {path}")
            _add(loose, dataset_id, path)
            continue
        path = Path(argument)
        if path.is_file():
            dataset_id = dataset_from_filename(path.name)
            if dataset_id not in wanted:
                others = benchmarks_of(dataset_id)
                if others:
                    raise ReportError(
                        f"{path}: the file name names no dataset of {bench.name} but "
                        f"{dataset_id}, of {' and '.join(others)}: pass --benchmark {others[0]}"
                    )
                raise ReportError(
                    f"{path}: the file name names no dataset of {bench.name}: name runs "
                    f"{filename_for(bench.ids[0])} (the id, / written __) or pass ID=PATH"
                )
            _add(loose, dataset_id, path)
        elif path.is_dir():
            found = _folder_system(path, wanted)
            if found.runs:
                systems.append(found)
                continue
            subsystems = [
                _folder_system(sub, wanted) for sub in sorted(path.iterdir()) if sub.is_dir()
            ]
            subsystems = [s for s in subsystems if s.runs]
            if not subsystems:
                raise ReportError(
                    f"{path}: no run file named after a dataset of {bench.name} in it or its "
                    f"sub-folders: name them like {filename_for(bench.ids[0])}"
                )
            systems += subsystems
        else:
            raise ReportError(f"{argument}: no such file or folder")
    if loose.runs:
        systems.insert(0, loose)
    names = [s.name for s in systems]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ReportError(
            f"two systems are called {duplicates[0]!r}: give the folders distinct names"
        )
    if not systems:
        raise ReportError("no runs given: pass a folder of runs, run files or ID=PATH")
    return systems


def _folder_system(folder: Path, wanted: set[str]) -> System:
    system = System(folder.resolve().name)
    elsewhere: dict[str, int] = {}
    for path in sorted(folder.iterdir()):
        if not path.is_file():
            continue
        dataset_id = dataset_from_filename(path.name)
        if dataset_id in wanted:
            _add(system, dataset_id, path)
        for name in benchmarks_of(dataset_id) if dataset_id not in wanted else ():
            elsewhere[name] = elsewhere.get(name, 0) + 1
    if elsewhere:
        logger.warning(
            "%s: skipping runs of other benchmarks (%s): report them with --benchmark",
            folder,
            ", ".join(f"{name}: {count}" for name, count in elsewhere.items()),
        )
    return system


def _add(system: System, dataset_id: str, path: Path) -> None:
    if dataset_id in system.runs and system.runs[dataset_id] != path:
        raise ReportError(
            f"two runs for {dataset_id} in {system.name!r}: {system.runs[dataset_id]} and {path}"
        )
    system.runs[dataset_id] = path


def score(
    systems: Sequence[System],
    bench: Benchmark,
    measure: str | None = None,
    progress: bool = True,
) -> Table:
    """Score every run officially; one :class:`Row` per system."""
    from ..log import progress as bar_of
    from ..scoring import Scorer, parse_measures

    measure = measure or bench.measure
    parsed = parse_measures([measure])[0]
    key = str(parsed)
    values: dict[str, dict[str, float | None]] = {s.name: {} for s in systems}
    total = sum(len(s.runs) for s in systems)
    with bar_of(progress, total=total, unit="run", desc="scoring") as bar:
        for dataset_id in bench.ids:
            scorer = None
            for system in systems:
                path = system.runs.get(dataset_id)
                if path is None:
                    values[system.name][dataset_id] = None
                    continue
                scorer = scorer or Scorer(dataset_id, [parsed])  # qrels read once per dataset
                result = scorer.evaluate(str(path), str(path))
                values[system.name][dataset_id] = float(result[key])
                bar.update(1)
    rows = []
    for system in systems:
        row_values = values[system.name]
        missing = [d for d in bench.ids if row_values[d] is None]
        if missing:
            logger.warning(
                "%s has no run for %d of %d datasets (%s ...): no average",
                system.name,
                len(missing),
                len(bench.ids),
                missing[0],
            )
        rows.append(Row(system.name, row_values, _mean(row_values.values())))
    return Table(bench, key, rows)


def _mean(values: Iterable[float | None]) -> float | None:
    given = list(values)
    present = [v for v in given if v is not None]
    if not given or len(present) < len(given):
        return None
    return sum(present) / len(present)


def reference_names(bench: Benchmark) -> list[str]:
    """The published rows available for ``bench``."""
    return list(_etc("reference.json")["references"].get(bench.name, {}))


def published(name: str, bench: Benchmark, measure: str) -> dict[str, Any]:
    """The published row ``name`` of ``bench`` (``etc/reference.json``), or a one-line error
    when there is none or the table's ``measure`` is not the published one."""
    available = _etc("reference.json")["references"].get(bench.name, {})
    if name not in available:
        hint = f"choose from {', '.join(available)}" if available else "none is in ir_bright"
        raise ReportError(f"no published row {name!r} for benchmark {bench.name}: {hint}")
    if measure != bench.measure:
        raise ReportError(
            f"the published rows are {bench.measure}, the table is {measure}: "
            "drop --reference (or --check) or --measure"
        )
    return available[name]


def reference_rows(names: Iterable[str], bench: Benchmark, measure: str) -> list[Row]:
    """Published rows (``etc/reference.json``) as :class:`Row` s (fractions, like scores)."""
    rows = []
    for name in names:
        spec = published(name, bench, measure)
        values = {
            dataset_id: (spec["values"][label] / 100 if label in spec["values"] else None)
            for dataset_id, label in zip(bench.ids, bench.labels)
        }
        average = spec.get("average")
        rows.append(Row(spec["label"], values, None if average is None else average / 100, True))
    return rows


def check(table: Table, name: str, tolerance: float | None = None) -> list[str]:
    """Set each published cell of reference ``name`` beside every system's (``table.checks``)
    and return the failures as ``system column`` strings: a cell outside ``tolerance`` points
    (x100) or without a run. The default tolerance is half a unit of the published values'
    last decimal (0.05 for one decimal): the published figures are rounded, so a value within
    it is one that rounds to the published figure."""
    spec = published(name, table.benchmark, table.measure)
    cells = {
        d: spec["values"][label]
        for d, label in zip(table.benchmark.ids, table.benchmark.labels)
        if label in spec["values"]
    }
    if spec.get("average") is not None:
        cells[AVERAGE] = spec["average"]
    decimals = max([1, *(_decimals(v) for v in cells.values())])
    tolerance = 0.5 * 10**-decimals if tolerance is None else check_tolerance(tolerance)
    failures = []
    for row in table.rows:
        if row.reference:
            continue
        ours = {**row.values, AVERAGE: row.average}
        checks = {}
        for column, value in cells.items():
            mine = ours[column]
            checks[column] = Check(value, decimals, None if mine is None else mine * 100, tolerance)
            if not checks[column].within:
                failures.append(f"{row.name} {_label(table, column)}")
        table.checks[row.name] = checks
    total = sum(len(c) for c in table.checks.values())
    table.notes.append(
        f"Checked against {spec['label']} ({name}): ours (published ok|FAIL difference), "
        f"within {tolerance:g} points of the published value; {len(failures)} of {total} "
        "cells outside."
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


def _label(table: Table, column: str) -> str:
    ids = table.benchmark.ids
    return table.benchmark.labels[ids.index(column)] if column in ids else column


# -- output -----------------------------------------------------------------------------------


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}"


def _grid(table: Table) -> tuple[list[str], list[list[str]]]:
    header = ["system", *table.benchmark.labels, AVERAGE]
    body = []
    for row in table.rows:
        checks = table.checks.get(row.name, {}) if not row.reference else {}
        values = [*(row.values[d] for d in table.benchmark.ids), row.average]
        columns = [*table.benchmark.ids, AVERAGE]
        cells = [checks[c].text() if c in checks else _cell(v) for c, v in zip(columns, values)]
        body.append([row.name, *cells])
    return header, body


def format_table(table: Table, fmt: str = "markdown") -> str:
    """The table as markdown, csv, latex or json text."""
    if fmt == "json":
        return json.dumps(_as_json(table), indent=1) + "\n"
    header, body = _grid(table)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(body)
        return buffer.getvalue()
    if fmt == "latex":
        return _latex(table, header, body)
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
        lines += ["| " + " | ".join(cells) + " |" for cells in body]
        lines += ["", *table.notes] if table.notes else []
        return "\n".join(lines) + "\n"
    raise ReportError(f"unknown format {fmt!r}: choose markdown, csv, latex or json")


def _latex(table: Table, header: list[str], body: list[list[str]]) -> str:
    def escape(text: str) -> str:
        return re.sub(r"([&%$#_{}])", r"\\\1", text)

    spec = "l" + "r" * (len(header) - 1)
    lines = [
        f"% {table.benchmark.title}, {table.measure} x100 (official protocol)",
        *(f"% {escape(note)}" for note in table.notes),
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(escape(h) for h in header) + " \\\\",
        "\\midrule",
    ]
    lines += [" & ".join(escape(c) for c in cells) + " \\\\" for cells in body]
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def _as_json(table: Table) -> dict[str, Any]:
    return {
        "benchmark": table.benchmark.name,
        "measure": table.measure,
        "columns": [
            {"id": i, "label": label}
            for i, label in zip(table.benchmark.ids, table.benchmark.labels)
        ],
        "rows": [
            {
                "system": row.name,
                "reference": row.reference,
                "values": row.values,
                "average": row.average,
                **(
                    {"check": _check_json(table.checks[row.name])}
                    if row.name in table.checks
                    else {}
                ),
            }
            for row in table.rows
        ],
    }


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


def check_plot_path(path: str | Path) -> Path:
    """``path`` as the target of :func:`plot`, or a one-line error saying why it cannot be:
    not named ``*.png``, a folder, under a file, or in a folder that cannot be written. Missing
    folders are fine (:func:`plot` creates them)."""
    text = str(path)
    if not text.strip():
        raise ReportError("--plot is empty: give the chart's file name, e.g. --plot bright.png")
    target = Path(text)
    if target.is_dir():
        raise ReportError(
            f"--plot {target} is a folder: give a file name, e.g. {target / 'bright.png'}"
        )
    if not target.name.lower().endswith(".png") or target.name.lower() == ".png":
        raise ReportError(f"--plot {target}: the chart is a PNG, name it FILE.png")
    return check_writable(target, "the plot", ReportError)


def plot(table: Table, path: str | Path) -> Path:
    """Draw the table as a grouped bar chart (one group per domain plus the average) to PNG."""
    target = check_plot_path(path)
    plt = pyplot()
    labels = [*table.benchmark.labels, AVERAGE]
    n_rows = max(len(table.rows), 1)
    width = 0.8 / n_rows
    figure, axes = plt.subplots(figsize=(max(8.0, 0.55 * len(labels) * max(1, n_rows / 2)), 4.5))
    for i, row in enumerate(table.rows):
        values = [row.values[d] for d in table.benchmark.ids] + [row.average]
        heights = [math.nan if v is None else v * 100 for v in values]
        positions = [x - 0.4 + width * (i + 0.5) for x in range(len(labels))]
        axes.bar(
            positions,
            heights,
            width,
            label=row.name,
            hatch="//" if row.reference else None,
            alpha=0.75 if row.reference else 1.0,
        )
    axes.set_xticks(range(len(labels)))
    axes.set_xticklabels(labels, rotation=45 if len(labels) > 14 else 0, ha="right")
    axes.set_ylabel(f"{table.measure} x100")
    axes.set_title(f"{table.benchmark.title}, {table.measure} (official protocol)")
    axes.legend(fontsize="small")
    axes.grid(axis="y", alpha=0.3)
    return save_png(figure, target)


def pyplot() -> Any:
    """matplotlib's pyplot on the file-only Agg backend (a one-line error if not installed)."""
    matplotlib = require("matplotlib", "plot")
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def save_png(figure: Any, target: Path) -> Path:
    """Write ``figure`` to ``target`` as PNG (creating its folders), then close it."""
    import matplotlib.pyplot as plt

    figure.tight_layout()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(target, format="png", dpi=120)
    except OSError as exc:
        raise ReportError(f"cannot write the plot {target} ({exc.strerror or exc})") from exc
    finally:
        plt.close(figure)
    return target
