"""The hub's listing APIs: a folder's files (``tree``) and one file's LFS facts (``paths-info``).

:func:`list_folder` serves files whose names are not pinned (BRIGHT-Pro): their
:class:`~ir_bright.hub.HubFile` carries the listing's size and sha256, checked like a pinned
md5. :func:`paths_info` gives a file's published size and sha256 when its download did not.
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

from ..errors import CacheError, DownloadError, OfflineError
from ..store.derived import file_lock, refuse_symlink, replaced_atomically
from .config import (
    HttpSettings,
    endpoint,
    http_settings,
    make_folder,
    offline,
    redact,
    revision,
)
from .http import CONNECT_TIMEOUT_S, Transient, refuse_status, retrying, send

__all__ = ["ListedEntry", "SHA256", "int_or_none", "list_folder", "paths_info"]

SHA256 = re.compile(r"^[0-9a-f]{64}$")


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


def list_folder(repo: str, revision_: str, folder: str, cache: Path) -> list[ListedEntry]:
    """The files of ``folder`` in a hub dataset repository at ``revision_``, from the hub's
    listing API (``{HF_ENDPOINT}/api/datasets/{repo}/tree/{revision}/{folder}``, every page),
    kept at ``cache`` as JSON and read from there on later calls without any network call.

    Sub-folders are not listed. ``HF_HUB_OFFLINE`` and network failures raise
    :class:`OfflineError`; refusals :class:`DownloadError`; a damaged cached listing
    :class:`CacheError` naming the file.
    """
    refuse_symlink(cache)
    if cache.is_file():
        return _read_listing(cache)
    rev = revision(repo, revision_)
    url = f"{endpoint()}/api/datasets/{repo}/tree/{quote(rev, safe='')}/" + quote(folder.strip("/"))
    if offline():
        raise OfflineError(
            f"the listing {cache} is not cached and HF_HUB_OFFLINE is set: fetch it ahead "
            f"(ir-bright download ...) on a machine with network ({redact(url)})"
        )
    make_folder(cache.parent)
    with file_lock(cache):
        if not cache.is_file():
            settings = http_settings()
            entries = [_entry(i) for i in _listing_pages(url, settings) if i.get("type") == "file"]
            try:
                with replaced_atomically(cache) as out:
                    out.write(json.dumps([vars(e) for e in entries], indent=1).encode())
            except OSError as exc:
                raise CacheError(
                    f"cannot write {cache} ({exc.strerror or exc}): set IR_DATASETS_HOME to "
                    "a writable folder with room"
                ) from exc
    return _read_listing(cache)


def _listing_pages(url: str | None, settings: HttpSettings) -> Iterator[dict]:
    while url:
        page, url = retrying(functools.partial(_listing_page, url, settings), settings)
        yield from page


def _listing_page(url: str, settings: HttpSettings) -> tuple[list[dict], str | None]:
    """One page of a listing and the URL of the next (None after the last)."""
    shown = redact(url)
    with send("GET", url, settings) as response:
        refuse_status(url, response, "the listing")
        if response.status_code != 200:
            raise DownloadError(
                f"{shown} answered HTTP {response.status_code}: check HF_ENDPOINT, the "
                "repository and the revision"
            )
        try:
            page = response.json()
        except ValueError as exc:
            raise DownloadError(
                f"{shown} did not answer a JSON listing: check HF_ENDPOINT"
            ) from exc
        if not isinstance(page, list) or not all(isinstance(i, dict) and "path" in i for i in page):
            raise DownloadError(f"{shown} did not answer a list of files: check HF_ENDPOINT")
        return page, response.links.get("next", {}).get("url")


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
        return [ListedEntry(**entry) for entry in json.loads(cache.read_text("utf-8"))]
    except (OSError, ValueError, TypeError) as exc:
        raise CacheError(
            f"cannot read the cached listing {cache} ({type(exc).__name__}): delete it; it is "
            "fetched again on next use"
        ) from exc


def paths_info(repo: str, revision_: str, path: str) -> tuple[int | None, str | None]:
    """(size, sha256) of an LFS file from the hub's listing API (``paths-info``), or Nones."""
    import requests

    rev = quote(revision(repo, revision_), safe="")
    url = f"{endpoint()}/api/datasets/{repo}/paths-info/{rev}"
    try:
        response = send(
            "POST", url, http_settings(), data={"paths": path}, timeout=CONNECT_TIMEOUT_S
        )
        entries = response.json() if response.status_code == 200 else []
    except (Transient, requests.RequestException, ValueError):
        return None, None
    for entry in entries if isinstance(entries, list) else []:
        lfs = entry.get("lfs") if isinstance(entry, dict) else None
        if entry.get("path") == path and isinstance(lfs, dict):
            oid = str(lfs.get("oid", "")).lower()
            size = lfs.get("size")
            if SHA256.match(oid):
                return (size if isinstance(size, int) else None), oid
    return None, None
