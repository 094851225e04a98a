"""Runs: strict, bounded reading of any run shape into ``{query_id: {doc_id: score}}``.

:mod:`.read` is the entry point; :mod:`.files` opens run files (and stdin, pipes), reading them
within the bounds of :mod:`.bounds`, gzip through :mod:`.inflate`, lines through :mod:`.text`;
:mod:`.memory` reads runs given in memory; :mod:`.rows` holds what they share.
"""

from .bounds import (
    MAX_GZIP_RATIO,
    MAX_LINE_BYTES,
    MAX_RUN_BYTES,
    MAX_RUN_ENTRIES,
    max_run_bytes,
    max_run_entries,
)
from .files import STDIN, RunFile
from .memory import RUN_COLUMNS, frame_columns, refuse_nul
from .read import (
    PART_ENTRIES,
    QueriesNotGrouped,
    read_run,
    read_run_parts,
    run_label,
    scored_docs,
    streamable,
)
from .rows import CheckedRun, query_spans

__all__ = [
    "MAX_GZIP_RATIO",
    "MAX_LINE_BYTES",
    "MAX_RUN_BYTES",
    "MAX_RUN_ENTRIES",
    "PART_ENTRIES",
    "RUN_COLUMNS",
    "STDIN",
    "CheckedRun",
    "QueriesNotGrouped",
    "RunFile",
    "frame_columns",
    "max_run_bytes",
    "max_run_entries",
    "query_spans",
    "read_run",
    "read_run_parts",
    "refuse_nul",
    "run_label",
    "scored_docs",
    "streamable",
]
