"""BEIR's JSON Lines layout: ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/<split>.tsv``.

Per domain (one hub repository per domain where ``hub.repo`` has ``{domain}``):

- ``corpus``: one JSON object a line, ``_id`` and ``text`` (``title`` is not read), read as
  ``GenericDoc(doc_id, text)``; a repeated id keeps its last row, as BEIR's loader does;
- ``queries``: ``_id`` and ``text``, read as ``GenericQuery``; a repeated id keeps its last row;
- ``qrels``: a TSV file whose first line is a header (BEIR's loader skips it), then
  ``query-id``, ``corpus-id`` and ``score`` a line; or JSON Lines with those fields. A
  repeated pair keeps its last score.

A family whose files are named otherwise says so in its declaration: ``hub.paths`` (role ->
path template) and ``columns`` (role -> field -> its column), as R2MED's ``query.jsonl`` with
``id`` and ``qrels.jsonl`` with ``q_id``, ``p_id``, ``score``. :mod:`.rows` makes the datasets.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ir_datasets.datasets.base import Dataset

from ...errors import CacheError
from ...reading import open_regular
from ...store.json_rows import field, json_rows
from ..declaration import Family
from .rows import build

READS_REVISIONS = True
"""Its datasets read every hub file from the family they are built from, so a family at a
revision (:meth:`~ir_bright.families.Family.at`) reads that revision."""


class JsonLines:
    """How BEIR's files are read: JSON Lines (or a JSON array) by field name, and TSV qrels
    by position after their header."""

    paths: Mapping[str, str] = {
        "corpus": "corpus.jsonl",
        "queries": "queries.jsonl",
        "qrels": "qrels/{split}.tsv",
    }
    columns: Mapping[str, Mapping[str, str]] = {
        "corpus": {"doc_id": "_id", "text": "text"},
        "queries": {"query_id": "_id", "text": "text"},
        "qrels": {"query_id": "query-id", "doc_id": "corpus-id", "relevance": "score"},
    }

    def rows(self, path: Path, columns: list[str]) -> Iterator[list[Any]]:
        """The values of ``columns`` in each row of ``path``; a missing field is a one-line
        error naming the file."""
        if path.suffix in (".tsv", ".txt"):
            yield from _tsv_rows(path, len(columns))
            return
        for row in json_rows(path):
            yield [field(row, column, path) for column in columns]


def _tsv_rows(path: Path, width: int) -> Iterator[list[Any]]:
    """The first ``width`` tab-separated values of each line after the header, as BEIR's
    loader reads its qrels."""
    with open_regular(path) as file:
        for number, raw in enumerate(file, 1):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if number == 1 or not line.strip():
                continue
            values = line.split("\t")
            if len(values) < width:
                raise CacheError(
                    f"{path}, line {number}: fewer than {width} tab-separated values: not the "
                    "hub's file? delete it and run again to fetch it anew"
                )
            yield values[:width]


READER = JsonLines()
"""The layout's reader."""


def datasets(family: Family) -> dict[str, Dataset]:
    """Every id of a family in this layout -> its Dataset, built from its declaration."""
    return build(family, READER)
