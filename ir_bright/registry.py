"""Registration of ir_bright's datasets with ir_datasets, and loading them by id.

Each benchmark family names its ids in its declaration (:mod:`ir_bright.families`) and builds
its datasets in the module the declaration names (``datasets(family) -> dict[str, Dataset]``).
:func:`register` puts a :class:`LazyDataset` under each id into ``ir_datasets.registry``,
replacing entries the core already has under the same id (one INFO line says which and why),
and is safe to call again. A family is built, in one piece, when one of its datasets is first
used: ``import ir_bright`` pays for its ids only.

``<id>@<revision>`` is any of these ids read at another commit of its hub repository (an alias
the family declares, ``bright/biology@mteb-v1``, a commit, or ``main``): not registered ahead
(a family has thousands of commits), but made on lookup through the pattern ir_datasets'
registry offers (``Registry.register_pattern``), so that ``ir_datasets.load``, PyTerrier and
every command take them alike; the family is built once per commit (:meth:`Family.at`).
"""

from __future__ import annotations

import importlib
import logging
import os
import re
import threading
import weakref
from collections.abc import Callable, Mapping
from functools import cache, partial
from typing import Any

import ir_datasets
from ir_datasets.datasets.base import Dataset

from .families import families, family, family_of
from .upstream import dataset_table

logger = logging.getLogger(__name__)

_registered: dict[str, Dataset] = {}
_replaced: dict[str, Dataset] = {}  # the core's entries registration replaced


def register() -> list[str]:
    """Register every ir_bright dataset (idempotent); return the ids registered by this call."""
    added = []
    for declared in families():
        added += _register_collection(_placeholders(declared.name), declared.replaces)
    _register_revision_pattern()
    _register_measures()
    return added


_patterns_in: list[Any] = []  # the ir_datasets registries our pattern is registered with


def _register_revision_pattern() -> None:
    """Let ir_datasets' registry make ``<our id>@<revision>`` on lookup (once per registry)."""
    if any(found is ir_datasets.registry for found in _patterns_in):
        return
    spaces = "|".join(sorted((re.escape(f.namespace) for f in families()), key=len, reverse=True))
    ir_datasets.registry.register_pattern(rf"^((?:{spaces})(?:/[^@]*)?)@([^@]+)$", _at_revision)
    _patterns_in.append(ir_datasets.registry)


def _at_revision(dataset_id: str, groups: tuple[str, ...]) -> Dataset:
    """The dataset ``dataset_id`` (``<plain id>@<revision>``): the plain id's dataset in its
    family read at the commit the revision names; an unknown id or revision is a one-line
    :class:`~ir_bright.errors.DatasetNotFoundError`."""
    from .errors import DatasetNotFoundError
    from .hub.revisions import resolve

    plain, asked = groups
    found = family_of(plain)
    if found is None:
        raise DatasetNotFoundError(f"unknown dataset id {plain!r} ({dataset_id}): {_hint(plain)}")
    if not getattr(found.module(), "READS_REVISIONS", False):
        raise DatasetNotFoundError(
            f"{dataset_id!r}: {found.name} is read at its declared revision only "
            f"({found.hub.revision}); give the id without @"
        )
    repo = found.repo(plain)
    if repo is None:
        raise DatasetNotFoundError(
            f"{dataset_id!r}: the datasets of {plain} come from one repository each, so a "
            "revision is given per dataset (e.g. " + found.entries[0].id + "@<commit>)"
        )
    revision = resolve(repo, asked, found.aliases())
    at = partial(_built_at, found.name, revision.commit, revision.alias)
    return LazyDataset(dataset_id, lambda: at()[plain], _RevisionName(dataset_id, revision))


class _RevisionName:
    """The id and revision of a dataset read at a revision, ahead of the dataset's own."""

    def __init__(self, dataset_id: str, revision: Any):
        self._id = dataset_id
        self._revision = revision

    def dataset_id(self) -> str:
        """The id as asked, ``<id>@<revision>``."""
        return self._id

    def revision(self) -> dict[str, str | None]:
        """The revision: as asked, its full commit, and its declared alias (or None)."""
        return dict(self._revision._asdict())


@cache
def _built_at(name: str, commit: str, alias: str | None) -> Mapping[str, Dataset]:
    """A family's datasets at ``commit``, built once per process and commit."""
    with _building:
        return family(name).at(commit, alias).datasets()


