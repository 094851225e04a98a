"""BRIGHT-Pro's datasets, built from its declaration: docs, queries with reference answers,
aspect-carrying qrels and aspects per domain; :func:`summary` gives the consistency counts."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import ir_datasets
from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import BaseQrels, BaseQueries

from ...judgements import EXCLUDED
from ...store.docs import ParquetDocs
from ..components import Documentation, collection_root, dataset, declared_metadata
from ..declaration import Entry, Family
from .aspects import Aspects, parse_aspects, pro_qrels
from .records import RECORDS as RECORDS  # the family's record types (Family.record_types)
from .records import BrightProAspect, BrightProQrel, BrightProQuery
from .source import Split, docs_file, hub_row_count

logger = logging.getLogger(__name__)

READS_REVISIONS = True
"""Its datasets list and read every hub file from the family they are built from, so a family
at a revision (:meth:`~ir_bright.families.Family.at`) reads that revision."""

QRELS_DEFS = {
    1: "Relevant (a gold id); aspect_id and aspect_weight name its aspect",
    0: "Not a gold id, but listed by one of the query's aspects (counts for A-Recall only)",
    EXCLUDED: "Excluded: removed from the ranking",
}

EXAMPLE_FIELDS = {"id": (int, str), "query": (str,), "gold_ids": (list, type(None))}
"""The ``examples`` fields read, and the types a row's value may have."""
ASPECT_FIELDS = {"id": (str,), "supporting_docs": (list, type(None))}
"""The ``aspects`` fields read besides ``weight`` (whose absence has its own error)."""


class _Examples:
    """The ``examples`` rows of one domain, optionally restricted to a subset of query ids."""

    def __init__(self, family: Family, split: str, subset: frozenset[str] | None = None):
        self.split = split
        self.subset = subset
        self.file = Split("examples", split, family)

    def rows(self) -> Iterator[dict[str, Any]]:
        """The rows (query id made a string), in the hub's order, the first row of a repeated
        id only (one warning); a subset id missing from the rows is named in a warning."""
        found, seen, repeated = set(), set(), 0
        for row in self.file.rows(EXAMPLE_FIELDS):
            query_id = str(row["id"])
            if query_id in seen:
                repeated += 1
                continue
            seen.add(query_id)
            if self.subset is None or query_id in self.subset:
                found.add(query_id)
                yield {**row, "id": query_id}
        if repeated:
            logger.warning(
                "%d rows of the %s examples repeat a query id: the first row of each is used",
                repeated,
                self.split,
            )
        if self.subset is not None and len(found) < len(self.subset):
            missing = sorted(self.subset - found)
            logger.warning(
                "%d query ids of the %s agentic subset are not in its examples (e.g. %s)",
                len(missing),
                self.split,
                missing[0],
            )

    def cached(self) -> bool:
        """Whether the rows can be read without any download."""
        return self.file.listed() and all(f.is_cached() for f in self.file.files())


class ProQueries(BaseQueries):
    """Queries of a BRIGHT-Pro domain: the post and the reference answer."""

    def __init__(self, examples: _Examples):
        self._examples = examples

    def queries_iter(self) -> Iterator[BrightProQuery]:
        """Yield ``BrightProQuery`` records in the hub's row order."""
        for row in self._examples.rows():
            # _make: a missing reference answer is None (see ir_bright.records)
            yield BrightProQuery._make((row["id"], row["query"], row.get("reference_answer")))

    def queries_hub_files(self) -> list[Any]:
        """The hub files (or a stand-in until listed) the queries are read from."""
        return self._examples.file.hub_files()

    def queries_count(self) -> int | None:
        """The number of queries when ``examples`` is cached, else the subset's size or None."""
        if self._examples.cached():
            return sum(1 for _ in self._examples.rows())
        return len(self._examples.subset) if self._examples.subset is not None else None

    def queries_cls(self) -> type:
        """``BrightProQuery``."""
        return BrightProQuery

    def queries_namespace(self) -> str:
        """Queries of the same namespace share ids."""
        return self._examples.file.family.namespace

    def queries_lang(self) -> str:
        """English."""
        return "en"


class ProAspects:
    """The aspects of a domain's queries (``aspects_iter()``), and the official maps."""

    def __init__(self, examples: _Examples):
        self._examples = examples
        self.file = Split("aspects", examples.split, examples.file.family)

    def all_aspects(self) -> list[BrightProAspect]:
        """Every aspect of the domain, weights normalised per query."""
        return parse_aspects(self.file.rows(ASPECT_FIELDS), where=f"aspects/{self._examples.split}")

    def aspects_iter(self) -> Iterator[BrightProAspect]:
        """Yield the aspects of the dataset's queries in the hub's row order."""
        subset = self._examples.subset
        for aspect in self.all_aspects():
            if subset is None or aspect.query_id in subset:
                yield aspect


