"""The dataset argument of every command: positional, completed from the declarations.

``add_dataset_argument`` adds it with its shell completer (argcomplete's ``completer``
attribute), which lists the declared ids without importing ir_datasets. ``fuse`` and
``compare`` take the dataset as an optional first argument before their runs
(``ir-bright fuse [DATASET] RUN RUN ...``): :func:`dataset_first` tells it from a run, and
handles their ``--dataset`` flag, kept for one release with a deprecation warning.
"""

from __future__ import annotations

import argparse
import logging
import os
from typing import Any

from ..errors import IrBrightError

LOGGER = logging.getLogger("ir_bright")
DEPRECATED_FLAG = "--dataset"


def dataset_ids(prefix: str = "", **_: Any) -> list[str]:
    """Every dataset id the families declare (what ``ir-bright list`` lists) starting with
    ``prefix``: argcomplete's completer, read from the declarations alone."""
    from ..families import families

    return [i for family in families() for i in family.dataset_ids() if i.startswith(prefix)]


def add_dataset_argument(
    parser: argparse.ArgumentParser, dest: str, metavar: str, help: str, **kwargs: Any
) -> argparse.Action:
    """Add the positional dataset argument ``dest``, whose ids complete in the shell."""
    action = parser.add_argument(dest, metavar=metavar, help=help, **kwargs)
    action.completer = dataset_ids  # type: ignore[attr-defined]
    return action


def add_deprecated_dataset_flag(parser: argparse.ArgumentParser, usage: str, *aliases: str) -> None:
    """Add ``--dataset ID`` (and ``aliases``, stored as ``dataset_flag``), the old spelling of
    the positional dataset; ``usage`` is the command's new form, which its warning gives."""
    action = parser.add_argument(
        DEPRECATED_FLAG,
        *aliases,
        dest="dataset_flag",
        metavar="ID",
        help="deprecated (goes in the next release): give the dataset first",
    )
    action.completer = dataset_ids  # type: ignore[attr-defined]
    parser.set_defaults(dataset_usage=usage)


def names_dataset(argument: str) -> bool:
    """Whether the first positional argument names a dataset rather than a run: a declared id,
    or a path that does not exist under a family's namespace (a mistyped id, which loading then
    refuses with a close match). A run file whose path is an id is written ``./ID``."""
    from ..families import families

    namespaces = [family.namespace for family in families()]
    if any(family.owns(argument) for family in families()):
        return True
    under = any(argument.startswith(f"{name}/") for name in namespaces)
    return under and not os.path.exists(argument)


def dataset_first(
    args: argparse.Namespace, positionals: list[str | None], runs: str
) -> tuple[str | None, list[str]]:
    """The dataset and the ``runs`` (what they are, for the error naming them missing) from the
    command's ``positionals``: the first is the dataset when it names one; the deprecated
    ``--dataset`` flag gives it too (a warning; an error when the dataset is given twice)."""
    given = [argument for argument in positionals if argument is not None]
    dataset = given.pop(0) if given and names_dataset(given[0]) else None
    flag = getattr(args, "dataset_flag", None)
    if flag is not None:
        if dataset is not None:
            raise IrBrightError(
                f"the dataset is given twice ({dataset} and {DEPRECATED_FLAG} {flag}): "
                f"give it once, first: {args.dataset_usage}"
            )
        LOGGER.warning(
            "%s is deprecated and goes in the next release: give the dataset first, as in "
            "evaluate: %s",
            DEPRECATED_FLAG,
            args.dataset_usage,
        )
        dataset = flag
    if not given:
        raise IrBrightError(f"give {runs} after the dataset: {args.dataset_usage}")
    return dataset, given
