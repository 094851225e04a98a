"""The benchmarks ``report`` and ``compare`` tabulate, and the run-file naming rule.

A *benchmark* is an ordered list of dataset ids with the column labels the papers print and a
headline measure, declared by its family (:mod:`ir_bright.families`): ``bright`` (12 domains,
nDCG@10), ``bright-long`` (8 domains, R@1), ``mm-bright-task1``, ``bright-pro``, ... A benchmark
may have *groups* of domains, each reported as the macro average of its domains beside the
benchmark's: BRIGHT's ``StackExchange``, ``Coding`` and ``Theorem``.

File-naming rule, used by every command that finds runs by name (``report``, ``compare``):
the file name without its extensions (``.gz``, then one of :data:`RUN_SUFFIXES`) is the dataset
id with each ``/`` written ``__`` (two underscores): ``bright__biology.trec``,
``bright__pony-long.run.gz``, ``mm-bright__academia__task1.res``. A query set's dataset id is
its domain's with the query set's name after it, so its runs are named the same way,
``<namespace>__<domain>__<query set, / written __>``: ``r2med__biology__hyde__gpt4.trec``,
``tempo__economics__gpt4o-reason.trec``. A benchmark takes such a run in its domain's column
(:func:`column_of`), scored on the query set's own dataset.
"""

from __future__ import annotations

from functools import cache

from ..families import Benchmark, Entry, Family, families
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
    run a table of several measures reads); else those that take it as a query set's run of
    one of their columns (:func:`column_of`)."""
    known = _declared_benchmarks()
    exact = [name for name, spec in known.items() if dataset_id in spec.run_ids]
    return exact or [name for name, spec in known.items() if column_of(dataset_id, spec)]


def column_of(dataset_id: str, bench: Benchmark) -> str | None:
    """The run id of ``bench`` whose column a run of ``dataset_id`` fills: itself, or the
    column of the same domain and document set when ``dataset_id`` is another declared query
    set of it (``r2med/biology/hyde/gpt4`` in ``r2med``'s ``r2med/biology``) that no benchmark
    of its own tabulates (``bright/biology/gpt4-reason`` is ``bright-gpt4-reason``'s); None
    otherwise."""
    if dataset_id in bench.run_ids:
        return dataset_id
    if bench.runs or _tabulated(dataset_id):  # bench.runs: one run read for several columns
        return None
    entry, family = _entry_of(dataset_id)
    if entry is None or family is None:
        return None
    for run_id in bench.run_ids:
        column = family.entry(run_id)
        if column is not None and column[1:3] == entry[1:3]:
            return run_id
    return None


def _tabulated(dataset_id: str) -> bool:
    """Whether ``dataset_id`` is the run of a column of some benchmark."""
    return any(dataset_id in spec.run_ids for spec in _declared_benchmarks().values())


def _entry_of(dataset_id: str) -> tuple[Entry | None, Family | None]:
    for family in families():
        if family.owns(dataset_id):
            return family.entry(dataset_id), family
    return None, None


def check_query_set_name(name: str, bench: Benchmark) -> None:
    """Refuse a run file named after a column's domain with a query set its family does not
    declare (``r2med__biology__hyde__gpt5.trec``): a one-line error naming the convention."""
    dataset_id = dataset_from_filename(name)
    column = next((r for r in bench.run_ids if dataset_id.startswith(r + "/")), None)
    if column is None or _entry_of(dataset_id)[0] is not None:  # declared: said elsewhere
        return
    entry, family = _entry_of(column)
    sets = (
        [e.id[len(column) + 1 :] for e in family.entries if e[1:3] == entry[1:3]]
        if (entry and family)
        else []
    )
    declared = ", ".join(s for s in sets if s) or "none"
    raise ReportError(
        f"{name}: {dataset_id[len(column) + 1 :]!r} is no query set declared for {column}: "
        f"name a query set's runs <namespace>__<domain>__<query set, / written __>.trec "
        f"(declared: {declared})"
    )


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
