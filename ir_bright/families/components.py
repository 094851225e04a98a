"""The components every family's datasets are made of, beside their docs, queries and qrels.

:func:`dataset` makes an ir_datasets ``Dataset`` whose counts are declared (known before any
download) and which lists the hub files it reads; :func:`collection_root` makes the dataset of
a collection's bare id, which has documentation only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import ir_datasets
from ir_datasets.datasets.base import Dataset
from ir_datasets.util.metadata import MetadataComponent, MetadataProvider

from .declaration import Entry, Family
from .spec import Count

ENTITIES = ("docs", "queries", "qrels")
"""The entity types whose counts a domain declares (``counts``)."""


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


def collection_root(namespace: str, collection: Any) -> Dataset:
    """The dataset of a collection's bare id (``mm-bright``): its documentation only, from the
    ``collection`` of its family's declaration."""
    fields = ("pretty_name", "desc", "bibtex", "website")
    documentation = {name: getattr(collection, name) for name in fields}
    return dataset(namespace, Documentation(documentation), metadata={})


def declared_metadata(
    family: Family, entry: Entry, entities: tuple[str, ...] = ENTITIES
) -> dict[str, dict[str, Any]]:
    """The declared metadata of ``entry`` by entity type: ``{"docs": {"count": n}, ...}``.

    A count is the domain's ``<query set>/<entity>`` where the query set has its own
    (``own_counts``: its judgements are not the domain's), else, for a document set other
    than the first, ``<document set>/<entity>`` (BRIGHT's ``long/docs``; the queries are the
    domain's), else ``<entity>``. An entity without a declared count is left out (ir_datasets
    then counts it once its files are cached)."""
    counts = family.domains[entry.domain].counts
    own = family.query_sets[entry.query_set].own_counts
    first_set = next(iter(family.document_sets))
    result = {}
    for entity in entities:
        if entity in own:
            key = f"{entry.query_set}/{entity}"
        elif entry.document_set != first_set and entity != "queries":
            key = f"{entry.document_set}/{entity}"
        else:
            key = entity
        value = counts.get(key)
        if isinstance(value, Count):
            facts = {"fields": dict(value.fields)} if value.fields else {}
            result[entity] = {"count": value.count, **facts}
        elif value is not None:
            result[entity] = {"count": value}
    return {**unknown_metadata(family, entry, entities), **result}


def unknown_metadata(
    family: Family, entry: Entry, entities: tuple[str, ...] = ENTITIES
) -> dict[str, dict[str, Any]]:
    """``{"count": None}`` for each entity of ``entry`` whose count the declaration says is
    published nowhere (``unknown_counts``, by ``<query set>/<entity>`` or ``<entity>``): what
    ir_datasets' metadata holds for a count it does not know, until the files are cached."""
    unknown = family.declaration.unknown_counts
    return {
        entity: {"count": None}
        for entity in entities
        if f"{entry.query_set}/{entity}" in unknown or entity in unknown
    }


class CountingMetadata(MetadataProvider):
    """Declared metadata, completed by the counts the components know once their files are
    cached: ``metadata()`` then has a ``count`` for every entity type, as ``*_count()`` does
    (a count declared unknown, None, included)."""

    def __init__(self, dataset_id: str, metadata: Mapping[str, Any], components: Dataset):
        super().__init__(lambda: {dataset_id: dict(metadata)})
        self._components = components

    def get_metadata(self, dsid: str, entity_type: Any) -> dict[str, Any]:
        """The declared facts of ``entity_type``, plus its ``count`` if now known."""
        found = dict(super().get_metadata(dsid, entity_type))
        kind = ir_datasets.EntityType(entity_type).value
        if found.get("count") is None and self._components.has(kind):
            count = getattr(self._components, f"{kind}_count", lambda: None)()
            if count is not None:
                found["count"] = count
        return found
