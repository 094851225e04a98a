"""Paired comparisons of systems with a baseline: differences, intervals, tests, corrections.

Every number comes from the official per-query scores (:class:`~ir_bright.scoring.Scorer`); a
query missing from a run counts as 0, as in ``evaluate`` (a warning says how many). For each
measure, dataset (domain) and system, one *record* (:data:`RECORD_KEYS`):

- ``mean``, ``baseline_mean``, ``delta``: the means over the dataset's scored queries and their
  difference (system minus baseline);
- ``ci_low``, ``ci_high``: the confidence interval of the mean difference, a paired bootstrap
  (the queries' differences resampled with replacement, :func:`.stats.bootstrap_interval`,
  ``samples`` resamples seeded with ``seed`` afresh for every record; the queries in the
  natural order of their ids, as ``per_query_frame`` lists them);
- ``p_ttest``, ``p_wilcoxon``: the two-sided paired t-test and Wilcoxon signed-rank test
  (:func:`.stats.paired_tests`: scipy's calls, those of PyTerrier's ``pt.Experiment``);
- ``p_adjusted``: the p-value of ``test`` (``"t"`` or ``"wilcoxon"``) corrected for multiple
  comparisons over every record of the table (all measures, datasets, systems and the
  whole-benchmark rows): Holm (default), Bonferroni or Benjamini-Hochberg, or none.

With a benchmark, a whole-benchmark record per measure and system follows the domains (its
``dataset`` is the benchmark's name): ``mean``, ``baseline_mean`` and ``delta`` are the macro
averages over the compared domains (as the papers' Avg column), the interval is a stratified
bootstrap of the macro difference (each domain's queries resampled within the domain), and the
two tests are over the queries of all domains pooled (``test`` says so). Each group of the
benchmark (BRIGHT's ``StackExchange``, ``Coding``, ``Theorem``) whose domains are all compared
gets a record the same way, over its domains (its ``dataset`` is the group's label), between
the domains and the whole-benchmark record: macro means, a bootstrap stratified by domain, and
the two tests on the per-query scores of its domains pooled. The group and whole-benchmark
records are in the family the correction covers.

The options of the tests (``test``, ``correction``, ``samples``, ``seed``, ``confidence``,
``alpha``) are one :class:`~ir_bright.results.stats.Options`; the DataFrame :func:`compare`
returns carries them in ``frame.attrs["options"]``, so that ``format_comparison`` states them
in its legend.

A record's ``setting`` is its system's (:mod:`.system_info`): with a benchmark, from the
``system.json`` of its folder; ``setting=`` sets it (``"rerank"`` or ``["mine=rerank"]`` as
``--setting``, or ``{name: setting}``). ``frame.attrs["baseline_setting"]`` is the baseline's.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import registry
from ..families import Benchmark
from .benchmarks import benchmark as find_benchmark
from .errors import CompareError
from .paired_runs import benchmark_runs, compared_domains, label_runs
from .stats import TESTS, Options, adjust, bootstrap_interval, paired_tests
from .system_info import SystemInfo, with_settings

logger = logging.getLogger(__name__)

RECORD_KEYS = (
    "dataset",
    "measure",
    "system",
    "baseline",
    "mean",
    "baseline_mean",
    "delta",
    "ci_low",
    "ci_high",
    "p_ttest",
    "p_wilcoxon",
    "p_adjusted",
    "test",
    "correction",
    "queries",
    "setting",
)
"""The keys of a comparison record, in order (the columns of :func:`compare`'s DataFrame)."""

POOLED = ", all queries pooled"
"""The suffix of ``test`` in a record whose tests pool the queries of several domains."""


def per_query_frame(run: Any, dataset: Any, measures: Iterable[Any] | None = None) -> Any:
    """The run's official per-query scores on ``dataset`` as a pandas DataFrame.

    One row per scored query (index ``query_id``, natural order), one column per measure
    (default: the dataset's official ones); a query missing from the run scores 0, so each
    column's mean is :func:`ir_bright.evaluate`'s value. :func:`ir_bright.scoring.per_query`
    gives the same numbers as a ``{query_id: {measure: value}}`` dict.
    """
    import pandas as pd

    from ..scoring import Scorer

    scorer = Scorer(dataset, measures)
    scores = scorer.per_query(run)
    frame = pd.DataFrame.from_dict(scores, orient="index", columns=scorer.names, dtype=float)
    frame.index.name = "query_id"
    return frame


@dataclass
class _Scores:
    """Per-query scores of one dataset: ``{system name: array}`` aligned on ``queries``."""

    queries: list[str]
    by_system: dict[str, np.ndarray]


def _benchmark_inputs(
    benchmark: str, labelled: Mapping[str, Any], measures: Iterable[Any] | None
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], Iterable[Any] | None, list[Any]]:
    """The runs, settings, domains, measures and pooled groups of a comparison on a benchmark."""
    bench = find_benchmark(benchmark)
    if bench.mixed:
        raise CompareError(
            f"benchmark {bench.name} sets several measures of one run side by side: compare "
            f"on one of its datasets ({', '.join(dict.fromkeys(bench.datasets))}) instead"
        )
    found = {name: benchmark_runs(run, bench, name) for name, run in labelled.items()}
    runs = {name: system.runs for name, system in found.items()}
    infos = {name: system.info for name, system in found.items()}
    domains = compared_domains(runs, bench, found)
    measure_names: Iterable[Any] | None = [bench.measure] if measures is None else measures
    return runs, infos, domains, measure_names, _pooled(bench, list(domains))


