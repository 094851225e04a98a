"""BRIGHT-Pro's hub files: found through the hub's listing API, verified, read in any format.

The hub dataset ``yale-nlp/Bright-Pro`` has three configs (``examples``, ``documents``,
``aspects``), one split per domain. The file names inside a config folder are not pinned:
they come from the listing of the folder (:func:`ir_bright.hub.list_folder`, cached under
``{IR_DATASETS_HOME}/bright-pro/<revision>/listing/``), and every file is verified by the
listing's size and sha256 as it downloads. A split's files are ``<split>.<ext>`` or
``<split>-NNNNN-of-NNNNN[-<hex>].<ext>`` with ``ext`` parquet, json (a list of rows, or JSON
Lines) or jsonl; when several formats are there, only the first of parquet, jsonl, json is
read. The revision is ``main`` until a pin is known; ``IR_BRIGHT_REVISION`` overrides it, as
for every repository (``yale-nlp/Bright-Pro@<rev>``); ``IR_BRIGHT_PRO_REVISION``, its former
spelling, still does for this release, with a warning.
Everything of one revision lives in one folder: delete it to take a newer ``main``. A dataset at
a revision (``bright-pro/<domain>@<commit>``, the family read through
:meth:`~ir_bright.families.Family.at`) lists and reads that commit only, never overridden by
either variable, and keeps everything under ``bright-pro/@<commit>/``; the listing at that
commit is the pin of its files.

The corpus is rewritten once into ``<revision>/ir_bright/documents/<split>.parquet`` (columns
``id``, ``content``), whatever the hub's format and sharding, so the shared parquet machinery
(batched reading, the memory-mapped store, BM25 indexes) serves it as BRIGHT's.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ... import hub
from ...errors import DownloadError
from ...store.json_rows import (
    RewrittenCorpus,
    doc_batches,
    docs_schema,
    field,
    json_rows,
    write_docs,
)
from ...store.parquet import open_parquet
from ...store.schema import QUERY_ID, TEXT, Column, checked_batches, checked_rows
from ..declaration import Family, family

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    import pyarrow as pa

_HUB = family("bright-pro").hub
NAMESPACE: str = family("bright-pro").namespace
REPO: str = _HUB.repo
"""The hub dataset (the ``hub`` of ``ir_bright/families/bright-pro.json``)."""
CONFIGS: tuple[str, ...] = _HUB.configs
"""Its configs, each a folder with one split per domain."""
FORMER_VARIABLE = "IR_BRIGHT_PRO_REVISION"
FORMATS = ("parquet", "jsonl", "json")
_BATCH_ROWS = 4096


def revision(family_: Family | None = None) -> str:
    """The hub revision read for ``family_`` (default: the declared family): the commit of a
    family at a revision, else ``IR_BRIGHT_REVISION`` (:func:`ir_bright.hub.config.revision`),
    else the former ``IR_BRIGHT_PRO_REVISION`` (with a warning), else the declared pin
    (``main`` until one is known)."""
    about = (family_ or family("bright-pro")).hub
    if about.commit is not None:
        return about.commit
    former = os.environ.get(FORMER_VARIABLE, "").strip()
    if former:
        _former_variable_warning(former)
    return hub.config.revision(about.repo, former or about.revision or "main")


@cache
def _former_variable_warning(value: str) -> None:
    logger.warning(
        "%s is deprecated and goes in the next release: set IR_BRIGHT_REVISION=%s@%s instead",
        FORMER_VARIABLE,
        REPO,
        value,
    )


class Split:
    """One split (domain) of one config of the hub dataset, as listed by the hub, read as
    ``family_`` places it (default: the declared family; a family at a revision reads its
    commit)."""

    def __init__(self, config: str, split: str, family_: Family | None = None):
        self.config = config
        self.split = split
        self.family = family_ or family("bright-pro")
        self.repo = self.family.hub.repo
        self.commit = self.family.hub.commit
        self._name = re.compile(
            rf"{re.escape(split)}(?:-\d+-of-\d+(?:-[0-9a-f]+)?)?\.({'|'.join(FORMATS)})",
            re.IGNORECASE,
        )

    def revision(self) -> str:
        """The revision read (:func:`revision`)."""
        return revision(self.family)

    def folder(self) -> Path:
        """The folder of everything of the revision read: ``@<commit>`` for a family at a
        revision, else the revision's own folder."""
        name = f"@{self.commit}" if self.commit else hub.config.revision_folder(self.revision())
        return hub.cache_home() / self.family.namespace / name

    def listing_path(self) -> Path:
        """Where the listing of this config folder is cached."""
        return self.folder() / "listing" / f"{self.config}.json"

    def listed(self) -> bool:
        """Whether the folder's listing is cached (the file names are known offline)."""
        return self.listing_path().is_file()

    def files(self) -> list[hub.HubFile]:
        """The split's hub files in name order, each pinned by the listing's size and sha256
        (lists the folder first if needed)."""
        entries = hub.list_folder(
            self.repo, self.revision(), self.config, self.listing_path(), exact=bool(self.commit)
        )
        by_format: dict[str, list[hub.ListedEntry]] = {}
        for entry in sorted(entries, key=lambda e: e.path):
            folder, _, name = entry.path.rpartition("/")
            match = self._name.fullmatch(name)
            if match and folder == self.config:  # never a path outside the folder (../)
                by_format.setdefault(match.group(1).lower(), []).append(entry)
        # one format per split (parquet first): a folder holding the same rows twice, as
        # parquet and as JSON, must not yield them twice
        chosen = next((by_format[f] for f in FORMATS if f in by_format), [])
        # at a commit, HubFile places the file under @<commit>/ itself
        folder = "" if self.commit else f"{self.folder().name}/"
        files = [
            hub.HubFile(
                repo=self.repo,
                path=entry.path,
                namespace=self.family.namespace,
                cache_path=f"{folder}{entry.path}",
                revision=self.revision(),
                size=entry.size,
                sha256=entry.sha256,
                commit=self.commit,
                alias=self.family.hub.alias,
            )
            for entry in chosen
        ]
        if not files:
            names = ", ".join(e.path for e in entries[:8]) or "nothing"
            raise DownloadError(
                f"{self.repo} at {self.revision()} has no file for split {self.split} in "
                f"{self.config}/ (the listing {self.listing_path()} shows {names}): set "
                f"IR_BRIGHT_REVISION={self.repo}@<rev> to a revision with the split, or delete "
                "the listing to fetch it anew"
            )
        return files

    def hub_files(self) -> list[hub.HubFileLike]:
        """The split's hub files when the listing is cached, else one :class:`Unlisted`
        stand-in (no network call either way)."""
        return [*self.files()] if self.listed() else [Unlisted(self)]

    def rows(
        self, fields: Mapping[str, tuple[type, ...] | None] | None = None
    ) -> list[dict[str, Any]]:
        """Every row of the split (for the small configs: examples, aspects); a row without
        one of ``fields``, or with a value of none of its types, is a one-line error naming
        the file (a field of ``None`` types may hold anything)."""
        rows = []
        for file in self.files():
            path = file.fetch()
            for row in _rows(path):
                for name, types in (fields or {}).items():
                    field(row, name, path, types)
                rows.append(row)
        return rows

    def docs_path(self) -> Path:
        """Where the corpus rewritten as one parquet file (``id``, ``content``) lives."""
        return self.folder() / "ir_bright" / self.config / f"{self.split}.parquet"


