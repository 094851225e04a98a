"""Fast, memory-light access to parquet files: records, Arrow batches and a random-access store.

- :func:`read_batches` streams a parquet file as Arrow record batches, decoding in a
  background thread so that decompression overlaps the caller's Python work.
- :func:`iter_records` turns those batches into namedtuples column-wise (no per-row dicts).
- :class:`ArrowStore` rewrites a parquet corpus once into an uncompressed Arrow IPC file next
  to it and memory-maps it: random access by id without holding texts in Python memory, and
  iteration with no decoding at all. It does not depend on the parquet row-group layout.
- :class:`ParquetDocs` is the ir_datasets docs component over one hub parquet file, shared by
  BRIGHT and MM-BRIGHT.
"""

from __future__ import annotations

import bisect
import contextlib
import logging
import mmap
import os
import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
from ir_datasets.formats import BaseDocs, GenericDoc
from ir_datasets.indices import Docstore

from .errors import CacheError
from .log import progress

__all__ = [
    "ArrowStore",
    "DocsIter",
    "ParquetDocs",
    "cached_row_count",
    "iter_records",
    "open_parquet",
    "read_batches",
    "read_columns",
    "read_row_range",
    "shard_rows",
]

logger = logging.getLogger(__name__)

BATCH_ROWS = 2048  # measured fastest for both throughput and memory on BRIGHT-like text
READ_BUFFER_BYTES = 1 << 20
PARALLEL_ROW_GROUP_BYTES = 16 << 20  # row groups up to this size are decoded in parallel
_PREFETCH_BATCHES = 4
_DONE = object()


def read_batches(
    path: str | os.PathLike,
    columns: Sequence[str] | None = None,
    batch_size: int = BATCH_ROWS,
) -> Iterator[pa.RecordBatch]:
    """Yield the record batches of a parquet file, in order, with bounded memory.

    Files of small row groups are decoded several row groups at a time on Arrow's thread pool;
    files of large row groups page by page in one background thread, so that peak memory stays
    near one batch whatever the layout (the hub's layout is not ours to choose).
    """
    parquet = open_parquet(path)
    columns = list(columns) if columns else None
    _check_columns(parquet, path, columns or [])
    if _largest_row_group_bytes(parquet) <= PARALLEL_ROW_GROUP_BYTES:
        parquet.close()
        batches = _scan_in_parallel(path, columns, batch_size)
    else:
        batches = _prefetched(
            parquet.iter_batches(batch_size=batch_size, columns=columns), parquet.close
        )
    try:
        yield from batches
    except (pa.ArrowException, OSError) as exc:
        raise CacheError(_unreadable(path, exc)) from exc


def shard_rows(rows: int, shard: int | None, num_shards: int | None) -> tuple[int, int]:
    """Rows ``[start, stop)`` of shard ``shard`` of ``num_shards`` over ``rows`` rows: the
    shards are contiguous, disjoint, cover every row in order and differ by at most one row.
    No shard asked (both None) is every row; anything else invalid raises ``ValueError``."""
    if shard is None and num_shards is None:
        return 0, rows
    if isinstance(shard, bool) or isinstance(num_shards, bool):
        raise ValueError("shard and num_shards are integers, not booleans")
    if not isinstance(shard, int) or not isinstance(num_shards, int) or num_shards < 1:
        raise ValueError(
            f"give both shard and num_shards as integers, num_shards >= 1 (got shard={shard!r},"
            f" num_shards={num_shards!r})"
        )
    if not 0 <= shard < num_shards:
        raise ValueError(f"shard must be in 0..{num_shards - 1}, not {shard}")
    return shard * rows // num_shards, (shard + 1) * rows // num_shards


