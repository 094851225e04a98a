"""A benchmark family as its declaration says: one JSON file of this folder per family.

A family (BRIGHT, MM-BRIGHT, ...) is everything ir_bright serves of one benchmark. Its
declaration ``<name>.json`` holds what is data about it; the module or package it names
(``module``) builds its datasets from it and holds what data cannot say. Every list of
families in ir_bright (the registry, ``ir-bright list``, PyTerrier's provider, the report's
benchmarks, the published rows) is read from the declarations: adding a family is adding its
file (and at most its module). The keys:

- ``name`` (the file's stem), ``order`` (its place among the families), ``namespace`` (the
  first part of its ids), ``module`` (``ir_bright.families.<module>``), ``replaces`` (why its
  ids replace the core's entries, or that ir_datasets has none);
- ``collection``: ``pretty_name``, ``desc``, ``bibtex``, ``website`` (the documentation of
  the bare id), and facts of the whole benchmark;
- ``protocol``: ``exclusions`` (the field listing each query's excluded documents, or null),
  ``depth`` (how many documents an official run ranks per query; optional, default
  :data:`OFFICIAL_DEPTH`), ``measure`` (the headline measure) and ``query_side`` (whether the
  official BM25 weights the query's terms, as the BRIGHT paper's gensim code does);
- ``hub``: the hub repositories, their pinned revisions and files, as the module reads them;
  ``hub.known_revisions.revisions`` lists commits worth naming, each with its ``alias``
  (``mteb-v1``), what pins it and its state; a dataset can be read at any of them, or any
  commit, as ``<id>@<alias or commit>`` (:meth:`Family.at`);
- ``domains``: key (the hub's spelling) -> ``id`` (the ids' spelling, default the key),
  ``name``, ``label`` (the column label of the papers' tables) and facts such as ``counts``;
- ``document_sets`` and ``query_sets``: name -> ``suffix`` and facts (BRIGHT's document sets
  are its short and long documents; a family with one has ``all``). The family's ids are its
  ``namespace``, then ``<namespace>/<domain id><document set suffix><query set suffix>`` for
  every domain, document set and query set, in that order; a document set may name the
  ``domains`` it has, a query set the ``document_sets`` and ``domains`` it has;
- ``tables``: ``columns``, the domains in the papers' column order (default: ``domains``'
  order); ``benchmarks``: name -> ``title``, ``measure``, ``document_set``, ``query_set`` and
  optionally ``groups`` (label -> the column labels averaged together), one column per domain
  that has the document set and query set; ``references``: benchmark -> published rows
  (:mod:`ir_bright.results.references`).

This module needs the standard library only: the ids are known without importing
ir_datasets, and ``import ir_bright`` registers them without building any dataset.
"""

from __future__ import annotations

import copy
import importlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from typing import Any, NamedTuple

OFFICIAL_DEPTH = 1000
"""How many documents of each query's ranking the official protocol keeps: BRIGHT's, cut by
every ``Official(...)`` measure (:mod:`ir_bright.scoring.protocol`), and the depth of a run
(BM25, fusion) for a dataset whose family declares no other. The one place this number is
written; this module imports nothing but the standard library, so the command line's parsers
read it too."""


class Entry(NamedTuple):
    """One dataset a family declares: its id and the domain, document set and query set it
    is."""

    id: str
    domain: str
    document_set: str
    query_set: str


@dataclass(frozen=True)
class Protocol:
    """How a family's runs are made and scored officially."""

    exclusions: str | None
    """The field listing each query's excluded documents (removed from its ranking before the
    cut), or None when the benchmark excludes nothing."""
    measure: str
    """The headline measure of its papers' tables."""
    query_side: bool
    """Whether the official BM25 weights query terms with BM25 too (the BRIGHT paper's code)."""
    depth: int = OFFICIAL_DEPTH
    """How many documents an official run ranks per query (its BM25 runs, fused runs):
    :data:`OFFICIAL_DEPTH` unless the declaration says otherwise."""


@dataclass(frozen=True)
class Group:
    """Domains of a benchmark averaged together: a label (the column's) and their dataset
    ids."""

    label: str
    ids: tuple[str, ...]


@dataclass(frozen=True)
class Benchmark:
    """One table of a family, as declared: its datasets are one column per domain, in the
    papers' order, with the labels the papers print; its groups are averaged beside them."""

    name: str
    title: str
    measure: str
    ids: tuple[str, ...]
    labels: tuple[str, ...]
    groups: tuple[Group, ...] = ()

    def label(self, column: str) -> str:
        """The printed label of a dataset id (groups and Avg are their own label)."""
        return self.labels[self.ids.index(column)] if column in self.ids else column

    @property
    def columns(self) -> tuple[str, ...]:
        """The value columns of a row: the dataset ids, then the group labels."""
        return (*self.ids, *(g.label for g in self.groups))


