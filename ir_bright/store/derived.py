"""Files derived from a verified source, trusted only after a check and rebuilt when damaged.

The Arrow store next to a parquet corpus, MM-BRIGHT's image-decodability verdicts and the BM25
index are all built from a cached hub file. This module is the one home of how such a file is
written, checked and rebuilt (it hands on the names of the two it builds on):

- **Written safely** (:mod:`.exclusive`). Every file is created exclusively and without
  following a symbolic link (``O_CREAT | O_EXCL | O_NOFOLLOW``) under a temporary name, then
  renamed into place. Nothing is ever written outside the cache through a planted link.
- **Built by one process at a time** (:mod:`.lock`), whose lock an interrupt never leaves held
  and whose waiters never wait for themselves or for the process that started them.
- **A manifest, written last.** Beside the derived file (``<file>.manifest.json``) or inside the
  derived folder (``manifest.json``): the kind and version of the format, the source's size and
  modification time, each file's size and CRC-32 checksums. A missing or foreign manifest, an
  old version, a changed source, a missing file or a wrong size is found on open at the cost of
  a few ``stat`` calls (:func:`check`).
- **Checksums verified before the bytes are used.** Small files are checked whole on open;
  the large Arrow store carries a CRC-32 per record batch (checked as a scan reads each batch)
  and per 4 KiB page (checked the first time a lookup touches the page), so that opening it
  stays cheap and no damaged byte, offsets included, is ever handed to Arrow (:class:`Pages`).
  The page checksums are a file of their own, memory-mapped (:func:`mapped_page_crcs`): the
  manifest stays small, and opening costs the same whatever the corpus's size.
- **Rebuilt under the lock** (:func:`rebuild_warning`): since the file is derived, damage is
  repaired with one warning line naming it; where a rebuild is impossible the caller raises a
  one-line :class:`~ir_bright.errors.CacheError` naming the file.

CRC-32 (``zlib.crc32``, about 1.5 GB/s here, twice sha256's speed) detects accidental and
careless damage, which is what a derived cache file meets; it is not a defence against a
forger, who could as well rewrite the manifest.
"""

from __future__ import annotations

import contextlib
import json
import logging
import mmap
import os
import stat
import sys
import zlib
from array import array as typed_array
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import atomic, lazy
from ..errors import CacheError, DamagedError
from ..reading import kind_of, open_regular, read_json
from .exclusive import refuse_symlink

if TYPE_CHECKING:
    import numpy as np
else:
    np = lazy.module("numpy")

logger = logging.getLogger(__name__)

PAGE_BYTES = 4 << 10  # checksum unit of random access: a lookup hashes a few pages
CHUNK_BYTES = 1 << 20
MANIFEST = "manifest.json"


