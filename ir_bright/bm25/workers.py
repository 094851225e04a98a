"""Worker processes for the index build, stopped with their parent whatever ends it.

- **Ordered and bounded.** :meth:`Workers.ordered` maps a function over a stream in worker
  processes and yields the results in input order, with at most two items per process in
  flight, so memory stays bounded however long the stream.
- **Stopped on any error or signal.** Leaving the ``with`` block by an exception (including
  ``KeyboardInterrupt`` from SIGINT, and SIGTERM, which the block turns into
  ``SystemExit(143)`` while it runs in the main thread, the exit status a shell gives a
  process killed by SIGTERM) terminates the workers at once (``multiprocessing.Pool.terminate``)
  instead of waiting for their tasks.
- **Never orphaned.** Each worker asks the kernel to kill it when its parent dies
  (``prctl(PR_SET_PDEATHSIG, SIGKILL)``, Linux, prctl(2)), and elsewhere watches its parent's
  pid from a thread: a parent killed by SIGKILL, which runs no cleanup, leaves no worker behind.
  Workers ignore SIGINT: a Ctrl-C reaches the whole process group, and the parent alone
  decides (it stops them).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

__all__ = ["TERMINATED", "Workers", "sigterm_exits"]

T = TypeVar("T")

TERMINATED = 128 + signal.SIGTERM
"""The exit status of a command ended by SIGTERM (143), as a shell reports it."""

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_WATCH_SECONDS = 0.5


class Workers:
    """A pool of ``count`` spawned worker processes, as a context manager."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._pool: Any = None
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> Workers:
        import multiprocessing

        context = multiprocessing.get_context("spawn")  # no copy of the parent's threads/locks
        with contextlib.ExitStack() as stack:  # the handler restored if the pool fails
            stack.enter_context(sigterm_exits())
            self._pool = context.Pool(self.count, _start_worker, (os.getpid(),))
            self._stack = stack.pop_all()
        return self

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None:
        with self._stack:  # then the SIGTERM handler is restored
            if kind is None:
                self._pool.close()
                self._pool.join()
            else:  # an error, Ctrl-C, SIGTERM or the consumer stopped early: no waiting
                self._pool.terminate()

    def ordered(
        self, func: Callable[[Any], Any], items: Iterable[T], arg: Callable[[T], Any]
    ) -> Iterator[tuple[T, Any]]:
        """``(item, func(arg(item)))`` for every item, in order, computed by the workers."""
        pending: deque = deque()
        for item in items:
            pending.append((item, self._pool.apply_async(func, (arg(item),))))
            if len(pending) >= 2 * self.count:
                item, result = pending.popleft()
                yield item, result.get()
        while pending:
            item, result = pending.popleft()
            yield item, result.get()


@contextlib.contextmanager
def sigterm_exits() -> Iterator[None]:
    """Within the block, SIGTERM raises ``SystemExit(143)``, so that ``finally`` blocks and
    ``with`` exits run (workers stopped, partial files removed) and the process ends with the
    status a shell gives a process killed by SIGTERM. Only where no handler is set yet, and
    only in the main thread (the only one Python runs signal handlers in)."""
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


def _terminated(signum: int, frame: Any) -> None:
    raise SystemExit(TERMINATED)


def _start_worker(parent: int) -> None:
    """Each worker's set-up: die with the parent, leave SIGINT to it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if not _die_with_parent():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _die_with_parent() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where impossible."""
    if not sys.platform.startswith("linux"):
        return False
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    return False


def _watch_parent(parent: int) -> None:
    """Exit as soon as the parent is gone (this process is then re-parented)."""
    while os.getppid() == parent:
        time.sleep(_WATCH_SECONDS)
    os._exit(1)
