"""Files the package writes for the user (runs, tables, plots), written as Unix tools write them.

:class:`Output` is the one writer of every command's ``-o``, checked before any work is done:

- no ``-o``, or ``-o -``: standard output;
- a regular file, or a new path: written to a temporary file in the same folder, then renamed
  onto the path, so a reader never sees a partial file and an error (or SIGTERM, or Ctrl-C)
  leaves the old file as it was and no temporary file behind; a symlink keeps pointing where
  it pointed (its target is replaced, with the target's permissions);
- anything else (a FIFO, a character device such as ``/dev/null``, ``/dev/stdout``, a path in
  ``/dev`` or ``/proc``): opened and written in place, as ``sort -o`` or ``cp`` write them;
- refused with a one-line error: an empty path, a folder, a path inside the ir_datasets cache
  (``IR_DATASETS_HOME``, by default ``~/.ir_datasets``: an output must never replace a cached
  file), and one of the command's own input files.

A write that fails (a full disk, ``/dev/full``) raises the error class given, naming the output
and the reason, e.g. ``no space left on device``; a reader that went away (``| head``) raises
``BrokenPipeError``, which the command line ends quietly on, as for stdout.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, TypeVar

from .errors import IrBrightError
from .signals import sigterm_exits

__all__ = ["STDOUT", "Output", "check_writable", "write_output"]

STDOUT = "-"
"""The ``-o`` value that means standard output."""

_IN_PLACE_ROOTS = ("/dev/", "/proc/")  # /dev/stdout, /dev/fd/3, /proc/self/fd/1: never renamed
T = TypeVar("T")


class Output:
    """Where a command writes its result: ``path`` (``-o``), or stdout when it is None or
    ``-``. Checked when made (before any work); :meth:`open` writes it.

    ``what`` names the output in messages (``the run``, ``the table``); ``inputs`` are the
    command's input files, which the output may not be; ``error`` is the error class raised.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None,
        what: str = "the output",
        inputs: Iterable[str | os.PathLike[str]] = (),
        error: type[IrBrightError] = IrBrightError,
        option: str = "-o",
    ):
        self.what, self.error, self.option = what, error, option
        self.path: Path | None = None
        if path is None or os.fspath(path) == STDOUT:
            return
        text = os.fspath(path)
        if not text.strip():
            raise error(f"{option} is empty: give a file name, or - (or no {option}) for stdout")
        self.path = Path(text)
        self._refuse(inputs)

    @property
    def label(self) -> str:
        """How messages name the output: its path, or ``stdout``."""
        return "stdout" if self.path is None else str(self.path)

    @property
    def in_place(self) -> bool:
        """Whether the output is written in place (stdout, a FIFO, a device) rather than
        replaced atomically (a regular file, a new path)."""
        if self.path is None:
            return True
        if str(self.path).startswith(_IN_PLACE_ROOTS):
            return True
        try:
            mode = os.stat(self.path).st_mode
        except OSError:  # a new path (or a dangling link, replaced where it points)
            return False
        return not stat.S_ISREG(mode)

    @contextlib.contextmanager
    def open(self, encoding: str = "utf-8", newline: str | None = None) -> Iterator[IO[str]]:
        """A text stream to write the output to; complete (renamed into place, or flushed)
        when the block ends, removed (or left as it was) when the block raises."""
        try:
            if self.path is None:
                yield sys.stdout
                sys.stdout.flush()
            elif self.in_place:
                with open(self.path, "w", encoding=encoding, newline=newline) as out:
                    yield out
            else:
                with self._replaced(encoding, newline) as out:
                    yield out
        except BrokenPipeError:
            raise  # the reader of stdout, a pipe or a FIFO went away: the command ends quietly
        except IrBrightError:
            raise  # the work inside the block failed (a download, a bad input), not the write
        except OSError as exc:
            if exc.filename is not None and not self._names(exc.filename):
                raise  # reading another file failed inside the block
            raise self._failed(exc) from None

    def write_bytes(self, data: bytes) -> None:
        """Write ``data`` whole (a chart's PNG), by the same rules as :meth:`open`.

        The bytes go through a text stream decoded as Latin-1 with no newline translation,
        which maps each byte to the one character of the same number and back, so the one
        writer serves binary outputs too; stdout gets them on its binary buffer.
        """
        if self.path is None:
            try:
                sys.stdout.buffer.write(data)
                sys.stdout.flush()
            except BrokenPipeError:
                raise
            except OSError as exc:
                raise self._failed(exc) from None
            return
        with self.open(encoding="latin-1", newline="") as out:
            out.write(data.decode("latin-1"))

    @contextlib.contextmanager
    def _replaced(self, encoding: str, newline: str | None) -> Iterator[IO[str]]:
        """A temporary file beside the target, renamed onto it at the end; removed on any
        error, Ctrl-C or SIGTERM."""
        assert self.path is not None
        target = Path(os.path.realpath(self.path))  # a symlink: replace what it points to
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".part", dir=target.parent
        )
        try:
            with (
                sigterm_exits(),
                os.fdopen(handle, "w", encoding=encoding, newline=newline) as out,
            ):
                os.chmod(partial, _mode_for(target))
                yield out
                out.flush()
                os.fsync(out.fileno())
            os.replace(partial, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            raise

    def _refuse(self, inputs: Iterable[str | os.PathLike[str]]) -> None:
        assert self.path is not None
        name = f"{self.option} {self.path}"
        if self.path.is_dir():
            raise self.error(f"{name} is a folder: give a file name, e.g. {self.path}/out.txt")
        resolved = Path(os.path.realpath(self.path))
        home = Path(os.path.realpath(_cache_home()))
        if resolved == home or home in resolved.parents:
            raise self.error(
                f"{name} is inside the ir_datasets cache {home}: an output must not replace "
                "cached files; write it elsewhere"
            )
        for source in inputs:
            if os.fspath(source) != STDOUT and _same_file(self.path, Path(source)):
                raise self.error(
                    f"{name} is the input {os.fspath(source)}: writing it would destroy the "
                    "input; give another file name"
                )
        check_writable(resolved, self.what, self.error)

    def _names(self, filename: object) -> bool:
        """Whether an error's file name is the output or its temporary file."""
        if self.path is None or not isinstance(filename, (str, os.PathLike)):
            return False
        target, named = Path(os.path.realpath(self.path)), Path(os.path.realpath(filename))
        partial = named.parent == target.parent and named.name.startswith(f".{target.name}.")
        return named == target or partial

    def _failed(self, exc: OSError) -> IrBrightError:
        reason = (exc.strerror or type(exc).__name__).lower()
        return self.error(f"cannot write {self.what} to {self.label}: {reason}")


def write_output(
    path: str | os.PathLike[str] | None,
    write: Callable[[IO[str]], T],
    what: str = "the output",
    inputs: Iterable[str | os.PathLike[str]] = (),
    error: type[IrBrightError] = IrBrightError,
) -> T:
    """``write(stream)`` into :class:`Output` ``path``; returns what ``write`` returns."""
    with Output(path, what, inputs, error).open() as out:
        return write(out)


def check_writable(target: Path, what: str, error: type[IrBrightError] = IrBrightError) -> Path:
    """Return ``target`` if it can be created: its nearest existing parent is a folder the
    process may write (missing folders below it are created later). Otherwise raise
    ``error`` naming ``what`` (``the run``, ``the plot``), the file and the culprit folder."""
    for folder in target.parents:
        if folder.exists():
            if not folder.is_dir():
                raise error(f"cannot write {what} {target}: {folder} is a file")
            if not os.access(folder, os.W_OK):
                raise error(
                    f"cannot write {what} {target}: {folder} is not writable (permission "
                    "denied or a read-only disk)"
                )
            break
    return target


def _cache_home() -> Path:
    from .hub import cache_home

    return cache_home().expanduser()


def _same_file(output: Path, source: Path) -> bool:
    try:
        return os.path.samefile(output, source)
    except OSError:  # one of them does not exist
        return os.path.realpath(output) == os.path.realpath(source)


def _mode_for(target: Path) -> int:
    """The permissions of the file being replaced, else those a new file gets (the umask's)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
