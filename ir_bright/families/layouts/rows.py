"""What the corpus/queries/qrels layouts (BEIR's JSON Lines, MTEB's parquet) share: a domain's
files by role, and ir_datasets components over rows read the way the official loaders read
them (dicts keyed by id: a repeated id keeps its last row, a repeated pair its last score).

A layout gives a :class:`Reader` (how its files' rows are read); :func:`build` makes every
dataset of a family from it. The corpus is rewritten once into parquet with each id at its
first row's place holding its last row's text, and the texts it replaced in a companion file,
so that the docs hold each id once while a BM25 index counts every row, as the official code.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import BaseQrels, BaseQueries, GenericQuery, TrecQrel

from ... import hub, lazy
from ...errors import CacheError
from ...judgements import judged_label
from ...reading import open_regular
from ...store.docs import ParquetDocs
from ...store.json_rows import RewrittenCorpus, doc_batches, write_docs
from ...store.parquet import BATCH_ROWS, read_batches
from ..components import Documentation, collection_root, dataset, declared_metadata
from ..declaration import Entry, Family
from ..files import hub_file
from ..records import declared_record, record_columns, records_of
from ..spec import RecordSpec

if TYPE_CHECKING:
    import pyarrow as pa
else:
    pa = lazy.module("pyarrow")

logger = logging.getLogger(__name__)

SUPERSEDED = ".superseded.parquet"
"""The companion of a rewritten corpus holding the texts a repeated id's later rows replaced."""


class Files:
    """One domain's files in a layout (by role: ``corpus``, ``queries``, ``qrels``, ...) and
    the columns their rows are read by: the layout's defaults, or the declaration's
    ``hub.paths`` and ``columns``."""

    def __init__(self, family: Family, domain: str, reader: Reader):
        self.family = family
        self.domain = domain
        self.reader = reader
        self.namespace = f"{family.namespace}/{domain}"

    def file(self, role: str, **fields: str) -> hub.HubFile:
        """The domain's file of ``role`` (``fields`` fill the rest of its path template)."""
        return hub_file(self.family, role, self.domain, self.reader.paths.get(role), **fields)

    def column(self, role: str, name: str) -> str:
        """The column holding the layout's field ``name`` in the rows of ``role``."""
        declared = self.family.declaration.columns.get(role, {})
        return declared.get(name, self.reader.columns[role][name])

    def columns(self, role: str, *names: str) -> list[str]:
        """The columns of several fields of ``role``."""
        return [self.column(role, name) for name in names]


class Reader(Protocol):
    """How a layout's files are read."""

    paths: Mapping[str, str]
    """Each role's path template."""
    columns: Mapping[str, Mapping[str, str]]
    """Each role's fields and their columns."""

    def rows(self, path: Path, columns: list[str]) -> Iterator[list[Any]]:
        """The values of ``columns`` in each row of the file at ``path``, in order."""
        ...


def _text(value: Any, column: str, path: Path) -> str:
    if isinstance(value, str):
        return value
    raise CacheError(
        f"{path}: {column!r} of a row is {type(value).__name__} {str(value)[:40]!r}, not text: "
        "not the hub's file? delete it and run again to fetch it anew"
    )


def _id(value: Any, column: str, path: Path) -> str:
    if isinstance(value, str | int) and not isinstance(value, bool):
        return str(value)
    raise CacheError(
        f"{path}: {column!r} of a row is {type(value).__name__} {str(value)[:40]!r}, not an id: "
        "not the hub's file? delete it and run again to fetch it anew"
    )


class RewrittenDocs(ParquetDocs):
    """A domain's corpus, read from its rewritten parquet file."""

    def __init__(self, files: Files, count: int | None):
        self._source = files.file("corpus")
        columns = files.columns("corpus", "doc_id", "text")

        def rewrite(sources: list[Path], target: Path) -> None:
            (source,) = sources
            rows = files.reader.rows(source, columns)
            pairs = ((_id(i, columns[0], source), _text(t, columns[1], source)) for i, t in rows)
            _rewrite(pairs, source, target)

        self._rewritten = RewrittenCorpus(
            lambda: self._source.local_path.with_suffix(".parquet"),
            lambda: [self._source],
            rewrite,
            companions=(SUPERSEDED,),
        )
        super().__init__(self._rewritten, files.namespace, count=count)

    def docs_hub_files(self) -> list[Any]:
        """The hub file the corpus was rewritten from."""
        return [self._source]

    def docs_rows_arrow(self, batch_size: int = BATCH_ROWS) -> Iterator[pa.RecordBatch]:
        """Every row of the corpus file (for BM25, which counts them all, as the official
        code): the documents, then the texts their repeated ids' later rows replaced."""
        yield from self.docs_arrow(batch_size)
        self.docs_path()  # rewritten, with its companion, if it was not
        superseded = self._rewritten.companion(SUPERSEDED)
        for batch in read_batches(superseded, ["id", "content"], batch_size):
            yield pa.RecordBatch.from_arrays(batch.columns, names=["doc_id", "text"])


