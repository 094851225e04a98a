"""One file streamed from the hub into the cache: resumable, bounded, verified, then renamed.

The body streams into ``<file>.part`` (created exclusively, never through a link; the caller
holds the file's lock), is checked (:mod:`.verify`) and only then renamed into place, so a
cached file is always complete and verified; its provenance (repository, revision, resolved
commit, checksums, size, time) is recorded beside it (:mod:`.fetch_records`). A body is never
written past the size ir_bright knows for it (:func:`.verify.size_bounds`, in every
verification mode; a body no size bounds is refused); an HTML page is not a data file; a
cut-off body resumes from the ``.part`` with ``Range`` when the server answers 206, and
verification still covers the whole file.
``IR_BRIGHT_HTTP_TIMEOUT`` bounds silence and slowness: an attempt fails when fewer than
1 KiB/s arrived over any such window. Faults that may heal are retried (:mod:`.http`).
"""

from __future__ import annotations

import collections
import hashlib
import logging
import os
import re
import time
from pathlib import Path
from typing import IO, Any

from ..errors import ChecksumError, DownloadError, IrBrightError, NotOnHubError, unwritable_cache
from ..store.exclusive import create_exclusive
from . import fetch_records
from .config import HttpPatience, http_patience, redact, verification_enabled
from .fetch_records import commit_from_headers
from .http import Transient, refuse_status, retrying, send
from .listing import int_or_none
from .verify import (
    CHANGED,
    Bound,
    Wanted,
    check_body,
    listed,
    oid_from_headers,
    pin_of,
    sha256_from_headers,
    size_bounds,
    verify,
)

logger = logging.getLogger(__name__)

READ_BYTES = 1 << 16
MIN_RATE = 1024  # bytes per second, averaged over IR_BRIGHT_HTTP_TIMEOUT
DECODED_ENCODINGS = {"gzip", "deflate", "identity", ""}


