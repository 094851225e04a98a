"""TREC run text, ``query_id Q0 doc_id rank score run_name`` lines, parsed block by block.

Blocks of whole lines are split column-wise at C speed; the slow search for the culprit runs
only when a check fails: a control character (NUL included) anywhere in a line, a line over
:data:`~ir_bright.runs.bounds.MAX_LINE_BYTES`, a line without six columns, text that is not
UTF-8, a binary file (a NUL in its first bytes). A run of more entries than
:func:`~ir_bright.runs.bounds.max_run_entries` is refused as its blocks come.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator
from operator import itemgetter

from ..errors import RunFormatError
from .bounds import LINE_FORMAT, MAX_LINE_BYTES, long_line, max_run_entries, too_many
from .entries import NUL, Rows, score

UTF8_BOM = b"\xef\xbb\xbf"
_SNIFF = 8192  # a NUL in the first bytes means a binary file, not a damaged line
_CONTROL = bytes([*range(0, 9), *range(14, 32), 127])  # ASCII controls but \t \n \v \f \r
_CONTROL_RE = re.compile(b"[" + re.escape(_CONTROL) + b"]")


def line_blocks(chunks: Iterable[bytes], label: str) -> Iterator[tuple[int, bytes, int]]:
    """``(number of its first line, block of whole lines, number of line ends in it)``; lines
    over the limit refused before they are held whole, a binary file (a NUL in its first
    bytes, which do not start with a run line) refused from its first bytes."""
    tail, line = b"", 1
    for chunk in chunks:
        if line == 1 and not tail:
            chunk = _opening(chunk, label)
        end = chunk.rfind(b"\n") + 1
        if not end:
            tail += chunk
            if len(tail) > MAX_LINE_BYTES:
                raise long_line(label, line)
            continue
        block, tail = tail + chunk[:end], chunk[end:]
        ends = block.count(b"\n")
        yield line, block, ends
        line += ends
        if len(tail) > MAX_LINE_BYTES:
            raise long_line(label, line)
    if tail:
        yield line, tail, 0


def _opening(chunk: bytes, label: str) -> bytes:
    """The first chunk of a run, its byte order mark dropped; a binary file refused."""
    opening = chunk[:_SNIFF].split(b"\n", 1)[0]
    if b"\0" in chunk[:_SNIFF] and (b"\0" in opening or len(opening.split()) != 6):
        raise RunFormatError(
            f"{label}: not a text or gzip run file (binary data): give TREC run lines {LINE_FORMAT}"
        )
    return chunk[len(UTF8_BOM) :] if chunk.startswith(UTF8_BOM) else chunk


def block_rows(
    blocks: Iterable[tuple[int, bytes, int]], label: str, capped: bool = True
) -> Iterator[Rows]:
    """The rows of each block of whole lines, refusing more entries than
    :func:`~ir_bright.runs.bounds.max_run_entries` (one block past it at most is parsed)
    unless ``capped`` is false."""
    limit, entries = max_run_entries() if capped else 0, 0
    for first, block, ends in blocks:
        rows = _parse_block(block, first, label, ends)
        entries += len(rows.query_ids)
        if capped and entries > limit:
            raise too_many(label, limit)
        yield rows


def _parse_block(block: bytes, first: int, label: str, ends: int) -> Rows:
    """The rows of a block of whole lines (``ends`` line ends), split column-wise at C speed;
    the slow search for the culprit runs only when a check fails."""
    if len(block.translate(None, _CONTROL)) != len(block):
        _refuse_control(block, first, label)
    _refuse_long_lines(block, first, label)
    try:
        text = block.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = block.rfind(b"\n", 0, exc.start) + 1
        number = first + block.count(b"\n", 0, exc.start)
        raise RunFormatError(
            f"{label} line {number}: not a text or gzip run file (not UTF-8: {exc.reason} at "
            f"byte {exc.start - start} of the line)"
        ) from None
    # One split of the whole block, each line end marked by a NUL token (no NUL is left in
    # the text): six columns on every line puts a mark at every seventh token.
    lines = ends + (not text.endswith("\n"))
    tokens = (text.replace("\n", " \0 ") + ("" if text.endswith("\n") else " \0")).split()
    if len(tokens) != 7 * lines or tokens[6::7].count(NUL) != lines:
        return _parse_lines(text, first, label)  # blank lines, or a line to refuse
    return _rows(tokens[0::7], tokens[2::7], tokens[4::7], lambda i: f"{label} line {first + i}")


def _refuse_long_lines(block: bytes, first: int, label: str) -> None:
    """Refuse a line over :data:`MAX_LINE_BYTES`: each window of that size must hold a line
    end, and the next window starts after the last one (a few searches per block)."""
    start = 0
    while len(block) - start > MAX_LINE_BYTES:
        end = block.rfind(b"\n", start, start + MAX_LINE_BYTES + 1)
        if end < 0:
            raise long_line(label, first + block.count(b"\n", 0, start))
        start = end + 1


def _parse_lines(text: str, first: int, label: str) -> Rows:
    """The rows of a block line by line, skipping blank lines, refusing other columns."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    rows, numbers = [], []
    for number, line in enumerate(lines, first):
        row = line.split()
        if row and len(row) != 6:
            raise RunFormatError(
                f"{label} line {number}: expected 6 columns {LINE_FORMAT}, found {len(row)}"
            )
        if row:
            rows.append(row)
            numbers.append(number)
    query_ids, doc_ids, values = (list(map(itemgetter(i), rows)) for i in (0, 2, 4))
    return _rows(query_ids, doc_ids, values, lambda i: f"{label} line {numbers[i]}")


def _rows(
    query_ids: list[str], doc_ids: list[str], values: list[str], place: Callable[[int], str]
) -> Rows:
    try:
        scores = list(map(float, values))
    except ValueError:
        scores = [score(v, place(i)) for i, v in enumerate(values)]
    if not math.isfinite(sum(scores)):
        scores = [score(v, place(i)) for i, v in enumerate(values)]
    return Rows(query_ids, doc_ids, scores, place)


def _refuse_control(block: bytes, first: int, label: str) -> None:
    found = _CONTROL_RE.search(block)
    assert found is not None  # called only when the block holds a control character
    position = found.start()
    start = block.rfind(b"\n", 0, position) + 1
    end = block.find(b"\n", position)
    fields = block[start : end if end >= 0 else len(block)].split()
    column = next(i for i, field in enumerate(fields) if _CONTROL_RE.search(field))
    what = {0: "query id", 2: "doc id"}.get(column, f"column {column + 1}")
    value = fields[column].decode("utf-8", "replace")
    number = first + block.count(b"\n", 0, position)
    raise RunFormatError(
        f"{label} line {number}: the {what} {value!r} holds a "
        f"control character {chr(block[position])!r}: ids must be printable text (pytrec_eval "
        "would cut an id at a NUL and score another id)"
    )