def _rewrite(pairs: Iterator[tuple[str, str]], source: Path, target: Path) -> None:
    """``(id, text)`` rows as parquet: each id once, at its first row's place with its last
    row's text (the official dict); the texts it replaced in the companion file."""
    texts: dict[str, str] = {}
    superseded: list[tuple[str, str]] = []
    for doc_id, text in pairs:
        if doc_id in texts:
            superseded.append((doc_id, texts[doc_id]))
        texts[doc_id] = text
    if superseded:
        logger.info(
            "%s repeats %d document ids: each keeps its last row, as the official code does",
            source,
            len(superseded),
        )
    write_docs(target.with_name(target.name + SUPERSEDED), doc_batches(superseded))
    write_docs(target, doc_batches(texts.items()))


Build = Callable[[str, str, dict[str, Any], Path], Any]
"""Makes a query record from its id, text, the row's other columns and the file."""


class RowQueries(BaseQueries):
    """A domain's queries: ``GenericQuery``, or what ``build`` makes of each row (``record``
    its type, ``extra`` the other columns it reads)."""

    def __init__(
        self,
        files: Files,
        file: hub.HubFile,
        build: Build | None = None,
        record: type = GenericQuery,
        extra: tuple[str, ...] = (),
    ):
        self._files = files
        self._file = file
        self._build = build
        self._record = record
        self._extra = extra

    def queries_iter(self) -> Iterator[Any]:
        """The queries in the file's order; a repeated id keeps its last row (as the official
        code's dicts), with a warning."""
        path = self._file.fetch()
        names = self._files.columns("queries", "query_id", "text")
        queries: dict[str, Any] = {}
        repeated = 0
        for query_id, text, *others in self._files.reader.rows(path, [*names, *self._extra]):
            query_id, text = _id(query_id, names[0], path), _text(text, names[1], path)
            repeated += query_id in queries
            if self._build is None:
                queries[query_id] = GenericQuery(query_id, text)
            else:
                queries[query_id] = self._build(
                    query_id, text, dict(zip(self._extra, others)), path
                )
        if repeated:
            logger.warning("%s repeats %d query ids: each keeps its last row", path, repeated)
        yield from queries.values()

    def queries_hub_files(self) -> list[hub.HubFile]:
        """The file the queries are read from."""
        return [self._file]

    def queries_count(self) -> int | None:
        """The number of queries once their file is cached, else None (the declared count)."""
        return sum(1 for _ in self.queries_iter()) if self._file.is_cached() else None

    def queries_cls(self) -> type:
        """The record type."""
        return self._record

    def queries_namespace(self) -> str:
        """Query ids restart in every domain: a domain is its own namespace."""
        return self._files.namespace

    def queries_lang(self) -> str:
        """English."""
        return "en"


class RowQrels(BaseQrels):
    """A domain's judgements; a repeated pair keeps its last score, as the official dicts."""

    def __init__(self, files: Files):
        self._files = files
        self._file = files.file("qrels")
        self._excludes = files.family.protocol.exclusions is not None  # else no label is < 0

    def qrels_iter(self) -> Iterator[TrecQrel]:
        """The judgements, query by query in the order they first appear."""
        path = self._file.fetch()
        names = self._files.columns("qrels", "query_id", "doc_id", "relevance")
        judged: dict[str, dict[str, int]] = {}
        for query_id, doc_id, score in self._files.reader.rows(path, names):
            doc_id = _id(doc_id, names[1], path)
            relevance = judged_label(score, path, self._excludes)
            judged.setdefault(_id(query_id, names[0], path), {})[doc_id] = relevance
        for query_id, labels in judged.items():
            for doc_id, relevance in labels.items():
                yield TrecQrel(query_id, doc_id, relevance, "0")

    def qrels_hub_files(self) -> list[hub.HubFile]:
        """The file the qrels are read from."""
        return [self._file]

    def qrels_count(self) -> int | None:
        """The number of judgements once their file is cached, else None (the declared one)."""
        return sum(1 for _ in self.qrels_iter()) if self._file.is_cached() else None

    def qrels_cls(self) -> type:
        """``TrecQrel``."""
        return TrecQrel

    def qrels_defs(self) -> dict[int, str]:
        """What each relevance value means."""
        return {1: "Relevant (a gold document of the query)"}


