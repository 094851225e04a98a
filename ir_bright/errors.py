"""The one exception family ir_bright raises for problems a user can fix.

Every message is a single line that names the thing at fault and the fix; the command line
prints it and exits with status 2 instead of showing a traceback.
"""

import errno
import os

__all__ = [
    "CacheError",
    "ChecksumError",
    "DamagedError",
    "DatasetNotFoundError",
    "DownloadError",
    "IrBrightError",
    "MeasureError",
    "MissingDependencyError",
    "NotOnHubError",
    "OfflineError",
    "RunFormatError",
    "UnreadableFileError",
]


class IrBrightError(Exception):
    """Base of all user-facing errors: bad input, missing data, failed downloads."""


class DownloadError(IrBrightError, OSError):
    """A hub file could not be fetched: network, HTTP status, or a transfer cut short.

    An ``OSError``, as core ir_datasets' download failures are, so ``except OSError`` handlers
    written for those keep working."""


class OfflineError(DownloadError):
    """A hub file is not cached and the hub cannot (or may not) be reached."""


class NotOnHubError(DownloadError):
    """The hub has no such file at the revision asked for (HTTP 404): a wrong revision or
    endpoint, or a dataset that did not exist yet (or any more) at that revision."""


class ChecksumError(DownloadError):
    """A downloaded file does not match its pinned size or checksum; nothing was cached."""


class CacheError(IrBrightError):
    """The cache folder cannot be written, or a cached file cannot be read."""


class DamagedError(CacheError):
    """A cached file or folder (a store, a BM25 index, a hub listing) failed a check: the one
    error for a damaged cache. ir_bright makes it again where it can; the message says how."""

    def __init__(self, path: os.PathLike | str, problem: str):
        super().__init__(
            f"{os.fspath(path)} is damaged ({problem}): delete it; it is made again from its "
            "source on next use"
        )
        self.path = path
        self.problem = problem


ROOM_FIX = "free some space, or set IR_DATASETS_HOME to a disk with room"
"""The fix of a full disk, said once."""
WRITABLE_FIX = "set IR_DATASETS_HOME to a writable folder"
"""The fix of a cache folder that cannot be written, said once."""


def unwritable_cache(path: os.PathLike | str, exc: OSError, what: str = "") -> CacheError:
    """The one error for a cache file or folder that cannot be written: ``cannot write
    <what> <path> (<reason>): <fix>``, the fix pointing at ``IR_DATASETS_HOME`` (a disk with
    room when the disk is full, the limit to raise when the machine's ran out, a writable
    folder otherwise)."""
    fix = ROOM_FIX if exc.errno in (errno.ENOSPC, errno.EDQUOT) else WRITABLE_FIX
    fix = exhausted(exc) or fix  # out of descriptors: the folder is not the problem
    name = f"{what} {os.fspath(path)}" if what else os.fspath(path)
    return CacheError(f"cannot write {name} ({exc.strerror or exc}): {fix}")


class UnreadableFileError(IrBrightError, ValueError):
    """A file ir_bright reads itself (a sidecar, a manifest, ``system.json``) is not a regular
    file, or not JSON within bounds (:mod:`ir_bright.reading`). A cache file or a sidecar is
    then recomputed; a file the user wrote is refused."""


class DatasetNotFoundError(IrBrightError, KeyError):
    """An id that neither ir_bright nor ir_datasets knows."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class RunFormatError(IrBrightError, ValueError):
    """A run (file, DataFrame or records) that cannot be read as a ranking."""


class MeasureError(IrBrightError, ValueError):
    """A measure that cannot be parsed or that no installed provider computes."""


class MissingDependencyError(IrBrightError, ImportError):
    """An optional dependency (Pillow, PyStemmer, matplotlib, PyTerrier) is not installed."""


def require(module: str, extra: str):
    """Import and return ``module``, or raise a one-line error naming the extra to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{module} is needed here but not installed: pip install 'ir_bright[{extra}]'"
        ) from exc


_EXHAUSTED = {
    errno.ENFILE: "too many open files on the machine: close some programs, then run again",
    errno.EMFILE: "too many open files for this process: raise the limit (ulimit -n)",
    errno.EAGAIN: "no more processes or threads may start: raise the limit (ulimit -u) or stop "
    "some other work",
    errno.ENOMEM: "out of memory: free some memory, then run again",
}
_THREAD_START = "can't start new thread"  # threading's RuntimeError where a thread cannot start


def exhausted(exc: BaseException) -> str | None:
    """The machine resource that ran out, as a hint naming it and the fix, when ``exc`` says
    one did (open files, processes or threads, memory; an ``OSError`` by its errno, Arrow's
    and threading's errors by their text); None for any other error. Such an error is never
    the fault of the file being read or written when it struck."""
    if isinstance(exc, MemoryError):
        return _EXHAUSTED[errno.ENOMEM]
    if isinstance(exc, OSError) and exc.errno in _EXHAUSTED:
        return _EXHAUSTED[exc.errno]
    text = str(exc)
    if _THREAD_START in text:
        return _EXHAUSTED[errno.EAGAIN]
    for number, hint in _EXHAUSTED.items():  # ENFILE's text holds EMFILE's: it comes first
        if os.strerror(number) in text:
            return hint
    return None
