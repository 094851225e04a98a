"""Run fusion: RRF, CombSUM, CombMNZ and weighted sum over per-query normalised scores.

The methods and normalisations are ranx's (``ranx.fuse``, ranx 0.3.21: ``fusion/rrf.py``,
``comb_sum.py``, ``comb_mnz.py``, ``wsum.py``; ``normalization/*.py``), so a fused run here
equals ``ranx.fuse(runs, norm=..., method=..., params=...)`` on the same runs (the test suite
checks it where ranx installs). ir_bright implements them itself rather than depending on
ranx: ranx needs numba and llvmlite (about 150 MB installed, seconds of JIT compilation on
first use) for what is a few dictionary passes, and ranx asserts that every run has the same
query set, where a fused BRIGHT run must keep the first run's queries.

Two choices follow the official scorer instead of ranx's internals:

- ranks (RRF) are positions in trec_eval's order: score descending, ties by doc id
  descending, the order the scorer reads a run in (ranx breaks ties by input order);
- the fused run is cut to ``depth`` documents per query in the same order, after a dataset's
  excluded ids are dropped when a dataset is given, so the cut never drops a document the
  official scorer would keep.

Scores are finite at every step. A normalisation scales a query's scores by a power of two
below their largest magnitude before it subtracts or sums (exact: the result is the formula's
to the last bit wherever the formula does not overflow), so scores near the float range
(±1.5e308, which run readers accept) normalise instead of turning into NaN. A fused score that
cannot be a float (raw scores summed under ``none``, huge weights, ``max`` of scores that are
all negative) is refused in one line naming the query, the document and the fix.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import IrBrightError
from ..families.declaration import OFFICIAL_DEPTH
from ..runs.order import best

Ranking = Mapping[str, float]
Run = Mapping[str, Ranking]

METHODS = ("rrf", "combsum", "combmnz", "wsum")
NORMS = ("none", "min-max", "max", "sum", "zmuv")
DEFAULT_NORM = {"rrf": "none", "combsum": "min-max", "combmnz": "min-max", "wsum": "min-max"}
RRF_K = 60
EPSILON = 1e-9
"""The smallest denominator a normalisation divides by (ranx's guard for a constant list)."""


class FusionError(IrBrightError):
    """Fusion parameters that do not fit the runs (method, weights, norm, k, depth)."""


def normalise(ranking: Ranking, norm: str) -> dict[str, float]:
    """One query's scores under ``norm`` (ranx's formulas and 1e-9 guard):

    - ``min-max``: (s - min) / (max - min);
    - ``max``: s / max;
    - ``sum``: (s - min) / sum(s - min);
    - ``zmuv`` (zero mean, unit variance: the z-score): (s - mean) / standard deviation
      (population);
    - ``none``: the scores as they are.

    The formulas are computed on the scores scaled below 1 by a power of two, which leaves
    their results exact and keeps every sum finite.
    """
    if norm == "none" or not ranking:
        return dict(ranking)
    if norm not in NORMS:
        raise FusionError(f"unknown normalisation {norm!r}: choose one of {', '.join(NORMS)}")
    # |s| < 2**exponent: the scaled scores are below 1, their sums below their count
    exponent = math.frexp(max(abs(s) for s in ranking.values()))[1]
    scores = {doc_id: math.ldexp(s, -exponent) for doc_id, s in ranking.items()}
    guard = math.ldexp(EPSILON, -exponent)  # the 1e-9 guard, on the same scale
    values = list(scores.values())
    if norm == "min-max":
        low = min(values)
        return _scaled(scores, low, max(max(values) - low, guard))
    if norm == "max":
        return _scaled(scores, 0.0, max(max(values), guard))
    if norm == "sum":
        low = min(values)
        return _scaled(scores, low, max(math.fsum(values) - low * len(values), guard))
    mean = math.fsum(values) / len(values)
    spread = math.sqrt(math.fsum((s - mean) ** 2 for s in values) / len(values))
    return _scaled(scores, mean, max(spread, guard))


def _scaled(ranking: Ranking, offset: float, scale: float) -> dict[str, float]:
    return {doc_id: (score - offset) / scale for doc_id, score in ranking.items()}


def fuse(
    runs: Sequence[Run],
    method: str = "rrf",
    norm: str | None = None,
    weights: Sequence[float] | None = None,
    rrf_k: int = RRF_K,
    depth: int | None = OFFICIAL_DEPTH,
    excluded: Mapping[str, Any] | None = None,
) -> dict[str, dict[str, float]]:
    """Fuse ``runs`` (dicts of dicts, e.g. from :func:`ir_bright.runs.read_run`) into one.

    ``method``: ``rrf`` (sum of 1 / (``rrf_k`` + rank)), ``combsum`` (sum of normalised
    scores), ``combmnz`` (that sum times the number of runs ranking the doc) or ``wsum``
    (sum of ``weights[i]`` times run i's normalised score). ``norm`` (per query) defaults to
    ranx's: none for RRF, min-max otherwise. The result keeps the first run's queries; each
    query's ranking drops the ids of ``excluded`` (``{query_id: ids}``, e.g.
    :func:`ir_bright.scoring.excluded_docs`) and is cut to its ``depth`` best in trec_eval's
    order (``None``: no cut).
    """
    norm = _checked(runs, method, norm, weights, rrf_k, depth)
    factors = list(weights) if method == "wsum" and weights is not None else [1.0] * len(runs)
    fused: dict[str, dict[str, float]] = {}
    for query_id in runs[0]:
        rankings = [run.get(query_id, {}) for run in runs]
        scores = _fused_query(rankings, method, norm, factors, rrf_k)
        _refuse_infinite(scores, query_id, method, norm)
        gone = excluded.get(query_id) if excluded else None
        if gone:
            scores = {d: s for d, s in scores.items() if d not in gone}
        fused[query_id] = dict(best(scores, len(scores) if depth is None else depth))
    return fused


def _fused_query(
    rankings: list[Ranking], method: str, norm: str, factors: list[float], rrf_k: int
) -> dict[str, float]:
    if method == "rrf":
        parts = [_reciprocal_ranks(normalise(r, norm), rrf_k) for r in rankings]
    else:
        parts = [normalise(r, norm) for r in rankings]
    total: dict[str, float] = {}
    hits: dict[str, int] = {}
    for factor, part in zip(factors, parts):
        for doc_id, score in part.items():
            total[doc_id] = total.get(doc_id, 0.0) + factor * score
            hits[doc_id] = hits.get(doc_id, 0) + 1
    if method == "combmnz":
        total = {doc_id: score * hits[doc_id] for doc_id, score in total.items()}
    return total


def _refuse_infinite(scores: Mapping[str, float], query_id: str, method: str, norm: str) -> None:
    """A one-line error for a fused score that is not a finite float (no run holds one)."""
    for doc_id, score in scores.items():
        if not math.isfinite(score):
            raise FusionError(
                f"query {query_id!r}: the {method} score of doc {doc_id!r} under norm {norm} "
                f"is {score}, beyond what a float holds: normalise with min-max or zmuv, or "
                "use smaller weights"
            )


def _reciprocal_ranks(ranking: Ranking, rrf_k: int) -> dict[str, float]:
    ordered = best(ranking, len(ranking))
    return {doc_id: 1.0 / (rrf_k + rank) for rank, (doc_id, _) in enumerate(ordered, 1)}


def _checked(
    runs: Sequence[Run],
    method: str,
    norm: str | None,
    weights: Sequence[float] | None,
    rrf_k: int,
    depth: int | None,
) -> str:
    """The normalisation to use, once every parameter is checked against the runs."""
    if method not in METHODS:
        raise FusionError(f"unknown fusion method {method!r}: choose one of {', '.join(METHODS)}")
    if len(runs) < 2:
        raise FusionError(f"fusion needs at least two runs, got {len(runs)}")
    if method == "wsum":
        if weights is None or len(weights) != len(runs):
            got = "none" if weights is None else len(weights)
            raise FusionError(f"wsum needs one weight per run: {len(runs)} runs, {got} weights")
    elif weights is not None:
        raise FusionError(f"weights go with --method wsum, not {method}")
    if weights is not None and not all(math.isfinite(w) for w in weights):
        raise FusionError(f"weights must be finite numbers, got {list(weights)}")
    if not isinstance(rrf_k, int) or rrf_k < 0:
        raise FusionError(f"the RRF k must be a whole number of 0 or more, got {rrf_k!r}")
    if depth is not None and (not isinstance(depth, int) or depth < 1):
        raise FusionError(f"the depth must be a whole number of 1 or more, got {depth!r}")
    chosen = norm or DEFAULT_NORM[method]
    if chosen not in NORMS:
        raise FusionError(f"unknown normalisation {chosen!r}: choose one of {', '.join(NORMS)}")
    return chosen
