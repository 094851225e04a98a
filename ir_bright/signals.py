"""Signals turned into exceptions at points where the cleanup they start can finish.

- **SIGTERM raises.** Within :func:`sigterm_exits`, SIGTERM raises :class:`Terminated` (a
  ``SystemExit`` of status 143, what a shell reports for a process killed by SIGTERM):
  ``finally`` blocks and ``with`` exits run, so worker processes are stopped and partial files
  removed. A handler someone else set is left alone.
- **Bookkeeping is not cut in half.** Python raises ``KeyboardInterrupt`` (and ``Terminated``)
  between any two bytecodes, also halfway through taking or giving back a lock, where the
  exception would leave the lock held with nobody to release it. Within :func:`deferred`,
  SIGINT and SIGTERM are only noted; their handlers run when the block ends, once the lock is
  wholly taken or wholly given back.
- **An interrupt stays an interrupt.** Cleanup code of other libraries (the standard library's
  queues and thread joins among them) can fail when ``KeyboardInterrupt`` arrives inside it,
  raising an unrelated error (``RuntimeError: release unlocked lock``) while the interrupt is
  handled. :func:`interruption` finds the interrupt behind such an error.

Python runs signal handlers in the main thread only, so both blocks change nothing in others.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

TERMINATED = 128 + signal.SIGTERM
"""The exit status of a command ended by SIGTERM (143), as a shell reports it."""

_DEFERRED = (signal.SIGINT, signal.SIGTERM)


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


class _Deferral(threading.local):
    """How deep in :func:`deferred` blocks this thread is, and what arrived meanwhile."""

    def __init__(self) -> None:
        self.depth = 0
        self.arrived: list[int] = []


_deferral = _Deferral()


@contextlib.contextmanager
def deferred() -> Iterator[list[int]]:
    """Within the block, SIGINT and SIGTERM wait: each one that arrives is handled (by the
    handler it had before the block) when the block ends, so that it cannot cut the block's
    work in half. Yields the signals arrived so far (the block may undo its work when one
    did); nested blocks share the outermost's, which handles them."""
    if _deferral.depth or threading.current_thread() is not threading.main_thread():
        _deferral.depth += 1
        try:
            yield _deferral.arrived
        finally:
            _deferral.depth -= 1
        return
    arrived: list[int] = []
    previous = _hold(arrived)
    _deferral.depth, _deferral.arrived = 1, arrived
    try:
        yield arrived
    finally:
        _deferral.depth, _deferral.arrived = 0, []
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in dict.fromkeys(arrived):
            _deliver(signum, previous[signum])


def _hold(arrived: list[int]) -> dict[int, Any]:
    """Note instead of handle each deferrable signal that is not ignored; the handlers it
    had."""

    def note(signum: int, frame: object) -> None:
        arrived.append(signum)

    previous: dict[int, Any] = {}
    for signum in _DEFERRED:
        handler = signal.getsignal(signum)
        if handler is None or handler is signal.SIG_IGN:
            continue  # set outside Python (cannot be put back), or ignored anyway
        previous[signum] = handler
        signal.signal(signum, note)
    return previous


def _deliver(signum: int, handler: Callable[[int, Any], Any] | int) -> None:
    """Handle a signal that arrived within :func:`deferred` as it would have been."""
    if callable(handler):
        handler(signum, None)  # Python's SIGINT handler raises KeyboardInterrupt here
    elif handler == signal.SIG_DFL:
        signal.raise_signal(signum)  # the default action: the process ends


def interruption(error: BaseException | None) -> BaseException | None:
    """The ``KeyboardInterrupt`` or :class:`Terminated` that ``error`` is, or that was being
    handled when ``error`` was raised (its ``__context__`` chain); None when there is none."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, (KeyboardInterrupt, Terminated)):
            return error
        seen.add(id(error))
        error = error.__context__
    return None
