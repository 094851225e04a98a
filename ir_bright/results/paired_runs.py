"""The runs a comparison pairs: each system's name and its run per dataset, and the datasets
compared (those of the baseline)."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..families import Benchmark
from .benchmarks import filename_for, run_stem
from .errors import CompareError
from .system_info import read_system_json
from .systems import System, collect

logger = logging.getLogger(__name__)


def label_runs(baseline: Any, systems: Any, names: Sequence[str] | None) -> dict[str, Any]:
    """``{name: run}``, the baseline first: ``systems`` is a list of runs (a single run also
    works) or a ``{name: run}`` dict; ``names`` (baseline first) label them otherwise."""
    if isinstance(systems, Mapping) and systems and not _is_run_mapping(systems):
        base = names[0] if names else _run_name(baseline, "baseline")
        pairs = [(base, baseline), *systems.items()]
    else:
        one_run = isinstance(systems, str | os.PathLike) or hasattr(systems, "columns")
        if one_run or (isinstance(systems, Mapping) and systems):  # {query_id: {doc: score}}
            systems = [systems]
        runs = [baseline, *systems]
        if names is not None and len(names) != len(runs):
            raise CompareError(
                f"{len(names)} names for {len(runs)} runs: name the baseline and every system"
            )
        labels = names or [
            _run_name(r, "baseline" if i == 0 else f"system {i}") for i, r in enumerate(runs)
        ]
        if not names and len(set(labels)) < len(labels):  # base/x.trec and mine/x.trec
            labels = [os.fspath(r) if is_path(r) else n for r, n in zip(runs, labels)]
        pairs = list(zip(labels, runs))
    if len(pairs) < 2:
        raise CompareError("no system to compare with the baseline: give at least one")
    labels = [p[0] for p in pairs]
    repeated = sorted({n for n in labels if labels.count(n) > 1})
    if repeated:
        raise CompareError(
            f"two runs are called {repeated[0]!r}: give distinct names (or file names)"
        )
    return dict(pairs)


def _is_run_mapping(value: Mapping) -> bool:
    """Whether a dict is a run ``{query_id: {doc_id: score}}`` rather than ``{name: run}``."""
    return all(
        isinstance(docs, Mapping) and all(isinstance(s, int | float) for s in docs.values())
        for docs in value.values()
    )


def is_path(run: Any) -> bool:
    """Whether ``run`` names a file or folder: a path object, or a str that is not run text
    (run text holds a line break, as ir_measures reads a str)."""
    return isinstance(run, os.PathLike) or (isinstance(run, str) and "\n" not in run)


def _run_name(run: Any, default: str) -> str:
    if is_path(run):
        path = Path(run)
        if path.is_dir():
            info = read_system_json(path)
            return (info and info.label) or run_stem(path.resolve().name) or default
        return run_stem(path.name) or default
    return default


def benchmark_runs(run: Any, bench: Benchmark, name: str) -> System:
    """One system of a benchmark comparison, its runs by dataset id: a folder of runs found
    as ``ir-bright report`` finds them (with its system.json), a :class:`System` or a
    ``{dataset id: run}`` dict."""
    if isinstance(run, System):
        return run
    if isinstance(run, Mapping):
        unknown = [d for d in run if d not in bench.ids]
        if unknown:
            raise CompareError(f"{name}: {unknown[0]!r} is not a dataset of {bench.name}")
        return System(name, dict(run))
    if isinstance(run, str | os.PathLike):
        path = Path(run)
        if not path.is_dir():
            raise CompareError(
                f"{path}: with a benchmark, each system is a folder of runs named after the "
                f"datasets (e.g. {filename_for(bench.ids[0])})"
            )
        found = collect([os.fspath(path)], bench)
        if len(found) != 1:
            raise CompareError(
                f"{path}: holds {len(found)} systems ({', '.join(s.name for s in found[:3])}"
                "...): give each system's folder"
            )
        return found[0]
    raise CompareError(
        f"{name}: with a benchmark, give a folder of runs or a {{dataset id: run}} mapping"
    )


def compared_domains(
    runs: dict[str, dict[str, Any]],
    bench: Benchmark,
    systems: Mapping[str, System] | None = None,
) -> dict[str, str]:
    """The datasets compared: the baseline's, in the benchmark's order (a column whose runs
    are of a query set is scored on that query set's dataset: every system's must be the
    same); each system must have a run for every one of them."""
    names = list(runs)
    base = runs[names[0]]
    of = systems or {}
    scored_on = {n: of[n].dataset_of if n in of else str for n in names}
    domains = {d: scored_on[names[0]](d) for d in bench.ids if d in base}
    for name in names[1:]:
        other = next(
            (d for d in domains if d in runs[name] and scored_on[name](d) != domains[d]), None
        )
        if other is not None:
            raise CompareError(
                f"{name}'s run for {other} is of {scored_on[name](other)}, the baseline's of "
                f"{domains[other]}: a paired comparison needs runs of the same query set"
            )
        missing = [d for d in domains if d not in runs[name]]
        if missing:
            raise CompareError(
                f"{name} has no run for {missing[0]} ({len(missing)} of the baseline's "
                f"{len(domains)} datasets): every system needs a run where the baseline has one"
            )
        extra = [d for d in runs[name] if d not in domains]
        if extra:
            logger.warning(
                "%s: ignoring its runs for %d datasets the baseline %s has no run for (%s ...)",
                name,
                len(extra),
                names[0],
                extra[0],
            )
    if len(domains) < len(bench.ids):
        logger.warning(
            "the baseline %s has runs for %d of the %d datasets of %s: the comparison and its "
            "average cover those only",
            names[0],
            len(domains),
            len(bench.ids),
            bench.name,
        )
    return domains
