"""Runs: strict, bounded reading of any run shape into ``{query_id: {doc_id: score}}``."""

from .read import (
    MAX_GZIP_RATIO,
    MAX_LINE_BYTES,
    MAX_RUN_BYTES,
    PART_ENTRIES,
    RUN_COLUMNS,
    STDIN,
    CheckedRun,
    QueriesNotGrouped,
    frame_columns,
    query_spans,
    read_run,
    read_run_parts,
    refuse_nul,
    run_label,
    scored_docs,
    streamable,
)

__all__ = [
    "MAX_GZIP_RATIO",
    "MAX_LINE_BYTES",
    "MAX_RUN_BYTES",
    "PART_ENTRIES",
    "RUN_COLUMNS",
    "STDIN",
    "CheckedRun",
    "QueriesNotGrouped",
    "frame_columns",
    "query_spans",
    "read_run",
    "read_run_parts",
    "refuse_nul",
    "run_label",
    "scored_docs",
    "streamable",
]
