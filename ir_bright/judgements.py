"""Judgements and exclusions, one mechanism for BRIGHT and MM-BRIGHT.

Both benchmarks remove some documents of each query from its ranking before scoring
(BRIGHT's ``excluded_ids``, MM-BRIGHT's ``negative_ids`` and Task 4's negative-image pairs).
ir_bright carries an exclusion as a qrel of relevance :data:`EXCLUDED` (-100, the convention of
ir_datasets' core BRIGHT module); ``Official(...)`` and ``drop_excluded`` consume it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial
from itertools import filterfalse, repeat
from typing import Any

from ir_datasets.formats import TrecQrel

__all__ = ["EXCLUDED", "NO_ID", "is_id", "query_qrels"]

EXCLUDED = -100
NO_ID = "N/A"  # the benchmarks' sentinel for "no id" in id lists


def is_id(value: object) -> bool:
    """Whether a list entry is a real id (not None, empty, or the ``"N/A"`` sentinel)."""
    return isinstance(value, str) and value not in ("", NO_ID)


def query_qrels(
    query_id: str,
    judged: Iterable[tuple[str, int]],
    excluded: Iterable[str] = (),
) -> Iterator[TrecQrel]:
    """The qrels of one query: each judged doc once (its highest label) and each excluded doc
    once as :data:`EXCLUDED`. Sentinels are skipped.

    A doc both judged and excluded (an MM-BRIGHT gold id listed among the query's negative
    ids) gets both qrels, as the official code treats it: it stays relevant and is removed
    from the ranking. Its exclusion comes first, so a dict built from the qrels (last one
    wins, as ``qrels_dict()``) keeps the judgement; ``Official(...)`` and every ir_bright
    consumer read the exclusion from the -100 qrel wherever it is.
    """
    labels: dict[str, int] = {}
    for doc_id, label in judged:
        if is_id(doc_id) and label > labels.get(doc_id, label - 1):
            labels[doc_id] = label
    # thousands of exclusions per query: deduplicated and turned into qrels at C speed
    unique_excluded: dict[Any, None] = dict.fromkeys(excluded)
    for sentinel in _NOT_IDS:
        unique_excluded.pop(sentinel, None)
    if not set(map(type, unique_excluded)) <= {str}:
        unique_excluded = dict.fromkeys(filter(is_id, unique_excluded))
    yield from _excluded_qrels(query_id, filter(labels.__contains__, unique_excluded))
    for doc_id, label in labels.items():
        yield TrecQrel(query_id, doc_id, label, "0")
    yield from _excluded_qrels(query_id, filterfalse(labels.__contains__, unique_excluded))


_NOT_IDS = (None, "", NO_ID)
_new_qrel = partial(tuple.__new__, TrecQrel)  # TrecQrel(*fields) without a Python-level call


def _excluded_qrels(query_id: str, doc_ids: Iterable[str]) -> Iterator[TrecQrel]:
    return map(_new_qrel, zip(repeat(query_id), doc_ids, repeat(EXCLUDED), repeat("0")))
