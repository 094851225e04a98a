"""MM-BRIGHT's hub files and its query rows, read defensively.

One parquet per config and domain (``<config>/<domain>.parquet``) of ``mm-bright/MM-BRIGHT`` at
the pinned revision (or, for a family at a revision, at its commit: every function takes the
family its datasets were built from); the files are declared in the ``hub`` of the family's
declaration (``ir_bright/families/mm-bright.json``). No md5 sums are published: the hub's
sha256 ETag is checked by :mod:`ir_bright.hub`.

The query configs are read with pyarrow (the ``datasets`` library cannot read
``examples_multimodal``). Every column may be missing or null, ``gold_answers`` may be a string
or a list, and the image annotations may be structs (with ``image_path``) or plain strings:
:func:`query_rows` turns each row into a :class:`QueryRow` of plain Python values.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ... import hub
from ...judgements import is_id
from ...store.schema import IDS, OTHER, QUERY_ID, TEXT, Column, checked_columns
from ..declaration import Family, family
from ..layouts.bright_parquet import config_file
from .keys import normalise_path

DOCUMENTS = "documents"
EXAMPLES = "examples"
MULTIMODAL = "examples_multimodal"
DOC_IMAGES = "document_images"
QUERY_IMAGES = "examples_images"
_ANY = Column(OTHER, nullable=True, optional=True)
QUERY_SPEC = {
    "id": Column(QUERY_ID),
    "query": Column(TEXT, nullable=True, optional=True),
    "gold_ids": Column(IDS, nullable=True, optional=True),
    "negative_ids": Column(IDS, nullable=True, optional=True),
    "image_paths": _ANY,
    "gold_answers": _ANY,
    "positive_images": _ANY,
    "negative_images": _ANY,
}
"""The query configs' columns: the id is required, every other column may be missing or null
(``gold_answers`` a string or a list, image annotations structs or strings)."""


def declaration() -> Family:
    """MM-BRIGHT's declaration, which this package builds."""
    return family("mm-bright")


def file(config: str, domain: str, family_: Family | None = None) -> hub.HubFile:
    """The hub file of ``config`` for ``domain`` as ``family_`` places it (default: the
    declared family)."""
    return config_file(family_ or declaration(), config, domain)


@dataclass(frozen=True)
class QueryRow:
    """One query row, normalised: ids are strings, lists are tuples (never None), sentinels
    and empty entries are dropped from id lists, image annotation paths use slashes."""

    query_id: str
    text: str
    gold_ids: tuple[str, ...]
    negative_ids: tuple[str, ...]
    image_paths: tuple[str, ...]
    gold_answers: tuple[str, ...]
    positive_images: tuple[str, ...]
    negative_images: tuple[str, ...]


@cache
def _cached_rows(path: str, mtime_ns: int) -> tuple[QueryRow, ...]:
    values = checked_columns(Path(path), QUERY_SPEC, list(QUERY_SPEC))
    get = values.__getitem__
    return tuple(
        QueryRow(
            query_id=str(qid),
            text=text if isinstance(text, str) else "",
            gold_ids=_ids(gold),
            negative_ids=_ids(negative),
            image_paths=tuple(p for p in _as_list(paths) if isinstance(p, str) and p),
            gold_answers=tuple(str(a) for a in _as_list(answers) if a is not None),
            positive_images=_annotated_paths(positive),
            negative_images=_annotated_paths(negative_images),
        )
        for qid, text, gold, negative, paths, answers, positive, negative_images in zip(
            get("id"),
            get("query"),
            get("gold_ids"),
            get("negative_ids"),
            get("image_paths"),
            get("gold_answers"),
            get("positive_images"),
            get("negative_images"),
        )
    )


def query_rows(config: str, domain: str, family_: Family | None = None) -> tuple[QueryRow, ...]:
    """The rows of ``examples`` or ``examples_multimodal`` of ``domain`` (fetched if needed)."""
    path = file(config, domain, family_).fetch()
    return _cached_rows(str(path), path.stat().st_mtime_ns)


def _as_list(value) -> list:
    if value is None:
        return []
    if isinstance(value, (str, bytes, dict)):
        return [value]
    return list(value)


def _ids(value) -> tuple[str, ...]:
    return tuple(s for s in (str(v) for v in _as_list(value) if v is not None) if is_id(s))


def _annotated_paths(value) -> tuple[str, ...]:
    """The image paths of ``positive_images`` / ``negative_images`` entries, slashes
    normalised: struct entries give their ``image_path``, string entries are paths."""
    paths = []
    for entry in _as_list(value):
        path = entry.get("image_path") if isinstance(entry, dict) else entry
        if isinstance(path, str) and path:
            paths.append(normalise_path(path))
    return tuple(paths)


def unique(values: Iterable[str]) -> list[str]:
    """``values`` without repeats, first occurrence order."""
    return list(dict.fromkeys(values))
