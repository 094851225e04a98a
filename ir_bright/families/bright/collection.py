"""BRIGHT (Su et al., ICLR 2025) as ir_datasets datasets: 12 domains, long documents, and the
LLM-reasoning query sets.

Ids (same as ir_datasets' core module where it has them, with its defects fixed):

- ``bright/<domain>``: short documents, ``BrightQuery`` queries, qrels from ``gold_ids``.
- ``bright/<domain>-long`` (8 domains): long documents, qrels from ``gold_ids_long``.
- ``bright/<domain>[-long]/<model>-reason``: the same docs and qrels, query text = the
  ``query`` column of the ``<model>_reason`` config (the LLM's reasoning).
- ``bright/<domain>/adjusted`` (12 short-document domains): duplicate-aware qrels, every
  twin of a gold document relevant too (``adjusted.py``).

Every file list, checksum, count and description lives in the family's declaration
(``ir_bright/families/bright.json``); this module only wires them together.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import BaseQueries

from ... import hub
from ...errors import OfflineError
from ...store.docs import ParquetDocs
from ...store.qrels import IdListQrels
from ...store.schema import IDS, QUERY_ID, TEXT, Column, cached_unique_rows, checked_columns
from ..components import Documentation, collection_root, dataset, declared_metadata
from ..declaration import Entry, Family
from ..layouts.bright_parquet import config_file
from ..spec import DocumentSet, QuerySet
from .adjusted import Adjustments
from .records import RECORDS as RECORDS  # the family's record types (Family.record_types)
from .records import BrightQuery, BrightReasoningQuery

logger = logging.getLogger(__name__)

READS_REVISIONS = True
"""Its datasets read every hub file from the family they are built from, so a family at a
revision (:meth:`~ir_bright.families.Family.at`) reads that revision."""

# The five *_reason fields of BrightQuery, in field order, and the model each one holds.
REASON_FIELDS = {
    "gemini_1_0_reason": "gemini-1.0",
    "claude_3_opus_reason": "claude-3-opus",
    "gpt4_reason": "gpt4",
    "grit_reason": "grit",
    "llama3_70b_reason": "llama3-70b",
}

EXAMPLES_SPEC = {
    "id": Column(QUERY_ID),
    "query": Column(TEXT),
    "reasoning": Column(TEXT, nullable=True),
    "gold_answer": Column(TEXT, nullable=True),
    "gold_ids": Column(IDS, nullable=True),
    "gold_ids_long": Column(IDS, nullable=True),
    "excluded_ids": Column(IDS, nullable=True),
}
"""The ``examples`` columns ir_bright reads, and what each holds (:mod:`ir_bright.store.schema`)."""
REASON_SPEC = {"id": Column(QUERY_ID), "query": Column(TEXT, nullable=True)}
"""The columns read from a ``<model>_reason`` config: the id and the model's reasoning."""


class Split(NamedTuple):
    """Where one domain's query files are: the family's hub files by ``<config>/<split>``, the
    split, each reasoning model's config, and the namespace its query ids belong to."""

    files: Mapping[str, hub.HubFile]
    split: str
    reason_configs: Mapping[str, str]
    namespace: str

    def file(self, config: str) -> hub.HubFile:
        """The split's file of ``config``."""
        return self.files[f"{config}/{self.split}"]


class _ExamplesQueries(BaseQueries):
    """What both BRIGHT query components share: rows of ``examples``, counts, namespace."""

    record: type = BrightQuery

    def __init__(self, split: Split):
        self._split = split

    def _file(self, config: str) -> hub.HubFile:
        return self._split.file(config)

    def _examples(self) -> dict[str, list]:
        path = self._file("examples").fetch()
        rows = checked_columns(path, EXAMPLES_SPEC, ["id", "query", "reasoning", "gold_answer"])
        rows["id"] = [str(query_id) for query_id in rows["id"]]
        return rows

    def _llm_texts(self, model: str) -> dict[str, str]:
        """``{query id: the model's reasoning}`` from the ``query`` column of its config."""
        path = self._file(self._split.reason_configs[model]).fetch()
        rows = checked_columns(path, REASON_SPEC, ["id", "query"])
        return dict(zip(map(str, rows["id"]), rows["query"]))

    def query_texts(self) -> Iterator[tuple[str, str]]:
        """``(query id, text)`` of every query, reading only the files the text comes from
        (for retrievers: ``queries_iter()`` also reads every file of the other fields)."""
        for query in self.queries_iter():
            yield query.query_id, query.text

    def queries_count(self) -> int | None:
        """The cached ``examples`` file's row count, or None (the recorded count is used)."""
        return cached_unique_rows(self._file("examples"), EXAMPLES_SPEC)

    def queries_cls(self) -> type:
        """The record type."""
        return self.record

    def queries_namespace(self) -> str:
        """Queries of the same namespace share ids."""
        return self._split.namespace

    def queries_lang(self) -> str:
        """English."""
        return "en"


