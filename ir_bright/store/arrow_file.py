"""The on-disk format of the Arrow store: where it lives, how it is built, when it is trusted.

The store of ``<corpus>.parquet`` is ``<corpus>.parquet.arrow``, an uncompressed Arrow IPC
file streamed from the parquet batch by batch (peak memory about one batch) under the lock
and renamed into place by :func:`~ir_bright.store.derived.replaced_atomically`. Its manifest
(written last, so a store without one is never trusted) records the parquet it was built from,
the sizes of the store and its two companions, the columns, and a CRC-32 per record batch
(``blocks``: offset, length, rows, CRC-32). The companions are the id index (``<store>.ids``,
:mod:`.id_index`) and the page checksums (``<store>.pages``: a CRC-32 per 4 KiB page of the
store, then of the id index, little-endian uint32, memory-mapped when opened). Opening checks
the manifest at the cost of a few ``stat`` calls; :mod:`.arrow_mapped` and :mod:`.arrow` check
the bytes themselves as they read them.
"""

from __future__ import annotations

import logging
import os
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import lazy
from ..errors import unwritable_cache
from ..log import progress
from . import derived, id_index
from .lock import file_lock
from .parquet import open_parquet, read_batches
from .schema import Spec, checked, checked_batches

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.ipc as ipc
else:
    pa = lazy.module("pyarrow")
    ipc = lazy.module("pyarrow.ipc")

logger = logging.getLogger(__name__)


class StoreFile:
    """The IPC file and manifest of one parquet corpus, checked and (re)built on demand."""

    KIND = "ir_bright.arrow-store"
    VERSION = 5  # 5: page checksums in a file (.pages); 4: the id index on disk (.ids)

    def __init__(
        self,
        parquet_path: Callable[[], Path],
        columns: Sequence[str],
        spec: Spec | None = None,
        id_column: str | None = None,
    ):
        self.parquet_path = parquet_path
        self.columns = list(columns)
        self.spec = spec
        self.id_column = id_column or self.columns[0]

    @staticmethod
    def path_for(parquet: Path) -> Path:
        """Where the store of ``parquet`` lives."""
        return parquet.with_name(parquet.name + ".arrow")

    def target(self) -> Path:
        """The store file of the current parquet."""
        return self.path_for(self.parquet_path())

    def built(self, parquet: Path | None = None) -> bool:
        """Whether the IPC file and its manifest exist (for ``parquet``, if given)."""
        target = self.path_for(parquet or self.parquet_path())
        return target.is_file() and derived.manifest_path(target).is_file()

    @staticmethod
    def files(target: Path) -> dict[str, Path]:
        """The files of the store at ``target``: the IPC file, its id index and the page
        checksums of both."""
        return {
            "store": target,
            "ids": id_index.path_for(target),
            "pages": target.with_name(target.name + ".pages"),
        }

    def manifest(self) -> dict[str, Any]:
        """The manifest of an intact store, building or rebuilding the store first if needed."""
        parquet = self.parquet_path()
        target = self.path_for(parquet)
        manifest, problem = self._check(parquet, target)
        if manifest is None:
            manifest = self._build(parquet, target, problem)
        return manifest

    def rebuild(self, problem: str) -> dict[str, Any]:
        """Discard the manifest (so every process sees the store as damaged) and rebuild."""
        parquet = self.parquet_path()
        target = self.path_for(parquet)
        with file_lock(target):
            derived.manifest_path(target).unlink(missing_ok=True)
        return self._build(parquet, target, problem)

    def _check(self, parquet: Path, target: Path) -> tuple[dict | None, str | None]:
        if not target.exists() and not os.path.islink(target):
            return None, None
        manifest, problem = derived.check(
            target, self.KIND, self.VERSION, parquet, self.files(target), whole=False
        )
        if manifest is not None and manifest.get("columns") != self.columns:
            return None, "built for other columns"
        if manifest is not None and not well_formed(manifest):
            return None, "its manifest is malformed"
        return manifest, problem

    def _build(self, parquet: Path, target: Path, problem: str | None) -> dict:
        try:
            with file_lock(target):
                manifest, found = self._check(parquet, target)
                if manifest is not None:
                    return manifest
                # what the caller saw first: after rebuild() discarded the manifest, the
                # re-check here can only say that there is none
                problem = problem or found
                if problem is not None:
                    derived.rebuild_warning(target, problem)
                else:
                    logger.info("building the random-access store %s (once)", target)
                return self._write(parquet, target)
        except OSError as exc:  # permissions, a read-only file system, a full disk
            raise unwritable_cache(target, exc) from exc

    def _write(self, parquet: Path, target: Path) -> dict:
        """Stream the parquet into the IPC file, then checksum it and write the manifest."""
        if self.spec is not None:
            checked(parquet, self.spec)  # before anything reads the parquet's schema
        schema = open_parquet(parquet).schema_arrow
        schema = pa.schema([schema.field(name) for name in self.columns])
        total = open_parquet(parquet).metadata.num_rows
        derived.manifest_path(target).unlink(missing_ok=True)  # untrusted until written anew
        blocks, rows, keys = [], 0, id_index.KeyCollector()
        with (
            derived.replaced_atomically(target) as out,
            ipc.new_file(out, schema) as writer,
            progress(total=total, unit="doc", unit_scale=True, desc="store " + parquet.name) as bar,
        ):
            for batch in self._batches(parquet):
                start = out.tell()
                writer.write_batch(batch)
                blocks.append([start, out.tell() - start, batch.num_rows])
                keys.add(batch.column(self.id_column).to_pylist())
                rows += batch.num_rows
                bar.update(batch.num_rows)
        files = self.files(target)
        keys.write(files["ids"])
        derived.write_page_crcs(files["pages"], [files["store"], files["ids"]])
        extra = {"columns": self.columns, "rows": rows, "blocks": _block_crcs(target, blocks)}
        return derived.write_manifest(
            target, self.KIND, self.VERSION, parquet, files, extra, crc=False
        )

    def _batches(self, parquet: Path):
        """The parquet's rows, checked against the spec (repeated ids dropped) if there is one."""
        if self.spec is None:
            return read_batches(parquet, self.columns)
        return checked_batches(parquet, self.spec, self.columns)


