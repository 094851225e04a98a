"""Paired comparisons of systems with a baseline: differences, intervals, tests, corrections.

Every number comes from the official per-query scores (:class:`~ir_bright.scoring.Scorer`); a
query missing from a run counts as 0, as in ``evaluate`` (a warning says how many). For each
measure, dataset (domain) and system, one *record* (:data:`RECORD_KEYS`):

- ``mean``, ``baseline_mean``, ``delta``: the means over the dataset's scored queries and their
  difference (system minus baseline);
- ``ci_low``, ``ci_high``: the confidence interval of the mean difference, a paired bootstrap
  (the queries' differences resampled with replacement; ``scipy.stats.bootstrap`` with the
  percentile method, ``samples`` resamples, a ``numpy`` Generator seeded with ``seed`` afresh
  for every record, so a record does not depend on the others; the queries in the natural
  order of their ids, as ``per_query`` lists them);
- ``p_ttest``: two-sided paired t-test, ``scipy.stats.ttest_rel(system, baseline)``;
- ``p_wilcoxon``: two-sided Wilcoxon signed-rank test,
  ``scipy.stats.wilcoxon(system, baseline, zero_method="wilcox", correction=False,
  method="auto")``: queries with equal scores are dropped (Wilcoxon's original treatment),
  tied differences get average ranks, the exact distribution is used for small samples without
  ties and the normal approximation (no continuity correction) otherwise. These are scipy's
  defaults, the call PyTerrier's ``pt.Experiment(test="wilcoxon")`` makes, so both give the
  same p-values; ``test="t"`` (PyTerrier's default) is ``ttest_rel``. When a system and its
  baseline score every query alike both p-values are 1 (scipy's t-test would give NaN);
- ``p_adjusted``: the p-value of ``test`` (``"t"`` or ``"wilcoxon"``) corrected for multiple
  comparisons over every record of the table (all measures, datasets, systems and the
  whole-benchmark rows): Holm (default), Bonferroni or Benjamini-Hochberg
  (``scipy.stats.false_discovery_control``), or none.

With a benchmark, a whole-benchmark record per measure and system follows the domains (its
``dataset`` is the benchmark's name): ``mean``, ``baseline_mean`` and ``delta`` are the macro
averages over the compared domains (as the papers' Avg column), the interval is a stratified
bootstrap of the macro difference (each domain's queries resampled within the domain), and the
two tests are over the queries of all domains pooled (``test`` says so).
"""

from __future__ import annotations

import csv
import io
import json
import logging
import math
import os
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import IrBrightError, require

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike

__all__ = [
    "CORRECTIONS",
    "RECORD_KEYS",
    "TESTS",
    "CompareError",
    "adjust",
    "bootstrap_interval",
    "compare",
    "format_comparison",
    "paired_tests",
    "per_query",
    "plot_comparison",
]

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
)
"""The keys of a comparison record, in order (the columns of :func:`compare`'s DataFrame)."""

TESTS = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank"}
"""The tests whose p-value is corrected (``test=``), and their names in tables."""

CORRECTIONS = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg",
    "none": "no correction",
}
"""Multiple-comparison corrections (``correction=``), and their names in tables."""

POOLED = ", all queries pooled"
SAMPLES = 10_000
SEED = 0
CONFIDENCE = 0.95
ALPHA = 0.05
_BATCH = 500  # bootstrap resamples per vectorised step: bounds memory on 29 pooled domains


class CompareError(IrBrightError, ValueError):
    """Runs or options that do not make a comparison."""


def per_query(run: Any, dataset: Any, measures: Iterable[Any] | None = None) -> Any:
    """The run's official per-query scores on ``dataset`` as a pandas DataFrame.

    One row per scored query (index ``query_id``, natural order), one column per measure
    (default: the dataset's official ones); a query missing from the run scores 0, so each
    column's mean is :func:`ir_bright.evaluate`'s value. ``ir_bright.scoring.per_query`` gives
    the same numbers as a dict.
    """
    import pandas as pd

    from ..scoring import Scorer

    scorer = Scorer(dataset, measures)
    scores = scorer.per_query(run)
    frame = pd.DataFrame.from_dict(scores, orient="index", columns=scorer.names, dtype=float)
    frame.index.name = "query_id"
    return frame