class LazyDataset(Dataset):
    """An ir_datasets ``Dataset`` whose components are built on first use.

    It is a ``Dataset`` in every respect (``isinstance``, ``docs_iter()``, ``metadata()``);
    its one constituent stands for the dataset ``build()`` returns, built the first time any
    attribute is asked of it (a ``Dataset`` asks its constituents only then). It pickles as
    its id: unpickled (in a worker process, say), it is that process's registered dataset of
    the same id.
    """

    def __init__(self, dataset_id: str, build: Callable[[], Dataset], *ahead: Any):
        self._on_first_use = _OnFirstUse(build)
        super().__init__(*ahead, self._on_first_use)  # ``ahead``: constituents asked first
        self._lazy_id = dataset_id
        _LAZY_DATASETS.add(self)

    def __reduce__(self) -> tuple[Callable[[str], Any], tuple[str]]:
        return load, (self._lazy_id,)  # load registers first, as a fresh process needs


_LAZY_DATASETS: weakref.WeakSet[LazyDataset] = weakref.WeakSet()


def forget_built() -> None:
    """Forget every dataset built so far: each is built again on its next use. A process
    builds a dataset once, for the ``IR_DATASETS_HOME`` of that moment (its stores map that
    home's files); a process whose home changes, as a test suite's does from test to test,
    calls this in between."""
    with _building:
        _built_collection.cache_clear()
        _built_at.cache_clear()
        for dataset in list(_LAZY_DATASETS):
            dataset._on_first_use._built = None


class _OnFirstUse:
    """Stands for the dataset ``build()`` returns: the first attribute read builds it, and
    every attribute is then the built dataset's (its own names are private, so that none
    hides one of the dataset's)."""

    __slots__ = ("_build", "_built")

    def __init__(self, build: Callable[[], Dataset]):
        self._build = build
        self._built: Dataset | None = None

    def _dataset(self) -> Dataset:
        built = self._built
        if built is None:
            built = self._built = self._build()
        return built

    def __getattr__(self, name: str) -> Any:
        return getattr(self._dataset(), name)

    def __dir__(self) -> list[str]:
        return dir(self._dataset())


@cache
def _placeholders(name: str) -> dict[str, Dataset]:
    """A family's :class:`LazyDataset` per id (one per process), from its declaration:
    nothing is built."""
    return {
        dataset_id: LazyDataset(dataset_id, partial(_built_dataset, name, dataset_id))
        for dataset_id in family(name).dataset_ids()
    }


_building = threading.RLock()  # reentrant: a family's build may load one of its datasets


def _new_building_lock() -> None:
    """In a forked child: a build another thread of the parent was running is not running
    here, and its lock would never be released."""
    global _building
    _building = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_building_lock)


def _built_dataset(name: str, dataset_id: str) -> Dataset:
    with _building:
        built = _built_collection(name)
    try:
        return built[dataset_id]
    except KeyError:
        raise RuntimeError(
            f"the {name} family declares {dataset_id} but its module builds no such dataset"
        ) from None


@cache
def _built_collection(name: str) -> Mapping[str, Dataset]:
    """A family's datasets, built once per process."""
    return family(name).datasets()


def _register_measures() -> None:
    """Register each measure module's measures; a module absent from the installed package is
    skipped, while any other error (a module it imports that moved upstream, say) propagates:
    swallowed, it would leave ``Official`` silently unregistered."""
    for name in ("scoring.provider", "scoring.aspect_measures"):
        module = f"{__package__}.{name}"
        try:
            measures = importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            continue
        measures.register()


def _register_collection(datasets: Mapping[str, Dataset], reason: str) -> list[str]:
    table = dataset_table()
    added, replaced = [], []
    for dataset_id, dataset in datasets.items():
        current = table.get(dataset_id)
        if current is not None and current is _registered.get(dataset_id):
            continue
        if current is not None:
            replaced.append(dataset_id)
            _replaced[dataset_id] = current
        table[dataset_id] = dataset
        _registered[dataset_id] = dataset
        added.append(dataset_id)
    if replaced:
        logger.info(
            "replaced %d ir_datasets entries (%s ... %s): %s",
            len(replaced),
            replaced[0],
            replaced[-1],
            reason,
        )
    return added


def is_ours(dataset_id: str) -> bool:
    """Whether ``dataset_id`` is currently served by ir_bright."""
    return dataset_id in _registered and dataset_table().get(dataset_id) is _registered.get(
        dataset_id
    )


def replaces_core(dataset_id: str) -> bool:
    """Whether ir_bright replaced ir_datasets' own entry of ``dataset_id``: a process that does
    not import ir_bright gets the core's loader for it."""
    return dataset_id in _replaced


def our_ids() -> list[str]:
    """Every dataset id ir_bright registers, in registration order."""
    return list(_registered)


