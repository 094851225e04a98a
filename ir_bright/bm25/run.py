"""The baseline run: every query of a dataset searched, excluded documents removed, TREC lines.

By default a run is its family's official BM25 (:func:`~.params.official_mode`: the BRIGHT
paper's query-side weighting, the family's depth). Each query's excluded documents (qrels
below 0) are removed *before* the ranking is cut to ``depth``, as the official protocol does
(xlang-ai/BRIGHT ``retrievers.py``, ``retrieval_bm25``, at commit d99e839). Like that code,
which ranks the whole corpus, a ranking with fewer than ``depth`` matching documents is filled up
with zero-score documents in corpus order; ties are broken by corpus order (by doc id with
Lucene's norms, as Pyserini).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import count, repeat
from typing import Any

from ..registry import query_texts
from ..runs.write import RankedDoc
from ..scoring.scorer import excluded_docs
from .cache import index_for
from .params import DEFAULT_PARAMS, BM25Params, official_mode

_ranked_doc = tuple.__new__  # a RankedDoc from its fields with no Python call per line


def retrieve(
    dataset: Any,
    params: BM25Params = DEFAULT_PARAMS,
    query_side: bool | None = None,
    depth: int | None = None,
    progress: bool = True,
    queries: Sequence[tuple[str, str]] | None = None,
) -> Iterator[RankedDoc]:
    """Run the baseline on every query of ``dataset`` (an id or dataset object); a
    ``query_side`` or ``depth`` left None is the family's official BM25's."""
    from .. import registry
    from ..log import progress as bar_of

    dataset = registry.load(dataset)
    query_side, depth = official_mode(dataset, query_side, depth, params.lucene_norms)
    queries = list(queries) if queries is not None else query_texts(dataset)
    excluded = excluded_docs(dataset)
    index = index_for(dataset, params, progress=progress)
    for query_id, text in bar_of(progress, iterable=queries, unit="query", desc="BM25 retrieval"):
        rows = index.rows_of(excluded.get(query_id, ()))
        ids, scores = index.ranking(text, depth, rows, query_side=query_side)
        lines = zip(repeat(query_id), ids, count(1), scores)
        yield from map(_ranked_doc, repeat(RankedDoc), lines)
