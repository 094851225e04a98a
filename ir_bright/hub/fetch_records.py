"""The fetch record of each cached hub file, where it came from: a small JSON sidecar written at
download.

``<cached file>.provenance.json`` holds, for the file beside it: ``repo`` (the hub
repository), ``revision`` (the revision asked for, after ``IR_BRIGHT_REVISION``), ``commit``
(the commit it resolved to, from the hub's ``X-Repo-Commit`` response header; ``"unknown"``
when the hub or mirror did not say), ``path`` (in the repository), ``sha256`` and ``md5`` (of
the bytes cached), ``size`` (bytes), ``fetched_at`` (UTC, ISO 8601 with ``Z``), ``alias`` (the
name the family's declaration gives the commit of a dataset at a revision, ``<id>@mteb-v1``,
else None) and ``pin`` (what the bytes were verified against: ``source`` ``"declaration"``,
``"hub listing"`` or ``"hub headers"``, with the ``md5``, ``sha256`` or ``git_blob_id`` it
gave; None when unverified, ``IR_BRIGHT_VERIFY=0``).

A file cached before this record existed (or by ir_datasets itself) gets its sha256 and md5
computed once, with ``commit`` ``"unknown"`` and ``fetched_at`` None: never invented.

A sidecar is used two ways. :func:`file_provenance`, which reports the facts (the JSON outputs,
a run's sidecar, ``ir-bright info``), computes the file's sha256 and md5 (once per process and
version of the file: 3 to 5 s per GB measured on a loaded 2-core machine) and keeps the record
only when it names those bytes: a checksum ir_bright reports was always computed over the
cached bytes. What cannot be checked offline is the rest of the record: the commit, repository
and time are what the hub said at download, so a record written by hand that names the right
bytes is believed.
:func:`recorded` and :func:`watch`, run for every use of a file, never hash: they trust a record
while the file keeps the size and modification time it records, and only warn from it.

Files of one repository fetched at two different known commits are mixed data (a dataset's
declared cache paths do not depend on ``IR_BRIGHT_REVISION``, so a file cached before a change
of it stays in use): :func:`watch`, called for every file a command uses, logs one warning per
repository and new commit naming a file at each commit. The commits a declaration pins on
purpose (TEMPO reads its documents and its examples at two) count as one, and a dataset at a
revision (``<id>@<rev>``, cached in its commit's folder) is watched apart from the others.
It warns rather than refuses: a commit is the repository's state when the file
was fetched, not the last change of the file, so two commits often hold the same bytes (a
commit that edited other files), and an offline machine could not repair the cache anyway.
To take one commit: read the dataset at it (``<id>@<commit>``), or delete the cached files
named (their ``.provenance.json`` beside them goes with them) and unset
``IR_BRIGHT_REVISION``.
"""

from __future__ import annotations

import datetime
import json
import logging
import re
from pathlib import Path
from typing import Any

from ..reading import file_digests, read_json
from ..store.derived import replaced_atomically
from ..store.exclusive import refuse_symlink
from ..store.lock import file_lock
from .config import cache_home

logger = logging.getLogger(__name__)

