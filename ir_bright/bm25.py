"""The BRIGHT BM25 baseline, in process: Lucene-like English analysis, bm25s index, TREC run.

What the paper ran (SPEC §1.5, xlang-ai/BRIGHT ``retrievers.py``): Pyserini's Lucene English
analyzer, then gensim's ``LuceneBM25Model`` with k1=0.9, b=0.4, where the *query* is weighted
by the same BM25 formula as the documents, and the score is the dot product of the two weight
vectors. ``query_side=True`` reproduces that; ``query_side=False`` is the usual bag-of-words
BM25 of Lucene / Pyserini (each query term counts as often as it occurs).

- Analysis (:func:`analyze`) is Lucene's English analysis as Pyserini's default analyzer
  produces it (:mod:`ir_bright.analysis`: StandardTokenizer, possessives, lower case, 33 stop
  words, Lucene's Porter stemmer), tested against Lucene's own output.
- Scoring: Lucene's BM25 (bm25s method ``"lucene"``): idf = ln(1 + (N - df + 0.5)/(df + 0.5)),
  term weight = idf * tf / (tf + k1 * (1 - b + b * dl / avgdl)), exact document lengths (as
  gensim; Lucene itself stores lengths lossily).
- The index is built by streaming the corpus from ``docs_arrow`` batches into a bm25s index
  (no per-document Python objects kept), saved with ``bm25s.BM25.save`` under
  ``<docs parquet>.bm25/<analysis>-k1=<k1>-b=<b>/`` and reused by later runs; datasets with the
  same docs file (aops and theoremqa-questions) share it.
- Retrieval removes each query's excluded documents (qrels below 0) *before* cutting the
  ranking to ``k`` (1,000), as the official protocol does. Like the paper's code, which ranks
  the whole corpus, a ranking with fewer than ``k`` matching documents is filled up with
  zero-score documents in corpus order; ties are broken by corpus order.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import shutil
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from . import analysis
from .errors import CacheError, IrBrightError, require

__all__ = [
    "ANALYSIS",
    "LUCENE_STOP_WORDS",
    "BM25Index",
    "BM25Params",
    "RankedDoc",
    "analyze",
    "index_for",
    "retrieve",
    "write_trec",
]

logger = logging.getLogger(__name__)

ANALYSIS = analysis.ANALYSIS
"""Names the analysis; part of the index cache key, so a change of analysis re-indexes."""

DEFAULT_K = 1000
RUN_TAG = "ir_bright-bm25"

LUCENE_STOP_WORDS = analysis.STOP_WORDS
MAX_TOKEN_CHARS = analysis.MAX_TOKEN_LENGTH


class BM25Params(NamedTuple):
    """BM25's free parameters (the paper's values by default)."""

    k1: float = 0.9
    b: float = 0.4

    def key(self) -> str:
        """The index cache folder name for these parameters and the current analysis."""
        return f"{ANALYSIS}-k1={self.k1:g}-b={self.b:g}"

    def checked(self) -> BM25Params:
        """These parameters as plain floats (``-0.0`` made 0), or an error naming the bad one:
        k1 must be finite and at least 0, b between 0 and 1 (NaN would be cached as an
        index that cannot be loaded again)."""
        try:
            k1, b = float(self.k1) + 0.0, float(self.b) + 0.0
        except (TypeError, ValueError):
            raise IrBrightError(
                f"BM25 k1 and b must be numbers, not {self.k1!r} and {self.b!r}"
            ) from None
        if not (math.isfinite(k1) and k1 >= 0):
            raise IrBrightError(f"BM25 k1 must be a finite number of at least 0, not {self.k1}")
        if not 0 <= b <= 1:
            raise IrBrightError(f"BM25 b must be between 0 and 1, not {self.b}")
        return BM25Params(k1, b)


class RankedDoc(NamedTuple):
    """One line of a run."""

    query_id: str
    doc_id: str
    rank: int
    score: float


DEFAULT_PARAMS = BM25Params()


def analyze(text: str | None) -> list[str]:
    """The index terms of ``text``: Lucene's English analysis (:mod:`ir_bright.analysis`)."""
    return analysis.analyze(text)