class _Transfer:
    """One file's download into an open ``.part`` file: attempts, resume, verification data."""

    def __init__(self, file: Wanted, out: IO[bytes], patience: HttpPatience):
        self.file = file
        self.url = file.fetch_url
        self.out = out
        self.patience = patience
        self.timeout = patience.timeout
        self.received = 0
        self.md5 = hashlib.md5()
        self.sha256 = hashlib.sha256()
        self.expected_size, self.md5_pin = file.pins()
        self.sha256_pin = file.pinned_sha256()
        self.listed_size, self.published_sha256, self.published_oid = listed(file)
        self.from_listing = self.published_sha256 is not None or self.published_oid is not None
        self.linked_size: int | None = None  # X-Linked-Size
        self.total: int | None = None  # the length the server announced for the file
        self.validator: str | None = None  # ETag for If-Range
        self.commit: str | None = None  # the hub's X-Repo-Commit
        self.bar = _progress(file, self.bound.size if self.bound else None)

    @property
    def published_size(self) -> int | None:
        """The size the hub publishes: its listing's, else its X-Linked-Size."""
        return self.listed_size if self.listed_size is not None else self.linked_size

    @property
    def bound(self) -> Bound | None:
        """The size the body must not exceed (:func:`~.verify.size_bounds`), or None."""
        return next(iter(size_bounds(self)), None)

    @property
    def end(self) -> Bound | None:
        """The size the body must end at, or None while no exact size is known."""
        return next((b for b in size_bounds(self) if b.exact), None)

    def hexdigests(self) -> tuple[str, str]:
        """The md5 and sha256 of the body received so far."""
        return self.md5.hexdigest(), self.sha256.hexdigest()

    def run(self) -> None:
        """Fetch the whole body, retrying what may heal."""
        retrying(self._attempt, self.patience)

    def _attempt(self) -> None:
        headers: dict[str, str] = {}
        if self.received > 0 and self.validator is not None:
            headers["Range"] = f"bytes={self.received}-"
            headers["If-Range"] = self.validator
        response = send("GET", self.url, self.patience, headers=headers, stream=True)
        with response:
            self._check_status(response)
            if response.status_code == 206 and not self._resumes(response):
                self._restart()
                raise Transient("cut", f"{self.url} resumed at the wrong offset")
            if response.status_code == 200 and self.received:
                self._restart()
            self._read_headers(response)
            self._stream(response)

    def _check_status(self, response) -> None:
        status = response.status_code
        if status in (200, 206):
            return
        refuse_status(self.url, response)
        if status == 404:
            raise NotOnHubError(
                redact(
                    f"{self.url} answered HTTP 404: no such file at revision "
                    f"{self.file.asked_revision}; check HF_ENDPOINT and "
                    "IR_BRIGHT_REVISION"
                )
            )
        raise DownloadError(
            redact(f"{self.url} answered HTTP {status}: check HF_ENDPOINT and the revision")
        )

    def _resumes(self, response) -> bool:
        match = re.match(r"bytes (\d+)-", response.headers.get("Content-Range", ""))
        return match is not None and int(match.group(1)) == self.received

    def _restart(self) -> None:
        self.out.seek(0)
        self.out.truncate()
        self.received = 0
        self.md5, self.sha256 = hashlib.md5(), hashlib.sha256()

    def _read_headers(self, response) -> None:
        responses = [*response.history, response]
        self.commit = self.commit or commit_from_headers(responses)
        if self.published_sha256 is None:
            self.published_sha256 = sha256_from_headers(responses)
        if self.published_sha256 is None and self.published_oid is None:
            self.published_oid = oid_from_headers(responses)
        if self.linked_size is None:
            for item in responses:
                size = int_or_none(item.headers.get("X-Linked-Size"))
                if size is not None and size >= 0:
                    self.linked_size = size
        etag = response.headers.get("ETag", "")
        accepts = response.headers.get("Accept-Ranges", "").lower() == "bytes"
        self.validator = etag if accepts and etag and not etag.startswith("W/") else None
        content_type = response.headers.get("Content-Type", "").lower()
        if content_type.startswith("text/html") and not self.file.path.endswith((".html", ".htm")):
            raise ChecksumError(
                redact(
                    f"{self.url} answered with an HTML page, not the file (a login wall or a "
                    "proxy's error page?); nothing was cached: check HF_ENDPOINT and HF_TOKEN"
                )
            )
        encoding = response.headers.get("Content-Encoding", "").strip().lower()
        if encoding not in DECODED_ENCODINGS:
            raise DownloadError(
                redact(
                    f"{self.url} answered with Content-Encoding {encoding}, which ir_bright does "
                    "not decode; nothing was cached: use a hub or mirror that serves files as "
                    "they are"
                )
            )
        if encoding not in ("", "identity"):
            self.validator = None  # ranges of an encoded body are not ranges of the file
        else:
            if response.status_code == 200:
                announced = int_or_none(response.headers.get("Content-Length"))
            else:
                match = re.search(r"/(\d+)$", response.headers.get("Content-Range", ""))
                announced = int(match.group(1)) if match else None
            self._check_announced(announced)
            self.total = announced if self.total is None else self.total
        if self.bound is None:
            raise DownloadError(
                redact(
                    f"{self.url} announced no size for {self.file.path} and neither the "
                    "declaration nor the hub's listing states one, so its download cannot be "
                    "bounded; nothing was cached: use a hub or mirror that sends "
                    "Content-Length or X-Linked-Size"
                )
            )

    def _check_announced(self, announced: int | None) -> None:
        """Refuse a length that differs from the exact size known, or exceeds the bound."""
        end, bound = self.end, self.bound
        if announced is not None and end is not None and announced != end.size:
            raise self._wrong_size(announced, end)
        if announced is not None and bound is not None and announced > bound.size:
            raise self._wrong_size(announced, bound)

    def _stream(self, response) -> None:
        import requests
        import urllib3

        raw = response.raw
        self.bar.total = self.bound.size if self.bound else None
        window: collections.deque = collections.deque([(time.monotonic(), self.received)])
        try:
            while True:
                chunk = raw.read1(READ_BYTES, decode_content=True)
                now = time.monotonic()
                if not chunk:
                    break
                self._write(chunk)
                window.append((now, self.received))
                while len(window) > 1 and window[1][0] <= now - self.timeout:
                    window.popleft()
                first_time, first_bytes = window[0]
                if (
                    now - first_time >= self.timeout
                    and self.received - first_bytes < MIN_RATE * self.timeout
                ):
                    raise Transient(
                        "slow",
                        f"download of {self.url} too slow: {self.received - first_bytes} bytes "
                        f"in the last {self.timeout:g} s (less than 1 KiB/s); {self.received} "
                        "bytes received",
                    )
        except IrBrightError:
            raise
        except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
            if isinstance(exc, (urllib3.exceptions.ReadTimeoutError, TimeoutError)):
                raise Transient(
                    "silent",
                    f"download of {self.url} stalled: nothing arrived for {self.timeout:g} s "
                    f"after {self.received} bytes",
                ) from exc
            if isinstance(exc, urllib3.exceptions.DecodeError):
                raise DownloadError(
                    redact(f"{self.url} sent a body that does not decode ({type(exc).__name__})")
                ) from exc
            if isinstance(exc, OSError) and not isinstance(exc, ConnectionError):
                raise
            raise self._cut(self.end.size if self.end else None) from exc
        if self.end is not None and self.received < self.end.size:
            raise self._cut(self.end.size)

    def _wrong_size(self, size, expected: Bound) -> ChecksumError:
        if self.expected_size is not None or self.sha256_pin is not None:
            advice = CHANGED
        elif not expected.exact:
            advice = (
                "nothing was cached: a file that grew since it was pinned is fetched from a hub "
                "whose listing API states its size (or set IR_BRIGHT_VERIFY=0 for a trusted "
                "mirror)"
            )
        else:
            advice = "nothing was cached: try again, or check HF_ENDPOINT (a mirror or proxy?)"
        return ChecksumError(
            redact(
                f"{self.file.path} from {self.url} has {size} bytes, expected {expected.size} "
                f"({expected.source}); {advice}"
            )
        )

    def _cut(self, total: int | None) -> Transient:
        of = f" of {total}" if total is not None else ""
        return Transient(
            "cut", f"download of {self.url} was cut off after {self.received}{of} bytes"
        )

    def _write(self, chunk: bytes) -> None:
        bound = self.bound
        if bound is not None and self.received + len(chunk) > bound.size:
            raise self._wrong_size(f"more than {bound.size}", bound)
        self.out.write(chunk)
        self.md5.update(chunk)
        self.sha256.update(chunk)
        self.received += len(chunk)
        self.bar.update(len(chunk))


