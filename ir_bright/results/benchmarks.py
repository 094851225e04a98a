"""The benchmarks ``report`` and ``compare`` tabulate, and the run-file naming rule.

A *benchmark* is an ordered list of dataset ids with the column labels the papers print and a
headline measure, declared by its family (:mod:`ir_bright.families`): ``bright`` (12 domains,
nDCG@10), ``bright-long`` (8 domains, R@1), ``mm-bright-task1``, ``bright-pro``, ... A benchmark
may have *groups* of domains, each reported as the macro average of its domains beside the
benchmark's: BRIGHT's ``StackExchange``, ``Coding`` and ``Theorem``.

File-naming rule, used by every command that finds runs by name (``report``, ``compare``):
the file name without its extensions (``.gz``, then one of :data:`RUN_SUFFIXES`) is the dataset
id with each ``/`` written ``__`` (two underscores): ``bright__biology.trec``,
``bright__pony-long.run.gz``, ``mm-bright__academia__task1.res``.
"""

from __future__ import annotations

from functools import cache

from ..families import Benchmark, families
from .errors import ReportError

RUN_SUFFIXES = (".trec", ".run", ".txt", ".tsv", ".res")
"""The extensions a run file may have (then optionally ``.gz``)."""

AVERAGE = "Avg"
"""The label of the macro-average column."""


@cache
def _declared_benchmarks() -> dict[str, Benchmark]:
    """Every family's benchmarks, by name, in the families' order."""
    return {name: bench for family in families() for name, bench in family.benchmarks().items()}


def benchmark_names() -> list[str]:
    """The benchmarks ``report`` and ``compare`` know."""
    return list(_declared_benchmarks())


def benchmark(name: str) -> Benchmark:
    """The benchmark called ``name``; unknown names raise a one-line error."""
    known = _declared_benchmarks()
    if name not in known:
        raise ReportError(f"unknown benchmark {name!r}: choose one of {', '.join(known)}")
    return known[name]


def benchmarks_of(dataset_id: str) -> list[str]:
    """The benchmarks whose runs include the run of ``dataset_id`` (a column's, or the one
    run a table of several measures reads)."""
    return [name for name, spec in _declared_benchmarks().items() if dataset_id in spec.run_ids]


def filename_for(dataset_id: str, suffix: str = ".trec") -> str:
    """The run file name of ``dataset_id`` under the naming rule: ``bright__biology.trec``."""
    return dataset_id.replace("/", "__") + suffix


def run_stem(name: str) -> str:
    """A run file's name without its run extensions: ``bright__pony.run.gz`` -> ``bright__pony``."""
    stem = name.removesuffix(".gz")
    for suffix in RUN_SUFFIXES:
        if stem.endswith(suffix):
            return stem[: -len(suffix)]
    return stem


def dataset_from_filename(name: str) -> str:
    """The dataset id a run file name stands for (the inverse of :func:`filename_for`)."""
    return run_stem(name).replace("__", "/")