class BrightQueries(_ExamplesQueries):
    """Queries of ``bright/<domain>``: the ``examples`` rows plus each LLM's reasoning."""

    record = BrightQuery

    def queries_iter(self) -> Iterator[BrightQuery]:
        """Yield ``BrightQuery`` records in the hub's row order."""
        rows = self._examples()
        reasons = [self._llm_texts_or_none(model) for model in REASON_FIELDS.values()]
        for i, query_id in enumerate(rows["id"]):
            # _make: a *_reason field left empty offline is None (see ir_bright.records)
            yield BrightQuery._make(
                (
                    query_id,
                    rows["query"][i],
                    rows["reasoning"][i],
                    rows["gold_answer"][i],
                    *(texts.get(query_id) for texts in reasons),
                )
            )

    def queries_hub_files(self) -> list[hub.HubFile]:
        """The hub files the queries are read from: ``examples`` and every reasoning config."""
        configs = (self._split.reason_configs[model] for model in REASON_FIELDS.values())
        return [self._file("examples"), *map(self._file, configs)]

    def query_texts(self) -> Iterator[tuple[str, str]]:
        """``(query id, post)`` of every query, from ``examples`` alone."""
        rows = self._examples()
        yield from zip(rows["id"], rows["query"])

    def _llm_texts_or_none(self, model: str) -> dict[str, str]:
        try:
            return self._llm_texts(model)
        except OfflineError as exc:
            logger.warning("%s reasoning left empty (None): %s", model, exc)
            return {}


class BrightReasoningQueries(_ExamplesQueries):
    """Queries of ``.../<model>-reason``: the text is the LLM's reasoning about the post."""

    record = BrightReasoningQuery

    def __init__(self, split: Split, model: str):
        super().__init__(split)
        self._model = model

    def queries_hub_files(self) -> list[hub.HubFile]:
        """The hub files the queries are read from: ``examples`` and the model's config."""
        return [self._file("examples"), self._file(self._split.reason_configs[self._model])]

    def queries_iter(self) -> Iterator[BrightReasoningQuery]:
        """Yield ``BrightReasoningQuery`` records in the ``examples`` row order."""
        rows = self._examples()
        llm_text = self._llm_texts(self._model)
        for i, query_id in enumerate(rows["id"]):
            # _make: the text is None for a query the model's config lacks
            yield BrightReasoningQuery._make(
                (
                    query_id,
                    llm_text.get(query_id),
                    rows["query"][i],
                    rows["reasoning"][i],
                    rows["gold_answer"][i],
                )
            )


def _corpus_partners(family: Family, files: Split) -> list[hub.HubFile]:
    """The ``examples`` of the other domains pinned to the same corpus (aops and
    theoremqa-questions): the adjustment of a shared corpus computes them all in one pass."""

    def corpus(of: str) -> hub.HubFile:
        documents = files.files[f"documents/{of}"]
        return documents.twin or documents

    return [
        files.files[f"examples/{other}"]
        for other in family.domains
        if other != files.split and corpus(other) is corpus(files.split)
    ]


def datasets(family: Family) -> dict[str, Dataset]:
    """Every id of the BRIGHT family -> its Dataset, built from its declaration (nothing is
    downloaded)."""
    namespace = family.namespace
    files = {
        f"{config}/{domain}": config_file(family, config, domain)
        for config, domain in _keys(family)
    }
    reason_configs = {
        about.model: about.config for about in family.query_sets.values() if about.model
    }
    result = {namespace: collection_root(namespace, family.collection)}
    adjustments = Adjustments()  # one per process: domains sharing a corpus share its pass
    bases: dict[tuple[str, str], _Base] = {}
    for entry in family.entries:
        key = (entry.domain, entry.document_set)
        if key not in bases:
            split = Split(files, entry.domain, reason_configs, namespace)
            bases[key] = _Base(family, entry, split)
        result[entry.id] = bases[key].dataset(entry, adjustments)
    return result


