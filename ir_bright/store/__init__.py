"""Local storage: parquet reading, the random-access Arrow store, docs components, derived
cache files, counts, and the validation of hub files.

Modules: :mod:`.parquet` (reading), :mod:`.arrow` with :mod:`.arrow_file` and
:mod:`.arrow_mapped` (the Arrow store), :mod:`.docs` (ir_datasets docs components),
:mod:`.derived` (how a derived file is written, checked and rebuilt), :mod:`.counts`,
:mod:`.schema` (hub files checked before use), :mod:`.json_rows` (JSON rows files, corpora
rewritten into parquet).

The names below are importable from the package; each module is loaded on first use of one
of its names (the package itself imports none of them).
"""

from __future__ import annotations

from .. import lazy

_EXPORTS = {
    "ArrowStore": "arrow",
    "ParquetDocs": "docs",
    "read_batches": "parquet",
    "read_row_range": "parquet",
    "shard_rows": "parquet",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy.exports(__name__, _EXPORTS)
