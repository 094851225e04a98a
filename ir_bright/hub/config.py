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
- ``IR_BRIGHT_HTTP_RETRIES`` / ``_BACKOFF`` / ``_TIMEOUT``: see :class:`HttpSettings`.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..errors import CacheError, DownloadError

__all__ = [
    "DEFAULT_ENDPOINT",
    "HttpSettings",
    "cache_home",
    "endpoint",
    "http_settings",
    "make_folder",
    "offline",
    "redact",
    "revision",
    "token",
    "verification_enabled",
    "verification_mode",
]

DEFAULT_ENDPOINT = "https://huggingface.co"
_FALSE = {"0", "false", "no", "off"}
_TRUE = {"1", "true", "yes", "on"}


def redact(text: str) -> str:
    """``text`` with any ``user:password@`` of a URL replaced by ``***@``."""
    return re.sub(r"(?<=://)[^/@\s]*@", "***@", text)


def endpoint() -> str:
    """The hub's base URL: ``HF_ENDPOINT`` or ``https://huggingface.co``, no trailing slash."""
    return (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def token() -> str | None:
    """``HF_TOKEN`` when set, checked to be free of whitespace and control characters."""
    value = os.environ.get("HF_TOKEN")
    if not value:
        return None
    if any(c.isspace() for c in value) or not value.isprintable():
        raise DownloadError(
            "HF_TOKEN holds whitespace, a line break or a control character (copied with "
            "a newline?): set it to the token alone"
        )
    return value


def offline() -> bool:
    """True when ``HF_HUB_OFFLINE`` forbids network access."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in _TRUE


def verification_mode() -> str:
    """``"pins"`` (default), ``"hub"`` (the hub's published sha256 only) or ``"off"``."""
    value = os.environ.get("IR_BRIGHT_VERIFY", "1").strip().lower()
    if value in _FALSE:
        return "off"
    return "hub" if value == "hub" else "pins"


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
        raise CacheError(
            f"cannot write the cache folder {folder} ({exc.strerror or exc}): "
            "set IR_DATASETS_HOME to a writable folder"
        ) from exc


def revision(repo: str, default: str) -> str:
    """The revision of ``repo``: ``IR_BRIGHT_REVISION`` when it names one, else ``default``."""
    value = os.environ.get("IR_BRIGHT_REVISION", "").strip()
    if not value:
        return default
    if "@" not in value:
        return value
    for item in value.split(","):
        name, _, rev = item.strip().partition("@")
        if name == repo and rev:
            return rev
    return default


@dataclass(frozen=True)
class HttpSettings:
    """How patient the HTTP client is, from the environment (:func:`http_settings`).

    ``retries``: attempts after the first for faults that may heal (``IR_BRIGHT_HTTP_RETRIES``,
    an integer 0-100, default 6). ``backoff``: the first wait in seconds, doubling, with equal
    jitter, at most 60 s a wait (``IR_BRIGHT_HTTP_BACKOFF``, 0-60, default 2). ``timeout``:
    seconds of silence or slowness (under 1 KiB/s over such a window) that fail an attempt
    (``IR_BRIGHT_HTTP_TIMEOUT``, more than 0 and at most 86400, default 60).
    """

    retries: int = 6
    backoff: float = 2.0
    timeout: float = 60.0


def _number(name: str, default: float) -> float:
    value = os.environ.get(name, "").strip()
    try:
        number = float(value) if value else default
    except ValueError:
        number = -1.0
    if number < 0:
        raise DownloadError(f"{name}={value!r} is not a number of 0 or more: unset it or fix it")
    return number


def http_settings() -> HttpSettings:
    """The :class:`HttpSettings` the environment asks for."""
    return HttpSettings(
        retries=int(_number("IR_BRIGHT_HTTP_RETRIES", 6)),
        backoff=_number("IR_BRIGHT_HTTP_BACKOFF", 2.0),
        timeout=_number("IR_BRIGHT_HTTP_TIMEOUT", 60.0) or 60.0,
    )
