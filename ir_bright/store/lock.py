"""The inter-process lock of a cache file: one builder at a time, and never a wait without end.

Processes sharing a cache build each derived file once: the first takes ``<path>.lock`` (an
exclusive ``flock`` on an open file of it, which the kernel gives back when the process ends,
however it ends), the others wait for it. Three rules keep every wait finite:

- **One holder per process.** The threads of a process queue in the process; the thread that
  holds a lock may take it again (nested sections), so a process never waits for itself.
- **Never on an ancestor.** A process waiting for a lock held by the process that started it
  (directly or not) may wait for ever: that process may be waiting for it in turn, as a
  script without ``if __name__ == "__main__":`` does when multiprocessing runs it again in a
  spawned child. Such a waiter fails at once with a one-line :class:`CacheError` naming the
  holder. The exception is a child forked by one thread of a process while another of its
  threads holds the lock (the holder writes its thread beside its pid): that thread does not
  wait for the child, and gives the lock back.
- **Taken or given back whole.** SIGINT and SIGTERM wait while a lock changes hands
  (:func:`~ir_bright.signals.deferred`); one that arrives while the lock is being taken has it
  given back before the interrupt is raised, so no interrupt leaves a lock held with no
  ``with`` block to release it. An error that a library's cleanup raised while an interrupt was
  being handled leaves the locked section as that interrupt.

The holder writes its pid to ``<path>.lock.pid``; a process still waiting after
:data:`WAIT_NOTICE_SECONDS` logs one warning naming the holder, and another every
:data:`WAIT_REPEAT_SECONDS` after.

The file lock is a few system calls of this module's own rather than ``filelock``'s: that
package's fork machinery makes an import of it in one thread wait while another thread forks,
so a fork could never wait for imports to finish (:mod:`ir_bright.lazy`), and its destructor
runs enough code, imports included, to break an import it interrupts.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
import weakref
from pathlib import Path

from .. import signals
from ..atomic import replaced
from ..errors import CacheError
from .exclusive import refuse_symlink

if sys.platform == "win32":
    import msvcrt
else:
    import fcntl


logger = logging.getLogger(__name__)

WAIT_NOTICE_SECONDS = 3.0  # a lock wait longer than this is logged, naming the holder
WAIT_REPEAT_SECONDS = 30.0
POLL_SECONDS = 0.05
CONFIRM_SECONDS = 0.2  # an ancestor named this long holds the lock (not a pid file left behind)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def file_lock(path: Path) -> Lock:
    """The inter-process lock of ``path`` (``<path>.lock``), as a context manager or with
    ``acquire()`` / ``release()``; a lock file that is a symbolic link is refused."""
    return Lock(path)


class _Descriptor:
    """An open file of a lock file, holding its lock: given back (``flock(LOCK_UN)``, then
    closed) by :meth:`close`, or when collected. A forked child closes its copies without
    giving back: the lock is its parent's."""

    __slots__ = ("fd", "pid", "__weakref__")

    def __init__(self, fd: int):
        self.fd = fd
        self.pid = os.getpid()

    def close(self) -> None:
        """Give the lock back and close the file (once)."""
        fd, self.fd = self.fd, -1
        if fd < 0:
            return
        try:
            if self.pid == os.getpid():
                _unlock(fd)
        finally:
            os.close(fd)

    def __del__(self) -> None:  # a hold whose ``with`` block never ran its exit
        with contextlib.suppress(OSError):
            self.close()


class _Hold:
    """This process's hold of one lock: its thread, how often it took it, and (weakly) the
    open file that holds it. That file, collected while it holds (an interrupt cut short the
    exit of its ``with`` block), gives the lock back itself, and the hold ends with it."""

    __slots__ = ("depth", "file", "thread")

    def __init__(self, thread: int):
        self.thread = thread
        self.depth = 1
        self.file: weakref.ref[_Descriptor] | None = None  # None while being taken

    def current(self) -> bool:
        """Whether the hold is being taken or its open file still holds the lock (else the
        hold ended with the file)."""
        if self.file is None:
            return True
        file = self.file()
        return file is not None and file.fd >= 0


