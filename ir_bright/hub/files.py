"""Hub files as the collections describe them, and the interface every listed file shares.

A :class:`HubFile` names a file of a hub dataset repository and the place it is cached:

- URL: ``{HF_ENDPOINT}/datasets/{repo}/resolve/{revision}/{path}`` (``IR_BRIGHT_REVISION``
  overrides the declared revision, never the commit of a dataset at a revision, ``<id>@<rev>``).
- Cache of a dataset at a revision (a file with a ``commit``):
  ``{IR_DATASETS_HOME}/{namespace}/@{commit}/{cache_path}``, each commit apart. A file whose
  content another cached copy already has (the same sha256 or git blob id in the hub's listing
  for this commit, or the same declared md5 and size, whatever ``IR_BRIGHT_VERIFY`` says) is
  not downloaded: the copy is linked in (one copy on disk) and recorded at this commit.
- Cache otherwise: ``{IR_DATASETS_HOME}/{namespace}/{folder of cache_path}/ir_bright/{name}``, one
  folder below the name itself (:data:`OWN_FOLDER`). ``cache_path`` is the name ir_datasets'
  own loader gives the file where it has one (BRIGHT's), and that loader reads whatever is
  at that name, ir_bright imported or not: ir_bright's copies are kept out of its way, so
  a script that forgets ``import ir_bright`` makes the core download its own copies rather
  than silently read these through its defective loader. A copy already at the name itself
  (the core's download, say) is used where it is, never downloaded again.
  A cache entry that is a symbolic link is refused. A cached file is used without any network
  call; ``HF_HUB_OFFLINE=1`` forbids the network, and a missing file then fails at once saying
  how to fetch it ahead.

:class:`HubFileLike` is what ``dataset.hub_files()`` yields and ``ir-bright download``,
``list`` and ``info`` rely on: a :class:`HubFile`, or a stand-in such as BRIGHT-Pro's split
whose folder listing is not cached yet.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable
from urllib.parse import quote

from ..store.exclusive import refuse_symlink
from ..store.lock import file_lock
from . import content, transfer
from .config import (
    cache_home,
    endpoint,
    make_folder,
    offline,
    offline_refusal,
    redact,
    revision,
    verification_mode,
)
from .fetch_records import file_provenance, watch

OWN_FOLDER = "ir_bright"
"""The folder, beside a file's name in the cache, that holds ir_bright's copy of it."""


@runtime_checkable
class HubFileLike(Protocol):
    """A file a dataset reads from the hub, as listed by ``dataset.hub_files()``."""

    @property
    def path(self) -> str:
        """Its path in the repository (or a description of the files it stands for)."""
        ...

    @property
    def url(self) -> str:
        """Where the hub serves it (credentials redacted)."""
        ...

    @property
    def size(self) -> int | None:
        """Its size in bytes when pinned or listed, else None."""
        ...

    @property
    def local_path(self) -> Path:
        """Where it is (or will be) cached."""
        ...

    def shared(self) -> HubFileLike:
        """The file actually fetched for this one (a twin with the same bytes, or itself)."""
        ...

    def cached_path(self) -> Path | None:
        """The cached copy, or None."""
        ...

    def is_cached(self) -> bool:
        """Whether it can be used without a download."""
        ...

    def fetch(self) -> Path:
        """The verified local copy, downloaded first if needed."""
        ...


@dataclass(frozen=True)
class HubFile:
    """A file of a hub dataset repository and the place it is cached.

    ``aliases`` are other cache paths (same namespace) whose files hold the same bytes per the
    pins; one of them being present avoids a download. ``twin`` is another hub file with the
    same pinned checksum (BRIGHT's aops and theoremqa_questions corpora): this file is then
    fetched and cached as the twin, once. Both rest on the pins, so both apply only while the
    pins are trusted (``IR_BRIGHT_VERIFY`` 1); otherwise each path is fetched as it is.

    ``sha256`` is what the hub's folder listing states for the file (BRIGHT-Pro's);
    ``sha256_pin`` a sha256 its declaration pins (TEMPO's), trusted as md5 pins are.
    ``commit`` is set for a dataset at a revision (``<id>@<rev>``): the full commit the file is
    read at, cached apart (see the module's docstring), never overridden by
    ``IR_BRIGHT_REVISION``; ``alias`` is the name the declaration gives that commit, if any.
    ``kin`` are the cache paths of the files its declaration pins to the same bytes, which at
    another commit may differ: a cached one is used only when its content is this file's
    (:func:`~ir_bright.hub.content.link_same`).
    """

    repo: str
    path: str
    namespace: str
    cache_path: str
    revision: str = "main"
    size: int | None = None
    md5: str | None = None
    aliases: tuple[str, ...] = field(default=())
    sha256: str | None = None
    twin: HubFile | None = None
    sha256_pin: str | None = None
    commit: str | None = None
    alias: str | None = None
    kin: tuple[str, ...] = field(default=())

    @property
    def asked_revision(self) -> str:
        """The revision fetched: the commit of a dataset at a revision, else the declared one
        or what ``IR_BRIGHT_REVISION`` says."""
        return self.commit if self.commit is not None else revision(self.repo, self.revision)

    @property
    def fetch_url(self) -> str:
        """Where the hub serves this file, credentials in ``HF_ENDPOINT`` included: for the
        request only, never for a message (:attr:`url` is the one to show)."""
        return (
            f"{endpoint()}/datasets/{self.repo}/resolve/"
            f"{quote(self.asked_revision, safe='')}/{quote(self.path)}"
        )

    @property
    def url(self) -> str:
        """Where the hub serves this file (credentials in ``HF_ENDPOINT`` redacted)."""
        return redact(self.fetch_url)

    @property
    def local_path(self) -> Path:
        """Where the file is (or will be) cached; it may not exist yet: ir_bright's own place,
        unless only the name itself holds a copy (see the module's docstring)."""
        own, named = self._own_path(), self._named_path()
        return named if not own.exists() and named.is_file() else own

    def _named_path(self) -> Path:
        """The file at its name in the cache, where ir_datasets' own loader looks for it (a
        file at a commit: its place in the commit's folder, which no loader but ours reads)."""
        if self.commit is not None:
            return cache_home() / self.namespace / f"@{self.commit}" / self.cache_path
        return cache_home() / self.namespace / self.cache_path

    def _own_path(self) -> Path:
        """The file's place in ir_bright's own folder, beside its name."""
        named = self._named_path()
        return named if self.commit is not None else named.parent / OWN_FOLDER / named.name

    def pins(self) -> tuple[int | None, str | None]:
        """The pinned (size, md5) while verification trusts pins, else (None, None)."""
        return (self.size, self.md5) if verification_mode() == "pins" else (None, None)

    def pinned_sha256(self) -> str | None:
        """The declared sha256 while verification trusts pins, else None."""
        return self.sha256_pin if verification_mode() == "pins" else None

    def places(self) -> list[Path]:
        """Every place a copy of this repository path (or of its kin) may be cached, at any
        revision: its declared place (own folder, then name) and each commit's folder."""
        folder = cache_home() / self.namespace
        commits = sorted(folder.glob("@*")) if folder.is_dir() else []
        found = []
        for cache_path in (self.cache_path, *self.kin):
            plain = HubFile(self.repo, self.path, self.namespace, cache_path)
            found += [plain._own_path(), plain._named_path(), *(c / cache_path for c in commits)]
        return found

    def shared(self) -> HubFile:
        """The file that is fetched for this one: its twin while pins are trusted, or itself."""
        return self.twin if self.twin is not None and verification_mode() == "pins" else self

    def cached_path(self) -> Path | None:
        """The cached copy (under this name or an alias), or None when not cached."""
        if self.shared() is not self:
            return self.shared().cached_path()
        for candidate in self._candidates():
            refuse_symlink(candidate)
            if candidate.is_file():
                return candidate
        return None

    def is_cached(self) -> bool:
        """Whether the file can be used without a download."""
        return self.cached_path() is not None

    def fetch(self) -> Path:
        """Return the path of the verified local copy, downloading it first if needed."""
        return self.ensure()[0]

    def ensure(self) -> tuple[Path, int]:
        """The verified local copy and the bytes THIS process downloaded for it (0 when it was
        cached already, or another process fetched it meanwhile); files of one repository
        used at two commits the declaration does not pin are named in a warning
        (:func:`~ir_bright.hub.fetch_records.watch`)."""
        path, fetched = self._ensure()
        shared = self.shared()
        watch(path, shared.commit or shared.revision, shared.commit)
        return path, fetched

    def _ensure(self) -> tuple[Path, int]:
        if self.shared() is not self:
            return self.shared()._ensure()
        found = self.cached_path()
        if found is not None:
            return found, 0
        if offline():
            raise offline_refusal(str(self.local_path), self.url)
        target = self._own_path()
        make_folder(target.parent)
        with file_lock(target):
            found = self.cached_path()  # another process may have finished meanwhile
            if found is not None:
                return found, 0
            if content.link_same(self, target):
                return target, 0
            fetched = transfer.download(self, target)
        return target, fetched

    def provenance(self) -> dict[str, Any] | None:
        """Where the cached copy came from
        (:func:`~ir_bright.hub.fetch_records.file_provenance`), or None when it is not cached;
        no network call."""
        shared = self.shared()
        found = shared.cached_path()
        if found is None:
            return None
        known = {"repo": shared.repo, "revision": shared.asked_revision, "path": shared.path}
        return file_provenance(found, known)

    def _candidates(self) -> Iterator[Path]:
        """Its own place, then its name itself; each followed, while pins are trusted, by the
        same folder's copies of its aliases."""
        for place in (self._own_path(), self._named_path()):
            yield place
            if verification_mode() == "pins":
                yield from (place.parent / alias for alias in self.aliases)
