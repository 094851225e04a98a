"""Counts that only the real files determine, computed once from the cached files and kept.

Most counts ship in the families' declarations (``ir_bright/families/*.json``). A few
(MM-BRIGHT's qrels of tasks 1-3, Task 4's pairs and qrels) are published nowhere and follow
from whole files, so they are computed the first time they are asked for once every file
they read is cached, stored in ``<first input>.counts.json`` beside that file, and served
from there while the inputs keep their size and modification time. Before the files are
cached the count is None (unknown), never a guess.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import CacheError, IrBrightError
from ..reading import read_json
from . import derived

__all__ = ["cached_count"]

logger = logging.getLogger(__name__)
VERSION = 1  # bump when a count's definition changes: older stored counts are recomputed


def cached_count(name: str, inputs: Sequence, compute: Callable[[], int]) -> int | None:
    """The count ``name`` of the hub files ``inputs``: stored, else computed and stored when
    every input is cached, else None. A count that cannot be computed (a missing optional
    dependency, a damaged file) is logged and left unknown."""
    paths = [hub_file.cached_path() for hub_file in inputs]
    if any(path is None for path in paths):
        return None
    target = paths[0].with_name(paths[0].name + ".counts.json")
    stamp = [[p.name, p.stat().st_size, p.stat().st_mtime_ns] for p in paths]
    stored = _read(target).get(name)
    if stored and stored.get("inputs") == stamp and stored.get("version") == VERSION:
        return stored["count"]
    try:
        count = compute()
    except IrBrightError as exc:
        logger.warning("%s count left unknown: %s", name, exc)
        return None
    _write(target, name, {"count": count, "inputs": stamp, "version": VERSION})
    return count


def _read(target: Path) -> dict:
    try:
        data = read_json(target)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:  # damaged: recompute rather than serve it
        logger.warning("ignoring unreadable %s (%s): counts are recomputed", target, exc)
        return {}
    return data if isinstance(data, dict) else {}


def _write(target: Path, name: str, entry: dict) -> None:
    try:
        with derived.file_lock(target):
            data = _read(target)
            data[name] = entry
            with derived.replaced_atomically(target) as out:
                out.write(json.dumps(data, indent=1, sort_keys=True).encode())
    except OSError as exc:  # a read-only cache still answers, it only cannot remember
        logger.warning("%s", CacheError(f"cannot store a count in {target}: {exc}"))