@dataclass
class BM25Index:
    """A bm25s index (``retriever``) plus what query-side weighting and run writing need."""

    retriever: Any  # bm25s.BM25
    doc_ids: pa.Array
    idf: np.ndarray
    avgdl: float
    params: BM25Params
    path: Path | None = None

    @property
    def num_docs(self) -> int:
        """Documents in the index."""
        return len(self.doc_ids)

    @property
    def vocab(self) -> dict[str, int]:
        """term -> term id."""
        return self.retriever.vocab_dict

    # -- building ---------------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        batches: Iterable[pa.RecordBatch],
        params: BM25Params = DEFAULT_PARAMS,
        total: int | None = None,
        progress: bool = True,
    ) -> BM25Index:
        """Index Arrow batches with columns ``doc_id`` and ``text`` (streamed, batch by batch)."""
        bm25s = require("bm25s", "bm25")
        from bm25s.scoring import _score_idf_lucene
        from tqdm.auto import tqdm

        vocab: dict[str, int] = {}
        doc_ids: list[pa.Array] = []
        parts_doc, parts_term, parts_tf, lengths = [], [], [], []
        offset = 0
        with tqdm(
            total=total, unit="doc", desc="BM25 indexing", disable=not progress or None
        ) as bar:
            for batch in batches:
                ids = batch.column("doc_id")
                texts = batch.column("text").to_pylist()
                docs, terms, tfs, lens = _count_batch(texts, vocab)
                parts_doc.append((docs + offset).astype(np.int32))  # 12 bytes a posting
                parts_term.append(terms.astype(np.int32))
                parts_tf.append(tfs.astype(np.float32))
                lengths.append(lens)
                doc_ids.append(ids.cast(pa.string()))
                offset += len(texts)
                bar.update(len(texts))
        num_docs = offset
        if num_docs == 0:
            raise IrBrightError("the corpus has no documents: nothing to index")
        term = _concat(parts_term)
        vocab_size = len(vocab)
        df = np.bincount(term, minlength=vocab_size)
        order = np.argsort(term, kind="stable")  # by term, then by doc (docs were ascending)
        del term
        doc = _concat(parts_doc)[order]
        tf = _concat(parts_tf)[order]
        del order
        length = np.concatenate(lengths).astype(np.float64)
        avgdl = float(length.sum() / num_docs) or 1.0
        idf = np.array([_score_idf_lucene(int(n), num_docs) for n in df], dtype=np.float64)
        k1, b = params
        norm = (k1 * (1 - b + b * length / avgdl)).astype(np.float32)
        indptr = np.zeros(vocab_size + 1, dtype=np.int64)
        np.cumsum(df, out=indptr[1:])
        data = np.empty(len(doc), dtype=np.float32)
        chunk = 1 << 22  # bounded temporaries
        term_starts = indptr[:-1]
        for lo in range(0, len(doc), chunk):
            hi = min(lo + chunk, len(doc))
            terms_here = np.searchsorted(term_starts, np.arange(lo, hi), side="right") - 1
            tf_here = tf[lo:hi]
            weight = tf_here / (tf_here + norm[doc[lo:hi]])
            data[lo:hi] = idf[terms_here].astype(np.float32) * weight
        del tf, norm
        retriever = bm25s.BM25(k1=k1, b=b, method="lucene", dtype="float32", int_dtype="int32")
        retriever.scores = {
            "data": data,
            "indices": doc,
            "indptr": indptr,
            "num_docs": num_docs,
        }
        retriever.vocab_dict = vocab
        retriever.nonoccurrence_array = None
        return cls(
            retriever=retriever,
            doc_ids=pa.concat_arrays(doc_ids) if doc_ids else pa.array([], pa.string()),
            idf=idf,
            avgdl=avgdl,
            params=params,
        )

    # -- persistence ------------------------------------------------------------------------

    def save(self, folder: Path) -> None:
        """Write the index to ``folder`` (bm25s files + doc ids + statistics)."""
        folder.mkdir(parents=True, exist_ok=True)
        self.retriever.save(str(folder), show_progress=False)
        with pa.OSFile(str(folder / "doc_ids.arrow"), "wb") as sink:
            table = pa.table({"doc_id": self.doc_ids})
            with pa.ipc.new_file(sink, table.schema) as writer:
                writer.write_table(table)
        np.save(folder / "idf.npy", self.idf)
        stats = {
            "analysis": ANALYSIS,
            "k1": self.params.k1,
            "b": self.params.b,
            "num_docs": self.num_docs,
            "avgdl": self.avgdl,
        }
        (folder / "ir_bright.json").write_text(json.dumps(stats, indent=1), "utf-8")

    @classmethod
    def load(cls, folder: Path) -> BM25Index:
        """Load an index written by :meth:`save` (arrays memory-mapped). A damaged index
        raises :class:`~ir_bright.errors.CacheError` naming the folder (delete it to rebuild)."""
        bm25s = require("bm25s", "bm25")
        try:
            stats = json.loads((folder / "ir_bright.json").read_text("utf-8"))
            retriever = bm25s.BM25.load(str(folder), mmap=True, show_progress=False, verbosity=0)
            with pa.memory_map(str(folder / "doc_ids.arrow")) as source:
                doc_ids = pa.ipc.open_file(source).read_all().column("doc_id").combine_chunks()
            index = cls(
                retriever=retriever,
                doc_ids=doc_ids,
                idf=np.load(folder / "idf.npy"),
                avgdl=float(stats["avgdl"]),
                params=BM25Params(stats["k1"], stats["b"]),
                path=folder,
            )
        except Exception as exc:  # noqa: BLE001 - json, orjson, numpy, Arrow or OS errors
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise CacheError(
                f"the cached BM25 index {folder} cannot be read ({type(exc).__name__}: {reason}): "
                "delete that folder and run again to rebuild it"
            ) from exc
        if len(index.doc_ids) != index.retriever.scores["num_docs"]:
            raise CacheError(
                f"the cached BM25 index {folder} is inconsistent ({len(index.doc_ids)} doc ids, "
                f"{index.retriever.scores['num_docs']} documents): delete that folder and run "
                "again to rebuild it"
            )
        return index

    # -- retrieval --------------------------------------------------------------------------

    def query_weights(self, terms: Sequence[str], query_side: bool = False):
        """(term ids, weights) of an analysed query. Bag of words: weight = the term's count
        in the query. Query-side: the same BM25 weight as a document term, the query's length
        being its number of terms known to the index (gensim's ``doc2bow`` drops the others)."""
        vocab = self.vocab
        counts: dict[int, int] = {}
        for term in terms:
            term_id = vocab.get(term)
            if term_id is not None:
                counts[term_id] = counts.get(term_id, 0) + 1
        ids = np.fromiter(counts, dtype=np.int64, count=len(counts))
        tf = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
        if not query_side:
            return ids, tf
        k1, b = self.params
        length = tf.sum()
        weights = self.idf[ids] * tf / (tf + k1 * (1 - b + b * length / self.avgdl))
        return ids, weights

    def scores(self, terms: Sequence[str], query_side: bool = False) -> np.ndarray:
        """The score of every document (corpus order) for an analysed query."""
        ids, weights = self.query_weights(terms, query_side)
        matrix = self.retriever.scores
        data, indices, indptr = matrix["data"], matrix["indices"], matrix["indptr"]
        scores = np.zeros(self.num_docs, dtype=np.float64)
        for term_id, weight in zip(ids.tolist(), weights.tolist()):
            start, end = indptr[term_id], indptr[term_id + 1]
            # a term's postings name each document once: plain fancy-index addition is exact
            scores[indices[start:end]] += weight * data[start:end].astype(np.float64)
        return scores

    def search(
        self,
        text: str | None,
        k: int = DEFAULT_K,
        excluded: np.ndarray | None = None,
        query_side: bool = False,
    ) -> list[tuple[str, float]]:
        """The ``k`` best (doc id, score) for ``text``, excluded rows removed before the cut."""
        scores = self.scores(analyze(text), query_side)
        rows = top_rows(scores, k, excluded)
        ids = self.doc_ids.take(pa.array(rows, pa.int64())).to_pylist()
        return list(zip(ids, scores[rows].tolist()))

    def rows_of(self, doc_ids: Iterable[str]) -> np.ndarray:
        """Corpus rows of ``doc_ids`` (ids not in the corpus are skipped)."""
        import pyarrow.compute as pc

        wanted = pa.array(list(doc_ids), pa.string())
        if not len(wanted):
            return np.empty(0, dtype=np.int64)
        found = pc.index_in(wanted, value_set=self.doc_ids).drop_null()
        return found.to_numpy(zero_copy_only=False).astype(np.int64)


