"""A BM25 index in numpy arrays: built from Arrow batches, saved, memory-mapped, searched.

What the paper ran (Su et al., "BRIGHT", ICLR 2025, arXiv 2407.12883; its code:
xlang-ai/BRIGHT ``retrievers.py``, ``retrieval_bm25``, at commit d99e839): Pyserini's Lucene
English analyzer, then gensim's ``LuceneBM25Model`` with k1=0.9, b=0.4, where the *query* is
weighted by the same BM25 formula as the documents, and the score is the dot product of the two
weight vectors. ``query_side=True`` reproduces that; ``query_side=False`` is the usual
bag-of-words BM25 of Lucene / Pyserini (each query term counts as often as it occurs), and
with :attr:`BM25Params.lucene_norms` Pyserini's scores exactly (one-byte lengths, float32).

- Analysis is Lucene's English analysis as Pyserini's default analyzer produces it
  (:mod:`ir_bright.bm25.analysis`), tested against Lucene's own output.
- Weights (:mod:`ir_bright.bm25.weights`): Lucene's idf, ln(1 + (N - df + 0.5)/(df + 0.5)),
  and term weight idf * tf / (tf + k1 * (1 - b + b * dl / avgdl)).
- Storage: the postings are three CSC arrays (``indptr``, ``indices``, ``data``: each term's
  documents, ascending, and their float32 weights), saved as ``.npy`` files and memory-mapped
  on load, beside the vocabulary (JSON), the doc ids (Arrow IPC), the idf and the statistics.

The arrays are the package's own so that a corpus streams into them in bounded memory, with
Lucene's one-byte norms beside exact lengths, and queries are weighted as gensim weights them;
a BM25 library's API indexes token lists held in memory with its own weights (the decisions
page, ``docs/decisions.md``, weighs one).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pyarrow as pa

from ..errors import DamagedError, exhausted
from ..reading import read_json
from ..store import derived
from .analysis import ANALYSIS, analyze
from .params import DEFAULT_PARAMS, BM25Params, check_mode
from .topk import top_rows
from .weights import DocumentWeights

INDEX_KIND = "ir_bright.bm25-index"
INDEX_VERSION = 3
"""The index's file format, in its manifest: an index of another version is rebuilt."""

_ARRAYS = ("data", "indices", "indptr")


