"""The hub's listing APIs: a folder's files (``tree``) and one file's LFS facts (``paths-info``).

:func:`list_folder` serves files whose names are not pinned (BRIGHT-Pro): their
:class:`~ir_bright.hub.HubFile` carries the listing's size and sha256, checked like a pinned
md5. :func:`paths_info` gives a file's published size and sha256 before its download, to bound
and verify it.

A listing is bounded: a next link back to a page already read is a loop, and pages, entries
and bytes per page are capped (:data:`MAX_PAGES`, :data:`MAX_ENTRIES`, :data:`MAX_PAGE_BYTES`);
an entry of the wrong shape (a path that is not a string, a size that is not a whole number,
an ``lfs`` that is not an object) is a one-line error naming the entry and the field.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..errors import DamagedError, DownloadError, exhausted, unwritable_cache
from ..reading import parse_json, read_json
from ..store.derived import replaced_atomically
from ..store.exclusive import refuse_symlink
from ..store.lock import file_lock
from .config import (
    HttpPatience,
    endpoint,
    http_patience,
    make_folder,
    offline,
    offline_refusal,
    redact,
    revision,
)
from .http import CONNECT_TIMEOUT_S, Transient, refuse_status, retrying, send

SHA256 = re.compile(r"^[0-9a-f]{64}$")
GIT_OID = re.compile(r"^[0-9a-f]{40}$")
MAX_PAGES = 1000
"""A listing is refused past this many pages (the hub answers 1,000 entries a page)."""
MAX_ENTRIES = 100_000
"""A listing is refused past this many entries, files and folders together."""
MAX_PAGE_BYTES = 16 << 20
"""A listing page is refused past this many bytes (a page of 1,000 entries is about 300 KB)."""


@dataclass(frozen=True)
class ListedEntry:
    """A file of a hub folder listing: its path in the repository, size and (for LFS files)
    sha256."""

    path: str
    size: int | None
    sha256: str | None


def int_or_none(value: Any) -> int | None:
    """``value`` as an int, or None when it is None or not a whole number."""
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def list_folder(
    repo: str, revision_: str, folder: str, cache: Path, exact: bool = False
) -> list[ListedEntry]:
    """The files of ``folder`` in a hub dataset repository at ``revision_``, from the hub's
    listing API (``{HF_ENDPOINT}/api/datasets/{repo}/tree/{revision}/{folder}``, every page),
    kept at ``cache`` as JSON and read from there on later calls without any network call.

    ``exact``: ``revision_`` is a commit of a dataset at a revision, never overridden by
    ``IR_BRIGHT_REVISION``. Sub-folders are not listed. ``HF_HUB_OFFLINE`` and network
    failures raise :class:`OfflineError`; refusals :class:`DownloadError`; a damaged cached listing
    :class:`~ir_bright.errors.DamagedError` naming the file.
    """
    refuse_symlink(cache)
    if cache.is_file():
        return _read_listing(cache)
    rev = revision_ if exact else revision(repo, revision_)
    url = f"{endpoint()}/api/datasets/{repo}/tree/{quote(rev, safe='')}/" + quote(folder.strip("/"))
    if offline():
        raise offline_refusal(f"the listing {cache}", url)
    make_folder(cache.parent)
    with file_lock(cache):
        if not cache.is_file():
            patience = http_patience()
            entries = [_entry(i) for i in _listing_pages(url, patience) if i.get("type") == "file"]
            try:
                with replaced_atomically(cache) as out:
                    out.write(json.dumps([vars(e) for e in entries], indent=1).encode())
            except OSError as exc:
                raise unwritable_cache(cache, exc) from exc
    return _read_listing(cache)


def _listing_pages(url: str, patience: HttpPatience) -> Iterator[dict]:
    """Every entry of every page, following next links within the documented bounds."""
    seen: set[str] = set()
    entries = 0
    next_url: str | None = url
    while next_url:
        if next_url in seen:
            raise DownloadError(
                f"the listing {redact(url)} links back to a page already read "
                f"({redact(next_url)}): the hub or mirror loops; check HF_ENDPOINT"
            )
        if len(seen) == MAX_PAGES:
            raise DownloadError(
                f"the listing {redact(url)} runs past {MAX_PAGES} pages: check HF_ENDPOINT"
            )
        seen.add(next_url)
        page_url = next_url
        page, next_url = retrying(functools.partial(_listing_page, page_url, patience), patience)
        entries += len(page)
        if entries > MAX_ENTRIES:
            raise DownloadError(
                f"the listing {redact(url)} lists more than {MAX_ENTRIES} entries: check "
                "HF_ENDPOINT"
            )
        yield from page


def _listing_page(url: str, patience: HttpPatience) -> tuple[list[dict], str | None]:
    """One page of a listing and the URL of the next (None after the last)."""
    shown = redact(url)
    with send("GET", url, patience, stream=True) as response:
        refuse_status(url, response, "the listing")
        if response.status_code != 200:
            raise DownloadError(
                f"{shown} answered HTTP {response.status_code}: check HF_ENDPOINT, the "
                "repository and the revision"
            )
        page = json_answer(response, shown)
        if not isinstance(page, list) or not all(isinstance(i, dict) and "path" in i for i in page):
            raise DownloadError(f"{shown} did not answer a list of files: check HF_ENDPOINT")
        for item in page:
            _check_entry(item, shown)
        return page, response.links.get("next", {}).get("url")


def json_answer(response: Any, shown: str) -> Any:
    """The JSON a listing API answered, read within :data:`MAX_PAGE_BYTES`."""
    body = bytearray()
    for chunk in response.iter_content(1 << 16):
        body += chunk
        if len(body) > MAX_PAGE_BYTES:
            raise DownloadError(
                f"{shown} answered a listing page over {MAX_PAGE_BYTES} bytes: check HF_ENDPOINT"
            )
    try:
        return parse_json(bytes(body), shown)
    except ValueError as exc:
        raise DownloadError(f"{shown} did not answer a JSON listing: check HF_ENDPOINT") from exc


def _check_entry(item: dict, shown: str) -> None:
    """A one-line :class:`DownloadError` naming the entry and field of the wrong type."""
    path = item["path"]
    problem = None
    lfs = item.get("lfs")
    if not isinstance(path, str) or not path:
        problem, path = f"a path {path!r}, not a non-empty string", "?"
    elif not isinstance(item.get("type", ""), str):
        problem = f"type {item['type']!r}, not a string"
    elif not _is_size(item.get("size")):
        problem = f"size {item['size']!r}, not a whole number of 0 or more"
    elif lfs is not None and not isinstance(lfs, dict):
        problem = f"lfs {lfs!r}, not an object"
    elif isinstance(lfs, dict):
        for name in ("oid", "sha256"):
            if not isinstance(lfs.get(name, ""), str):
                problem = f"lfs.{name} {lfs[name]!r}, not a string"
        if not _is_size(lfs.get("size")):
            problem = f"lfs.size {lfs['size']!r}, not a whole number of 0 or more"
    if problem is not None:
        raise DownloadError(
            f"{shown} lists {path} with {problem[:200]}: the hub or mirror answers a listing "
            "ir_bright cannot read; check HF_ENDPOINT"
        )


def _is_size(value: Any) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)


def _entry(item: dict) -> ListedEntry:
    lfs = item.get("lfs") or {}
    sha256 = str(lfs.get("oid") or lfs.get("sha256") or "").lower() or None
    return ListedEntry(
        str(item["path"]),
        int_or_none(item.get("size")),
        sha256 if sha256 and SHA256.match(sha256) else None,
    )


def _read_listing(cache: Path) -> list[ListedEntry]:
    try:
        return [ListedEntry(**entry) for entry in read_json(cache)]
    except (OSError, ValueError, TypeError) as exc:
        if exhausted(exc):
            raise  # the machine's limit, not a damaged listing
        raise DamagedError(cache, f"not a readable listing: {type(exc).__name__}") from exc


def paths_info(repo: str, revision_: str, path: str) -> tuple[int | None, str | None, str | None]:
    """(size, sha256, git object id) of a file at ``revision_`` (as asked: the caller applies
    ``IR_BRIGHT_REVISION``) from the hub's listing API (``paths-info``):
    an LFS file's size and sha256, a file kept in git its size and git blob id; Nones when the
    hub does not answer it (the answer is read within :data:`MAX_PAGE_BYTES`)."""
    import requests

    rev = quote(revision_, safe="")
    url = f"{endpoint()}/api/datasets/{repo}/paths-info/{rev}"
    try:
        with send(
            "POST",
            url,
            http_patience(),
            data={"paths": path},
            stream=True,
            timeout=CONNECT_TIMEOUT_S,
        ) as response:
            answered = response.status_code == 200
            entries = json_answer(response, redact(url)) if answered else []
    except (Transient, requests.RequestException):
        return None, None, None
    except DownloadError:  # not JSON: no listing API there
        entries = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or entry.get("path") != path:
            continue
        lfs = entry.get("lfs")
        if isinstance(lfs, dict):
            oid, size = str(lfs.get("oid", "")).lower(), lfs.get("size")
            if SHA256.match(oid):
                return (size if _is_size(size) else None), oid, None
        elif lfs is None:  # kept in git: its object id is the git blob's
            oid, size = str(entry.get("oid", "")).lower(), entry.get("size")
            if GIT_OID.match(oid):
                return (size if _is_size(size) else None), None, oid
    return None, None, None
