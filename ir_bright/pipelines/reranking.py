"""Reranking candidates: each query's top K documents of a first-stage run, as the official
scorer would see them, with the query's and the documents' texts.

The official protocol drops a query's excluded ids from its ranking before the 1,000 cut
(``get_scores`` in ``retrievers.py`` of xlang-ai/BRIGHT, commit 5ec4cb3, deletes each
query's ``excluded_ids`` from its scores before keeping the best 1,000; the scorer here does
the same). A reranker given the
first stage's raw top K would spend slots on documents the scorer then drops: the candidates
are therefore taken *after* the exclusions, ranked as trec_eval ranks (score descending, ties
by doc id descending), so K candidates are K documents that can count.

Documents are fetched per query from the dataset's docs store (random access: the corpus is
never held in memory), and candidates are yielded as they are made.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, Any, NamedTuple

from ..errors import IrBrightError
from ..registry import query_texts
from ..runs.order import best

logger = logging.getLogger(__name__)


class CandidatesError(IrBrightError):
    """A run whose candidates cannot be made (documents missing from the corpus, bad depth)."""


class Candidate(NamedTuple):
    """One candidate document of one query, at ``rank`` (1..K) of the filtered first stage."""

    query_id: str
    query: str
    doc_id: str
    text: str
    rank: int
    score: float


def candidates(dataset: Any, run: Any, depth: int) -> Iterator[Candidate]:
    """Each query's ``depth`` best documents of ``run`` after its excluded ids are dropped.

    ``dataset`` is an id, an ir_datasets dataset or a PyTerrier one (its queries' texts are
    used: choose ``bright/<domain>/<model>-reason`` for reasoning texts, or
    :func:`ir_bright.with_queries` for your own); ``run`` is any run
    :func:`ir_bright.runs.read_run` reads. Queries come in the dataset's order; a query the
    run does not rank has no candidates (one warning counts them). An empty run (PyTerrier's
    empty validation frame) has none, without a warning or a look at the dataset's files.
    """
    from .. import registry
    from ..runs import read_run
    from ..scoring import excluded_docs

    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        raise CandidatesError(f"the depth must be a whole number of 1 or more, got {depth!r}")
    dataset = registry.load(dataset)
    ranked = read_run(run)
    if not ranked:
        return
    excluded = excluded_docs(dataset)
    store = dataset.docs_store()
    unranked = 0
    for query_id, text in query_texts(dataset):
        docs = ranked.get(query_id)
        if not docs:
            unranked += 1
            continue
        yield from _query_candidates(query_id, text, docs, excluded.get(query_id), depth, store)
    if unranked:
        logger.warning(
            "%d queries of %s are not in the run: no candidates for them", unranked, _label(dataset)
        )


def _query_candidates(
    query_id: str,
    text: str,
    docs: Mapping[str, float],
    gone: Any,
    depth: int,
    store: Any,
) -> Iterator[Candidate]:
    if gone:
        docs = {doc_id: score for doc_id, score in docs.items() if doc_id not in gone}
    top = best(docs, depth)
    found = {doc.doc_id: _doc_text(doc) for doc in store.get_many_iter(d for d, _ in top)}
    missing = [doc_id for doc_id, _ in top if doc_id not in found]
    if missing:
        raise CandidatesError(
            f"{len(missing)} of query {query_id}'s top {len(top)} documents are not in the "
            f"corpus (first: {missing[0]!r}): is the run for another dataset?"
        )
    for rank, (doc_id, score) in enumerate(top, 1):
        yield Candidate(query_id, text, doc_id, found[doc_id], rank, score)


def _doc_text(doc: Any) -> str:
    text = doc.default_text() if hasattr(doc, "default_text") else getattr(doc, "text", "")
    return str(text)


def _label(dataset: Any) -> str:
    try:
        return str(dataset.dataset_id())
    except AttributeError:
        return "the dataset"


def write_jsonl(rows: Iterable[Candidate], out: IO[str]) -> int:
    """Write one JSON object per candidate (keys as :class:`Candidate`'s fields); return the
    number written."""
    written = 0
    for row in rows:
        out.write(json.dumps(row._asdict(), ensure_ascii=False) + "\n")
        written += 1
    return written
