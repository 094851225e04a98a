"""Where each cached hub file came from: a small JSON sidecar written at download.

``<cached file>.provenance.json`` holds, for the file beside it: ``repo`` (the hub
repository), ``revision`` (the revision asked for, after ``IR_BRIGHT_REVISION``), ``commit``
(the commit it resolved to, from the hub's ``X-Repo-Commit`` response header; ``"unknown"``
when the hub or mirror did not say), ``path`` (in the repository), ``sha256`` and ``md5`` (of
the bytes cached), ``size`` (bytes) and ``fetched_at`` (UTC, ISO 8601 with ``Z``).

A file cached before this record existed (or by ir_datasets itself) gets its sha256 and md5
computed once, with ``commit`` ``"unknown"`` and ``fetched_at`` None: never invented. The
sidecar is trusted only while the file keeps the size and modification time it records.
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

__all__ = ["SUFFIX", "UNKNOWN", "commit_from_headers", "file_provenance", "record"]

logger = logging.getLogger(__name__)

SUFFIX = ".provenance.json"
UNKNOWN = "unknown"
KEYS = ("repo", "revision", "commit", "path", "sha256", "md5", "size", "fetched_at")
_COMMIT = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")  # sha1, or sha256 object names
_READ_BYTES = 1 << 20


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
