"""MTEB's parquet layout: the configs ``corpus`` (``_id``, ``title``, ``text``), ``queries``
(``_id``, ``text``) and ``qrels`` (``query-id``, ``corpus-id``, ``score``), one file per config
and split, ``<config>/<split>-00000-of-00001.parquet`` (``top_ranked``, the candidates of a
reranking task, is not read).

Read as MTEB's loader reads them (rows into dicts keyed by id): the documents
``GenericDoc(doc_id, text)`` (``title`` not read), a repeated id keeping its last row; the
queries ``GenericQuery``; each (query, document) pair's last ``score`` its relevance.
``hub.paths`` and ``columns`` name the files and fields of a family that differs;
:mod:`.rows` makes the datasets.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ir_datasets.datasets.base import Dataset

from ...store.schema import OTHER, Column, checked_batches
from ..declaration import Family
from .rows import build

READS_REVISIONS = True
"""Its datasets read every hub file from the family they are built from, so a family at a
revision (:meth:`~ir_bright.families.Family.at`) reads that revision."""

PATH = "{config}/{split}-00000-of-00001.parquet"


class Parquet:
    """How MTEB's files are read: parquet columns by name, checked as
    :mod:`ir_bright.store.schema` checks every parquet file."""

    paths: Mapping[str, str] = {"corpus": PATH, "queries": PATH, "qrels": PATH}
    columns: Mapping[str, Mapping[str, str]] = {
        "corpus": {"doc_id": "_id", "text": "text"},
        "queries": {"query_id": "_id", "text": "text"},
        "qrels": {"query_id": "query-id", "doc_id": "corpus-id", "relevance": "score"},
    }

    def rows(self, path: Path, columns: list[str]) -> Iterator[list[Any]]:
        """The values of ``columns`` in each row of the parquet file at ``path``."""
        spec = {column: Column(OTHER, nullable=True) for column in columns}
        for batch in checked_batches(path, spec, columns):
            yield from (list(row) for row in zip(*(c.to_pylist() for c in batch.columns)))


READER = Parquet()
"""The layout's reader."""


def datasets(family: Family) -> dict[str, Dataset]:
    """Every id of a family in this layout -> its Dataset, built from its declaration."""
    return build(family, READER)