def source_identity(source: Path | None) -> dict | None:
    """Size and modification time of the file a derived file was built from."""
    if source is None:
        return None
    stat = os.stat(source)
    return {"name": Path(source).name, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def crc_file(path: Path) -> int:
    """CRC-32 of a whole regular file, read in 1 MiB chunks."""
    crc = 0
    with open_regular(path) as file:
        while chunk := file.read(CHUNK_BYTES):
            crc = zlib.crc32(chunk, crc)
    return crc


def page_crcs(path: Path) -> list[int]:
    """CRC-32 of each :data:`PAGE_BYTES` page of a file."""
    crcs = []
    with open_regular(path) as file:
        while chunk := file.read(CHUNK_BYTES):
            view = memoryview(chunk)
            crcs += [zlib.crc32(view[i : i + PAGE_BYTES]) for i in range(0, len(view), PAGE_BYTES)]
    return crcs


def write_page_crcs(path: Path, sources: Sequence[Path]) -> None:
    """Write the :func:`page_crcs` of each of ``sources``, one after the other, as
    little-endian uint32 to ``path`` (read back memory-mapped by :func:`mapped_page_crcs`)."""
    with replaced_atomically(path) as out:
        for source in sources:
            crcs = typed_array("I", page_crcs(source))
            if sys.byteorder == "big":
                crcs.byteswap()
            out.write(crcs.tobytes())


def pages_of(size: int) -> int:
    """How many :data:`PAGE_BYTES` pages a file of ``size`` bytes has."""
    return -(-size // PAGE_BYTES)


def mapped_page_crcs(path: Path, sizes: Sequence[int]) -> list[Any]:
    """The page CRC-32s of files of ``sizes`` bytes, in order, from the checksum file
    :func:`write_page_crcs` wrote: views of its memory map, so that opening reads nothing
    in proportion to the files' size (a page's checksum is read when the page is checked)."""
    counts = [pages_of(size) for size in sizes]
    with open_regular(path) as file:
        if os.fstat(file.fileno()).st_size != 4 * sum(counts):
            raise DamagedError(path, "its page checksums do not cover the files")
        mapping = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    words = np.frombuffer(mapping, dtype="<u4")
    starts = [0]
    for count in counts:
        starts.append(starts[-1] + count)
    return [words[low:high] for low, high in zip(starts, starts[1:])]


def manifest_path(target: Path) -> Path:
    """Where the manifest of ``target`` lives: inside a folder, beside a file."""
    if target.is_dir():
        return target / MANIFEST
    return target.with_name(target.name + ".manifest.json")


def write_manifest(
    target: Path,
    kind: str,
    version: int,
    source: Path | None,
    files: dict[str, Path],
    extra: dict | None = None,
    manifest: Path | None = None,
    crc: bool = True,
) -> dict:
    """Write the manifest of ``target`` (last, atomically): ``files`` (name -> path) with their
    sizes and (with ``crc``) whole-file CRC-32, plus ``extra`` (per-batch or page checksums)."""
    data = {
        "kind": kind,
        "version": version,
        "source": source_identity(source),
        "files": {
            name: {"size": os.path.getsize(path), "crc32": crc_file(path) if crc else None}
            for name, path in files.items()
        },
        **(extra or {}),
    }
    with replaced_atomically(manifest or manifest_path(target)) as out:
        out.write(json.dumps(data).encode())
    return data


def read_manifest(target: Path, manifest: Path | None = None) -> dict | None:
    """The manifest of ``target``, or None when it is missing or unreadable (not a regular
    file, or not JSON within :mod:`ir_bright.reading`'s bounds)."""
    manifest = manifest or manifest_path(target)
    try:
        data = read_json(manifest)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def check(
    target: Path,
    kind: str,
    version: int,
    source: Path | None,
    files: dict[str, Path],
    whole: bool = True,
    manifest: Path | None = None,
) -> tuple[dict | None, str | None]:
    """``(manifest, None)`` when ``target`` is intact, else ``(None, what is wrong)``.

    Checks kind, version, the source's identity and every file's size; with ``whole``, also
    every file's CRC-32 (for small files; the Arrow store checks its pages lazily instead).
    """
    for path in [target, *files.values()]:
        refuse_symlink(path)
    data = read_manifest(target, manifest)
    if data is None:
        return None, "no readable manifest (an older ir_bright's, or an interrupted build)"
    if data.get("kind") != kind or data.get("version") != version:
        return None, f"format {data.get('kind')} v{data.get('version')}, not {kind} v{version}"
    if source is not None and data.get("source") != source_identity(source):
        return None, f"built from another copy of {source.name}"
    recorded = data.get("files")
    if not isinstance(recorded, dict) or set(recorded) != set(files):
        return None, "its manifest lists other files"
    for name, path in files.items():
        entry = recorded[name]
        try:
            mode, size = _mode_and_size(path)
        except OSError:
            return None, f"{name} is missing"
        if not stat.S_ISREG(mode):
            return None, f"{name} is {kind_of(mode)}"
        recorded_size = entry.get("size") if isinstance(entry, dict) else None
        if recorded_size != size:
            return None, f"{name} has {size} bytes, its manifest says {recorded_size}"
        if whole and entry.get("crc32") != crc_file(path):
            return None, f"{name} does not match its checksum (damaged)"
    return data, None


def _mode_and_size(path: Path) -> tuple[int, int]:
    info = os.stat(path)
    return info.st_mode, info.st_size


def rebuild_warning(target: Path, problem: str) -> None:
    """The one warning line said when a damaged derived file is rebuilt."""
    logger.warning("rebuilding %s: %s", target, problem)


class Pages:
    """Lazy verification of a large derived file against its per-page and per-block CRC-32s.

    ``pages`` holds one CRC-32 per :data:`PAGE_BYTES` of the file; ``blocks`` maps a block
    (offset, length) to its CRC-32. Each page is checked at most once per process.
    """

    def __init__(self, path: Path, pages: Sequence[int], size: int):
        self.path = path
        self._pages = pages
        self._size = size
        self._checked = bytearray(len(pages))
        self.mapped: Any = None  # the file's memory map, for verify_mapped
        if len(pages) != pages_of(size):
            raise self.damaged("its page checksums do not cover it")

    def damaged(self, problem: str) -> CacheError:
        """The error for a damaged file (the caller's lock-and-rebuild path catches it)."""
        return DamagedError(self.path, problem)

    def verify(self, data, start: int, stop: int, base: int = 0) -> None:
        """Check the pages overlapping ``[start, stop)`` of the file; ``data`` is a buffer of
        the file's bytes from offset ``base`` that covers those whole pages."""
        if start < 0 or stop > self._size or start > stop:
            raise self.damaged(f"a reference to bytes {start}-{stop} outside the file")
        checked = self._checked
        view = None
        for page in range(start // PAGE_BYTES, -(-stop // PAGE_BYTES)):
            if checked[page]:
                continue
            if view is None:
                view = memoryview(data)
            low = page * PAGE_BYTES - base
            if zlib.crc32(view[low : low + PAGE_BYTES]) != self._pages[page]:
                raise self.damaged(f"page {page} does not match its checksum")
            checked[page] = 1

    def verify_mapped(self, start: int, stop: int) -> None:
        """Check the pages overlapping ``[start, stop)`` in the file's memory map."""
        self.verify(self.mapped, start, stop)

    def page_span(self, start: int, stop: int) -> tuple[int, int]:
        """The page-aligned byte range covering ``[start, stop)``."""
        low = (start // PAGE_BYTES) * PAGE_BYTES
        return low, min(self._size, -(-stop // PAGE_BYTES) * PAGE_BYTES)


@contextlib.contextmanager
def replaced_atomically(target: Path):
    """Yield a new binary file, created exclusively without following links, for the caller
    to write; once the block ends without error, rename it onto ``target``; on any error
    remove it (:func:`ir_bright.atomic.replaced`: a temporary name of this writer's own, a
    killed writer's removed by the next write). A reader never sees a partial ``target``."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(target.with_name(target.name + ".part"))  # an older version's leftover
    with atomic.replaced(target) as out:
        yield out
