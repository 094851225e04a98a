"""Why a run matches nothing in a dataset, and which dataset of the family it seems to be for.

A run of pony scored against ``bright/biology`` shares its query ids (both number their
queries 0, 1, ...) but none of its documents: every measure would be 0 and nothing is wrong
with the file. So a run none of whose ranked documents is judged or excluded for its query is
not scored (:func:`unjudged_run`; ``--force`` scores it anyway), and the message names the
dataset it seems to be for (:func:`likely_fit`).

That dataset is found among the datasets of the same family, one per distinct (corpus, qrels)
pair (query-set variants share both and are not asked twice), from what the cache holds,
nothing being downloaded. A sample of the run's (query, doc) pairs is set against each:

- its documents: how many of the sampled documents its corpus holds, where the corpus is cached
  (the strongest sign: a weak run's top documents are seldom judged, but always documents);
- its judgements, where its qrels are cached: how many sampled pairs it judges, then how many
  sampled documents it judges for any query;
- the declared id shapes: document ids whose first part is the dataset's domain name
  (``Pony/...``, ``bitcoin/...``, ``academia/...``);
- its query ids, which only break ties (many datasets number their queries 0, 1, ...).

The best fit by that order is named, with what matched; none is named when nothing but the
query ids matches.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

logger = logging.getLogger(__name__)

SAMPLE_PAIRS = 200
"""How many of a run's (query, doc) pairs are looked up."""

MAX_CANDIDATES = 60
"""How many datasets of the family are asked at most."""

FORCE_HINT = "--force (force=True in Python) scores it anyway"
"""How to score such a run all the same."""


@dataclass(frozen=True)
class Fit:
    """How well a run's sampled pairs fit one dataset (each count None where not looked up)."""

    dataset_id: str
    in_corpus: int | None = None
    judged_pairs: int | None = None
    judged_docs: int | None = None
    shaped: int = 0
    queries: int = 0
    sampled_docs: int = 0

    def key(self) -> tuple[int, ...]:
        """The order of the fits: documents, judged pairs, judged documents, shapes, queries."""
        counts = (self.in_corpus, self.judged_pairs, self.judged_docs)
        return (*(count or 0 for count in counts), self.shaped, self.queries)

    def matches(self) -> bool:
        """Whether anything but the query ids fits (a fit worth naming)."""
        return any(self.key()[:4])

    def evidence(self) -> str:
        """What matched, in words."""
        said = []
        if self.in_corpus:
            sampled = f"{self.in_corpus} of {self.sampled_docs} sampled documents"
            said.append(f"{sampled} are in its corpus")
        if self.judged_pairs or self.judged_docs:
            said.append(f"it judges {self.judged_docs} of them")
        if self.shaped and not said:
            said.append(f"{self.shaped} of {self.sampled_docs} document ids have its shape")
        return "; ".join(said)


def unjudged_run(
    dataset: Any, given: str, pairs: Sequence[tuple[str, str]], ranked: int
) -> tuple[str, str]:
    """What is wrong with a run none of whose ``ranked`` documents is judged or excluded for
    its query in ``dataset`` (named ``given``), of which ``pairs`` are a sample of (query, doc)
    pairs, and its likely cause: two clauses, to follow the run's name."""
    docs = list(dict.fromkeys(doc for _, doc in pairs[:SAMPLE_PAIRS]))
    cause = wrong_dataset(likely_fit(pairs, given), given)
    if corpus_holds_any(dataset, docs) is False:
        return f"none of its documents (e.g. {docs[0]!r}) is in the corpus of {given}", cause
    return (
        f"none of its {ranked} ranked documents is judged or excluded for its query in {given}",
        cause,
    )


def wrong_dataset(fit: Fit | None, given: str) -> str:
    """The likely cause of a run that matches nothing in ``given``: the dataset ``fit``, if
    one of the family fits it."""
    if fit is not None:
        return f"wrong dataset? the run seems to be for {fit.dataset_id} ({fit.evidence()})"
    family = given.split("/")[0]
    return (
        f"wrong dataset? no cached dataset of {family} holds or judges its documents "
        "(download the one it is for to have it named)"
    )


def corpus_holds_any(dataset: Any, doc_ids: Sequence[str]) -> bool | None:
    """Whether any of ``doc_ids`` is a document of ``dataset``; None when that cannot be told
    without downloading: no corpus ir_bright serves, or its files not all cached."""
    found = _in_corpus(dataset, doc_ids)
    return None if found is None else found > 0