def top_rows(scores: np.ndarray, k: int, excluded: np.ndarray | None = None) -> np.ndarray:
    """Rows of the ``k`` best scores, best first, ties by row; excluded rows never appear.
    Rows scoring 0 fill the ranking up to ``k`` in row order, as a full-corpus sort would."""
    allowed = np.ones(len(scores), dtype=bool)
    if excluded is not None and len(excluded):
        allowed[excluded] = False
    matched = np.flatnonzero(allowed & (scores > 0))
    if len(matched) > k:
        values = scores[matched]
        kth = np.partition(values, len(values) - k)[len(values) - k]
        above = matched[values > kth]
        tied = matched[values == kth][: k - len(above)]
        matched = np.concatenate([above, tied])
    order = np.lexsort((matched, -scores[matched]))
    rows = matched[order]
    if len(rows) < k:
        fill = np.flatnonzero(allowed & (scores <= 0))[: k - len(rows)]
        rows = np.concatenate([rows, fill])
    return rows


def _concat(parts: list[np.ndarray]) -> np.ndarray:
    """Concatenate and empty ``parts`` (so the pieces can be freed)."""
    result = np.concatenate(parts) if parts else np.empty(0, dtype=np.int32)
    parts.clear()
    return result


def _count_batch(texts: Sequence[str | None], vocab: dict[str, int]):
    """Analyse a batch; return (local doc index, term id, tf) per distinct pair + lengths."""
    per_doc = [analyze(text) for text in texts]
    lengths = np.fromiter(map(len, per_doc), dtype=np.int64, count=len(per_doc))
    total = int(lengths.sum())
    flat_terms = [term for terms in per_doc for term in terms]
    for term in set(flat_terms).difference(vocab):
        vocab[term] = len(vocab)
    term_ids = np.fromiter(map(vocab.__getitem__, flat_terms), dtype=np.int64, count=total)
    docs = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
    keys, tfs = np.unique(docs << 32 | term_ids, return_counts=True)
    return keys >> 32, keys & 0xFFFFFFFF, tfs, lengths


