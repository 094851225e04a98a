"""One file of a Hugging Face hub dataset, fetched once into a verified cache.

This module knows nothing about BRIGHT or MM-BRIGHT. It turns a :class:`HubFile` (repository,
revision, path in the repository, where to cache it, what it must hash to) into a local path:

- URL: ``{HF_ENDPOINT}/datasets/{repo}/resolve/{revision}/{path}``, ``HF_ENDPOINT`` defaulting
  to ``https://huggingface.co`` (credentials in it are never printed); ``HF_TOKEN`` is sent as a
  bearer token when set, and never to another host a redirect leads to. ``IR_BRIGHT_REVISION``
  overrides the catalogue's revision: ``<rev>`` for every repository, or
  ``<owner>/<name>@<rev>[,...]`` per repository.
- Cache: ``{IR_DATASETS_HOME}/{namespace}/{cache_path}`` (``IR_DATASETS_HOME`` defaults to
  ``~/.ir_datasets``, as in ir_datasets). A cache entry that is a symbolic link is refused.
- A cached file is always complete and verified: the body streams into ``<file>.part``
  (created exclusively, never through a link) under a file lock, is checked and only then
  renamed into place. Checked: the pinned size and md5 when the catalogue has them, else the
  size and sha256 the hub publishes (``X-Linked-Size`` / ``X-Linked-Etag`` / ``ETag`` as
  huggingface_hub reads them, or the listing API's ``lfs`` entry); a file neither pins nor hub
  describe is refused. Whatever the verification: an HTML page is not a data file, a parquet
  file begins and ends with ``PAR1``, and a body is never written past its expected size.
- ``IR_BRIGHT_VERIFY``: ``1`` (default) as above; ``hub`` ignores the pins and trusts only the
  hub's published sha256 (to accept files that changed on a branch); ``0`` checks nothing
  (for re-exported mirrors and tests).
- Transient faults are ridden out: connection errors, time-outs, cut-off bodies and HTTP 429,
  500, 502, 503, 504 are retried (``IR_BRIGHT_HTTP_RETRIES``, default 6, after exponential
  back-off with jitter from ``IR_BRIGHT_HTTP_BACKOFF`` seconds, default 2, capped at 60 s per
  wait: about two minutes in all), honouring ``Retry-After``; a cut-off body resumes from the
  ``.part`` with ``Range`` when the server answers 206, and verification still covers the
  whole file. ``IR_BRIGHT_HTTP_TIMEOUT`` (seconds, default 60) bounds silence and slowness: an
  attempt fails when fewer than 1 KiB/s arrived over any such window.
- A cached file is used without any network call. ``HF_HUB_OFFLINE=1`` forbids the network;
  a missing file then fails at once with a message saying how to fetch it ahead.
- :func:`list_folder` lists a folder of the repository through the hub's listing API, for files
  whose names are not pinned (BRIGHT-Pro); their ``HubFile`` carries the listing's size and
  ``sha256``, checked like a pinned md5.
"""

from __future__ import annotations

import collections
import email.utils
import functools
import hashlib
import json
import logging
import os
import random
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar
from urllib.parse import quote

from ..errors import CacheError, ChecksumError, DownloadError, OfflineError
from ..store.derived import create_exclusive, file_lock, refuse_symlink, replaced_atomically

__all__ = [
    "HubFile",
    "ListedEntry",
    "cache_home",
    "catalogue",
    "endpoint",
    "human_size",
    "list_folder",
    "offline",
    "redact",
    "verification_enabled",
    "verification_mode",
]

logger = logging.getLogger(__name__)
T = TypeVar("T")

DEFAULT_ENDPOINT = "https://huggingface.co"
READ_BYTES = 1 << 16
CONNECT_TIMEOUT_S = 10
MIN_RATE = 1024  # bytes per second, averaged over IR_BRIGHT_HTTP_TIMEOUT
MAX_WAIT_S = 60  # one back-off or Retry-After wait
RETRIED_STATUS = {429, 500, 502, 503, 504}
DECODED_ENCODINGS = {"gzip", "deflate", "identity", ""}
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_FALSE = {"0", "false", "no", "off"}
_TRUE = {"1", "true", "yes", "on"}


