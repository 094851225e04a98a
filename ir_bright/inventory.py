"""What ir_bright serves and what of it is on this machine: ids, counts, hub files, cache state.

The library behind ``ir-bright list``, ``info`` and ``download``: everything here is known
without downloading (counts come from the datasets' metadata, cache state from the files'
presence and size), except :func:`fetch`, which downloads.
"""

from __future__ import annotations

import fnmatch
import logging
from collections.abc import Iterable
from typing import Any

from .errors import IrBrightError, exhausted

__all__ = ["describe", "overview", "summary"]

logger = logging.getLogger(__name__)

GLOB = "*?["


def match_ids(pattern: str | None, ids: list[str] | None = None) -> list[str]:
    """Our ids matching ``pattern`` (a glob when it has * ? or [, else a substring)."""
    from . import registry

    registry.register()
    ids = list(registry.our_ids()) if ids is None else ids
    if not pattern:
        return ids
    if any(c in pattern for c in GLOB):
        return [i for i in ids if fnmatch.fnmatchcase(i, pattern)]
    return [i for i in ids if pattern in i]


def resolve_ids(patterns: Iterable[str]) -> list[str]:
    """Expand globs over our ids, each id once; plain ids are checked (close-match errors). A
    glob at a revision (``bright/*@mteb-v1``) gives each matching id at that revision."""
    from . import registry

    ids: list[str] = []
    for pattern in patterns:
        plain, at, revision = pattern.partition("@")
        if any(c in plain for c in GLOB):
            found = [f"{i}{at}{revision}" for i in match_ids(plain)]
            if not found:
                raise _no_match(pattern)
            for dataset_id in found[:1] if at else ():
                registry.load(dataset_id)  # an unknown revision: said once, at once
            ids += found
        else:
            registry.load(pattern)
            ids.append(pattern)
    return list(dict.fromkeys(ids))


def _no_match(pattern: str | None) -> IrBrightError:
    return IrBrightError(f"no dataset id matches {pattern!r}: run `ir-bright list` to see them all")


def hub_files(dataset: Any) -> list[Any]:
    """The hub files a dataset reads (none for a dataset ir_bright does not serve)."""
    try:
        return list(dataset.hub_files())
    except AttributeError:
        return []


def counts(dataset: Any) -> dict[str, int | None]:
    """docs, queries and qrels counts known without downloading (None when unknown)."""
    result = {}
    for kind in ("docs", "queries", "qrels"):
        try:
            result[kind] = getattr(dataset, f"{kind}_count")()
        except Exception:  # noqa: BLE001 - a dataset without that entity or count
            result[kind] = None
    return result


def cache_status(dataset: Any) -> str:
    """``"yes"``, ``"no"`` or ``"k/n"`` for the hub files of ``dataset`` (``"-"``: none)."""
    files = hub_files(dataset)
    if not files:
        return "-"
    cached = sum(1 for f in files if f.is_cached())
    return "yes" if cached == len(files) else "no" if cached == 0 else f"{cached}/{len(files)}"


def overview(pattern: str | None = None) -> list[dict[str, Any]]:
    """One row per id matching ``pattern`` (collection roots left out): ``id``, ``docs``,
    ``queries``, ``qrels`` (None when unknown) and ``cached`` (see :func:`cache_status`)."""
    import ir_datasets

    ids = match_ids(pattern)
    if not ids:
        raise _no_match(pattern)
    rows = []
    for dataset_id in ids:
        dataset = ir_datasets.load(dataset_id)
        if not dataset.has_docs() and not dataset.has_queries():
            continue  # a collection root such as "bright"
        rows.append({"id": dataset_id, **counts(dataset), "cached": cache_status(dataset)})
    return rows


def damage(file: Any) -> str | None:
    """Why the cached copy of hub file ``file`` is damaged (another size than the pinned one,
    an unreadable parquet footer), or None (also when it is not cached)."""
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
            if exhausted(exc):
                raise  # the machine's limit: the file may well be good
            reason = " ".join(str(exc).split()) or type(exc).__name__
            return f"cached file {path} is not a readable parquet file ({reason})"
    return None


def check_cached(files: Iterable[Any]) -> None:
    """Refuse cached files that are visibly damaged (see :func:`damage`), naming the first;
    they are left in place: deleting them is the user's call."""
    damaged = [problem for problem in map(damage, files) if problem]
    if damaged:
        more = f" ({len(damaged) - 1} more cached file(s) damaged too)" if len(damaged) > 1 else ""
        raise IrBrightError(
            f"{damaged[0]}: delete it and run `ir-bright download` again to fetch it anew{more}"
        )


def plan_download(patterns: Iterable[str]) -> tuple[list[Any], list[Any]]:
    """Every hub file the datasets of ``patterns`` (ids or globs) read, and those of them not
    cached yet; the cached ones are checked first (:func:`check_cached`)."""
    import ir_datasets

    files = []
    for dataset_id in resolve_ids(patterns):
        dataset = ir_datasets.load(dataset_id)
        if not hasattr(dataset, "hub_files"):
            raise IrBrightError(
                f"{dataset_id} is not an ir_bright dataset: use `ir_datasets` to download it"
            )
        files += hub_files(dataset)
    files = list(dict.fromkeys(f for file in files for f in _expanded(file)))
    missing = [f for f in files if not f.is_cached()]
    check_cached([f for f in files if f not in missing])
    return files, missing


def _expanded(file: Any) -> list[Any]:
    """A hub file, or the files a stand-in for a not yet listed folder stands for (BRIGHT-Pro:
    one listing call)."""
    return file.expand() if hasattr(file, "expand") else [file]


