"""The ``ir-bright`` command: a thin argparse front end over the package's modules.

Each subcommand lives in its own module of this package exposing ``add_parser(subparsers)``;
the parser it adds carries ``func=run`` taking the parsed arguments and returning an exit code.
Results go to stdout, logs to stderr. Nothing ends in a traceback:

- an :class:`~ir_bright.errors.IrBrightError` (bad input, missing data, failed download) and an
  ``OSError`` (permissions, a read-only or full disk) print one line
  ``ir-bright <command>: error: ...`` and exit with status 2;
- any other exception is a bug: one line ``ir-bright <command>: internal error: ...`` (the
  traceback with ``-v``) and exit status 1;
- a closed stdout (``ir-bright list | head -1``) ends quietly with status 0.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import IrBrightError

SUBCOMMANDS = (
    "list",
    "download",
    "info",
    "export",
    "evaluate",
    "bm25",
    "candidates",
    "fuse",
    "report",
    "compare",
)
USAGE_ERROR = 2
INTERNAL_ERROR = 1


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser that reports bad arguments in one line (exit status 2)."""

    def error(self, message: str):
        """Print ``<prog>: error: <message> (see <prog> --help)`` and exit with status 2."""
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def add_subcommand(
    subparsers, run: Callable[[argparse.Namespace], int], name: str, **kwargs: Any
) -> ArgumentParser:
    """Add subcommand ``name`` whose parsed arguments go to ``run``; ``kwargs`` (help,
    description, epilog with examples) go to argparse, the epilog printed as written."""
    parser = subparsers.add_parser(
        name, formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs
    )
    parser.set_defaults(func=run)
    return parser


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every available subcommand."""
    parser = ArgumentParser(
        prog="ir-bright",
        description="BRIGHT and MM-BRIGHT datasets, official scoring and baselines.",
    )
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging")
    parser.add_argument("-q", "--quiet", action="store_true", help="only errors on stderr")
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=ArgumentParser
    )
    for name in SUBCOMMANDS:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            continue
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    startup = _startup_error()
    if startup is not None:
        print(f"ir-bright: error: {startup}", file=sys.stderr)
        return USAGE_ERROR
    parser = build_parser()
    args = parser.parse_args(argv)
    _configure_logging(args.verbose, args.quiet)
    if not getattr(args, "func", None):
        print(
            f"ir-bright: error: no command given: choose one of {', '.join(SUBCOMMANDS)} "
            "(see ir-bright --help)",
            file=sys.stderr,
        )
        return USAGE_ERROR
    prog = f"ir-bright {args.command}"
    try:
        status = args.func(args) or 0
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return status
    except BrokenPipeError:
        return _stdout_closed()
    except KeyboardInterrupt:
        print("ir-bright: interrupted", file=sys.stderr)
        return 130
    except IrBrightError as exc:
        return _error(prog, exc)
    except OSError as exc:  # the machine's, not ours: permissions, a full or read-only disk
        return _error(prog, _os_message(exc))
    except Exception as exc:  # noqa: BLE001 - one line instead of a traceback
        return _internal_error(prog, exc, args.verbose)


def _startup_error() -> str | None:
    """Why ``import ir_bright`` could not set up (ir_datasets could not write its home)."""
    from .. import _startup_error as error

    return error


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _error(prog: str, message: object) -> int:
    print(f"{prog}: error: {_one_line(message)}", file=sys.stderr)
    return USAGE_ERROR


_OS_HINTS = {
    errno.ENOSPC: "free some space, or set IR_DATASETS_HOME to a disk with room",
    errno.EDQUOT: "free some space, or set IR_DATASETS_HOME to a disk with room",
    errno.EROFS: "a read-only disk: set IR_DATASETS_HOME (or the output) to a writable folder",
    errno.EACCES: "check its permissions",
    errno.EPERM: "check its permissions",
}


def _os_message(exc: OSError) -> str:
    reason = exc.strerror or _one_line(exc) or type(exc).__name__
    hint = _OS_HINTS.get(exc.errno or 0, "check the path and the disk")
    if type(exc).__module__.split(".")[0] in ("requests", "urllib3"):
        hint = "a network error: check the network (and HF_ENDPOINT for the hub)"
    where = f"{exc.filename}: " if exc.filename else ""
    return f"{where}{reason}: {hint}"


def _internal_error(prog: str, exc: BaseException, verbose: int) -> int:
    if verbose:
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    where = "" if verbose else "; rerun with -v for the traceback"
    cause = "a bug: please report it"
    if type(exc).__module__.startswith("pyarrow"):
        cause = "a damaged file in the cache (the traceback names it), or a bug"
    print(
        f"{prog}: internal error: {type(exc).__name__}: {_one_line(exc)} ({cause}{where})",
        file=sys.stderr,
    )
    return INTERNAL_ERROR


def _stdout_closed() -> int:
    """The reader of stdout went away: drop what is left unwritten and end quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the final flush at exit then succeeds
        os.close(devnull)
    except (OSError, ValueError):
        pass
    return 0


def _configure_logging(verbose: int, quiet: bool) -> None:
    level = logging.ERROR if quiet else logging.DEBUG if verbose else logging.INFO
    logging.basicConfig(
        level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )
    from ir_datasets import log  # it logs "[INFO] ..." through a handler of its own

    log.easy().logger().setLevel(logging.ERROR if quiet else logging.INFO)
    logging.getLogger("ir_bright").setLevel(level)  # else it follows ir_datasets' (no DEBUG)


def entry_point() -> None:  # pragma: no cover - console script shim
    sys.exit(main())