def endpoint() -> str:
    """The hub's base URL: ``HF_ENDPOINT`` or ``https://huggingface.co``, no trailing slash."""
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def redact(text: str) -> str:
    """``text`` with any ``user:password@`` of a URL replaced by ``***@``."""
    return re.sub(r"(?<=://)[^/@\s]*@", "***@", text)


def cache_home() -> Path:
    """The ir_datasets home folder (``IR_DATASETS_HOME`` or ``~/.ir_datasets``), read per call."""
    return Path(os.environ.get("IR_DATASETS_HOME") or Path.home() / ".ir_datasets")


def verification_mode() -> str:
    """``"pins"`` (default), ``"hub"`` (the hub's published sha256 only) or ``"off"``."""
    value = os.environ.get("IR_BRIGHT_VERIFY", "1").strip().lower()
    if value in _FALSE:
        return "off"
    return "hub" if value == "hub" else "pins"


def verification_enabled() -> bool:
    """False when ``IR_BRIGHT_VERIFY`` is 0/false/no/off: sizes and checksums are not checked."""
    return verification_mode() != "off"


def offline() -> bool:
    """True when ``HF_HUB_OFFLINE`` forbids network access."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUE


def _env_number(name: str, default: float) -> float:
    value = os.environ.get(name, "").strip()
    try:
        number = float(value) if value else default
    except ValueError:
        number = -1.0
    if number < 0:
        raise DownloadError(f"{name}={value!r} is not a number of 0 or more: unset it or fix it")
    return number


def _revision(repo: str, default: str) -> str:
    """The revision of ``repo``: ``IR_BRIGHT_REVISION`` when it names one, else ``default``."""
    value = os.environ.get("IR_BRIGHT_REVISION", "").strip()
    if not value:
        return default
    if "@" not in value:
        return value
    for item in value.split(","):
        name, _, revision = item.strip().partition("@")
        if name == repo and revision:
            return revision
    return default


@dataclass(frozen=True)
class HubFile:
    """A file of a hub dataset repository and the place it is cached.

    ``aliases`` are other cache paths (same namespace) whose files hold the same bytes per the
    pins; one of them being present avoids a download. ``twin`` is another hub file with the
    same pinned checksum (BRIGHT's aops and theoremqa_questions corpora): this file is then
    fetched and cached as the twin, once. Both rest on the pins, so both apply only while the
    pins are trusted (``IR_BRIGHT_VERIFY`` 1); otherwise each path is fetched as it is.
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

    def _url(self) -> str:
        return (
            f"{endpoint()}/datasets/{self.repo}/resolve/"
            f"{quote(_revision(self.repo, self.revision), safe='')}/{quote(self.path)}"
        )

    @property
    def url(self) -> str:
        """Where the hub serves this file (credentials in ``HF_ENDPOINT`` redacted)."""
        return redact(self._url())

    @property
    def local_path(self) -> Path:
        """Where the file is (or will be) cached; it may not exist yet."""
        return cache_home() / self.namespace / self.cache_path

    def pins(self) -> tuple[int | None, str | None]:
        """The pinned (size, md5) while verification trusts pins, else (None, None)."""
        return (self.size, self.md5) if verification_mode() == "pins" else (None, None)

    def shared(self) -> HubFile:
        """The file that is fetched for this one: its twin while pins are trusted, or itself."""
        return self.twin if self.twin is not None and verification_mode() == "pins" else self

    def cached_path(self) -> Path | None:
        """The cached copy (under this name or an alias), or None when not cached."""
        if self.shared() is not self:
            return self.shared().cached_path()
        for candidate in self._candidates():
            refuse_symlink(candidate)
            if candidate.is_file():
                return candidate
        return None

    def is_cached(self) -> bool:
        """Whether the file can be used without a download."""
        return self.cached_path() is not None

    def fetch(self) -> Path:
        """Return the path of the verified local copy, downloading it first if needed."""
        return self.ensure()[0]

    def ensure(self) -> tuple[Path, int]:
        """The verified local copy and the bytes THIS process downloaded for it (0 when it was
        cached already, or another process fetched it meanwhile)."""
        if self.shared() is not self:
            return self.shared().ensure()
        found = self.cached_path()
        if found is not None:
            return found, 0
        if offline():
            raise OfflineError(
                f"{self.local_path} is not cached and HF_HUB_OFFLINE is set: fetch it ahead "
                f"(ir-bright download ...) on a machine with network, or copy {self.url} there"
            )
        _make_folder(self.local_path.parent)
        with file_lock(self.local_path):
            found = self.cached_path()  # another process may have finished meanwhile
            if found is not None:
                return found, 0
            fetched = _download(self, self.local_path)
        return self.local_path, fetched

    def _candidates(self) -> Iterator[Path]:
        yield self.local_path
        if verification_mode() == "pins":
            folder = self.local_path.parent
            for alias in self.aliases:
                yield folder / alias


def _make_folder(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # A name of its own per call (mkstemp: O_EXCL, never through a link), so processes
        # probing the same folder at once cannot remove each other's probe.
        handle, probe = tempfile.mkstemp(prefix=".ir_bright_write_probe.", dir=folder)
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        raise CacheError(
            f"cannot write the cache folder {folder} ({exc.strerror or exc}): "
            "set IR_DATASETS_HOME to a writable folder"
        ) from exc


def _auth_headers() -> dict[str, str]:
    from .._version import __version__

    headers = {"User-Agent": f"ir_bright/{__version__}", "Accept-Encoding": "identity"}
    token = os.environ.get("HF_TOKEN")
    if token:
        if any(c.isspace() for c in token) or not token.isprintable():
            raise DownloadError(
                "HF_TOKEN holds whitespace, a line break or a control character (copied with "
                "a newline?): set it to the token alone"
            )
        headers["Authorization"] = f"Bearer {token}"
    return headers


class _Transient(Exception):
    """A failure worth another attempt: ``kind`` is busy, throttled, unreachable, silent,
    slow or cut."""

    def __init__(self, kind: str, detail: str, retry_after: float | None = None):
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.retry_after = retry_after


def _retry_after(headers) -> float | None:
    value = (headers.get("Retry-After") or "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _sleep(seconds: float) -> None:  # one place for tests to watch the waits
    time.sleep(seconds)


def _backoff(attempt: int, retry_after: float | None) -> float:
    """Exponential back-off with equal jitter, at least the server's ``Retry-After``."""
    base = _env_number("IR_BRIGHT_HTTP_BACKOFF", 2.0)
    ceiling = min(MAX_WAIT_S, base * 2 ** (attempt - 1))
    wait = ceiling / 2 + random.uniform(0, ceiling / 2)
    return max(wait, retry_after or 0.0)


def _retrying(attempt: Callable[[], T]) -> T:
    """``attempt()``, tried again after a transient failure (``IR_BRIGHT_HTTP_RETRIES``
    more times, with back-off); the last failure becomes a one-line error with advice."""
    attempts = 1 + int(_env_number("IR_BRIGHT_HTTP_RETRIES", 6))
    started = time.monotonic()
    number = 1
    while True:
        try:
            return attempt()
        except _Transient as fault:
            too_long = fault.retry_after is not None and fault.retry_after > MAX_WAIT_S
            if number == attempts or too_long:
                raise _give_up(fault, number, time.monotonic() - started) from None
            wait = _backoff(number, fault.retry_after)
            logger.info(
                "%s (attempt %d of %d); retrying in %.1f s",
                redact(fault.detail),
                number,
                attempts,
                wait,
            )
            _sleep(wait)
            number += 1


def _give_up(fault: _Transient, attempts: int, seconds: float) -> DownloadError:
    advice = {
        "busy": "the hub is having a bad moment: try again in a few minutes",
        "throttled": "the hub is rate-limiting: wait a few minutes, or set HF_TOKEN "
        "(signed-in users get higher limits)",
        "slow": "check the network, or raise IR_BRIGHT_HTTP_TIMEOUT",
        "silent": "check the network, or raise IR_BRIGHT_HTTP_TIMEOUT",
        "cut": "check the network and try again",
        "unreachable": "check the network or HF_ENDPOINT, or fetch it ahead with "
        "`ir-bright download` where there is network",
    }[fault.kind]
    error = OfflineError if fault.kind == "unreachable" else DownloadError
    return error(
        redact(
            f"{fault.detail}; gave up after {attempts} attempt(s) in {seconds:.0f} s, "
            f"nothing was cached: {advice}"
        )
    )


def _get(url: str, timeout: float, headers: dict[str, str], stream: bool = False):
    """``requests.get``: no answer in time or no connection is a :class:`_Transient`, a URL
    requests cannot fetch a :class:`DownloadError`."""
    import requests

    try:
        return requests.get(
            url, headers=headers, stream=stream, timeout=(min(CONNECT_TIMEOUT_S, timeout), timeout)
        )
    except requests.Timeout as exc:
        raise _Transient("silent", f"{url} did not answer within {timeout:g} s") from exc
    except (
        requests.exceptions.InvalidURL,
        requests.exceptions.MissingSchema,
        requests.exceptions.InvalidSchema,
    ) as exc:
        raise DownloadError(
            redact(
                f"{url} is not a URL ir_bright can fetch ({type(exc).__name__}): set "
                "HF_ENDPOINT to the hub's address, e.g. https://huggingface.co"
            )
        ) from exc
    except requests.RequestException as exc:
        raise _Transient("unreachable", f"cannot reach {url} ({type(exc).__name__})") from exc


def _refuse_status(url: str, response, what: str = "the download") -> None:
    """Raise for 401/403 (a one-line error) and for the statuses worth another attempt."""
    status = response.status_code
    if status in (401, 403):
        raise DownloadError(redact(f"{url} answered {status}: set HF_TOKEN to a token with access"))
    if status in RETRIED_STATUS:
        kind = "throttled" if status == 429 else "busy"
        says = f"throttled {what}" if status == 429 else "is busy"
        raise _Transient(
            kind, f"the hub {says}: {url} answered HTTP {status}", _retry_after(response.headers)
        )


class _Transfer:
    """One file's download into an open ``.part`` file: attempts, resume, verification data."""

    def __init__(self, file: HubFile, out, timeout: float):
        self.file = file
        self.url = file._url()
        self.out = out
        self.timeout = timeout
        self.received = 0
        self.md5 = hashlib.md5()
        self.sha256 = hashlib.sha256()
        self.expected_size, self.md5_pin = file.pins()
        self.published_sha256: str | None = None
        self.published_size: int | None = None
        self.total: int | None = None  # the length the server announced for the file
        self.validator: str | None = None  # ETag for If-Range
        self.bar = _progress(file, self.expected_size)

    @property
    def limit(self) -> int | None:
        """The size the body must not exceed: pinned, published, or the transfer's length."""
        for size in (self.expected_size, self.published_size, self.total):
            if size is not None:
                return size
        return None

    def run(self) -> None:
        _retrying(self._attempt)

    def _attempt(self) -> None:
        headers = _auth_headers()
        resume = self.received > 0 and self.validator is not None
        if resume:
            headers["Range"] = f"bytes={self.received}-"
            headers["If-Range"] = self.validator
        response = _get(self.url, self.timeout, headers, stream=True)
        with response:
            self._check_status(response)
            if response.status_code == 206 and not self._resumes(response):
                self._restart()
                raise _Transient("cut", f"{self.url} resumed at the wrong offset")
            if response.status_code == 200 and self.received:
                self._restart()
            self._read_headers(response)
            self._stream(response)

    def _check_status(self, response) -> None:
        status = response.status_code
        if status in (200, 206):
            return
        _refuse_status(self.url, response)
        if status == 404:
            raise DownloadError(
                redact(
                    f"{self.url} answered HTTP 404: no such file at revision "
                    f"{_revision(self.file.repo, self.file.revision)}; check HF_ENDPOINT and "
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
        if self.published_sha256 is None:
            self.published_sha256 = _sha256_from_headers(responses)
        if self.published_size is None:
            for item in responses:
                size = _int_or_none(item.headers.get("X-Linked-Size"))
                if size is not None:
                    self.published_size = size
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
                announced = _int_or_none(response.headers.get("Content-Length"))
            else:
                match = re.search(r"/(\d+)$", response.headers.get("Content-Range", ""))
                announced = int(match.group(1)) if match else None
            expected = self.limit
            if announced is not None and expected is not None and announced != expected:
                raise self._wrong_size(announced, expected)
            self.total = announced if self.total is None else self.total

    def _stream(self, response) -> None:
        import requests
        import urllib3

        raw = response.raw
        self.bar.total = self.limit
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
                    raise _Transient(
                        "slow",
                        f"download of {self.url} too slow: {self.received - first_bytes} bytes "
                        f"in the last {self.timeout:g} s (less than 1 KiB/s); {self.received} "
                        "bytes received",
                    )
        except (requests.RequestException, urllib3.exceptions.HTTPError, OSError) as exc:
            if isinstance(exc, (urllib3.exceptions.ReadTimeoutError, TimeoutError)):
                raise _Transient(
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
            raise self._cut(self.limit) from exc
        if self.limit is not None and self.received < self.limit:
            raise self._cut(self.limit)

    def _wrong_size(self, size, expected: int) -> ChecksumError:
        pinned = self.expected_size is not None
        return ChecksumError(
            redact(
                f"{self.file.path} from {self.url} has {size} bytes, expected {expected}; "
                + (_CHANGED if pinned else "nothing was cached, try again")
            )
        )

    def _cut(self, total: int | None) -> _Transient:
        of = f" of {total}" if total is not None else ""
        return _Transient(
            "cut", f"download of {self.url} was cut off after {self.received}{of} bytes"
        )

    def _write(self, chunk: bytes) -> None:
        limit = self.limit
        if limit is not None and self.received + len(chunk) > limit:
            raise self._wrong_size(f"more than {limit}", limit)
        self.out.write(chunk)
        self.md5.update(chunk)
        self.sha256.update(chunk)
        self.received += len(chunk)
        self.bar.update(len(chunk))


def _download(file: HubFile, target: Path) -> int:
    """Stream ``file`` into ``target`` via ``target.part``; verify; rename. Keeps nothing else.
    Returns the number of bytes cached."""
    partial = target.with_name(target.name + ".part")
    timeout = _env_number("IR_BRIGHT_HTTP_TIMEOUT", 60.0) or 60.0
    logger.info("downloading %s (%s)", file.url, human_size(file.pins()[0]))
    try:
        with create_exclusive(partial) as out:
            transfer = _Transfer(file, out, timeout)
            with transfer.bar:
                transfer.run()
            out.flush()
            os.fsync(out.fileno())
        if verification_enabled():
            _verify(transfer)
        _check_body(file, partial, transfer.url)
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
    return transfer.received


_CHANGED = (
    "nothing was cached; the hub's files may have changed since they were pinned: set "
    "IR_BRIGHT_REVISION to the commit holding the pinned files, or IR_BRIGHT_VERIFY=hub to "
    "accept the current ones verified by the hub's sha256"
)


def _verify(transfer: _Transfer) -> None:
    file, url, size = transfer.file, redact(transfer.url), transfer.received
    hint = "nothing was cached"
    if transfer.expected_size is not None or transfer.md5_pin is not None:
        changed = _CHANGED
        if transfer.expected_size is not None and size != transfer.expected_size:
            raise ChecksumError(
                f"{file.path} from {url} has {size} bytes, expected {transfer.expected_size}; "
                f"{changed}"
            )
        md5 = transfer.md5.hexdigest()
        if transfer.md5_pin is not None and md5 != transfer.md5_pin:
            raise ChecksumError(
                f"{file.path} from {url} has md5 {md5}, expected {transfer.md5_pin}; {changed}"
            )
        sha256 = transfer.sha256.hexdigest()
        if file.sha256 is not None and sha256 != file.sha256:
            raise ChecksumError(
                f"{file.path} from {url} has sha256 {sha256}, the hub's listing says "
                f"{file.sha256}; {hint}, try again"
            )
        return
    if transfer.published_sha256 is None:
        transfer.published_size, transfer.published_sha256 = _listed(file)
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
    sha256 = transfer.sha256.hexdigest()
    if sha256 != transfer.published_sha256:
        raise ChecksumError(
            f"{file.path} from {url} has sha256 {sha256}, the hub publishes "
            f"{transfer.published_sha256}; {hint}, try again (set IR_BRIGHT_VERIFY=0 only for "
            "a trusted re-exported mirror)"
        )


def _check_body(file: HubFile, partial: Path, url: str) -> None:
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


def _listed(file: HubFile) -> tuple[int | None, str | None]:
    """(size, sha256) of an LFS file from the hub's listing API (``paths-info``), or Nones."""
    import requests

    revision = quote(_revision(file.repo, file.revision), safe="")
    url = f"{endpoint()}/api/datasets/{file.repo}/paths-info/{revision}"
    try:
        response = requests.post(
            url, data={"paths": file.path}, headers=_auth_headers(), timeout=CONNECT_TIMEOUT_S
        )
        entries = response.json() if response.status_code == 200 else []
    except (requests.RequestException, ValueError):
        return None, None
    for entry in entries if isinstance(entries, list) else []:
        lfs = entry.get("lfs") if isinstance(entry, dict) else None
        if entry.get("path") == file.path and isinstance(lfs, dict):
            oid = str(lfs.get("oid", "")).lower()
            size = lfs.get("size")
            if _SHA256.match(oid):
                return (size if isinstance(size, int) else None), oid
    return None, None


def _sha256_from_headers(responses) -> str | None:
    """The hub gives large (LFS) files their sha256 as ETag (X-Linked-Etag behind a redirect)."""
    for response in responses:
        for name in ("X-Linked-Etag", "ETag"):
            value = response.headers.get(name, "").strip()
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
    refuse_symlink(cache)
    if cache.is_file():
        return _read_listing(cache)
    revision = _revision(repo, revision)
    url = f"{endpoint()}/api/datasets/{repo}/tree/{quote(revision, safe='')}/" + quote(
        folder.strip("/")
    )
    if offline():
        raise OfflineError(
            f"the listing {cache} is not cached and HF_HUB_OFFLINE is set: fetch it ahead "
            f"(ir-bright download ...) on a machine with network ({redact(url)})"
        )
    _make_folder(cache.parent)
    with file_lock(cache):
        if not cache.is_file():
            entries = [_entry(item) for item in _listing_pages(url) if item.get("type") == "file"]
            try:
                with replaced_atomically(cache) as out:
                    out.write(json.dumps([vars(e) for e in entries], indent=1).encode())
            except OSError as exc:
                raise CacheError(
                    f"cannot write {cache} ({exc.strerror or exc}): set IR_DATASETS_HOME to "
                    "a writable folder with room"
                ) from exc
    return _read_listing(cache)


def _listing_pages(url: str | None) -> Iterator[dict]:
    while url:
        page, url = _retrying(functools.partial(_listing_page, url))
        yield from page


def _listing_page(url: str) -> tuple[list[dict], str | None]:
    """One page of a listing and the URL of the next (None after the last)."""
    shown = redact(url)
    timeout = _env_number("IR_BRIGHT_HTTP_TIMEOUT", 60.0) or 60.0
    with _get(url, timeout, _auth_headers()) as response:
        _refuse_status(url, response, "the listing")
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
