"""Runs: strict, bounded reading of any run shape into ``{query_id: {doc_id: score}}``.

:mod:`.read` is the entry point; :mod:`.run_file` opens run files (and stdin, pipes), reading them
within the bounds of :mod:`.bounds`, gzip through :mod:`.inflate`, lines through :mod:`.text`;
:mod:`.memory` reads runs given in memory; :mod:`.entries` holds what they share. Each module is
imported on first use of one of its names (ir_measures with :mod:`.read`).
"""

from .. import lazy

_EXPORTS = {
    "RunFile": "run_file",
    "max_run_bytes": "bounds",
    "max_run_entries": "bounds",
    "ranked_docs": "write",
    "read_run": "read",
    "read_run_parts": "read",
    "write_trec": "write",
}
"""The names for users, each imported from its module on first use; the package's own modules
import from the modules themselves."""

__all__ = sorted(_EXPORTS)

__getattr__ = lazy.exports(__name__, _EXPORTS)