class Family:
    """A benchmark family, read from its declaration (see the module's docstring)."""

    def __init__(self, data: Mapping[str, Any]):
        self.data = data
        self.name: str = data["name"]
        self.order: int = data["order"]
        self.namespace: str = data["namespace"]
        self.replaces: str = data["replaces"]
        self.protocol = Protocol(**data["protocol"])

    def __repr__(self) -> str:
        return f"<family {self.name}>"

    def aliases(self) -> dict[str, str]:
        """The declared names of known revisions: alias -> full commit (``mteb-v1``)."""
        known = self.data["hub"].get("known_revisions", {}).get("revisions", ())
        return {revision["alias"]: revision["commit"] for revision in known if "alias" in revision}

    def repo(self, dataset_id: str | None = None) -> str | None:
        """The hub repository ``dataset_id`` (or the whole family) is read from; None for a
        family of one repository per dataset asked as a whole."""
        repo = self.data["hub"].get("repo")
        if repo is None and dataset_id is not None:
            entry = self.entry(dataset_id.partition("@")[0])
            repo = self.domains[entry.domain].get("repo") if entry else None
        return repo

    def at(self, commit: str, alias: str | None = None) -> Family:
        """The same family read at ``commit`` (a full commit; ``alias`` its declared name):
        every file at that commit, cached in its own folder, verified by the hub's listing for
        it instead of the declared pins, and counts unknown until the files are read (they are
        the declared revision's). The family itself when ``commit`` is its declared one."""
        hub = self.data["hub"]
        declared = {hub.get("revision"), *hub.get("config_revisions", {}).values()}
        if declared == {commit}:
            return self
        data = copy.deepcopy(dict(self.data))
        view = data["hub"]
        view.update(revision=commit, commit=commit, alias=alias)
        view.pop("config_revisions", None)
        for entry in view.get("files", {}).values():
            if isinstance(entry, dict):
                for pin in ("md5", "size", "sha256", "same_as"):
                    entry.pop(pin, None)
        for domain in data["domains"].values():
            domain.pop("sha256", None)
            if "revision" in domain:
                domain["revision"] = commit
            if "counts" in domain:
                domain["counts"] = _unknown(domain["counts"])
        return Family(data)

    @property
    def collection(self) -> Mapping[str, Any]:
        """The documentation and facts of the whole benchmark."""
        return self.data["collection"]

    def documentation(
        self, pretty_name: str, desc: str, official_measures: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """ir_datasets' documentation of one of the family's datasets: its name and
        description, with the family's citation, website and official measures (or
        ``official_measures``)."""
        measures = (
            self.collection["official_measures"] if official_measures is None else official_measures
        )
        return {
            "pretty_name": pretty_name,
            "desc": desc,
            "bibtex": self.collection["bibtex"],
            "official_measures": list(measures),
            "website": self.collection["website"],
        }

    @property
    def domains(self) -> Mapping[str, Mapping[str, Any]]:
        """Each domain's facts by its key (the hub's spelling), in the declared order."""
        return self.data["domains"]

    @property
    def document_sets(self) -> Mapping[str, Mapping[str, Any]]:
        """Each document set's facts by its name, in the declared order."""
        return self.data["document_sets"]

    @property
    def query_sets(self) -> Mapping[str, Mapping[str, Any]]:
        """Each query set's facts by its name, in the declared order."""
        return self.data["query_sets"]

    def domain_id(self, key: str) -> str:
        """A domain's spelling in ids (``earth_science`` -> ``earth-science``)."""
        return self.domains[key].get("id", key)

    @cached_property
    def entries(self) -> tuple[Entry, ...]:
        """Every dataset the family declares but its bare namespace, in registration order."""
        result = []
        for key in self.domains:
            for document_set, about in self.document_sets.items():
                if key not in about.get("domains", (key,)):
                    continue
                for name, query_set in self.query_sets.items():
                    if document_set not in query_set.get("document_sets", (document_set,)):
                        continue
                    if key not in query_set.get("domains", (key,)):
                        continue
                    suffix = about["suffix"] + query_set["suffix"]
                    dataset_id = f"{self.namespace}/{self.domain_id(key)}{suffix}"
                    result.append(Entry(dataset_id, key, document_set, name))
        return tuple(result)

    @cached_property
    def _by_id(self) -> dict[str, Entry]:
        return {entry.id: entry for entry in self.entries}

    def entry(self, dataset_id: str) -> Entry | None:
        """The declared dataset of ``dataset_id``, or None (the bare namespace, another id)."""
        return self._by_id.get(dataset_id)

    def dataset_ids(self) -> list[str]:
        """Every id of the family, in registration order: its namespace, then its entries."""
        return [self.namespace, *self._by_id]

    def owns(self, dataset_id: str) -> bool:
        """Whether ``dataset_id`` is one of the family's ids."""
        return dataset_id == self.namespace or dataset_id in self._by_id

    def module(self) -> Any:
        """The module that builds the family's datasets (``datasets(family)``) and holds what
        its declaration cannot say."""
        return importlib.import_module(f"{__package__}.{self.data['module']}")

    def datasets(self) -> dict[str, Any]:
        """Every id of the family -> its ir_datasets Dataset (built now; nothing downloaded)."""
        built: dict[str, Any] = self.module().datasets(self)
        return built

    def benchmarks(self) -> dict[str, Benchmark]:
        """The family's tables, by name, in the declared order."""
        return {name: self._benchmark(name, spec) for name, spec in self.data["benchmarks"].items()}

    def _benchmark(self, name: str, spec: Mapping[str, Any]) -> Benchmark:
        order = self.data.get("tables", {}).get("columns", list(self.domains))
        ids = {
            entry.domain: entry.id
            for entry in self.entries
            if (entry.document_set, entry.query_set) == (spec["document_set"], spec["query_set"])
        }
        columns = [(ids[key], self.domains[key]["label"]) for key in order if key in ids]
        by_label = {label: dataset_id for dataset_id, label in columns}
        groups = tuple(
            Group(g["label"], tuple(by_label[label] for label in g["columns"]))
            for g in spec.get("groups", ())
        )
        return Benchmark(
            name,
            spec["title"],
            spec["measure"],
            tuple(dataset_id for dataset_id, _ in columns),
            tuple(label for _, label in columns),
            groups,
        )

    def references(self) -> Mapping[str, Mapping[str, Any]]:
        """Published rows by benchmark, then by name (:mod:`ir_bright.results.references`)."""
        return self.data.get("references", {})


@cache
def families() -> tuple[Family, ...]:
    """Every declared family, in their declared order."""
    folder = resources.files(__package__)
    found = []
    for item in folder.iterdir():
        if item.name.endswith(".json"):
            data = json.loads(item.read_text("utf-8"))
            if data.get("name") != item.name.removesuffix(".json"):
                raise ValueError(f"{item.name} declares the family {data.get('name')!r}")
            found.append(Family(data))
    return tuple(sorted(found, key=lambda family: family.order))


def family(name: str) -> Family:
    """The family called ``name`` (``KeyError`` for an unknown name)."""
    for found in families():
        if found.name == name:
            return found
    raise KeyError(name)


def family_of(dataset_id: str) -> Family | None:
    """The family serving ``dataset_id`` (at any revision: ``bright/biology@mteb-v1``), or
    None."""
    plain = dataset_id.partition("@")[0]
    return next((found for found in families() if found.owns(plain)), None)


def _unknown(counts: Any) -> Any:
    """Declared counts made unknown: numbers None, facts about them empty."""
    if isinstance(counts, Mapping):
        return {key: {} if isinstance(value, Mapping) else None for key, value in counts.items()}
    return None


def run_depth(dataset: Any) -> int:
    """How many documents an official run ranks per query for ``dataset`` (an id, an object
    with a ``dataset_id()``, or None): its family's declared depth, :data:`OFFICIAL_DEPTH` for
    a dataset no family declares. The one depth policy of every command and function that
    makes a run (BM25, fusion)."""
    protocol = protocol_of(dataset) if dataset is not None else None
    return protocol.depth if protocol is not None else OFFICIAL_DEPTH


def protocol_of(dataset: Any) -> Protocol | None:
    """The protocol of a dataset's family (``dataset`` an id or any object with a
    ``dataset_id()``), or None for a dataset no family serves."""
    dataset_id = dataset
    if not isinstance(dataset, str):
        method = getattr(dataset, "dataset_id", None)
        dataset_id = method() if callable(method) else None
    found = family_of(dataset_id) if isinstance(dataset_id, str) else None
    return found.protocol if found is not None else None
