"""What a downloaded body must be before it is cached: its pins, or what the hub publishes.

Checked: the pinned size and md5 (or sha256) when the declaration has them (and the listing's
sha256 when it gave one), else the size and sha256 the hub publishes for a file in LFS (the
listing API's ``lfs`` entry, asked before the download, or ``X-Linked-Size`` /
``X-Linked-Etag`` / ``ETag`` as huggingface_hub reads them), else the git blob id it
publishes for a small file it keeps in git (the listing's ``oid``, or the ``ETag``: the sha1
of ``blob <size>``, a NUL and the bytes); a file neither pins nor hub describe is refused.
Whatever the verification, a parquet file begins and ends with ``PAR1`` (:func:`check_body`).

Whatever the verification too, a body is bounded before its first byte arrives
(:func:`size_bounds`) by the size ir_bright knows, the first of:

1. the size pinned in the declaration, while pins are trusted (``IR_BRIGHT_VERIFY`` 1);
2. the size the hub's listing states: the folder listing a file was named by, else the
   listing API's answer for the file;
3. the declared size under ``IR_BRIGHT_VERIFY=hub`` when the listing states none (hub mode
   is for files that changed since they were pinned, whose new size the listing gives);
4. the size the hub announces with the file (``X-Linked-Size``);
5. the length of the response itself (``Content-Length``, or ``Content-Range``'s total).

Under ``IR_BRIGHT_VERIFY=0`` the declared size is no bound (a re-exported mirror's files
need not match it): the listing's size, ``X-Linked-Size`` and the response's length are. A body
none of these bounds is refused before it is written.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from ..errors import ChecksumError
from .config import redact, verification_mode
from .listing import GIT_OID, SHA256, paths_info

CHANGED = (
    "nothing was cached; the hub's files may have changed since they were pinned: read the "
    "revision you want as <id>@<revision> (verified by the hub's listing), unset "
    "IR_BRIGHT_REVISION to read the pinned commit, or set IR_BRIGHT_VERIFY=hub to accept "
    "these files verified by the hub's sha256"
)


class Wanted(Protocol):
    """What the download needs to know of the file it fetches (a :class:`HubFile`)."""

    @property
    def repo(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def revision(self) -> str: ...
    @property
    def asked_revision(self) -> str: ...
    @property
    def commit(self) -> str | None: ...
    @property
    def alias(self) -> str | None: ...
    @property
    def size(self) -> int | None: ...
    @property
    def sha256(self) -> str | None: ...
    @property
    def url(self) -> str: ...
    @property
    def fetch_url(self) -> str: ...
    def pins(self) -> tuple[int | None, str | None]: ...
    def pinned_sha256(self) -> str | None: ...


class Downloaded(Protocol):
    """A transfer: the body's size and digests so far, and what pins, listing and hub say."""

    file: Wanted
    url: str
    received: int
    expected_size: int | None  # pinned
    md5_pin: str | None
    sha256_pin: str | None
    listed_size: int | None  # the hub's listing
    linked_size: int | None  # X-Linked-Size
    total: int | None  # the response's own length
    published_sha256: str | None
    published_oid: str | None  # the git blob id of a file the hub keeps in git, not LFS
    from_listing: bool  # the published checksum came from the hub's listing (not headers)

    @property
    def published_size(self) -> int | None: ...
    def hexdigests(self) -> tuple[str, str]: ...


def listed(file: Wanted) -> tuple[int | None, str | None, str | None]:
    """The size, sha256 and git object id the hub's listing states for ``file`` before it is
    fetched: those of the folder listing that named it, else the listing API's (asked only
    when no pinned size bounds the body already)."""
    if file.sha256 is not None:
        return file.size, file.sha256, None
    if file.pins()[0] is not None:
        return None, None, None
    return paths_info(file.repo, file.asked_revision, file.path)


class Bound(NamedTuple):
    """A size a body is held to: ``size``, what states it, and whether the body must have
    exactly that size (``exact``) or at most it (the declared size under hub mode)."""

    size: int
    source: str
    exact: bool = True


def size_bounds(transfer: Downloaded) -> list[Bound]:
    """The sizes known for the body, in the order of this module's documentation: the first
    bounds it, the first exact one is the size it must end at."""
    ceiling = transfer.file.size if verification_mode() == "hub" else None
    known = (
        (transfer.expected_size, "pinned in the declaration", True),
        (transfer.listed_size, "stated by the hub's listing", True),
        (ceiling, "at most: the declared size, as the hub's listing states none", False),
        (transfer.linked_size, "announced by the hub as X-Linked-Size", True),
        (transfer.total, "announced by the server", True),
    )
    return [Bound(size, source, exact) for size, source, exact in known if size is not None]


