"""Every environment variable the hub client reads, validated where it is first used.

Each is read per call (tests and long-running processes may change them) and a value that
cannot be meant is a one-line error naming the variable, the value and what is accepted:

- ``HF_ENDPOINT``: the hub's base URL, ``http(s)://host[:port][/path]`` (default
  ``https://huggingface.co``); credentials in it are never printed (:func:`redact`).
- ``HF_TOKEN``: sent as a bearer token to the endpoint's host only; it must be characters an
  HTTP header can carry (no whitespace, no control character, Latin-1 only).
- ``HF_HUB_OFFLINE``: ``1``/``true``/``yes``/``on`` forbids the network (or ``0``... / unset).
- ``IR_DATASETS_HOME``: the cache root, as in ir_datasets (default ``~/.ir_datasets``).
- ``IR_BRIGHT_REVISION``: ``<rev>`` for every repository, or ``<owner>/<name>@<rev>[,...]``.
- ``IR_BRIGHT_VERIFY``: ``1`` (pins, else the hub's sha256), ``hub`` (the hub's sha256 only)
  or ``0`` (no checks).
- ``IR_BRIGHT_HTTP_RETRIES`` / ``_BACKOFF`` / ``_TIMEOUT``: see :class:`HttpPatience`.
"""

from __future__ import annotations

import math
import os
import re
import reprlib
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

from ..errors import DownloadError, OfflineError, unwritable_cache

DEFAULT_ENDPOINT = "https://huggingface.co"
MAX_RETRIES = 100
MAX_BACKOFF_S = 60.0
MAX_TIMEOUT_S = 86400.0
_FALSE = {"0", "false", "no", "off"}
_TRUE = {"1", "true", "yes", "on"}


def _variable_error(name: str, value: str, accepted: str) -> DownloadError:
    return DownloadError(f"{name}={reprlib.repr(value)} is not accepted: {accepted} (or unset it)")


def redact(text: str) -> str:
    """``text`` with any ``user:password@`` of a URL replaced by ``***@``."""
    return re.sub(r"(?<=://)[^/@\s]*@", "***@", text)


def endpoint() -> str:
    """The hub's base URL: ``HF_ENDPOINT`` or ``https://huggingface.co``, no trailing slash."""
    value = (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).strip().rstrip("/")
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise DownloadError(
            f"HF_ENDPOINT={redact(value)!r} is not a URL ir_bright can fetch (http or https, "
            "with a host): set it to the hub's address, e.g. https://huggingface.co, or unset it"
        )
    return value


def token() -> str | None:
    """``HF_TOKEN`` when set, checked to be characters an HTTP header can carry."""
    value = os.environ.get("HF_TOKEN")
    if not value:
        return None
    shown = f"(its {len(value)} characters not shown)"  # a token is never printed
    if any(c.isspace() for c in value) or not value.isprintable():
        raise DownloadError(
            f"HF_TOKEN holds whitespace, a line break or a control character {shown}: set "
            "it to the token alone (copied with a newline?)"
        )
    try:
        value.encode("latin-1")
    except UnicodeEncodeError:
        raise DownloadError(
            f"HF_TOKEN holds a character an HTTP header cannot carry (not Latin-1) {shown}: "
            "set it to the token alone (hub tokens are ASCII, hf_...)"
        ) from None
    return value


def _flag(name: str, default: bool) -> bool:
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value in _TRUE or value in _FALSE:
        return value in _TRUE
    raise _variable_error(name, value, "1, true, yes, on, 0, false, no or off")


def offline() -> bool:
    """True when ``HF_HUB_OFFLINE`` forbids network access."""
    return _flag("HF_HUB_OFFLINE", False)


def offline_refusal(what: str, url: str) -> OfflineError:
    """The error for ``what`` (a file or listing, named by its local path), not cached while
    ``HF_HUB_OFFLINE`` forbids fetching it from ``url``: the flag to unset, or how to fetch it
    ahead elsewhere."""
    return OfflineError(
        f"{what} is not cached and HF_HUB_OFFLINE is set, which forbids fetching it: unset "
        f"HF_HUB_OFFLINE (or set it to 0) to fetch it from {redact(url)}, or fetch it ahead where "
        "the network is reachable (`ir-bright download <dataset id>`) and copy it there"
    )


