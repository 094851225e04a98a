"""Which dataset a run seems to be for, when it scores nothing on the one it was given.

A run of pony scored against ``bright/biology`` shares its query ids (both number their
queries 0, 1, ...) but none of its documents: every measure is 0 and nothing is wrong with
the file. The cheap answer to "which dataset then?" is the judgements of the datasets already
in the cache: a handful of the run's (query, doc) pairs are looked up in the qrels of each
cached dataset of the same collection, and the one that judges most of them is named. Nothing
is downloaded, and a dataset whose files are not all cached is not considered.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

logger = logging.getLogger(__name__)

SAMPLE_PAIRS = 200
"""How many of a run's (query, doc) pairs are looked up."""

MAX_CANDIDATES = 40
"""How many cached datasets are asked at most (each reads its cached qrels once)."""

__all__ = ["MAX_CANDIDATES", "SAMPLE_PAIRS", "likely_dataset"]


def likely_dataset(pairs: Sequence[tuple[str, str]], given: str) -> str | None:
    """The cached dataset of ``given``'s collection that judges most of ``pairs`` (at least
    one), other than ``given``; None when no cached dataset judges any."""
    if not pairs:
        return None
    wanted = set(pairs[:SAMPLE_PAIRS])
    best, best_hits = None, 0
    for dataset_id, dataset in _cached_siblings(given):
        try:
            hits = sum((q.query_id, q.doc_id) in wanted for q in dataset.qrels_iter())
        except Exception as exc:  # noqa: BLE001 - a hint must never break scoring
            logger.debug("cannot read the qrels of %s for the hint: %s", dataset_id, exc)
            continue
        if hits > best_hits:
            best, best_hits = dataset_id, hits
    return best


def _cached_siblings(given: str) -> Iterable[tuple[str, Any]]:
    """Base datasets (no query variant) of ``given``'s collection whose files are cached."""
    import ir_datasets

    from .. import registry

    collection = given.split("/")[0]
    asked = 0
    for dataset_id in registry.our_ids():
        parts = dataset_id.split("/")
        if parts[0] != collection or len(parts) != 2 or dataset_id == given:
            continue
        dataset = ir_datasets.load(dataset_id)
        files = list(getattr(dataset, "hub_files", list)())
        if not dataset.has_qrels() or not files or not all(f.is_cached() for f in files):
            continue
        yield dataset_id, dataset
        asked += 1
        if asked >= MAX_CANDIDATES:
            return
