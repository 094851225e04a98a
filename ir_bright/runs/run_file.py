"""Run files opened once and read in blocks of whole lines: a path, ``-`` (stdin), a FIFO or
``<(zcat run.gz)``; plain or gzip, detected from the first bytes; bounded by the run byte cap.

A :class:`RunFile` can be read again from its start: a regular file is read once more; input
that cannot be read twice (stdin, a pipe, a FIFO) is copied, as it is read, to an unnamed
temporary file, so a reader that needs the whole run after a first pass in parts (a run whose
queries are not grouped) reads the copy and then the rest of the stream.
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
import sys
import tempfile
import zlib
from collections.abc import Iterator
from typing import IO, Any

from ..errors import RunFormatError
from .bounds import BLOCK_BYTES, max_run_bytes, too_big
from .entries import Rows
from .inflate import GZIP_MAGIC, gzip_chunks
from .text import block_rows, line_blocks

STDIN = "-"
"""The run path that means standard input (``ir-bright bm25 ID | ir-bright evaluate ID -``)."""


class RunFile:
    """One run file (``-`` is stdin), opened on first read and closed by :meth:`close` (or at
    the end of a ``with`` block); :meth:`rows` reads it from its start each time it is called.
    """

    def __init__(self, path: str | os.PathLike[str]):
        self.path = os.fspath(path)
        self.label = "stdin" if self.path == STDIN else self.path
        self._stack = contextlib.ExitStack()
        self._raw: Any = None  # the stream as opened
        self._spool: IO[bytes] | None = None  # the bytes read so far of a stream read once

    def __enter__(self) -> RunFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the file (never stdin) and drop the copy of a stream."""
        self._stack.close()

    def rows(self, whole_run_cap: bool = True) -> Iterator[Rows]:
        """The rows of the run, block by block, from its start. An empty file, a binary file,
        a damaged gzip file and an unreadable one are refused naming it, and so is a run of
        more entries than the entry cap, unless ``whole_run_cap`` is false (a reader that
        keeps a bounded part of each query bounds its memory itself)."""
        label, found = self.label, False
        try:
            raw = self._reader()
            if raw.peek(2)[:2] == GZIP_MAGIC:
                chunks = gzip_chunks(raw, label)
            else:
                _refuse_oversized(raw, label)
                chunks = plain_chunks(raw, label)
            for rows in block_rows(line_blocks(chunks, label), label, whole_run_cap):
                found = found or bool(rows.query_ids)
                yield rows
        except OSError as exc:
            raise _unreadable(exc, label) from None
        except (EOFError, zlib.error) as exc:
            raise RunFormatError(
                f"{label}: damaged gzip file ({_one_line(exc)}): compress the run again "
                f"(`gzip -t {label}` checks a file)"
            ) from None
        if not found:
            raise RunFormatError(
                f"{label}: the run file is empty (no ranking lines): was it written completely?"
            )

    def _reader(self) -> Any:
        """A buffered reader from the run's start: the file opened (first call), the file
        rewound, or the copy of a stream followed by the rest of it."""
        if self._raw is None:
            self._raw = self._open()
            if _is_regular(self._raw):
                return self._raw
            self._spool = self._stack.enter_context(tempfile.TemporaryFile())
            return io.BufferedReader(_Tee(self._raw, self._spool), BLOCK_BYTES)
        if self._spool is None:
            self._raw.seek(0)
            return self._raw
        self._spool.flush()
        self._spool.seek(0)
        return io.BufferedReader(_Replay(self._spool, self._raw), BLOCK_BYTES)

    def _open(self) -> Any:
        if self.path != STDIN:
            return self._stack.enter_context(open(self.path, "rb"))
        stdin = sys.stdin
        if stdin is None or getattr(stdin, "buffer", None) is None or stdin.closed:
            raise RunFormatError(
                "stdin: there is no standard input (it is closed): pipe a run into the "
                "command (ir-bright bm25 ID | ir-bright evaluate ID -) or give a run file"
            )
        return stdin.buffer


class _Tee(io.RawIOBase):
    """A stream whose bytes are also written to a spool as they are read."""

    def __init__(self, raw: Any, spool: IO[bytes]):
        self._raw, self._spool = raw, spool

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._raw.read1(len(buffer)) if hasattr(self._raw, "read1") else None
        if data is None:
            data = self._raw.read(len(buffer))
        self._spool.write(data)
        buffer[: len(data)] = data
        return len(data)


class _Replay(io.RawIOBase):
    """What a :class:`_Tee` spooled of a stream, then the rest of the stream."""

    def __init__(self, spool: IO[bytes], rest: Any):
        self._spool, self._rest = spool, rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._spool.read(len(buffer)) or self._rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _is_regular(raw: Any) -> bool:
    try:
        return stat.S_ISREG(os.fstat(raw.fileno()).st_mode)
    except (OSError, AttributeError, ValueError, io.UnsupportedOperation):
        return False


def _unreadable(exc: OSError, label: str) -> RunFormatError:
    if isinstance(exc, FileNotFoundError):
        return RunFormatError(f"{label}: no such run file")
    if isinstance(exc, IsADirectoryError):
        return RunFormatError(f"{label}: is a folder, not a run file")
    if isinstance(exc, PermissionError):
        return RunFormatError(
            f"{label}: cannot read it ({exc.strerror or 'permission denied'}): make it "
            "readable, e.g. chmod a+r"
        )
    return RunFormatError(f"{label}: cannot read it ({exc.strerror or _one_line(exc)})")


def _refuse_oversized(raw: Any, label: str) -> None:
    with contextlib.suppress(OSError, AttributeError, ValueError):
        size = os.fstat(raw.fileno()).st_size
        if size > max_run_bytes():
            raise too_big(label, max_run_bytes())


def plain_chunks(raw: Any, label: str) -> Iterator[bytes]:
    """The bytes of ``raw`` in blocks, refusing more than the run byte cap."""
    limit, total = max_run_bytes(), 0
    while chunk := raw.read(BLOCK_BYTES):
        total += len(chunk)
        if total > limit:
            raise too_big(label, limit)
        yield chunk


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
