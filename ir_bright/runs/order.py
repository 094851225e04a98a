"""trec_eval's order of a ranking: score descending, ties by doc id descending.

trec_eval sorts each query's documents by score, then by doc id (``form_res_rels.c``'s
``comp_sim_docno``, both descending), ignoring the rank column; pytrec_eval and so ir_measures
inherit it. The official protocol's depth cut, the reranking candidates and every run ir_bright
writes use this one order, so a cut never keeps a document trec_eval would rank lower.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from heapq import nlargest
from itertools import compress, repeat
from operator import ge, itemgetter

TREC_ORDER = itemgetter(1, 0)
"""The sort key of a (doc id, score) item in trec_eval's order, reversed: score, then doc id."""


def best(docs: Mapping[str, float], depth: int) -> list[tuple[str, float]]:
    """The ``depth`` best (doc id, score) items of ``docs`` in trec_eval's order.

    A short cut of a long ranking sorts only the items scoring at least the ``depth``-th best
    score (found at C speed); the full sort is the fallback (and the path for NaN scores).
    """
    if depth < 1 or not docs:
        return []
    items: Iterable[tuple[str, float]] = docs.items()
    if depth * 8 <= len(docs):
        kth = nlargest(depth, docs.values())[-1]
        candidates = list(compress(items, map(ge, docs.values(), repeat(kth))))
        if len(candidates) >= depth:
            items = candidates
    return sorted(items, key=TREC_ORDER, reverse=True)[:depth]
