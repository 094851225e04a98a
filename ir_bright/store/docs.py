"""ir_datasets' docs components over one hub parquet file and its Arrow store.

:class:`ParquetDocs` is the docs component shared by BRIGHT, MM-BRIGHT and BRIGHT-Pro:
``docs_iter()`` (sliceable, :class:`DocsIter`), ``docs_store()`` (:class:`StoreDocstore`),
and whole Arrow batches or DataFrames for indexers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ir_datasets.formats import BaseDocs, GenericDoc
from ir_datasets.indices import Docstore

from .. import lazy
from .arrow import ArrowStore
from .parquet import (
    BATCH_ROWS,
    iter_records,
    open_parquet,
    shard_rows,
)
from .schema import ID, TEXT, Column, cached_unique_rows, checked_batches, checked_row_range

if TYPE_CHECKING:
    import pyarrow as pa
else:
    pa = lazy.module("pyarrow")

DOCS_SPEC = {"id": Column(ID), "content": Column(TEXT)}
"""Every documents file: text ids, never null, no white space; text contents, never null."""


class StoreDocstore(Docstore):
    """ir_datasets' Docstore interface over an :class:`ArrowStore`."""

    def __init__(self, store: ArrowStore, doc_cls: type, to_doc: Callable[[tuple], Any]):
        super().__init__(doc_cls, "doc_id")
        self._store = store
        self._to_doc = to_doc

    def get_many_iter(self, doc_ids: Iterable[str]) -> Iterator[Any]:
        """Yield the docs of the ids that exist, in the order asked; unknown ids are skipped."""
        lookup = self._store.lookup
        for doc_id in doc_ids:
            values = lookup(doc_id)
            if values is not None:
                yield self._to_doc(values)

    def built(self) -> bool:
        """Whether the underlying IPC file exists."""
        return self._store.built()

    def build(self) -> None:
        """Build the store now (otherwise built on first lookup)."""
        self._store.table()

    def count(self) -> int:
        """Number of documents."""
        return len(self._store)

    def __iter__(self) -> Iterator[Any]:
        return iter(DocsIter(self._store, self._to_doc))

    def __len__(self) -> int:
        return len(self._store)


class DocsIter:
    """An iterator over docs that also supports slicing, like ir_datasets' ``docs_iter()[a:b]``."""

    def __init__(self, store: ArrowStore, to_doc: Callable[[tuple], Any], source=None):
        self._store = store
        self._to_doc = to_doc
        self._source = source
        self._iterator: Iterator[Any] | None = None

    def __iter__(self) -> DocsIter:
        return self

    def __next__(self) -> Any:
        if self._iterator is None:
            self._iterator = self._source if self._source is not None else self._scan()
        return next(self._iterator)

    def _scan(self, start: int = 0, stop: int | None = None) -> Iterator[Any]:
        names = self._store.columns
        for batch in self._store.batches(start, stop):
            values = [batch.column(name).to_pylist() for name in names]
            yield from map(self._to_doc, zip(*values))

    def __getitem__(self, key: slice | int) -> Any:
        total = len(self._store)
        if isinstance(key, int):
            index = key + total if key < 0 else key
            if not 0 <= index < total:
                raise IndexError(key)
            return self._to_doc(self._store.row(index))
        start, stop, step = key.indices(total)
        docs = self._scan(start, max(start, stop))
        return docs if step == 1 else (doc for i, doc in enumerate(docs) if i % step == 0)


def _rebatched(batches: Iterable[pa.RecordBatch], size: int) -> Iterator[pa.RecordBatch]:
    """The rows of ``batches`` regrouped into batches of ``size`` rows (the last may be short)."""
    pending: list[pa.RecordBatch] = []
    rows = 0
    for batch in batches:
        pending.append(batch)
        rows += batch.num_rows
        while rows >= size:
            table = pa.Table.from_batches(pending)
            yield from table.slice(0, size).combine_chunks().to_batches()
            pending = table.slice(size).to_batches()
            rows -= size
    if rows:
        yield from pa.Table.from_batches(pending).combine_chunks().to_batches()