class Unlisted:
    """Stands for a split whose folder listing is not cached yet: ``download`` expands it
    into the split's hub files (one listing call); fetching it fetches them all. It is a
    :class:`~ir_bright.hub.HubFileLike`, as the hub files it stands for."""

    def __init__(self, split: Split):
        self._split = split
        self.path = f"{split.config}/{split.split}.* (file names from the hub's listing)"
        self.size = None

    @property
    def url(self) -> str:
        """The listing API's URL of the config folder."""
        split = self._split
        return f"{hub.endpoint()}/api/datasets/{split.repo}/tree/{split.revision()}/{split.config}"

    @property
    def local_path(self) -> Path:
        """The cached listing."""
        return self._split.listing_path()

    def expand(self) -> list[hub.HubFile]:
        """The split's hub files (fetches the listing)."""
        return self._split.files()

    def fetch(self) -> Path:
        """Fetch the listing and every file of the split; return the listing's path."""
        for file in self.expand():
            file.fetch()
        return self.local_path

    def shared(self) -> Unlisted:
        """Itself (never a twin)."""
        return self

    def cached_path(self) -> Path | None:
        """None: not listed yet."""
        return None

    def is_cached(self) -> bool:
        """False: not listed yet."""
        return False


def docs_file(split: Split) -> RewrittenCorpus:
    """The corpus of one ``documents`` split as the single parquet file ``ParquetDocs`` reads:
    built once from the verified hub files, whatever their format and sharding."""
    return RewrittenCorpus(split.docs_path, split.files, _write_docs, split.hub_files)


def hub_row_count(split: Split) -> int | None:
    """The number of documents from the cached hub files' parquet footers (before the
    rewrite), or None (not listed, not all cached, or not parquet)."""
    if not split.listed():
        return None
    cached = [file.cached_path() for file in split.files()]
    paths = [path for path in cached if path is not None and _is_parquet(path)]
    if len(paths) < len(cached):
        return None
    return sum(open_parquet(path).metadata.num_rows for path in paths)


HUB_DOCS_SPEC = {"id": Column(QUERY_ID), "content": Column(TEXT)}
"""A BRIGHT-Pro documents file on the hub: ids text or integers (read as their decimal text,
as the gold ids are), contents text; the rewritten corpus is then checked as any other."""


def _write_docs(sources: list[Path], target: Path) -> None:
    write_docs(target, _doc_batches(sources))


def _doc_batches(sources: list[Path]) -> Iterator[pa.RecordBatch]:
    import pyarrow as pa

    schema = docs_schema()
    for path in sources:
        if _is_parquet(path):
            for batch in checked_batches(path, HUB_DOCS_SPEC, ["id", "content"]):
                yield pa.RecordBatch.from_arrays(
                    [batch.column(0).cast(pa.string()), batch.column(1).cast(pa.string())],
                    schema=schema,
                )
            continue
        pairs = (
            (str(field(row, "id", path, (str, int))), field(row, "content", path, (str,)))
            for row in json_rows(path)
        )
        yield from doc_batches(pairs)


def _is_parquet(path: Path) -> bool:
    return path.name.lower().endswith(".parquet")


def _rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a cached file: parquet, a JSON list of rows, or JSON Lines."""
    if _is_parquet(path):
        return checked_rows(path)  # every text checked as UTF-8 first
    return list(json_rows(path))
