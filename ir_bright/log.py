"""Logs and progress bars the way ir_datasets reports them, wherever the user looks.

ir_datasets' loaders print ``[INFO] ...`` lines and tqdm bars on stderr with no logging set
up (a notebook, a script), and go quiet when its logger (``logging.getLogger("ir_datasets")``)
is given a higher level. ir_bright's loggers (``ir_bright.*``, one per module) follow it:

- the ``ir_bright`` logger takes ir_datasets' logger's level unless it is given one itself
  (the command line's ``-q`` / ``-v`` set both), so silencing ir_datasets silences ir_bright;
- with no logging configured (the root logger has no handler), records print as
  ``[LEVEL] message`` through ``tqdm.write`` (bars stay intact), as ir_datasets' do; once the
  user configures logging, records propagate to their handlers as usual;
- :func:`progress` makes every bar (downloads, store and index builds, scoring): shown on a
  terminal and in IPython / Jupyter, hidden when the logger is quiet or the caller says so.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .upstream import follow_levels

NAME = "ir_bright"
IR_DATASETS = "ir_datasets"
FORMAT = "[%(levelname)s] %(message)s"  # ir_datasets' console format
COMMAND_LINE_FORMAT = "%(levelname)s %(name)s: %(message)s"


class _FollowsIrDatasets(logging.Logger):
    """The ``ir_bright`` logger: without a level of its own, ir_datasets' logger's level (its
    default, INFO, while that logger has none yet). Python re-reads ``level`` after any
    ``setLevel`` anywhere, so a change to ir_datasets' logger takes effect at once."""

    @property
    def level(self) -> int:
        own = self.__dict__.get("_own_level", logging.NOTSET)
        if own != logging.NOTSET:
            return own
        return logging.getLogger(IR_DATASETS).level or logging.INFO

    @level.setter
    def level(self, value: int) -> None:
        self.__dict__["_own_level"] = value


def _write(handler: logging.Handler, record: logging.LogRecord) -> None:
    """Print ``record`` on stderr; where bars show (a terminal, a notebook) through
    ``tqdm.write``, which clears the bars on screen first and draws them again after the line,
    so that no line is glued to a bar."""
    if sys.stderr is None:  # closed by the caller (pythonw, a daemon): nowhere to print
        return
    try:
        line = handler.format(record)
        if not (_interactive() or sys.stderr.isatty()):
            sys.stderr.write(line + "\n")
            return
        from tqdm import tqdm

        tqdm.write(line, file=sys.stderr)
    except Exception:  # noqa: BLE001 - logging must never raise into the caller
        handler.handleError(record)


_muted = threading.local()  # muted.on: this thread's records stay off the console


class _ConsoleWhenUnconfigured(logging.Handler):
    """Prints records as ir_datasets' console handler does, unless the user configured
    logging (then the root logger's handlers show them) or the console is muted."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter(FORMAT))

    def emit(self, record: logging.LogRecord) -> None:
        if not logging.getLogger().handlers and not getattr(_muted, "on", False):
            _write(self, record)


@contextmanager
def console_muted() -> Iterator[None]:
    """Within it, this thread's records reach only the logging the user configured: for
    what no notebook or script should show on stderr (the registration's line)."""
    before = getattr(_muted, "on", False)
    _muted.on = True
    try:
        yield
    finally:
        _muted.on = before


class _CommandLineConsole(logging.Handler):
    """The command line's stderr: every logger's records in :data:`COMMAND_LINE_FORMAT`, each
    warning once (a warning about a file shared by several datasets comes once per dataset)."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter(COMMAND_LINE_FORMAT))
        self._warned: set[tuple[str, str]] = set()

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING:
            seen = (record.name, record.getMessage())
            if seen in self._warned:
                return
            self._warned.add(seen)
        _write(self, record)


def install() -> logging.Logger:
    """Make the ``ir_bright`` logger follow ir_datasets' level and print when logging is not
    configured (idempotent)."""
    logger = logging.getLogger(NAME)
    follow_levels(logger, _FollowsIrDatasets)
    if not any(isinstance(h, _ConsoleWhenUnconfigured) for h in logger.handlers):
        logger.addHandler(_ConsoleWhenUnconfigured())
    return logger


def configure_command_line(verbose: int = 0, quiet: bool = False) -> None:
    """Logging for the ``ir-bright`` command: INFO lines on stderr (DEBUG with ``verbose``,
    errors only when ``quiet``), ir_datasets' own lines at the same level, bars intact. A
    process whose logging is configured already (a test, an embedding program) keeps its
    handlers and root level; only ir_bright's and ir_datasets' levels are set."""
    level = logging.ERROR if quiet else logging.DEBUG if verbose else logging.INFO
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(_CommandLineConsole())
        root.setLevel(level)
    logging.getLogger(NAME).setLevel(level)  # else it follows ir_datasets' (no DEBUG)
    try:
        from ir_datasets import log  # it logs "[INFO] ..." through a handler of its own
    except OSError:  # it cannot create its home folders: the command says so next
        return
    log.easy().logger().setLevel(logging.ERROR if quiet else logging.INFO)


def quiet() -> bool:
    """Whether INFO lines (and so progress bars) are silenced."""
    return not logging.getLogger(NAME).isEnabledFor(logging.INFO)


def progress(enabled: bool = True, **options: Any):
    """A tqdm bar on stderr (``total``, ``unit``, ``desc`` ... as tqdm takes them): hidden when
    ``enabled`` is false or the logs are quiet, shown in IPython / Jupyter even though their
    stderr is no terminal, elsewhere shown on a terminal only."""
    from tqdm import tqdm

    if not enabled or quiet() or sys.stderr is None:  # None: the caller closed stderr
        disable: bool | None = True
    else:
        disable = False if _interactive() else None
    options.setdefault("leave", False)
    return tqdm(file=sys.stderr, disable=disable, **options)


def _interactive() -> bool:
    """Running in IPython or a Jupyter kernel (where ir_datasets' bars show too)."""
    shell = sys.modules.get("IPython")
    return shell is not None and getattr(shell, "get_ipython", lambda: None)() is not None
