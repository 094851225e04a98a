"""Whether a run none of whose documents is judged scored nothing, and which dataset it seems
to be for.

A run of pony scored against ``bright/biology`` shares its query ids (both number their
queries 0, 1, ...) but none of its documents: every measure is 0 and nothing is wrong with
the file. Such a run is refused (:func:`unjudged_run`) when none of a sample of its documents
is in the dataset's corpus, or, the corpus not being cached, when another cached dataset
judges them; a run whose documents are in the corpus, merely unjudged, is a bad run and
scores its zeros. The cheap answer to "which dataset then?" is the judgements of the datasets
already in the cache: a handful of the run's (query, doc) pairs are looked up in the qrels of
each cached dataset of the same collection, and the one that judges most of them is named.
Nothing is downloaded, and a dataset whose files are not all cached is not considered.
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


def unjudged_run(
    dataset: Any, given: str, pairs: Sequence[tuple[str, str]], ranked: int
) -> tuple[bool, str]:
    """For a run none of whose ``ranked`` documents is judged or excluded for its query in
    ``dataset`` (named ``given``), of which ``pairs`` are a sample of (query, doc) pairs:
    whether nothing was scored (none of the sampled documents is in the corpus, or the corpus
    is not cached and another cached dataset judges them), and what to say after the run's
    name."""
    docs = list(dict.fromkeys(doc for _, doc in pairs[:SAMPLE_PAIRS]))
    in_corpus = corpus_holds_any(dataset, docs)
    home = likely_dataset(pairs, given)
    cause = wrong_dataset(home)
    if in_corpus is False:
        return True, (
            f"none of its documents (e.g. {docs[0]!r}) is in the corpus of {given}, so nothing "
            f"was scored: {cause}"
        )
    unjudged = f"none of its {ranked} ranked documents is judged or excluded for its query"
    if in_corpus is None and home is not None:
        return True, f"{unjudged} in {given}, so nothing was scored: {cause}"
    unchecked = "" if in_corpus else " (its corpus is not cached, so not looked up)"
    return False, f"{unjudged} in {given}{unchecked}: {cause}"


def wrong_dataset(home: str | None) -> str:
    """The likely cause of a run that matches nothing: ``home``, the cached dataset whose
    judgements match its pairs, if one does."""
    if home is not None:
        return f"wrong dataset? the run seems to be for {home} (its judgements match)"
    return "wrong dataset? (or another corpus: short or -long documents)"


def corpus_holds_any(dataset: Any, doc_ids: Sequence[str]) -> bool | None:
    """Whether any of ``doc_ids`` is a document of ``dataset``; None when that cannot be told
    without downloading: no corpus ir_bright serves, or its files not all cached."""
    try:
        files = list(dataset.docs_hub_files())
        if not doc_ids or not files or not all(f.is_cached() for f in files):
            return None
        return next(iter(dataset.docs_store().get_many_iter(doc_ids)), None) is not None
    except Exception as exc:  # noqa: BLE001 - a check that cannot run must not break scoring
        logger.debug("cannot look the run's documents up in the corpus of %s: %s", dataset, exc)
        return None


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
    """Base datasets (ids ``<namespace>/<domain>``) of ``given``'s collection whose files are
    cached."""
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
