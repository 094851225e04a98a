"""One copy on disk of a file whose content is the same at two revisions.

A dataset at a revision caches its files in that commit's folder
(:class:`~ir_bright.hub.HubFile`), so that no command mixes two commits. Most files are the same
at neighbouring commits (a commit edits a few): before a download, :func:`link_same` looks for a
cached copy of the same repository path (at the declared place or in another commit's folder)
whose content is the file's, by what identifies it without a download, whatever
``IR_BRIGHT_VERIFY`` says:

1. the declared md5 and size, or the declared sha256 (the pins of the declared revision);
2. else the hub's listing for the file at this revision (``paths-info``): the sha256 of a file
   in LFS, the git blob id of a file kept in git, with its size.

The copy's own record (its sha256, md5 and size, computed over its bytes at download) must
match; a match is hard-linked into place (copied where the file system cannot link) and
recorded at this revision, with what identified it. Nothing matches: the caller downloads.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from pathlib import Path
from typing import Any, Protocol

from ..store.exclusive import refuse_symlink
from . import fetch_records
from .config import offline
from .listing import paths_info
from .verify import git_blob_id

logger = logging.getLogger(__name__)

FULL_COMMIT = re.compile(r"^[0-9a-f]{40}$")


class Located(Protocol):
    """What :func:`link_same` needs of a hub file (a :class:`~ir_bright.hub.HubFile`)."""

    @property
    def repo(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def size(self) -> int | None: ...
    @property
    def md5(self) -> str | None: ...
    @property
    def sha256_pin(self) -> str | None: ...
    @property
    def alias(self) -> str | None: ...
    @property
    def asked_revision(self) -> str: ...
    def places(self) -> list[Path]: ...


def link_same(file: Located, target: Path) -> bool:
    """Put at ``target`` a cached copy of ``file``'s content found elsewhere, recorded at
    ``file``'s revision; False when none is cached (the caller holds ``target``'s lock)."""
    candidates = [p for p in file.places() if p != target and _regular(p)]
    if not candidates:
        return False
    for identify in (_declared, _listed):
        wanted = identify(file)
        if wanted is None:
            continue
        for candidate in candidates:
            if wanted.get("size") not in (None, candidate.stat().st_size):
                continue  # not worth hashing
            facts = fetch_records.file_provenance(candidate)
            if facts is not None and _matches(wanted, facts, candidate):
                _link(candidate, target)
                _record(file, target, facts, wanted)
                logger.info("%s: the same bytes as %s, linked (not downloaded)", target, candidate)
                return True
    return False


def _regular(path: Path) -> bool:
    try:
        refuse_symlink(path)
    except OSError:
        return False
    return path.is_file()


def _declared(file: Located) -> dict[str, Any] | None:
    """The declared pin of the file, when it has one."""
    if file.sha256_pin is not None:
        return {"source": "declaration", "sha256": file.sha256_pin}
    if file.md5 is not None and file.size is not None:
        return {"source": "declaration", "md5": file.md5, "size": file.size}
    return None


def _listed(file: Located) -> dict[str, Any] | None:
    """What the hub's listing states of the file at its revision, or None."""
    if offline():
        return None
    size, sha256, oid = paths_info(file.repo, file.asked_revision, file.path)
    if sha256 is not None:
        return {"source": "hub listing", "sha256": sha256, "size": size}
    if oid is not None:
        return {"source": "hub listing", "git_blob_id": oid, "size": size}
    return None


def _matches(wanted: dict[str, Any], facts: dict[str, Any], path: Path) -> bool:
    if wanted.get("size") is not None and facts.get("size") != wanted["size"]:
        return False
    if "sha256" in wanted:
        return facts.get("sha256") == wanted["sha256"]
    if "md5" in wanted:
        return facts.get("md5") == wanted["md5"]
    return git_blob_id(path) == wanted["git_blob_id"]


def _link(source: Path, target: Path) -> None:
    """``target`` made the same file as ``source``: a hard link, else a copy, via a
    temporary name renamed into place."""
    partial = target.with_name(target.name + ".link")
    partial.unlink(missing_ok=True)
    try:
        os.link(source, partial)
    except OSError:
        shutil.copyfile(source, partial)
    os.replace(partial, target)


def _record(file: Located, target: Path, facts: dict[str, Any], wanted: dict[str, Any]) -> None:
    revision = file.asked_revision
    fetch_records.record(
        target,
        {
            **facts,
            "revision": revision,
            "commit": revision if FULL_COMMIT.match(revision) else fetch_records.UNKNOWN,
            "alias": file.alias,
            "pin": {key: value for key, value in wanted.items() if key != "size"},
            "fetched_at": fetch_records.now(),
        },
    )