class _Base:
    """The pieces that the datasets of one domain and document set share."""

    def __init__(self, family: Family, entry: Entry, split: Split):
        domain = family.domains[entry.domain]
        documents = family.document_sets[entry.document_set]
        self.family = family
        self.split = split
        self.docs_file = split.file(documents.config)
        self.metadata = declared_metadata(family, entry)
        docs_count = self.metadata.get("docs", {}).get("count")
        shared = self.docs_file.twin or self.docs_file  # aops and theoremqa-questions: one
        at = f"@{shared.commit}" if shared.commit else ""  # another commit's docs differ
        self.docs = ParquetDocs(
            self.docs_file, f"{family.namespace}:{shared.path}{at}", count=docs_count
        )
        excluded = family.protocol.exclusions
        assert excluded is not None, "BRIGHT's declaration names its exclusion column"
        self.qrels = IdListQrels(split.file("examples"), EXAMPLES_SPEC, documents.gold, excluded)
        self.doc = family.documentation(
            f"{family.collection.pretty_name} {domain.name} ({documents.name})",
            f"{domain.name}: {domain.source}. {documents.desc}",
            documents.official_measures,
        )
        self.reason_files = {m: split.file(c) for m, c in split.reason_configs.items()}
        self.files = [split.file("examples"), self.docs_file]

    def dataset(self, entry: Entry, adjustments: Adjustments) -> Dataset:
        """The dataset of ``entry``, one of this domain and document set's query sets."""
        about = self.family.query_sets[entry.query_set]
        if about.model:
            return self.reasoning(entry, about)
        if entry.query_set == "adjusted":
            return self.adjusted(entry, about, adjustments)
        return dataset(
            entry.id,
            self.docs,
            BrightQueries(self.split),
            self.qrels,
            Documentation(self.doc),
            metadata=self.metadata,
            files=[*self.files, *self.reason_files.values()],
        )

    def adjusted(self, entry: Entry, about: QuerySet, adjustments: Adjustments) -> Dataset:
        """``bright/<domain>/adjusted``: the duplicate-aware qrels."""
        base = entry.id.removesuffix(about.suffix)
        doc = dict(
            self.doc,
            pretty_name=f"{self.doc['pretty_name']}, duplicate-aware qrels",
            desc=(about.desc or "").format(base=base),
            official_measures=list(about.official_measures or ()),
        )
        partners = _corpus_partners(self.family, self.split)
        files = [*self.files, *self.reason_files.values(), *partners]
        qrels = adjustments.qrels(self.split.split, self.qrels, self.docs, self.docs_file)
        return dataset(
            entry.id,
            self.docs,
            BrightQueries(self.split),
            qrels,
            Documentation(doc),
            metadata=declared_metadata(self.family, entry),
            files=files,
        )

    def reasoning(self, entry: Entry, about: QuerySet) -> Dataset:
        """``.../<model>-reason``: the model's reasoning as the query text."""
        assert about.model is not None and self.family.declaration.reasoning_desc is not None
        base = entry.id.removesuffix(about.suffix)
        doc = dict(
            self.doc,
            pretty_name=f"{self.doc['pretty_name']}, {about.name} reasoning as queries",
            desc=self.family.declaration.reasoning_desc.format(
                model=about.name, config=about.config, base=base
            ),
        )
        return dataset(
            entry.id,
            self.docs,
            BrightReasoningQueries(self.split, about.model),
            self.qrels,
            Documentation(doc),
            metadata=self.metadata,
            files=[*self.files, self.reason_files[about.model]],
        )


def _keys(family: Family) -> list[tuple[str, str]]:
    """Every ``(config, domain)`` whose file the family's datasets read."""
    configs: dict[str, DocumentSet | None] = {d.config: d for d in family.document_sets.values()}
    configs |= {q.config: None for q in family.query_sets.values()}
    return [
        (config, key)
        for config, documents in configs.items()
        for key in family.domains
        if documents is None or key in (documents.domains or (key,))
    ]