class _Holds:
    """The locks this process holds, by lock file, and, for each ancestor that forked this
    process (or one of its ancestors), the thread that forked."""

    def __init__(self) -> None:
        self.guard = threading.Lock()
        self.held: dict[str, _Hold] = {}
        self.forkers: dict[int, int] = {}

    def forked(self) -> None:
        """In a forked child: note the thread that forked (the child's only thread is its copy,
        with its identity); none of the parent's holds is this process's (their files are
        closed here, the parent keeps them)."""
        self.forkers[os.getppid()] = threading.get_ident()
        for hold in self.held.values():
            file = hold.file() if hold.file is not None else None
            if file is not None:
                with contextlib.suppress(OSError):
                    file.close()
        self.held = {}
        self.guard = threading.Lock()


_holds = _Holds()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_holds.forked)


class Lock:
    """The lock of ``<path>.lock``, keeping the rules above and saying whom it waits for."""

    def __init__(self, path: Path):
        self.path = Path(str(path) + ".lock")
        refuse_symlink(self.path)
        self._key = os.path.abspath(self.path)
        self._owner = Path(str(path) + ".lock.pid")
        self._file: _Descriptor | None = None  # the open file, while this object holds it

    def acquire(self) -> Lock:
        """Wait for the lock (saying so after a few seconds), then claim it."""
        waiting = _Waiting(self)
        while not self._attempt():
            waiting.pause()
        return self

    def release(self) -> None:
        """Give the lock up (the pid file first, so it never names a process that left); a
        lock this thread does not hold is left alone."""
        self.__exit__(None, None, None)

    def holder(self) -> str:
        """``pid N`` of the process holding the lock, as it wrote it, or ``an unknown pid``."""
        holder = self.holder_thread()
        return f"pid {holder[0]}" if holder is not None else "an unknown pid"

    def holder_thread(self) -> tuple[int, int] | None:
        """(pid, thread) of the holder, as it wrote them, or None."""
        try:
            fields = self._owner.read_text("ascii").split()
        except (OSError, UnicodeDecodeError):
            return None
        if len(fields) != 2 or not all(field.isdigit() for field in fields):
            return None  # being written, or by another version
        return int(fields[0]), int(fields[1])

    def held_in_process(self) -> bool:
        """Whether another thread of this process holds the lock."""
        hold = _holds.held.get(self._key)
        return hold is not None and hold.current() and hold.thread != threading.get_ident()

    def __enter__(self) -> Lock:
        return self.acquire()

    def __exit__(self, kind: object, error: BaseException | None, traceback: object) -> None:
        # the release is here, not in a function called from here: Python raises a pending
        # signal as a function starts, which would come before this ``try``
        given = False
        try:
            with signals.deferred():
                self._give_back()
                given = True
        finally:
            if not given:  # a signal came before the deferral took effect
                self._give_back()
        interrupt = signals.interruption(error)
        if interrupt is not None and interrupt is not error:
            raise type(interrupt)(*interrupt.args) from error

    def _attempt(self) -> bool:
        """Take the lock if it is free, whole or not at all: a signal that arrives meanwhile,
        or as the handlers are put back, is raised with the lock given back."""
        taken = False
        try:
            with signals.deferred() as arrived:
                taken = self._take()
                if taken and arrived:
                    taken = False
                    self._give_back()
        except BaseException:
            if taken:
                self._give_back()
            raise
        return taken

    def _take(self) -> bool:
        me = threading.get_ident()
        with _holds.guard:
            hold = _holds.held.get(self._key)
            if hold is not None and hold.current():
                if hold.thread != me:
                    return False  # another thread of this process: wait for it
                hold.depth += 1
                return True
            _holds.held[self._key] = claim = _Hold(me)
        try:
            fd = _locked_file(self.path)
        except BaseException:
            self._drop(claim)
            raise
        if fd is None:
            self._drop(claim)
            return False
        self._file = _Descriptor(fd)
        claim.file = weakref.ref(self._file)
        with contextlib.suppress(OSError):  # the pid is a courtesy: never fail the work on it
            with replaced(self._owner) as out:
                out.write(f"{os.getpid()} {threading.get_ident()}".encode())
        return True

    def _give_back(self) -> None:
        with _holds.guard:
            hold = _holds.held.get(self._key)
            if hold is None or hold.thread != threading.get_ident():
                return
            hold.depth -= 1
            if hold.depth and hold.current():
                return
        try:
            with contextlib.suppress(OSError):
                os.unlink(self._owner)
            file = hold.file() if hold.file is not None else None
            if file is not None:
                file.close()
        finally:
            self._drop(hold)

    def _drop(self, hold: _Hold) -> None:
        with _holds.guard:
            if _holds.held.get(self._key) is hold:
                del _holds.held[self._key]


