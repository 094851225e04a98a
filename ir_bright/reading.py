"""Files ir_bright reads itself (sidecars, manifests, cached counts and listings, index files,
``system.json``): regular files only, and JSON parsed within bounds.

- :func:`open_regular` refuses anything but a regular file (links followed) without blocking:
  a FIFO would block its reader for ever, a device such as ``/dev/zero`` never end, and a
  folder is not the file. Run files are the exception, read by :mod:`ir_bright.runs`: ``-``, a
  pipe or a FIFO are read there on purpose.
- :func:`parse_json` and :func:`read_json` parse JSON with its nesting at most
  :data:`MAX_DEPTH` deep and its numbers at most :data:`MAX_DIGITS` digits in a row and finite
  (no ``NaN``, ``Infinity`` or ``1e999``), from UTF-8 (a byte-order mark allowed) and, for a
  file, at most ``max_bytes``. Python's parser would otherwise recurse until it fails with an
  internal error, or spend quadratic time on a number of a million digits.

A file that is not regular, breaks a bound, or is not JSON raises
:class:`~ir_bright.errors.UnreadableFileError` (a ``ValueError``), one line naming the file and
the fault: the caller recomputes a cache file or a sidecar, and refuses a file the user wrote.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
from typing import IO, Any

from .errors import UnreadableFileError

MAX_DEPTH = 64
"""The deepest nesting of arrays and objects accepted; ir_bright's own files use under 5."""

MAX_DIGITS = 40
"""The most digits in a row a number may have (integer part, fraction or exponent)."""

_CHUNK_BYTES = 1 << 20
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKET = re.compile(r"[][{}]")
_LONG_DIGITS = re.compile(rf"[0-9]{{{MAX_DIGITS + 1}}}")
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


def kind_of(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, for messages: ``a folder``, ``a FIFO``, ..."""
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((kind for test, kind in _KINDS if test(mode)), "not a regular file")


def open_regular(path: str | os.PathLike[str]) -> IO[bytes]:
    """``path`` opened for binary reading if it is a regular file (through links); anything
    else raises :class:`UnreadableFileError` at once, a FIFO included. A missing or
    unreadable file raises ``OSError`` as ``open`` does."""
    _refuse_special(path, os.stat(path).st_mode)
    handle = os.open(path, os.O_RDONLY | _NONBLOCK | _CLOEXEC)  # a FIFO swapped in: no wait
    try:
        _refuse_special(path, os.fstat(handle).st_mode)
        os.set_blocking(handle, True)
        return os.fdopen(handle, "rb")
    except BaseException:
        os.close(handle)
        raise


def read_json(path: str | os.PathLike[str], max_bytes: int | None = None) -> Any:
    """The JSON value in the regular file ``path`` (see :func:`parse_json`), refused beyond
    ``max_bytes``; ``OSError`` when it cannot be opened or read."""
    with open_regular(path) as file:
        if max_bytes is None:
            data = file.read()
        else:
            data = file.read(max_bytes + 1)
            if len(data) > max_bytes:
                raise UnreadableFileError(f"{path} is over {max_bytes} bytes: not the file")
    return parse_json(data, str(path))


def parse_json(data: bytes | str, name: str) -> Any:
    """The JSON value of ``data`` (UTF-8 bytes or text), named ``name`` in errors; refused,
    with :class:`UnreadableFileError`, beyond :data:`MAX_DEPTH` levels of nesting, with a
    number of more than :data:`MAX_DIGITS` digits in a row or not finite, or not JSON."""
    try:
        text = data.decode("utf-8-sig") if isinstance(data, bytes) else data.removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise UnreadableFileError(f"{name} is not UTF-8 text (byte {exc.start})") from None
    _check_bounds(text, name)
    try:
        return json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except json.JSONDecodeError as exc:
        raise UnreadableFileError(f"{name} is not JSON ({exc})") from None
    except (ValueError, RecursionError) as exc:
        raise UnreadableFileError(f"{name} is not JSON ir_bright reads ({exc})") from None


def _refuse_special(path: str | os.PathLike[str], mode: int) -> None:
    if not stat.S_ISREG(mode):
        raise UnreadableFileError(f"{os.fspath(path)} is {kind_of(mode)}, not a regular file")


def _check_bounds(text: str, name: str) -> None:
    """Refuse deep nesting and long numbers before the parser sees them. Both checks start
    with a scan in C that rules out nearly every file; only what it cannot rule out is
    scanned again with the strings left out."""
    outside: str | None = None
    if text.count("[") + text.count("{") > MAX_DEPTH:
        outside = _STRING.sub('""', text)
        if _depth(outside) > MAX_DEPTH:
            raise UnreadableFileError(f"{name} is nested more than {MAX_DEPTH} levels deep")
    if _LONG_DIGITS.search(text):
        outside = _STRING.sub('""', text) if outside is None else outside
        if _LONG_DIGITS.search(outside):
            raise UnreadableFileError(f"{name} holds a number of more than {MAX_DIGITS} digits")


def _depth(text: str) -> int:
    """The deepest nesting of ``text`` (strings taken out), stopping past the bound."""
    depth = deepest = 0
    for match in _BRACKET.finditer(text):
        if match.group() in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    break
        else:
            depth -= 1
    return deepest


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text} is out of range")
    return value


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a number JSON allows")


def file_digests(
    path: str | os.PathLike[str], algorithms: tuple[str, ...] = ("sha256",)
) -> tuple[int, dict[str, str]]:
    """The size of the regular file ``path`` and its hex digests by each of ``algorithms``
    (``hashlib`` names), in one read."""
    hashes = {name: hashlib.new(name) for name in algorithms}
    size = 0
    with open_regular(path) as file:
        while chunk := file.read(_CHUNK_BYTES):
            size += len(chunk)
            for digest in hashes.values():
                digest.update(chunk)
    return size, {name: digest.hexdigest() for name, digest in hashes.items()}
