"""The random-access store: a parquet corpus as a memory-mapped Arrow IPC file.

:class:`ArrowStore` rewrites a parquet corpus once into an uncompressed Arrow IPC file next to
it (:mod:`.arrow_file`) and memory-maps it (:mod:`.arrow_mapped`): random access by id without
holding texts in Python memory, and scans with no decoding at all. It does not depend on the
parquet row-group layout. Ids are found through a hash table file beside it (:mod:`.id_index`),
memory-mapped too: opening a store reads headers, never every id.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator, Sequence
from io import FileIO
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from .. import lazy
from . import derived
from .arrow_file import StoreFile, page_crcs
from .arrow_mapped import MappedTable, readable
from .id_index import IdIndex
from .schema import Spec

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.ipc as ipc
else:
    pa = lazy.module("pyarrow")
    ipc = lazy.module("pyarrow.ipc")

_MAGIC_BYTES = 8  # an Arrow IPC file starts with ARROW1 and two bytes of padding
T = TypeVar("T")


class ArrowStore:
    """A parquet corpus rewritten as a memory-mapped Arrow IPC file, for lookups and scans.

    The IPC file (``<parquet>.arrow``) is built on first use. It is a derived file
    (:mod:`ir_bright.store.derived`): opening it checks its manifest and the pages holding the
    file's metadata (a few ``stat`` calls and kilobytes); a scan checks each batch's CRC-32
    before Arrow reads it, and a lookup the pages holding the offsets and bytes it reads,
    before touching them. A damaged or stale store is rebuilt with one warning line.

    With a ``spec`` (:mod:`.schema`) the parquet is checked before the store is built from
    it, and a repeated id's later rows are left out; :meth:`row_of` maps an id to its first
    row in any case.
    """

    KIND = StoreFile.KIND
    VERSION = StoreFile.VERSION
    path_for = staticmethod(StoreFile.path_for)

    def __init__(
        self,
        parquet_path: Callable[[], Path],
        id_column: str,
        columns: Sequence[str],
        spec: Spec | None = None,
    ):
        self._file = StoreFile(parquet_path, columns, spec, id_column)
        self._id_column = id_column
        self._id_position = list(columns).index(id_column)
        self._reset()

    def _reset(self) -> None:
        self._manifest: dict | None = None
        self._pages: derived.Pages | None = None
        self._id_pages: derived.Pages | None = None
        self._mapped: MappedTable | None = None
        self._index: IdIndex | None = None

    def built(self, parquet: Path | None = None) -> bool:
        """Whether the IPC file and its manifest exist (for ``parquet``, if given)."""
        return self._file.built(parquet)

    def path(self) -> Path:
        """The IPC file, built (or rebuilt, when damaged) first if needed."""
        self._checked()
        return self._file.target()

    @property
    def columns(self) -> list[str]:
        """The store's columns, in row order."""
        return list(self._file.columns)

    def _checked(self) -> tuple[dict, derived.Pages]:
        """The manifest and page checker of an intact store, building it when needed."""
        if self._manifest is None or self._pages is None or self._id_pages is None:
            manifest = self._file.manifest()
            files, target = manifest["files"], self._file.target()
            with readable(target):
                store_crcs, id_crcs = page_crcs(manifest, target)
            self._pages = derived.Pages(target, store_crcs, files["store"]["size"])
            id_path = StoreFile.files(target)["ids"]
            self._id_pages = derived.Pages(id_path, id_crcs, files["ids"]["size"])
            self._manifest = manifest
        return self._manifest, self._pages

    def _repairing(self, action: Callable[[], T]) -> T:
        """Run ``action``; when it finds damage, rebuild the store once and run it again."""
        try:
            return action()
        except derived.DamagedError as exc:
            self._rebuild(exc.problem)
            return action()

    def _rebuild(self, problem: str) -> None:
        self._reset()
        self._file.rebuild(problem)

    def _open(self) -> MappedTable:
        if self._mapped is None:
            manifest, pages = self._checked()
            self._mapped = MappedTable(self._file.target(), manifest, pages, self.columns)
        return self._mapped

    def table(self) -> pa.Table:
        """The whole corpus as a zero-copy, memory-mapped Arrow table (built on first use).

        Values read from it must go through :meth:`row` or :meth:`column_values`, which check
        their pages first.
        """
        return self._repairing(lambda: self._open().table)

    def column_values(self, name: str) -> list:
        """All values of a column as Python objects (its pages checked first)."""
        return self._repairing(lambda: self._open().column_values(name))

    def row_of(self) -> RowOf:
        """The id -> row mapping (``get``, ``[]``, ``in``; the first row of a repeated id)."""
        return RowOf(self)

    def lookup(self, doc_id: str) -> tuple | None:
        """The values of the (first) row whose id is ``doc_id``, in the store's column
        order, or None when no row has it."""
        return self._repairing(lambda: self._lookup(doc_id))

    def _lookup(self, doc_id: str) -> tuple | None:
        table = self._open()
        for row in self._ids().candidates(doc_id):
            values = table.row(row)
            if values[self._id_position] == doc_id:  # a colliding key costs a row read
                return values
        return None

    def _ids(self) -> IdIndex:
        """The id index, memory-mapped (its header and size checked)."""
        if self._index is None:
            manifest, _ = self._checked()
            pages = self._id_pages
            assert pages is not None  # set by _checked
            with readable(pages.path):
                self._index = IdIndex(pages.path, pages, manifest["rows"])
        return self._index

    def row(self, row: int) -> tuple:
        """The values of ``row`` in the store's column order (their pages checked first)."""
        return self._repairing(lambda: self._open().row(row))

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
        manifest, pages = self._checked()
        path = self._file.target()
        schema = None
        with readable(path), open(path, "rb", buffering=0) as file:
            first = 0
            for offset, length, rows, crc in manifest["blocks"]:
                if stop is not None and first >= stop:
                    return
                last = first + rows
                if last > start:
                    if schema is None:
                        schema = _schema(file, manifest, pages)
                    batch = _read_block(file, path, offset, length, crc, schema)
                    low = max(start - first, 0)
                    high = rows if stop is None else min(stop - first, rows)
                    batch = batch.slice(low, high - low)
                    yield batch.select(list(columns)) if columns else batch
                first = last

    def __len__(self) -> int:
        return self._repairing(lambda: self._checked()[0]["rows"])


