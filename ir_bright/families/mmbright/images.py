"""MM-BRIGHT's images: a memory-mapped store per image config and domain, and which of them
are in the corpus.

The official rule: an image is in the corpus (and a query image is usable) if Pillow can open
it and convert it to RGB; SVGs and corrupt files drop out. That verdict is decided once per
domain and config and cached next to the parquet as ``<parquet>.decodable.json`` (the format
of every decodable path, the list of undecodable ones), so later iterations never decode.
Pillow is needed only to build that file.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import warnings
from collections.abc import Callable, Iterable, Iterator
from functools import cached_property
from pathlib import Path
from typing import Any

from ir_datasets.formats import BaseDocs
from ir_datasets.indices import Docstore

from ...errors import IrBrightError, require, unwritable_cache
from ...reading import read_json
from ...store import derived
from ...store.arrow import ArrowStore
from ...store.lock import file_lock
from ...store.parquet import open_parquet
from ...store.schema import BYTES as BYTES_KIND
from ...store.schema import ID, Column
from ..declaration import Family
from .records import MMBrightImageDoc
from .source import file

logger = logging.getLogger(__name__)

VERDICT_VERSION = 2  # the verdicts' format, in their manifest (ir_bright.store.derived)
VERDICT_KIND = "ir_bright.decodable"
FULL_DECODE_PIXELS = 40_000_000  # about 120 MB as RGB
PATH, BYTES = "path", "bytes"
IMAGES_SPEC = {PATH: Column(ID), BYTES: Column(BYTES_KIND, nullable=True)}
"""An images config: the path is an id (text, never null, no white space), bytes binary."""


def decode_format(data: bytes | None) -> str | None:
    """The lowercase format Pillow decodes ``data`` as, or None when it cannot.

    Memory stays bounded: an image of at most :data:`FULL_DECODE_PIXELS` pixels is opened and
    converted to RGB, as the official loader does; a larger one (which would take over 120 MB
    to convert) is decoded at 1/8 scale when it is a JPEG (``draft``), else judged by
    ``Image.open`` plus ``verify()``, which checks its structure and checksums (PNG's chunk
    CRCs) without holding the pixels. Pillow refuses an image over twice its
    ``MAX_IMAGE_PIXELS`` (a decompression bomb) in ``open`` itself, as it does for the official
    loader. Pillow's warnings are counted by the caller (:func:`counted_warnings`), not printed.
    """
    image_module = require("PIL.Image", "images")
    if not data:
        return None
    try:
        with image_module.open(io.BytesIO(data)) as image:
            fmt = (image.format or "unknown").lower()
            width, height = image.size
            if width * height <= FULL_DECODE_PIXELS:
                image.convert("RGB")
            elif fmt == "jpeg":  # decoded for real, at a reduced scale (1/8 per side)
                image.draft("RGB", (width // 8, height // 8))
                image.load()
            else:
                image.verify()
            return fmt
    except Exception:  # the official loader drops any image that fails to decode
        return None


@contextlib.contextmanager
def counted_warnings() -> Iterator[list[int]]:
    """Silence warnings (Pillow's DecompressionBombWarning) inside; yields ``[count]``, set on
    exit."""
    counter = [0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield counter
    counter[0] = len(caught)


class ImageCorpus:
    """The images of one config (``document_images`` or ``examples_images``) of a domain."""

    def __init__(self, config: str, domain: str, family: Family | None = None):
        self.config = config
        self.domain = domain
        self.hub_file = file(config, domain, family)
        self.store = ArrowStore(self._parquet, PATH, [PATH, BYTES], spec=IMAGES_SPEC)

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
        verdict, problem = _checked_verdict(target, parquet)
        return verdict if verdict is not None else self._decide(target, problem)

    def _decide(self, target: Path, problem: str | None) -> dict:
        require("PIL.Image", "images")
        parquet = self.hub_file.fetch()
        try:
            with file_lock(target):
                verdict, problem = _checked_verdict(target, parquet)
                if verdict is not None:
                    return verdict
                if problem is not None:
                    derived.rebuild_warning(target, problem)
                logger.info("deciding which %s of %s decode (once)", self.config, self.domain)
                verdict = self._judge_all()
                derived.manifest_path(target).unlink(missing_ok=True)
                with derived.replaced_atomically(target) as out:
                    out.write(json.dumps(verdict).encode())
                derived.write_manifest(
                    target, VERDICT_KIND, VERDICT_VERSION, parquet, {"verdict": target}
                )
                return verdict
        except OSError as exc:
            raise unwritable_cache(target, exc) from exc

    def _judge_all(self) -> dict:
        """Decide every image of the config (the first row of a repeated path counts)."""
        decodable: dict[str, str] = {}
        undecodable: list[str] = []
        seen: set[str] = set()
        with counted_warnings() as warned:
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
        if warned[0]:
            logger.info("Pillow warned %d time(s) on %s of %s", warned[0], self.config, self.domain)
        return {"version": VERDICT_VERSION, "decodable": decodable, "undecodable": undecodable}

    @property
    def formats(self) -> dict[str, str]:
        """Decodable path -> its format, in the config's row order (first occurrence)."""
        return self._verdict["decodable"]

    @property
    def undecodable(self) -> list[str]:
        """Paths present in the config that Pillow cannot decode."""
        return self._verdict["undecodable"]

    def image(self, path: str) -> bytes | None:
        """The encoded bytes of a decodable image, or None (absent or undecodable)."""
        if path not in self.formats:
            return None
        values = self.store.lookup(path)
        return None if values is None else values[1]

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

    def docs_hub_files(self) -> list[Any]:
        """The hub file the images are read from (``document_images``)."""
        return [self._corpus().hub_file]

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


def _checked_verdict(target: Path, parquet: Path) -> tuple[dict | None, str | None]:
    """The cached verdict when intact (manifest, checksum, shape), else (None, the problem)."""
    if not target.exists() and not os.path.islink(target):
        return None, None
    manifest, problem = derived.check(
        target, VERDICT_KIND, VERDICT_VERSION, parquet, {"verdict": target}
    )
    if manifest is None:
        return None, problem
    try:
        verdict = read_json(target)
    except (OSError, ValueError):
        return None, "unreadable"
    if not _well_formed(verdict):
        return None, "not a verdict of this version"
    return verdict, None


def _well_formed(verdict) -> bool:
    return (
        isinstance(verdict, dict)
        and verdict.get("version") == VERDICT_VERSION
        and isinstance(verdict.get("decodable"), dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in verdict["decodable"].items())
        and isinstance(verdict.get("undecodable"), list)
        and all(isinstance(p, str) for p in verdict["undecodable"])
    )
