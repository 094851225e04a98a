"""``ir-bright download ID [ID ...]``: fetch datasets' files ahead, for offline use later."""

from __future__ import annotations

import argparse
import logging
import sys

from ..errors import IrBrightError
from . import add_subcommand

logger = logging.getLogger(__name__)

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


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = add_subcommand(
        subparsers,
        run,
        "download",
        help="fetch datasets' files ahead of use",
        description="Fetch every hub file the given datasets read into the cache "
        "(IR_DATASETS_HOME), so they work later without network.",
        epilog=EPILOG,
    )
    parser.add_argument("ids", nargs="+", metavar="ID", help="dataset ids or globs over them")
    parser.add_argument(
        "--dry-run", action="store_true", help="only say which files would be fetched"
    )
    return parser


def resolve_ids(patterns: list[str]) -> list[str]:
    """Expand globs over our ids; plain ids are checked (close-match errors)."""
    from .. import registry
    from .list import match_ids

    ids: list[str] = []
    for pattern in patterns:
        if any(c in pattern for c in "*?["):
            found = match_ids(pattern)
            if not found:
                raise IrBrightError(
                    f"no dataset id matches {pattern!r}: run `ir-bright list` to see them all"
                )
            ids += found
        else:
            registry.load(pattern)
            ids.append(pattern)
    return list(dict.fromkeys(ids))


def run(args: argparse.Namespace) -> int:
    import ir_datasets
    from tqdm.auto import tqdm

    from .. import hub

    files = []
    for dataset_id in resolve_ids(args.ids):
        dataset = ir_datasets.load(dataset_id)
        try:
            found = list(dataset.hub_files())
        except AttributeError:
            raise IrBrightError(
                f"{dataset_id} is not an ir_bright dataset: use `ir_datasets` to download it"
            ) from None
        files += found
    files = list(dict.fromkeys(f for file in files for f in _expanded(file)))
    missing = [f for f in files if not f.is_cached()]
    _check_cached([f for f in files if f not in missing])
    if args.dry_run:
        for file in missing:
            sys.stdout.write(f"{file.url}\t{file.size if file.size is not None else '?'}\n")
        return 0
    fetched, fetched_bytes = 0, 0
    with tqdm(total=len(missing), unit="file", desc="downloading", disable=None) as bar:
        for file in missing:
            _, size = file.ensure()  # 0 bytes: another process fetched it meanwhile
            fetched += size > 0
            fetched_bytes += size
            bar.update(1)
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


def _expanded(file) -> list:
    """A hub file, or the files a stand-in for a not yet listed folder stands for (BRIGHT-Pro:
    one listing call)."""
    return file.expand() if hasattr(file, "expand") else [file]


def _check_cached(files: list) -> None:
    """Refuse cached files that are visibly damaged (a size other than the pinned one while
    verification is on, an unreadable parquet footer), naming the first; they are left in
    place: deleting them is the user's call."""
    damaged = [problem for problem in map(damage, files) if problem]
    if damaged:
        more = f" ({len(damaged) - 1} more cached file(s) damaged too)" if len(damaged) > 1 else ""
        raise IrBrightError(
            f"{damaged[0]}: delete it and run `ir-bright download` again to fetch it anew{more}"
        )


def damage(file) -> str | None:
    """Why the cached copy of ``file`` is damaged, or None."""

    path = file.cached_path()
    if path is None:
        return None
    expected = file.shared().pins()[0]
    try:
        size = path.stat().st_size
    except OSError as exc:
        return f"cached file {path} cannot be read ({exc.strerror})"
    if expected is not None and size != expected:
        return f"cached file {path} has {size} bytes, the hub's file {expected} (cut short?)"
    if path.name.endswith(".parquet"):
        import pyarrow.parquet as pq

        try:
            pq.read_metadata(path)
        except Exception as exc:  # noqa: BLE001 - Arrow and OS errors alike
            reason = " ".join(str(exc).split()) or type(exc).__name__
            return f"cached file {path} is not a readable parquet file ({reason})"
    return None