class RowOf:
    """A store's ids and their rows, looked up in its id index (nothing held in memory)."""

    def __init__(self, store: ArrowStore):
        self._store = store

    def get(self, doc_id: str, default: int | None = None) -> int | None:
        """The (first) row whose id is ``doc_id``, or ``default``."""
        row = self._store._repairing(lambda: self._row(doc_id))
        return default if row is None else row

    def _row(self, doc_id: str) -> int | None:
        store = self._store
        table = store._open()
        for row in store._ids().candidates(doc_id):
            if table.value(row, store._id_position) == doc_id:
                return row
        return None

    def __getitem__(self, doc_id: str) -> int:
        row = self.get(doc_id)
        if row is None:
            raise KeyError(doc_id)
        return row

    def __contains__(self, doc_id: object) -> bool:
        return isinstance(doc_id, str) and self.get(doc_id) is not None


def _read_block(
    file: FileIO, path: Path, offset: int, length: int, crc: int, schema: pa.Schema
) -> pa.RecordBatch:
    """One record batch of the file, its CRC-32 checked before Arrow parses it."""
    data = pa.allocate_buffer(length)  # Arrow's pool reuses freed batches
    file.seek(offset)
    got = file.readinto(memoryview(data).cast("B"))
    if got != length or zlib.crc32(data) != crc:
        raise derived.DamagedError(path, f"batch at byte {offset} is damaged")
    return ipc.read_record_batch(ipc.read_message(data), schema)


def _schema(file: FileIO, manifest: dict[str, Any], pages: derived.Pages) -> pa.Schema:
    """The schema, parsed from the file's header pages once they are verified.

    Parsed from bytes read here, never by handing ``file`` to Arrow: Arrow reads a Python
    file on its I/O threads, which may release the buffers of those reads (Python objects)
    after the caller went on; at interpreter exit such a thread cannot take the GIL and
    the process aborts ("terminate called without an active exception").
    """
    blocks = manifest["blocks"]
    first = blocks[0][0] if blocks else manifest["files"]["store"]["size"]
    _, high = pages.page_span(0, first)
    header = pa.allocate_buffer(high)
    file.seek(0)
    if file.readinto(memoryview(header).cast("B")) != high:
        raise pages.damaged("it is shorter than its manifest says")
    pages.verify(header, 0, first)
    return ipc.read_schema(header.slice(_MAGIC_BYTES, first - _MAGIC_BYTES))