# -- statistics -------------------------------------------------------------------------------


def paired_tests(system: ArrayLike, baseline: ArrayLike) -> tuple[float, float]:
    """``(p_ttest, p_wilcoxon)``: two-sided paired tests of ``system`` against ``baseline``
    (per-query scores in the same order), as the module docstring describes."""
    import numpy as np

    stats = require("scipy.stats", "compare")

    ours, theirs = np.asarray(system, float), np.asarray(baseline, float)
    if not np.any(ours - theirs):
        return 1.0, 1.0
    with warnings.catch_warnings():  # one query, or equal differences: scipy's NaN or 0 stands
        warnings.simplefilter("ignore", RuntimeWarning)
        p_t = float(stats.ttest_rel(system, baseline).pvalue)
        p_w = float(
            stats.wilcoxon(
                system, baseline, zero_method="wilcox", correction=False, method="auto"
            ).pvalue
        )
    return p_t, p_w


def bootstrap_interval(
    differences: Sequence[Sequence[float]],
    samples: int = SAMPLES,
    seed: int | None = SEED,
    confidence: float = CONFIDENCE,
) -> tuple[float, float]:
    """The percentile bootstrap interval of the macro average of the groups' mean differences
    (one group: the paired bootstrap of the mean difference); each group is resampled within
    itself. ``(nan, nan)`` when a group has fewer than 2 queries."""
    import numpy as np

    stats = require("scipy.stats", "compare")

    groups = tuple(np.asarray(d, float) for d in differences)
    if any(len(g) < 2 for g in groups):
        return math.nan, math.nan

    def macro(*resampled: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.mean([r.mean(axis=axis) for r in resampled], axis=0)

    result = stats.bootstrap(
        groups,
        macro if len(groups) > 1 else np.mean,
        n_resamples=samples,
        batch=_BATCH,
        vectorized=True,
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    interval = result.confidence_interval
    return float(interval.low), float(interval.high)


def adjust(pvalues: Sequence[float], correction: str = "holm") -> list[float]:
    """``pvalues`` corrected for multiple comparisons: ``holm``, ``bonferroni``, ``bh``
    (Benjamini-Hochberg) or ``none``. NaN values are left out of the family and stay NaN."""
    import numpy as np

    if correction not in CORRECTIONS:
        raise CompareError(
            f"unknown correction {correction!r}: choose one of {', '.join(CORRECTIONS)}"
        )
    values = np.asarray(pvalues, float)
    result = np.full(len(values), math.nan)
    present = ~np.isnan(values)
    p = values[present]
    m = len(p)
    if correction == "none" or m == 0:
        adjusted = p
    elif correction == "bonferroni":
        adjusted = np.minimum(p * m, 1.0)
    elif correction == "holm":
        order = np.argsort(p, kind="stable")
        stepped = np.maximum.accumulate(p[order] * (m - np.arange(m)))
        adjusted = np.empty(m)
        adjusted[order] = np.minimum(stepped, 1.0)
    else:
        stats = require("scipy.stats", "compare")

        adjusted = stats.false_discovery_control(p, method="bh")
    result[present] = adjusted
    return result.tolist()


# -- building the table -----------------------------------------------------------------------


@dataclass
class _Scores:
    """Per-query scores of one dataset: ``{system name: array}`` aligned on ``queries``."""

    queries: list[str]
    by_system: dict[str, np.ndarray]


def compare(
    baseline: Any,
    systems: Any,
    dataset: Any = None,
    *,
    benchmark: str | None = None,
    measures: Iterable[Any] | None = None,
    names: Sequence[str] | None = None,
    test: str = "t",
    correction: str = "holm",
    samples: int = SAMPLES,
    seed: int | None = SEED,
    confidence: float = CONFIDENCE,
    progress: bool = False,
) -> Any:
    """Compare ``systems`` with ``baseline``: a pandas DataFrame of records (:data:`RECORD_KEYS`).

    With ``dataset`` (an id or an ir_datasets dataset), ``baseline`` and each system are runs
    of any shape :func:`ir_bright.evaluate` reads. With ``benchmark`` (``"bright"``,
    ``"mm-bright-task1"``, ...), each is a folder of runs found as ``ir-bright report`` finds
    them, or a ``{dataset id: run}`` mapping; the domains compared are the baseline's, and
    every system needs a run for each of them. ``systems`` is a list of runs (a single run
    file, DataFrame, ``{query_id: {doc_id: score}}`` dict or folder also works) or a
    ``{name: run}`` dict; ``names`` (baseline first) label them otherwise. ``measures``
    default to the dataset's official ones or the benchmark's headline measure. The rest is
    described in the module docstring.
    """
    if (dataset is None) == (benchmark is None):
        raise CompareError("give a dataset or a benchmark (one of them)")
    if test not in TESTS:
        raise CompareError(f"unknown test {test!r}: choose one of {', '.join(TESTS)}")
    if correction not in CORRECTIONS:
        raise CompareError(
            f"unknown correction {correction!r}: choose one of {', '.join(CORRECTIONS)}"
        )
    if not samples >= 1:
        raise CompareError(f"the bootstrap needs at least 1 sample, not {samples}")
    if not 0 < confidence < 1:
        raise CompareError(f"the confidence level must be between 0 and 1, not {confidence}")
    labelled = _label_runs(baseline, systems, names)
    if benchmark is not None:
        from . import report

        bench = report.benchmark(benchmark)
        runs = {name: _benchmark_runs(run, bench, name) for name, run in labelled.items()}
        domains = _domains(runs, bench)
        measure_names: Iterable[Any] | None = [bench.measure] if measures is None else measures
        overall = bench.name if len(domains) > 1 else None
    else:
        key = dataset if isinstance(dataset, str) else "dataset"
        runs = {name: {key: run} for name, run in labelled.items()}
        domains = {key: dataset}
        measure_names = measures
        overall = None
    scores = _score(runs, domains, measure_names, progress)
    base_name = next(iter(labelled))
    records = []
    for measure, by_domain in scores.items():
        for domain, table in by_domain.items():
            for system in list(labelled)[1:]:
                records.append(
                    _record(domain, measure, system, base_name, [table], samples, seed, confidence)
                )
        if overall is not None:
            for system in list(labelled)[1:]:
                record = _record(
                    overall, measure, system, base_name, list(by_domain.values()),
                    samples, seed, confidence,
                )  # fmt: skip
                records.append(record)
    adjusted = adjust([r["p_ttest" if test == "t" else "p_wilcoxon"] for r in records], correction)
    for record, p in zip(records, adjusted):
        record["p_adjusted"] = p
        record["test"] = TESTS[test] + (POOLED if record["dataset"] == overall else "")
        record["correction"] = correction
    import pandas as pd

    return pd.DataFrame(records, columns=list(RECORD_KEYS))


def _label_runs(baseline: Any, systems: Any, names: Sequence[str] | None) -> dict[str, Any]:
    """``{name: run}``, the baseline first."""
    if isinstance(systems, Mapping) and systems and not _is_run_mapping(systems):
        given = list(systems.items())
        base = names[0] if names else _run_name(baseline, "baseline")
        pairs = [(base, baseline), *given]
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
            labels = [str(r) if _is_path(r) else n for r, n in zip(runs, labels)]
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


_SUFFIXES = re.compile(r"(\.(trec|run|txt|tsv|res))?(\.gz)?$")


def _is_path(run: Any) -> bool:
    return isinstance(run, str | os.PathLike) and "\n" not in str(run)


def _run_name(run: Any, default: str) -> str:
    if _is_path(run):
        path = Path(run)
        return _SUFFIXES.sub("", path.resolve().name if path.is_dir() else path.name) or default
    return default


def _benchmark_runs(run: Any, bench: Any, name: str) -> dict[str, Any]:
    """``{dataset id: run}`` of one system of a benchmark comparison."""
    from . import report

    if isinstance(run, report.System):
        return dict(run.runs)
    if isinstance(run, Mapping):
        unknown = [d for d in run if d not in bench.ids]
        if unknown:
            raise CompareError(f"{name}: {unknown[0]!r} is not a dataset of {bench.name}")
        return dict(run)
    if isinstance(run, str | os.PathLike):
        path = Path(run)
        if not path.is_dir():
            raise CompareError(
                f"{path}: with a benchmark, each system is a folder of runs named after the "
                f"datasets (e.g. {report.filename_for(bench.ids[0])})"
            )
        found = report.collect([str(path)], bench)
        if len(found) != 1:
            raise CompareError(
                f"{path}: holds {len(found)} systems ({', '.join(s.name for s in found[:3])}"
                "...): give each system's folder"
            )
        return {d: str(p) for d, p in found[0].runs.items()}
    raise CompareError(
        f"{name}: with a benchmark, give a folder of runs or a {{dataset id: run}} mapping"
    )


def _domains(runs: dict[str, dict[str, Any]], bench: Any) -> dict[str, str]:
    """The datasets compared: the baseline's, in the benchmark's order; each system must have
    a run for every one of them."""
    names = list(runs)
    base = runs[names[0]]
    domains = {d: d for d in bench.ids if d in base}
    for name in names[1:]:
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


def _score(
    runs: dict[str, dict[str, Any]],
    domains: dict[str, Any],
    measures: Iterable[Any] | None,
    progress: bool,
) -> dict[str, dict[str, _Scores]]:
    """``{measure: {dataset key: _Scores}}``: every run scored per query, qrels read once per
    dataset."""
    import numpy as np
    from tqdm.auto import tqdm

    from ..scoring import Scorer

    result: dict[str, dict[str, _Scores]] = {}
    total = len(domains) * len(runs)
    with tqdm(total=total, unit="run", desc="scoring", disable=not progress or None) as bar:
        for key, dataset in domains.items():
            scorer = Scorer(dataset, measures)
            per_system = {}
            for name, system_runs in runs.items():
                run = system_runs[key]
                label = str(run) if isinstance(run, str | os.PathLike) else name
                per_system[name] = scorer.per_query(run, label)
                bar.update(1)
            queries = list(next(iter(per_system.values())))
            for measure in scorer.names:
                by_system = {
                    name: np.array([scores[q][measure] for q in queries])
                    for name, scores in per_system.items()
                }
                scored = _scored_by_all(queries, by_system)
                if len(scored.queries) < len(queries):
                    logger.warning(
                        "%s on %s: %d of %d queries left out of every system's pairs: a run "
                        "does not rank them and the measure skips such queries (as the "
                        "official script does)",
                        measure,
                        key,
                        len(queries) - len(scored.queries),
                        len(queries),
                    )
                result.setdefault(measure, {})[key] = scored
    return result


def _scored_by_all(queries: list[str], by_system: dict[str, np.ndarray]) -> _Scores:
    """The queries every system scores: a NaN (a query BRIGHT-Pro's aspect measures skip, as
    the official scripts do) leaves that query out of the pairs, for every system."""
    import numpy as np

    kept = ~np.any(np.isnan(np.stack(list(by_system.values()))), axis=0)
    if kept.all():
        return _Scores(queries, by_system)
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
    samples: int,
    seed: int | None,
    confidence: float,
) -> dict[str, Any]:
    """One comparison over ``tables`` (one dataset, or all of them: macro means, pooled tests,
    stratified interval)."""
    import numpy as np

    ours = [t.by_system[system] for t in tables]
    theirs = [t.by_system[baseline] for t in tables]
    mean = float(np.mean([s.mean() for s in ours]))
    baseline_mean = float(np.mean([b.mean() for b in theirs]))
    p_t, p_w = paired_tests(np.concatenate(ours), np.concatenate(theirs))
    low, high = bootstrap_interval([s - b for s, b in zip(ours, theirs)], samples, seed, confidence)
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
        "test": "",
        "correction": "",
        "queries": int(sum(len(s) for s in ours)),
    }


