"""The baseline run: every query of a dataset searched, excluded documents removed, TREC lines.

Each query's excluded documents (qrels below 0) are removed *before* the ranking is cut to
``k`` (1,000), as the official protocol does (xlang-ai/BRIGHT ``retrievers.py``,
``retrieval_bm25``, at commit d99e839). Like that code, which ranks the whole corpus, a
ranking with fewer than ``k`` matching documents is filled up with zero-score documents in
corpus order; ties are broken by corpus order (by doc id with Lucene's norms, as Pyserini).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple, TextIO

from .cache import index_for
from .params import DEFAULT_K, DEFAULT_PARAMS, RUN_TAG, BM25Params, check_depth

__all__ = ["RankedDoc", "excluded_ids", "query_texts", "retrieve", "write_trec"]


class RankedDoc(NamedTuple):
    """One line of a run."""

    query_id: str
    doc_id: str
    rank: int
    score: float


def excluded_ids(dataset: Any) -> dict[str, list[str]]:
    """``{query_id: doc ids judged below 0}``: the documents the official protocol removes."""
    excluded: dict[str, list[str]] = {}
    if not dataset.has_qrels():
        return excluded
    for qrel in dataset.qrels_iter():
        if qrel.relevance < 0:
            excluded.setdefault(qrel.query_id, []).append(qrel.doc_id)
    return excluded


def query_texts(dataset: Any) -> list[tuple[str, str]]:
    """(query id, text) of every query; the text is the record's ``text`` field."""
    only_texts = getattr(dataset, "query_texts", None)  # BRIGHT: skips the *_reason files
    if only_texts is not None:
        return [(query_id, text or "") for query_id, text in only_texts()]
    result = []
    for query in dataset.queries_iter():
        text = getattr(query, "text", None)
        if text is None and hasattr(query, "default_text"):
            text = query.default_text()
        result.append((query.query_id, text or ""))
    return result


def retrieve(
    dataset: Any,
    params: BM25Params = DEFAULT_PARAMS,
    query_side: bool = False,
    k: int = DEFAULT_K,
    progress: bool = True,
    queries: Sequence[tuple[str, str]] | None = None,
) -> Iterator[RankedDoc]:
    """Run the baseline on every query of ``dataset`` (an id or dataset object)."""
    from .. import registry
    from ..log import progress as bar_of

    dataset = registry.load(dataset)
    check_depth(k)
    queries = list(queries) if queries is not None else query_texts(dataset)
    excluded = excluded_ids(dataset)
    index = index_for(dataset, params, progress=progress)
    for query_id, text in bar_of(progress, iterable=queries, unit="query", desc="BM25 retrieval"):
        rows = index.rows_of(excluded.get(query_id, ()))
        for rank, (doc_id, score) in enumerate(
            index.search(text, k, rows, query_side=query_side), start=1
        ):
            yield RankedDoc(query_id, doc_id, rank, score)


def write_trec(ranked: Iterable[RankedDoc], out: TextIO, tag: str = RUN_TAG) -> int:
    """Write ``query_id Q0 doc_id rank score tag`` lines; return the number written."""
    written = 0
    for doc in ranked:
        out.write(f"{doc.query_id} Q0 {doc.doc_id} {doc.rank} {doc.score!r} {tag}\n")
        written += 1
    return written
