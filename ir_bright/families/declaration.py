"""A benchmark family as its declaration says: one JSON file of this folder per family.

A family (BRIGHT, MM-BRIGHT, ...) is everything ir_bright serves of one benchmark. Its
declaration ``<name>.json`` holds what is data about it; the module or package it names
(``module``) builds its datasets from it and holds what data cannot say. Every list of
families in ir_bright (the registry, ``ir-bright list``, PyTerrier's provider, the report's
benchmarks, the published rows) is read from the declarations: adding a family is adding its
file (and at most its module). The keys:

- ``name`` (the file's stem), ``order`` (its place among the families), ``namespace`` (the
  first part of its ids), ``layout`` (the on-disk layout of its files, which
  :mod:`.layouts` reads), ``module`` (``ir_bright.families.<module>``, only for a family that
  differs from its layout), ``records`` (the record types of a family without a module),
  ``replaces`` (why its ids replace the core's entries, or that ir_datasets has none);
- ``collection``: ``pretty_name``, ``desc``, ``bibtex``, ``website`` (the documentation of
  the bare id), and facts of the whole benchmark;
- ``protocol``: ``exclusions`` (the field listing each query's excluded documents, or null),
  ``depth`` (how many documents an official run ranks per query; optional, default
  :data:`OFFICIAL_DEPTH`), ``measure`` (the headline measure) and ``query_side`` (whether the
  official BM25 weights the query's terms, as the BRIGHT paper's gensim code does);
- ``hub``: the hub repositories, their pinned revisions, file templates and pins, in one
  shape for every family (:class:`~.spec.Hub`); ``hub.known_revisions.revisions`` lists
  commits worth naming, each with its ``alias`` (``mteb-v1``), what pins it and its state; a
  dataset can be read at any of them, or any commit, as ``<id>@<alias or commit>``
  (:meth:`Family.at`);
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
  that has the document set and query set; or, with ``measures``, one column per domain and
  measure, read from the run file of the dataset ``run`` (if given), ``average`` saying whether
  the row has an average; ``references``: benchmark -> published rows
  (:mod:`ir_bright.results.references`).

Each block is typed (:mod:`.spec`) and checked when the file is read (:mod:`.typed`): a wrong
or unknown key is an error naming the file and the key. No code outside this folder reads a
declaration's raw data: it asks a :class:`Family`. This module needs the standard library
only: the ids are known without importing ir_datasets, and ``import ir_bright`` registers
them without building any dataset.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping, Sequence
from functools import cache, cached_property
from importlib import resources
from typing import Any, NamedTuple

from .spec import (
    OFFICIAL_DEPTH,
    Collection,
    Declaration,
    DocumentSet,
    Domain,
    FilePin,
    Hub,
    KnownRevision,
    Protocol,
    QuerySet,
)
from .tables import Benchmark, Group
from .typed import DeclarationError, read


class Entry(NamedTuple):
    """One dataset a family declares: its id and the domain, document set and query set it
    is."""

    id: str
    domain: str
    document_set: str
    query_set: str


class Family:
    """A benchmark family, read from its declaration (see the module's docstring)."""

    def __init__(self, declaration: Declaration | Mapping[str, Any]):
        if not isinstance(declaration, Declaration):  # parsed JSON: checked first
            declaration = read(Declaration, declaration, "a declaration")
            _check_names(declaration, "a declaration")
        self.declaration = declaration
        self.name: str = declaration.name
        self.order: int = declaration.order
        self.namespace: str = declaration.namespace
        self.replaces: str = declaration.replaces
        self.protocol: Protocol = declaration.protocol
        self.layout: str = declaration.layout

    @classmethod
    def read(cls, data: Any, where: str) -> Family:
        """The family declared by ``data`` (a parsed declaration), checked against its schema;
        ``where`` names the file in errors (:class:`~.typed.DeclarationError`)."""
        declaration = read(Declaration, data, where)
        _check_names(declaration, where)
        return cls(declaration)

    def __repr__(self) -> str:
        return f"<family {self.name}>"

    def aliases(self) -> dict[str, str]:
        """The declared names of known revisions: alias -> full commit (``mteb-v1``)."""
        return {r.alias: r.commit for r in self.known_revisions() if r.alias is not None}

    def repo(self, dataset_id: str | None = None) -> str | None:
        """The hub repository ``dataset_id`` (or the whole family) is read from; None for a
        family of one repository per domain (``{domain}`` in ``hub.repo``) asked as a whole."""
        if "{domain}" not in self.hub.repo:
            return self.hub.repo
        entry = self.entry(dataset_id.partition("@")[0]) if dataset_id is not None else None
        return self.hub.repo.format(domain=entry.domain) if entry is not None else None

    def at(self, commit: str, alias: str | None = None) -> Family:
        """The same family read at ``commit`` (a full commit; ``alias`` its declared name):
        every file at that commit, cached in its own folder, verified by the hub's listing for
        it instead of the declared pins, and counts unknown until the files are read (they are
        the declared revision's). The family itself when ``commit`` is its declared one."""
        hub = self.hub
        # a config read from a repository of its own (``config_repos``) keeps its revision
        apart = {c: r for c, r in hub.config_revisions.items() if c in hub.config_repos}
        others = [r for c, r in hub.config_revisions.items() if c not in apart]
        declared = {hub.revision, *others, *hub.domain_revisions.values()}
        if declared == {commit}:
            return self
        # no pins, and files declared the same_as another only kin at this commit
        unpinned = {
            key: FilePin(pin.path, pin.cache_path, same_as=pin.same_as)
            for key, pin in hub.files.items()
        }
        view = hub._replace(
            revision=commit,
            commit=commit,
            alias=alias,
            config_revisions=apart,
            domain_revisions=dict.fromkeys(hub.domain_revisions, commit),
            files=unpinned,
        )
        domains = {
            key: domain._replace(counts=dict.fromkeys(domain.counts))
            for key, domain in self.domains.items()
        }
        why = f"the declared counts are {hub.revision}'s; known once {commit}'s files are read"
        unknown = dict.fromkeys(("docs", "queries", "qrels"), why)
        unknown |= self.declaration.unknown_counts
        return self.replaced(hub=view, domains=domains, unknown_counts=unknown)

    @property
    def collection(self) -> Collection:
        """The documentation and facts of the whole benchmark."""
        return self.declaration.collection

    @property
    def hub(self) -> Hub:
        """Where the family's files are on the hub (:class:`~.spec.Hub`)."""
        return self.declaration.hub

    def documentation(
        self, pretty_name: str, desc: str, official_measures: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """ir_datasets' documentation of one of the family's datasets: its name and
        description, with the family's citation, website and official measures (or
        ``official_measures``)."""
        measures = (
            self.collection.official_measures if official_measures is None else official_measures
        )
        return {
            "pretty_name": pretty_name,
            "desc": desc,
            "bibtex": self.collection.bibtex,
            "official_measures": list(measures),
            "website": self.collection.website,
        }

    @property
    def domains(self) -> Mapping[str, Domain]:
        """Each domain's facts by its key (the hub's spelling), in the declared order."""
        return self.declaration.domains

    @property
    def document_sets(self) -> Mapping[str, DocumentSet]:
        """Each document set's facts by its name, in the declared order."""
        return self.declaration.document_sets

    @property
    def query_sets(self) -> Mapping[str, QuerySet]:
        """Each query set's facts by its name, in the declared order."""
        return self.declaration.query_sets

    def domain_id(self, key: str) -> str:
        """A domain's spelling in ids (``earth_science`` -> ``earth-science``)."""
        return self.domains[key].id or key

    @cached_property
    def entries(self) -> tuple[Entry, ...]:
        """Every dataset the family declares but its bare namespace, in registration order."""
        result = []
        for key in self.domains:
            for document_set, about in self.document_sets.items():
                if key not in (about.domains or (key,)):
                    continue
                for name, query_set in self.query_sets.items():
                    if document_set not in (query_set.document_sets or (document_set,)):
                        continue
                    if key not in (query_set.domains or (key,)):
                        continue
                    suffix = about.suffix + query_set.suffix
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
        its declaration cannot say: the family's own (``module``), else its layout's."""
        name = self.declaration.module or f"layouts.{self.layout.replace('-', '_')}"
        return importlib.import_module(f"{__package__}.{name}")

    def datasets(self) -> dict[str, Any]:
        """Every id of the family -> its ir_datasets Dataset (built now; nothing downloaded)."""
        built: dict[str, Any] = self.module().datasets(self)
        return built

    def benchmarks(self) -> dict[str, Benchmark]:
        """The family's tables, by name, in the declared order."""
        return {name: self._benchmark(name) for name in self.declaration.benchmarks}

    def columns(self) -> tuple[str, ...]:
        """The domains in the papers' column order (default: the declared order)."""
        tables = self.declaration.tables
        return tables.columns if tables is not None else tuple(self.domains)

    def _benchmark(self, name: str) -> Benchmark:
        spec = self.declaration.benchmarks[name]
        ids = {
            entry.domain: entry.id
            for entry in self.entries
            if (entry.document_set, entry.query_set) == (spec.document_set, spec.query_set)
        }
        columns = [(ids[key], self.domains[key].label) for key in self.columns() if key in ids]
        by_label = {label: dataset_id for dataset_id, label in columns}
        groups = tuple(
            Group(g.label, tuple(by_label[label] for label in g.columns)) for g in spec.groups
        )
        if not spec.measures:
            keys = tuple(dataset_id for dataset_id, _ in columns)
            labels = tuple(label for _, label in columns)
            runs = (spec.run,) * len(keys) if spec.run else ()
            return Benchmark(name, spec.title, spec.measure, keys, labels, groups, runs=runs)
        cells = [(d, label, m) for d, label in columns for m in spec.measures]
        return Benchmark(
            name,
            spec.title,
            spec.measure,
            tuple(f"{d} {m}" for d, _, m in cells),
            tuple(f"{label} {m}" for _, label, m in cells),
            groups,
            datasets=tuple(d for d, _, _ in cells),
            measures=tuple(m for _, _, m in cells),
            runs=(spec.run,) * len(cells) if spec.run else tuple(d for d, _, _ in cells),
            average=spec.average,
        )

    def references(self) -> Mapping[str, Mapping[str, Any]]:
        """Published rows by benchmark, then by name (:mod:`ir_bright.results.references`)."""
        return self.declaration.references

    def known_revisions(self) -> tuple[KnownRevision, ...]:
        """The revisions of the family's repository the hub block names."""
        known = self.hub.known_revisions
        return known.revisions if known is not None else ()

    def replaced(self, **changes: Any) -> Family:
        """The same family with the declaration's top-level blocks ``changes`` replaced (for
        instance another ``hub``: the family at another revision)."""
        return Family(self.declaration._replace(**changes))


def _check_names(declaration: Declaration, where: str) -> None:
    """The names one block uses for another's keys must be declared there."""
    domains, sets = set(declaration.domains), set(declaration.document_sets)
    named = [
        *(
            (f"document_sets.{n}.domains", d.domains, domains)
            for n, d in declaration.document_sets.items()
        ),
        *(
            (f"query_sets.{n}.domains", q.domains, domains)
            for n, q in declaration.query_sets.items()
        ),
        *(
            (f"query_sets.{n}.document_sets", q.document_sets, sets)
            for n, q in declaration.query_sets.items()
        ),
        ("tables.columns", declaration.tables.columns if declaration.tables else None, domains),
        *(
            (f"benchmarks.{n}.document_set", (b.document_set,), sets)
            for n, b in declaration.benchmarks.items()
        ),
        *(
            (f"benchmarks.{n}.query_set", (b.query_set,), set(declaration.query_sets))
            for n, b in declaration.benchmarks.items()
        ),
    ]
    for key, names, known in named:
        unknown = sorted(set(names or ()) - known)
        if unknown:
            raise DeclarationError(f"{where}.{key}: {unknown[0]!r} is not declared")


@cache
def families() -> tuple[Family, ...]:
    """Every declared family, in their declared order."""
    folder = resources.files(__package__)
    found = []
    for item in folder.iterdir():
        if item.name.endswith(".json"):
            try:
                data = json.loads(item.read_text("utf-8"))
            except ValueError as exc:
                raise DeclarationError(f"{item.name}: not JSON: {exc}") from None
            declared = Family.read(data, item.name)
            if declared.name != item.name.removesuffix(".json"):
                raise DeclarationError(f"{item.name}: declares the family {declared.name!r}")
            found.append(declared)
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
