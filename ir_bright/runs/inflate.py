"""Gzip run files inflated in bounded blocks, refusing a stream that inflates beyond reason
(a "gzip bomb") or past the run byte cap."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Any

from ..errors import RunFormatError
from .bounds import BLOCK_BYTES, MAX_GZIP_RATIO, max_run_bytes, too_big

GZIP_MAGIC = b"\x1f\x8b"
_GZIP_READ = 1 << 16
_RATIO_GRACE = 16 << 20  # the ratio is checked once this much text has come out


def gzip_chunks(raw: Any, label: str) -> Iterator[bytes]:
    """The inflated bytes of a gzip stream (members one after another, zero padding ignored,
    as gzip does), refusing a stream that inflates beyond reason."""
    limit, consumed, produced = max_run_bytes(), 0, 0
    inflater, started, pending = zlib.decompressobj(wbits=31), False, b""
    while True:
        if not pending:
            pending = raw.read(_GZIP_READ)
            if not pending:
                break
            consumed += len(pending)
        if not started:
            pending = pending.lstrip(b"\0")
            started = bool(pending)
            if not started:
                continue
        out = inflater.decompress(pending, BLOCK_BYTES)
        pending = inflater.unconsumed_tail
        if inflater.eof:
            pending = inflater.unused_data + pending
            inflater, started = zlib.decompressobj(wbits=31), False
        if out:
            produced += len(out)
            if produced > limit:
                raise too_big(label, limit)
            if produced > _RATIO_GRACE and produced > MAX_GZIP_RATIO * consumed:
                raise RunFormatError(
                    f"{label}: inflates to over {MAX_GZIP_RATIO} times its compressed size, "
                    "which no run does (a gzip bomb?): give the run file itself"
                )
            yield out
    if started:
        raise EOFError("Compressed file ended before the end-of-stream marker was reached")