def download(file: Wanted, target: Path) -> int:
    """Stream ``file`` into ``target`` via ``target.part``; verify; rename. Keeps nothing else.
    Returns the number of bytes cached."""
    partial = target.with_name(target.name + ".part")
    patience = http_patience()
    logger.info("downloading %s (%s)", file.url, human_size(file.pins()[0]))
    try:
        with create_exclusive(partial) as out:
            transfer = _Transfer(file, out, patience)
            with transfer.bar:
                transfer.run()
            out.flush()
            os.fsync(out.fileno())
        if verification_enabled():
            verify(transfer, partial)
        check_body(file, partial, transfer.url)
        os.replace(partial, target)
    except IrBrightError:  # DownloadError is an OSError too: not a cache write's
        partial.unlink(missing_ok=True)
        raise
    except OSError as exc:  # writing the cache: a full disk, a read-only file system
        partial.unlink(missing_ok=True)
        raise unwritable_cache(partial, exc) from exc
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    logger.info("cached %s", target)
    md5, sha256 = transfer.hexdigests()
    fetch_records.record(
        target,
        {
            "repo": file.repo,
            "revision": file.asked_revision,
            "commit": transfer.commit or fetch_records.UNKNOWN,
            "path": file.path,
            "sha256": sha256,
            "md5": md5,
            "size": transfer.received,
            "fetched_at": fetch_records.now(),
            "alias": file.alias,
            "pin": pin_of(transfer) if verification_enabled() else None,
        },
    )
    return transfer.received


def _progress(file: Wanted, total: int | None) -> Any:
    from ..log import progress

    return progress(
        total=total,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        desc=Path(file.path).name,
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
