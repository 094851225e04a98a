"""The command's standard streams when the caller closed them, and whose pipe went away.

A program started with a standard stream closed (``exec 1>&-``, ``2>&-``, a daemon's
launcher) finds ``sys.stdout``, ``sys.stderr`` or ``sys.stdin`` None, and the next file it
opens takes the closed stream's number, where a library writing to "stderr" would write into
it. :func:`standard_streams` fills each closed number with ``/dev/null`` for the command's
duration; a closed stderr takes the logs and bars quietly, a closed stdout refuses to carry
results (a write raises ``EBADF`` naming it: results written nowhere would be an exit 0
without them), and ``sys.stdin`` stays None (a run read from it is refused).

:func:`stdout_gone` tells a reader that went away (``| head -1``: the only broken pipe that
ends a command quietly) from any other broken pipe (a worker process that died).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import sys
from collections.abc import Iterator
from typing import IO, Any


class ClosedStdout(io.TextIOBase):
    """``sys.stdout`` for a closed stdout: nothing to flush, and a write is an error."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not text:
            return 0
        raise OSError(errno.EBADF, "stdout is closed")

    def fileno(self) -> int:
        raise OSError(errno.EBADF, "stdout is closed")


@contextlib.contextmanager
def standard_streams() -> Iterator[None]:
    """Within it, neither ``sys.stdout`` nor ``sys.stderr`` is None, and file descriptors 0,
    1 and 2 are open (``/dev/null`` where the caller closed them). ``sys.stdin`` stays None
    where it is: a run read from it is refused as "no standard input"."""
    _fill_closed_descriptors()
    saved = sys.stdout, sys.stderr
    discarded: IO[Any] | None = None
    if sys.stdout is None:
        sys.stdout = ClosedStdout()
    if sys.stderr is None:
        sys.stderr = discarded = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
        if discarded is not None:
            discarded.close()


def _fill_closed_descriptors() -> None:
    """Open ``/dev/null`` on each of descriptors 0-2 that is closed, so that no file the
    command opens takes a standard stream's number (left open: the process may end soon)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)


def stdout_gone() -> bool:
    """Whether stdout's reader went away (see :func:`ir_bright.outputs.reader_gone`)."""
    from ..outputs import reader_gone

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return False
    return reader_gone(fd)
