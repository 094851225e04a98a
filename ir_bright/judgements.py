"""Judgements and exclusions, one mechanism for BRIGHT and MM-BRIGHT.

Both benchmarks remove some documents of each query from its ranking before scoring
(BRIGHT's ``excluded_ids``: xlang-ai/BRIGHT ``retrievers.py`` ``get_scores``, commit 5ec4cb3;
MM-BRIGHT's ``negative_ids`` and Task 4's negative-image pairs: mm-bright/MM-BRIGHT
``src/eval_runner.py``, commit b35eaeb). ir_bright carries an exclusion as a qrel of relevance
:data:`EXCLUDED` (-100, the convention of ir_datasets' core BRIGHT module): :func:`query_qrels`
writes it, and :func:`split_qrels` is the one reader of it, for ``Official(...)`` and, through
:func:`ir_bright.scoring.excluded_docs`, every other consumer (a label below 0 is an
exclusion).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from functools import partial
from itertools import chain, compress, filterfalse, groupby, repeat
from operator import itemgetter, lt, not_
from typing import Any

# the package before its submodule: Python locks a submodule before its parent, so a thread
# importing ir_datasets.formats first can deadlock with one importing ir_datasets
import ir_datasets  # noqa: F401
from ir_datasets.formats import TrecQrel

from .errors import CacheError
from .runs.columns import qrel_column_chunks

EXCLUDED = -100
NO_ID = "N/A"  # the benchmarks' sentinel for "no id" in id lists


def is_id(value: object) -> bool:
    """Whether a list entry is a real id (not None, empty, or the ``"N/A"`` sentinel)."""
    return isinstance(value, str) and value not in ("", NO_ID)


def judged_label(score: Any, path: Any, excludes: bool) -> int:
    """A judgement file's score as the benchmark's official code reads it (``int(score)``):
    the one reader of a label in the families' judgement files.
    A negative label means "excluded" to the official protocol (:func:`split_qrels`), so in
    a benchmark whose protocol excludes nothing (``excludes`` false) it is no grade any
    official script gives: the file is refused as malformed, as is a score that is not a whole
    number, in one line naming ``path`` and the fix."""
    try:
        label = None if isinstance(score, bool) else int(score)
    except (TypeError, ValueError, OverflowError):
        label = None
    if label is None or (label < 0 and not excludes):
        what = "a whole number" if label is None else "a grade (the benchmark excludes nothing)"
        raise CacheError(
            f"{path}: a qrels score {score!r} is not {what}: not the hub's file? delete it and "
            "run again to fetch it anew"
        )
    return label


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
    labels = _labels(judged)
    # thousands of exclusions per query: deduplicated and turned into qrels at C speed (an
    # iterator of C-level iterators, not a generator: no Python frame resumed per qrel)
    unique_excluded = _unique_ids(excluded)
    judged_qrels = (TrecQrel(query_id, doc_id, label, "0") for doc_id, label in labels.items())
    return chain(
        _excluded_qrels(query_id, filter(labels.__contains__, unique_excluded)),
        judged_qrels,
        _excluded_qrels(query_id, filterfalse(labels.__contains__, unique_excluded)),
    )


_NOT_IDS = (None, "", NO_ID)
_new_qrel = partial(tuple.__new__, TrecQrel)  # TrecQrel(*fields) without a Python-level call


def _excluded_qrels(query_id: str, doc_ids: Iterable[str]) -> Iterator[TrecQrel]:
    return map(_new_qrel, zip(repeat(query_id), doc_ids, repeat(EXCLUDED), repeat("0")))


def split_qrels(
    qrels: Any,
) -> tuple[dict[str, Mapping[str, int]], Mapping[str, AbstractSet[str]]]:
    """Split qrels (any ir_measures format) into judgements >= 0 and excluded docs per query.

    A pair judged both ways (never the case in BRIGHT) is excluded from the ranking and still
    counts its non-negative judgement, as the benchmarks' own code would do. A dict of dicts
    is read, not copied: a query without exclusions keeps the caller's dict, and a query's
    excluded docs are an :class:`ExcludedDocs` view of it (never change the dicts while
    scoring); other formats are split column-wise into new dicts and sets, by C-level
    iterators, so a million exclusions take a fraction of a second.
    """
    if isinstance(qrels, dict):
        return _split_dict(qrels)
    if isinstance(qrels, QrelsByQuery):
        return qrels.split()
    judged: dict[str, Any] = {}
    excluded: dict[str, Any] = {}
    for query_ids, doc_ids, labels in qrel_column_chunks(qrels):
        negative = list(map(lt, labels, repeat(0)))
        kept = list(map(not_, negative))
        _group(compress(query_ids, negative), compress(doc_ids, negative), set, excluded)
        judgements = zip(compress(doc_ids, kept), compress(labels, kept))
        _group(compress(query_ids, kept), judgements, dict, judged)
    return judged, excluded


class QrelsByQuery(Iterator[TrecQrel]):
    """The qrels of rows that each list one query's judged and excluded docs, as an iterator
    of :class:`TrecQrel` (:func:`query_qrels` of each row), which :func:`split_qrels` splits
    from the rows themselves: no qrel record is made, so the qrels of a thousand queries
    excluding a few hundred docs each are split in a few milliseconds."""

    def __init__(self, rows: Iterable[tuple[str, Iterable[tuple[str, int]], Iterable[str]]]):
        self._rows = rows
        self._qrels: Iterator[TrecQrel] | None = None

    def __next__(self) -> TrecQrel:
        if self._qrels is None:
            self._qrels = chain.from_iterable(query_qrels(*row) for row in self._rows)
        return next(self._qrels)

    def split(self) -> tuple[dict[str, Mapping[str, int]], Mapping[str, AbstractSet[str]]]:
        """:func:`split_qrels` of these qrels (read once: the iterator is then spent)."""
        if self._qrels is not None:
            raise ValueError("these qrels were partly read already")
        self._qrels = iter(())
        judged: dict[str, dict[str, int]] = {}
        excluded: dict[str, set[str]] = {}
        for query_id, labelled, gone in self._rows:
            labels = _labels(labelled)
            if labels:
                judged.setdefault(query_id, {}).update(labels)
            unique = _unique_ids(gone)
            if unique:
                excluded.setdefault(query_id, set()).update(unique)
        return dict(judged), excluded


def _labels(judged: Iterable[tuple[str, int]]) -> dict[str, int]:
    """Each judged doc once, with its highest label; sentinels skipped."""
    labels: dict[str, int] = {}
    for doc_id, label in judged:
        if is_id(doc_id) and label > labels.get(doc_id, label - 1):
            labels[doc_id] = label
    return labels


def _unique_ids(excluded: Iterable[Any]) -> dict[Any, None]:
    """The excluded ids, each once, in order; sentinels and ids that are not text skipped
    (at C speed: thousands a query)."""
    unique: dict[Any, None] = dict.fromkeys(excluded)
    for sentinel in _NOT_IDS:
        unique.pop(sentinel, None)
    if not set(map(type, unique)) <= {str}:
        unique = dict.fromkeys(filter(is_id, unique))
    return unique


def _split_dict(
    qrels: Mapping[str, Mapping[str, int]],
) -> tuple[dict[str, Mapping[str, int]], dict[str, ExcludedDocs]]:
    judged: dict[str, Mapping[str, int]] = {}
    excluded: dict[str, ExcludedDocs] = {}
    for query_id, labels in qrels.items():
        kept: Mapping[str, int] = {d: label for d, label in labels.items() if label >= 0}
        if len(kept) < len(labels):
            excluded[query_id] = ExcludedDocs(labels, len(labels) - len(kept))
        else:
            kept = labels  # nothing excluded: the caller's dict is read as it is
        if kept:
            judged[query_id] = kept
    return judged, excluded


class ExcludedDocs(AbstractSet[str]):
    """The docs one query excludes, read from its labels (those below 0) without a copy.

    A set for every reader (``in``, iteration, ``len``, set operators); ``intersection``
    finds the excluded docs among a ranking at C speed.
    """

    __slots__ = ("_count", "_labels", "_set")

    def __init__(self, labels: Mapping[str, int], count: int):
        self._labels, self._count = labels, count
        self._set: set[str] | None = None

    @classmethod
    def _from_iterable(cls, iterable: Iterable[Any]) -> set[Any]:
        return set(iterable)  # set operators give plain sets

    def __contains__(self, doc_id: object) -> bool:
        labels: Mapping[Any, int] = self._labels  # any id may be asked for
        return labels.get(doc_id, 0) < 0

    def __iter__(self) -> Iterator[str]:
        return (doc_id for doc_id, label in self._labels.items() if label < 0)

    def __len__(self) -> int:
        return self._count

    def intersection(self, docs: Mapping[str, Any]) -> set[str]:
        """The excluded docs among the keys of ``docs`` (the set of excluded docs is made on
        first use and kept: a reused evaluator looks them up faster in a set)."""
        if self._set is None:
            labels = self._labels
            self._set = set(compress(labels, map(lt, labels.values(), repeat(0))))
        if isinstance(docs, dict):  # a keys view looks the (fewer) excluded docs up in docs
            return docs.keys() & self._set
        return self._set.intersection(docs)


def _group(
    query_ids: Iterable[str], items: Iterable[Any], bucket: type, grouped: dict[str, Any]
) -> None:
    """Add ``items`` to ``grouped`` (``{query_id: bucket(items of that query)}``); runs of one
    query are added in one call."""
    for query_id, rows in groupby(zip(query_ids, items), key=itemgetter(0)):
        found = grouped.get(query_id)
        if found is None:
            found = grouped[query_id] = bucket()
        found.update(map(itemgetter(1), rows))