def compare(
    baseline: Any,
    systems: Any,
    dataset: Any = None,
    *,
    benchmark: str | None = None,
    measures: Iterable[Any] | None = None,
    names: Sequence[str] | None = None,
    options: Options | None = None,
    setting: str | Sequence[str] | Mapping[str, Any] | None = None,
    progress: bool = False,
    force: bool = False,
    **option_values: Any,
) -> Any:
    """Compare ``systems`` with ``baseline``: a pandas DataFrame of records (:data:`RECORD_KEYS`).

    With ``dataset`` (an id, an ir_datasets dataset or a PyTerrier one), ``baseline`` and each
    system are runs of any shape :func:`ir_bright.evaluate` reads. With ``benchmark`` (``"bright"``,
    ``"mm-bright-task1"``, ...), each is a folder of runs found as ``ir-bright report`` finds
    them, or a ``{dataset id: run}`` mapping; the domains compared are the baseline's, and
    every system needs a run for each of them. ``systems`` is a list of runs (a single run
    file, DataFrame, ``{query_id: {doc_id: score}}`` dict or folder also works) or a
    ``{name: run}`` dict; ``names`` (baseline first) label them otherwise. ``measures``
    default to the dataset's official ones or the benchmark's headline measure.

    ``options`` (:class:`~ir_bright.results.stats.Options`) set the tests; its fields may also
    be given as keywords (``test="wilcoxon"``, ``correction``, ``samples``, ``seed``,
    ``confidence``, ``alpha``), which override ``options``. ``setting`` labels the systems'
    settings. ``force`` scores runs none of whose ranked documents is judged (refused
    otherwise, see :class:`~ir_bright.scoring.Scorer`). The rest is in the module docstring.
    """
    options = _options(options, option_values)
    if (dataset is None) == (benchmark is None):
        raise CompareError("give a dataset or a benchmark (one of them)")
    labelled = label_runs(baseline, systems, names)
    if benchmark is not None:
        runs, infos, domains, measure_names, pooled = _benchmark_inputs(
            benchmark, labelled, measures
        )
    else:
        dataset = registry.load(dataset)
        key = str(getattr(dataset, "dataset_id", lambda: "dataset")())
        runs = {name: {key: run} for name, run in labelled.items()}
        infos = dict.fromkeys(labelled)
        domains, measure_names, pooled = {key: dataset}, measures, []
    infos = with_settings(infos, setting)
    scores = _score(runs, domains, measure_names, progress, force)
    records = _records(scores, list(labelled), pooled, options)
    for record in records:
        record["setting"] = _text(infos[record["system"]])
    import pandas as pd

    frame = pd.DataFrame(records, columns=list(RECORD_KEYS))
    frame.attrs["options"] = options.as_dict()
    frame.attrs["baseline_setting"] = _text(infos[next(iter(labelled))])
    return frame


def _text(info: SystemInfo | None) -> str | None:
    return None if info is None else info.text()


def _options(options: Options | None, values: dict[str, Any]) -> Options:
    """``options`` with the keyword ``values`` applied (a one-line error for unknown ones)."""
    known = Options.__dataclass_fields__
    unknown = [k for k in values if k not in known]
    if unknown:
        raise CompareError(
            f"compare() got an unknown option {unknown[0]!r}: the options are {', '.join(known)}"
        )
    base = options.as_dict() if options is not None else {}
    return Options(**{**base, **values})


