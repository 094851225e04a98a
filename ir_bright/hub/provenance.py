"""Where each cached hub file came from: a small JSON sidecar written at download.

``<cached file>.provenance.json`` holds, for the file beside it: ``repo`` (the hub
repository), ``revision`` (the revision asked for, after ``IR_BRIGHT_REVISION``), ``commit``
(the commit it resolved to, from the hub's ``X-Repo-Commit`` response header; ``"unknown"``
when the hub or mirror did not say), ``path`` (in the repository), ``sha256`` and ``md5`` (of
the bytes cached), ``size`` (bytes) and ``fetched_at`` (UTC, ISO 8601 with ``Z``).

A file cached before this record existed (or by ir_datasets itself) gets its sha256 and md5
computed once, with ``commit`` ``"unknown"`` and ``fetched_at`` None: never invented. The
sidecar is trusted only while the file keeps the size and modification time it records.

Files of one repository fetched at two different known commits are mixed data (BRIGHT's
cache paths do not depend on the revision, so a file cached before a change of
``IR_BRIGHT_REVISION`` or of the hub's ``main`` stays in use): :func:`watch`, called for
every file a command uses, logs one warning per repository and new commit naming a file at
each commit. It warns rather than refuses: a commit is the repository's state when the file
was fetched, not the last change of the file, so two commits often hold the same bytes (a
commit that edited other files), and an offline machine could not repair the cache anyway.
To take one commit: delete the cached files named (their ``.provenance.json`` beside them
goes with them) and pin ``IR_BRIGHT_REVISION`` to that commit before fetching again.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import re
from pathlib import Path
from typing import Any

from ..store.derived import file_lock, refuse_symlink, replaced_atomically
from .config import cache_home

__all__ = [
    "SUFFIX",
    "UNKNOWN",
    "commit_from_headers",
    "file_provenance",
    "record",
    "recorded",
    "watch",
]

logger = logging.getLogger(__name__)

SUFFIX = ".provenance.json"
UNKNOWN = "unknown"
KEYS = ("repo", "revision", "commit", "path", "sha256", "md5", "size", "fetched_at")
_COMMIT = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")  # sha1, or sha256 object names
_READ_BYTES = 1 << 20
# (cache home, repository) -> {known commit: the first file seen at it}, for this process
_COMMITS_SEEN: dict[tuple[str, str], dict[str, str]] = {}
_WATCHED: set[tuple[Path, int]] = set()  # (file, modification time): each version once


def commit_from_headers(responses: Any) -> str | None:
    """The commit the hub resolved the revision to (``X-Repo-Commit``, on the hub's answer or
    on the redirect before a CDN's), or None."""
    for response in responses:
        value = response.headers.get("X-Repo-Commit", "").strip().lower()
        if _COMMIT.match(value):
            return value
    return None


def sidecar(path: Path) -> Path:
    """Where the provenance of the cached file ``path`` is kept."""
    return path.with_name(path.name + SUFFIX)


def record(path: Path, facts: dict[str, Any]) -> dict[str, Any]:
    """Write the provenance ``facts`` (the :data:`KEYS`) of the cached file ``path`` and
    return them; a cache that cannot take the sidecar only logs a warning."""
    facts = {key: facts.get(key) for key in KEYS}
    stat = path.stat()
    stored = {**facts, "file_size": stat.st_size, "file_mtime_ns": stat.st_mtime_ns}
    try:
        with replaced_atomically(sidecar(path)) as out:
            out.write(json.dumps(stored, indent=1).encode())
    except OSError as exc:
        logger.warning("cannot record the provenance of %s (%s)", path, exc.strerror or exc)
    return facts


def now() -> str:
    """The current UTC time, ISO 8601 to the second with ``Z``."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def file_provenance(path: Path | str, known: dict[str, Any] | None = None) -> dict | None:
    """The provenance of the cached hub file ``path`` (keys :data:`KEYS`), or None when
    there is no such file.

    For a file without a current sidecar (cached before provenance was recorded, by
    ir_datasets, or changed since) sha256 and md5 are computed once and recorded, with
    ``commit`` ``"unknown"``, ``fetched_at`` None and ``repo``/``revision``/``path`` from
    ``known`` (what the caller knows of the file) or None.
    """
    path = Path(path)
    refuse_symlink(path)
    if not path.is_file():
        return None
    stored = _read(path)
    if stored is None:
        try:
            lock = file_lock(path)  # the download's lock: one computation, never a torn record
            lock.acquire()
        except OSError:  # a read-only cache: computed, not remembered
            return _computed(path, known)
        try:
            stored = _read(path) or record(path, _computed(path, known))
        finally:
            lock.release()
    return {key: stored.get(key) for key in KEYS}


def _computed(path: Path, known: dict[str, Any] | None) -> dict[str, Any]:
    sha256, md5 = hashlib.sha256(), hashlib.md5()
    with open(path, "rb") as source:
        while chunk := source.read(_READ_BYTES):
            sha256.update(chunk)
            md5.update(chunk)
    facts = {key: (known or {}).get(key) for key in ("repo", "revision", "path")}
    facts.update(
        commit=UNKNOWN,
        sha256=sha256.hexdigest(),
        md5=md5.hexdigest(),
        size=path.stat().st_size,
        fetched_at=None,
    )
    return facts


def _read(path: Path) -> dict[str, Any] | None:
    """The sidecar's facts while they still describe the file, else None."""
    place = sidecar(path)
    try:
        refuse_symlink(place)
        stored = json.loads(place.read_text("utf-8"))
        stat = path.stat()
    except (OSError, ValueError):
        return None
    if not isinstance(stored, dict):
        return None
    current = (stat.st_size, stat.st_mtime_ns)
    if (stored.get("file_size"), stored.get("file_mtime_ns")) != current:
        return None
    return stored


def recorded(path: Path | str) -> dict[str, Any] | None:
    """The facts of ``path``'s sidecar while it still describes the file, else None; never
    hashes the file (cheap enough for every use of a file)."""
    stored = _read(Path(path))
    return None if stored is None else {key: stored.get(key) for key in KEYS}


def watch(path: Path) -> None:
    """Note that this process uses the cached hub file ``path``; the first file of a
    repository at a second known commit logs one warning naming both files and commits."""
    try:
        version = (path, path.stat().st_mtime_ns)
    except OSError:
        return
    if version in _WATCHED:
        return
    _WATCHED.add(version)
    facts = recorded(path)
    if facts is None or not facts.get("repo") or facts.get("commit") in (None, UNKNOWN):
        return
    seen = _COMMITS_SEEN.setdefault((str(cache_home()), facts["repo"]), {})
    if facts["commit"] in seen:
        return
    seen[facts["commit"]] = f"{facts.get('path') or path.name} (cached as {path})"
    if len(seen) > 1:
        files = "; ".join(f"{file} at {commit}" for commit, file in seen.items())
        logger.warning(
            "hub files of %s come from %d commits (%s): results mix them. To use one, delete "
            "the cached files of the other commits and pin IR_BRIGHT_REVISION to a commit",
            facts["repo"],
            len(seen),
            files,
        )
