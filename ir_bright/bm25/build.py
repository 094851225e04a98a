"""Building the postings of a BM25 index from a stream of Arrow batches, in bounded memory.

Each batch's texts are analysed into (document, term, tf) triples (in worker processes for a
large corpus, :mod:`ir_bright.bm25.workers`), mapped to the index's term ids, and kept in
compact arrays; no per-document Python object outlives its batch. Once every document length
is known, the triples are weighted and placed term by term into CSC arrays: for term ``t``,
``indices[indptr[t]:indptr[t + 1]]`` are its documents (ascending) and ``data`` their weights.
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Generator, Iterable
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from ..errors import IrBrightError
from . import analysis
from .weights import DocumentWeights
from .workers import WorkerError, Workers

logger = logging.getLogger(__name__)

_Part = tuple[np.ndarray, np.ndarray, np.ndarray]
"""One batch's (distinct terms per document, term ids, term frequencies)."""


class Counts(NamedTuple):
    """A corpus counted: its vocabulary, each batch's terms, each document's length."""

    vocab: dict[str, int]
    """term -> term id (first seen, first numbered)."""
    parts: list[_Part | None]
    length: np.ndarray
    doc_ids: pa.Array

    def document_frequencies(self) -> np.ndarray:
        """How many documents hold each term."""
        df = np.zeros(len(self.vocab), dtype=np.int64)
        for part in self.parts:
            if part is not None:
                df += np.bincount(part[1], minlength=len(self.vocab))
        return df


def count_corpus(batches: Iterable[pa.RecordBatch], workers: int, bar) -> Counts:
    """Every batch's terms, under one vocabulary (term -> id, first seen first numbered)."""
    vocab: dict[str, int] = {}
    doc_ids: list[pa.Array] = []
    parts: list[_Part | None] = []
    lengths: list[np.ndarray] = []
    luts: dict[int, np.ndarray] = {}  # each analyser's term ids -> the index's
    with contextlib.closing(_counted(batches, workers)) as counted:  # workers stopped on error
        for batch, counts in counted:
            _add_batch(vocab, luts, counts, parts, lengths)
            doc_ids.append(batch.column("doc_id").cast(pa.string()))
            bar.update(batch.num_rows)
    if not lengths or not sum(map(len, lengths)):
        raise IrBrightError("the corpus has no documents: nothing to index")
    return Counts(vocab, parts, np.concatenate(lengths), pa.concat_arrays(doc_ids))


def _add_batch(
    vocab: dict[str, int],
    luts: dict[int, np.ndarray],
    counts: tuple,
    parts: list[_Part | None],
    lengths: list[np.ndarray],
) -> None:
    """Append one batch's counts, its analyser's term ids mapped to the index's (``luts``:
    one table per analysing process, grown by the terms each batch saw first)."""
    worker, new, per_doc, terms, tfs, lens = counts
    lut = luts.get(worker, np.zeros(0, dtype=np.int32))
    if new:
        ids = np.fromiter((vocab.setdefault(term, len(vocab)) for term in new), np.int32, len(new))
        lut = luts[worker] = np.concatenate([lut, ids])
    small = tfs.max(initial=0) < 1 << 16
    parts.append(
        (per_doc.astype(np.int32), lut[terms], tfs.astype(np.uint16 if small else np.int32))
    )
    lengths.append(lens)


def place(
    parts: list[_Part | None], df: np.ndarray, idf: np.ndarray, weights: DocumentWeights
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """(data, indices, indptr, tfn): each part's postings weighted and placed, in order, at
    the next free slots of their terms; each part is freed once placed."""
    indptr = np.zeros(len(df) + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    postings = int(indptr[-1])
    indices = np.empty(postings, dtype=np.int32)
    data = np.empty(postings, dtype=np.float32)
    tfn = np.empty(postings, dtype=np.float32) if weights.params.lucene_norms else None
    cursor = indptr[:-1].copy()
    first_doc = 0
    for i, part in enumerate(parts):
        assert part is not None
        per_doc, terms, tfs = part
        parts[i] = None
        docs = np.repeat(np.arange(first_doc, first_doc + len(per_doc), dtype=np.int32), per_doc)
        first_doc += len(per_doc)
        order = _stable_order(terms)  # by term, each term's docs ascending
        terms, docs, tfs = terms[order], docs[order], tfs[order]
        del order
        first = np.flatnonzero(np.diff(terms, prepend=-1))  # where each term's run starts
        counts = np.diff(first, append=len(terms))
        where = cursor[terms] + np.arange(len(terms)) - np.repeat(first, counts)
        cursor[terms[first]] += counts
        indices[where] = docs
        data[where], saturation = weights.weights(idf[terms], tfs, docs)
        if tfn is not None:
            tfn[where] = saturation
    return data, indices, indptr, tfn


def _stable_order(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values, kind="stable")`` of non-negative int32 values, in two radix passes
    of 16 bits (numpy radix-sorts 16-bit keys; a 32-bit stable sort is a merge sort)."""
    low = np.argsort((values & 0xFFFF).astype(np.uint16), kind="stable")
    if values.max(initial=0) < 1 << 16:
        return low
    return low[np.argsort((values[low] >> 16).astype(np.uint16), kind="stable")]


def default_workers(workers: int | None, total: int | None) -> int:
    """``workers``, or by default one process per core (at most 8) for 20,000 documents or
    more, else 1 (starting processes costs more than it saves on a small corpus)."""
    if workers is not None:
        return max(1, workers)
    if total is None or total < 20_000:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(cores or 1, 8))


_COUNTER: analysis.TermCounter | None = None


def _count_texts(texts: pa.Array):
    """(process id, new terms, distinct terms per doc, term ids, tfs, lengths) of a batch,
    counted in a worker process (its own term ids, kept from batch to batch)."""
    global _COUNTER
    if _COUNTER is None:
        _COUNTER = analysis.TermCounter()
    return (os.getpid(), *_COUNTER.count(texts.to_pylist()))


def _counted(batches: Iterable[pa.RecordBatch], workers: int) -> Generator:
    """(batch, counts) of every batch, in order; analysed in ``workers`` processes, at most
    two batches per process in flight (memory stays bounded however large the corpus), or in
    this one where a worker cannot be handed its connection (Windows) or started (no usable
    interpreter: a warning says so). A worker that dies is an error (:class:`WorkerError`)."""
    with contextlib.ExitStack() as stack:
        pool = None
        if workers > 1 and os.name == "posix":
            try:
                pool = stack.enter_context(Workers(workers))
            except WorkerError as exc:  # no usable interpreter: the work is done here instead
                logger.warning("%s; indexing in this process instead", exc)
        if pool is not None:
            yield from pool.ordered(_count_texts, batches, lambda batch: batch.column("text"))
            return
    counter = analysis.TermCounter()  # term ids of this index only
    for batch in batches:
        yield batch, (0, *counter.count(batch.column("text").to_pylist()))
