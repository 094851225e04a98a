"""BRIGHT's parquet layout: one file per config and domain, ``<config>/<domain>.parquet``.

- a document set's config (``documents``, ``long_documents``): ``id`` and ``content``, read as
  ``GenericDoc(doc_id, text)``;
- a query set's config (``examples``, or a reasoning config such as ``gpt4_reason`` whose
  ``query`` is an LLM's reasoning): each query's ``id``, ``query`` and the other fields of
  the family's declared record (``records.queries``), and its judgements: each id of the
  document set's ``gold`` column (``gold_ids``, ``gold_ids_long``) 1, each id of the
  protocol's exclusion column (``excluded_ids``, ``negative_ids``; ``"N/A"`` skipped) -100,
  which the official protocol removes from the ranking before the cut. The judgements come
  from the query set's own rows, as BRIGHT's and TEMPO's official code reads them with
  ``--reasoning``; a config whose rows have no exclusion column excludes nothing.

A family in this layout as it is (TEMPO) is its declaration alone; BRIGHT, MM-BRIGHT and
BRIGHT-Pro use :func:`config_file` and these components beside what differs.
"""

from __future__ import annotations

from collections.abc import Iterator

from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import BaseQueries

from ... import hub
from ...store.docs import ParquetDocs
from ...store.qrels import IdListQrels
from ...store.schema import (
    IDS,
    OTHER,
    QUERY_ID,
    TEXT,
    Column,
    Spec,
    cached_unique_rows,
    checked_columns,
)
from ..components import Documentation, collection_root, dataset, declared_metadata
from ..declaration import Entry, Family
from ..files import hub_file
from ..records import declared_record, record_columns, records_of
from ..spec import RecordSpec

READS_REVISIONS = True
"""Its datasets read every hub file from the family they are built from, so a family at a
revision (:meth:`~ir_bright.families.Family.at`) reads that revision."""


def config_file(family: Family, config: str, domain: str) -> hub.HubFile:
    """The file of ``config`` for ``domain`` (``<config>/<domain>.parquet`` by default)."""
    return hub_file(family, config, domain)


def rows_spec(record: RecordSpec, gold: str, exclusions: str | None) -> Spec:
    """The columns read from a query set's config: the record's (id and text required, the
    others optional), the gold ids and the excluded ids (optional)."""
    id_column, text_column, *others = record_columns(record)
    spec: dict[str, Column] = {id_column: Column(QUERY_ID), text_column: Column(TEXT)}
    spec |= {column: Column(OTHER, nullable=True, optional=True) for column in others}
    spec[gold] = Column(IDS, nullable=True)
    if exclusions is not None:
        spec[exclusions] = Column(IDS, nullable=True, optional=True)
    return spec


class ConfigQueries(BaseQueries):
    """The queries of one config's rows, as the family's declared record."""

    def __init__(self, file: hub.HubFile, record: RecordSpec, spec: Spec, namespace: str):
        self._file = file
        self._record = record
        self._spec = spec
        self._namespace = namespace

    def queries_iter(self) -> Iterator[tuple]:
        """Yield the records in the file's row order."""
        columns = record_columns(self._record)
        rows = checked_columns(self._file.fetch(), self._spec, columns)
        yield from records_of(self._record, rows)

    def queries_hub_files(self) -> list[hub.HubFile]:
        """The hub file the queries are read from."""
        return [self._file]

    def queries_count(self) -> int | None:
        """The cached file's query count, or None (the declared count is used)."""
        return cached_unique_rows(self._file, self._spec)

    def queries_cls(self) -> type:
        """The declared record type."""
        return declared_record(self._record)

    def queries_namespace(self) -> str:
        """Queries of one domain share ids across its query sets."""
        return self._namespace

    def queries_lang(self) -> str:
        """English."""
        return "en"


def datasets(family: Family) -> dict[str, Dataset]:
    """Every id of a family in this layout -> its Dataset, built from its declaration."""
    result = {family.namespace: collection_root(family.namespace, family.collection)}
    docs: dict[tuple[str, str], ParquetDocs] = {}
    for entry in family.entries:
        key = (entry.domain, entry.document_set)
        if key not in docs:
            config = family.document_sets[entry.document_set].config
            docs[key] = ParquetDocs(
                config_file(family, config, entry.domain),
                f"{family.namespace}/{entry.domain}",
                count=declared_metadata(family, entry).get("docs", {}).get("count"),
            )
        result[entry.id] = _dataset(family, entry, docs[key])
    return result


def _dataset(family: Family, entry: Entry, docs: ParquetDocs) -> Dataset:
    domain = family.domains[entry.domain]
    about = family.query_sets[entry.query_set]
    record = family.declaration.records["queries"]
    rows = config_file(family, about.config, entry.domain)
    gold = family.document_sets[entry.document_set].gold
    spec = rows_spec(record, gold, family.protocol.exclusions)
    queries = ConfigQueries(rows, record, spec, f"{family.namespace}/{entry.domain}")
    reasoning = f", {about.name} reasoning as queries" if about.name else ""
    source = f" ({domain.source})" if domain.source else ""
    documentation = family.documentation(
        f"{family.collection.pretty_name} {domain.name}{reasoning}",
        f"{domain.name}{source}. {about.desc or ''}".strip(),
    )
    return dataset(
        entry.id,
        docs,
        queries,
        IdListQrels(rows, spec, gold, family.protocol.exclusions),
        Documentation(documentation),
        metadata=declared_metadata(family, entry),
        files=[docs.docs_hub_files()[0], rows],
    )
