"""Counts that only the real files determine, computed once from the cached files and kept.

Most counts ship in the families' declarations (``ir_bright/families/*.json``). A few
(MM-BRIGHT's qrels of tasks 1-3, Task 4's pairs and qrels) are published nowhere and follow
from whole files, so they are computed the first time they are asked for once every file
they read is cached, stored in ``<first input>.counts.json`` beside that file, and served
from there while the inputs keep their size and modification time. Before the files are
cached the count is None (unknown), never a guess.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import CacheError, IrBrightError
from . import derived
from .lock import file_lock

logger = logging.getLogger(__name__)
KIND = "ir_bright.counts"
VERSION = 2  # 2: checked by its manifest; bump when a count's definition changes


def cached_count(name: str, inputs: Sequence, compute: Callable[[], int]) -> int | None:
    """The count ``name`` of the hub files ``inputs``: stored, else computed and stored when
    every input is cached, else None. A count that cannot be computed (a missing optional
    dependency, a damaged file) is logged and left unknown."""
    paths = [hub_file.cached_path() for hub_file in inputs]
    if any(path is None for path in paths):
        return None
    target = paths[0].with_name(paths[0].name + ".counts.json")
    stamp = [[p.name, p.stat().st_size, p.stat().st_mtime_ns] for p in paths]
    stored = _read(target, paths[0]).get(name)
    if isinstance(stored, dict) and stored.get("inputs") == stamp:
        return stored["count"]
    try:
        count = compute()
    except IrBrightError as exc:
        logger.warning("%s count left unknown: %s", name, exc)
        return None
    _write(target, paths[0], name, {"count": count, "inputs": stamp})
    return count


def _read(target: Path, source: Path) -> dict:
    """The stored counts: the file is its own manifest (:mod:`.derived`), for this version of
    the counts and this copy of ``source``; anything else counts again."""
    if not target.exists():
        return {}
    manifest, problem = derived.check(target, KIND, VERSION, source, {}, manifest=target)
    counts = manifest.get("counts") if manifest is not None else None
    if not isinstance(counts, dict):
        logger.info("counting again: %s is %s", target, problem or "without counts")
        return {}
    return counts


def _write(target: Path, source: Path, name: str, entry: dict) -> None:
    try:
        with file_lock(target):
            counts = {**_read(target, source), name: entry}
            extra = {"counts": counts}
            derived.write_manifest(target, KIND, VERSION, source, {}, extra, manifest=target)
    except OSError as exc:  # a read-only cache still answers, it only cannot remember
        logger.warning("%s", CacheError(f"cannot store a count in {target}: {exc}"))
