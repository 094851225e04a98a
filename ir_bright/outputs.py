"""Files the package writes for the user (runs, tables, plots), written as Unix tools write them.

:class:`Output` is the one writer of every command's ``-o``, checked before any work is done:

- no ``-o``, or ``-o -``: standard output;
- a regular file, or a new path: written to a temporary file in the same folder, then renamed
  onto the path (:mod:`ir_bright.atomic`), so a reader never sees a partial file and an error
  (or SIGTERM, or Ctrl-C) leaves the old file as it was and no temporary file behind; a killed
  writer's temporary file is removed by the next write of the same path; a symlink keeps
  pointing where it pointed (its target is replaced, with the target's permissions);
- anything else (a FIFO, a character device such as ``/dev/null``, ``/dev/stdout``, a path in
  ``/dev`` or ``/proc``): opened and written in place, as ``sort -o`` or ``cp`` write them;
- refused with a one-line error: an empty path, a folder (or a path ending in ``/``, which
  names one), a path inside the ir_datasets cache
  (``IR_DATASETS_HOME``, by default ``~/.ir_datasets``: an output must never replace a cached
  file), and one of the command's own input files.

A write that fails (a full disk, ``/dev/full``) raises the error class given, naming the output
and the reason, e.g. ``no space left on device``; a FIFO's reader that went away raises
:class:`ReaderGone` (a ``BrokenPipeError``), which the command line ends quietly on, as on a
closed stdout (``| head``), and only then.

An output may have a *sidecar*, ``<path>.json``, that describes it (``bm25 -o RUN`` writes the
run's provenance there); the two are one unit. The sidecar is checked with the output, before
any work (it must be a regular file or a new path; a folder or a FIFO there is refused; a
symbolic link there is replaced by the file, never written through: the user named the output,
not the sidecar, and a link there may lead to any of their files). It is
written when the output is complete and names the output's bytes (``{"name", "size",
"sha256"}``, given to the function that writes it); then the old sidecar is removed, the output
renamed into place and the new sidecar after it, under a lock on the folder. So a sidecar never
describes another output: a writer killed between the renames leaves an output without a
sidecar, never an output beside the previous one's. A sidecar that cannot be written after a
good output is a warning naming the cause; the output stands.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, TypeVar

from . import atomic
from .errors import IrBrightError, exhausted
from .reading import file_digests, kind_of
from .signals import sigterm_exits

logger = logging.getLogger(__name__)

STDOUT = "-"
"""The ``-o`` value that means standard output."""

SIDECAR_SUFFIX = ".json"
"""A sidecar's name is its output's with this added: ``run.trec`` -> ``run.trec.json``."""

_IN_PLACE_ROOTS = ("/dev/", "/proc/")  # /dev/stdout, /dev/fd/3, /proc/self/fd/1: never renamed
T = TypeVar("T")
Describe = Callable[[dict[str, Any]], str]


class Output:
    """Where a command writes its result: ``path`` (``-o``), or stdout when it is None or
    ``-``. Checked when made (before any work); :meth:`open` writes it.

    ``what`` names the output in messages (``the run``, ``the table``); ``inputs`` are the
    command's input files, which the output may not be; ``error`` is the error class raised.
    ``sidecar`` names the sidecar in messages (``the run's provenance``) when the output has
    one (only a file replaced whole has: not stdout, a FIFO or a device). ``follows_links``:
    a symbolic link at ``path`` has its target replaced (the path the user named), else the
    link itself is replaced by the file (a name the user never gave, as the sidecar's).
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None,
        what: str = "the output",
        inputs: Iterable[str | os.PathLike[str]] = (),
        error: type[IrBrightError] = IrBrightError,
        option: str = "-o",
        sidecar: str | None = None,
        follows_links: bool = True,
    ):
        self.what, self.error, self.option = what, error, option
        self.path: Path | None = None
        self.sidecar: Output | None = None
        self._follows_links = follows_links
        if path is None or os.fspath(path) == STDOUT:
            return
        text = os.fspath(path)
        if not text.strip():
            raise error(f"{option} is empty: give a file name, or - (or no {option}) for stdout")
        if text.endswith(("/", os.sep)):  # Path() would drop the slash that makes it a folder
            raise error(f"{option} {text} is a folder: give a file name, e.g. {text}out.txt")
        self.path = Path(text)
        inputs = list(inputs)
        self._refuse(inputs)
        if sidecar is not None and not self.in_place:
            self.sidecar = _sidecar_of(self, sidecar, inputs)

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
            mode = (os.stat if self._follows_links else os.lstat)(self.path).st_mode
        except OSError:  # a new path (or a dangling link, replaced where it points)
            return False
        return not (stat.S_ISREG(mode) or stat.S_ISLNK(mode))

    @contextlib.contextmanager
    def open(
        self,
        encoding: str = "utf-8",
        newline: str | None = None,
        sidecar: Describe | None = None,
    ) -> Iterator[IO[str]]:
        """A text stream to write the output to; complete (renamed into place, or flushed)
        when the block ends, removed (or left as it was) when the block raises. ``sidecar``
        makes the sidecar's text from the output's ``{"name", "size", "sha256"}``; without
        it, an output that has a sidecar is written with none (the old one removed)."""
        try:
            if self.path is None:
                yield sys.stdout
                sys.stdout.flush()
            elif self.in_place:
                with open(self.path, "w", encoding=encoding, newline=newline) as out:
                    try:
                        yield out
                        out.flush()
                    except BrokenPipeError as exc:
                        if not reader_gone(out.fileno()):
                            raise
                        _drop_unwritten(out.fileno())
                        raise ReaderGone(*exc.args) from None
            else:
                with self._replaced(encoding, newline, sidecar) as out:
                    yield out
        except BrokenPipeError:
            raise  # stdout's or a FIFO's reader went away (the command line ends quietly) or
            # the work's own pipe broke (an error): the command line tells which
        except IrBrightError:
            raise  # the work inside the block failed (a download, a bad input), not the write
        except OSError as exc:
            if exc.filename is not None and not self._names(exc.filename):
                raise  # reading another file failed inside the block
            if exhausted(exc):
                raise  # open files or processes ran out: the machine's limit, not the output
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
    def _replaced(
        self, encoding: str, newline: str | None, describe: Describe | None
    ) -> Iterator[IO[str]]:
        """A temporary file beside the target, renamed onto it at the end (with the sidecar,
        if any); removed on any error, Ctrl-C or SIGTERM."""
        target = self._target()
        target.parent.mkdir(parents=True, exist_ok=True)
        with sigterm_exits():
            pending = _pending(target)
            beside: atomic.Pending | None = None
            try:
                text = io.TextIOWrapper(pending.file, encoding=encoding, newline=newline)
                yield text
                text.flush()
                text.detach()  # the file stays open, and locked, until renamed
                pending.file.flush()
                os.fsync(pending.file.fileno())
                if self.sidecar is not None and describe is not None:
                    beside = self._sidecar_written(pending.path, describe)
                self._commit(pending, beside)
            finally:
                pending.discard()
                if beside is not None:
                    beside.discard()

    def _target(self) -> Path:
        """The file replaced: the path, or what it links to when the output follows links."""
        assert self.path is not None
        if not self._follows_links:  # the link itself, in its folder's real place
            return Path(os.path.realpath(self.path.parent)) / self.path.name
        return Path(os.path.realpath(self.path))

    def _commit(self, pending: atomic.Pending, beside: atomic.Pending | None) -> None:
        """Rename the output (and its sidecar after it) into place, the old sidecar removed
        first, under the lock of their folders."""
        if self.sidecar is None:
            pending.commit()
            return
        side = self.sidecar._target()
        with atomic.folders_locked([pending.target.parent, side.parent]):
            with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
                os.unlink(side)  # it describes the output being replaced (a folder stays)
            pending.commit()
            if beside is not None:
                try:
                    beside.commit(durable=True)
                except OSError as exc:
                    self._sidecar_failed(exc)

    def _sidecar_written(self, written: Path, describe: Describe) -> atomic.Pending | None:
        """The sidecar, written from ``describe`` of the complete output ``written`` but not
        yet renamed; None, after a warning, when it cannot be."""
        assert self.sidecar is not None
        size, sums = file_digests(written)
        facts = {"name": self._target().name, "size": size, "sha256": sums["sha256"]}
        try:
            data = describe(facts).encode("utf-8")
            pending = _pending(self.sidecar._target())
        except (OSError, IrBrightError) as exc:
            self._sidecar_failed(exc)
            return None
        try:
            pending.file.write(data)
            pending.file.flush()
        except OSError as exc:
            pending.discard()
            self._sidecar_failed(exc)
            return None
        return pending

    def _sidecar_failed(self, exc: Exception) -> None:
        assert self.sidecar is not None
        reason = exc.strerror.lower() if isinstance(exc, OSError) and exc.strerror else str(exc)
        logger.warning(
            "wrote %s to %s, but not %s to %s: %s; the output stands without it",
            self.what,
            self.label,
            self.sidecar.what,
            self.sidecar.label,
            reason,
        )

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
        stem = atomic.temporary_stem(target.name)
        partial = named.parent == target.parent and named.name.startswith(f".{stem}.")
        return named == target or partial

    def _failed(self, exc: OSError) -> IrBrightError:
        reason = (exc.strerror or type(exc).__name__).lower()
        return self.error(f"cannot write {self.what} to {self.label}: {reason}")


class ReaderGone(BrokenPipeError):
    """The reader of an output written in place (a FIFO) went away: the command ends quietly,
    as on a closed stdout."""


def reader_gone(fd: int) -> bool:
    """Whether the reader of the pipe (or socket) ``fd`` went away: it reports an error or a
    hang-up. Where that cannot be asked (no ``poll``), a broken pipe is taken to be it."""
    try:
        import select

        poll = select.poll()
    except (ImportError, AttributeError):
        return True
    poll.register(fd, 0)  # errors and hang-ups are always reported
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poll.poll(0))