# -- output -----------------------------------------------------------------------------------

MARK = "†"
FORMATS = ("markdown", "csv", "latex", "json")


def format_comparison(
    frame: Any,
    fmt: str = "markdown",
    labels: Mapping[str, str] | None = None,
    alpha: float = ALPHA,
    samples: int = SAMPLES,
    seed: int | None = SEED,
    confidence: float = CONFIDENCE,
) -> str:
    """:func:`compare`'s records as markdown or latex (x100, significance marked, a legend),
    or csv or json (one record per comparison, unrounded; NaN is empty or null).
    ``labels`` maps dataset ids to column labels (``Bio``); the last four arguments are those
    the records were made with, for the legend."""
    records = frame.to_dict("records")
    if fmt == "json":
        clean = [{k: _json_value(r[k]) for k in RECORD_KEYS} for r in records]
        return json.dumps(clean, indent=1, ensure_ascii=False) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(RECORD_KEYS)
        writer.writerows([["" if _missing(r[k]) else r[k] for k in RECORD_KEYS] for r in records])
        return buffer.getvalue()
    if fmt not in ("markdown", "latex"):
        raise CompareError(f"unknown format {fmt!r}: choose {', '.join(FORMATS)}")
    header, body = _grid(records, labels or {}, alpha)
    legend = _legend(records, labels or {}, alpha, samples, seed, confidence)
    if fmt == "latex":
        return _latex(header, body, legend)
    lines = ["| " + " | ".join(header) + " |", "|---|---" + "|---:" * (len(header) - 2) + "|"]
    lines += ["| " + " | ".join(cells) + " |" for cells in body]
    return "\n".join([*lines, "", *legend]) + "\n"


