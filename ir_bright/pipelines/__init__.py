"""The leaderboard's pipelines under the official protocol: reranking candidates
(:mod:`.reranking`), run fusion (:mod:`.fusion`) and user query sets (:mod:`.queries`). Each
works on any run ir_bright reads and writes runs every command scores.

The names below are importable from the package; each module is loaded on first use of one
of its names, so that the command line's parsers can read :mod:`.fusion`'s constants without
importing ir_datasets.
"""

from __future__ import annotations

from .. import lazy

_EXPORTS = {
    "CandidatesError": "reranking",
    "candidates": "reranking",
    "write_jsonl": "reranking",
    "FusionError": "fusion",
    "fuse": "fusion",
    "normalise": "fusion",
    "QueriesError": "queries",
    "query_texts": "queries",
    "with_queries": "queries",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy.exports(__name__, _EXPORTS)
