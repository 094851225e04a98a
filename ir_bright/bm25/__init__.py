"""The BM25 baseline, in process: Lucene's English analysis, a BM25 index, TREC runs.

Modules, lowest first: :mod:`.analysis` (text -> terms), :mod:`.params` (parameters and their
checks), :mod:`.lucene` (Lucene's one-byte norms), :mod:`.weights` (document-side BM25),
:mod:`.workers` (worker processes), :mod:`.build` (postings from a stream of batches),
:mod:`.topk` (top-k selection), :mod:`.index` (the index: build, save, load, search),
:mod:`.cache` (the index cache), :mod:`.run` (runs over a dataset's queries). Each module is
imported on first use of one of its names, so the command line's parsers read :mod:`.params`
without NumPy.
"""

from .. import lazy

_EXPORTS = {
    "BM25Index": "index",
    "BM25Params": "params",
    "DEFAULT_PARAMS": "params",
    "analyze": "analysis",
    "index_folder": "cache",
    "index_for": "cache",
    "retrieve": "run",
}
"""The names for users (runs are written with :func:`ir_bright.runs.write_trec`), each
imported from its module on first use."""

__all__ = sorted(_EXPORTS)

__getattr__ = lazy.exports(__name__, _EXPORTS)
