"""BRIGHT (Su et al., ICLR 2025) as ir_datasets datasets: 12 domains, long documents, and the
LLM-reasoning query setting.

Ids (same as ir_datasets' core module where it has them, with its defects fixed):

- ``bright/<domain>``: short documents, ``BrightQuery`` queries, qrels from ``gold_ids``.
- ``bright/<domain>-long`` (8 domains): long documents, qrels from ``gold_ids_long``.
- ``bright/<domain>[-long]/<model>-reason``: the same docs and qrels, query text = the
  ``query`` column of the ``<model>_reason`` config (the LLM's reasoning).
- ``bright/<domain>/adjusted`` (12 short-document domains): duplicate-aware qrels, every
  twin of a gold document relevant too (``adjusted.py``).

Every file list, checksum, count and description lives in ``etc/bright_*.json`` and
``etc/bright.json``; this module only wires them together.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from functools import cache
from typing import Any

from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import BaseQrels, BaseQueries, TrecQrel

from .. import hub
from ..datafiles import DomainSetting, etc_json
from ..errors import OfflineError
from ..judgements import EXCLUDED, query_qrels
from ..records import BrightQuery, BrightReasoningQuery
from ..registry import Documentation, dataset
from ..store.docs import ParquetDocs
from ..store.schema import IDS, QUERY_ID, TEXT, Column, cached_unique_rows, checked_columns
from .adjusted import Adjustments
from .ids import NAMESPACE, adjusted_id, reasoning_id, settings

__all__ = ["datasets", "BrightQueries", "BrightReasoningQueries", "BrightQrels"]

logger = logging.getLogger(__name__)

QRELS_DEFS = {1: "Relevant (a gold id)", EXCLUDED: "Excluded: removed from the ranking"}
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


@cache
def _files() -> dict[str, hub.HubFile]:
    return hub.catalogue(etc_json("bright_files.json"))


def _file(config: str, split: str) -> hub.HubFile:
    return _files()[f"{config}/{split}"]


class _ExamplesQueries(BaseQueries):
    """What both BRIGHT query components share: rows of ``examples``, counts, namespace."""

    record: type = BrightQuery

    def __init__(self, split: str):
        self._split = split

    def _examples(self) -> dict[str, list]:
        path = _file("examples", self._split).fetch()
        rows = checked_columns(path, EXAMPLES_SPEC, ["id", "query", "reasoning", "gold_answer"])
        rows["id"] = [str(query_id) for query_id in rows["id"]]
        return rows

    def _llm_texts(self, model: str) -> dict[str, str]:
        """``{query id: the model's reasoning}`` from the ``query`` column of its config."""
        path = _file(_reason_config(model), self._split).fetch()
        rows = checked_columns(path, REASON_SPEC, ["id", "query"])
        return dict(zip(map(str, rows["id"]), rows["query"]))

    def query_texts(self) -> Iterator[tuple[str, str]]:
        """``(query id, text)`` of every query, reading only the files the text comes from
        (for retrievers: ``queries_iter()`` also reads every file of the other fields)."""
        for query in self.queries_iter():
            yield query.query_id, query.text

    def queries_count(self) -> int | None:
        """The cached ``examples`` file's row count, or None (the recorded count is used)."""
        return cached_unique_rows(_file("examples", self._split), EXAMPLES_SPEC)

    def queries_cls(self) -> type:
        """The record type."""
        return self.record

    def queries_namespace(self) -> str:
        """Queries of the same namespace share ids."""
        return NAMESPACE

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
        models = REASON_FIELDS.values()
        return [
            _file("examples", self._split),
            *(_file(_reason_config(m), self._split) for m in models),
        ]

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

    def __init__(self, split: str, model: str):
        super().__init__(split)
        self._model = model

    def queries_hub_files(self) -> list[hub.HubFile]:
        """The hub files the queries are read from: ``examples`` and the model's config."""
        return [_file("examples", self._split), _file(_reason_config(self._model), self._split)]

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


class BrightQrels(BaseQrels):
    """Qrels from ``examples``: each gold id 1 (once), each excluded id -100 (``N/A`` skipped)."""

    def __init__(self, split: str, gold_column: str):
        self._split = split
        self._gold_column = gold_column

    def qrels_iter(self) -> Iterator[TrecQrel]:
        """Yield the qrels query by query, in the hub's row order."""
        for query_id, gold, excluded in self.judgement_rows():
            yield from query_qrels(query_id, ((g, 1) for g in gold), excluded)

    def judgement_rows(self) -> Iterator[tuple[str, list[str], list[str]]]:
        """``(query id, gold ids, excluded ids)`` of each ``examples`` row, in the hub's order,
        the lists as the hub has them (sentinels and repeats included)."""
        columns = ["id", self._gold_column, "excluded_ids"]
        rows = checked_columns(self.examples_file().fetch(), EXAMPLES_SPEC, columns)
        for query_id, gold, excluded in zip(
            rows["id"], rows[self._gold_column], rows["excluded_ids"]
        ):
            yield str(query_id), list(gold or ()), list(excluded or ())

    def examples_file(self) -> hub.HubFile:
        """The hub file the judgements are read from (``examples/<split>``)."""
        return _file("examples", self._split)

    def qrels_hub_files(self) -> list[hub.HubFile]:
        """The hub files the qrels are read from (``examples``)."""
        return [self.examples_file()]

    def qrels_count(self) -> int | None:
        """The number of qrels if ``examples`` is cached, else None (the recorded count is used)."""
        if not _file("examples", self._split).is_cached():
            return None
        return sum(1 for _ in self.qrels_iter())

    def qrels_path(self):
        """The cached ``examples`` parquet the qrels are read from."""
        return _file("examples", self._split).fetch()

    def qrels_cls(self) -> type:
        """``TrecQrel``."""
        return TrecQrel

    def qrels_defs(self) -> dict[int, str]:
        """What each relevance value means."""
        return dict(QRELS_DEFS)


def _corpus_partners(split: str) -> list[hub.HubFile]:
    """The ``examples`` of the other domains pinned to the same corpus (aops and
    theoremqa-questions): the adjustment of a shared corpus computes them all in one pass."""

    def corpus(of: str) -> hub.HubFile:
        return _file("documents", of).twin or _file("documents", of)

    return [
        _file("examples", other)
        for other in etc_json("bright.json")["domains"]
        if other != split and corpus(other) is corpus(split)
    ]


def _reason_config(model: str) -> str:
    return etc_json("bright.json")["reasoning"]["models"][model]["config"]


def datasets() -> dict[str, Dataset]:
    """Every ``bright`` id -> its Dataset, built from the data files (nothing is downloaded)."""
    docs_json = etc_json("bright.json")
    counts = etc_json("bright_counts.json")
    collection = docs_json["collection"]
    result = {
        NAMESPACE: dataset(NAMESPACE, Documentation(_collection_doc(collection)), metadata={})
    }
    adjustments = Adjustments()  # one per process: domains sharing a corpus share its pass
    for setting in settings():
        result.update(_setting_datasets(setting, counts[setting.split], docs_json, adjustments))
    return result


def _setting_datasets(
    setting: DomainSetting,
    counts: dict[str, Any],
    docs_json: dict[str, Any],
    adjustments: Adjustments,
) -> dict[str, Dataset]:
    """The base id of one domain and setting, its ``adjusted`` id (short documents only) and
    its ``<model>-reason`` ids."""
    base = _Base(setting, counts, docs_json)
    result = {base.id: base.dataset()}
    if not setting.long:
        result.update(base.adjusted(docs_json["adjusted"], adjustments))
    for model, about in docs_json["reasoning"]["models"].items():
        result.update(base.reasoning(model, about, docs_json["reasoning"]["desc"]))
    return result


class _Base:
    """The pieces that the datasets of one domain and setting share."""

    def __init__(self, setting: DomainSetting, counts: dict[str, Any], docs_json: dict[str, Any]):
        split, domain, long, spec = setting.split, setting.domain, setting.long, setting.spec
        self.split = split
        self.id = setting.id
        self.docs_file = _file("long_documents" if long else "documents", split)
        docs_count = counts["long_docs" if long else "docs"]
        shared = self.docs_file.twin or self.docs_file  # aops and theoremqa-questions: one
        self.docs = ParquetDocs(self.docs_file, f"{NAMESPACE}:{shared.path}", count=docs_count)
        self.qrels = BrightQrels(split, "gold_ids_long" if long else "gold_ids")
        self.metadata = {
            "docs": {"count": docs_count},
            "queries": {"count": counts["queries"]},
            "qrels": counts["long_qrels" if long else "qrels"],
        }
        collection = docs_json["collection"]
        setting_name = "long documents" if long else "short documents"
        self.doc = {
            "pretty_name": f"BRIGHT {domain['name']} ({setting_name})",
            "desc": f"{domain['name']}: {domain['source']}. {spec['desc']}",
            "bibtex": collection["bibtex"],
            "official_measures": list(spec["official_measures"]),
            "website": collection["website"],
        }
        models = docs_json["reasoning"]["models"]
        self.reason_files = {m: _file(about["config"], split) for m, about in models.items()}
        self.files = [_file("examples", split), self.docs_file]

    def dataset(self) -> Dataset:
        """``bright/<domain>[-long]``."""
        files = [*self.files, *self.reason_files.values()]
        return dataset(
            self.id,
            self.docs,
            BrightQueries(self.split),
            self.qrels,
            Documentation(self.doc),
            metadata=self.metadata,
            files=files,
        )

    def adjusted(self, about: dict[str, Any], adjustments: Adjustments) -> dict[str, Dataset]:
        """``bright/<domain>/adjusted``: the duplicate-aware qrels."""
        dataset_id = adjusted_id(self.id)
        doc = dict(
            self.doc,
            pretty_name=f"{self.doc['pretty_name']}, duplicate-aware qrels",
            desc=about["desc"].format(base=self.id),
            official_measures=list(about["official_measures"]),
        )
        files = [*self.files, *self.reason_files.values(), *_corpus_partners(self.split)]
        qrels = adjustments.qrels(self.split, self.qrels, self.docs, self.docs_file)
        metadata = {"docs": self.metadata["docs"], "queries": self.metadata["queries"]}
        return {
            dataset_id: dataset(
                dataset_id,
                self.docs,
                BrightQueries(self.split),
                qrels,
                Documentation(doc),
                metadata=metadata,
                files=files,
            )
        }

    def reasoning(self, model: str, about: dict[str, Any], desc: str) -> dict[str, Dataset]:
        """``.../<model>-reason``: the model's reasoning as the query text."""
        variant_id = reasoning_id(self.id, model)
        doc = dict(
            self.doc,
            pretty_name=f"{self.doc['pretty_name']}, {about['name']} reasoning as queries",
            desc=desc.format(model=about["name"], config=about["config"], base=self.id),
        )
        return {
            variant_id: dataset(
                variant_id,
                self.docs,
                BrightReasoningQueries(self.split, model),
                self.qrels,
                Documentation(doc),
                metadata=self.metadata,
                files=[*self.files, self.reason_files[model]],
            )
        }


def _collection_doc(collection: dict[str, Any]) -> dict[str, Any]:
    return {
        "pretty_name": collection["pretty_name"],
        "desc": collection["desc"],
        "bibtex": collection["bibtex"],
        "website": collection["website"],
    }