class ParquetDocs(BaseDocs):
    """Docs of one hub parquet file (columns ``id``, ``content``) as ir_datasets docs.

    ``docs_iter()`` streams the parquet (or the memory-mapped store once it is built, like
    ir_datasets' own docs_iter); ``docs_store()`` answers random lookups from the store;
    ``docs_arrow()`` and ``docs_dataframes()`` give indexers whole batches, not Python objects.
    """

    ID_COLUMN = "id"
    TEXT_COLUMN = "content"

    def __init__(self, hub_file, namespace: str, count: int | None = None, lang: str = "en"):
        self._hub_file = hub_file
        self._namespace = namespace
        self._count = count
        self._lang = lang
        columns = [self.ID_COLUMN, self.TEXT_COLUMN]
        self._store = ArrowStore(self.docs_path, self.ID_COLUMN, columns, spec=DOCS_SPEC)

    def docs_hub_files(self) -> list[Any]:
        """The hub files the documents are read from (for their provenance)."""
        return [self._hub_file]

    def docs_path(self, force: bool = True) -> Path:
        """The cached parquet file (downloaded when ``force``)."""
        return self._hub_file.fetch() if force else self._hub_file.shared().local_path

    def docs_iter(self) -> DocsIter:
        """All documents as ``GenericDoc(doc_id, text)``, in corpus order; sliceable."""
        source = None
        if not self._store.built():
            columns = [self.ID_COLUMN, self.TEXT_COLUMN]
            batches = checked_batches(self.docs_path(), DOCS_SPEC, columns)
            source = iter_records(batches, GenericDoc, columns)
        return DocsIter(self._store, GenericDoc._make, source)

    def docs_store(self, field: str = "doc_id") -> StoreDocstore:
        """Random access by doc id; built on first lookup, then memory-mapped."""
        return StoreDocstore(self._store, GenericDoc, GenericDoc._make)

    def docs_arrow(
        self,
        batch_size: int = BATCH_ROWS,
        shard: int | None = None,
        num_shards: int | None = None,
    ) -> Iterator[pa.RecordBatch]:
        """The corpus as Arrow record batches with columns ``doc_id`` and ``text``.

        ``shard=i, num_shards=n`` gives worker ``i`` of ``n`` its contiguous share of the
        rows (the shards are disjoint and cover the corpus in order), reading only the row
        groups (or, once the store is built, the memory-mapped pages) that hold it.
        """
        names = ["doc_id", "text"]
        columns = [self.ID_COLUMN, self.TEXT_COLUMN]
        sharded = shard is not None or num_shards is not None
        if self._store.built():
            if sharded:
                start, stop = shard_rows(len(self._store), shard, num_shards)
                part = self._store.table().slice(start, stop - start)
                batches = _rebatched(part.to_batches(max_chunksize=batch_size), batch_size)
            else:
                batches = _rebatched(self._store.batches(), batch_size)
        elif sharded:
            path = self.docs_path()
            start, stop = shard_rows(open_parquet(path).metadata.num_rows, shard, num_shards)
            batches = checked_row_range(path, DOCS_SPEC, columns, start, stop, batch_size)
        else:
            batches = checked_batches(self.docs_path(), DOCS_SPEC, columns, batch_size)
        for batch in batches:
            yield pa.RecordBatch.from_arrays(batch.columns, names=names)

    def docs_rows_arrow(self, batch_size: int = BATCH_ROWS) -> Iterator[pa.RecordBatch]:
        """Every row of the documents file as Arrow batches (``doc_id``, ``text``), a repeated
        id's later rows included: what the benchmarks' BM25 code indexes (every row counts in
        the collection statistics), where ``docs_arrow`` keeps each id's first row only."""
        columns = [self.ID_COLUMN, self.TEXT_COLUMN]
        path = self.docs_path()
        for batch in checked_batches(path, DOCS_SPEC, columns, batch_size, repeats=True):
            yield pa.RecordBatch.from_arrays(batch.columns, names=["doc_id", "text"])

    def docs_dataframes(
        self, batch_size: int = 65536, shard: int | None = None, num_shards: int | None = None
    ):
        """The corpus as pandas DataFrames of ``batch_size`` rows (columns doc_id, text);
        ``shard`` / ``num_shards`` as for :meth:`docs_arrow`."""
        for batch in self.docs_arrow(batch_size, shard=shard, num_shards=num_shards):
            yield batch.to_pandas()

    def docs_count(self) -> int | None:
        """The number of documents: the cached file's, else the recorded one (no download)."""
        cached = cached_unique_rows(self._hub_file, DOCS_SPEC)
        return cached if cached is not None else self._count

    def docs_cls(self) -> type:
        """The record type, ``GenericDoc``."""
        return GenericDoc

    def docs_namespace(self) -> str:
        """Docs of datasets with the same namespace are the same documents."""
        return self._namespace

    def docs_lang(self) -> str:
        """The documents' language."""
        return self._lang
