"""The ``ir-bright`` command: a thin argparse front end over the package's modules.

Each subcommand lives in its own module of this package exposing ``add_parser(subparsers)``;
the parser it adds carries ``func=run`` taking the parsed arguments and returning an exit code.
Results go to stdout, logs to stderr; an :class:`~ir_bright.errors.IrBrightError` ends the
command with its one-line message and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import IrBrightError

SUBCOMMANDS = ("list", "download", "info", "export", "evaluate", "bm25", "report")
USAGE_ERROR = 2


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
    parser = build_parser()
    args = parser.parse_args(argv)
    _configure_logging(args.verbose, args.quiet)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return USAGE_ERROR
    try:
        return args.func(args) or 0
    except IrBrightError as exc:
        print(f"ir-bright: error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        print("ir-bright: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


def _configure_logging(verbose: int, quiet: bool) -> None:
    level = logging.ERROR if quiet else logging.DEBUG if verbose else logging.INFO
    logging.basicConfig(
        level=level, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr
    )


def entry_point() -> None:  # pragma: no cover - console script shim
    sys.exit(main())