SUFFIX = ".provenance.json"
UNKNOWN = "unknown"
KEYS = ("repo", "revision", "commit", "path", "sha256", "md5", "size", "fetched_at", "alias", "pin")
_COMMIT = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")  # sha1, or sha256 object names
SIDECAR_BYTES = 1 << 20  # a sidecar is a few hundred bytes: anything over 1 MiB is not one
# (cache home, repository, commit of the dataset at a revision or None) -> {known commit, or
# PINNED for the declared ones: the first file seen at it}, for this process
_COMMITS_SEEN: dict[tuple[str, str, str | None], dict[str, str]] = {}
PINNED = "pinned"
_WATCHED: set[tuple[Path, int]] = set()  # (file, modification time): each version once
_DIGESTS: dict[tuple[Any, ...], tuple[int, dict[str, str]]] = {}  # file version -> checksums


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
    there is no such file. Its sha256 is computed (once per process and version of the file)
    and must be the recorded one: these facts certify the bytes as they are now.

    A file whose record names other bytes (a record written by hand, a file changed in
    place), or that has no record (cached before provenance was recorded, by ir_datasets)
    gets its facts computed and recorded, with ``commit`` ``"unknown"``, ``fetched_at`` None
    and ``repo``/``revision``/``path`` from ``known`` (what the caller knows of the file) or
    None; a record that only names another size or time of the same bytes (a copied cache)
    is kept and brought up to date.
    """
    path = Path(path)
    refuse_symlink(path)
    if not path.is_file():
        return None
    size, sums = _digests(path)
    stored = _matching(_read(path), size, sums)
    if stored is None or not _current(stored, path):
        try:
            lock = file_lock(path)  # the download's lock: one record, never a torn one
            lock.acquire()
        except OSError:  # a read-only cache: computed, not remembered
            return stored or _computed(path, known, size, sums)
        try:
            stored = _rerecorded(path, known, size, sums)
        finally:
            lock.release()
    return {key: stored.get(key) for key in KEYS}


def _rerecorded(
    path: Path, known: dict[str, Any] | None, size: int, sums: dict[str, str]
) -> dict[str, Any]:
    """The record of ``path`` (the caller holds its lock): kept when it names these bytes,
    else replaced by facts computed from them."""
    previous = _read(path)
    stored = _matching(previous, size, sums)
    if stored is not None and _current(stored, path):
        return stored  # another process brought it up to date meanwhile
    if stored is None and previous is not None:
        logger.warning(
            "the provenance record of %s names other bytes (sha256 %s, the file's %s): "
            "recording its own, with commit unknown",
            path,
            previous.get("sha256"),
            sums["sha256"],
        )
    return record(path, stored or _computed(path, known, size, sums))


def _matching(stored: dict[str, Any] | None, size: int, sums: dict[str, str]) -> dict | None:
    """``stored`` when it names a file of ``size`` bytes with these checksums, else None."""
    if stored is None or stored.get("size") != size:
        return None
    if stored.get("sha256") != sums["sha256"] or stored.get("md5") != sums["md5"]:
        return None
    return stored


def _digests(path: Path) -> tuple[int, dict[str, str]]:
    """Size, sha256 and md5 of ``path``, computed once per version of the file (its inode,
    size and times) in this process."""
    info = path.stat()
    version = (str(path), info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    found = _DIGESTS.get(version)
    if found is None:
        found = _DIGESTS[version] = file_digests(path, ("sha256", "md5"))
    return found


def _computed(
    path: Path, known: dict[str, Any] | None, size: int, sums: dict[str, str]
) -> dict[str, Any]:
    facts = {key: (known or {}).get(key) for key in ("repo", "revision", "path")}
    facts.update(commit=UNKNOWN, sha256=sums["sha256"], md5=sums["md5"], size=size, fetched_at=None)
    return facts


def _read(path: Path) -> dict[str, Any] | None:
    """The facts of ``path``'s sidecar, whatever file they describe, or None; a sidecar that
    is not a regular file, or not JSON within bounds, is as none."""
    place = sidecar(path)
    try:
        refuse_symlink(place)
        stored = read_json(place, SIDECAR_BYTES)
    except (OSError, ValueError):
        return None
    return stored if isinstance(stored, dict) else None


def _current(stored: dict[str, Any], path: Path) -> bool:
    """Whether ``stored`` names the size and modification time ``path`` has now."""
    try:
        stat = path.stat()
    except OSError:
        return False
    recorded = (stored.get("file_size"), stored.get("file_mtime_ns"))
    return recorded == (stat.st_size, stat.st_mtime_ns)


def recorded(path: Path | str) -> dict[str, Any] | None:
    """The facts of ``path``'s sidecar while it still describes the file, else None; never
    hashes the file (cheap enough for every use of a file)."""
    path = Path(path)
    stored = _read(path)
    if stored is None or not _current(stored, path):
        return None
    return {key: stored.get(key) for key in KEYS}


def watch(path: Path, declared: str | None = None, view: str | None = None) -> None:
    """Note that this process uses the cached hub file ``path``, declared at the revision
    ``declared`` and read for the dataset at the revision ``view`` (None: the declared
    datasets); the first file of a repository at a second known commit (the declared commits
    counting as one) logs one warning naming both files and commits."""
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
    seen = _COMMITS_SEEN.setdefault((str(cache_home()), facts["repo"], view), {})
    group = PINNED if facts["commit"] == declared else facts["commit"]
    if group in seen:
        return
    seen[group] = f"{facts.get('path') or path.name} (cached as {path}) at {facts['commit']}"
    if len(seen) > 1:
        logger.warning(
            "hub files of %s come from %d commits (%s): results mix them. To use one, read "
            "the dataset at it (<id>@<commit>), or delete the cached files of the other "
            "commits and unset IR_BRIGHT_REVISION",
            facts["repo"],
            len(seen),
            "; ".join(seen.values()),
        )
