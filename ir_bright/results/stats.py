"""The significance statistics of :mod:`.paired`: paired tests, bootstrap intervals and
multiple-comparison corrections, and the options that choose them (:class:`Options`).

- :func:`paired_tests`: the two-sided paired t-test, ``scipy.stats.ttest_rel(system,
  baseline)``, and the two-sided Wilcoxon signed-rank test, ``scipy.stats.wilcoxon(system,
  baseline, zero_method="wilcox", correction=False, method="auto")``: queries with equal scores
  are dropped (Wilcoxon's original treatment), tied differences get average ranks, the exact
  distribution is used for small samples without ties and the normal approximation (no
  continuity correction) otherwise. These are scipy's defaults, the call PyTerrier's
  ``pt.Experiment(test="wilcoxon")`` makes, so both give the same p-values; ``test="t"``
  (PyTerrier's default) is ``ttest_rel``. When a system and its baseline score every query
  alike both p-values are 1 (scipy's t-test would give NaN).
- :func:`bootstrap_interval`: the percentile bootstrap (``scipy.stats.bootstrap``) of a mean
  difference, or of the macro average of several groups' mean differences, each group
  resampled within itself (a stratified bootstrap); a ``numpy`` Generator seeded afresh for
  every interval, so an interval does not depend on the others.
- :func:`adjust`: Holm, Bonferroni or Benjamini-Hochberg (``scipy.stats.false_discovery_control``),
  or none.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from .. import lazy
from ..errors import require
from .errors import CompareError

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import ArrayLike
else:
    np = lazy.module("numpy")

TESTS = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank"}
"""The tests whose p-value is corrected (``test=``), and their names in tables."""

CORRECTIONS = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg",
    "none": "no correction",
}
"""Multiple-comparison corrections (``correction=``), and their names in tables."""

SAMPLES = 10_000
SEED = 0
CONFIDENCE = 0.95
ALPHA = 0.05
_BATCH = 500  # bootstrap resamples per vectorised step: bounds memory on 29 pooled domains


@dataclass(frozen=True)
class Options:
    """How a comparison is tested and marked; checked when made (a one-line error).

    ``test`` is the test whose p-value is corrected (:data:`TESTS`), ``correction`` the
    correction (:data:`CORRECTIONS`), ``samples``, ``seed`` and ``confidence`` those of the
    bootstrap intervals, ``alpha`` the level below which a corrected p-value is marked.
    """

    test: str = "t"
    correction: str = "holm"
    samples: int = SAMPLES
    seed: int | None = SEED
    confidence: float = CONFIDENCE
    alpha: float = ALPHA

    def __post_init__(self) -> None:
        if self.test not in TESTS:
            raise CompareError(f"unknown test {self.test!r}: choose one of {', '.join(TESTS)}")
        _check_correction(self.correction)
        if not self.samples >= 1:
            raise CompareError(f"the bootstrap needs at least 1 sample, not {self.samples}")
        if not 0 < self.confidence < 1:
            raise CompareError(
                f"the confidence level must be between 0 and 1, not {self.confidence}"
            )
        if not 0 < self.alpha < 1:
            raise CompareError(f"alpha (--alpha) must be between 0 and 1, not {self.alpha}")

    def as_dict(self) -> dict[str, Any]:
        """The options as a plain dict (the keyword arguments that make them again)."""
        return asdict(self)


def _check_correction(correction: str) -> None:
    if correction not in CORRECTIONS:
        raise CompareError(
            f"unknown correction {correction!r}: choose one of {', '.join(CORRECTIONS)}"
        )


def paired_tests(system: ArrayLike, baseline: ArrayLike) -> tuple[float, float]:
    """``(p_ttest, p_wilcoxon)``: two-sided paired tests of ``system`` against ``baseline``
    (per-query scores in the same order), as the module docstring describes."""
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
    _check_correction(correction)
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