def verify(transfer: Downloaded, body: Path) -> None:
    """Raise a one-line :class:`ChecksumError` unless the body (the file ``body``) is the file
    pins or hub say: its pinned size and md5, else the sha256 the hub publishes for a file in
    LFS, else the git blob id it publishes for a small file kept in git."""
    if any(pin is not None for pin in (transfer.expected_size, transfer.md5_pin)) or (
        transfer.sha256_pin is not None
    ):
        _check_pins(transfer)
        return
    file, url, size = transfer.file, redact(transfer.url), transfer.received
    hint = "nothing was cached"
    if transfer.published_sha256 is None and transfer.published_oid is not None:
        oid = git_blob_id(body)
        if oid != transfer.published_oid:
            raise ChecksumError(
                f"{file.path} from {url} has git blob id {oid}, the hub publishes "
                f"{transfer.published_oid} at {file.asked_revision} (no declared pin); {hint}, "
                "try again"
            )
        return
    if transfer.published_sha256 is None:
        raise ChecksumError(
            f"{file.path} from {url} has no pinned checksum and the hub publishes no sha256 "
            f"for it, so it cannot be verified; {hint}: set IR_BRIGHT_VERIFY=0 only for a "
            "trusted re-exported mirror"
        )
    if transfer.published_size is not None and size != transfer.published_size:
        raise ChecksumError(
            f"{file.path} from {url} has {size} bytes, the hub says {transfer.published_size} "
            f"at {file.asked_revision} (no declared pin); {hint}, try again"
        )
    sha256 = transfer.hexdigests()[1]
    if sha256 != transfer.published_sha256:
        raise ChecksumError(
            f"{file.path} from {url} has sha256 {sha256}, the hub publishes "
            f"{transfer.published_sha256} at {file.asked_revision} (no declared pin); {hint}, "
            "try again (set IR_BRIGHT_VERIFY=0 only for a trusted re-exported mirror)"
        )


def pin_of(transfer: Downloaded) -> dict[str, str] | None:
    """What the body was verified against (recorded in its provenance), or None."""
    if transfer.md5_pin is not None or transfer.sha256_pin is not None:
        pinned = {"md5": transfer.md5_pin, "sha256": transfer.sha256_pin}
        return {"source": "declaration", **{k: v for k, v in pinned.items() if v}}
    source = "hub listing" if transfer.from_listing else "hub headers"
    if transfer.published_sha256 is not None:
        return {"source": source, "sha256": transfer.published_sha256}
    if transfer.published_oid is not None:
        return {"source": source, "git_blob_id": transfer.published_oid}
    return None


def _check_pins(transfer: Downloaded) -> None:
    file, url, size = transfer.file, redact(transfer.url), transfer.received
    pinned = f"the declaration pins (for revision {file.revision})"
    if transfer.expected_size is not None and size != transfer.expected_size:
        raise ChecksumError(
            f"{file.path} from {url} has {size} bytes, {pinned} {transfer.expected_size}; {CHANGED}"
        )
    md5, sha256 = transfer.hexdigests()
    if transfer.md5_pin is not None and md5 != transfer.md5_pin:
        raise ChecksumError(
            f"{file.path} from {url} has md5 {md5}, {pinned} {transfer.md5_pin}; {CHANGED}"
        )
    if transfer.sha256_pin is not None and sha256 != transfer.sha256_pin:
        raise ChecksumError(
            f"{file.path} from {url} has sha256 {sha256}, {pinned} {transfer.sha256_pin}; {CHANGED}"
        )
    if file.sha256 is not None and sha256 != file.sha256:
        raise ChecksumError(
            f"{file.path} from {url} has sha256 {sha256}, the hub's listing says "
            f"{file.sha256}; nothing was cached, try again"
        )


def check_body(file: Wanted, partial: Path, url: str) -> None:
    """Refuse a body that is certainly not the file asked for, verified or not."""
    if not file.path.endswith(".parquet"):
        return
    with open(partial, "rb") as body:
        head = body.read(4)
        body.seek(max(0, os.path.getsize(partial) - 4))
        tail = body.read(4)
    if head != b"PAR1" or tail != b"PAR1":
        raise ChecksumError(
            redact(
                f"{file.path} from {url} is not a parquet file (no PAR1 marks); nothing was "
                "cached: check HF_ENDPOINT, the revision and HF_TOKEN"
            )
        )


def git_blob_id(path: Path) -> str:
    """The git object id of a file: the sha1 of ``blob <size>`` and a NUL, then its bytes (the
    hub's ETag and listing oid of a file it keeps in git rather than LFS)."""
    digest = hashlib.sha1(b"blob %d\0" % os.path.getsize(path), usedforsecurity=False)
    with open(path, "rb") as file:
        while chunk := file.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def oid_from_headers(responses: Iterable[Any]) -> str | None:
    """The git blob id the hub gives a file kept in git as its ETag (40 hexadecimal digits)."""
    for response in responses:
        value = response.headers.get("ETag", "").strip()
        if not value.startswith("W/") and GIT_OID.match(value.strip('"').lower()):
            return value.strip('"').lower()
    return None


def sha256_from_headers(responses: Iterable[Any]) -> str | None:
    """The hub gives large (LFS) files their sha256 as ETag (X-Linked-Etag behind a redirect)."""
    for response in responses:
        for name in ("X-Linked-Etag", "ETag"):
            value = response.headers.get(name, "").strip()
            if value.startswith("W/"):
                continue
            value = value.strip('"').lower()
            if SHA256.match(value):
                return value
    return None
