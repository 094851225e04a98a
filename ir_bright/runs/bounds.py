"""The bounds a run file is read within, so hostile or broken input fails early in one line
instead of exhausting memory or time: its lines, its bytes, its entries (what memory holds)."""

from __future__ import annotations

import os
import reprlib

from ..errors import RunFormatError

MAX_LINE_BYTES = 64 * 1024
"""The longest run line accepted (a TREC run line is some 100 bytes)."""

MAX_GZIP_RATIO = 100
"""A gzip run may inflate to at most this many times its compressed size (runs inflate some
3 to 10 times; a "gzip bomb" of newlines inflates 1,000 times)."""

MAX_RUN_BYTES = 4 << 30
"""The most run text read (4 GiB, decompressed; a BRIGHT run cut to 1,000 documents per query
is well under 200 MB); ``IR_BRIGHT_MAX_RUN_BYTES`` (bytes) overrides it."""

MAX_RUN_ENTRIES = 2_000_000
"""The most entries (ranked documents) read from one run's text, whatever its source: a file,
a pipe, a FIFO, stdin. Bytes alone do not bound memory: a run read whole holds some 120 to 170
bytes of Python objects per entry, so this caps one run at a few hundred MiB, ten times a
1,000-deep run of the largest dataset (194 queries); ``IR_BRIGHT_MAX_RUN_ENTRIES`` overrides
it."""

RUN_BYTES_VARIABLE = "IR_BRIGHT_MAX_RUN_BYTES"
RUN_ENTRIES_VARIABLE = "IR_BRIGHT_MAX_RUN_ENTRIES"
BLOCK_BYTES = 1 << 20  # run text is split in blocks of whole lines of about this size
LINE_FORMAT = "'query_id Q0 doc_id rank score run_name'"


def _whole_number(variable: str, default: int, unit: str, example: str, default_text: str) -> int:
    """``variable``'s value, a whole number of ``unit`` of at least 1, or ``default`` when it
    is unset; anything else is refused naming the variable."""
    value = os.environ.get(variable, "").strip()
    if not value:
        return default
    digits = value.lstrip("0")
    # past 18 digits no machine has the bytes, and int() refuses 4,300 digits and more
    limit = int(digits or "0") if value.isascii() and value.isdigit() and len(digits) <= 18 else 0
    if limit < 1:
        raise RunFormatError(
            f"{variable}={reprlib.repr(value)} is not a number of {unit}: give a whole number "
            f"of at least 1 and at most 18 digits (e.g. {example}), or unset it for the default "
            f"of {default_text}"
        )
    return limit


def max_run_bytes() -> int:
    """The most run text read: :data:`MAX_RUN_BYTES`, or ``IR_BRIGHT_MAX_RUN_BYTES`` when set
    (a whole number of bytes, at least 1; anything else is refused naming the variable)."""
    return _whole_number(RUN_BYTES_VARIABLE, MAX_RUN_BYTES, "bytes", "8589934592", "4 GiB")


def max_run_entries() -> int:
    """The most entries read from one run's text: :data:`MAX_RUN_ENTRIES`, or
    ``IR_BRIGHT_MAX_RUN_ENTRIES`` when set (a whole number, at least 1)."""
    default = f"{MAX_RUN_ENTRIES:,}"
    return _whole_number(RUN_ENTRIES_VARIABLE, MAX_RUN_ENTRIES, "entries", "10000000", default)


def too_big(label: str, limit: int) -> RunFormatError:
    """The error for a run of more than ``limit`` bytes of text."""
    return RunFormatError(
        f"{label}: over {limit:,} bytes of run text, more than a run needs: is it a run file? "
        f"(set {RUN_BYTES_VARIABLE} to read more)"
    )


def too_many(label: str, limit: int) -> RunFormatError:
    """The error for a run of more than ``limit`` entries."""
    return RunFormatError(
        f"{label}: over {limit:,} entries, more than a run needs (and some 150 bytes of memory "
        f"each): is it a run file? (set {RUN_ENTRIES_VARIABLE} to read more)"
    )


def long_line(label: str, line: int) -> RunFormatError:
    """The error for line ``line`` being over :data:`MAX_LINE_BYTES`."""
    return RunFormatError(
        f"{label} line {line}: longer than {MAX_LINE_BYTES // 1024} KiB, which no run line is: "
        f"give TREC run lines {LINE_FORMAT}"
    )