def read_row_range(
    path: str | os.PathLike,
    columns: Sequence[str],
    start: int,
    stop: int,
    batch_size: int = BATCH_ROWS,
) -> Iterator[pa.RecordBatch]:
    """Rows ``[start, stop)`` of a parquet file as record batches, decoding only the row groups
    that hold them (for data-parallel workers, each reading its own shard)."""
    parquet = open_parquet(path)
    _check_columns(parquet, path, columns)
    meta = parquet.metadata
    groups, first_row, position = [], None, 0
    for index in range(meta.num_row_groups):
        rows = meta.row_group(index).num_rows
        if position < stop and position + rows > start:
            groups.append(index)
            first_row = position if first_row is None else first_row
        position += rows
    if not groups:
        parquet.close()
        return
    position = first_row
    try:
        for batch in parquet.iter_batches(batch_size, row_groups=groups, columns=list(columns)):
            low, high = max(start - position, 0), min(stop - position, batch.num_rows)
            if high > low:
                yield batch.slice(low, high - low)
            position += batch.num_rows
            if position >= stop:
                break
    except (pa.ArrowException, OSError) as exc:
        raise CacheError(_unreadable(path, exc)) from exc
    finally:
        parquet.close()


def open_parquet(path: str | os.PathLike) -> pq.ParquetFile:
    """Open a (cached) parquet file for buffered reading; an unreadable file raises a
    :class:`~ir_bright.errors.CacheError` naming it and the fix."""
    try:
        return pq.ParquetFile(path, buffer_size=READ_BUFFER_BYTES, pre_buffer=False)
    except (pa.ArrowException, OSError) as exc:
        raise CacheError(_unreadable(path, exc)) from exc


def read_columns(path: str | os.PathLike, columns: Sequence[str]) -> dict[str, list]:
    """``{column: its values}`` of a small parquet file (queries, judgements)."""
    parquet = open_parquet(path)
    _check_columns(parquet, path, columns)
    try:
        table = parquet.read(columns=list(columns))
    except (pa.ArrowException, OSError) as exc:
        raise CacheError(_unreadable(path, exc)) from exc
    finally:
        parquet.close()
    return {name: table.column(name).to_pylist() for name in columns}


def _check_columns(parquet: pq.ParquetFile, path, columns: Sequence[str]) -> None:
    present = parquet.schema_arrow.names
    missing = [name for name in columns if name not in present]
    if missing:
        raise CacheError(
            f"{path} has no column {', '.join(missing)} (it has {', '.join(present)}): not the "
            "hub's file? delete it and run again to fetch it anew"
        )


def _unreadable(path, exc: BaseException) -> str:
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return (
        f"cannot read {path} as parquet ({reason}): delete it, then run again (or "
        "`ir-bright download ID`) to fetch it anew"
    )


def _largest_row_group_bytes(parquet: pq.ParquetFile) -> int:
    meta = parquet.metadata
    return max((meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)), default=0)


def _scan_in_parallel(path, columns, batch_size: int) -> Iterator[pa.RecordBatch]:
    import pyarrow.dataset as ds

    options = ds.ParquetFragmentScanOptions(
        use_buffered_stream=True, buffer_size=READ_BUFFER_BYTES, pre_buffer=False
    )
    dataset = ds.dataset(
        str(path), format=ds.ParquetFileFormat(default_fragment_scan_options=options)
    )
    yield from dataset.to_batches(
        columns=columns,
        batch_size=batch_size,
        batch_readahead=_PREFETCH_BATCHES,
        fragment_readahead=1,
    )


