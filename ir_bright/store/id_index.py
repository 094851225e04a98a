"""The Arrow store's id index: a hash table file beside the store, memory-mapped, so that
opening a store reads a header and not every id.

The file (``<store>.ids``) holds a 32-byte header (magic, format version, number of ids, bucket
bits), then three little-endian uint32 arrays: ``starts`` (one per bucket, plus one), the ids'
CRC-32 sorted (``keys``) and each one's row (``rows``, in row order among equal keys). An id's
bucket is the top bits of its CRC-32; a lookup reads two entries of ``starts``, scans the few
keys of its bucket and hands the rows whose key matches to the store, which compares the id
stored in the row: a colliding key costs one more row read, never a wrong answer. Each page of
the file has a CRC-32 in the store's manifest, checked the first time a lookup touches it
(:class:`~ir_bright.store.derived.Pages`), so a damaged index is found and the store rebuilt,
never read as data.
"""

from __future__ import annotations

import mmap
import struct
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import lazy
from . import derived

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy.module("numpy")

MAGIC = b"IRBIDX\0\0"
VERSION = 1
_HEADER = struct.Struct("<8sIIQQ")  # magic, version, bucket bits, ids, reserved
HEADER_BYTES = _HEADER.size
IDS_PER_BUCKET = 4  # on average: a lookup scans a few keys


def path_for(store: Path) -> Path:
    """Where the id index of the store file ``store`` lives."""
    return store.with_name(store.name + ".ids")


def key_of(doc_id: str) -> int:
    """The key an id is filed under: the CRC-32 of its UTF-8 bytes."""
    return zlib.crc32(doc_id.encode("utf-8", "surrogatepass"))


class KeyCollector:
    """The keys of a store's ids, gathered batch by batch as the store is written (4 bytes
    an id: the store's id column is never read again)."""

    def __init__(self) -> None:
        self._parts: list[Any] = []

    def add(self, ids: Iterable[str | None]) -> None:
        """File the ids of the next rows (a null id gets a key no lookup matches by value)."""
        keys = [key_of(doc_id) if doc_id is not None else 0 for doc_id in ids]
        self._parts.append(np.array(keys, dtype="<u4"))

    def write(self, path: Path) -> None:
        """Write the index file of the ids added, in row order."""
        keys = np.concatenate(self._parts) if self._parts else np.zeros(0, dtype="<u4")
        if len(keys) >= 1 << 32:
            raise ValueError(f"{len(keys):,} ids: more than the id index can file")
        bits = max(0, (max(len(keys) // IDS_PER_BUCKET, 1) - 1).bit_length())
        order = np.argsort(keys, kind="stable")  # equal keys keep their row order
        sorted_keys = keys[order]
        buckets = sorted_keys.astype(np.uint64) >> np.uint64(32 - bits)
        starts = np.searchsorted(buckets, np.arange((1 << bits) + 1, dtype=np.uint64))
        with derived.replaced_atomically(path) as out:
            out.write(_HEADER.pack(MAGIC, VERSION, bits, len(keys), 0))
            out.write(starts.astype("<u4").tobytes())
            out.write(sorted_keys.tobytes())
            out.write(order.astype("<u4").tobytes())


class IdIndex:
    """A store's id index, memory-mapped; every page checked before it is read."""

    def __init__(self, path: Path, pages: derived.Pages, rows: int):
        self._pages = pages
        with open(path, "rb") as file:
            size = file.seek(0, 2)
            if size < HEADER_BYTES:
                raise pages.damaged("it is shorter than its header")
            mapping = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        if hasattr(mapping, "madvise") and hasattr(mmap, "MADV_RANDOM"):
            mapping.madvise(mmap.MADV_RANDOM)
        pages.mapped = mapping
        pages.verify_mapped(0, HEADER_BYTES)
        magic, version, bits, count, _ = _HEADER.unpack_from(mapping, 0)
        buckets = (1 << bits) + 1 if bits < 32 else 0
        if magic != MAGIC or version != VERSION or count != rows or not buckets:
            raise pages.damaged("its header is not an id index of this store")
        if size != HEADER_BYTES + 4 * (buckets + 2 * count):
            raise pages.damaged(f"it has {size} bytes, its header says otherwise")
        self._shift = 32 - bits
        self._count = count
        self._starts_at = HEADER_BYTES
        self._keys_at = self._starts_at + 4 * buckets
        self._rows_at = self._keys_at + 4 * count
        self._starts = np.frombuffer(mapping, "<u4", buckets, self._starts_at)
        self._keys = np.frombuffer(mapping, "<u4", count, self._keys_at)
        self._rows = np.frombuffer(mapping, "<u4", count, self._rows_at)

    def candidates(self, doc_id: str) -> Iterator[int]:
        """The rows whose id may be ``doc_id`` (its key matches), first row first."""
        key = key_of(doc_id)
        bucket = key >> self._shift
        verify = self._pages.verify_mapped
        verify(self._starts_at + 4 * bucket, self._starts_at + 4 * bucket + 8)
        low, high = int(self._starts[bucket]), int(self._starts[bucket + 1])
        if not 0 <= low <= high <= self._count:
            raise self._pages.damaged(f"bucket {bucket} points outside the index")
        if low == high:
            return
        verify(self._keys_at + 4 * low, self._keys_at + 4 * high)
        verify(self._rows_at + 4 * low, self._rows_at + 4 * high)
        for position in range(low, high):
            if self._keys[position] == key:
                row = int(self._rows[position])
                if row >= self._count:
                    raise self._pages.damaged(f"entry {position} names row {row}")
                yield row
