"""SIGTERM turned into an exception, so that cleanup runs before the process ends.

Within :func:`sigterm_exits`, SIGTERM raises :class:`Terminated` (a ``SystemExit`` of status
143, what a shell reports for a process killed by SIGTERM): ``finally`` blocks and ``with``
exits run, so worker processes are stopped and partial files removed. Python runs signal
handlers in the main thread only, and a handler someone else set is left alone, so the block
changes nothing elsewhere.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

TERMINATED = 128 + signal.SIGTERM
"""The exit status of a command ended by SIGTERM (143), as a shell reports it."""


class Terminated(SystemExit):
    """SIGTERM arrived within :func:`sigterm_exits` (exit status 143)."""


@contextlib.contextmanager
def sigterm_exits() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` instead of ending the process at
    once; only in the main thread and where the handler is the default (nested blocks keep the
    outer one's)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _terminated(signum: int, frame: object) -> None:
    raise Terminated(TERMINATED)