class ProQrels(BaseQrels):
    """Qrels of a BRIGHT-Pro domain, each carrying its doc's aspect and the aspect's weight."""

    def __init__(self, examples: _Examples, aspects: ProAspects):
        self._examples = examples
        self._aspects = aspects

    def qrels_iter(self) -> Iterator[BrightProQrel]:
        """Yield the qrels query by query, in the hub's row order."""
        maps = Aspects(self._aspects.all_aspects())  # the whole domain's: the official map
        for row in self._examples.rows():
            yield from pro_qrels(row["id"], row.get("gold_ids"), row.get("excluded_ids"), maps)

    def qrels_hub_files(self) -> list[Any]:
        """The hub files (or stand-ins until listed) the qrels are read from: the examples
        and the aspects."""
        return [*self._examples.file.hub_files(), *self._aspects.file.hub_files()]

    def qrels_count(self) -> int | None:
        """The number of qrels when the files are cached, else None."""
        file = self._aspects.file
        if not self._examples.cached() or not file.listed():
            return None
        if not all(f.is_cached() for f in file.files()):
            return None
        return sum(1 for _ in self.qrels_iter())

    def qrels_cls(self) -> type:
        """``BrightProQrel``."""
        return BrightProQrel

    def qrels_defs(self) -> dict[int, str]:
        """What each relevance value means."""
        return dict(QRELS_DEFS)


class ProDocs(ParquetDocs):
    """The corpus of a domain (``GenericDoc``), read from its rewritten parquet file."""

    def __init__(self, split: Split, namespace: str):
        super().__init__(docs_file(split), namespace)
        self._split = split

    def docs_hub_files(self) -> list[Any]:
        """The hub files (or a stand-in until listed) the corpus was rewritten from."""
        return self._split.hub_files()

    def docs_count(self) -> int | None:
        """The number of documents: the rewritten corpus's, else the cached parquet hub
        files', else None (known once downloaded)."""
        return super().docs_count() or hub_row_count(self._split)


class ListedFiles:
    """The hub files a dataset reads (``hub_files()``), from the cached listings; a split whose
    listing is not cached yet is one stand-in that ``ir-bright download`` expands."""

    def __init__(self, splits: list[Split]):
        self._splits = splits

    def hub_files(self) -> list[Any]:
        """Every hub file (or stand-in) of the dataset, without any network call."""
        return [file for split in self._splits for file in split.hub_files()]


def datasets(family: Family) -> dict[str, Dataset]:
    """Every id of the BRIGHT-Pro family -> its Dataset, built from its declaration (nothing
    is fetched)."""
    result = {family.namespace: collection_root(family.namespace, family.collection)}
    docs = {  # one corpus per domain, shared by its query sets
        split: ProDocs(
            Split("documents", split, family), f"{family.namespace}/{family.domain_id(split)}"
        )
        for split in family.domains
    }
    for entry in family.entries:
        domain = family.domains[entry.domain]
        subset = frozenset(domain.agentic_queries) if entry.query_set == "agentic" else None
        result[entry.id] = _dataset(family, entry, docs[entry.domain], subset)
    return result


def _dataset(family: Family, entry: Entry, docs: ProDocs, subset: frozenset[str] | None) -> Dataset:
    split, domain = entry.domain, family.domains[entry.domain]
    examples = _Examples(family, split, subset)
    aspects = ProAspects(examples)
    subset_name = ", agentic subset" if subset is not None else ""
    about = family.query_sets[entry.query_set]
    documentation = family.documentation(
        f"{family.collection.pretty_name} {domain.name}{subset_name}",
        f"{domain.name} (StackExchange posts). {about.desc}",
    )
    files = ListedFiles([Split(config, split, family) for config in family.hub.configs])
    metadata = declared_metadata(family, entry)
    return dataset(
        entry.id,
        docs,
        ProQueries(examples),
        ProQrels(examples, aspects),
        aspects,
        files,
        Documentation(documentation),
        metadata=metadata,
    )


def summary(dataset_id: str) -> dict[str, int]:
    """Consistency counts of a ``bright-pro`` id (its files cached or fetched): queries,
    judged pairs by kind, aspects, and how often the official doc -> aspect map gives a gold
    doc no aspect or another query's aspect (``ir-bright info`` shows them)."""
    dataset = ir_datasets.load(dataset_id)
    owner = {a.aspect_id: a.query_id for a in dataset.aspects_iter()}
    counts = dict.fromkeys(
        [
            "queries",
            "queries with gold",
            "gold pairs",
            "gold pairs without aspect",
            "gold pairs under another query's aspect",
            "aspect-listed pairs not gold (relevance 0)",
            "excluded pairs",
            "aspects",
        ],
        0,
    )
    counts["queries"] = sum(1 for _ in dataset.queries_iter())
    counts["aspects"] = len(owner)
    with_gold = set()
    for qrel in dataset.qrels_iter():
        if qrel.relevance > 0:
            with_gold.add(qrel.query_id)
            counts["gold pairs"] += 1
            if not qrel.aspect_id:
                counts["gold pairs without aspect"] += 1
            elif owner.get(qrel.aspect_id) != qrel.query_id:
                counts["gold pairs under another query's aspect"] += 1
        elif qrel.relevance == 0:
            counts["aspect-listed pairs not gold (relevance 0)"] += 1
        else:
            counts["excluded pairs"] += 1
    counts["queries with gold"] = len(with_gold)
    return counts
