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

import base64
import bisect
import contextlib
import logging
import mmap
import os
import queue
import threading
import zlib
from array import array as typed_array
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ir_datasets.formats import BaseDocs, GenericDoc
from ir_datasets.indices import Docstore

from ..errors import CacheError
from ..log import progress
from . import derived

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

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
_MAGIC_BYTES = 8  # an Arrow IPC file starts with ARROW1 and two bytes of padding


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
    import pyarrow as pa

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
    import pyarrow as pa

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
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(path, buffer_size=READ_BUFFER_BYTES, pre_buffer=False)
    except (pa.ArrowException, OSError) as exc:
        raise CacheError(_unreadable(path, exc)) from exc


def read_columns(path: str | os.PathLike, columns: Sequence[str]) -> dict[str, list]:
    """``{column: its values}`` of a small parquet file (queries, judgements)."""
    import pyarrow as pa

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

    It is a derived file (:mod:`ir_bright.derived`): its manifest records the parquet it was
    built from, its size, a CRC-32 per record batch and per 4 KiB page. Opening it checks the
    manifest and the pages holding the file's metadata (a few ``stat`` calls and kilobytes);
    a scan checks each batch's CRC-32 before Arrow reads it, and a lookup the pages holding the
    offsets and bytes it reads, before touching them. A damaged or stale store is rebuilt with
    one warning line.
    """

    KIND = "ir_bright.arrow-store"
    VERSION = 2

    def __init__(
        self,
        parquet_path: Callable[[], Path],
        id_column: str,
        columns: Sequence[str],
    ):
        self._parquet_path = parquet_path
        self._id_column = id_column
        self._columns = list(columns)
        self._reset()

    def _reset(self) -> None:
        self._table: pa.Table | None = None
        self._row_of: dict[str, int] | None = None
        self._chunk_starts: list[int] = []
        self._manifest: dict | None = None
        self._pages: derived.Pages | None = None
        self._base = 0
        self._layouts: dict[int, list[tuple]] = {}

    @staticmethod
    def path_for(parquet: Path) -> Path:
        """Where the store of ``parquet`` lives."""
        return parquet.with_name(parquet.name + ".arrow")

    def built(self, parquet: Path | None = None) -> bool:
        """Whether the IPC file and its manifest exist (for ``parquet``, if given)."""
        target = self.path_for(parquet or self._parquet_path())
        return target.is_file() and derived.manifest_path(target).is_file()

    def path(self) -> Path:
        """The IPC file, built (or rebuilt, when damaged) first if needed."""
        self._checked()
        return self.path_for(self._parquet_path())

    def _checked(self) -> dict:
        """The manifest of an intact store, building or rebuilding the store when needed."""
        if self._manifest is not None:
            return self._manifest
        parquet = self._parquet_path()
        target = self.path_for(parquet)
        manifest, problem = self._check(parquet, target)
        if manifest is None:
            manifest = self._build(parquet, target, problem)
        self._manifest = manifest
        self._pages = derived.Pages(
            target, _page_crcs(manifest), manifest["files"]["store"]["size"]
        )
        return manifest

    def _check(self, parquet: Path, target: Path) -> tuple[dict | None, str | None]:
        if not target.exists() and not os.path.islink(target):
            return None, None
        manifest, problem = derived.check(
            target, self.KIND, self.VERSION, parquet, {"store": target}, whole=False
        )
        if manifest is not None and manifest.get("columns") != self._columns:
            return None, "built for other columns"
        if manifest is not None and not _well_formed(manifest):
            return None, "its manifest is malformed"
        return manifest, problem

    def _build(self, parquet: Path, target: Path, problem: str | None) -> dict:
        try:
            with derived.file_lock(target):
                manifest, found = self._check(parquet, target)
                if manifest is not None:
                    return manifest
                # what the caller saw first: after _rebuild discarded the manifest, the
                # re-check here can only say that there is none
                problem = problem or found
                if problem is not None:
                    derived.rebuild_warning(target, problem)
                else:
                    logger.info("building the random-access store %s (once)", target)
                return self._write(parquet, target)
        except OSError as exc:  # permissions, a read-only file system, a full disk
            raise CacheError(
                f"cannot write {target} ({exc.strerror or exc}): set IR_DATASETS_HOME to a "
                "writable folder with room"
            ) from exc

    def _write(self, parquet: Path, target: Path) -> dict:
        import pyarrow as pa
        import pyarrow.ipc as ipc

        partial = target.with_name(target.name + ".part")
        try:
            schema = open_parquet(parquet).schema_arrow
            schema = pa.schema([schema.field(name) for name in self._columns])
            blocks, rows = [], 0
            total = open_parquet(parquet).metadata.num_rows
            with (
                derived.create_exclusive(partial) as out,
                ipc.new_file(out, schema) as writer,
                progress(
                    total=total, unit="doc", unit_scale=True, desc="store " + parquet.name
                ) as bar,
            ):
                for batch in read_batches(parquet, self._columns):
                    start = out.tell()
                    writer.write_batch(batch)
                    blocks.append([start, out.tell() - start, batch.num_rows])
                    rows += batch.num_rows
                    bar.update(batch.num_rows)
            with open(partial, "rb") as data:
                if blocks:  # the first range also holds the magic and the schema, written lazily
                    header = data.read(16)
                    schema_end = 16 + int.from_bytes(header[12:16], "little")
                    blocks[0] = [schema_end, blocks[0][0] + blocks[0][1] - schema_end, blocks[0][2]]
                for block in blocks:
                    data.seek(block[0])
                    block.append(zlib.crc32(data.read(block[1])))
            pages = derived.page_crcs(partial)
            derived.manifest_path(target).unlink(missing_ok=True)
            os.replace(partial, target)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        extra = {
            "columns": self._columns,
            "rows": rows,
            "blocks": blocks,
            "pages": base64.b64encode(typed_array("I", pages).tobytes()).decode(),
        }
        return derived.write_manifest(
            target, self.KIND, self.VERSION, parquet, {"store": target}, extra, crc=False
        )

    def _repairing(self, action: Callable[[], Any]) -> Any:
        """Run ``action``; when it finds damage, rebuild the store once and run it again."""
        try:
            return action()
        except derived.DamagedError as exc:
            self._rebuild(exc.problem)
            return action()

    def _rebuild(self, problem: str) -> None:
        """Discard the store's manifest (so every process sees it as damaged) and rebuild."""
        parquet = self._parquet_path()
        target = self.path_for(parquet)
        self._reset()
        with derived.file_lock(target):
            derived.manifest_path(target).unlink(missing_ok=True)
        self._build(parquet, target, problem)

    def table(self) -> pa.Table:
        """The whole corpus as a zero-copy, memory-mapped Arrow table (built on first use).

        The mapping is advised as random access, so a lookup brings in the pages it reads and
        not the kernel's usual read-ahead around them. Values read from it must go through
        :meth:`row` or :meth:`column_values`, which check their pages first.
        """
        return self._repairing(self._open)

    def _open(self) -> pa.Table:
        import pyarrow as pa
        import pyarrow.ipc as ipc

        if self._table is None:
            manifest = self._checked()
            path = self.path_for(self._parquet_path())
            with self._readable(path):
                with open(path, "rb") as file:
                    mapping = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
                if hasattr(mapping, "madvise") and hasattr(mmap, "MADV_RANDOM"):
                    mapping.madvise(mmap.MADV_RANDOM)
                buffer = pa.py_buffer(mapping)
                self._pages.mapped = mapping
                self._verify_metadata(mapping, manifest)
                with ipc.open_file(pa.BufferReader(buffer)) as reader:
                    table = reader.read_all()
            self._base = buffer.address
            lengths = [len(chunk) for chunk in table.column(self._id_column).chunks]
            self._chunk_starts = [0]
            for length in lengths[:-1]:
                self._chunk_starts.append(self._chunk_starts[-1] + length)
            self._table = table
        return self._table

    def _verify_metadata(self, data, manifest: dict) -> None:
        """Check the pages Arrow parses when opening: the header, each batch's metadata, the
        footer (bodies are checked when read)."""
        pages = self._pages
        blocks = manifest["blocks"]
        size = manifest["files"]["store"]["size"]
        first = blocks[0][0] if blocks else size
        last = blocks[-1][0] + blocks[-1][1] if blocks else size
        pages.verify(data, 0, first)
        pages.verify(data, last, size)
        for offset, length, *_ in blocks:
            pages.verify(data, offset, offset + 8)
            meta = int.from_bytes(data[offset + 4 : offset + 8], "little")
            if not 0 <= meta <= length:
                raise pages.damaged(f"batch metadata at {offset} is out of bounds")
            pages.verify(data, offset, offset + 8 + meta)

    def _layout(self, chunk: int) -> list[tuple]:
        """Per column of a record batch: where its validity bitmap, offsets and values lie in
        the file, and its offsets as a NumPy view (not read until their pages are checked)."""
        import numpy as np
        import pyarrow as pa

        layout = self._layouts.get(chunk)
        if layout is None:
            layout, base = [], self._base
            for name in self._columns:
                values = self._open().column(name).chunk(chunk)
                buffers = values.buffers()
                validity = None if buffers[0] is None else buffers[0].address - base
                if len(buffers) < 3:  # fixed width
                    width = values.type.bit_width // 8
                    layout.append((values.offset, validity, width, buffers[1].address - base))
                    continue
                kind = values.type
                large = pa.types.is_large_string(kind) or pa.types.is_large_binary(kind)
                offsets, data = buffers[1], buffers[2]
                view = np.frombuffer(offsets, dtype=np.int64 if large else np.int32)
                data_at = data.address - base if data is not None else 0
                data_size = data.size if data is not None else 0
                layout.append(
                    (
                        values.offset,
                        validity,
                        8 if large else 4,
                        offsets.address - base,
                        view,
                        data_at,
                        data_size,
                    )
                )
            self._layouts[chunk] = layout
        return layout

    def _verify_value(self, column: tuple, index: int) -> None:
        """Check the pages holding one value (validity bit, offsets, bytes) of a column laid
        out as :meth:`_layout` says, before anything reads them."""
        verify = self._pages.verify_mapped
        at = column[0] + index
        if column[1] is not None:
            verify(column[1] + at // 8, column[1] + at // 8 + 1)
        width, position = column[2], column[3] + at * column[2]
        if len(column) == 4:
            verify(position, position + width)
            return
        verify(position, position + 2 * width)
        low, high = int(column[4][at]), int(column[4][at + 1])
        if not 0 <= low <= high <= column[6]:
            raise self._pages.damaged("an offset points outside its values")
        if high > low:
            verify(column[5] + low, column[5] + high)

    def _verify_column(self, name: str) -> None:
        """Check every page holding a column's buffers."""
        for chunk in self._open().column(name).chunks:
            for buffer in chunk.buffers():
                if buffer is not None and buffer.size:
                    position = buffer.address - self._base
                    self._pages.verify_mapped(position, position + buffer.size)

    def column_values(self, name: str) -> list:
        """All values of a column as Python objects (its pages checked first)."""

        def read() -> list:
            self._verify_column(name)
            return self._open().column(name).to_pylist()

        return self._repairing(read)

    @contextlib.contextmanager
    def _readable(self, path: Path) -> Iterator[None]:
        """Turn a damaged store file into a one-line error naming it and the fix."""
        import pyarrow as pa

        try:
            yield
        except (pa.ArrowException, OSError, ValueError) as exc:
            if isinstance(exc, derived.DamagedError):
                raise
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise derived.DamagedError(path, f"unreadable: {reason}") from exc

    @property
    def columns(self) -> list[str]:
        """The store's columns, in row order."""
        return list(self._columns)

    def row_of(self) -> dict[str, int]:
        """The id -> row dictionary (built on first use from the id column)."""
        if self._row_of is None:
            ids = self.column_values(self._id_column)
            self._row_of = {doc_id: row for row, doc_id in enumerate(ids)}
        return self._row_of

    def row(self, row: int) -> tuple:
        """The values of ``row`` in the store's column order (their pages checked first)."""

        def read() -> tuple:
            table = self._open()
            chunk = bisect.bisect_right(self._chunk_starts, row) - 1
            offset = row - self._chunk_starts[chunk]
            for column in self._layout(chunk):
                self._verify_value(column, offset)
            return tuple(table.column(name).chunk(chunk)[offset].as_py() for name in self._columns)

        return self._repairing(read)

    def batches(
        self, start: int = 0, stop: int | None = None, columns: Sequence[str] | None = None
    ) -> Iterator[pa.RecordBatch]:
        """Rows ``start`` to ``stop`` as record batches, read from the file in order.

        Plain reads, not the memory map: a scan keeps about one batch in memory, instead of
        leaving every page of the corpus mapped into the process. Each batch's CRC-32 is
        checked before Arrow reads it; damage found midway rebuilds the store and the scan
        goes on from the same row.
        """
        position = start
        for attempt in range(2):  # one rebuild; damage found again is raised
            try:
                for batch in self._scan(position, stop, columns):
                    position += batch.num_rows
                    yield batch
                return
            except derived.DamagedError as exc:
                if attempt:
                    raise
                self._rebuild(exc.problem)

    def _scan(self, start: int, stop: int | None, columns) -> Iterator[pa.RecordBatch]:
        import pyarrow as pa
        import pyarrow.ipc as ipc

        manifest = self._checked()
        path = self.path_for(self._parquet_path())
        schema = None
        with self._readable(path), open(path, "rb", buffering=0) as file:
            first = 0
            for offset, length, rows, crc in manifest["blocks"]:
                if stop is not None and first >= stop:
                    return
                last = first + rows
                if last > start:
                    if schema is None:
                        schema = self._schema(file, manifest)
                    data = pa.allocate_buffer(length)  # Arrow's pool reuses freed batches
                    file.seek(offset)
                    got = file.readinto(memoryview(data).cast("B"))
                    if got != length or zlib.crc32(data) != crc:
                        raise derived.DamagedError(path, f"batch at byte {offset} is damaged")
                    message = ipc.read_message(data)
                    batch = ipc.read_record_batch(message, schema)
                    low = max(start - first, 0)
                    high = rows if stop is None else min(stop - first, rows)
                    batch = batch.slice(low, high - low)
                    yield batch.select(list(columns)) if columns else batch
                first = last

    def _schema(self, file, manifest: dict) -> pa.Schema:
        """The schema, parsed from the file's header pages once they are verified.

        Parsed from bytes read here, never by handing ``file`` to Arrow: Arrow reads a Python
        file on its I/O threads, which may release the buffers of those reads (Python objects)
        after the caller went on; at interpreter exit such a thread cannot take the GIL and
        the process aborts ("terminate called without an active exception").
        """
        import pyarrow as pa
        import pyarrow.ipc as ipc

        blocks = manifest["blocks"]
        first = blocks[0][0] if blocks else manifest["files"]["store"]["size"]
        _, high = self._pages.page_span(0, first)
        header = pa.allocate_buffer(high)
        file.seek(0)
        if file.readinto(memoryview(header).cast("B")) != high:
            raise self._pages.damaged("it is shorter than its manifest says")
        self._pages.verify(header, 0, first)
        return ipc.read_schema(header.slice(_MAGIC_BYTES, first - _MAGIC_BYTES))

    def __len__(self) -> int:
        return self._repairing(lambda: self._checked()["rows"])


def _well_formed(manifest: dict) -> bool:
    """Whether a store manifest has the shape :meth:`ArrowStore._write` gives it."""
    blocks, size = manifest.get("blocks"), manifest["files"]["store"].get("size")
    if not isinstance(blocks, list) or not isinstance(manifest.get("rows"), int):
        return False
    if not all(
        isinstance(b, list) and len(b) == 4 and all(isinstance(v, int) and v >= 0 for v in b)
        for b in blocks
    ):
        return False
    if any(offset + length > size for offset, length, _, _ in blocks):
        return False
    return sum(b[2] for b in blocks) == manifest["rows"] and bool(_page_crcs(manifest) or not size)


def _page_crcs(manifest: dict) -> list[int]:
    try:
        return typed_array("I", base64.b64decode(manifest["pages"])).tolist()
    except (KeyError, TypeError, ValueError):
        return []


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
    import pyarrow as pa

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
        import pyarrow as pa

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
