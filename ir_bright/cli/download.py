"""``ir-bright download ID [ID ...]``: fetch datasets' files ahead, for offline use later."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from . import add_subcommand
from .dataset_args import add_dataset_argument

EPILOG = """examples:
  ir-bright download bright/biology
  ir-bright download bright/pony bright/pony-long
  ir-bright download 'bright/pony*'               a glob: pony and all its variants
  HF_HUB_OFFLINE=1 ir-bright bm25 bright/biology -o run.trec   later, without network
Each file this command fetches is verified (pinned size and md5, or the size and sha256 the hub
publishes) before it enters the cache, unless IR_BRIGHT_VERIFY=0; the summary counts only the
files this process fetched. Files already cached are not fetched again; one that is visibly damaged
(another size than the hub's, an unreadable parquet file) is named, and left for you to delete.
The summary goes to stdout."""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``download`` subcommand."""
    parser = add_subcommand(
        subparsers,
        run,
        "download",
        help="fetch datasets' files ahead of use",
        description="Fetch every hub file the given datasets read into the cache "
        "(IR_DATASETS_HOME), so they work later without network.",
        epilog=EPILOG,
    )
    add_dataset_argument(parser, "ids", "ID", "dataset ids or globs over them", nargs="+")
    parser.add_argument(
        "--dry-run", action="store_true", help="only say which files would be fetched"
    )
    return parser


def run(args: argparse.Namespace) -> int:
    """Fetch (or, with --dry-run, list) every file not cached yet; print the summary."""
    from .. import hub, inventory
    from ..errors import OfflineError

    try:
        files, missing = inventory.plan_download(args.ids)
    except OfflineError:  # a folder's listing, needed to know which files it holds
        if not hub.offline():
            raise
        listed = f"the files of {', '.join(args.ids)} are not all listed in the cache yet"
        raise _offline(listed) from None
    if args.dry_run:
        for file in missing:
            sys.stdout.write(f"{file.url}\t{file.size if file.size is not None else '?'}\n")
        return 0
    if missing and hub.offline():
        raise _offline(f"{len(missing)} file(s) are not cached (e.g. {missing[0].local_path})")
    fetched, fetched_bytes = inventory.fetch(missing)
    verified = {
        "pins": "verified (pinned size and md5, else the hub's sha256)",
        "hub": "verified (the hub's sha256; IR_BRIGHT_VERIFY=hub)",
        "off": "NOT verified (IR_BRIGHT_VERIFY=0)",
    }[hub.verification_mode()]
    sys.stdout.write(
        f"fetched {fetched} file(s), {hub.human_size(fetched_bytes)}, {verified}; "
        f"{len(files) - fetched} already cached; {len(files)} file(s) in all under "
        f"{hub.cache_home()}\n"
    )
    return 0


def _offline(what: str) -> Exception:
    """The refusal to download ``what`` under ``HF_HUB_OFFLINE``: the flag is what to change
    (the other commands' advice, to download ahead, would send the user back here)."""
    from ..errors import OfflineError

    return OfflineError(
        f"{what} and HF_HUB_OFFLINE is set, which forbids downloading: unset HF_HUB_OFFLINE "
        "(or set it to 0) and run the download again"
    )
