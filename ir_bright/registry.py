"""Registration of ir_bright's datasets with ir_datasets, and the pieces every collection shares.

Each collection package (``bright``, ``mmbright``, ``brightpro``) names its ids from its data
files alone (``dataset_ids()``) and builds its datasets in its ``collection`` module
(``datasets() -> dict[str, Dataset]``). :func:`register` puts a :class:`LazyDataset` under
each id into ``ir_datasets.registry``, replacing entries the core already has under the same
id (one INFO line says which and why), and is safe to call again. A collection is built, in
one piece, when one of its datasets is first used: ``import ir_bright`` pays for its ids only.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from functools import cache, partial
from typing import Any

import ir_datasets
from ir_datasets.datasets.base import Dataset
from ir_datasets.util.metadata import MetadataComponent, MetadataProvider

from .upstream import dataset_table

logger = logging.getLogger(__name__)

COLLECTIONS = ("bright", "mmbright", "brightpro")
_registered: dict[str, Dataset] = {}


def register() -> list[str]:
    """Register every ir_bright dataset (idempotent); return the ids registered by this call."""
    added = []
    for name in COLLECTIONS:
        placeholders, reason = _placeholders(name)
        added += _register_collection(placeholders, reason)
    _register_measures()
    return added


class LazyDataset(Dataset):
    """An ir_datasets ``Dataset`` whose components are built on first use.

    It is a ``Dataset`` in every respect (``isinstance``, ``docs_iter()``, ``metadata()``);
    its components are those of the dataset ``build()`` returns, asked for the first time any
    of them is needed. It pickles as its id: unpickled (in a worker process, say), it is that
    process's registered dataset of the same id.
    """

    def __init__(self, dataset_id: str, build: Callable[[], Dataset]):
        self._beta_apis: dict[str, Any] = {}
        self._lazy_id = dataset_id
        self._build = build
        self._built: list[Any] | None = None

    @property
    def _constituents(self) -> list[Any]:  # read by every ``Dataset`` method
        # through __dict__: a missing attribute would reach Dataset.__getattr__, which reads this
        built = self.__dict__.get("_built")
        if built is None:
            built = self._built = list(self.__dict__["_build"]()._constituents)
        return built

    def __reduce__(self) -> tuple[Callable[[str], Any], tuple[str]]:
        return load, (self._lazy_id,)  # load registers first, as a fresh process needs


@cache
def _placeholders(name: str) -> tuple[dict[str, Dataset], str]:
    """A collection's :class:`LazyDataset` per id (one per process) and why it replaces the
    core's entries, from its package face: nothing is built."""
    face = importlib.import_module(f"{__package__}.{name}")
    placeholders = {
        dataset_id: LazyDataset(dataset_id, partial(_built_dataset, name, dataset_id))
        for dataset_id in face.dataset_ids()
    }
    return placeholders, face.REPLACEMENT_REASON


_building = threading.RLock()  # reentrant: a collection's build may load one of its datasets


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
            f"ir_bright.{name} names {dataset_id} in dataset_ids() but its collection module "
            "builds no such dataset"
        ) from None


@cache
def _built_collection(name: str) -> Mapping[str, Dataset]:
    """A collection's datasets, built once per process."""
    return importlib.import_module(f"{__package__}.{name}.collection").datasets()


def _register_measures() -> None:
    for name in ("scoring.provider", "scoring.aspects"):
        try:
            measures = importlib.import_module(f"{__package__}.{name}")
        except ModuleNotFoundError:
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


def our_ids() -> list[str]:
    """Every dataset id ir_bright registers, in registration order."""
    return list(_registered)


class Documentation:
    """A documentation component: ``documentation()`` returns the dict ir_datasets expects."""

    def __init__(self, fields: Mapping[str, Any]):
        self._fields = dict(fields)

    def documentation(self) -> dict[str, Any]:
        """Name, description, citation, official measures, ... of one dataset."""
        return dict(self._fields)


