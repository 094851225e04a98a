"""Runs given in memory: a dict of dicts, a DataFrame (ir_measures' or PyTerrier's columns),
an iterable of ScoredDoc; ids that are not text are read as text, ids holding a NUL refused
(pytrec_eval cuts a string at a NUL, so ``doc\\0junk`` would score as ``doc``)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from itertools import repeat
from operator import attrgetter, contains
from typing import Any

from ..errors import RunFormatError
from .entries import FLOATS, NUL, NUL_WHY, CheckedRun, Rows, refuse_nul_ids, score, scores

RUN_COLUMNS = (("query_id", "doc_id", "score"), ("qid", "docno", "score"))
"""The column names a run DataFrame may use: ir_measures' or PyTerrier's."""

_FIELDS = ("query_id", "doc_id", "score")


def read_mapping(run: Mapping[Any, Mapping[Any, Any]], name: str) -> CheckedRun:
    """A dict-of-dicts run, checked; a query already clean is read, not copied."""
    ranked = CheckedRun()
    for query_id, docs in run.items():
        if _clean_docs(query_id, docs):
            ranked[query_id] = docs  # read, not copied
            continue
        where = f"{name} query {query_id!r} doc "
        query_id = str(query_id)
        ranked[query_id] = {str(d): score(s, f"{where}{d!r}") for d, s in docs.items()}
        refuse_nul_ids(query_id, ranked[query_id], name)
    return ranked


def _clean_docs(query_id: Any, docs: Mapping[Any, Any]) -> bool:
    """Whether one query of a dict-of-dicts run can be scored as it is: a dict of text ids
    without NUL and finite float scores (checked at C speed; joining fails on other ids)."""
    values = docs.values()
    try:
        return (
            type(docs) is dict
            and type(query_id) is str
            and NUL not in query_id
            and set(map(type, values)) <= FLOATS
            and math.isfinite(sum(values))
            and NUL not in "".join(docs)
        )
    except TypeError:
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


def record_rows(records: Iterable[Any], name: str) -> Rows:
    """The entries of an iterable of ScoredDoc (any record with its three fields)."""
    records = records if isinstance(records, list | tuple) else list(records)

    def place(i: int) -> str:
        return f"{name} record {i + 1}"

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
