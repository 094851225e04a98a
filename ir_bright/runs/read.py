"""Strict, bounded reading of runs into ``{query_id: {doc_id: score}}``.

A run is any of:

- a TREC run file path (plain or gzip, detected from its first bytes; ``-`` is stdin), lines
  ``query_id Q0 doc_id rank score run_name``, or the text of such a file (a string holding a
  newline, as ir_measures accepts);
- a pandas DataFrame with ir_measures columns (``query_id``, ``doc_id``, ``score``) or
  PyTerrier columns (``qid``, ``docno``, ``score``); ids that are not text (integer query ids)
  are read as text;
- an iterable of ``ScoredDoc`` (any namedtuple with ``query_id``, ``doc_id``, ``score``),
  e.g. a list, a generator or ``ir_measures.read_trec_run(...)``;
- a dict of dicts ``{query_id: {doc_id: score}}``.

Every problem raises :class:`~ir_bright.errors.RunFormatError` naming the file and line (or
row, record, query): a line without exactly six columns, a score that is not a number, a NaN or
infinite score, a (query, doc) pair given twice; a run file that is empty, binary, not UTF-8,
a damaged gzip file or unreadable. Duplicates are refused rather than resolved because
trec_eval itself refuses them ("duplicate docs"), a run cannot rank one document at two
places, and ir_measures would silently keep the last score.

Run files are read within bounds, so hostile or broken input fails early in one line instead
of exhausting memory or time: a control character (NUL included) anywhere in a line, a line
over :data:`MAX_LINE_BYTES`, a gzip file inflating to more than :data:`MAX_GZIP_RATIO` times
its size, and more than :data:`MAX_RUN_BYTES` of text (``IR_BRIGHT_MAX_RUN_BYTES`` overrides
it) are refused. Memory stays proportional to the run's rankings: the file is read in blocks
of whole lines, each split column-wise; a scorer reads a run file in parts of whole queries
(:func:`read_run_parts`), so it holds one part at a time rather than the whole run. In runs
given in memory, ids holding a NUL are refused (pytrec_eval cuts a string at a NUL, so
``doc\\0junk`` would score as ``doc``).

A dict of dicts whose ids are text and scores finite floats is read, not copied: the result
holds the caller's inner dicts (do not change them while scoring).
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from itertools import groupby, repeat
from operator import attrgetter, contains, itemgetter
from typing import Any, NamedTuple

from ir_measures import ScoredDoc

from ..errors import RunFormatError

__all__ = [
    "MAX_GZIP_RATIO",
    "MAX_LINE_BYTES",
    "MAX_RUN_BYTES",
    "RUN_COLUMNS",
    "STDIN",
    "CheckedRun",
    "QueriesNotGrouped",
    "read_run",
    "read_run_parts",
    "refuse_nul",
    "run_label",
    "scored_docs",
    "streamable",
]

RUN_COLUMNS = (("query_id", "doc_id", "score"), ("qid", "docno", "score"))
"""The column names a run DataFrame may use: ir_measures' or PyTerrier's."""

STDIN = "-"
"""The run path that means standard input (``ir-bright bm25 ID | ir-bright evaluate ID -``)."""

MAX_LINE_BYTES = 64 * 1024
"""The longest run line accepted (a TREC run line is some 100 bytes)."""

MAX_GZIP_RATIO = 100
"""A gzip run may inflate to at most this many times its compressed size (runs inflate some
3 to 10 times; a "gzip bomb" of newlines inflates 1,000 times)."""

MAX_RUN_BYTES = 4 << 30
"""The most run text read (4 GiB, decompressed; a BRIGHT run cut to 1,000 documents per query
is well under 200 MB); ``IR_BRIGHT_MAX_RUN_BYTES`` (bytes) overrides it."""

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"
BLOCK_BYTES = 1 << 20  # run text is split in blocks of whole lines of about this size
PART_ENTRIES = 1 << 17
"""About how many entries :func:`read_run_parts` puts in one part (some 15 MB of dicts)."""
_GZIP_READ = 1 << 16
_RATIO_GRACE = 16 << 20  # the ratio is checked once this much text has come out
_SNIFF = 8192  # a NUL in the first bytes means a binary file, not a damaged line
_CONTROL = bytes([*range(0, 9), *range(14, 32), 127])  # ASCII controls but \t \n \v \f \r
_CONTROL_RE = re.compile(b"[" + re.escape(_CONTROL) + b"]")
_NUL = "\0"
_FLOAT = {float}
LINE_FORMAT = "'query_id Q0 doc_id rank score run_name'"


class CheckedRun(dict):
    """A run read by :func:`read_run`: ids are text without NUL, scores finite floats, so a
    scorer need not check them again. ``owned``: its dicts were made by read_run (not the
    caller's)."""

    owned = False


class Rows(NamedTuple):
    """Columns of run entries, ``place(i)`` saying where entry ``i`` came from."""

    query_ids: list[str]
    doc_ids: list[str]
    scores: list[float]
    place: Callable[[int], str]


def read_run(run: Any, name: str | None = None) -> CheckedRun:
    """Read a run of any supported shape strictly into ``{query_id: {doc_id: score}}``.

    Raises :class:`~ir_bright.errors.RunFormatError` for malformed lines (with file and line
    number), non-finite scores, repeated (query, doc) pairs and ids a scorer would misread.
    """
    name = name or run_label(run)
    if isinstance(run, Mapping):
        return _read_mapping(run, name)
    ranked = CheckedRun()
    for rows in _row_blocks(run, name):
        _add_rows(ranked, rows)
    ranked.owned = True
    return ranked


class QueriesNotGrouped(RunFormatError):
    """Raised by :func:`read_run_parts` when a query's lines resume after another query's:
    the file must then be read whole (:func:`read_run` merges the pieces)."""


def streamable(run: Any) -> bool:
    """Whether ``run`` is a run file :func:`read_run_parts` can read, and read again should
    its queries turn out not to be grouped: a regular file (not stdin, a pipe or run text)."""
    if not isinstance(run, str | os.PathLike):
        return False
    path = os.fspath(run)
    return path != STDIN and "\n" not in path and os.path.isfile(path)


def read_run_parts(
    path: str | os.PathLike, part_entries: int | None = None
) -> Iterator[CheckedRun]:
    """A run file read strictly, as :func:`read_run` reads it, in consecutive parts of whole
    queries (about ``part_entries`` entries each, :data:`PART_ENTRIES` by default), so a
    scorer holds one part at a time.

    The lines of each query must come together, as every toolkit writes them; a query whose
    lines resume after another query's raises :class:`QueriesNotGrouped` (read the file
    whole with :func:`read_run` then).
    """
    part_entries = part_entries or PART_ENTRIES
    part, entries, seen = CheckedRun(), 0, set()
    current_id, current = None, None
    for rows in _file_rows(os.fspath(path)):
        for query_id, start, end in query_spans(rows.query_ids):
            if query_id != current_id:
                if query_id in seen:
                    raise QueriesNotGrouped(
                        f"{rows.place(start)}: the lines of query {query_id!r} are not together"
                    )
                if current_id is not None and current is not None:
                    part[current_id], entries = current, entries + len(current)
                seen.add(query_id)
                current_id, current = query_id, None
            current = _add_span(current, query_id, rows, start, end)
        if entries >= part_entries:
            part.owned = True
            yield part
            part, entries = CheckedRun(), 0
    part[current_id] = current
    part.owned = True
    yield part


def scored_docs(run: Any, name: str | None = None) -> Iterator[ScoredDoc]:
    """The entries of a run file, run text or iterable of ScoredDoc, in their order (format,
    ids and scores checked, repeats not)."""
    name = name or run_label(run)
    if not isinstance(run, str | os.PathLike):
        yield from iter(run)
        return
    for rows in _row_blocks(run, name):
        yield from map(ScoredDoc, rows.query_ids, rows.doc_ids, rows.scores)


def run_label(run: Any) -> str:
    """How messages name a run: its path, ``run text``, ``run DataFrame`` or ``run``."""
    if isinstance(run, str) and "\n" in run:
        return "run text"
    if isinstance(run, str | os.PathLike):
        return os.fspath(run)
    return "run DataFrame" if hasattr(run, "columns") else "run"


def refuse_nul(ranked: Mapping[Any, Mapping[Any, Any]], name: str) -> None:
    """Refuse a dict-of-dicts run whose query or doc ids hold a NUL character.

    pytrec_eval reads ids as C strings, so ``doc\\0junk`` would score as ``doc``. The check
    joins the ids (C speed); ids that are not text are left to the scorer to refuse; a
    :class:`CheckedRun` was checked when it was read.
    """
    if isinstance(ranked, CheckedRun):
        return
    try:
        joined = map("".join, ranked.values())  # one query at a time: no copy of the run
        if _NUL not in "".join(ranked) and not any(map(contains, joined, repeat(_NUL))):
            return
    except TypeError:
        return
    for query_id, docs in ranked.items():
        _refuse_nul_ids(query_id, docs, name)


def _refuse_nul_ids(query_id: Any, docs: Iterable[Any], name: str) -> None:
    for doc_id in (query_id, *docs):
        if isinstance(doc_id, str) and _NUL in doc_id:
            what = "query id" if doc_id is query_id else f"query {query_id!r} doc id"
            raise RunFormatError(f"{name}: {what} {doc_id!r} {_NUL_WHY}")


_NUL_WHY = "holds a NUL character (pytrec_eval would cut it there and score another id)"


# -- in-memory runs -------------------------------------------------------------------------


def _read_mapping(run: Mapping[Any, Mapping[Any, Any]], name: str) -> CheckedRun:
    ranked = CheckedRun()
    for query_id, docs in run.items():
        if _clean_docs(query_id, docs):
            ranked[query_id] = docs  # read, not copied
            continue
        where = f"{name} query {query_id!r} doc "
        query_id = str(query_id)
        ranked[query_id] = {str(d): _score(s, f"{where}{d!r}") for d, s in docs.items()}
        _refuse_nul_ids(query_id, ranked[query_id], name)
    return ranked


def _clean_docs(query_id: Any, docs: Mapping[Any, Any]) -> bool:
    """Whether one query of a dict-of-dicts run can be scored as it is: a dict of text ids
    without NUL and finite float scores (checked at C speed; joining fails on other ids)."""
    scores = docs.values()
    try:
        return (
            type(docs) is dict
            and type(query_id) is str
            and _NUL not in query_id
            and set(map(type, scores)) <= _FLOAT
            and math.isfinite(sum(scores))
            and _NUL not in "".join(docs)
        )
    except TypeError:
        return False


def _row_blocks(run: Any, name: str) -> Iterator[Rows]:
    if isinstance(run, str) and "\n" in run:  # the text of a run, as ir_measures accepts
        yield from _text_rows(run, name)
    elif isinstance(run, str | os.PathLike):
        yield from _file_rows(os.fspath(run))
    elif hasattr(run, "columns"):
        yield _frame_rows(run, name)
    elif isinstance(run, Iterable):
        yield _record_rows(run, name)
    else:
        raise RunFormatError(
            f"{name}: a run must be a TREC run file, a DataFrame, ScoredDocs or a dict of "
            f"dicts, not {type(run).__name__}"
        )


def frame_columns(frame: Any, name: str) -> tuple[str, str, str]:
    """The (query, doc, score) column names of a run DataFrame, or an error naming them."""
    for columns in RUN_COLUMNS:
        if all(c in frame.columns for c in columns):
            return columns
    raise RunFormatError(
        f"{name}: needs columns query_id, doc_id, score (or qid, docno, score); "
        f"found {', '.join(map(str, frame.columns))}"
    )


def _frame_rows(frame: Any, name: str) -> Rows:
    query_col, doc_col, score_col = frame_columns(frame, name)

    def place(i: int) -> str:
        return f"{name} row {frame.index[i]!r}"

    return Rows(
        _ids(frame[query_col].tolist(), place),
        _ids(frame[doc_col].tolist(), place),
        _scores(frame[score_col].tolist(), place),
        place,
    )


def _record_rows(records: Iterable[Any], name: str) -> Rows:
    records = records if isinstance(records, list | tuple) else list(records)

    def place(i: int) -> str:
        return f"{name} record {i + 1}"

    try:
        columns = [list(map(attrgetter(f), records)) for f in ("query_id", "doc_id", "score")]
    except AttributeError:
        for i, record in enumerate(records):
            if not all(hasattr(record, f) for f in ("query_id", "doc_id", "score")):
                raise RunFormatError(
                    f"{place(i)}: expected a ScoredDoc (query_id, doc_id, score), "
                    f"got {type(record).__name__}"
                ) from None
        raise
    query_ids, doc_ids, scores = columns
    return Rows(_ids(query_ids, place), _ids(doc_ids, place), _scores(scores, place), place)


def _ids(values: list[Any], place: Callable[[int], str]) -> list[str]:
    """``values`` as text (C speed when they are already), refusing a NUL in any."""
    try:
        joined = "".join(values)  # one pass: text check (join takes only str) and NUL check
    except TypeError:
        values = list(map(str, values))
        joined = "".join(values)
    if _NUL in joined:
        i = next(i for i, v in enumerate(values) if _NUL in v)
        raise RunFormatError(f"{place(i)}: id {values[i]!r} {_NUL_WHY}")
    return values


def _scores(values: list[Any], place: Callable[[int], str]) -> list[float]:
    """``values`` as finite floats: checked at C speed when they are floats already."""
    if set(map(type, values)) <= _FLOAT and math.isfinite(sum(values)):
        return values
    return [_score(v, place(i)) for i, v in enumerate(values)]


def _score(value: Any, where: str) -> float:
    """``value`` as a finite float, or an error naming ``where`` it is."""
    try:
        score = float(value)
    except (TypeError, ValueError):
        raise RunFormatError(f"{where}: score {value!r} is not a number") from None
    if not math.isfinite(score):
        raise RunFormatError(f"{where}: score {value} is not finite; give every doc a real score")
    return score


def query_spans(query_ids: Iterable[str]) -> Iterator[tuple[str, int, int]]:
    """``(query_id, start, end)`` of each run of equal query ids: a run's lines come query by
    query, so a query's entries are sliced out of the columns in one piece."""
    start = 0
    for query_id, group in groupby(query_ids):
        end = start + len(list(group))
        yield query_id, start, end
        start = end


def _add_rows(ranked: CheckedRun, rows: Rows) -> None:
    """Add each query's entries (runs of equal query ids at a time), refusing repeats."""
    for query_id, start, end in query_spans(rows.query_ids):
        ranked[query_id] = _add_span(ranked.get(query_id), query_id, rows, start, end)


def _add_span(
    found: dict[str, float] | None, query_id: str, rows: Rows, start: int, end: int
) -> dict[str, float]:
    """Query ``query_id``'s docs so far (``found``; None before its first line) with the
    entries ``start:end`` of ``rows`` added, refusing a doc given twice."""
    docs = dict(zip(rows.doc_ids[start:end], rows.scores[start:end]))
    if len(docs) != end - start or (found and not found.keys().isdisjoint(docs)):
        _refuse_repeat(found or {}, query_id, rows, start, end)
    if not found:
        return docs
    found.update(docs)
    return found


def _refuse_repeat(found: Mapping[str, float], query_id: str, rows: Rows, start: int, end: int):
    seen = set(found)
    for i in range(start, end):
        doc_id = rows.doc_ids[i]
        if doc_id in seen:
            raise RunFormatError(
                f"{rows.place(i)}: query {query_id!r} ranks doc {doc_id!r} twice; keep one "
                "line per query and doc (trec_eval refuses duplicates)"
            )
        seen.add(doc_id)


# -- run files and run text -----------------------------------------------------------------


def _text_rows(text: str, name: str) -> Iterator[Rows]:
    import io

    blocks = _line_blocks(_plain_chunks(io.BytesIO(text.encode("utf-8")), name), name)
    yield from _block_rows(blocks, name)


def _file_rows(path: str) -> Iterator[Rows]:
    """The rows of a run file (plain or gzip, detected from its first bytes; ``-`` is stdin),
    block by block. The file is opened once, so pipes and ``<(zcat run.gz)`` work; an empty
    file, a binary file, a damaged gzip file and an unreadable one are refused naming it."""
    label = "stdin" if path == STDIN else path
    found = False
    try:
        with contextlib.ExitStack() as stack:
            raw: Any = sys.stdin.buffer if path == STDIN else stack.enter_context(open(path, "rb"))
            if raw.peek(2)[:2] == GZIP_MAGIC:
                chunks = _gzip_chunks(raw, label)
            else:
                _refuse_oversized(raw, label)
                chunks = _plain_chunks(raw, label)
            for rows in _block_rows(_line_blocks(chunks, label), label):
                found = found or bool(rows.query_ids)
                yield rows
    except FileNotFoundError:
        raise RunFormatError(f"{label}: no such run file") from None
    except IsADirectoryError:
        raise RunFormatError(f"{label}: is a folder, not a run file") from None
    except (EOFError, zlib.error) as exc:
        raise RunFormatError(
            f"{label}: damaged gzip file ({_one_line(exc)}): compress the run again "
            f"(`gzip -t {label}` checks a file)"
        ) from None
    except PermissionError as exc:
        raise RunFormatError(
            f"{label}: cannot read it ({exc.strerror or 'permission denied'}): make it "
            "readable, e.g. chmod a+r"
        ) from None
    except OSError as exc:
        reason = exc.strerror or _one_line(exc)
        raise RunFormatError(f"{label}: cannot read it ({reason})") from None
    if not found:
        raise RunFormatError(
            f"{label}: the run file is empty (no ranking lines): was it written completely?"
        )


def max_run_bytes() -> int:
    """The most run text read: :data:`MAX_RUN_BYTES` or ``IR_BRIGHT_MAX_RUN_BYTES``."""
    value = os.environ.get("IR_BRIGHT_MAX_RUN_BYTES", "").strip()
    if not value:
        return MAX_RUN_BYTES
    try:
        return int(value)
    except ValueError:
        raise RunFormatError(
            f"IR_BRIGHT_MAX_RUN_BYTES={value!r} is not a number of bytes (e.g. 8589934592)"
        ) from None


def _too_big(label: str, limit: int) -> RunFormatError:
    return RunFormatError(
        f"{label}: over {limit:,} bytes of run text, more than a run needs: is it a run file? "
        "(set IR_BRIGHT_MAX_RUN_BYTES to read more)"
    )


def _refuse_oversized(raw: Any, label: str) -> None:
    with contextlib.suppress(OSError, AttributeError, ValueError):
        size = os.fstat(raw.fileno()).st_size
        if size > max_run_bytes():
            raise _too_big(label, max_run_bytes())


def _plain_chunks(raw: Any, label: str) -> Iterator[bytes]:
    limit, total = max_run_bytes(), 0
    while chunk := raw.read(BLOCK_BYTES):
        total += len(chunk)
        if total > limit:
            raise _too_big(label, limit)
        yield chunk


def _gzip_chunks(raw: Any, label: str) -> Iterator[bytes]:
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
                raise _too_big(label, limit)
            if produced > _RATIO_GRACE and produced > MAX_GZIP_RATIO * consumed:
                raise RunFormatError(
                    f"{label}: inflates to over {MAX_GZIP_RATIO} times its compressed size, "
                    "which no run does (a gzip bomb?): give the run file itself"
                )
            yield out
    if started:
        raise EOFError("Compressed file ended before the end-of-stream marker was reached")


def _line_blocks(chunks: Iterable[bytes], label: str) -> Iterator[tuple[int, bytes]]:
    """``(number of its first line, block of whole lines)``; lines over the limit refused
    before they are held whole, a binary file (a NUL in its first bytes, which do not start
    with a run line) refused from its first bytes."""
    tail, line = b"", 1
    for chunk in chunks:
        if line == 1 and not tail:
            opening = chunk[:_SNIFF].split(b"\n", 1)[0]
            if b"\0" in chunk[:_SNIFF] and (b"\0" in opening or len(opening.split()) != 6):
                raise RunFormatError(
                    f"{label}: not a text or gzip run file (binary data): give TREC run lines "
                    f"{LINE_FORMAT}"
                )
            if chunk.startswith(UTF8_BOM):
                chunk = chunk[len(UTF8_BOM) :]
        end = chunk.rfind(b"\n") + 1
        if not end:
            tail += chunk
            if len(tail) > MAX_LINE_BYTES:
                raise _long_line(label, line)
            continue
        block, tail = tail + chunk[:end], chunk[end:]
        yield line, block
        line += block.count(b"\n")
        if len(tail) > MAX_LINE_BYTES:
            raise _long_line(label, line)
    if tail:
        yield line, tail


def _long_line(label: str, line: int) -> RunFormatError:
    return RunFormatError(
        f"{label} line {line}: longer than {MAX_LINE_BYTES // 1024} KiB, which no run line is: "
        f"give TREC run lines {LINE_FORMAT}"
    )


def _block_rows(blocks: Iterable[tuple[int, bytes]], label: str) -> Iterator[Rows]:
    for first, block in blocks:
        yield _parse_block(block, first, label)


def _parse_block(block: bytes, first: int, label: str) -> Rows:
    """The rows of a block of whole lines, split column-wise at C speed; the slow search for
    the culprit runs only when a check fails."""
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
    lines = text.count("\n") + (not text.endswith("\n"))
    tokens = (text.replace("\n", " \0 ") + ("" if text.endswith("\n") else " \0")).split()
    if len(tokens) != 7 * lines or tokens[6::7].count(_NUL) != lines:
        return _parse_lines(text, first, label)  # blank lines, or a line to refuse
    return _rows(tokens[0::7], tokens[2::7], tokens[4::7], lambda i: f"{label} line {first + i}")


def _refuse_long_lines(block: bytes, first: int, label: str) -> None:
    """Refuse a line over :data:`MAX_LINE_BYTES`: each window of that size must hold a line
    end, and the next window starts after the last one (a few searches per block)."""
    start = 0
    while len(block) - start > MAX_LINE_BYTES:
        end = block.rfind(b"\n", start, start + MAX_LINE_BYTES + 1)
        if end < 0:
            raise _long_line(label, first + block.count(b"\n", 0, start))
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


def _rows(query_ids: list[str], doc_ids: list[str], values: list[str], place) -> Rows:
    try:
        scores = list(map(float, values))
    except ValueError:
        scores = [_score(v, place(i)) for i, v in enumerate(values)]
    if not math.isfinite(sum(scores)):
        scores = [_score(v, place(i)) for i, v in enumerate(values)]
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


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
