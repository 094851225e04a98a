"""A comparison's records (:func:`~ir_bright.results.paired.compare`) as a table: markdown
or LaTeX (x100, significance marked, a legend), csv or json (one record per comparison,
unrounded; NaN is empty or null), and as a chart of the differences.

In json each record also carries ``provenance`` (:func:`ir_bright.provenance.provenance`):
the data its numbers were computed from, the hub repository, commit and sha256 of each file
the dataset's qrels were read from (for a whole-benchmark record, every dataset compared).
It is a key of the json records only: the DataFrame keeps :data:`RECORD_KEYS`."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import plots
from .benchmarks import AVERAGE, benchmark
from .errors import CompareError
from .paired import POOLED, RECORD_KEYS
from .stats import CORRECTIONS, Options
from .tables import Grid, render

MARK = "†"
"""Marks a difference whose corrected p-value is below ``alpha``."""


def column_labels(name: str | None) -> dict[str, str]:
    """``{dataset: printed label}`` of benchmark ``name``'s records (the whole-benchmark row
    is ``Avg``); empty without a benchmark."""
    if name is None:
        return {}
    bench = benchmark(name)
    return {**dict(zip(bench.ids, bench.labels)), bench.name: AVERAGE}


def _frame_options(frame: Any, options: Options | None, overrides: dict[str, Any]) -> Options:
    """The options the records were made with (``frame.attrs``), ``options`` and
    ``overrides`` overriding them."""
    made = dict(getattr(frame, "attrs", {}).get("options", {}))
    given = options.as_dict() if options is not None else {}
    return Options(**{**made, **given, **overrides})


def format_comparison(
    frame: Any,
    fmt: str = "markdown",
    labels: Mapping[str, str] | None = None,
    *,
    options: Options | None = None,
    **overrides: Any,
) -> str:
    """:func:`~ir_bright.results.paired.compare`'s records as text in ``fmt``
    (:data:`FORMATS`). ``labels`` maps dataset ids to column labels (``Bio``); the legend
    states the options the records were made with (``frame.attrs["options"]``), which
    ``options`` or keyword options (``alpha=0.01``, ...) override."""
    options = _frame_options(frame, options, overrides)
    records = frame.to_dict("records")
    labels = labels or {}
    raw = [[_csv_value(r[k]) for k in RECORD_KEYS] for r in records]
    document = [{k: r[k] for k in RECORD_KEYS} for r in records]
    if fmt == "json":
        _add_provenance(document)
    baseline_setting = getattr(frame, "attrs", {}).get("baseline_setting")
    return render(
        _grid(records, labels, options, baseline_setting),
        fmt,
        records=[list(RECORD_KEYS), *raw],
        document=document,
        error=CompareError,
    )


def _add_provenance(document: list[dict[str, Any]]) -> None:
    """Give each record the provenance of its dataset, a whole-benchmark record that of every
    dataset compared (each dataset described once; nothing is fetched)."""
    from ..provenance import dataset_provenance, provenance

    described = {
        name: dataset_provenance(name)
        for name in dict.fromkeys(str(r["dataset"]) for r in document)
        if _has_qrels(name)
    }
    for record in document:
        name = str(record["dataset"])
        datasets = [described[name]] if name in described else list(described.values())
        record["provenance"] = provenance(datasets, "official", [record["measure"]])


def _has_qrels(name: str) -> bool:
    """Whether ``name`` is a dataset with qrels (not a benchmark, nor a collection's root)."""
    from ..errors import IrBrightError
    from ..registry import load

    try:
        return bool(load(name).has_qrels())
    except IrBrightError:
        return False


def _csv_value(value: Any) -> Any:
    return "" if _missing(value) else value


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
    records: list[dict[str, Any]],
    labels: Mapping[str, str],
    options: Options,
    baseline_setting: str | None,
) -> Grid:
    several = len({r["measure"] for r in records}) > 1
    settings = any(r.get("setting") for r in records)
    header = ["dataset", "system", *(["Setting"] if settings else [])]
    header += ["measure"] if several else []
    header += ["baseline", "mean", "Δ", "CI", "p (t)", "p (Wilcoxon)", "p adjusted"]
    body = []
    for r in records:
        significant = not _missing(r["p_adjusted"]) and r["p_adjusted"] < options.alpha
        interval = f"[{_points(r['ci_low'], True)}, {_points(r['ci_high'], True)}]"
        cells = [labels.get(r["dataset"], r["dataset"]), r["system"]]
        cells += [r.get("setting") or "-"] if settings else []
        cells += [r["measure"]] if several else []
        cells += [
            _points(r["baseline_mean"]),
            _points(r["mean"]),
            _points(r["delta"], True) + (f" {MARK}" if significant else ""),
            "-" if _missing(r["ci_low"]) else interval,
            _p(r["p_ttest"]),
            _p(r["p_wilcoxon"]),
            _p(r["p_adjusted"]),
        ]
        body.append(cells)
    legend = _legend(records, labels, options, baseline_setting)
    return Grid(header, body, len(header) - 7, None, legend)


def _legend(
    records: list[dict[str, Any]],
    labels: Mapping[str, str],
    options: Options,
    baseline_setting: str | None,
) -> list[str]:
    if not records:
        return []
    first = records[0]
    baseline = first["baseline"] + (f" ({baseline_setting})" if baseline_setting else "")
    test = first["test"].removesuffix(POOLED)
    measures = ", ".join(dict.fromkeys(r["measure"] for r in records))
    lines = [
        f"{MARK} p adjusted < {options.alpha:g}: {test} (two-sided), "
        f"{CORRECTIONS[first['correction']]} over the table's {len(records)} comparisons.",
        f"Baseline {baseline}; {measures} x100 (official protocol); Δ = mean - baseline; "
        f"CI: {options.confidence:.0%} paired bootstrap (percentile, {options.samples} samples, "
        f"seed {options.seed}).",
    ]
    pooled = list(dict.fromkeys(r["dataset"] for r in records if r["test"].endswith(POOLED)))
    if pooled:
        overall = pooled[-1]
        queries = next(r["queries"] for r in records if r["dataset"] == overall)
        domains = len({r["dataset"] for r in records if not r["test"].endswith(POOLED)})
        lines.append(
            f"{labels.get(overall, overall)}: macro average of the {domains} domains; its CI "
            f"resamples each domain's queries; its tests pool the {queries} queries of all "
            "domains."
            + (f" {', '.join(pooled[:-1])}: likewise over their domains." if pooled[1:] else "")
        )
    return lines


def plot_comparison(
    frame: Any,
    path: str | Path,
    labels: Mapping[str, str] | None = None,
    alpha: float | None = None,
) -> Path:
    """Draw each system's difference from the baseline with its interval, per dataset, to PNG
    (filled markers where significant after correction at ``alpha``, by default the level the
    records were made with); one panel per measure."""
    level = _frame_options(frame, None, {}).alpha if alpha is None else alpha
    return plots.delta_chart(frame, path, labels or {}, level)
