"""What a downloaded body must be before it is cached: its pins, or what the hub publishes.

Checked: the pinned size and md5 when the catalogue has them (and the listing's sha256 when it
gave one), else the size and sha256 the hub publishes (``X-Linked-Size`` / ``X-Linked-Etag`` /
``ETag`` as huggingface_hub reads them, or the listing API's ``lfs`` entry); a file neither pins
nor hub describe is refused. Whatever the verification, a parquet file begins and ends with
``PAR1`` (:func:`check_body`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol

from ..errors import ChecksumError
from .config import redact
from .listing import SHA256, paths_info

__all__ = ["CHANGED", "Downloaded", "Wanted", "check_body", "sha256_from_headers", "verify"]

CHANGED = (
    "nothing was cached; the hub's files may have changed since they were pinned: set "
    "IR_BRIGHT_REVISION to the commit holding the pinned files, or IR_BRIGHT_VERIFY=hub to "
    "accept the current ones verified by the hub's sha256"
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
    def sha256(self) -> str | None: ...
    @property
    def url(self) -> str: ...
    def pins(self) -> tuple[int | None, str | None]: ...
    def _url(self) -> str: ...


class Downloaded(Protocol):
    """A finished transfer: the body's size and digests, and what pins and hub say."""

    file: Wanted
    url: str
    received: int
    expected_size: int | None
    md5_pin: str | None
    published_size: int | None
    published_sha256: str | None

    def hexdigests(self) -> tuple[str, str]: ...


def verify(transfer: Downloaded) -> None:
    """Raise a one-line :class:`ChecksumError` unless the body is the file pins or hub say."""
    if transfer.expected_size is not None or transfer.md5_pin is not None:
        _check_pins(transfer)
        return
    file, url, size = transfer.file, redact(transfer.url), transfer.received
    hint = "nothing was cached"
    if transfer.published_sha256 is None:
        transfer.published_size, transfer.published_sha256 = paths_info(
            file.repo, file.revision, file.path
        )
    if transfer.published_sha256 is None:
        raise ChecksumError(
            f"{file.path} from {url} has no pinned checksum and the hub publishes no sha256 "
            f"for it, so it cannot be verified; {hint}: set IR_BRIGHT_VERIFY=0 only for a "
            "trusted re-exported mirror"
        )
    if transfer.published_size is not None and size != transfer.published_size:
        raise ChecksumError(
            f"{file.path} from {url} has {size} bytes, the hub says {transfer.published_size}; "
            f"{hint}, try again"
        )
    sha256 = transfer.hexdigests()[1]
    if sha256 != transfer.published_sha256:
        raise ChecksumError(
            f"{file.path} from {url} has sha256 {sha256}, the hub publishes "
            f"{transfer.published_sha256}; {hint}, try again (set IR_BRIGHT_VERIFY=0 only for "
            "a trusted re-exported mirror)"
        )


def _check_pins(transfer: Downloaded) -> None:
    file, url, size = transfer.file, redact(transfer.url), transfer.received
    if transfer.expected_size is not None and size != transfer.expected_size:
        raise ChecksumError(
            f"{file.path} from {url} has {size} bytes, expected {transfer.expected_size}; {CHANGED}"
        )
    md5, sha256 = transfer.hexdigests()
    if transfer.md5_pin is not None and md5 != transfer.md5_pin:
        raise ChecksumError(
            f"{file.path} from {url} has md5 {md5}, expected {transfer.md5_pin}; {CHANGED}"
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