def _drop_unwritten(fd: int) -> None:
    """Point ``fd``, whose reader went away, at ``/dev/null``: what is left in its buffer is
    dropped when it closes, instead of breaking the pipe again."""
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)


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


def _pending(target: Path) -> atomic.Pending:
    """A temporary file for ``target`` with the permissions of the file it replaces, else
    those a new file gets (the umask's)."""
    pending = atomic.Pending(target, 0o666)
    try:
        found = os.lstat(target).st_mode
    except OSError:
        return pending
    if stat.S_ISLNK(found):  # a link replaced by the file: a new file's permissions
        return pending
    mode = stat.S_IMODE(found)
    try:
        os.fchmod(pending.file.fileno(), mode)
    except BaseException:
        pending.discard()
        raise
    return pending


def _sidecar_of(output: Output, what: str, inputs: list[str | os.PathLike[str]]) -> Output:
    """The sidecar of ``output``, checked as an output is; one that could not be replaced
    whole (a folder, a FIFO, a device) is refused before any work."""
    assert output.path is not None
    path = Path(str(output.path) + SIDECAR_SUFFIX)
    try:
        mode: int | None = os.lstat(path).st_mode
    except OSError:
        mode = None  # a new path
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise output.error(
            f"{output.option} {output.path}: {what} goes to {path}, which is "
            f"{kind_of(mode)}: remove it or give another {output.option}"
        )
    option = f"{output.option} {output.path}'s sidecar"
    return Output(path, what, inputs, output.error, option, follows_links=False)
