"""Worker processes for the index build: fresh interpreters, stopped with their parent whatever
ends it.

- **Never the user's script again.** Each worker is a new interpreter running :func:`serve`
  (``python -c`` with the parent's ``sys.path`` and interpreter flags), not a
  ``multiprocessing`` child: spawn and forkserver children run the parent's main script again,
  so a script without ``if __name__ == "__main__":`` would reach the same index build in each
  of them and wait, for ever, for the lock its parent holds; fork would copy the parent's
  threads' locks. Requests and answers go over a socket pair
  (``multiprocessing.connection.Connection``): no semaphore, no resource tracker to outlive
  the build, and a worker may be started from a daemonic process (a ``multiprocessing.Pool``
  worker).
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
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from ..errors import IrBrightError, exhausted
from ..signals import sigterm_exits
from ..upstream import interpreter_flags

T = TypeVar("T")


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_WATCH_SECONDS = 0.5
_START = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[1]); "
    "from ir_bright.bm25.workers import serve; serve(int(sys.argv[2]), int(sys.argv[3]))"
)


class Workers:
    """``count`` worker processes, each with a connection of its own, as a context manager.

    Each worker has its own connection rather than sharing a queue with the others (as
    ``multiprocessing.Pool`` does): a shared queue is guarded by a lock that an idle worker holds
    while it waits for a task, and ``Pool.terminate()`` takes that lock first, so a SIGTERM
    could leave the command waiting for ever. With private connections, stopping the workers is
    killing them: nothing is shared that they could hold.
    """

    def __init__(self, count: int) -> None:
        self.count = count
        self._workers: list[tuple[subprocess.Popen, Any]] = []  # (process, its connection)
        self._stack = contextlib.ExitStack()

    def __enter__(self) -> Workers:
        with contextlib.ExitStack() as stack:  # the handler restored if a start fails
            stack.enter_context(sigterm_exits())
            try:
                for _ in range(self.count):
                    self._workers.append(_start())
                for process, connection in self._workers:
                    _ready(process, connection)
            except BaseException:
                self._kill()
                raise
            self._stack = stack.pop_all()
        return self

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None:
        with self._stack:  # then the SIGTERM handler is restored
            if kind is None:
                for _, connection in self._workers:
                    with contextlib.suppress(OSError):
                        connection.send(None)  # done: the worker returns
                for process, _ in self._workers:
                    process.wait()
            self._kill()  # an error, Ctrl-C, SIGTERM or the consumer stopped early

    def _kill(self) -> None:
        for process, connection in self._workers:
            if process.poll() is None:
                process.kill()
            connection.close()
        for process, _ in self._workers:
            process.wait()
        self._workers = []

    def ordered(
        self, func: Callable[[Any], Any], items: Iterable[T], arg: Callable[[T], Any]
    ) -> Iterator[tuple[T, Any]]:
        """``(item, func(arg(item)))`` for every item, in order, computed by the workers: item
        i goes to worker i mod count, once that worker's previous answer is read, so that a
        request is sent only to a worker waiting for one (neither side can block the other on
        a full socket) and at most ``count`` items are in flight. ``func`` is pickled by name:
        a module-level function of an importable module."""
        pending: deque = deque()
        for number, item in enumerate(items):
            if len(pending) >= self.count:  # the oldest is this worker's previous item
                yield _answer(*pending.popleft())
            worker = self._workers[number % self.count]
            try:
                worker[1].send((func, arg(item)))
            except OSError:  # it died waiting for this request: never a closed stdout
                raise _died(worker[0]) from None
            pending.append((item, worker))
        while pending:
            yield _answer(*pending.popleft())


def _start() -> tuple[subprocess.Popen, Any]:
    """A worker process and the parent's end of its socket pair."""
    from multiprocessing.connection import Connection

    mine, theirs = socket.socketpair()
    try:
        with theirs:
            fd = theirs.fileno()
            command = [sys.executable, *interpreter_flags(), "-c", _START]
            process = subprocess.Popen(
                [*command, json.dumps(sys.path), str(fd), str(os.getpid())],
                pass_fds=(fd,),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,  # stdout may carry the parent's results
            )
    except OSError as exc:  # sys.executable is no program (an embedding host), or limits
        mine.close()
        reason = exhausted(exc) or exc.strerror or str(exc)
        raise WorkerError(
            f"cannot start a BM25 worker process with {sys.executable!r} (sys.executable): {reason}"
        ) from exc
    except BaseException:
        mine.close()
        raise
    return process, Connection(mine.detach())


def _ready(process: subprocess.Popen, connection: Any) -> None:
    """Wait for a new worker's word that it serves; one that ends first is no worker (its
    program is not a Python that imports ir_bright: an embedding host's ``sys.executable``)."""
    try:
        connection.recv()
    except (EOFError, OSError):
        raise WorkerError(
            f"cannot start a BM25 worker process with {sys.executable!r} (sys.executable): it "
            f"ended at once with status {process.wait()}, serving nothing"
        ) from None


def _answer(item: T, worker: tuple[subprocess.Popen, Any]) -> tuple[T, Any]:
    process, connection = worker
    try:
        ok, value = connection.recv()
    except (EOFError, OSError):
        raise _died(process) from None
    if not ok:
        raise value
    return item, value


class WorkerError(IrBrightError):
    """A worker process died, or none could be started."""


def _died(process: subprocess.Popen) -> WorkerError:
    status = process.wait()
    how = f"killed by signal {-status}" if status < 0 else f"status {status}"
    program = process.args[0] if isinstance(process.args, list) else process.args
    return WorkerError(
        f"a BM25 worker process ({program!s}, pid {process.pid}) ended before answering ({how}): "
        "out of memory, or killed? index in one process (workers=1)"
    )


def serve(fd: int, parent: int) -> None:
    """A worker's life: set up, then answer ``(func, arg)`` requests on the connection ``fd``
    with ``(True, func(arg))`` or ``(False, exception)`` until ``None`` (or the parent closing
    the connection)."""
    from multiprocessing.connection import Connection

    _start_worker(parent)
    pipe = Connection(fd)
    pipe.send("ready")
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