def verification_mode() -> str:
    """``"pins"`` (default), ``"hub"`` (the hub's published sha256 only) or ``"off"``."""
    value = os.environ.get("IR_BRIGHT_VERIFY", "").strip().lower()
    if value == "hub":
        return "hub"
    if value and value not in _TRUE and value not in _FALSE:
        raise _variable_error("IR_BRIGHT_VERIFY", value, "1 (pins), hub or 0 (no checks)")
    return "off" if value in _FALSE else "pins"


def verification_enabled() -> bool:
    """False when ``IR_BRIGHT_VERIFY`` is 0/false/no/off: sizes and checksums are not checked."""
    return verification_mode() != "off"


def cache_home() -> Path:
    """The ir_datasets home folder (``IR_DATASETS_HOME`` or ``~/.ir_datasets``), read per call."""
    return Path(os.environ.get("IR_DATASETS_HOME") or Path.home() / ".ir_datasets")


def make_folder(folder: Path) -> None:
    """Create ``folder`` (and parents) and prove it writable, or raise a one-line
    :class:`CacheError` pointing at ``IR_DATASETS_HOME``."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # A name of its own per call (mkstemp: O_EXCL, never through a link), so processes
        # probing the same folder at once cannot remove each other's probe.
        handle, probe = tempfile.mkstemp(prefix=".ir_bright_write_probe.", dir=folder)
        os.close(handle)
        os.unlink(probe)
    except OSError as exc:
        raise unwritable_cache(folder, exc, "the cache folder") from exc


def revision(repo: str, default: str) -> str:
    """The revision of ``repo``: ``IR_BRIGHT_REVISION`` when it names one, else ``default``."""
    value = os.environ.get("IR_BRIGHT_REVISION", "").strip()
    if not value:
        return default
    if "@" not in value:
        if "," in value:
            raise _variable_error(
                "IR_BRIGHT_REVISION", value, "<rev>, or <owner>/<name>@<rev>[,...]"
            )
        return value
    chosen = default
    for item in value.split(","):
        name, at, rev = item.strip().partition("@")
        if not at or name.count("/") != 1 or not rev:
            raise _variable_error(
                "IR_BRIGHT_REVISION", value, "<rev>, or <owner>/<name>@<rev>[,...]"
            )
        if name == repo:
            chosen = rev
    return chosen


def revision_folder(revision_: str) -> str:
    """``revision_`` as the name of one folder, for every cache path that holds a revision:
    percent-encoded (``/`` and ``%`` too) and never ``.`` or ``..``, so that no revision
    (a branch ``feature/x``, a value such as ``..``) leads out of its family's folder."""
    name = quote(revision_, safe="")
    return "%2E" + name[1:] if name.startswith(".") else name


@dataclass(frozen=True)
class HttpPatience:
    """How patient the HTTP client is, from the environment (:func:`http_patience`).

    ``retries``: attempts after the first for faults that may heal (``IR_BRIGHT_HTTP_RETRIES``,
    an integer 0-100, default 6). ``backoff``: the first wait in seconds, doubling, with equal
    jitter, at most 60 s a wait (``IR_BRIGHT_HTTP_BACKOFF``, 0-60, default 2). ``timeout``:
    seconds of silence or slowness (under 1 KiB/s over such a window) that fail an attempt
    (``IR_BRIGHT_HTTP_TIMEOUT``, more than 0 and at most 86400, default 60).
    """

    retries: int = 6
    backoff: float = 2.0
    timeout: float = 60.0


def _number(name: str, default: float, low: float, high: float, low_open: bool) -> float:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = float(value)
    except ValueError:
        number = math.nan
    too_low = number <= low if low_open else number < low
    if not math.isfinite(number) or too_low or number > high:
        bound = "more than" if low_open else "at least"
        raise _variable_error(name, value, f"a number {bound} {low:g} and at most {high:g}")
    return number


def http_patience() -> HttpPatience:
    """The :class:`HttpPatience` the environment asks for, each value validated."""
    retries = _number("IR_BRIGHT_HTTP_RETRIES", 6, 0, MAX_RETRIES, low_open=False)
    if retries != int(retries):
        raise _variable_error(
            "IR_BRIGHT_HTTP_RETRIES",
            os.environ["IR_BRIGHT_HTTP_RETRIES"],
            f"a whole number from 0 to {MAX_RETRIES}",
        )
    return HttpPatience(
        retries=int(retries),
        backoff=_number("IR_BRIGHT_HTTP_BACKOFF", 2.0, 0, MAX_BACKOFF_S, low_open=False),
        timeout=_number("IR_BRIGHT_HTTP_TIMEOUT", 60.0, 0, MAX_TIMEOUT_S, low_open=True),
    )
