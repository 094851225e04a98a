"""The BRIGHT BM25 baseline, in process: Lucene's English analysis, a BM25 index, TREC runs.

Modules, lowest first: :mod:`.analysis` (text -> terms), :mod:`.params` (parameters and their
checks), :mod:`.lucene` (Lucene's one-byte norms), :mod:`.weights` (document-side BM25),
:mod:`.workers` (worker processes), :mod:`.build` (postings from a stream of batches),
:mod:`.topk` (top-k selection), :mod:`.index` (the index: build, save, load, search),
:mod:`.cache` (the index cache), :mod:`.run` (runs over a dataset's queries).
"""

from .analysis import ANALYSIS, analyze
from .analysis import STOP_WORDS as LUCENE_STOP_WORDS
from .cache import index_folder, index_for
from .index import BM25Index
from .lucene import lucene_norm_bytes, lucene_norm_lengths
from .params import DEFAULT_K, DEFAULT_PARAMS, RUN_TAG, BM25Params, Mode, official_mode
from .run import RankedDoc, excluded_ids, query_texts, retrieve, write_trec
from .topk import top_rows

__all__ = [
    "ANALYSIS",
    "DEFAULT_K",
    "DEFAULT_PARAMS",
    "LUCENE_STOP_WORDS",
    "Mode",
    "RUN_TAG",
    "BM25Index",
    "BM25Params",
    "RankedDoc",
    "analyze",
    "excluded_ids",
    "index_folder",
    "index_for",
    "lucene_norm_bytes",
    "lucene_norm_lengths",
    "official_mode",
    "query_texts",
    "retrieve",
    "top_rows",
    "write_trec",
]
