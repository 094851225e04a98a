"""The provenance of a number: which hub files, fetched at which commit, gave it, and how.

:func:`provenance` is the object the JSON outputs carry under the key ``provenance``::

    {"ir_bright": "0.2.0", "protocol": "official", "measures": ["nDCG@10"],
     "datasets": [<dataset_provenance(...)>, ...]}

:func:`dataset_provenance` describes the hub files one dataset's entities (``docs``,
``queries``, ``qrels``) are read from, for BRIGHT, MM-BRIGHT and BRIGHT-Pro alike (each
component lists them as ``<entity>_hub_files()``)::

    {"dataset": "bright/biology@mteb-v1.1", "repo": "xlangai/BRIGHT", "commit": "3066d29c...",
     "alias": "mteb-v1.1", "known_as": "MTEB BRIGHT(v1.1)", "mixed_commits": false,
     "files": [{"path": "examples/biology-00000-of-00001.parquet", "sha256": "...",
                "md5": "...", "size": 123, "commit": "3066d29c...", "alias": "mteb-v1.1",
                "pin": {"source": "hub listing", "sha256": "..."},
                "fetched_at": "2026-01-01T00:00:00Z"}]}

Only cached files are described (a number was computed from them): nothing is fetched. A
file's facts come from the record written beside it at download
(:func:`ir_bright.hub.fetch_records.file_provenance`); a file cached before that record
existed has its checksums computed once and ``commit`` ``"unknown"``, never a guessed one.

``commit`` is the commit every described file was fetched at (``"unknown"`` when none says),
and None when they differ; ``alias`` is the name the family's declaration gives that commit
(``mteb-v1``; for a dataset asked at a branch, ``bright/biology@main``, that name), else None;
``known_as`` names it when it is one of the known revisions of its family's declaration
(``hub.known_revisions``: who pins it, what changed between them), else None. Each file says
what its bytes were verified against (``pin``: the declaration's pin, or the hub's listing or
headers for its commit, with the checksum; None when unverified).
``mixed_commits`` is true when two files were fetched at two different known commits: the
number then mixes two states of the hub repository, and every command reading them has said
so in a warning (:func:`ir_bright.hub.fetch_records.watch`). To
score one state: delete the cached files of the other commit (``ir-bright info ID`` lists
them with their commits), set ``IR_BRIGHT_REVISION`` to the wanted commit (the known BRIGHT
revisions are in the families' declarations) and run the command again.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from . import registry
from ._version import __version__
from .hub.fetch_records import UNKNOWN
from .reading import file_digests

__all__ = ["dataset_provenance", "provenance", "write_run_provenance"]

ENTITIES = ("docs", "queries", "qrels")
PROTOCOLS = ("official", "stock")
FILE_KEYS = ("path", "sha256", "md5", "size", "commit", "alias", "pin", "fetched_at")


def dataset_provenance(dataset: Any, entities: Iterable[str] = ("qrels",)) -> dict[str, Any]:
    """The provenance of ``dataset`` (an id or an ir_datasets dataset) for ``entities``: its
    hub repository, the commit its cached files were fetched at, and each file's facts."""
    entities = tuple(entities)
    unknown = [entity for entity in entities if entity not in ENTITIES]
    if unknown:
        raise ValueError(f"unknown entity {unknown[0]!r}: give one of {', '.join(ENTITIES)}")
    label = dataset if isinstance(dataset, str) else _dataset_id(dataset)
    dataset = registry.load(dataset)
    found = ((file, _facts(file)) for file in _hub_files(dataset, entities))
    # twins (one file cached for two paths) are described once, as the file fetched
    described = {(f["path"], f["sha256"]): (file, f) for file, f in found if f}
    facts = [f for _, f in described.values()]
    repos = sorted({f["repo"] for f in facts if f.get("repo")})
    commits = {f["commit"] for f in facts}
    # the commits a declaration pins on purpose (TEMPO's two) count as one
    groups = {_group(file, f["commit"]) for file, f in described.values()}
    commit = next(iter(commits)) if len(commits) == 1 else None
    known_as = alias = None
    if len(repos) == 1 and commit is not None:
        known_as, alias = known_revisions().get((repos[0], commit), (None, None))
    asked = getattr(dataset, "revision", None)
    if callable(asked) and alias is None:
        alias = asked()["alias"]
    return {
        "dataset": label,
        "repo": repos[0] if len(repos) == 1 else (repos or None),
        "commit": commit,
        "alias": alias,
        "known_as": known_as,
        "mixed_commits": len(groups - {UNKNOWN, None}) > 1,
        "files": [{key: f.get(key) for key in FILE_KEYS} for f in facts],
    }


