"""The bounds a run file is read within, so hostile or broken input fails early in one line
instead of exhausting memory or time."""

from __future__ import annotations

import os

from ..errors import RunFormatError

__all__ = [
    "BLOCK_BYTES",
    "LINE_FORMAT",
    "MAX_GZIP_RATIO",
    "MAX_LINE_BYTES",
    "MAX_RUN_BYTES",
    "RUN_BYTES_VARIABLE",
    "long_line",
    "max_run_bytes",
    "too_big",
]

MAX_LINE_BYTES = 64 * 1024
"""The longest run line accepted (a TREC run line is some 100 bytes)."""

MAX_GZIP_RATIO = 100
"""A gzip run may inflate to at most this many times its compressed size (runs inflate some
3 to 10 times; a "gzip bomb" of newlines inflates 1,000 times)."""

MAX_RUN_BYTES = 4 << 30
"""The most run text read (4 GiB, decompressed; a BRIGHT run cut to 1,000 documents per query
is well under 200 MB); ``IR_BRIGHT_MAX_RUN_BYTES`` (bytes) overrides it."""

RUN_BYTES_VARIABLE = "IR_BRIGHT_MAX_RUN_BYTES"
BLOCK_BYTES = 1 << 20  # run text is split in blocks of whole lines of about this size
LINE_FORMAT = "'query_id Q0 doc_id rank score run_name'"


def max_run_bytes() -> int:
    """The most run text read: :data:`MAX_RUN_BYTES`, or ``IR_BRIGHT_MAX_RUN_BYTES`` when set
    (a whole number of bytes, at least 1; anything else is refused naming the variable)."""
    value = os.environ.get(RUN_BYTES_VARIABLE, "").strip()
    if not value:
        return MAX_RUN_BYTES
    limit = int(value) if value.isascii() and value.isdigit() else 0
    if limit < 1:
        raise RunFormatError(
            f"{RUN_BYTES_VARIABLE}={value!r} is not a number of bytes: give a whole number of "
            "at least 1 (e.g. 8589934592), or unset it for the default of 4 GiB"
        )
    return limit


def too_big(label: str, limit: int) -> RunFormatError:
    """The error for a run of more than ``limit`` bytes of text."""
    return RunFormatError(
        f"{label}: over {limit:,} bytes of run text, more than a run needs: is it a run file? "
        f"(set {RUN_BYTES_VARIABLE} to read more)"
    )


def long_line(label: str, line: int) -> RunFormatError:
    """The error for line ``line`` being over :data:`MAX_LINE_BYTES`."""
    return RunFormatError(
        f"{label} line {line}: longer than {MAX_LINE_BYTES // 1024} KiB, which no run line is: "
        f"give TREC run lines {LINE_FORMAT}"
    )