def fetch(files: Iterable[Any]) -> tuple[int, int]:
    """Download ``files`` (each verified as the hub module does) with one progress bar;
    return how many this process fetched and their bytes (another process may fetch one
    meanwhile: it then counts as cached)."""
    from .log import progress

    files = list(files)
    fetched, fetched_bytes = 0, 0
    with progress(total=len(files), unit="file", desc="downloading") as bar:
        for file in files:
            _, size = file.ensure()  # 0 bytes: another process fetched it meanwhile
            fetched += size > 0
            fetched_bytes += size
            bar.update(1)
    return fetched, fetched_bytes


def describe(dataset_id: str) -> dict[str, Any]:
    """What a dataset is and what of it is cached, as ``ir-bright info`` prints it: ``id``,
    ``name``, ``description``, ``official_measures``, ``website``, ``bibtex`` (the citation of
    its family's papers, or None), ``protocol`` (of its family:
    ``exclusions``, ``depth``, ``measure``, ``query_side``; None outside ir_bright's families),
    ``counts``, ``files``
    (path, url, size, cached, local_path, damaged, provenance: see
    :func:`ir_bright.hub.fetch_records.file_provenance`), ``bm25_indexes`` and, where they apply,
    ``summary`` and ``adjusted_qrels``."""

    from . import registry
    from .families import protocol_of

    dataset = registry.load(dataset_id)
    protocol = protocol_of(dataset_id)
    try:
        doc = dict(dataset.documentation())
    except AttributeError:
        doc = {}
    files = hub_files(dataset)
    info = {
        "id": dataset_id,
        "name": doc.get("pretty_name"),
        "description": doc.get("desc"),
        "official_measures": list(doc.get("official_measures") or []),
        "website": doc.get("website"),
        "bibtex": doc.get("bibtex"),
        "protocol": dict(protocol._asdict()) if protocol is not None else None,
        "counts": counts(dataset),
        "revision": revision_of(dataset_id, dataset),
        "files": [_file_state(file) for file in files],
        "bm25_indexes": _bm25_indexes(dataset),
    }
    summary = _summary(dataset_id, files)
    if summary is not None:
        info["summary"] = summary
    adjusted = _adjusted_qrels(dataset)
    if adjusted is not None:
        info["adjusted_qrels"] = adjusted
    return info


def revision_of(dataset_id: str, dataset: Any) -> dict[str, Any] | None:
    """The revision a dataset reads (``asked``, ``commit``, ``alias``: the ``@`` of its id, or
    its family's declared one) and the ``known`` revisions of its family (``alias``,
    ``commit``, ``known_as``); None outside ir_bright's families."""
    from .families import family_of

    found = family_of(dataset_id)
    if found is None:
        return None
    known = found.known_revisions()
    asked = getattr(dataset, "revision", None)
    if callable(asked):
        current = asked()
    else:
        commit = found.hub.revision
        names = {commit: alias for alias, commit in found.aliases().items()}
        alias = names.get(commit) if commit is not None else None
        current = {"asked": None, "commit": commit, "alias": alias}
    return {
        **current,
        "known": [
            {"alias": revision.alias, "commit": revision.commit, "known_as": revision.known_as}
            for revision in known
        ],
    }


def _file_state(file: Any) -> dict[str, Any]:
    cached = file.cached_path()
    return {
        "path": file.path,
        "url": file.url,
        "size": file.size,
        "cached": cached is not None,
        "local_path": str(cached or file.shared().local_path),
        "damaged": damage(file) if cached is not None else None,
        "provenance": _provenance(file) if cached is not None else None,
    }


def _provenance(file: Any) -> dict[str, Any] | None:
    """Where the cached copy came from (repository, commit, checksums, fetch time; computed
    once for a file cached before that was recorded), or None for a stand-in."""
    describe = getattr(file, "provenance", None)
    return describe() if describe is not None else None


def _adjusted_qrels(dataset: Any) -> dict[str, Any] | None:
    """The state of a ``bright/<domain>/adjusted`` dataset's added pairs (never computes)."""
    try:
        summary = dataset.qrels_handler().adjustment_summary
    except AttributeError:
        return None
    return summary()


def _bm25_indexes(dataset: Any) -> list[str]:
    try:
        from .bm25 import index_folder

        root = index_folder(dataset).parent
    except Exception:  # noqa: BLE001 - no docs, or no docs file
        return []
    if not root.is_dir():
        return []
    return sorted(str(p) for p in root.iterdir() if (p / "ir_bright.json").is_file())


def summary(dataset_id: str) -> dict[str, int] | None:
    """Consistency counts of a dataset (MM-BRIGHT: skipped images and pairs; BRIGHT-Pro: gold
    docs without an aspect), as its family's module computes them, downloading what they
    need; None for a family that has none."""
    from .families import family_of

    family = family_of(dataset_id)
    if family is None:
        from . import registry

        registry.load(dataset_id)  # an unknown id: its close matches
        raise IrBrightError(f"{dataset_id} is not an ir_bright dataset: it has no summary")
    compute = getattr(family.module(), "summary", None)
    return None if compute is None else compute(dataset_id)


def _summary(dataset_id: str, files: list[Any]) -> Any:
    """:func:`summary` once the dataset's files are cached (None before, and on failure)."""
    if not all(f.is_cached() for f in files):
        return None
    try:
        return summary(dataset_id)
    except Exception as exc:  # noqa: BLE001 - the summary is an optional extra
        logger.warning("no summary for %s: %s", dataset_id, exc)
        return None
