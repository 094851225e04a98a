"""Three columns of a run or qrels given in any ir_measures format, read at C speed."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from operator import attrgetter
from typing import Any

from ir_measures.util import QrelsConverter, RunConverter

RECORD_CHUNK = 1 << 12
"""How many records of an iterable run are turned into columns at a time."""

QREL_COLUMNS = ("query_id", "doc_id", "relevance")
RUN_FIELDS = ("query_id", "doc_id", "score")


def run_columns(run: Any) -> list[list[Any]]:
    """``[query ids, doc ids, scores]`` of a run in any ir_measures format."""
    return _columns(run, RunConverter, RUN_FIELDS)


def run_column_chunks(run: Any) -> Iterator[list[list[Any]]]:
    """:func:`run_columns` in parts: an iterable of records :data:`RECORD_CHUNK` records at a
    time (a generator's records are let go chunk by chunk, as a loop over them would let them
    go), any other format at once."""
    return _chunks(run, run_columns)


def qrel_column_chunks(qrels: Any) -> Iterator[list[list[Any]]]:
    """:func:`qrel_columns` in parts, as :func:`run_column_chunks` gives a run's."""
    return _chunks(qrels, qrel_columns)


def record_chunks(records: Iterable[Any]) -> Iterator[list[Any]]:
    """``records`` in lists of :data:`RECORD_CHUNK`, drawn one list at a time."""
    iterator = iter(records)
    while chunk := list(islice(iterator, RECORD_CHUNK)):
        yield chunk


def _chunks(data: Any, columns: Any) -> Iterator[list[list[Any]]]:
    if hasattr(data, "itertuples") or not hasattr(data, "__iter__") or isinstance(data, dict):
        yield columns(data)
        return
    yield from map(columns, record_chunks(data))


def qrel_columns(qrels: Any) -> list[list[Any]]:
    """``[query ids, doc ids, labels]`` of qrels in any ir_measures format."""
    return _columns(qrels, QrelsConverter, QREL_COLUMNS)


def _columns(data: Any, converter_type: type, names: tuple[str, str, str]) -> list[list[Any]]:
    """Three columns of qrels or a run given in any ir_measures format.

    An iterable is read once as it is: ir_measures' own format check would wrap it in one
    more tee, which every record would then pass through. Ids of a DataFrame that are not
    text (integer query ids) are read as text.
    """
    if hasattr(data, "itertuples") or not hasattr(data, "__iter__") or isinstance(data, dict):
        kind, error = converter_type(data).predict_type()
        if kind == "pd_dataframe":
            columns = [data[name].tolist() for name in names]
            return [_text(column) for column in columns[:2]] + columns[2:]
        if kind == "dict_of_dict":
            rows = [(q, d, v) for q, values in data.items() for d, v in values.items()]
            return [list(column) for column in zip(*rows)] or [[], [], []]
    else:
        records = data if isinstance(data, list | tuple) else list(data)
        try:
            return [list(map(attrgetter(name), records)) for name in names]
        except AttributeError:
            kind, error = converter_type(records).predict_type()
    raise ValueError(f"unknown {'run' if converter_type is RunConverter else 'qrels'}: {error}")


def _text(values: list[Any]) -> list[Any]:
    return values if set(map(type, values)) <= {str} else list(map(str, values))
