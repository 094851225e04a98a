"""One file of a Hugging Face hub dataset, fetched once into a verified cache.

This module knows nothing about BRIGHT or MM-BRIGHT. It turns a :class:`HubFile` (repository,
revision, path in the repository, where to cache it, what it must hash to) into a local path:

- URL: ``{HF_ENDPOINT}/datasets/{repo}/resolve/{revision}/{path}``, ``HF_ENDPOINT`` defaulting
  to ``https://huggingface.co``; ``HF_TOKEN`` is sent as a bearer token when set.
- Cache: ``{IR_DATASETS_HOME}/{namespace}/{cache_path}`` (``IR_DATASETS_HOME`` defaults to
  ``~/.ir_datasets``, as in ir_datasets).
- A cached file is always complete and verified: the body streams into ``<file>.part`` under a
  file lock, is checked (size, md5 when pinned, sha256 when the hub's ETag is one) and only
  then renamed into place. A failed, cut-off or killed download leaves no file behind under
  the final name; a checksum mismatch keeps nothing.
- A cached file is used without any network call. ``HF_HUB_OFFLINE=1`` forbids the network;
  a missing file then fails at once with a message saying how to fetch it ahead.
- ``IR_BRIGHT_VERIFY=0`` skips the size and checksum checks (for re-exported mirrors and tests).
- :func:`list_folder` lists a folder of the repository through the hub's listing API, for files
  whose names are not pinned (BRIGHT-Pro); their ``HubFile`` carries the listing's size and
  ``sha256``, checked like a pinned md5.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from .errors import CacheError, ChecksumError, DownloadError, OfflineError

__all__ = [
    "HubFile",
    "ListedEntry",
    "cache_home",
    "catalogue",
    "endpoint",
    "human_size",
    "list_folder",
    "offline",
    "verification_enabled",
]

logger = logging.getLogger(__name__)

DEFAULT_ENDPOINT = "https://huggingface.co"
CHUNK_BYTES = 1 << 20
CONNECT_TIMEOUT_S = 10
READ_TIMEOUT_S = 60
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_FALSE = {"0", "false", "no", "off"}
_TRUE = {"1", "true", "yes", "on"}


def endpoint() -> str:
    """The hub's base URL: ``HF_ENDPOINT`` or ``https://huggingface.co``, no trailing slash."""
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def cache_home() -> Path:
    """The ir_datasets home folder (``IR_DATASETS_HOME`` or ``~/.ir_datasets``), read per call."""
    return Path(os.environ.get("IR_DATASETS_HOME") or Path.home() / ".ir_datasets")


def verification_enabled() -> bool:
    """False when ``IR_BRIGHT_VERIFY`` is 0/false/no/off: sizes and checksums are not checked."""
    return os.environ.get("IR_BRIGHT_VERIFY", "1").strip().lower() not in _FALSE


