"""The leaderboard's pipelines under the official protocol: reranking candidates, run fusion
and user query sets. Each works on any run ir_bright reads and writes runs every command
scores."""

from .candidates import Candidate, CandidatesError, candidates, write_jsonl
from .fuse import FusionError, fuse, normalise, trec_order
from .queries import QueriesError, UserQueries, query_texts, read_queries, with_queries

__all__ = [
    "Candidate",
    "CandidatesError",
    "FusionError",
    "QueriesError",
    "UserQueries",
    "candidates",
    "fuse",
    "normalise",
    "query_texts",
    "read_queries",
    "trec_order",
    "with_queries",
    "write_jsonl",
]
