"""Worker processes for the index build, stopped with their parent whatever ends it.

- **Ordered and bounded.** :meth:`Workers.ordered` maps a function over a stream in worker
  processes and yields the results in input order, with one item per process in flight, so
  memory stays bounded however long the stream.
- **Stopped on any error or signal.** Leaving the ``with`` block by an exception (including
  ``KeyboardInterrupt`` from SIGINT, and SIGTERM, which the block turns into
  ``SystemExit(143)`` while it runs in the main thread, the exit status a shell gives a
  process killed by SIGTERM) kills the workers at once instead of waiting for their tasks.
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

from ..signals import sigterm_exits

T = TypeVar("T")


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_WATCH_SECONDS = 0.5


class Workers:
    """``count`` spawned worker processes, each with a pipe of its own, as a context manager.

    Each worker has its own pipe rather than sharing a queue with the others (as
    ``multiprocessing.Pool`` does): a shared queue is guarded by a lock that an idle worker holds
    while it waits for a task, and ``Pool.terminate()`` takes that lock first, so a SIGTERM
    could leave the command waiting for ever. With private pipes, stopping the workers is
    killing them: nothing is shared that they could hold.
    """

    def __init__(self, count: int) -> None:
        self.count = count
        self._workers: list[tuple[Any, Any]] = []  # (process, the parent's end of its pipe)
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> Workers:
        import multiprocessing

        context = multiprocessing.get_context("spawn")  # no copy of the parent's threads/locks
        with contextlib.ExitStack() as stack:  # the handler restored if a start fails
            stack.enter_context(sigterm_exits())
            try:
                for _ in range(self.count):
                    mine, theirs = context.Pipe()
                    process = context.Process(
                        target=_serve, args=(theirs, os.getpid()), daemon=True
                    )
                    process.start()
                    theirs.close()
                    self._workers.append((process, mine))
            except BaseException:
                self._kill()
                raise
            self._stack = stack.pop_all()
        return self

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None:
        with self._stack:  # then the SIGTERM handler is restored
            if kind is None:
                for _, pipe in self._workers:
                    with contextlib.suppress(OSError):
                        pipe.send(None)  # done: the worker returns
                for process, _ in self._workers:
                    process.join()
            self._kill()  # an error, Ctrl-C, SIGTERM or the consumer stopped early

    def _kill(self) -> None:
        for process, pipe in self._workers:
            if process.is_alive():
                process.kill()
            pipe.close()
        for process, _ in self._workers:
            process.join()
        self._workers = []

    def ordered(
        self, func: Callable[[Any], Any], items: Iterable[T], arg: Callable[[T], Any]
    ) -> Iterator[tuple[T, Any]]:
        """``(item, func(arg(item)))`` for every item, in order, computed by the workers: item
        i goes to worker i mod count, once that worker's previous answer is read, so that a
        request is sent only to a worker waiting for one (neither side can block the other on
        a full pipe) and at most ``count`` items are in flight."""
        pending: deque = deque()
        for number, item in enumerate(items):
            if len(pending) >= self.count:  # the oldest is this worker's previous item
                yield _answer(*pending.popleft())
            pipe = self._workers[number % self.count][1]
            pipe.send((func, arg(item)))
            pending.append((item, pipe))
        while pending:
            yield _answer(*pending.popleft())


def _answer(item: T, pipe: Any) -> tuple[T, Any]:
    ok, value = pipe.recv()
    if not ok:
        raise value
    return item, value


def _serve(pipe: Any, parent: int) -> None:
    """A worker: set up, then answer ``(func, arg)`` requests with ``(True, func(arg))`` or
    ``(False, exception)`` until ``None`` (or the parent closing the pipe)."""
    _start_worker(parent)
    while True:
        try:
            request = pipe.recv()
        except EOFError:
            return
        if request is None:
            return
        func, arg = request
        try:
            answer = (True, func(arg))
        except Exception as exc:  # noqa: BLE001 - handed to the parent, which raises it
            answer = (False, exc)
        pipe.send(answer)


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