class HubFiles:
    """A component listing the hub files a dataset reads: ``hub_files()`` (for downloads ahead,
    ``ir-bright download`` and ``ir-bright list``)."""

    def __init__(self, files: Sequence[Any]):
        self._files = list(dict.fromkeys(files))

    def hub_files(self) -> list[Any]:
        """Every :class:`~ir_bright.hub.HubFile` the dataset may fetch, each once."""
        return list(self._files)


def dataset(
    dataset_id: str,
    *components: Any,
    metadata: Mapping[str, Any],
    files: Sequence[Any] = (),
) -> Dataset:
    """An ir_datasets Dataset of ``components`` whose counts come from ``metadata``.

    ``metadata`` maps entity type (``docs``, ``queries``, ``qrels``) to a dict with ``count``
    (and any other facts), so counts are known without downloading anything. ``files`` are the
    hub files the dataset reads, exposed as ``dataset.hub_files()``.
    """
    inner = Dataset(*components, HubFiles(files))
    provider = CountingMetadata(dataset_id, metadata, inner)
    return Dataset(MetadataComponent(dataset_id, inner, provider), inner)


def collection_root(namespace: str, collection: Mapping[str, Any]) -> Dataset:
    """The dataset of a collection's bare id (``mm-bright``): its documentation only, from the
    ``collection`` section of its documentation file (``etc/<collection>.json``)."""
    fields = ("pretty_name", "desc", "bibtex", "website")
    return dataset(namespace, Documentation({k: collection[k] for k in fields}), metadata={})


class CountingMetadata(MetadataProvider):
    """Declared metadata, completed by the counts the components know once their files are
    cached: ``metadata()`` then has a ``count`` for every entity type, as ``*_count()`` does."""

    def __init__(self, dataset_id: str, metadata: Mapping[str, Any], components: Dataset):
        super().__init__(lambda: {dataset_id: dict(metadata)})
        self._components = components

    def get_metadata(self, dsid: str, entity_type: Any) -> dict[str, Any]:
        """The declared facts of ``entity_type``, plus its ``count`` if now known."""
        found = dict(super().get_metadata(dsid, entity_type))
        kind = ir_datasets.EntityType(entity_type).value
        if "count" not in found and self._components.has(kind):
            count = getattr(self._components, f"{kind}_count", lambda: None)()
            if count is not None:
                found["count"] = count
        return found


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
    """The ir_datasets dataset for an id (or the dataset itself); unknown ids raise an error
    naming close matches."""
    if not isinstance(dataset, str):
        return dataset
    register()
    if dataset in dataset_table():
        return ir_datasets.load(dataset)
    import difflib

    from .errors import DatasetNotFoundError

    if not dataset.strip():
        raise DatasetNotFoundError(
            "the dataset id is empty: give one, e.g. bright/biology (`ir-bright list` shows them)"
        )
    known = {_normal(i): i for i in reversed(list(dataset_table()))}
    wanted = _normal(dataset)
    if wanted in known:  # another spelling: case, slashes, _ for -, irds: or bright: prefixes
        close = [known[wanted]]
    else:
        close = [known[c] for c in difflib.get_close_matches(wanted, list(known), n=3, cutoff=0.6)]
    hint = f"did you mean {', '.join(close)}?" if close else "list the ids with `ir-bright list`"
    raise DatasetNotFoundError(f"unknown dataset id {dataset!r}: {hint}")


def _normal(dataset_id: str) -> str:
    """A spelling of ``dataset_id`` for finding close matches: lower case, no surrounding
    white space or slashes, ``_`` read as ``-``, PyTerrier's ``irds:`` prefix dropped and a
    ``collection:name`` read as ``collection/name``."""
    text = dataset_id.strip().lower().replace("_", "-")
    text = text.removeprefix("irds:").replace(":", "/")
    return "/".join(part for part in text.split("/") if part)