class QueryPart(NamedTuple):
    """An entry's queries component, what its documentation adds to the domain's name, and its
    description (default: the domain's name and the query set's ``desc``)."""

    queries: Any
    named: str = ""
    desc: str | None = None


Queries = Callable[[Entry, Files], QueryPart]
"""Makes an entry's queries (:class:`QueryPart`)."""


class DeclaredQueries(RowQueries):
    """A domain's queries as the record type its family declares (``records.queries``): each
    field from a column of the rows, or from a whole file of the domain (RAR-b's
    ``instruction.txt``), fetched with the queries."""

    def __init__(self, files: Files, file: hub.HubFile, spec: RecordSpec):
        self._spec = spec
        fields = spec.fields.values()
        self._whole = {about.file: files.file(about.file) for about in fields if about.file}
        columns = tuple(record_columns(spec))
        super().__init__(files, file, self._made, declared_record(spec), columns)
        self._texts: dict[str, str] = {}

    def queries_iter(self) -> Iterator[Any]:
        """The queries in the file's order (see :class:`RowQueries`)."""
        self._texts = {role: whole_text(f) for role, f in self._whole.items()}
        yield from super().queries_iter()

    def _made(self, query_id: str, text: str, row: dict[str, Any], path: Path) -> Any:
        id_column, text_column = self._files.columns("queries", "query_id", "text")
        columns = {**row, id_column: query_id, text_column: text}
        values = {column: [value] for column, value in columns.items()}
        return next(records_of(self._spec, values, self._texts))

    def queries_hub_files(self) -> list[hub.HubFile]:
        """The queries' file and the whole files their records read."""
        return [*super().queries_hub_files(), *self._whole.values()]

    def queries_count(self) -> int | None:
        """The number of queries once all their files are cached (nothing is downloaded to
        count them), else None (the declared count)."""
        if not all(f.is_cached() for f in self._whole.values()):
            return None
        return super().queries_count()


def whole_text(file: hub.HubFile) -> str:
    """A small hub file's whole text (UTF-8, as it is: no line break dropped)."""
    path = file.fetch()
    try:
        with open_regular(path) as handle:
            return handle.read().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CacheError(
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}): not the hub's file? "
            "delete it and run again to fetch it anew"
        ) from None


def domain_queries(entry: Entry, files: Files) -> QueryPart:
    """The domain's own queries (the ``queries`` role): ``GenericQuery``, or the record type
    the family declares for them."""
    spec = files.family.declaration.records.get("queries")
    if spec is not None:
        return QueryPart(DeclaredQueries(files, files.file("queries"), spec))
    return QueryPart(RowQueries(files, files.file("queries")))


def build(family: Family, reader: Reader, queries: Queries = domain_queries) -> dict[str, Dataset]:
    """Every id of ``family`` -> its Dataset, its files read by ``reader`` and each entry's
    queries made by ``queries``."""
    result = {family.namespace: collection_root(family.namespace, family.collection)}
    domains = {key: Files(family, key, reader) for key in family.domains}
    docs: dict[str, RewrittenDocs] = {}
    for entry in family.entries:
        files = domains[entry.domain]
        if entry.domain not in docs:
            count = declared_metadata(family, entry).get("docs", {}).get("count")
            docs[entry.domain] = RewrittenDocs(files, count)
        result[entry.id] = _dataset(family, entry, files, docs[entry.domain], queries(entry, files))
    return result


def _dataset(
    family: Family, entry: Entry, files: Files, docs: RewrittenDocs, part: QueryPart
) -> Dataset:
    domain = family.domains[entry.domain]
    about = family.query_sets[entry.query_set]
    qrels = RowQrels(files)
    desc = f"{domain.name}: {about.desc}" if about.desc else domain.name
    desc = domain.desc or desc
    if domain.licence is not None:
        desc += f" Licence: {domain.licence}."
    documentation = family.documentation(
        f"{family.collection.pretty_name} {domain.name}{part.named}", part.desc or desc
    )
    return dataset(
        entry.id,
        docs,
        part.queries,
        qrels,
        Documentation(documentation),
        metadata=declared_metadata(family, entry),
        files=[*docs.docs_hub_files(), *part.queries.queries_hub_files(), *qrels.qrels_hub_files()],
    )