@dataclass
class BM25Index:
    """The postings (CSC arrays) plus what query weighting and run writing need."""

    data: np.ndarray
    """float32 weight of each posting, term by term."""
    indices: np.ndarray
    """int32 document row of each posting."""
    indptr: np.ndarray
    """int64: term ``t``'s postings are ``[indptr[t], indptr[t + 1])``."""
    vocab: dict[str, int]
    """term -> term id."""
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
        from ..log import progress as bar_of
        from .build import count_corpus, default_workers, place

        with bar_of(progress, total=total, unit="doc", desc="BM25 indexing") as bar:
            counts = count_corpus(batches, default_workers(workers, total), bar)
        weights = DocumentWeights(params, counts.length)
        df = counts.document_frequencies()
        idf = weights.idf(df)
        data, indices, indptr, tfn = place(counts.parts, df, idf, weights)
        return cls(
            data, indices, indptr, counts.vocab, counts.doc_ids, idf, weights.avgdl, params, tfn=tfn
        )

    # -- persistence ------------------------------------------------------------------------

    def save(self, folder: Path, source: Path | None = None) -> None:
        """Write the index to a new ``folder`` (arrays, vocabulary, doc ids, statistics), then
        its manifest (:mod:`ir_bright.store.derived`: sizes and CRC-32 of every file) last."""
        folder.mkdir(parents=True)  # a new folder, never one reached through a link
        for name in _ARRAYS:
            np.save(folder / f"{name}.npy", getattr(self, name))
        (folder / "vocab.json").write_text(json.dumps(self.vocab, ensure_ascii=False), "utf-8")
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
        derived.write_manifest(folder, INDEX_KIND, INDEX_VERSION, source, index_files(folder))

    @classmethod
    def load(cls, folder: Path) -> BM25Index:
        """Load an index written by :meth:`save` (arrays memory-mapped). A damaged index
        raises :class:`~ir_bright.errors.DamagedError` naming the folder (delete it to rebuild)."""
        try:
            index = cls._read(folder)
            problem = index._inconsistency()
        except Exception as exc:  # noqa: BLE001 - json, numpy, Arrow or OS errors
            if exhausted(exc):
                raise  # open files or memory ran out: the index may well be good
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise DamagedError(folder, f"unreadable: {type(exc).__name__}: {reason}") from exc
        if problem is not None:
            raise DamagedError(folder, f"inconsistent: {problem}")
        return index

    @classmethod
    def _read(cls, folder: Path) -> BM25Index:
        stats = read_json(folder / "ir_bright.json")
        if not np.isfinite(float(stats["avgdl"])):
            raise ValueError("avgdl is not a finite number")
        # a slice of a numpy.memmap is a memmap too, much slower to make than a slice of an
        # ndarray over the same pages: keep plain ndarray views of the maps
        arrays = {
            name: np.asarray(np.load(folder / f"{name}.npy", mmap_mode="r")) for name in _ARRAYS
        }
        with pa.memory_map(str(folder / "doc_ids.arrow")) as source:
            doc_ids = pa.ipc.open_file(source).read_all().column("doc_id").combine_chunks()
        lucene = bool(stats["lucene_norms"])
        return cls(
            **arrays,
            vocab=read_json(folder / "vocab.json"),
            doc_ids=doc_ids,
            idf=np.load(folder / "idf.npy"),
            avgdl=float(stats["avgdl"]),
            params=BM25Params(stats["k1"], stats["b"], lucene),
            path=folder,
            tfn=np.asarray(np.load(folder / "tfn.npy", mmap_mode="r")) if lucene else None,
        )

    def _inconsistency(self) -> str | None:
        """What does not fit together in a loaded index (its files passed their checksums)."""
        terms, postings = len(self.vocab), len(self.data)
        if len(self.indptr) != terms + 1 or len(self.idf) != terms:
            return f"{terms} terms, {len(self.indptr) - 1} posting lists, {len(self.idf)} idf"
        if len(self.indices) != postings or int(self.indptr[-1]) != postings:
            return f"{postings} weights, {len(self.indices)} rows, {self.indptr[-1]} postings"
        if self.tfn is not None and len(self.tfn) != postings:
            return f"{postings} postings, {len(self.tfn)} norms"
        return None

    # -- retrieval --------------------------------------------------------------------------

    def query_weights(
        self, terms: Sequence[str], query_side: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """(term ids, weights) of an analysed query. Bag of words: weight = the term's count
        in the query. Query-side: the same BM25 weight as a document term, the query's length
        being its number of terms known to the index (gensim's ``doc2bow`` drops the others)."""
        counts = Counter(map(self.vocab.get, terms))  # in order of first occurrence
        counts.pop(None, None)  # terms the index does not know
        ids = np.fromiter(counts, dtype=np.int64, count=len(counts))
        tf = np.fromiter(counts.values(), dtype=np.float64, count=len(counts))
        if not query_side:
            return ids, tf
        check_mode(query_side, self.params.lucene_norms)
        k1, b = self.params.k1, self.params.b
        length = tf.sum()
        weights = self.idf[ids] * tf / (tf + k1 * (1 - b + b * length / self.avgdl))
        return ids, weights

    def scores(self, terms: Sequence[str], query_side: bool = False) -> np.ndarray:
        """The score of every document (corpus order) for an analysed query."""
        return self._scores(terms, query_side).astype(np.float64, copy=False)

    def _scores(self, terms: Sequence[str], query_side: bool = False) -> np.ndarray:
        """:meth:`scores`, as float32 with Lucene's norms (the values Lucene returns; half
        the memory for the top-k cut to read)."""
        ids, weights = self.query_weights(terms, query_side)
        if not len(ids):
            return np.zeros(self.num_docs, dtype=np.float64)
        starts, ends = self.indptr[ids].tolist(), self.indptr[ids + 1].tolist()
        rows = [self.indices[start:end] for start, end in zip(starts, ends)]
        parts = [self.data[start:end] for start, end in zip(starts, ends)]
        lucene = self.params.lucene_norms
        scaled = weights != 1
        if lucene and self.tfn is not None:  # Lucene boosts idf, then saturates, in float32
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
        depth: int,
        excluded: np.ndarray | None = None,
        query_side: bool = False,
    ) -> list[tuple[str, float]]:
        """The ``depth`` best (doc id, score) for ``text``, excluded rows removed before the cut;
        a doc id the corpus holds on several rows is ranked once, by its first row."""
        return list(zip(*self.ranking(text, depth, excluded, query_side)))

    def ranking(
        self,
        text: str | None,
        depth: int,
        excluded: np.ndarray | None = None,
        query_side: bool = False,
    ) -> tuple[list[str], list[float]]:
        """:meth:`search` as two lists: the doc ids, best first, and their scores."""
        scores = self._scores(analyze(text), query_side)
        if len(self._repeats):
            excluded = self._repeats if excluded is None else np.union1d(excluded, self._repeats)
        if self.params.lucene_norms:  # as Pyserini: matching documents only, ties by doc id
            rows = top_rows(scores, depth, excluded, self.id_order, fill=False, overwrite=True)
        else:  # as the paper's code: a sort of the whole corpus, ties in corpus order
            rows = top_rows(scores, depth, excluded, overwrite=True)
        doc_ids = self._id_list
        return [doc_ids[row] for row in rows.tolist()], scores[rows].tolist()

    def rows_of(self, doc_ids: Iterable[str]) -> np.ndarray:
        """Corpus rows of ``doc_ids`` (ids not in the corpus are skipped; an id the corpus
        holds twice is its first row)."""
        row_of = self._row_of if doc_ids else {}
        rows = [row for row in map(row_of.get, doc_ids) if row is not None]
        return np.array(rows, dtype=np.int64)

    @cached_property
    def _repeats(self) -> np.ndarray:
        """The rows whose doc id an earlier row holds: indexed (they count in N, the document
        frequencies and the average length, as in the benchmarks' code, which indexes every
        row) but never ranked, so each id is ranked once."""
        row_of, rows = self._row_of, len(self._id_list)
        if len(row_of) == rows:
            return np.empty(0, dtype=np.int64)
        first = np.fromiter(row_of.values(), dtype=np.int64, count=len(row_of))
        return np.setdiff1d(np.arange(rows, dtype=np.int64), first)

    @cached_property
    def _row_of(self) -> dict[str, int]:
        """Each doc id's first row."""
        row_of: dict[str, int] = {}
        for row, doc_id in enumerate(self._id_list):
            row_of.setdefault(doc_id, row)
        return row_of

    @cached_property
    def _id_list(self) -> list[str]:
        """The doc ids as Python strings, converted once: a ranking's ids are taken from here
        rather than converted from Arrow query by query."""
        return self.doc_ids.to_pylist()


def index_files(folder: Path) -> dict[str, Path]:
    """The files of an index folder that its manifest lists (all but the manifest)."""
    return {
        p.name: p for p in sorted(folder.iterdir()) if p.is_file() and p.name != derived.MANIFEST
    }