# -- datasets ---------------------------------------------------------------------------------


def index_folder(dataset: Any, params: BM25Params = DEFAULT_PARAMS) -> Path:
    """Where the index of ``dataset``'s corpus with ``params`` is cached."""
    try:
        docs = Path(dataset.docs_path(force=False))
    except (AttributeError, TypeError, NotImplementedError):
        from .hub import cache_home

        name = re.sub(r"[^\w.-]+", "__", _dataset_id(dataset))
        return cache_home() / "ir_bright" / "bm25" / name / params.key()
    return docs.with_name(docs.name + ".bm25") / params.key()


def index_for(
    dataset: Any, params: BM25Params = DEFAULT_PARAMS, progress: bool = True
) -> BM25Index:
    """The BM25 index of a dataset's corpus: loaded from the cache, or built and cached."""
    import filelock

    from . import registry

    dataset = registry.load(dataset)
    params = params.checked()
    folder = index_folder(dataset, params)
    if _complete(folder):
        index = BM25Index.load(folder)
        logger.info("using the cached BM25 index %s", folder)
        return index
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        lock = filelock.FileLock(str(folder) + ".lock")
        lock.acquire()
    except OSError as exc:
        raise CacheError(
            f"cannot write the BM25 index folder {folder.parent} "
            f"({exc.strerror or type(exc).__name__}): the index is built once next to the "
            "corpus; set IR_DATASETS_HOME to a writable folder"
        ) from exc
    try:
        if _complete(folder):
            return BM25Index.load(folder)
        logger.info("indexing %s with BM25 (once; cached in %s)", _dataset_id(dataset), folder)
        index = BM25Index.build(
            _doc_batches(dataset), params, total=_count(dataset), progress=progress
        )
        partial = folder.with_name(folder.name + ".part")
        shutil.rmtree(partial, ignore_errors=True)
        try:
            index.save(partial)
            os.replace(partial, folder)
        except OSError as exc:
            shutil.rmtree(partial, ignore_errors=True)
            raise CacheError(
                f"cannot write the BM25 index {folder} ({exc.strerror or exc}): a full disk? "
                "set IR_DATASETS_HOME to a writable folder with room"
            ) from exc
        except BaseException:
            shutil.rmtree(partial, ignore_errors=True)
            raise
    finally:
        lock.release()
    return BM25Index.load(folder)


