"""BrowseComp-Plus (Chen et al., 2025, arXiv 2508.06600): 830 deep-research questions over a
fixed corpus of 100,195 web documents, with human-verified evidence and gold documents.

What its declaration (``browsecomp-plus.json``) cannot say lives here: the hub's queries are
encrypted. Every string of a query row but its ``query_id`` (the question, the answer and each
nested document's ``docid``, ``text`` and ``url``) is stored as base64 of its UTF-8 bytes XORed
with the SHA-256 of a public canary string, repeated (texttron/BrowseComp-Plus at commit 97c637c,
``scripts_build_index/decrypt_dataset.py``). :func:`decrypt` undoes it as that script does, and
:class:`EncryptedQueries` reads the query shards: the queries (``query``, ``answer``) and the
official qrels, each query's decrypted ``evidence_docs`` or ``gold_docs`` ids at relevance 1,
each pair once: the pairs of the official ``topics-qrels/qrel_evidence.txt`` and
``qrel_golds.txt``, which this package derives rather than ships (that repository has no
licence; the hub's data states its own).

No ``from __future__ import annotations`` here: ir_datasets' exporter reads a record type's
annotations as runtime types (:mod:`ir_bright.records`).
"""

import base64
import binascii
import hashlib
import logging
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import BaseQrels, BaseQueries, TrecQrel

from .. import hub, lazy
from ..errors import CacheError
from ..store.docs import ParquetDocs
from ..store.json_rows import RewrittenCorpus, docs_schema, write_docs
from ..store.parquet import open_parquet
from ..store.schema import ID, TEXT, Column, checked_batches
from .components import Documentation, dataset, declared_metadata
from .declaration import Family
from .files import hub_file

if TYPE_CHECKING:
    import pyarrow as pa
else:
    pa = lazy.module("pyarrow")

logger = logging.getLogger(__name__)

CORPUS_SPEC = {"docid": Column(ID), "text": Column(TEXT), "url": Column(TEXT, nullable=True)}
"""The corpus shards' columns: digit-string ids, plain text, the page's address."""


class BrowseCompPlusQuery(NamedTuple):
    """A BrowseComp-Plus question, decrypted: ``text`` is the question, ``answer`` its short
    reference answer (what the agents' answers are judged against)."""

    query_id: str
    text: str
    answer: str

    def default_text(self) -> str:
        """The text a retriever should use: the question."""
        return self.text


RECORDS = (BrowseCompPlusQuery,)
"""The record types of the family's datasets beyond ir_datasets' own."""


@cache
def _digest(canary: str) -> bytes:
    return hashlib.sha256(canary.encode("utf-8")).digest()


