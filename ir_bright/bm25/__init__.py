"""The BRIGHT BM25 baseline, in process: Lucene's English analysis, a BM25 index, TREC runs."""

from .index import (
    ANALYSIS,
    DEFAULT_K,
    DEFAULT_PARAMS,
    LUCENE_STOP_WORDS,
    RUN_TAG,
    BM25Index,
    BM25Params,
    RankedDoc,
    analyze,
    excluded_ids,
    index_folder,
    index_for,
    query_texts,
    retrieve,
    top_rows,
    write_trec,
)

__all__ = [
    "ANALYSIS",
    "DEFAULT_K",
    "DEFAULT_PARAMS",
    "LUCENE_STOP_WORDS",
    "RUN_TAG",
    "BM25Index",
    "BM25Params",
    "RankedDoc",
    "analyze",
    "excluded_ids",
    "index_folder",
    "index_for",
    "query_texts",
    "retrieve",
    "top_rows",
    "write_trec",
]