class _Waiting:
    """One wait for a lock: the notices, and the refusal to wait for an ancestor."""

    def __init__(self, lock: Lock):
        self.lock = lock
        self.start = time.monotonic()
        self.notice = WAIT_NOTICE_SECONDS
        self.suspect: tuple[int, float] | None = None  # (ancestor's pid, when first seen)

    def pause(self) -> None:
        """Between two attempts: refuse an endless wait, say who is waited for, sleep."""
        waited = time.monotonic() - self.start
        in_process = self.lock.held_in_process()
        if not in_process:
            self._refuse_an_ancestor()
        if waited >= self.notice:
            self.notice = waited + WAIT_REPEAT_SECONDS
            logger.warning(
                "waiting %.0f s for %s, held by %s; this one goes on when it finishes "
                "(stop that process if it hangs)",
                waited,
                self.lock.path,
                "another thread of this process"
                if in_process
                else f"{self.lock.holder()}: another process builds the same file",
            )
        time.sleep(POLL_SECONDS)

    def _refuse_an_ancestor(self) -> None:
        holder = self.lock.holder_thread()
        if holder is None or not _may_wait_for_ever(*holder):
            self.suspect = None
            return
        pid = holder[0]
        now = time.monotonic()
        if self.suspect is None or self.suspect[0] != pid:
            self.suspect = (pid, now)
        elif now - self.suspect[1] >= CONFIRM_SECONDS:
            raise CacheError(_endless_wait(self.lock.path, pid))


def _may_wait_for_ever(pid: int, thread: int) -> bool:
    """Whether a lock held by ``thread`` of process ``pid`` could be waiting for this process:
    held by this process or an ancestor, other than a thread that did not fork this line."""
    if pid not in _ancestors():
        return False
    forker = _holds.forkers.get(pid)
    return forker is None or forker == thread


def _endless_wait(path: Path, pid: int) -> str:
    if pid == os.getpid():
        return (
            f"{path} is held by this very process (pid {pid}) outside ir_bright's lock, so "
            "the wait would never end: restart the process"
        )
    return (
        f"{path} is held by pid {pid}, which started this process, so the wait may never end "
        "(it may be waiting for this one): let it finish the file before it starts processes "
        "that need it (a script run by multiprocessing keeps its work under "
        "`if __name__ == '__main__':`)"
    )


def _ancestors() -> set[int]:
    """This process's pid and those of the processes that started it, up to init (where
    ``/proc`` is missing, the parent only)."""
    pids = {os.getpid()}
    pid = os.getppid()
    while pid > 1 and pid not in pids:
        pids.add(pid)
        pid = _parent_of(pid)
    return pids


def _parent_of(pid: int) -> int:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[1])  # the field after the command's name


def _locked_file(path: Path) -> int | None:
    """An open file of ``path`` (created, with its folder, when missing) holding its exclusive
    lock, or None when another open file holds it. A lock file removed between the open and
    the lock is opened again."""
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | _NOFOLLOW | _CLOEXEC, 0o644)
        except FileNotFoundError:  # its folder is made with it
            path.parent.mkdir(parents=True, exist_ok=True)
            continue
        try:
            if not _try_lock(fd):
                os.close(fd)
                return None
            if os.fstat(fd).st_nlink:
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)


if sys.platform == "win32":

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except PermissionError:  # EACCES: another open file holds it
            return False
        return True

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # EWOULDBLOCK: another open file holds it
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