def _prefetched(batches: Iterator[pa.RecordBatch], close: Callable[[], None]):
    """Run ``batches`` in a daemon thread (pyarrow releases the GIL while it decodes)."""
    buffer: queue.Queue = queue.Queue(_PREFETCH_BATCHES)
    stop = threading.Event()

    def produce() -> None:
        try:
            for batch in batches:
                while not stop.is_set():
                    try:
                        buffer.put(batch, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            buffer.put(_DONE)
        except BaseException as exc:  # handed to the consumer, raised there
            buffer.put(exc)

    worker = threading.Thread(target=produce, name="ir_bright-parquet", daemon=True)
    worker.start()
    try:
        while True:
            item = buffer.get()
            if item is _DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        worker.join()
        close()


def iter_records(
    batches: Iterable[pa.RecordBatch],
    record_cls: type[NamedTuple],
    columns: Sequence[str],
) -> Iterator[Any]:
    """Build one ``record_cls`` per row from ``columns`` of each batch, column-wise."""
    make = record_cls._make
    for batch in batches:
        values = [batch.column(name).to_pylist() for name in columns]
        yield from map(make, zip(*values))


def cached_row_count(hub_file) -> int | None:
    """The row count of a hub parquet file from its footer if it is cached, else None."""
    path = hub_file.cached_path()
    return open_parquet(path).metadata.num_rows if path is not None else None


class ArrowStore:
    """A parquet corpus rewritten as a memory-mapped Arrow IPC file, for lookups and scans.

    The IPC file (``<parquet>.arrow``) is built on first use, streamed batch by batch (peak
    memory about one batch), written to a temporary name under a lock and renamed into place.
    Texts stay in the memory map; only the id -> row dictionary lives in Python memory.
    """

    def __init__(
        self,
        parquet_path: Callable[[], Path],
        id_column: str,
        columns: Sequence[str],
    ):
        self._parquet_path = parquet_path
        self._id_column = id_column
        self._columns = list(columns)
        self._table: pa.Table | None = None
        self._row_of: dict[str, int] | None = None
        self._chunk_starts: list[int] = []

    @staticmethod
    def path_for(parquet: Path) -> Path:
        """Where the store of ``parquet`` lives."""
        return parquet.with_name(parquet.name + ".arrow")

    def built(self, parquet: Path | None = None) -> bool:
        """Whether the IPC file exists (for ``parquet``, if given)."""
        parquet = parquet or self._parquet_path()
        return self.path_for(parquet).is_file()

    def path(self) -> Path:
        """The IPC file, built first if needed."""
        parquet = self._parquet_path()
        target = self.path_for(parquet)
        if not target.is_file():
            self._build(parquet, target)
        return target

    def table(self) -> pa.Table:
        """The whole corpus as a zero-copy, memory-mapped Arrow table (built on first use).

        The mapping is advised as random access, so a lookup brings in the pages it reads and
        not the kernel's usual read-ahead around them.
        """
        if self._table is None:
            path = self.path()
            with self._readable(path):
                with open(path, "rb") as file:
                    mapping = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
                if hasattr(mapping, "madvise") and hasattr(mmap, "MADV_RANDOM"):
                    mapping.madvise(mmap.MADV_RANDOM)
                with ipc.open_file(pa.BufferReader(pa.py_buffer(mapping))) as reader:
                    self._table = reader.read_all()
            lengths = [len(chunk) for chunk in self._table.column(self._id_column).chunks]
            self._chunk_starts = [0]
            for length in lengths[:-1]:
                self._chunk_starts.append(self._chunk_starts[-1] + length)
        return self._table

    def _build(self, parquet: Path, target: Path) -> None:
        import filelock

        try:
            lock = filelock.FileLock(str(target) + ".lock")
            with lock:
                if target.is_file():
                    return
                logger.info("building the random-access store %s (once)", target)
                partial = target.with_name(target.name + ".part")
                try:
                    schema = open_parquet(parquet).schema_arrow
                    schema = pa.schema([schema.field(name) for name in self._columns])
                    rows = open_parquet(parquet).metadata.num_rows
                    with (
                        ipc.new_file(str(partial), schema) as writer,
                        progress(
                            total=rows, unit="doc", unit_scale=True, desc="store " + parquet.name
                        ) as bar,
                    ):
                        for batch in read_batches(parquet, self._columns):
                            writer.write_batch(batch)
                            bar.update(batch.num_rows)
                    os.replace(partial, target)
                except BaseException:
                    partial.unlink(missing_ok=True)
                    raise
        except OSError as exc:  # permissions, a read-only file system, a full disk
            raise CacheError(
                f"cannot write {target} ({exc.strerror or exc}): set IR_DATASETS_HOME to a "
                "writable folder with room"
            ) from exc

    @contextlib.contextmanager
    def _readable(self, path: Path) -> Iterator[None]:
        """Turn a damaged store file into a one-line error naming it and the fix."""
        try:
            yield
        except (pa.ArrowException, OSError, ValueError) as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise CacheError(
                f"cannot read the store {path} ({reason}): delete it; it is rebuilt from "
                f"{self._parquet_path()} on next use"
            ) from exc

    @property
    def columns(self) -> list[str]:
        """The store's columns, in row order."""
        return list(self._columns)

    def row_of(self) -> dict[str, int]:
        """The id -> row dictionary (built on first use from the id column)."""
        if self._row_of is None:
            ids = self.table().column(self._id_column).to_pylist()
            self._row_of = {doc_id: row for row, doc_id in enumerate(ids)}
        return self._row_of

    def row(self, row: int) -> tuple:
        """The values of ``row`` in the store's column order."""
        table = self.table()
        chunk = bisect.bisect_right(self._chunk_starts, row) - 1
        offset = row - self._chunk_starts[chunk]
        return tuple(table.column(name).chunk(chunk)[offset].as_py() for name in self._columns)

    def batches(
        self, start: int = 0, stop: int | None = None, columns: Sequence[str] | None = None
    ) -> Iterator[pa.RecordBatch]:
        """Rows ``start`` to ``stop`` as record batches, read from the file in order.

        Plain reads, not the memory map: a scan keeps about one batch in memory, instead of
        leaving every page of the corpus mapped into the process.
        """
        path = self.path()
        with self._readable(path), ipc.open_file(pa.OSFile(str(path))) as reader:
            first = 0
            for index in range(reader.num_record_batches):
                if stop is not None and first >= stop:
                    return
                batch = reader.get_batch(index)
                last = first + batch.num_rows
                if last > start:
                    low = max(start - first, 0)
                    high = batch.num_rows if stop is None else min(stop - first, batch.num_rows)
                    batch = batch.slice(low, high - low)
                    yield batch.select(list(columns)) if columns else batch
                first = last

    def __len__(self) -> int:
        return self.table().num_rows


class StoreDocstore(Docstore):
    """ir_datasets' Docstore interface over an :class:`ArrowStore`."""

    def __init__(self, store: ArrowStore, doc_cls: type, to_doc: Callable[[tuple], Any]):
        super().__init__(doc_cls, "doc_id")
        self._store = store
        self._to_doc = to_doc

    def get_many_iter(self, doc_ids: Iterable[str]) -> Iterator[Any]:
        """Yield the docs of the ids that exist, in the order asked; unknown ids are skipped."""
        rows = self._store.row_of()
        for doc_id in doc_ids:
            row = rows.get(doc_id)
            if row is not None:
                yield self._to_doc(self._store.row(row))

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
        self._store = ArrowStore(self.docs_path, self.ID_COLUMN, [self.ID_COLUMN, self.TEXT_COLUMN])

    def docs_path(self, force: bool = True) -> Path:
        """The cached parquet file (downloaded when ``force``)."""
        return self._hub_file.fetch() if force else self._hub_file.shared().local_path

    def docs_iter(self) -> DocsIter:
        """All documents as ``GenericDoc(doc_id, text)``, in corpus order; sliceable."""
        source = None
        if not self._store.built():
            columns = [self.ID_COLUMN, self.TEXT_COLUMN]
            source = iter_records(read_batches(self.docs_path(), columns), GenericDoc, columns)
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
            start, stop = shard_rows(cached_row_count(self._hub_file), shard, num_shards)
            batches = read_row_range(path, columns, start, stop, batch_size)
        else:
            batches = read_batches(self.docs_path(), columns, batch_size)
        for batch in batches:
            yield pa.RecordBatch.from_arrays(batch.columns, names=names)

    def docs_dataframes(
        self, batch_size: int = 65536, shard: int | None = None, num_shards: int | None = None
    ):
        """The corpus as pandas DataFrames of ``batch_size`` rows (columns doc_id, text);
        ``shard`` / ``num_shards`` as for :meth:`docs_arrow`."""
        for batch in self.docs_arrow(batch_size, shard=shard, num_shards=num_shards):
            yield batch.to_pandas()

    def docs_count(self) -> int | None:
        """The number of documents: the cached file's, else the recorded one (no download)."""
        cached = cached_row_count(self._hub_file)
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