def likely_dataset(pairs: Sequence[tuple[str, str]], given: str) -> str | None:
    """The id of the dataset of ``given``'s family, other than ``given``, that fits ``pairs``
    best (see :func:`likely_fit`); None when none fits."""
    fit = likely_fit(pairs, given)
    return None if fit is None else fit.dataset_id


def likely_fit(pairs: Sequence[tuple[str, str]], given: str) -> Fit | None:
    """The dataset of ``given``'s family, other than ``given`` and its variants, that fits
    ``pairs`` best by documents, judgements, id shapes and query ids (module docstring);
    None when nothing but query ids fits any."""
    if not pairs:
        return None
    sample = list(dict.fromkeys(pairs[:SAMPLE_PAIRS]))
    fits = [_fit(dataset_id, dataset, sample) for dataset_id, dataset in _candidates(given)]
    best = max((fit for fit in fits if fit.matches()), key=Fit.key, default=None)
    return best


def _fit(dataset_id: str, dataset: Any, sample: list[tuple[str, str]]) -> Fit:
    docs = list(dict.fromkeys(doc for _, doc in sample))
    queries = {query for query, _ in sample}
    judged = _judged(dataset_id, dataset)
    domain = dataset_id.split("/")[1].lower()
    shaped = sum(1 for doc in docs if doc.split("/")[0].lower() == domain)
    fit = Fit(dataset_id, _in_corpus(dataset, docs), shaped=shaped, sampled_docs=len(docs))
    if judged is None:
        return fit
    judged_docs = {doc for pair in judged for doc in pair[1:]}
    return Fit(
        dataset_id,
        fit.in_corpus,
        judged_pairs=sum(pair in judged for pair in sample),
        judged_docs=sum(doc in judged_docs for doc in docs),
        shaped=shaped,
        queries=len(queries & {query for query, _ in judged}),
        sampled_docs=len(docs),
    )


def _in_corpus(dataset: Any, doc_ids: Sequence[str]) -> int | None:
    """How many of ``doc_ids`` are documents of ``dataset``; None when its corpus is not all
    cached (or not one ir_bright serves)."""
    try:
        files = list(getattr(dataset, "docs_hub_files", list)())
        if not doc_ids or not files or not all(f.is_cached() for f in files):
            return None
        return sum(1 for _ in dataset.docs_store().get_many_iter(doc_ids))
    except Exception as exc:  # noqa: BLE001 - a check that cannot run must not break scoring
        logger.debug("cannot look the run's documents up in the corpus of %s: %s", dataset, exc)
        return None


def _judged(dataset_id: str, dataset: Any) -> set[tuple[str, str]] | None:
    """The (query, doc) pairs ``dataset`` judges or excludes; None when its qrels are not
    cached."""
    try:
        files = list(getattr(dataset, "qrels_hub_files", list)())
        if not files or not all(f.is_cached() for f in files):
            return None
        return {(q.query_id, q.doc_id) for q in dataset.qrels_iter()}
    except Exception as exc:  # noqa: BLE001 - a hint must never break scoring
        logger.debug("cannot read the qrels of %s for the hint: %s", dataset_id, exc)
        return None


def _candidates(given: str) -> Iterator[tuple[str, Any]]:
    """The datasets of ``given``'s family with qrels, one per distinct (corpus, qrels) pair,
    other than ``given``'s own pair."""
    import ir_datasets

    from .. import registry

    family = given.split("/")[0]
    seen = set()
    if given in registry.our_ids():
        seen.add(_files_key(ir_datasets.load(given)))
    asked = 0
    for dataset_id in registry.our_ids():
        if dataset_id.split("/")[0] != family or dataset_id.count("/") == 0:
            continue
        dataset = ir_datasets.load(dataset_id)
        key = _files_key(dataset)
        # qrels read from the corpus too (BRIGHT's adjusted ones) cost a pass over it: left out
        if key in seen or not dataset.has_qrels() or set(key[0]) & set(key[1]):
            continue
        seen.add(key)
        yield dataset_id, dataset
        asked += 1
        if asked >= MAX_CANDIDATES:
            return


def _files_key(dataset: Any) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What tells two datasets apart here: the urls of their corpus and qrels files."""

    def urls(files: Iterable[Any]) -> tuple[str, ...]:
        return tuple(sorted(str(getattr(f, "url", f)) for f in files))

    return (
        urls(getattr(dataset, "docs_hub_files", list)()),
        urls(getattr(dataset, "qrels_hub_files", list)()),
    )
