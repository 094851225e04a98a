"""Runs given in memory: a dict of dicts, a DataFrame (ir_measures' or PyTerrier's columns),
an iterable of ScoredDoc; ids that are not text are read as text, ids holding a NUL refused
(pytrec_eval cuts a string at a NUL, so ``doc\\0junk`` would score as ``doc``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import repeat
from operator import attrgetter, contains
from typing import Any, cast

from ..errors import RunFormatError
from .columns import record_chunks
from .entries import (
    FLOATS,
    NUL,
    NUL_WHY,
    SLICE_ENTRIES,
    CheckedRun,
    Rows,
    refuse_nul_ids,
    score,
    scores,
    slices,
)

RUN_COLUMNS = (("query_id", "doc_id", "score"), ("qid", "docno", "score"))
"""The column names a run DataFrame may use: ir_measures' or PyTerrier's."""

_FIELDS = ("query_id", "doc_id", "score")


def read_mapping(run: Mapping[Any, Mapping[Any, Any]], name: str) -> CheckedRun:
    """A dict-of-dicts run, checked; a query already clean is read, not copied."""
    ranked = CheckedRun()
    for part in mapping_slices(run, name, entries=None):
        ranked.update(part)
    return ranked


def mapping_slices(
    run: Mapping[Any, Mapping[Any, Any]],
    name: str,
    entries: int | None = SLICE_ENTRIES,
    exact: bool = True,
) -> Iterator[CheckedRun]:
    """A dict-of-dicts run, checked, in consecutive parts of whole queries of about
    ``entries`` entries (None: one part), each checked just before it is handed on, so that
    its ids are still in the processor's cache when a scorer reads them. A query already
    clean is read, not copied.

    ``exact=False`` also passes on as they are the scores whose sum is a finite float (floats,
    ints and bools, which pytrec_eval reads as ``float()`` does): a third cheaper, but a
    number type that adds to a float as a float (``Fraction``) gets through too, which
    pytrec_eval then refuses with a ``TypeError``; read such a run again with ``exact``."""
    parts = slices(_checked_queries(run, name, exact), entries, CheckedRun)
    return cast(Iterator[CheckedRun], parts)  # made by CheckedRun


def _checked_queries(
    run: Mapping[Any, Mapping[Any, Any]], name: str, exact: bool
) -> Iterator[tuple[str, Mapping[str, float]]]:
    """Each query of a dict-of-dicts run, checked: as it is when clean, else converted."""
    for query_id, docs in run.items():
        if _clean_docs(query_id, docs, exact):
            yield query_id, docs  # read, not copied
            continue
        where = f"{name} query {query_id!r} doc "
        converted = {str(d): score(s, f"{where}{d!r}") for d, s in docs.items()}
        refuse_nul_ids(str(query_id), converted, name)
        yield str(query_id), converted


def _clean_docs(query_id: Any, docs: Mapping[Any, Any], exact: bool = True) -> bool:
    """Whether one query of a dict-of-dicts run can be scored as it is: a dict of text ids
    without NUL and finite scores (checked at C speed; joining fails on other ids), every
    score a float (``exact``) or their sum a float (see :func:`mapping_slices`)."""
    values = docs.values()
    try:
        if type(docs) is not dict or type(query_id) is not str or NUL in query_id:
            return False
        total = sum(values)
        numbers = set(map(type, values)) <= FLOATS if exact else type(total) is float
        return numbers and math.isfinite(total) and NUL not in "".join(docs)
    except (TypeError, OverflowError):
        return False


def refuse_nul(ranked: Mapping[Any, Mapping[Any, Any]], name: str) -> None:
    """Refuse a dict-of-dicts run whose query or doc ids hold a NUL character.

    pytrec_eval reads ids as C strings, so ``doc\\0junk`` would score as ``doc``. The check
    joins the ids (C speed); ids that are not text are left to the scorer to refuse; a
    :class:`~ir_bright.runs.entries.CheckedRun` was checked when it was read.
    """
    if isinstance(ranked, CheckedRun):
        return
    try:
        joined = map("".join, ranked.values())  # one query at a time: no copy of the run
        if NUL not in "".join(ranked) and not any(map(contains, joined, repeat(NUL))):
            return
    except TypeError:
        return
    for query_id, docs in ranked.items():
        refuse_nul_ids(query_id, docs, name)


def frame_columns(frame: Any, name: str) -> tuple[str, str, str]:
    """The (query, doc, score) column names of a run DataFrame, or an error naming them."""
    for columns in RUN_COLUMNS:
        if all(c in frame.columns for c in columns):
            return columns
    raise RunFormatError(
        f"{name}: needs columns query_id, doc_id, score (or qid, docno, score); "
        f"found {', '.join(map(str, frame.columns))}"
    )


def frame_rows(frame: Any, name: str) -> Rows:
    """The entries of a run DataFrame as checked columns."""
    query_col, doc_col, score_col = frame_columns(frame, name)

    def place(i: int) -> str:
        return f"{name} row {frame.index[i]!r}"

    return Rows(
        _ids(frame[query_col].tolist(), place),
        _ids(frame[doc_col].tolist(), place),
        scores(frame[score_col].tolist(), place),
        place,
    )


def record_rows(records: Iterable[Any], name: str) -> Iterator[Rows]:
    """The entries of an iterable of ScoredDoc (any record with its three fields), as checked
    columns a few thousand records at a time: a generator's records are let go chunk by chunk,
    as a loop over them would let them go, rather than held all at once."""
    start = 0
    for chunk in record_chunks(records):
        yield _record_columns(chunk, name, start)
        start += len(chunk)


def _record_columns(records: list[Any], name: str, start: int) -> Rows:
    """The columns of ``records``, the first of which is record ``start + 1`` of the run."""

    def place(i: int) -> str:
        return f"{name} record {start + i + 1}"

    try:
        columns = [list(map(attrgetter(f), records)) for f in _FIELDS]
    except AttributeError:
        for i, record in enumerate(records):
            if not all(hasattr(record, f) for f in _FIELDS):
                raise RunFormatError(
                    f"{place(i)}: expected a ScoredDoc (query_id, doc_id, score), "
                    f"got {type(record).__name__}"
                ) from None
        raise
    query_ids, doc_ids, values = columns
    return Rows(_ids(query_ids, place), _ids(doc_ids, place), scores(values, place), place)


def _ids(values: list[Any], place: Callable[[int], str]) -> list[str]:
    """``values`` as text (C speed when they are already), refusing a NUL in any."""
    try:
        joined = "".join(values)  # one pass: text check (join takes only str) and NUL check
    except TypeError:
        values = list(map(str, values))
        joined = "".join(values)
    if NUL in joined:
        i = next(i for i, v in enumerate(values) if NUL in v)
        raise RunFormatError(f"{place(i)}: id {values[i]!r} {NUL_WHY}")
    return values