def _json_value(value: Any) -> Any:
    import numpy as np

    if isinstance(value, np.generic):
        value = value.item()
    return None if _missing(value) else value


def _missing(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _points(value: float, sign: bool = False) -> str:
    if _missing(value):
        return "-"
    return f"{value * 100:+.1f}" if sign else f"{value * 100:.1f}"


def _p(value: float) -> str:
    if _missing(value):
        return "-"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _grid(
    records: list[dict[str, Any]], labels: Mapping[str, str], alpha: float
) -> tuple[list[str], list[list[str]]]:
    several = len({r["measure"] for r in records}) > 1
    header = ["dataset", "system", *(["measure"] if several else [])]
    header += ["baseline", "mean", "Δ", "CI", "p (t)", "p (Wilcoxon)", "p adjusted"]
    body = []
    for r in records:
        mark = f" {MARK}" if not _missing(r["p_adjusted"]) and r["p_adjusted"] < alpha else ""
        interval = f"[{_points(r['ci_low'], True)}, {_points(r['ci_high'], True)}]"
        cells = [labels.get(r["dataset"], r["dataset"]), r["system"]]
        cells += [r["measure"]] if several else []
        cells += [
            _points(r["baseline_mean"]),
            _points(r["mean"]),
            _points(r["delta"], True) + mark,
            "-" if _missing(r["ci_low"]) else interval,
            _p(r["p_ttest"]),
            _p(r["p_wilcoxon"]),
            _p(r["p_adjusted"]),
        ]
        body.append(cells)
    return header, body


def _legend(
    records: list[dict[str, Any]],
    labels: Mapping[str, str],
    alpha: float,
    samples: int,
    seed: int | None,
    confidence: float,
) -> list[str]:
    if not records:
        return []
    first = records[0]
    test = first["test"].removesuffix(POOLED)
    measures = ", ".join(dict.fromkeys(r["measure"] for r in records))
    lines = [
        f"{MARK} p adjusted < {alpha:g}: {test} (two-sided), "
        f"{CORRECTIONS[first['correction']]} over the table's {len(records)} comparisons.",
        f"Baseline {first['baseline']}; {measures} x100 (official protocol); Δ = mean - baseline; "
        f"CI: {confidence:.0%} paired bootstrap (percentile, {samples} samples, seed {seed}).",
    ]
    pooled = [r for r in records if r["test"].endswith(POOLED)]
    if pooled:
        lines.append(
            f"{labels.get(pooled[0]['dataset'], pooled[0]['dataset'])}: macro average of the "
            f"{len(records) // len(pooled) - 1} domains; its CI resamples each "
            f"domain's queries; its tests pool the {pooled[0]['queries']} queries of all domains."
        )
    return lines


def _latex(header: list[str], body: list[list[str]], legend: list[str]) -> str:
    def escape(text: str) -> str:
        text = re.sub(r"([&%$#_{}])", r"\\\1", text)
        return text.replace(MARK, "$^\\dagger$").replace("Δ", "$\\Delta$").replace("<", "$<$")

    spec = "ll" + "r" * (len(header) - 2)
    lines = [*(f"% {escape(line)}" for line in legend), f"\\begin{{tabular}}{{{spec}}}"]
    lines += ["\\toprule", " & ".join(escape(h) for h in header) + " \\\\", "\\midrule"]
    lines += [" & ".join(escape(c) for c in cells) + " \\\\" for cells in body]
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def plot_comparison(
    frame: Any, path: str | Path, labels: Mapping[str, str] | None = None, alpha: float = ALPHA
) -> Path:
    """Draw each system's difference from the baseline with its interval, per dataset, to PNG
    (filled markers where significant after correction); one panel per measure."""
    import numpy as np

    from .report import check_plot_path, pyplot, save_png

    target = check_plot_path(path)
    plt = pyplot()
    labels = labels or {}
    measures = list(dict.fromkeys(frame["measure"]))
    systems = list(dict.fromkeys(frame["system"]))
    datasets = list(dict.fromkeys(frame["dataset"]))
    figure, panels = plt.subplots(
        len(measures), 1, figsize=(max(8.0, 0.55 * len(datasets)), 4.2 * len(measures)),
        squeeze=False,
    )  # fmt: skip
    step = 0.8 / max(len(systems), 1)
    for axes, measure in zip(panels[:, 0], measures):
        for i, system in enumerate(systems):
            rows = frame[(frame["measure"] == measure) & (frame["system"] == system)]
            x = np.array([datasets.index(d) for d in rows["dataset"]]) - 0.4 + step * (i + 0.5)
            delta = rows["delta"].to_numpy() * 100
            below = np.nan_to_num(delta - rows["ci_low"].to_numpy() * 100)
            above = np.nan_to_num(rows["ci_high"].to_numpy() * 100 - delta)
            line = axes.errorbar(
                x, delta, yerr=[below, above], fmt="o", capsize=3, label=system, mfc="white"
            )
            significant = (rows["p_adjusted"] < alpha).to_numpy()
            color = line[0].get_color()
            axes.plot(x[significant], delta[significant], "o", color=color, zorder=3)
        axes.axhline(0, color="grey", linewidth=0.8)
        axes.set_xticks(range(len(datasets)))
        axes.set_xticklabels(
            [labels.get(d, d) for d in datasets],
            rotation=45 if len(datasets) > 14 else 0,
            ha="right" if len(datasets) > 14 else "center",
        )
        axes.set_ylabel(f"Δ {measure} x100")
        axes.set_title(
            f"{measure}: difference from {frame['baseline'].iloc[0]} (filled: significant)"
        )
        axes.legend(fontsize="small")
        axes.grid(axis="y", alpha=0.3)
    return save_png(figure, target)
