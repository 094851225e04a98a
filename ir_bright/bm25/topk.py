"""Top-k selection: the ``k`` best rows of a score array, as a full stable sort would give them.

A ranking is every allowed row sorted by score (descending), ties broken by a second key (the
row, i.e. corpus order, as the BRIGHT paper's full-corpus sort; or the doc id, as Pyserini),
excluded rows removed *before* the cut to ``k``: the official protocol (xlang-ai/BRIGHT
``run.py`` at commit d99e839: the excluded ids are dropped from each query's scores, then the
1,000 best are kept). Reading a few thousand scores instead of sorting the corpus makes a query
cost little more than its scoring.
"""

from __future__ import annotations

import numpy as np


def top_rows(
    scores: np.ndarray,
    k: int,
    excluded: np.ndarray | None = None,
    tiebreak: np.ndarray | None = None,
    fill: bool = True,
    overwrite: bool = False,
) -> np.ndarray:
    """Rows of the ``k`` best scores, best first, ties by ``tiebreak[row]`` (default: the
    row); excluded rows never appear. With ``fill``, rows scoring 0 fill the ranking up to
    ``k`` in row order, as a full-corpus sort would. With ``overwrite``, the scores of
    excluded rows may be changed (to -inf: excluded without a search)."""
    dropped = 0 if excluded is None else len(excluded)
    if overwrite and dropped:
        scores[excluded] = -np.inf
    matched = _best_candidates(scores, k, excluded, dropped, marked=overwrite)
    allowed = None
    if matched is None:
        allowed = np.ones(len(scores), dtype=bool)
        if excluded is not None and len(excluded):
            allowed[excluded] = False
        matched = np.flatnonzero(allowed & (scores > 0))
    if len(matched) > k:
        values = scores[matched]
        kth = np.partition(values, len(values) - k)[len(values) - k]
        above = matched[values > kth]
        tied = matched[values == kth]
        if tiebreak is not None:
            tied = tied[np.argsort(tiebreak[tied], kind="stable")]
        matched = np.concatenate([above, tied[: k - len(above)]])
    second = matched if tiebreak is None else tiebreak[matched]
    rows = matched[np.lexsort((second, -scores[matched]))]
    if fill and len(rows) < k and allowed is not None:
        zero = np.flatnonzero(allowed & (scores <= 0))[: k - len(rows)]
        rows = np.concatenate([rows, zero])
    return rows


_SAMPLE_STRIDE = 64


def _best_candidates(
    scores: np.ndarray, k: int, excluded: np.ndarray | None, dropped: int, marked: bool
) -> np.ndarray | None:
    """Allowed rows (ascending) of every score at least a positive threshold that at least
    ``k`` allowed rows reach, so every row of the ``k`` best and all rows tied with the
    ``k``-th are among them; None when no such threshold is found this way. The threshold
    is a high score of every 64th row, where about twice ``k`` plus the excluded are expected
    at or above it: the selection then looks at a few thousand scores, not the corpus.
    ``marked``: the excluded rows score -inf, so none passes the threshold."""
    sample = scores[::_SAMPLE_STRIDE]
    rank = 2 * ((k + dropped) // _SAMPLE_STRIDE + 1) + 16
    if rank >= len(sample):
        return None
    threshold = np.partition(sample, len(sample) - rank)[len(sample) - rank]
    if not threshold > 0:
        return None
    rows = np.flatnonzero(scores >= threshold)
    if excluded is not None and dropped and not marked:  # binary search (np.isin costs more)
        excluded = np.sort(excluded)
        found = excluded[np.minimum(np.searchsorted(excluded, rows), dropped - 1)]
        rows = rows[found != rows]
    return rows if len(rows) >= k else None