def offline() -> bool:
    """True when ``HF_HUB_OFFLINE`` forbids network access."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUE


@dataclass(frozen=True)
class HubFile:
    """A file of a hub dataset repository and the place it is cached.

    ``aliases`` are other cache paths (same namespace) whose files hold the same bytes per the
    pins; one of them being present avoids a download. ``twin`` is another hub file with the
    same pinned checksum (BRIGHT's aops and theoremqa_questions corpora): this file is then
    fetched and cached as the twin, once. Both rest on checksums, so both apply only while
    verification is on; a re-exported mirror (``IR_BRIGHT_VERIFY=0``) gets each path fetched
    as it is.
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

    @property
    def url(self) -> str:
        """Where the hub serves this file, under the current ``HF_ENDPOINT``."""
        return (
            f"{endpoint()}/datasets/{self.repo}/resolve/{quote(self.revision, safe='')}/"
            + quote(self.path)
        )

    @property
    def local_path(self) -> Path:
        """Where the file is (or will be) cached; it may not exist yet."""
        return cache_home() / self.namespace / self.cache_path

    def shared(self) -> HubFile:
        """The file that is fetched for this one: its twin while verification is on, or itself."""
        return self.twin if self.twin is not None and verification_enabled() else self

    def cached_path(self) -> Path | None:
        """The cached copy (under this name or an alias), or None when not cached."""
        if self.shared() is not self:
            return self.shared().cached_path()
        for candidate in self._candidates():
            if candidate.is_file():
                return candidate
        return None

    def is_cached(self) -> bool:
        """Whether the file can be used without a download."""
        return self.cached_path() is not None

    def fetch(self) -> Path:
        """Return the path of the verified local copy, downloading it first if needed."""
        if self.shared() is not self:
            return self.shared().fetch()
        found = self.cached_path()
        if found is not None:
            return found
        if offline():
            raise OfflineError(
                f"{self.local_path} is not cached and HF_HUB_OFFLINE is set: fetch it ahead "
                f"(ir-bright download ...) on a machine with network, or copy {self.url} there"
            )
        _make_folder(self.local_path.parent)
        import filelock

        with filelock.FileLock(str(self.local_path) + ".lock"):
            found = self.cached_path()  # another process may have finished meanwhile
            if found is not None:
                return found
            _download(self, self.local_path)
        return self.local_path

    def _candidates(self) -> Iterator[Path]:
        yield self.local_path
        if verification_enabled():
            folder = self.local_path.parent
            for alias in self.aliases:
                yield folder / alias


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".ir_bright_write_probe"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise CacheError(
            f"cannot write the cache folder {folder} ({exc.strerror or exc}): "
            "set IR_DATASETS_HOME to a writable folder"
        ) from exc


def _auth_headers() -> dict[str, str]:
    from . import __version__

    headers = {"User-Agent": f"ir_bright/{__version__}"}
    token = os.environ.get("HF_TOKEN")
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return headers


def _open(file: HubFile):
    import requests

    url = file.url
    try:
        response = requests.get(
            url,
            headers=_auth_headers(),
            stream=True,
            timeout=(CONNECT_TIMEOUT_S, READ_TIMEOUT_S),
        )
    except requests.RequestException as exc:
        raise OfflineError(
            f"cannot reach {url} to fetch {file.path} ({type(exc).__name__}): check the network "
            "or HF_ENDPOINT, or fetch it ahead with `ir-bright download` where there is network"
        ) from exc
    if response.status_code in (401, 403):
        response.close()
        raise DownloadError(
            f"{url} answered {response.status_code}: set HF_TOKEN to a token with access"
        )
    if response.status_code != 200:
        response.close()
        raise DownloadError(
            f"{url} answered HTTP {response.status_code}: check HF_ENDPOINT and the revision"
        )
    return response


def _download(file: HubFile, target: Path) -> None:
    """Stream ``file`` into ``target`` via ``target.part``; verify; rename. Keeps nothing else."""
    import requests

    partial = target.with_name(target.name + ".part")
    response = _open(file)
    expected_sha256 = _sha256_from_etag(response.headers)
    announced = _int_or_none(response.headers.get("Content-Length"))
    md5, sha256 = hashlib.md5(), hashlib.sha256()
    received = 0
    logger.info("downloading %s (%s)", file.url, human_size(announced or file.size))
    try:
        with response, open(partial, "wb") as out, _progress(file, announced) as bar:
            try:
                for chunk in response.iter_content(CHUNK_BYTES):
                    out.write(chunk)
                    md5.update(chunk)
                    sha256.update(chunk)
                    received += len(chunk)
                    bar.update(len(chunk))
            except requests.RequestException as exc:
                raise DownloadError(
                    f"download of {file.url} broke off after {received} bytes "
                    f"({type(exc).__name__}); nothing was cached, try again"
                ) from exc
            out.flush()
            os.fsync(out.fileno())
        if announced is not None and received != announced:
            raise DownloadError(
                f"download of {file.url} was cut off at {received} of {announced} bytes; "
                "nothing was cached, try again"
            )
        if verification_enabled():
            _verify(file, received, md5.hexdigest(), sha256.hexdigest(), expected_sha256)
        os.replace(partial, target)
    except OSError as exc:  # writing the cache: a full disk, a read-only file system
        partial.unlink(missing_ok=True)
        raise CacheError(
            f"cannot write {partial} ({exc.strerror or exc}): free some space or set "
            "IR_DATASETS_HOME to a disk with room; nothing was cached"
        ) from exc
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    logger.info("cached %s", target)


def _verify(file: HubFile, size: int, md5: str, sha256: str, expected_sha256: str | None) -> None:
    hint = "nothing was cached; set IR_BRIGHT_VERIFY=0 only for a trusted re-exported mirror"
    if file.size is not None and size != file.size:
        raise ChecksumError(
            f"{file.path} from {file.url} has {size} bytes, expected {file.size}; {hint}"
        )
    if file.md5 is not None and md5 != file.md5:
        raise ChecksumError(
            f"{file.path} from {file.url} has md5 {md5}, expected {file.md5}; {hint}"
        )
    if file.sha256 is not None and sha256 != file.sha256:
        raise ChecksumError(
            f"{file.path} from {file.url} has sha256 {sha256}, the hub's listing says "
            f"{file.sha256}; {hint}"
        )
    if expected_sha256 is not None and sha256 != expected_sha256:
        raise ChecksumError(
            f"{file.path} from {file.url} has sha256 {sha256}, the hub's ETag says "
            f"{expected_sha256}; {hint}"
        )


def _sha256_from_etag(headers) -> str | None:
    """The hub gives large (LFS) files their sha256 as ETag (X-Linked-Etag behind a redirect)."""
    for name in ("X-Linked-Etag", "ETag"):
        value = headers.get(name, "").strip()
        if value.startswith("W/"):
            continue
        value = value.strip('"').lower()
        if _SHA256.match(value):
            return value
    return None


def _int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _progress(file: HubFile, total: int | None):
    from tqdm.auto import tqdm

    return tqdm(
        total=total or file.size,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        desc=Path(file.path).name,
        leave=False,
        disable=None,  # shown on a terminal only
    )


def human_size(size: int | None) -> str:
    """``1.5 MB``-style size for messages (``unknown size`` for None)."""
    if size is None:
        return "unknown size"
    value = float(size)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if value < 1024 or unit == "TB":
            return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def catalogue(data: dict) -> dict[str, HubFile]:
    """The hub files described by a catalogue (one of ``ir_bright/etc/*_files.json``).

    ``data`` has ``repo``, ``revision``, ``namespace`` and ``files``: key -> ``path``,
    ``cache_path`` and optionally ``size``, ``md5`` and ``same_as`` (the key of a file with the
    same pinned checksum: the two become twins, fetched once while verification is on).
    """
    entries = data["files"]

    def make(key: str, **links) -> HubFile:
        entry = entries[key]
        return HubFile(
            repo=data["repo"],
            path=entry["path"],
            namespace=data["namespace"],
            cache_path=entry["cache_path"],
            revision=data.get("revision", "main"),
            size=entry.get("size"),
            md5=entry.get("md5"),
            **links,
        )

    twins: dict[str, list[str]] = {}
    for key, entry in entries.items():
        if "same_as" in entry:
            twins.setdefault(entry["same_as"], []).append(key)
    files = {
        key: make(key, aliases=tuple(entries[t]["cache_path"] for t in twins.get(key, ())))
        for key, entry in entries.items()
        if "same_as" not in entry
    }
    for canonical, keys in twins.items():
        files.update({key: make(key, twin=files[canonical]) for key in keys})
    return files


@dataclass(frozen=True)
class ListedEntry:
    """A file of a hub folder listing: its path in the repository, size and (for LFS files)
    sha256."""

    path: str
    size: int | None
    sha256: str | None


def list_folder(repo: str, revision: str, folder: str, cache: Path) -> list[ListedEntry]:
    """The files of ``folder`` in a hub dataset repository at ``revision``, from the hub's
    listing API (``{HF_ENDPOINT}/api/datasets/{repo}/tree/{revision}/{folder}``, every page),
    kept at ``cache`` as JSON and read from there on later calls without any network call.

    Sub-folders are not listed. ``HF_HUB_OFFLINE`` and network failures raise
    :class:`OfflineError`; refusals :class:`DownloadError`; a damaged cached listing
    :class:`CacheError` naming the file.
    """
    if cache.is_file():
        return _read_listing(cache)
    url = f"{endpoint()}/api/datasets/{repo}/tree/{quote(revision, safe='')}/" + quote(
        folder.strip("/")
    )
    if offline():
        raise OfflineError(
            f"the listing {cache} is not cached and HF_HUB_OFFLINE is set: fetch it ahead "
            f"(ir-bright download ...) on a machine with network ({url})"
        )
    _make_folder(cache.parent)
    import filelock

    with filelock.FileLock(str(cache) + ".lock"):
        if not cache.is_file():
            entries = [_entry(item) for item in _listing_pages(url) if item.get("type") == "file"]
            partial = cache.with_name(cache.name + ".part")
            try:
                partial.write_text(json.dumps([vars(e) for e in entries], indent=1), "utf-8")
                os.replace(partial, cache)
            except OSError as exc:
                partial.unlink(missing_ok=True)
                raise CacheError(
                    f"cannot write {partial} ({exc.strerror or exc}): set IR_DATASETS_HOME to "
                    "a writable folder with room"
                ) from exc
    return _read_listing(cache)


def _listing_pages(url: str) -> Iterator[dict]:
    import requests

    while url:
        try:
            response = requests.get(
                url, headers=_auth_headers(), timeout=(CONNECT_TIMEOUT_S, READ_TIMEOUT_S)
            )
        except requests.RequestException as exc:
            raise OfflineError(
                f"cannot reach {url} ({type(exc).__name__}): check the network or HF_ENDPOINT"
            ) from exc
        with response:
            if response.status_code in (401, 403):
                raise DownloadError(
                    f"{url} answered {response.status_code}: set HF_TOKEN to a token with access"
                )
            if response.status_code != 200:
                raise DownloadError(
                    f"{url} answered HTTP {response.status_code}: check HF_ENDPOINT, the "
                    "repository and the revision"
                )
            try:
                page = response.json()
            except ValueError as exc:
                raise DownloadError(
                    f"{url} did not answer a JSON listing: check HF_ENDPOINT"
                ) from exc
            if not isinstance(page, list) or not all(
                isinstance(i, dict) and "path" in i for i in page
            ):
                raise DownloadError(f"{url} did not answer a list of files: check HF_ENDPOINT")
            yield from page
            url = response.links.get("next", {}).get("url")


def _entry(item: dict) -> ListedEntry:
    lfs = item.get("lfs") or {}
    sha256 = str(lfs.get("oid") or lfs.get("sha256") or "").lower() or None
    return ListedEntry(
        str(item["path"]),
        _int_or_none(item.get("size")),
        sha256 if sha256 and _SHA256.match(sha256) else None,
    )


def _read_listing(cache: Path) -> list[ListedEntry]:
    try:
        return [ListedEntry(**entry) for entry in json.loads(cache.read_text("utf-8"))]
    except (OSError, ValueError, TypeError) as exc:
        raise CacheError(
            f"cannot read the cached listing {cache} ({type(exc).__name__}): delete it; it is "
            "fetched again on next use"
        ) from exc
