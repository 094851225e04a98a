"""MM-BRIGHT's images: a memory-mapped store per image config and domain, and which of them
are in the corpus.

The official rule: an image is in the corpus (and a query image is usable) if Pillow can open
it and convert it to RGB; SVGs and corrupt files drop out. That verdict is decided once per
domain and config and cached next to the parquet as ``<parquet>.decodable.json`` (the format
of every decodable path, the list of undecodable ones), so later iterations never decode.
Pillow is needed only to build that file.
"""

from __future__ import annotations

import io
import json
import logging
import os
from collections.abc import Callable, Iterable, Iterator
from functools import cached_property
from pathlib import Path

from ir_datasets.formats import BaseDocs
from ir_datasets.indices import Docstore

from ..errors import CacheError, IrBrightError, require
from ..parquet import ArrowStore, open_parquet
from ..records import MMBrightImageDoc
from .source import file

__all__ = ["ImageCorpus", "ImageDocs", "decode_format"]

logger = logging.getLogger(__name__)

VERDICT_VERSION = 1
PATH, BYTES = "path", "bytes"


def decode_format(data: bytes | None) -> str | None:
    """The lowercase format Pillow decodes ``data`` as, or None when it cannot."""
    image_module = require("PIL.Image", "images")
    if not data:
        return None
    try:
        with image_module.open(io.BytesIO(data)) as image:
            image.convert("RGB")
            return (image.format or "unknown").lower()
    except Exception:  # the official loader drops any image that fails to decode
        return None


class ImageCorpus:
    """The images of one config (``document_images`` or ``examples_images``) of a domain."""

    def __init__(self, config: str, domain: str):
        self.config = config
        self.domain = domain
        self.hub_file = file(config, domain)
        self.store = ArrowStore(self._parquet, PATH, [PATH, BYTES])

    def _parquet(self) -> Path:
        path = self.hub_file.fetch()
        names = set(open_parquet(path).schema_arrow.names)
        if not {PATH, BYTES} <= names:
            raise IrBrightError(
                f"{self.hub_file.path} has columns {sorted(names)}, expected path and bytes: "
                "the hub revision is not the one ir_bright knows"
            )
        return path

    @cached_property
    def _verdict(self) -> dict:
        parquet = self.hub_file.fetch()
        target = parquet.with_name(parquet.name + ".decodable.json")
        if target.is_file():
            verdict = _read_verdict(target, parquet)
            if verdict.get("version") == VERDICT_VERSION:
                return verdict
        return self._decide(target)

    def _decide(self, target: Path) -> dict:
        import filelock

        require("PIL.Image", "images")
        try:
            with filelock.FileLock(str(target) + ".lock"):
                if target.is_file():
                    return _read_verdict(target, self.hub_file.fetch())
                logger.info("deciding which %s of %s decode (once)", self.config, self.domain)
                decodable: dict[str, str] = {}
                undecodable: list[str] = []
                seen: set[str] = set()
                for batch in self.store.batches():
                    paths = batch.column(PATH).to_pylist()
                    blobs = batch.column(BYTES)
                    for i, path in enumerate(paths):
                        if path is None or path in seen:
                            continue
                        seen.add(path)
                        fmt = decode_format(blobs[i].as_py())
                        if fmt is None:
                            undecodable.append(path)
                        else:
                            decodable[path] = fmt
                verdict = {
                    "version": VERDICT_VERSION,
                    "decodable": decodable,
                    "undecodable": undecodable,
                }
                partial = target.with_name(target.name + ".part")
                partial.write_text(json.dumps(verdict), "utf-8")
                os.replace(partial, target)
                return verdict
        except PermissionError as exc:
            raise CacheError(
                f"cannot write {target} ({exc.strerror}): set IR_DATASETS_HOME to a writable folder"
            ) from exc

    @property
    def formats(self) -> dict[str, str]:
        """Decodable path -> its format, in the config's row order (first occurrence)."""
        return self._verdict["decodable"]

    @property
    def undecodable(self) -> list[str]:
        """Paths present in the config that Pillow cannot decode."""
        return self._verdict["undecodable"]

    @cached_property
    def _row_of(self) -> dict[str, int]:
        """Path -> its FIRST row: the row whose bytes the verdict judged and ``docs_iter``
        yields (the store's own index keeps the last row of a repeated path)."""
        rows: dict[str, int] = {}
        for row, path in enumerate(self.store.table().column(PATH).to_pylist()):
            rows.setdefault(path, row)
        return rows

    def image(self, path: str) -> bytes | None:
        """The encoded bytes of a decodable image, or None (absent or undecodable)."""
        if path not in self.formats:
            return None
        row = self._row_of.get(path)
        return None if row is None else self.store.row(row)[1]

    def resolve(self, paths: Iterable[str]) -> tuple[list[str], list[bytes], int, int]:
        """The decodable ones of ``paths`` and their bytes, in order, plus how many were
        missing from the config and how many were present but undecodable."""
        ids, blobs, missing, broken = [], [], 0, 0
        undecodable = set(self.undecodable)
        for path in paths:
            data = self.image(path)
            if data is not None:
                ids.append(path)
                blobs.append(data)
            elif path in undecodable:
                broken += 1
            else:
                missing += 1
        return ids, blobs, missing, broken


class ImageDocstore(Docstore):
    """Lookups of decodable document images by path, from the memory-mapped store."""

    def __init__(self, corpus: ImageCorpus):
        super().__init__(MMBrightImageDoc, "doc_id")
        self._corpus = corpus

    def get_many_iter(self, doc_ids: Iterable[str]) -> Iterator[MMBrightImageDoc]:
        """The images of the ids that are in the corpus, in the order asked."""
        corpus = self._corpus
        formats = corpus.formats
        for doc_id in doc_ids:
            data = corpus.image(doc_id)
            if data is not None:
                yield MMBrightImageDoc(doc_id, data, formats[doc_id])


class ImageDocs(BaseDocs):
    """Task 3's corpus: the domain's decodable ``document_images`` (doc id = path)."""

    def __init__(self, domain: str, corpus: Callable[[], ImageCorpus], count: int | None):
        self._domain = domain
        self._corpus = corpus
        self._count = count

    def docs_iter(self) -> Iterator[MMBrightImageDoc]:
        """Every decodable image once, in the config's row order (bytes from the memory map)."""
        corpus = self._corpus()
        formats = corpus.formats
        emitted: set[str] = set()
        for batch in corpus.store.batches():
            blobs = batch.column(BYTES)
            for i, path in enumerate(batch.column(PATH).to_pylist()):
                if path in formats and path not in emitted:
                    emitted.add(path)
                    yield MMBrightImageDoc(path, blobs[i].as_py(), formats[path])

    def docs_store(self, field: str = "doc_id") -> ImageDocstore:
        """Random access by path; only the id -> row index is held in memory."""
        return ImageDocstore(self._corpus())

    def docs_count(self) -> int | None:
        """The number of decodable images (from the published counts)."""
        return self._count

    def docs_cls(self) -> type:
        """``MMBrightImageDoc``."""
        return MMBrightImageDoc

    def docs_namespace(self) -> str:
        """The domain's images."""
        return f"mm-bright/{self._domain}/images"

    def docs_lang(self) -> None:
        """Images have no language."""
        return None


def _read_verdict(target: Path, parquet: Path) -> dict:
    """The cached decodability verdict; a damaged file is a one-line error naming it."""
    try:
        return json.loads(target.read_text("utf-8"))
    except (ValueError, OSError) as exc:
        raise CacheError(
            f"cannot read {target} ({exc}): delete it; it is recomputed from {parquet}"
        ) from exc
