# PYTHON_ARGCOMPLETE_OK (argcomplete's mark: the command completes itself in a shell)
"""The ``ir-bright`` command: a thin argparse front end over the package's modules.

Each subcommand lives in its own module of this package exposing ``add_parser(subparsers)``;
the parser it adds carries ``func=run`` taking the parsed arguments and returning an exit code.
Those modules import only argparse and this package at the top: a command's implementation is
imported by its ``run``, so ``--help`` and usage errors cost no more than argparse. Results go
to stdout, logs to stderr; ``-q`` / ``-v`` are accepted before and after the command. Nothing
ends in a traceback:

- an :class:`~ir_bright.errors.IrBrightError` (bad input, missing data, failed download) and an
  ``OSError`` (permissions, a read-only or full disk) print one line
  ``ir-bright <command>: error: ...`` and exit with status 2;
- any other exception is a bug: one line ``ir-bright <command>: internal error: ...`` (the
  traceback with ``-v``) and exit status 1;
- a closed stdout (``ir-bright list | head -1``, ``ir-bright --help | head -1``) ends quietly
  with status 0, whenever the reader goes away.

Shell completion is argcomplete's (the ``completion`` extra): it completes from these parsers,
so every command, option and choice completes as ``--help`` lists it, in bash, zsh and fish,
and every dataset argument completes the declared ids (:mod:`.dataset_args`).
"""

from __future__ import annotations

import argparse
import errno
import gc
import importlib
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NoReturn