def provenance(
    datasets: Iterable[Any],
    protocol: str | None,
    measures: Sequence[Any],
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``provenance`` object of an output: the ir_bright version, the protocol
    (``official`` or ``stock``; None for a run, which no measure scored yet), the measures (as
    named in the output) and each dataset's provenance; ``datasets`` holds ids, datasets
    (their qrels described) or objects made by :func:`dataset_provenance`. ``extra`` adds
    keys (a retriever's parameters, say)."""
    if protocol is not None and protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}: give one of {', '.join(PROTOCOLS)}")
    described = [d if isinstance(d, dict) else dataset_provenance(d) for d in datasets]
    result = {
        "ir_bright": __version__,
        "protocol": protocol,
        "measures": [str(measure) for measure in measures],
        "datasets": described,
    }
    clashes = sorted(set(extra or ()) & set(result))
    if clashes:
        raise ValueError(f"extra provenance key {clashes[0]!r} would replace a standard one")
    return {**result, **(extra or {})}


def run_provenance(
    dataset: Any,
    extra: dict[str, Any],
    entities: Iterable[str] = ("docs", "queries"),
    run: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The provenance of a run (its sidecar ``<run>.json``): that of the ``entities`` of
    ``dataset`` (an id or a dataset) it was ranked from, with ``protocol`` None and no
    measures, plus ``extra`` (a retriever's parameters and analyzer) and, under ``run``, the
    run file's ``{"name", "size", "sha256"}``, which tie the sidecar to the bytes it
    describes."""
    facts = {} if run is None else {"run": run}
    return provenance([dataset_provenance(dataset, entities)], None, [], {**extra, **facts})


def write_run_provenance(
    run: Path | str,
    dataset: Any,
    extra: dict[str, Any],
    entities: Iterable[str] = ("docs", "queries"),
) -> Path:
    """Describe a run file written outside ir_bright as ``ir-bright bm25 -o RUN`` describes
    its runs: write ``<run>.json`` beside ``run`` (replaced whole) with the provenance of the
    ``entities`` of ``dataset`` the run was ranked from, ``extra`` (the retriever's
    parameters, e.g. ``{"model": ...}``) and the run file's name, size and sha256 as it is
    now; return its path. (A command writing a run writes the two as one unit instead.)"""
    from .outputs import SIDECAR_SUFFIX, Output

    run = Path(run)
    target = run.with_name(run.name + SIDECAR_SUFFIX)
    size, sums = file_digests(run)
    facts = {"name": run.name, "size": size, "sha256": sums["sha256"]}
    text = sidecar_text(run_provenance(dataset, extra, entities, facts))
    with Output(target, "the run's provenance", follows_links=False).open() as out:
        out.write(text)  # a link there is replaced: the name is derived, not the user's
    return target


def sidecar_text(about: dict[str, Any]) -> str:
    """A provenance object as a sidecar file holds it."""
    return json.dumps(about, indent=1) + "\n"


def known_revisions() -> dict[tuple[str, str], tuple[str, str | None]]:
    """``{(repository, commit): (name, alias)}`` of the known revisions the families declare."""
    from .families import families

    return {
        (family.hub.repo, revision.commit): (revision.known_as, revision.alias)
        for family in families()
        for revision in family.known_revisions()
    }


def _dataset_id(dataset: Any) -> str | None:
    try:
        return dataset.dataset_id()
    except AttributeError:
        return None


def _hub_files(dataset: Any, entities: tuple[str, ...]) -> list[Any]:
    """The hub files (or stand-ins) the entities are read from, each once, in order; a
    dataset whose components do not list theirs gives every file it reads."""
    files: list[Any] = []
    for entity in entities:
        lister = getattr(dataset, f"{entity}_hub_files", None)
        if lister is None and dataset.has(entity):
            lister = getattr(dataset, "hub_files", None)
        files += lister() if lister is not None else []
    return list(dict.fromkeys(files))


def _group(file: Any, commit: str | None) -> str | None:
    """``commit``, or ``"pinned"`` when it is the one the file is declared at (that of its
    dataset at a revision): the commits a family pins on purpose (TEMPO's two) count as one."""
    shared = file.shared()
    declared = getattr(shared, "commit", None) or getattr(shared, "revision", None)
    return "pinned" if commit is not None and commit == declared else commit


def _facts(file: Any) -> dict[str, Any] | None:
    """The recorded facts of a cached hub file, or None (not cached, or a stand-in)."""
    describe = getattr(file, "provenance", None)
    return describe() if describe is not None else None
