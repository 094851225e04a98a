"""The record types ir_bright's datasets yield (namedtuples, as everywhere in ir_datasets), by
name: ``from ir_bright.records import BrightQuery`` works for every family's record types,
which live with their family (``ir_bright/families/<family>/records.py``, or its declaration's
``records`` for a family without a module). :func:`record_types` lists them all.

Docs of text corpora are ir_datasets' own ``GenericDoc(doc_id, text)``; qrels are
``TrecQrel(query_id, doc_id, relevance, iteration)`` unless a family says otherwise.

The annotations are ir_datasets' contract, not only hints: its exporter (``python -m
ir_datasets export``), its documentation and its tests read ``__annotations__`` as runtime
types, exporting a field only when the type *is* ``str``, ``int`` or ``float`` or a
``typing.Tuple[X, ...]`` of one. So the modules defining them do not use ``from __future__
import annotations``, a field that may be None is declared by the type of its value (as the
core's ``BrightQuery`` does), and tuples are spelled ``Tuple[str, ...]`` (the builtin spelling
is skipped by the exporter).
"""

from __future__ import annotations

from functools import cache

__all__ = ["record_types"]


@cache
def record_types() -> dict[str, type]:
    """Every family's record types by name, in the families' order (imports their modules)."""
    from .families import families
    from .families.records import record_types as of_family

    return {name: kind for family in families() for name, kind in of_family(family).items()}


def __getattr__(name: str) -> type:
    """A family's record type by name (``BrightQuery``, ``TempoQuery``, ...)."""
    found = record_types().get(name)
    if found is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return found


def __dir__() -> list[str]:
    return sorted([*globals(), *record_types()])
