"""Files replaced whole: the one way ir_bright writes a file that others may read.

Every cache file, sidecar and user output is written under a temporary name beside it,
``.<name>.<token>.part`` (the token random, so unique to its writer), created exclusively and
never through a symbolic link, and renamed onto the file once whole (:class:`Pending`). Its
writer holds an advisory lock (``flock``) on it until the rename, which the kernel releases
when the writer dies, however it dies. Hence:

- a reader never sees a partial file, and a failed write leaves the old file as it was;
- concurrent writers of one file, processes or threads, each write their own temporary file:
  each succeeds (the last rename wins) or fails on its own, never because of another;
- an error, Ctrl-C or SIGTERM (raised as an exception by :func:`ir_bright.signals.
  sigterm_exits`) removes the temporary file as the exception passes;
- a temporary file whose writer was killed (SIGKILL, an out-of-memory kill, a power cut) is
  removed by the next write of the same file (:func:`reap`): its lock is free, while a live
  writer's is held. Only names of the form above are considered, never a user's file.

Files that belong together (an output and the sidecar that describes it) are renamed one after
the other under :func:`folders_locked`, so that concurrent writers of the pair never interleave
their renames.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import secrets
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from ir_bright import signals

try:
    import fcntl
except ImportError:  # no advisory locks: a killed writer's temporary file stays
    fcntl = None  # type: ignore[assignment]

SUFFIX = ".part"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_TOKEN = "[a-z0-9_]{8,16}"  # ours are 12 hex digits; older versions' came from mkstemp
_ATTEMPTS = 100
_NAME_MAX = 255  # bytes in a file name: Linux's, macOS's and Windows' file systems


class Pending:
    """A new file for ``target``, open for binary writing under a temporary name beside it
    (:attr:`path`), locked until :meth:`commit` renames it onto ``target`` or :meth:`discard`
    removes it. Temporary files of ``target`` left by killed writers are removed first.
    ``mode`` is the new file's permissions (before the umask)."""

    def __init__(self, target: Path, mode: int = 0o644):
        self.target = Path(target)
        reap(self.target)
        # an interrupt between the file's creation and its wrapping would leak a locked file
        # that no cleanup can take: it waits until the file is wrapped, which then goes again
        created = False
        try:
            with signals.deferred():
                handle, self.path = _created(self.target, mode)
                self.file: IO[bytes] = os.fdopen(handle, "wb")
                created = True
        except BaseException:
            if created:
                self.discard()
            raise

    def commit(self, durable: bool = False) -> None:
        """Rename the written file onto the target (after ``fsync`` when ``durable``), then
        close it, which releases its lock."""
        with signals.deferred():
            self.file.flush()
            if durable:
                os.fsync(self.file.fileno())
            os.replace(self.path, self.target)
            self.file.close()

    def discard(self) -> None:
        """Close and remove the temporary file; nothing once it is committed (its name is this
        writer's alone, so nothing else is ever removed)."""
        with signals.deferred():
            with contextlib.suppress(OSError, ValueError):
                self.file.close()
            with contextlib.suppress(OSError):
                os.unlink(self.path)


def _created(target: Path, mode: int) -> tuple[int, Path]:
    """A new temporary file beside ``target``, created exclusively and locked: its handle and
    name."""
    stem = temporary_stem(target.name)
    for _ in range(_ATTEMPTS):
        path = target.with_name(f".{stem}.{secrets.token_hex(6)}{SUFFIX}")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
        try:
            handle = os.open(path, flags, mode)
        except FileExistsError:
            continue
        if _claim(handle, path):
            return handle, path
        os.close(handle)  # a cleanup took it in the instant before the lock: another name
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(target))


@contextlib.contextmanager
def replaced(target: Path, mode: int = 0o644, durable: bool = False) -> Iterator[IO[bytes]]:
    """A binary file to write, renamed onto ``target`` when the block ends without error and
    removed when it raises (an exception, Ctrl-C, SIGTERM made an exception)."""
    pending: Pending | None = None
    try:
        pending = Pending(target, mode)
        yield pending.file
        pending.commit(durable)
    finally:
        if pending is not None:
            pending.discard()


def temporary_names(target: Path) -> re.Pattern[str]:
    """The pattern of the temporary files' names of ``target`` (this version's and older)."""
    stem = re.escape(temporary_stem(Path(target).name))
    return re.compile(rf"\.{stem}\.{_TOKEN}{re.escape(SUFFIX)}")


def temporary_stem(name: str) -> str:
    """The part of a temporary file's name that comes from its target's name: the name
    itself, or, where the temporary name would pass the longest file name (255 bytes), its
    first bytes and a digest of the whole name (unique to the name, so no other file's)."""
    encoded = os.fsencode(name)
    room = _NAME_MAX - len(f"..{secrets.token_hex(6)}{SUFFIX}")
    if len(encoded) <= room:
        return name
    digest = hashlib.sha256(encoded).hexdigest()[:16]
    kept = encoded[: room - len(digest) - 1].decode("utf-8", "ignore")  # no half character
    return f"{kept}~{digest}"


def reap(target: Path) -> None:
    """Remove the temporary files of ``target`` whose writers are gone (their lock is free);
    a live writer's, a link, or one this process may not open are left alone."""
    if fcntl is None:
        return
    pattern = temporary_names(target)
    try:
        with os.scandir(Path(target).parent) as entries:
            found = [Path(e.path) for e in entries if pattern.fullmatch(e.name)]
    except OSError:
        return
    for path in found:
        _remove_if_abandoned(path)


@contextlib.contextmanager
def folders_locked(folders: Iterable[Path]) -> Iterator[None]:
    """Hold an exclusive advisory lock on each folder (in a fixed order), so that the renames
    of a group of files are not interleaved with another writer's. Where a folder cannot be
    locked (no ``flock``, a file system without locks) the block runs unlocked."""
    handles: list[int] = []
    try:
        for folder in sorted({os.path.realpath(f) for f in folders}):
            handle = _locked_folder(folder)
            if handle is not None:
                handles.append(handle)
        yield
    finally:
        for handle in handles:
            os.close(handle)


def _locked_folder(folder: str) -> int | None:
    if fcntl is None:
        return None
    try:
        handle = os.open(folder, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
    except OSError:
        os.close(handle)
        return None
    return handle


def _claim(handle: int, path: Path) -> bool:
    """Lock the new file ``handle``; False when a cleanup of killed writers' files got to it
    first (it removes it). A file system without locks is written unlocked."""
    if fcntl is None:
        return True
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:
        return True
    return _names(path, handle)


def _remove_if_abandoned(path: Path) -> None:
    try:
        handle = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC)
    except OSError:  # gone meanwhile, a link, or not ours to read
        return
    try:
        if not stat.S_ISREG(os.fstat(handle).st_mode):
            return
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if _names(path, handle):  # not renamed away by a writer that just finished
            os.unlink(path)
    except OSError:  # a live writer holds it
        pass
    finally:
        os.close(handle)


def _names(path: Path, handle: int) -> bool:
    """Whether ``path`` still names the open file ``handle``."""
    try:
        named, opened = os.lstat(path), os.fstat(handle)
    except OSError:
        return False
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)