def _block_crcs(path: Path, blocks: list[list[int]]) -> list[list[int]]:
    """``blocks`` (offset, length, rows) with the CRC-32 of each block's bytes appended."""
    with open(path, "rb") as data:
        if blocks:  # the first range also holds the magic and the schema, written lazily
            header = data.read(16)
            schema_end = 16 + int.from_bytes(header[12:16], "little")
            blocks[0] = [schema_end, blocks[0][0] + blocks[0][1] - schema_end, blocks[0][2]]
        for block in blocks:
            data.seek(block[0])
            block.append(zlib.crc32(data.read(block[1])))
    return blocks


def well_formed(manifest: dict) -> bool:
    """Whether a store manifest has the shape :meth:`StoreFile._write` gives it."""
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
    files = manifest["files"]
    sizes = [files[name].get("size") for name in ("store", "ids", "pages")]
    if not all(isinstance(size, int) for size in sizes):
        return False
    covered = 4 * (derived.pages_of(sizes[0]) + derived.pages_of(sizes[1]))
    return sum(b[2] for b in blocks) == manifest["rows"] and sizes[2] == covered


def page_crcs(manifest: dict, target: Path) -> tuple[Any, Any]:
    """The page CRC-32s of the store at ``target`` and of its id index, memory-mapped from
    the checksum file its manifest describes."""
    files = manifest["files"]
    sizes = [files["store"]["size"], files["ids"]["size"]]
    store, ids = derived.mapped_page_crcs(StoreFile.files(target)["pages"], sizes)
    return store, ids