def _pooled(bench: Benchmark, domains: list[str]) -> list[tuple[str, list[str]]]:
    """The records over several domains: ``(dataset, its domains)`` of each group whose
    domains are all compared, then of the whole benchmark (when more than one is compared)."""
    pooled = [(g.label, list(g.ids)) for g in bench.groups if set(g.ids) <= set(domains)]
    return pooled + ([(bench.name, domains)] if len(domains) > 1 else [])


def _records(
    scores: dict[str, dict[str, _Scores]],
    names: list[str],
    pooled: list[tuple[str, list[str]]],
    options: Options,
) -> list[dict[str, Any]]:
    """Every record of the table, the p-value of ``options.test`` corrected over all of them."""
    base, systems = names[0], names[1:]
    records = []
    for measure, by_domain in scores.items():
        for domain, table in by_domain.items():
            records += [_record(domain, measure, s, base, [table], options) for s in systems]
        for dataset, domains in pooled:
            tables = [by_domain[d] for d in domains]
            records += [_record(dataset, measure, s, base, tables, options) for s in systems]
    column = "p_ttest" if options.test == "t" else "p_wilcoxon"
    adjusted = adjust([r[column] for r in records], options.correction)
    for record, p in zip(records, adjusted):
        record["p_adjusted"] = p
    return records


def _score(
    runs: dict[str, dict[str, Any]],
    domains: dict[str, Any],
    measures: Iterable[Any] | None,
    progress: bool,
    force: bool = False,
) -> dict[str, dict[str, _Scores]]:
    """``{measure: {dataset key: _Scores}}``: every run scored per query, qrels read once per
    dataset."""
    from tqdm.auto import tqdm

    from ..scoring import Scorer

    result: dict[str, dict[str, _Scores]] = {}
    total = len(domains) * len(runs)
    with tqdm(total=total, unit="run", desc="scoring", disable=not progress or None) as bar:
        for key, dataset in domains.items():
            scorer = Scorer(dataset, measures, force=force)
            per_system = {}
            for name, system_runs in runs.items():
                run = system_runs[key]
                label = os.fspath(run) if isinstance(run, str | os.PathLike) else name
                per_system[name] = scorer.per_query(run, label)
                bar.update(1)
            for measure in scorer.names:
                result.setdefault(measure, {})[key] = _scored_by_all(per_system, measure, key)
    return result


def _scored_by_all(per_system: dict[str, Any], measure: str, key: str) -> _Scores:
    """The queries every system scores: a NaN (a query BRIGHT-Pro's aspect measures skip, as
    the official scripts do) leaves that query out of the pairs, for every system."""
    queries = list(next(iter(per_system.values())))
    by_system = {
        name: np.array([scores[q][measure] for q in queries]) for name, scores in per_system.items()
    }
    kept = ~np.any(np.isnan(np.stack(list(by_system.values()))), axis=0)
    if kept.all():
        return _Scores(queries, by_system)
    logger.warning(
        "%s on %s: %d of %d queries left out of every system's pairs: a run does not rank "
        "them and the measure skips such queries (as the official script does)",
        measure,
        key,
        int((~kept).sum()),
        len(queries),
    )
    return _Scores(
        [q for q, keep in zip(queries, kept) if keep],
        {name: values[kept] for name, values in by_system.items()},
    )


def _record(
    dataset: str,
    measure: str,
    system: str,
    baseline: str,
    tables: list[_Scores],
    options: Options,
) -> dict[str, Any]:
    """One comparison over ``tables`` (one dataset, or several: macro means, pooled tests,
    stratified interval)."""
    ours = [t.by_system[system] for t in tables]
    theirs = [t.by_system[baseline] for t in tables]
    mean = float(np.mean([s.mean() for s in ours]))
    baseline_mean = float(np.mean([b.mean() for b in theirs]))
    p_t, p_w = paired_tests(np.concatenate(ours), np.concatenate(theirs))
    differences = [s - b for s, b in zip(ours, theirs)]
    low, high = bootstrap_interval(differences, options.samples, options.seed, options.confidence)
    return {
        "dataset": dataset,
        "measure": measure,
        "system": system,
        "baseline": baseline,
        "mean": mean,
        "baseline_mean": baseline_mean,
        "delta": mean - baseline_mean,
        "ci_low": low,
        "ci_high": high,
        "p_ttest": p_t,
        "p_wilcoxon": p_w,
        "p_adjusted": math.nan,
        "test": TESTS[options.test] + (POOLED if len(tables) > 1 else ""),
        "correction": options.correction,
        "queries": int(sum(len(s) for s in ours)),
    }
