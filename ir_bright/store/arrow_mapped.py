"""The Arrow store memory-mapped for lookups, each value's pages checked before it is read.

Opening maps the file (advised as random access, so a lookup brings in the pages it reads and
not the kernel's read-ahead around them), checks the pages Arrow parses on open (header, each
batch's metadata, footer) and reads the table zero-copy. A lookup then checks the pages of the
validity bit, offsets and bytes of each value it reads (:meth:`MappedTable.row`), a whole-column
read every page of the column's buffers (:meth:`MappedTable.column_values`).
"""

from __future__ import annotations

import bisect
import contextlib
import mmap
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import lazy
from . import derived

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    import pyarrow.ipc as ipc
else:
    pa = lazy.module("pyarrow")
    ipc = lazy.module("pyarrow.ipc")
    np = lazy.module("numpy")


@contextlib.contextmanager
def readable(path: Path) -> Iterator[None]:
    """Turn a damaged store file into a :class:`~ir_bright.store.derived.DamagedError`."""
    try:
        yield
    except (pa.ArrowException, OSError, ValueError) as exc:
        if isinstance(exc, derived.DamagedError):
            raise
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise derived.DamagedError(path, f"unreadable: {reason}") from exc


class MappedTable:
    """The store's table over a read-only memory map, with page-checked reads."""

    def __init__(
        self, path: Path, manifest: dict[str, Any], pages: derived.Pages, columns: Sequence[str]
    ):
        self._pages = pages
        self._columns = list(columns)
        self._layouts: dict[int, list[tuple]] = {}
        with readable(path):
            with open(path, "rb") as file:
                mapping = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
            if hasattr(mapping, "madvise") and hasattr(mmap, "MADV_RANDOM"):
                mapping.madvise(mmap.MADV_RANDOM)
            buffer = pa.py_buffer(mapping)
            pages.mapped = mapping
            _verify_metadata(pages, mapping, manifest)
            with ipc.open_file(pa.BufferReader(buffer)) as reader:
                self.table: pa.Table = reader.read_all()
        self._base = buffer.address
        lengths = [len(chunk) for chunk in self.table.column(self._columns[0]).chunks]
        self._chunk_starts = [0]
        for length in lengths[:-1]:
            self._chunk_starts.append(self._chunk_starts[-1] + length)

    def row(self, row: int) -> tuple:
        """The values of ``row`` in the store's column order (their pages checked first)."""
        chunk = bisect.bisect_right(self._chunk_starts, row) - 1
        offset = row - self._chunk_starts[chunk]
        for column in self._layout(chunk):
            self._verify_value(column, offset)
        return tuple(self.table.column(name).chunk(chunk)[offset].as_py() for name in self._columns)

    def value(self, row: int, column: int) -> Any:
        """The value of one column (by position) of ``row`` (its pages checked first)."""
        chunk = bisect.bisect_right(self._chunk_starts, row) - 1
        offset = row - self._chunk_starts[chunk]
        self._verify_value(self._layout(chunk)[column], offset)
        return self.table.column(self._columns[column]).chunk(chunk)[offset].as_py()

    def column_values(self, name: str) -> list:
        """All values of a column as Python objects (every page of its buffers checked first)."""
        for chunk in self.table.column(name).chunks:
            for buffer in chunk.buffers():
                if buffer is not None and buffer.size:
                    position = buffer.address - self._base
                    self._pages.verify_mapped(position, position + buffer.size)
        return self.table.column(name).to_pylist()

    def _layout(self, chunk: int) -> list[tuple]:
        """Per column of a record batch: where its validity bitmap, offsets and values lie in
        the file, and its offsets as a NumPy view (not read until their pages are checked)."""
        layout = self._layouts.get(chunk)
        if layout is None:
            layout = [self._column_layout(name, chunk) for name in self._columns]
            self._layouts[chunk] = layout
        return layout

    def _column_layout(self, name: str, chunk: int) -> tuple:
        base = self._base
        values = self.table.column(name).chunk(chunk)
        buffers = values.buffers()
        validity = None if buffers[0] is None else buffers[0].address - base
        if len(buffers) < 3:  # fixed width
            width = values.type.bit_width // 8
            return (values.offset, validity, width, buffers[1].address - base)
        kind = values.type
        large = pa.types.is_large_string(kind) or pa.types.is_large_binary(kind)
        offsets, data = buffers[1], buffers[2]
        view = np.frombuffer(offsets, dtype=np.int64 if large else np.int32)
        data_at = data.address - base if data is not None else 0
        data_size = data.size if data is not None else 0
        width = 8 if large else 4
        return (values.offset, validity, width, offsets.address - base, view, data_at, data_size)

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


def _verify_metadata(pages: derived.Pages, data: Any, manifest: dict[str, Any]) -> None:
    """Check the pages Arrow parses when opening: the header, each batch's metadata, the
    footer (bodies are checked when read)."""
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
