"""Columns of run entries, the checked run they are gathered into, and the checks every
run shape shares: finite scores, no NUL in ids, no (query, doc) pair twice."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import groupby, islice
from typing import Any, NamedTuple

from ..errors import RunFormatError

NUL = "\0"
NUL_WHY = "holds a NUL character (pytrec_eval would cut it there and score another id)"
FLOATS = {float}


SLICE_ENTRIES = 1 << 10
"""About how many entries a scorer checks, filters and scores at a time: a slice this size
(some hundreds of KB of objects) is still in the processor's cache when the next step reads it,
where a whole run is not."""


def slices(
    queries: Iterable[tuple[str, Any]],
    entries: int | None = SLICE_ENTRIES,
    make: Callable[[], dict] = dict,
) -> Iterator[dict]:
    """``(query id, its docs)`` pairs in consecutive dicts (``make()``) of whole queries of
    about ``entries`` entries each; ``entries`` None: one dict, empty if there are no pairs.
    The pairs are drawn as the slices are, so work done making them happens just before
    their slice is handed on."""
    limit = entries or math.inf
    part, size = make(), 0
    for query_id, docs in queries:
        part[query_id] = docs
        size += len(docs)
        if size >= limit:
            yield part
            part, size = make(), 0
    if part or entries is None:
        yield part


class CheckedRun(dict):
    """A run read by :func:`~ir_bright.runs.read_run`: ids are text without NUL, scores finite
    floats, so a scorer need not check them again. ``owned``: its dicts were made by read_run
    (not the caller's)."""

    owned = False


class Rows(NamedTuple):
    """Columns of run entries, ``place(i)`` saying where entry ``i`` came from."""

    query_ids: list[str]
    doc_ids: list[str]
    scores: list[float]
    place: Callable[[int], str]


def score(value: Any, where: str) -> float:
    """``value`` as a finite float, or an error naming ``where`` it is."""
    try:
        number = float(value)
    except OverflowError:
        number = math.inf  # an int beyond any float: refused below as not finite
    except (TypeError, ValueError):
        raise RunFormatError(f"{where}: score {value!r} is not a number") from None
    if not math.isfinite(number):
        raise RunFormatError(f"{where}: score {value} is not finite; give every doc a real score")
    return number


def scores(values: list[Any], place: Callable[[int], str]) -> list[float]:
    """``values`` as finite floats: checked at C speed when they are floats already."""
    if set(map(type, values)) <= FLOATS and math.isfinite(sum(values)):
        return values
    return [score(v, place(i)) for i, v in enumerate(values)]


def refuse_nul_ids(query_id: Any, docs: Iterable[Any], name: str) -> None:
    """Refuse ``query_id`` or one of its ``docs`` holding a NUL, naming it."""
    for doc_id in (query_id, *docs):
        if isinstance(doc_id, str) and NUL in doc_id:
            what = "query id" if doc_id is query_id else f"query {query_id!r} doc id"
            raise RunFormatError(f"{name}: {what} {doc_id!r} {NUL_WHY}")


def query_spans(query_ids: Iterable[str]) -> Iterator[tuple[str, int, int]]:
    """``(query_id, start, end)`` of each run of equal query ids: a run's lines come query by
    query, so a query's entries are sliced out of the columns in one piece."""
    start = 0
    for query_id, group in groupby(query_ids):
        end = start + len(list(group))
        yield query_id, start, end
        start = end


def add_span(
    found: dict[str, float] | None,
    query_id: str,
    rows: Rows,
    start: int,
    end: int,
    pairs: Iterator[tuple[str, float]],
) -> dict[str, float]:
    """Query ``query_id``'s docs so far (``found``; None before its first line) with the
    entries ``start:end`` of ``rows`` added, refusing a doc given twice. ``pairs`` is
    ``zip(rows.doc_ids, rows.scores)`` consumed up to ``start`` (the spans of a block are
    added in order: no slice of the columns is made)."""
    docs = dict(islice(pairs, end - start))
    if len(docs) != end - start or (found and not found.keys().isdisjoint(docs)):
        _refuse_repeat(found or {}, query_id, rows, start, end)
    if not found:
        return docs
    found.update(docs)
    return found


def _refuse_repeat(
    found: Mapping[str, float], query_id: str, rows: Rows, start: int, end: int
) -> None:
    seen = set(found)
    for i in range(start, end):
        doc_id = rows.doc_ids[i]
        if doc_id in seen:
            raise RunFormatError(
                f"{rows.place(i)}: query {query_id!r} ranks doc {doc_id!r} twice; keep one "
                "line per query and doc (trec_eval refuses duplicates)"
            )
        seen.add(doc_id)
