"""TEMPO (arXiv 2601.09523): 13 StackExchange domains of temporal reasoning-intensive retrieval,
and four LLMs' reasoning as queries, as ir_datasets datasets.

Ids (declared in ``tempo.json``):

- ``tempo/<domain>``: docs ``GenericDoc(doc_id, text)`` (the ``documents`` config), queries
  ``TempoQuery(query_id, text, gold_answers)`` and qrels from the ``examples`` config: each
  gold id 1, each of the query's ``negative_ids`` -100 (``"N/A"`` skipped), which the official
  protocol removes from the ranking before cutting it to 1,000 (tempo-bench/Tempo at commit
  7476a81, ``run.py`` and ``retrievers.py``, BRIGHT's code with ``negative_ids``);
- ``tempo/<domain>/<model>-reason``: the same documents; queries, gold ids and negative ids
  all from the rows of the ``<model>_reason`` config, as the official code takes them with
  ``--reasoning``. A config whose rows have no ``negative_ids`` excludes nothing, as there.

Each file is ``<config>/<domain>.parquet`` of ``tempo26/Tempo`` at its declared revision,
verified by its pinned sha256 where the declaration has one, else by the hub's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import BaseQueries

from .. import hub
from ..records import TempoQuery
from ..store.docs import ParquetDocs
from ..store.qrels import IdListQrels
from ..store.schema import IDS, OTHER, QUERY_ID, TEXT, Column, cached_unique_rows, checked_columns
from .components import Documentation, collection_root, dataset
from .declaration import Entry, Family

READS_REVISIONS = True
"""Its datasets read every hub file from the family they are built from, so a family at a
revision (:meth:`~ir_bright.families.Family.at`) reads that revision."""

QUERY_SPEC = {
    "id": Column(QUERY_ID),
    "query": Column(TEXT),
    "gold_ids": Column(IDS, nullable=True),
    "negative_ids": Column(IDS, nullable=True, optional=True),
    "gold_answers": Column(OTHER, nullable=True, optional=True),
}
"""The columns of ``examples`` and of a reasoning config that ir_bright reads."""


class TempoQueries(BaseQueries):
    """The queries of one config's rows (``examples`` or a ``<model>_reason`` config)."""

    def __init__(self, file: hub.HubFile, namespace: str):
        self._file = file
        self._namespace = namespace

    def queries_iter(self) -> Iterator[TempoQuery]:
        """Yield ``TempoQuery`` records in the file's row order."""
        rows = checked_columns(self._file.fetch(), QUERY_SPEC, ["id", "query", "gold_answers"])
        for query_id, text, answers in zip(rows["id"], rows["query"], rows["gold_answers"]):
            yield TempoQuery(str(query_id), text, _answers(answers))

    def queries_hub_files(self) -> list[hub.HubFile]:
        """The hub file the queries are read from."""
        return [self._file]

    def queries_count(self) -> int | None:
        """The cached file's query count, or None (the declared count is used)."""
        return cached_unique_rows(self._file, QUERY_SPEC)

    def queries_cls(self) -> type:
        """``TempoQuery``."""
        return TempoQuery

    def queries_namespace(self) -> str:
        """Queries of one domain share ids across its query sets."""
        return self._namespace

    def queries_lang(self) -> str:
        """English."""
        return "en"


def _answers(value: Any) -> tuple[str, ...]:
    """``gold_answers`` as a tuple of strings (a string alone as one; absent as none)."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(answer) for answer in value if answer is not None)


def _file(family: Family, config: str, domain: str) -> hub.HubFile:
    """A config's file of one domain, at the config's declared revision and pins."""
    about = family.data["hub"]
    return hub.HubFile(
        repo=about["repo"],
        path=about["path"].format(config=config, domain=domain),
        namespace=family.namespace,
        cache_path=f"{domain}/{config}.parquet",
        revision=about.get("config_revisions", {}).get(config, about["revision"]),
        sha256_pin=family.domains[domain].get("sha256", {}).get(config),
        commit=about.get("commit"),
        alias=about.get("alias"),
    )


def datasets(family: Family) -> dict[str, Dataset]:
    """Every id of the TEMPO family -> its Dataset, built from its declaration."""
    result = {family.namespace: collection_root(family.namespace, family.collection)}
    docs = {
        domain: ParquetDocs(
            _file(family, "documents", domain),
            f"{family.namespace}/{domain}",
            count=about["counts"]["docs"],
        )
        for domain, about in family.domains.items()
    }
    for entry in family.entries:
        result[entry.id] = _dataset(family, entry, docs[entry.domain])
    return result


def _dataset(family: Family, entry: Entry, docs: ParquetDocs) -> Dataset:
    domain = family.domains[entry.domain]
    about: Mapping[str, Any] = family.query_sets[entry.query_set]
    rows = _file(family, about["config"], entry.domain)
    excluded = family.protocol.exclusions
    queries = TempoQueries(rows, f"{family.namespace}/{entry.domain}")
    reasoning = f", {about['name']} reasoning as queries" if "name" in about else ""
    documentation = family.documentation(
        f"{family.collection['pretty_name']} {domain['name']}{reasoning}",
        f"{domain['name']} (StackExchange posts). {about['desc']}",
    )
    metadata = {kind: {"count": domain["counts"][kind]} for kind in ("docs", "queries")}
    return dataset(
        entry.id,
        docs,
        queries,
        IdListQrels(rows, QUERY_SPEC, "gold_ids", excluded),
        Documentation(documentation),
        metadata=metadata,
        files=[docs.docs_hub_files()[0], rows],
    )