def query_texts(dataset: Any) -> list[tuple[str, str]]:
    """``(query_id, text)`` of each of ``dataset``'s queries, in its order: its
    ``query_texts()`` where it has one (BRIGHT reads only the files the texts need), else the
    records' ``text`` (or ``default_text()``); a missing text is ``""``."""
    only_texts = getattr(dataset, "query_texts", None)
    if callable(only_texts):
        return [(query_id, text or "") for query_id, text in only_texts()]
    result = []
    for query in dataset.queries_iter():
        text = getattr(query, "text", None)
        if text is None and hasattr(query, "default_text"):
            text = query.default_text()
        result.append((query.query_id, text or ""))
    return result


def load(dataset: str | Any) -> Any:
    """The ir_datasets dataset for what the user has: an id, a dataset (see
    :func:`_dataset_of`) or a PyTerrier dataset; unknown ids raise an error naming close
    matches. An id may name a revision of its hub repository, ``<id>@<revision>``: an alias
    its family declares (``bright/biology@mteb-v1``), a commit (7 to 40 hexadecimal digits)
    or a branch (``@main``, the hub's head); a revision the hub does not know raises a
    one-line error naming the declared aliases."""
    if not isinstance(dataset, str):
        return _dataset_of(dataset)
    register()
    from .errors import DatasetNotFoundError

    plain, at, revision = dataset.partition("@")
    if dataset in dataset_table() or (at and family_of(plain) is not None):
        if at and (not revision.strip() or "@" in revision):
            raise DatasetNotFoundError(
                f"{dataset!r} names no revision after its @: give an alias its family declares, "
                f"main or a commit (`ir-bright info {plain}` lists the aliases)"
            )
        return ir_datasets.load(dataset)

    if not dataset.strip():
        raise DatasetNotFoundError(
            "the dataset id is empty: give one, e.g. bright/biology (`ir-bright list` shows them)"
        )
    raise DatasetNotFoundError(f"unknown dataset id {dataset!r}: {_hint(dataset)}")


def _hint(dataset: str) -> str:
    """Close matches of an unknown id, or where to list the ids."""
    import difflib

    known = {_normal(i): i for i in reversed(list(dataset_table()))}
    wanted = _normal(dataset)
    if wanted in known:  # another spelling: case, slashes, _ for -, irds: or bright: prefixes
        close = [known[wanted]]
    else:
        close = [known[c] for c in difflib.get_close_matches(wanted, list(known), n=3, cutoff=0.6)]
    return f"did you mean {', '.join(close)}?" if close else "list the ids with `ir-bright list`"


def _dataset_of(given: Any) -> Any:
    """The ir_datasets dataset behind an object: a PyTerrier dataset's (``pt.get_dataset`` with
    ``irds:`` or ``bright:``), or the object itself when it is a dataset (ir_datasets',
    ir_bright's, ``with_queries``'); anything else is a one-line error naming it. The core's
    dataset of an id ir_bright replaces (loaded before ``import ir_bright``) gives way to
    ir_bright's, with a warning."""
    from .errors import DatasetNotFoundError

    reference = None if isinstance(given, Dataset) else getattr(given, "irds_ref", None)
    found = reference() if callable(reference) else given
    if not isinstance(found, Dataset) and not any(
        callable(getattr(found, f"{kind}_iter", None)) for kind in ("docs", "queries", "qrels")
    ):
        raise DatasetNotFoundError(
            f"{_shown(given)} is not a dataset: give an id (bright/biology), an ir_datasets "
            "dataset or a PyTerrier one backed by ir_datasets (pt.get_dataset('bright:biology'))"
        )
    replaced = [i for i, core in _replaced.items() if core is found]
    if replaced:
        logger.warning(
            "the dataset given for %s is ir_datasets' own, defective loader's (loaded before "
            "`import ir_bright`): using ir_bright's",
            replaced[0],
        )
        return load(replaced[0])
    return found


def _shown(value: Any) -> str:
    """``value`` for a one-line message: its type and a short repr."""
    import reprlib

    return f"{type(value).__name__} {reprlib.repr(value).splitlines()[0]}"


def _normal(dataset_id: str) -> str:
    """A spelling of ``dataset_id`` for finding close matches: lower case, no surrounding
    white space or slashes, ``_`` read as ``-``, PyTerrier's ``irds:`` prefix dropped and a
    ``collection:name`` read as ``collection/name``."""
    text = dataset_id.strip().lower().replace("_", "-")
    text = text.removeprefix("irds:").replace(":", "/")
    return "/".join(part for part in text.split("/") if part)