from .._version import __version__
from ..errors import ROOM_FIX, IrBrightError, exhausted

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
    "references",
    "diff",
)
DESCRIPTION = (
    "{families} for ir_datasets: list, download, describe and export the datasets, score runs "
    "under the official protocol, run the BM25 baseline, make reranking candidates and fused "
    "runs, and make the papers' tables and paired comparisons."
)
USAGE_ERROR = 2
INTERNAL_ERROR = 1


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser that reports bad arguments in one line (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        """Print ``<prog>: error: <message> (see <prog> --help)`` and exit with status 2."""
        self.exit(USAGE_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _add_logging_options(parser: argparse.ArgumentParser, suffix: str = "") -> None:
    """``-v`` and ``-q``. A command's own copies (``suffix``) are absent from the parsed
    arguments unless given, so that they add to the top-level ones instead of resetting them."""
    verbose: Any = argparse.SUPPRESS if suffix else 0
    quiet: Any = argparse.SUPPRESS if suffix else False
    parser.add_argument(
        "-v",
        "--verbose",
        dest="verbose" + suffix,
        action="count",
        default=verbose,
        help="more logging (DEBUG lines, tracebacks of internal errors)",
    )
    parser.add_argument(
        "-q",
        "--quiet",
        dest="quiet" + suffix,
        action="store_true",
        default=quiet,
        help="only errors on stderr",
    )


def add_subcommand(
    subparsers: Any, run: Callable[[argparse.Namespace], int], name: str, **kwargs: Any
) -> ArgumentParser:
    """Add subcommand ``name`` whose parsed arguments go to ``run``; ``kwargs`` (help,
    description, epilog with examples) go to argparse, the epilog printed as written."""
    parser = subparsers.add_parser(
        name, formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs
    )
    parser.set_defaults(func=run)
    _add_logging_options(parser, "_after")
    return parser


def one_of(names: Sequence[str], what: str) -> dict[str, Any]:
    """``add_argument`` keywords for an option taking one of many names: the names listed once,
    in its help (argparse's default lists them in the usage line and twice in the option's
    entry)."""
    # no list(): the subcommand module ``list`` shadows the builtin in this package's namespace
    return {
        "choices": tuple(names),
        "metavar": "NAME",
        "help": f"{what}: one of {', '.join(names)}",
    }


FORMATS = {
    "table": "aligned columns, to read",
    "text": "labelled lines, to read",
    "markdown": "a Markdown table",
    "latex": "a LaTeX tabular",
    "csv": "comma-separated values, a header row first",
    "tsv": "tab-separated values, one record a line, no header row (as ir_datasets exports)",
    "json": "JSON, every field",
    "jsonl": "one JSON object per line",
    "trec": "TREC qrels lines: query, iteration, doc, relevance",
}
"""What each ``--format`` value writes, the same in every command that offers it."""


def described(meanings: Mapping[str, str], what: str, default: str | None = None) -> dict[str, Any]:
    """``add_argument`` keywords for an option taking one of a few names, each explained in
    the option's help (``meanings``: name -> what it means)."""
    each = "; ".join(f"{name}: {meaning}" for name, meaning in meanings.items())
    when = f" (default: {default})" if default is not None else ""
    return {"choices": tuple(meanings), "default": default, "help": f"{what}{when}: {each}"}


def add_force_option(parser: argparse.ArgumentParser) -> None:
    """``--force``: score a run none of whose ranked documents is judged or excluded for its
    query (refused otherwise, as a run for another dataset)."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="score a run none of whose ranked documents is judged or excluded for its query "
        "(refused otherwise, as a run for another dataset), with a warning",
    )


def output_format(
    names: Sequence[str], default: str | None = None, what: str = "output format"
) -> dict[str, Any]:
    """``add_argument`` keywords for ``--format``: one of ``names``, each explained as
    :data:`FORMATS` says."""
    return described({name: FORMATS[name] for name in names}, what, default)


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser with every available subcommand (or subcommand ``only``: the
    others' parsers import what their choices need, which a command need not pay for)."""
    from ..families import families

    names = [family.collection.pretty_name for family in families()]
    served = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
    parser = ArgumentParser(prog="ir-bright", description=DESCRIPTION.format(families=served))
    parser.add_argument(
        "--version",
        action="version",
        version=f"ir-bright {__version__}",
        help="print the version and exit",
    )
    _add_logging_options(parser)
    subparsers = parser.add_subparsers(
        dest="command", metavar="COMMAND", parser_class=ArgumentParser
    )
    for name in SUBCOMMANDS if only is None else [only]:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            continue
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None, *, whole_process: bool = False) -> int:
    """Run the command line; return the exit status (``--help`` and usage errors raise
    ``SystemExit`` as argparse does). A closed stdout ends it quietly, with status 0.
    ``whole_process`` says that the command is the process (the console script, ``python -m
    ir_bright``): the objects its imports made are then frozen out of garbage collection,
    which would otherwise walk them again and again while a run is written (a tenth of a
    warm BM25 run's time)."""
    from .streams import standard_streams

    with standard_streams():
        try:
            status = _main(argv, whole_process)
        except SystemExit:  # argparse: --help (0), a usage error (2)
            _flush_stdout()
            raise
        except BrokenPipeError:
            return _stdout_closed()
        return status if _flush_stdout() else _stdout_closed()


def _flush_stdout() -> bool:
    """Flush stdout now, so that a closed pipe shows here and not at exit (where Python would
    print "Exception ignored" and exit with status 120); False when the reader went away,
    and then nothing is left to flush at exit."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_closed()
        return False
    except (OSError, ValueError):  # stdout closed or replaced by the caller
        pass
    return True


def _main(argv: Sequence[str] | None, whole_process: bool) -> int:
    parser = build_parser(_command_named(sys.argv[1:] if argv is None else argv))
    _complete(parser)
    args = parser.parse_args(argv)
    verbose = args.verbose + getattr(args, "verbose_after", 0)
    quiet = args.quiet or getattr(args, "quiet_after", False)
    if not getattr(args, "func", None):
        print(
            f"ir-bright: error: no command given: choose one of {', '.join(SUBCOMMANDS)} "
            "(see ir-bright --help)",
            file=sys.stderr,
        )
        return USAGE_ERROR
    startup = _setup(verbose, quiet)
    if startup is not None:
        print(f"ir-bright: error: {startup}", file=sys.stderr)
        return USAGE_ERROR
    prog = f"ir-bright {args.command}"
    if whole_process:  # what the imports made lives to the end: collections skip it
        gc.freeze()
    try:
        return args.func(args) or 0
    except KeyboardInterrupt:
        print("ir-bright: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError as exc:
        if _reader_gone(exc):
            raise
        return _error(prog, _os_message(exc))  # a pipe of the work's own (a worker's) broke
    except IrBrightError as exc:
        return _error(prog, exc)
    except OSError as exc:  # the machine's, not ours: permissions, a full or read-only disk
        return _error(prog, _os_message(exc))
    except Exception as exc:  # noqa: BLE001 - one line instead of a traceback
        if exhausted(exc):  # a thread that could not start, memory: the machine's, not a bug
            return _error(prog, f"{_one_line(exc)}: {exhausted(exc)}")
        return _internal_error(prog, exc, verbose)


_LOGGING_FLAGS = re.compile(r"-[vq]+|--verbose|--quiet")


def _command_named(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` runs when only logging flags come before it, else None (the
    whole parser is then built: help, errors and shell completion list every command)."""
    if "_ARGCOMPLETE" in os.environ:
        return None
    for token in argv:
        if token in SUBCOMMANDS:
            return token
        if not _LOGGING_FLAGS.fullmatch(token):
            return None
    return None


def _complete(parser: argparse.ArgumentParser) -> None:
    """Answer the shell's completion request and exit, when the shell asks (it sets
    ``_ARGCOMPLETE``) and argcomplete is installed; nothing otherwise."""
    if "_ARGCOMPLETE" not in os.environ:
        return
    try:
        import argcomplete
    except ModuleNotFoundError:
        return
    argcomplete.autocomplete(parser)


def _setup(verbose: int, quiet: bool) -> str | None:
    """The command's logging, then the registration of the datasets and measures (importing
    ir_datasets, as the logging's set-up does, triggers it); why that failed, or None. The
    line saying which core entries were replaced is for library users: the command shows it
    with ``-v``."""
    import logging

    from ..log import configure_command_line

    registry = logging.getLogger("ir_bright.registry")
    level = registry.level
    if not verbose:
        registry.setLevel(logging.WARNING)
    try:
        configure_command_line(verbose, quiet)
        from ..registry import register

        register()
    except OSError as exc:
        if exc.filename is None:
            raise
        from ..errors import unwritable_cache

        return str(unwritable_cache(exc.filename, exc, "the ir_datasets home's"))
    finally:
        registry.setLevel(level)
    return None


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _error(prog: str, message: object) -> int:
    print(f"{prog}: error: {_one_line(message)}", file=sys.stderr)
    return USAGE_ERROR


_OS_HINTS = {
    errno.ENOSPC: ROOM_FIX,
    errno.EDQUOT: ROOM_FIX,
    errno.EROFS: "a read-only disk: set IR_DATASETS_HOME (or the output) to a writable folder",
    errno.EACCES: "check its permissions",
    errno.EPERM: "check its permissions",
    errno.EBADF: "give an output file with -o, or leave the stream open",
}


def _os_message(exc: OSError) -> str:
    reason = exc.strerror or _one_line(exc) or type(exc).__name__
    hint = exhausted(exc) or _OS_HINTS.get(exc.errno or 0, "check the path and the disk")
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


def _reader_gone(exc: BrokenPipeError) -> bool:
    """Whether a broken pipe is the reader of the output going away (stdout's, or a FIFO
    output's), which ends the command quietly, rather than an error of the work."""
    from ..outputs import ReaderGone
    from .streams import stdout_gone

    return isinstance(exc, ReaderGone) or stdout_gone()


def _stdout_closed() -> int:
    """The reader of stdout went away: drop what is left unwritten and end quietly."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the final flush at exit then succeeds
        os.close(devnull)
    except (OSError, ValueError):
        pass
    return 0


def entry_point() -> None:  # pragma: no cover - console script shim
    sys.exit(main(whole_process=True))