def key_stream(canary: str, length: int) -> bytes:
    """The scheme's key: SHA-256 of the UTF-8 ``canary``, repeated to ``length`` bytes."""
    digest = _digest(canary)
    return (digest * (length // len(digest) + 1))[:length]


def decrypt_string(text: str, canary: str) -> str:
    """One stored string, decrypted: base64-decoded, XORed with :func:`key_stream` from its
    first byte, read as UTF-8. Anything else (not base64, not UTF-8 once decrypted) raises
    ``ValueError``, where the official script's decoder would skip the characters that are not
    base64 and decrypt what is left."""
    try:  # white space aside (base64 wrapped in lines), only base64 is read
        data = base64.b64decode("".join(text.split()), validate=True)
    except binascii.Error as exc:
        raise ValueError(f"not base64: {exc}") from None
    key = key_stream(canary, len(data))
    plain = (int.from_bytes(data, "big") ^ int.from_bytes(key, "big")).to_bytes(len(data), "big")
    return plain.decode("utf-8")


def decrypt(value: Any, canary: str, skip: Sequence[str] = ("query_id",)) -> Any:
    """``value`` with every string decrypted, inside lists and dicts too, except the values of
    the dict keys in ``skip``; other values as they are (the official ``transform_decrypt``)."""
    if isinstance(value, str):
        return decrypt_string(value, canary)
    if isinstance(value, list):
        return [decrypt(item, canary, skip) for item in value]
    if isinstance(value, dict):
        return {k: v if k in skip else decrypt(v, canary, skip) for k, v in value.items()}
    return value


class EncryptedQueries:
    """The encrypted query shards of the hub (``query_id``, ``query``, ``answer`` and the
    nested document lists), read a column at a time: a nested list's ``docid`` is read
    without its documents' text."""

    def __init__(self, files: Sequence[Any], canary: str, skip: Sequence[str]):
        self.files = list(files)
        self._canary = canary
        self._skip = tuple(skip)

    def rows(self, columns: Sequence[str]) -> Iterator[dict[str, Any]]:
        """Each row's ``query_id`` and ``columns`` (top-level strings, or ``<list>.docid`` for
        the ids of a nested list), decrypted, in the shards' order."""
        for file in self.files:
            path = file.fetch()
            yield from self._shard_rows(path, columns)

    def _shard_rows(self, path: Path, columns: Sequence[str]) -> Iterator[dict[str, Any]]:
        parquet = open_parquet(path)
        leaves = {
            _leaf_name(parquet.schema.column(i).path): parquet.schema.column(i).path
            for i in range(len(parquet.schema))
        }
        wanted = ["query_id", *columns]
        missing = [name for name in wanted if name not in leaves]
        if missing:
            raise CacheError(
                f"{path}: no column {missing[0]!r} in the query file: not the hub's file? "
                "delete it and run again to fetch it anew"
            )
        table = parquet.read(columns=[leaves[name] for name in wanted])
        for number, row in enumerate(table.to_pylist()):
            yield self._decrypted(path, number, row, columns)

    def _decrypted(
        self, path: Path, number: int, row: dict[str, Any], columns: Sequence[str]
    ) -> dict[str, Any]:
        query_id = row.get("query_id")
        if not isinstance(query_id, str) or not query_id.strip():
            raise CacheError(f"{path}: row {number}: no query_id: not the hub's file?")
        result: dict[str, Any] = {"query_id": query_id}
        for name in columns:
            top, _, field = name.partition(".")
            value = row.get(top)
            if field:
                value = [item.get(field) for item in value or ()]
            try:
                result[name] = decrypt(value, self._canary, self._skip)
            except (ValueError, AttributeError) as exc:
                raise CacheError(
                    f"{path}: row {number} ({query_id}): {top} does not decrypt ({exc}): not "
                    "the hub's encrypted file? delete it and run again to fetch it anew"
                ) from None
            if any(not isinstance(v, str) for v in _strings(result[name])):
                raise CacheError(f"{path}: row {number} ({query_id}): {top} is not text")
        return result


def pairs_digest(pairs: Iterable[tuple[str, str]]) -> str:
    """The SHA-256 of distinct (query id, doc id) pairs written ``<query> <doc>\\n`` in sorted
    order: the same for two qrels files with the same pairs, whatever their order."""
    lines = "".join(f"{query} {doc}\n" for query, doc in sorted(set(pairs)))
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


def _leaf_name(path: str) -> str:
    """``query`` for a top-level column, ``evidence_docs.docid`` for a nested list's field
    (whatever the writer named the list's levels: ``list.element``, ``list.item``, ...)."""
    parts = path.split(".")
    return parts[0] if len(parts) == 1 else f"{parts[0]}.{parts[-1]}"


def _strings(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else [value]


class DecryptedQueries(BaseQueries):
    """The questions of the encrypted shards, decrypted, as :class:`BrowseCompPlusQuery`."""

    def __init__(self, source: EncryptedQueries, namespace: str):
        self._source = source
        self._namespace = namespace

    def queries_iter(self) -> Iterator[BrowseCompPlusQuery]:
        """The queries in the hub's row order."""
        for row in self._source.rows(["query", "answer"]):
            yield BrowseCompPlusQuery(row["query_id"], row["query"], row["answer"] or "")

    def queries_hub_files(self) -> list[Any]:
        """The query shards."""
        return list(self._source.files)

    def queries_count(self) -> int | None:
        """The number of queries once every shard is cached, else None (the declared one)."""
        if not all(f.is_cached() for f in self._source.files):
            return None
        return sum(open_parquet(f.fetch()).metadata.num_rows for f in self._source.files)

    def queries_cls(self) -> type:
        """``BrowseCompPlusQuery``."""
        return BrowseCompPlusQuery

    def queries_namespace(self) -> str:
        """Every BrowseComp-Plus id has the same queries."""
        return self._namespace

    def queries_lang(self) -> str:
        """English."""
        return "en"


class DerivedQrels(BaseQrels):
    """The official qrels of one kind: each query's decrypted ``<kind>`` document ids at
    relevance 1, each pair once; queries in the hub's row order, a query's ids in text order
    (as the official files list them). Pairs whose digest is not the official file's
    (``expected``, see :func:`pairs_digest`) get a warning: the hub's data is not the data the
    official qrels were made from."""

    def __init__(self, source: EncryptedQueries, kind: str, meaning: str, expected: str | None):
        self._source = source
        self._kind = kind
        self._meaning = meaning
        self._expected = expected
        self._checked = False

    def qrels_iter(self) -> Iterator[TrecQrel]:
        """The judgements."""
        column = f"{self._kind}.docid"
        pairs = [
            (row["query_id"], doc_id)
            for row in self._source.rows([column])
            for doc_id in sorted(set(row[column]))
        ]
        self._check(pairs)
        for query_id, doc_id in pairs:
            yield TrecQrel(query_id, doc_id, 1, "0")

    def _check(self, pairs: list[tuple[str, str]]) -> None:
        if self._checked or self._expected is None:
            return
        self._checked = True
        if pairs_digest(pairs) != self._expected:
            logger.warning(
                "the %s qrels derived from %s (%d pairs) are not the official file's pairs: "
                "the hub's data differs from the data they were made from",
                self._kind,
                self._source.files[0].repo if self._source.files else "the hub",
                len(pairs),
            )

    def qrels_hub_files(self) -> list[Any]:
        """The query shards the judgements are read from."""
        return list(self._source.files)

    def qrels_count(self) -> int | None:
        """The number of judgements once every shard is cached, else None (the declared one)."""
        if not all(f.is_cached() for f in self._source.files):
            return None
        return sum(1 for _ in self.qrels_iter())

    def qrels_cls(self) -> type:
        """``TrecQrel``."""
        return TrecQrel

    def qrels_defs(self) -> dict[int, str]:
        """What relevance 1 means."""
        return {1: self._meaning}


def shards(family: Family, config: str) -> list[hub.HubFile]:
    """The parquet shards of ``config`` (``queries`` or ``corpus``), in order: the files the
    hub block lists as ``<config>/<shard>``, each at its repository's pinned revision."""
    keys = [key for key in family.hub.files if key.partition("/")[0] == config]
    return [hub_file(family, config, key.partition("/")[2]) for key in keys]


def _rewrite_corpus(sources: list[Path], target: Path) -> None:
    """The corpus shards, in order, as one parquet file of ``id`` and ``content``."""
    write_docs(target, _corpus_batches(sources))


def _corpus_batches(sources: list[Path]) -> Iterator[Any]:
    names = ["docid", "text"]
    for source in sources:
        for batch in checked_batches(source, CORPUS_SPEC, names):
            yield pa.RecordBatch.from_arrays(batch.columns, schema=docs_schema())


def datasets(family: Family) -> dict[str, Dataset]:
    """Every id of the BrowseComp-Plus family -> its Dataset, built from its declaration."""
    encryption = family.declaration.encryption
    if encryption is None:
        raise ValueError(f"{family.name}.json declares no encryption")
    corpus_files = shards(family, "corpus")
    corpus = RewrittenCorpus(
        lambda: corpus_files[0].local_path.parent / "corpus.parquet",
        lambda: corpus_files,
        _rewrite_corpus,
    )
    totals = family.collection.published_totals
    docs = ParquetDocs(corpus, family.namespace, count=totals["docs"])
    source = EncryptedQueries(shards(family, "queries"), encryption.canary, encryption.skip)
    queries = DecryptedQueries(source, family.namespace)
    files = [*corpus_files, *source.files]
    pretty = family.collection.pretty_name
    documentation = family.documentation(pretty, family.collection.desc)
    metadata = {kind: {"count": totals[kind]} for kind in ("docs", "queries")}
    result = {
        family.namespace: dataset(
            family.namespace,
            docs,
            queries,
            Documentation(documentation),
            metadata=metadata,
            files=files,
        )
    }
    for entry in family.entries:
        domain = family.domains[entry.domain]
        meaning = f"Relevant: one of the question's {domain.name}, human-verified"
        kind = encryption.qrels[entry.domain]
        qrels = DerivedQrels(source, kind, meaning, encryption.pairs_sha256.get(entry.domain))
        documentation = family.documentation(f"{pretty}, {domain.name}", domain.desc or "")
        result[entry.id] = dataset(
            entry.id,
            docs,
            queries,
            qrels,
            Documentation(documentation),
            metadata=declared_metadata(family, entry),
            files=files,
        )
    return result