def _complete(folder: Path) -> bool:
    return (folder / "ir_bright.json").is_file()


def _count(dataset: Any) -> int | None:
    try:
        return dataset.docs_count()
    except Exception:  # noqa: BLE001 - a count is only for the progress bar
        return None


def _doc_batches(dataset: Any, batch_size: int = 8192) -> Iterator[pa.RecordBatch]:
    """The corpus as Arrow batches (doc_id, text): ``docs_arrow`` when the dataset has it."""
    docs_arrow = getattr(dataset, "docs_arrow", None)
    if docs_arrow is not None:
        for batch in docs_arrow(batch_size):
            yield batch.select(["doc_id", "text"]) if batch.num_columns > 2 else batch
        return
    ids, texts = [], []
    for doc in dataset.docs_iter():
        ids.append(doc.doc_id)
        texts.append(getattr(doc, "text", None) or getattr(doc, "default_text", lambda: "")())
        if len(ids) == batch_size:
            yield pa.record_batch([pa.array(ids), pa.array(texts)], names=["doc_id", "text"])
            ids, texts = [], []
    if ids:
        yield pa.record_batch([pa.array(ids), pa.array(texts)], names=["doc_id", "text"])


def excluded_ids(dataset: Any) -> dict[str, list[str]]:
    """``{query_id: doc ids judged below 0}``: the documents the official protocol removes."""
    excluded: dict[str, list[str]] = {}
    if not dataset.has_qrels():
        return excluded
    for qrel in dataset.qrels_iter():
        if qrel.relevance < 0:
            excluded.setdefault(qrel.query_id, []).append(qrel.doc_id)
    return excluded


def query_texts(dataset: Any) -> list[tuple[str, str]]:
    """(query id, text) of every query; the text is the record's ``text`` field."""
    result = []
    for query in dataset.queries_iter():
        text = getattr(query, "text", None)
        if text is None and hasattr(query, "default_text"):
            text = query.default_text()
        result.append((query.query_id, text or ""))
    return result


def retrieve(
    dataset: Any,
    params: BM25Params = DEFAULT_PARAMS,
    query_side: bool = False,
    k: int = DEFAULT_K,
    progress: bool = True,
    queries: Sequence[tuple[str, str]] | None = None,
) -> Iterator[RankedDoc]:
    """Run the baseline on every query of ``dataset`` (an id or dataset object)."""
    from tqdm.auto import tqdm

    from . import registry

    dataset = registry.load(dataset)
    if k < 1:
        raise IrBrightError(f"the ranking depth must be at least 1, not {k}")
    queries = list(queries) if queries is not None else query_texts(dataset)
    excluded = excluded_ids(dataset)
    index = index_for(dataset, params, progress=progress)
    for query_id, text in tqdm(
        queries, unit="query", desc="BM25 retrieval", disable=not progress or None
    ):
        rows = index.rows_of(excluded.get(query_id, ()))
        for rank, (doc_id, score) in enumerate(
            index.search(text, k, rows, query_side=query_side), start=1
        ):
            yield RankedDoc(query_id, doc_id, rank, score)


def write_trec(ranked: Iterable[RankedDoc], out, tag: str = RUN_TAG) -> int:
    """Write ``query_id Q0 doc_id rank score tag`` lines; return the number written."""
    written = 0
    for doc in ranked:
        out.write(f"{doc.query_id} Q0 {doc.doc_id} {doc.rank} {doc.score!r} {tag}\n")
        written += 1
    return written


def _dataset_id(dataset: Any) -> str:
    value = getattr(dataset, "dataset_id", None)
    if callable(value):
        value = value()
    return str(value or dataset)
