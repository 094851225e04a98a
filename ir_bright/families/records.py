"""Record types that a family declares as data (``records`` of its declaration), made into
namedtuples as ir_datasets expects them, and every family's record types by name.

A declared record is a ``NamedTuple`` whose fields and types come from its declaration
(``str``, ``int``, ``float``, or ``Tuple[str, ...]`` for ``strings``: the exact annotations
ir_datasets' exporter reads), with a ``default_text()`` giving its second field, the text. It
is made once per process and lives in this module's namespace, so it pickles like any other.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import cache
from itertools import repeat
from typing import Any, NamedTuple

from .declaration import Family, families
from .spec import RecordSpec

_TYPES: dict[str, Any] = {
    "str": str,
    "int": int,
    "float": float,
    "strings": typing.Tuple[str, ...],  # noqa: UP006 - ir_datasets' exporter tests for Tuple
}


def _strings(value: Any) -> tuple[str, ...]:
    """A tuple of strings (a string alone as one; null as none; null items dropped)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(item) for item in value if item is not None)


CONVERTERS: dict[str, Callable[[Any], Any]] = {
    "str": lambda value: value if value is None else str(value),
    "int": lambda value: value if value is None else int(value),
    "float": lambda value: value if value is None else float(value),
    "strings": _strings,
}
"""How a column's value becomes a field's, by the field's declared type."""


def _default_text(self: Any) -> str:
    """The text a retriever should use."""
    text: str = self[1]
    return text


@cache
def _declared(name: str, doc: str, fields: tuple[tuple[str, str], ...]) -> type:
    made = NamedTuple(name, [(field, _TYPES[kind]) for field, kind in fields])  # type: ignore[misc]
    record: Any = made
    record.__doc__ = doc
    record.default_text = _default_text
    record.__module__ = __name__
    globals()[name] = record
    return record


def declared_record(spec: RecordSpec) -> type:
    """The namedtuple type ``spec`` declares (one per process)."""
    fields = tuple((name, about.type) for name, about in spec.fields.items())
    return _declared(spec.name, spec.doc, fields)


def record_columns(spec: RecordSpec) -> list[str]:
    """The columns the record's fields are read from, in field order (whole-file fields
    aside)."""
    return [about.column for about in spec.fields.values() if about.column is not None]


def records_of(
    spec: RecordSpec, rows: Mapping[str, Iterable[Any]], files: Mapping[str, Any] | None = None
) -> Iterator[Any]:
    """The records of column-wise ``rows`` (column -> values), one per row, in order; a field
    read from a whole file takes its value from ``files`` (role -> the file's text)."""
    record: Any = declared_record(spec)
    sources = [
        rows[about.column] if about.column is not None else repeat((files or {})[about.file or ""])
        for about in spec.fields.values()
    ]
    convert = [CONVERTERS[about.type] for about in spec.fields.values()]
    for values in zip(*sources):
        yield record._make(to(value) for to, value in zip(convert, values))


def record_types(family: Family) -> dict[str, type]:
    """The record types ``family``'s datasets yield beyond ir_datasets' own, by name: its
    module's (``RECORDS``) and those its declaration declares."""
    found = {spec.name: declared_record(spec) for spec in family.declaration.records.values()}
    if family.declaration.module is not None:
        found |= {record.__name__: record for record in family.module().RECORDS}
    return found


def __getattr__(name: str) -> type:
    """A declared record type by name, made on first use (for pickle in another process)."""
    for found in families():
        for spec in found.declaration.records.values():
            if spec.name == name:
                return declared_record(spec)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
