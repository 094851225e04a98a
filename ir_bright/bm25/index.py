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
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from ..errors import CacheError, IrBrightError, require
from ..store import derived
from . import analysis

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
INDEX_KIND = "ir_bright.bm25-index"
INDEX_VERSION = 1
"""Names the analysis; part of the index cache key, so a change of analysis re-indexes."""

DEFAULT_K = 1000
RUN_TAG = "ir_bright-bm25"

LUCENE_STOP_WORDS = analysis.STOP_WORDS
MAX_TOKEN_CHARS = analysis.MAX_TOKEN_LENGTH


class BM25Params(NamedTuple):
    """BM25's free parameters (the paper's values by default)."""

    k1: float = 0.9
    b: float = 0.4
    lucene_norms: bool = False
    """Lucene's one-byte document lengths and float32 arithmetic (Pyserini's scores) instead
    of exact lengths (the paper's gensim code)."""

    def key(self) -> str:
        """The index cache folder name for these parameters and the current analysis."""
        return f"{ANALYSIS}-k1={self.k1:g}-b={self.b:g}" + ("-lucene" if self.lucene_norms else "")

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
        return BM25Params(k1, b, bool(self.lucene_norms))


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
    tfn: np.ndarray | None = None
    """With Lucene's norms: each posting's ``1 + tf / norm`` (float32), to weight query terms
    that occur more than once exactly as Lucene does."""

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
        workers: int | None = None,
    ) -> BM25Index:
        """Index Arrow batches with columns ``doc_id`` and ``text`` (streamed, batch by batch;
        the analysis runs in ``workers`` processes, by default one per core when ``total``
        says there are at least 20,000 documents)."""
        bm25s = require("bm25s", "bm25")
        from ..log import progress as bar_of

        vocab: dict[str, int] = {}
        doc_ids: list[pa.Array] = []
        parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        lengths: list[np.ndarray] = []
        luts: dict[int, np.ndarray] = {}
        with bar_of(progress, total=total, unit="doc", desc="BM25 indexing") as bar:
            for batch, (worker, new, per_doc, terms, tfs, lens) in _counted(
                batches, _workers(workers, total)
            ):
                lut = luts.get(worker, np.zeros(0, dtype=np.int32))
                if new:
                    ids = np.fromiter(
                        (vocab.setdefault(term, len(vocab)) for term in new), np.int32, len(new)
                    )
                    lut = luts[worker] = np.concatenate([lut, ids])
                small = tfs.max(initial=0) < 1 << 16
                parts.append(
                    (
                        per_doc.astype(np.int32),
                        lut[terms],
                        tfs.astype(np.uint16 if small else np.int32),
                    )
                )
                lengths.append(lens)
                doc_ids.append(batch.column("doc_id").cast(pa.string()))
                bar.update(batch.num_rows)
        length = np.concatenate(lengths) if lengths else np.zeros(0, dtype=np.int64)
        if not len(length):
            raise IrBrightError("the corpus has no documents: nothing to index")
        scoring = _Scoring(params, length)
        df = np.zeros(len(vocab), dtype=np.int64)
        for _, terms, _ in parts:
            df += np.bincount(terms, minlength=len(vocab))
        idf = scoring.idf(df)
        indptr = np.zeros(len(vocab) + 1, dtype=np.int64)
        np.cumsum(df, out=indptr[1:])
        postings = int(indptr[-1])
        indices = np.empty(postings, dtype=np.int32)
        data = np.empty(postings, dtype=np.float32)
        tfn = np.empty(postings, dtype=np.float32) if params.lucene_norms else None
        cursor = indptr[:-1].copy()
        first_doc = 0
        for i, (per_doc, terms, tfs) in enumerate(parts):
            parts[i] = None  # frees the part once placed
            docs = np.repeat(
                np.arange(first_doc, first_doc + len(per_doc), dtype=np.int32), per_doc
            )
            first_doc += len(per_doc)
            order = _stable_order(terms)  # by term, each term's docs ascending
            terms, docs, tfs = terms[order], docs[order], tfs[order]
            del order
            first = np.flatnonzero(np.diff(terms, prepend=-1))  # where each term's run starts
            counts = np.diff(first, append=len(terms))
            where = cursor[terms] + np.arange(len(terms)) - np.repeat(first, counts)
            cursor[terms[first]] += counts
            indices[where] = docs
            data[where], saturation = scoring.weights(idf[terms], tfs, docs)
            if tfn is not None:
                tfn[where] = saturation
        retriever = bm25s.BM25(
            k1=params.k1, b=params.b, method="lucene", dtype="float32", int_dtype="int32"
        )
        retriever.scores = {
            "data": data,
            "indices": indices,
            "indptr": indptr,
            "num_docs": len(length),
        }
        retriever.vocab_dict = vocab
        retriever.nonoccurrence_array = None
        return cls(
            retriever=retriever,
            doc_ids=pa.concat_arrays(doc_ids),
            idf=idf,
            avgdl=scoring.avgdl,
            params=params,
            tfn=tfn,
        )

    # -- persistence ------------------------------------------------------------------------

    def save(self, folder: Path, source: Path | None = None) -> None:
        """Write the index to a new ``folder`` (bm25s files + doc ids + statistics), then its
        manifest (:mod:`ir_bright.derived`: sizes and CRC-32 of every file) last."""
        folder.mkdir(parents=True)  # a new folder, never one reached through a link
        self.retriever.save(str(folder), show_progress=False)
        with pa.OSFile(str(folder / "doc_ids.arrow"), "wb") as sink:
            table = pa.table({"doc_id": self.doc_ids})
            with pa.ipc.new_file(sink, table.schema) as writer:
                writer.write_table(table)
        np.save(folder / "idf.npy", self.idf)
        if self.tfn is not None:
            np.save(folder / "tfn.npy", self.tfn)
        stats = {
            "analysis": ANALYSIS,
            "k1": self.params.k1,
            "b": self.params.b,
            "lucene_norms": self.params.lucene_norms,
            "num_docs": self.num_docs,
            "avgdl": self.avgdl,
        }
        (folder / "ir_bright.json").write_text(json.dumps(stats, indent=1), "utf-8")
        derived.write_manifest(folder, INDEX_KIND, INDEX_VERSION, source, _index_files(folder))

    @classmethod
    def load(cls, folder: Path) -> BM25Index:
        """Load an index written by :meth:`save` (arrays memory-mapped). A damaged index
        raises :class:`~ir_bright.errors.CacheError` naming the folder (delete it to rebuild)."""
        bm25s = require("bm25s", "bm25")
        try:
            stats = json.loads((folder / "ir_bright.json").read_text("utf-8"))
            if not np.isfinite(float(stats["avgdl"])):
                raise ValueError("avgdl is not a finite number")
            retriever = bm25s.BM25.load(str(folder), mmap=True, show_progress=False, verbosity=0)
            with pa.memory_map(str(folder / "doc_ids.arrow")) as source:
                doc_ids = pa.ipc.open_file(source).read_all().column("doc_id").combine_chunks()
            index = cls(
                retriever=retriever,
                doc_ids=doc_ids,
                idf=np.load(folder / "idf.npy"),
                avgdl=float(stats["avgdl"]),
                params=BM25Params(stats["k1"], stats["b"], stats["lucene_norms"]),
                path=folder,
                tfn=np.load(folder / "tfn.npy", mmap_mode="r") if stats["lucene_norms"] else None,
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
        from collections import Counter

        counts = Counter(map(self.vocab.get, terms))  # in order of first occurrence
        counts.pop(None, None)  # terms the index does not know
        ids = np.fromiter(counts, dtype=np.int64, count=len(counts))
        tf = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
        if not query_side:
            return ids, tf
        if self.params.lucene_norms:
            raise IrBrightError(
                "Lucene's norms reproduce Pyserini's bag-of-words BM25 and query-side weighting "
                "the paper's gensim code (exact lengths): use one of the two, not both"
            )
        k1, b = self.params.k1, self.params.b
        length = tf.sum()
        weights = self.idf[ids] * tf / (tf + k1 * (1 - b + b * length / self.avgdl))
        return ids, weights

    @cached_property
    def _postings(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(data, indices, indptr) of the index as plain arrays: a slice of a ``numpy.memmap``
        is a memmap too, much slower to make than a slice of an ndarray over the same pages."""
        matrix = self.retriever.scores
        return tuple(np.asarray(matrix[key]) for key in ("data", "indices", "indptr"))

    def scores(self, terms: Sequence[str], query_side: bool = False) -> np.ndarray:
        """The score of every document (corpus order) for an analysed query."""
        return self._scores(terms, query_side).astype(np.float64, copy=False)

    def _scores(self, terms: Sequence[str], query_side: bool = False) -> np.ndarray:
        """:meth:`scores`, as float32 with Lucene's norms (the values Lucene returns; half
        the memory for the top-k cut to read)."""
        ids, weights = self.query_weights(terms, query_side)
        if not len(ids):
            return np.zeros(self.num_docs, dtype=np.float64)
        data, indices, indptr = self._postings
        starts, ends = indptr[ids].tolist(), indptr[ids + 1].tolist()
        rows = [indices[start:end] for start, end in zip(starts, ends)]
        parts = [data[start:end] for start, end in zip(starts, ends)]
        lucene = self.params.lucene_norms
        scaled = weights != 1
        if lucene:  # Lucene boosts idf, then saturates, in float32
            for i in np.flatnonzero(scaled).tolist():
                boosted = np.float32(weights[i]) * np.float32(self.idf[ids[i]])
                parts[i] = boosted - boosted / self.tfn[starts[i] : ends[i]]
        # one pass over every posting; bincount adds in array order, i.e. term by term for
        # each document, the order (and so the float64 sums) of a per-term accumulation
        values = np.concatenate(parts, dtype=np.float64)
        if not lucene and scaled.any():  # weight * float64(posting), as term by term
            values *= np.repeat(weights, np.subtract(ends, starts))
        scores = np.bincount(
            np.concatenate(rows, dtype=np.intp), weights=values, minlength=self.num_docs
        )
        # Lucene adds its float32 term scores in double and returns the sum as a float32
        return scores.astype(np.float32) if lucene else scores

    @cached_property
    def id_order(self) -> np.ndarray:
        """Each row's rank in doc id order: Pyserini breaks score ties by doc id."""
        import pyarrow.compute as pc

        order = pc.sort_indices(self.doc_ids).to_numpy()
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return rank

    def search(
        self,
        text: str | None,
        k: int = DEFAULT_K,
        excluded: np.ndarray | None = None,
        query_side: bool = False,
    ) -> list[tuple[str, float]]:
        """The ``k`` best (doc id, score) for ``text``, excluded rows removed before the cut."""
        scores = self._scores(analyze(text), query_side)
        if self.params.lucene_norms:  # as Pyserini: matching documents only, ties by doc id
            rows = top_rows(scores, k, excluded, self.id_order, fill=False, overwrite=True)
        else:  # as the paper's code: a sort of the whole corpus, ties in corpus order
            rows = top_rows(scores, k, excluded, overwrite=True)
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


def top_rows(
    scores: np.ndarray,
    k: int,
    excluded: np.ndarray | None = None,
    tiebreak: np.ndarray | None = None,
    fill: bool = True,
    overwrite: bool = False,
) -> np.ndarray:
    """Rows of the ``k`` best scores, best first, ties by ``tiebreak[row]`` (default: the
    row); excluded rows never appear. With ``fill``, rows scoring 0 fill the ranking up to
    ``k`` in row order, as a full-corpus sort would. With ``overwrite``, the scores of
    excluded rows may be changed (to -inf: excluded without a search)."""
    dropped = 0 if excluded is None else len(excluded)
    if overwrite and dropped:
        scores[excluded] = -np.inf
    matched = _best_candidates(scores, k, excluded, dropped, marked=overwrite)
    allowed = None
    if matched is None:
        allowed = np.ones(len(scores), dtype=bool)
        if excluded is not None and len(excluded):
            allowed[excluded] = False
        matched = np.flatnonzero(allowed & (scores > 0))
    if len(matched) > k:
        values = scores[matched]
        kth = np.partition(values, len(values) - k)[len(values) - k]
        above = matched[values > kth]
        tied = matched[values == kth]
        if tiebreak is not None:
            tied = tied[np.argsort(tiebreak[tied], kind="stable")]
        matched = np.concatenate([above, tied[: k - len(above)]])
    second = matched if tiebreak is None else tiebreak[matched]
    rows = matched[np.lexsort((second, -scores[matched]))]
    if fill and len(rows) < k and allowed is not None:
        zero = np.flatnonzero(allowed & (scores <= 0))[: k - len(rows)]
        rows = np.concatenate([rows, zero])
    return rows


_SAMPLE_STRIDE = 64


def _best_candidates(
    scores: np.ndarray, k: int, excluded: np.ndarray | None, dropped: int, marked: bool
) -> np.ndarray | None:
    """Allowed rows (ascending) of every score at least a positive threshold that at least
    ``k`` allowed rows reach, so every row of the ``k`` best and all rows tied with the
    ``k``-th are among them; None when no such threshold is found this way. The threshold
    is a high score of every 64th row, where about twice ``k`` plus the excluded are expected
    at or above it: the selection then looks at a few thousand scores, not the corpus.
    ``marked``: the excluded rows score -inf, so none passes the threshold."""
    sample = scores[::_SAMPLE_STRIDE]
    rank = 2 * ((k + dropped) // _SAMPLE_STRIDE + 1) + 16
    if rank >= len(sample):
        return None
    threshold = np.partition(sample, len(sample) - rank)[len(sample) - rank]
    if not threshold > 0:
        return None
    rows = np.flatnonzero(scores >= threshold)
    if dropped and not marked:  # excluded rows found by binary search (np.isin costs more)
        excluded = np.sort(excluded)
        found = excluded[np.minimum(np.searchsorted(excluded, rows), dropped - 1)]
        rows = rows[found != rows]
    return rows if len(rows) >= k else None


def _stable_order(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values, kind="stable")`` of non-negative int32 values, in two radix passes
    of 16 bits (numpy radix-sorts 16-bit keys; a 32-bit stable sort is a merge sort)."""
    low = np.argsort((values & 0xFFFF).astype(np.uint16), kind="stable")
    if values.max(initial=0) < 1 << 16:
        return low
    return low[np.argsort((values[low] >> 16).astype(np.uint16), kind="stable")]


class _Scoring:
    """Document-side BM25: exact lengths in float64 (gensim's ``LuceneBM25Model``), or
    Lucene's ``BM25Similarity`` (one-byte lengths, float32, only non-empty documents counted)."""

    def __init__(self, params: BM25Params, length: np.ndarray) -> None:
        self.params = params
        self.length = length
        if params.lucene_norms:
            self.num_docs = int(np.count_nonzero(length))  # Lucene's docCount
            self.avgdl = float(np.float32(length.sum() / max(self.num_docs, 1)))
            self.norm_byte = lucene_norm_bytes(length)
            self.norm_inverse = _lucene_norm_cache(params.k1, params.b, self.avgdl)
        else:
            self.num_docs = len(length)
            self.avgdl = float(length.sum() / self.num_docs) or 1.0
            k1, b = params.k1, params.b
            self.norm = k1 * (1 - b + b * length.astype(np.float64) / self.avgdl)

    def idf(self, df: np.ndarray) -> np.ndarray:
        """ln(1 + (N - df + 0.5) / (df + 0.5)); as float32 values with Lucene's norms."""
        n = self.num_docs
        idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
        return idf.astype(np.float32).astype(np.float64) if self.params.lucene_norms else idf

    def weights(self, idf: np.ndarray, tf: np.ndarray, docs: np.ndarray):
        """(float32 weight of each posting, Lucene's ``1 + tf / norm`` or None)."""
        if not self.params.lucene_norms:
            tf = tf.astype(np.float64)
            return (idf * tf / (tf + self.norm[docs])).astype(np.float32), None
        saturation = np.float32(1) + tf.astype(np.float32) * self.norm_inverse[self.norm_byte[docs]]
        weight = idf.astype(np.float32)
        return weight - weight / saturation, saturation


def lucene_norm_bytes(length: np.ndarray) -> np.ndarray:
    """Lucene's one-byte encoding of document lengths (``SmallFloat.intToByte4``): exact below
    24, then 4 significant bits (716 is stored as 664)."""
    length = np.asarray(length, dtype=np.int64)
    free = 24  # NUM_FREE_VALUES = 255 - longToInt4(Integer.MAX_VALUE)
    value = np.maximum(length - free, 0)
    bits = np.zeros(len(value), dtype=np.int64)  # bit length of each value
    for k in range(32):
        bits += (value >> k) > 0
    shift = np.maximum(bits - 4, 0)
    normal = (((value >> shift) & 0x07) | ((shift + 1) << 3)).astype(np.int64)
    encoded = np.where(bits < 4, value, normal)
    return np.where(length < free, length, free + encoded).astype(np.uint8)


def lucene_norm_lengths() -> np.ndarray:
    """The length each of the 256 norm bytes stands for (``SmallFloat.byte4ToInt``)."""
    free = 24
    i = np.arange(256, dtype=np.int64) - free
    bits, shift = i & 0x07, (i >> 3) - 1
    decoded = np.where(shift == -1, bits, (bits | 0x08) << np.maximum(shift, 0))
    return np.where(np.arange(256) < free, np.arange(256), free + decoded)


def _lucene_norm_cache(k1: float, b: float, avgdl: float) -> np.ndarray:
    """Lucene's ``1 / (k1 * ((1 - b) + b * length / avgdl))`` per norm byte, in float32."""
    f32 = np.float32
    lengths = lucene_norm_lengths().astype(np.float32)
    k1, b, avgdl = f32(k1), f32(b), f32(avgdl)
    return (f32(1) / (k1 * ((f32(1) - b) + b * lengths / avgdl))).astype(np.float32)


def _workers(workers: int | None, total: int | None) -> int:
    if workers is not None:
        return max(1, workers)
    if total is None or total < 20_000:  # starting processes costs more than it saves
        return 1
    return max(
        1,
        min(
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else (os.cpu_count() or 1),
            8,
        ),
    )


_COUNTER: analysis.TermCounter | None = None


def _count_texts(texts: pa.Array):
    """(process id, new terms, distinct terms per doc, term ids, tfs, lengths) of a batch."""
    global _COUNTER
    if _COUNTER is None:
        _COUNTER = analysis.TermCounter()
    return (os.getpid(), *_COUNTER.count(texts.to_pylist()))


def _counted(batches: Iterable[pa.RecordBatch], workers: int):
    """(batch, counts) of every batch, in order; analysed in ``workers`` processes, at most
    two batches per process in flight (memory stays bounded however large the corpus)."""
    if workers == 1:
        counter = analysis.TermCounter()  # term ids of this index only
        for batch in batches:
            yield batch, (0, *counter.count(batch.column("text").to_pylist()))
        return
    import multiprocessing
    from collections import deque
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(workers, mp_context=context) as pool:
        pending: deque = deque()
        for batch in batches:
            pending.append((batch, pool.submit(_count_texts, batch.column("text"))))
            if len(pending) >= 2 * workers:
                batch, future = pending.popleft()
                yield batch, future.result()
        while pending:
            batch, future = pending.popleft()
            yield batch, future.result()


# -- datasets ---------------------------------------------------------------------------------


def index_folder(dataset: Any, params: BM25Params = DEFAULT_PARAMS) -> Path:
    """Where the index of ``dataset``'s corpus with ``params`` is cached."""
    try:
        docs = Path(dataset.docs_path(force=False))
    except (AttributeError, TypeError, NotImplementedError):
        from ..hub import cache_home

        name = re.sub(r"[^\w.-]+", "__", _dataset_id(dataset))
        return cache_home() / "ir_bright" / "bm25" / name / params.key()
    return docs.with_name(docs.name + ".bm25") / params.key()


def index_for(
    dataset: Any, params: BM25Params = DEFAULT_PARAMS, progress: bool = True
) -> BM25Index:
    """The BM25 index of a dataset's corpus: loaded from the cache, or built and cached."""

    from .. import registry

    dataset = registry.load(dataset)
    params = params.checked()
    folder = index_folder(dataset, params)
    source = _source(dataset)
    problem = _index_problem(folder, source)
    if folder.exists() and problem is None:
        index = BM25Index.load(folder)
        logger.info("using the cached BM25 index %s", folder)
        return index
    derived.refuse_symlink(folder.parent)  # the index folder is ours: never a link
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        lock = derived.file_lock(folder)
        lock.acquire()
    except OSError as exc:
        raise CacheError(
            f"cannot write the BM25 index folder {folder.parent} "
            f"({exc.strerror or type(exc).__name__}): the index is built once next to the "
            "corpus; set IR_DATASETS_HOME to a writable folder"
        ) from exc
    try:
        problem = _index_problem(folder, source)
        if folder.exists() and problem is None:
            return BM25Index.load(folder)
        if folder.exists() or folder.is_symlink():
            derived.rebuild_warning(folder, problem or "incomplete")
            _remove(folder)
        logger.info("indexing %s with BM25 (once; cached in %s)", _dataset_id(dataset), folder)
        index = BM25Index.build(
            _doc_batches(dataset), params, total=_count(dataset), progress=progress
        )
        partial = folder.with_name(folder.name + ".part")
        _remove(partial)
        try:
            index.save(partial, _source(dataset))  # fetched by now
            os.replace(partial, folder)
        except OSError as exc:
            _remove(partial)
            raise CacheError(
                f"cannot write the BM25 index {folder} ({exc.strerror or exc}): a full disk? "
                "set IR_DATASETS_HOME to a writable folder with room"
            ) from exc
        except BaseException:
            _remove(partial)
            raise
    finally:
        lock.release()
    return BM25Index.load(folder)


def _index_files(folder: Path) -> dict[str, Path]:
    return {
        p.name: p for p in sorted(folder.iterdir()) if p.is_file() and p.name != derived.MANIFEST
    }


def _index_problem(folder: Path, source: Path | None) -> str | None:
    """What is wrong with a cached index folder (None when intact or absent)."""
    if folder.is_symlink():
        return "a symbolic link"
    if not folder.exists():
        return None
    if not folder.is_dir():
        return "not a folder"
    _, problem = derived.check(folder, INDEX_KIND, INDEX_VERSION, source, _index_files(folder))
    return problem


def _remove(path: Path) -> None:
    """Remove a file, a link (not its target) or a folder."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def _source(dataset: Any) -> Path | None:
    """The cached docs file the index is built from, when the dataset has one."""
    try:
        path = Path(dataset.docs_path(force=False))
    except (AttributeError, TypeError, NotImplementedError):
        return None
    return path if path.is_file() else None


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
    only_texts = getattr(dataset, "query_texts", None)  # BRIGHT: skips the *_reason files
    if only_texts is not None:
        return [(query_id, text or "") for query_id, text in only_texts()]
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
    from .. import registry
    from ..log import progress as bar_of

    dataset = registry.load(dataset)
    if k < 1:
        raise IrBrightError(f"the ranking depth must be at least 1, not {k}")
    queries = list(queries) if queries is not None else query_texts(dataset)
    excluded = excluded_ids(dataset)
    index = index_for(dataset, params, progress=progress)
    for query_id, text in bar_of(progress, iterable=queries, unit="query", desc="BM25 retrieval"):
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
