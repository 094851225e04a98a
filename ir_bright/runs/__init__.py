"""Runs: strict, bounded reading of any run shape into ``{query_id: {doc_id: score}}``.

:mod:`.read` is the entry point; :mod:`.files` opens run files (and stdin, pipes), reading them
within the bounds of :mod:`.bounds`, gzip through :mod:`.inflate`, lines through :mod:`.text`;
:mod:`.memory` reads runs given in memory; :mod:`.rows` holds what they share. Each module is
imported on first use of one of its names (ir_measures with :mod:`.read`).
"""

from .. import lazy

_EXPORTS = {
    **dict.fromkeys(
        [
            "MAX_GZIP_RATIO",
            "MAX_LINE_BYTES",
            "MAX_RUN_BYTES",
            "MAX_RUN_ENTRIES",
            "max_run_bytes",
            "max_run_entries",
        ],
        "bounds",
    ),
    **dict.fromkeys(["STDIN", "RunFile"], "files"),
    **dict.fromkeys(["RUN_COLUMNS", "frame_columns", "refuse_nul"], "memory"),
    **dict.fromkeys(
        [
            "PART_ENTRIES",
            "QueriesNotGrouped",
            "read_run",
            "read_run_parts",
            "run_label",
            "scored_docs",
            "streamable",
        ],
        "read",
    ),
    **dict.fromkeys(["CheckedRun", "query_spans"], "rows"),
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy.exports(__name__, _EXPORTS)
