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
over :data:`~ir_bright.runs.bounds.MAX_LINE_BYTES`, a gzip file inflating to more than
:data:`~ir_bright.runs.bounds.MAX_GZIP_RATIO` times its size, more than
:data:`~ir_bright.runs.bounds.MAX_RUN_BYTES` of text (``IR_BRIGHT_MAX_RUN_BYTES`` overrides
it) and more than :data:`~ir_bright.runs.bounds.MAX_RUN_ENTRIES` entries
(``IR_BRIGHT_MAX_RUN_ENTRIES``), which bounds memory too, for a pipe that never ends as for a
file, are refused. Memory stays proportional to the run's rankings: the file is read in blocks
of whole lines, each split column-wise; a scorer reads a run file, a pipe or stdin in parts of
whole queries (:func:`read_run_parts`), keeping of each query only what its protocol uses, so
it holds one part at a time rather than the whole run (the entry cap then bounds what is kept,
not what is read). In runs
given in memory, ids holding a NUL are refused (pytrec_eval cuts a string at a NUL, so
``doc\\0junk`` would score as ``doc``).

A dict of dicts whose ids are text and scores finite floats is read, not copied: the result
holds the caller's inner dicts (do not change them while scoring).
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from ir_measures import ScoredDoc

from ..errors import RunFormatError
from .bounds import max_run_entries, too_many
from .entries import CheckedRun, Rows, add_span, query_spans
from .memory import frame_rows, read_mapping, record_rows
from .run_file import STDIN, RunFile, plain_chunks
from .text import block_rows, line_blocks

Keep = Callable[[str, dict[str, float]], Mapping[str, float]]
"""What :func:`read_run_parts` keeps of each query's docs (``keep(query_id, docs)``)."""

PART_ENTRIES = 1 << 17
"""About how many entries :func:`read_run_parts` puts in one part (some 15 MB of dicts)."""


def read_run(run: Any, name: str | None = None) -> CheckedRun:
    """Read a run of any supported shape strictly into ``{query_id: {doc_id: score}}``.

    Raises :class:`~ir_bright.errors.RunFormatError` for malformed lines (with file and line
    number), non-finite scores, repeated (query, doc) pairs and ids a scorer would misread.
    ``run`` may also be a :class:`~ir_bright.runs.run_file.RunFile`, read from its start.
    """
    name = name or run_label(run)
    if isinstance(run, Mapping):
        return read_mapping(run, name)
    ranked = CheckedRun()
    for rows in _row_blocks(run, name):
        pairs = zip(rows.doc_ids, rows.scores)
        for query_id, start, end in query_spans(rows.query_ids):
            ranked[query_id] = add_span(ranked.get(query_id), query_id, rows, start, end, pairs)
    ranked.owned = True
    return ranked


class QueriesNotGrouped(RunFormatError):
    """Raised by :func:`read_run_parts` when a query's lines resume after another query's:
    the run must then be read whole (:func:`read_run` merges the pieces)."""


def streamable(run: Any) -> bool:
    """Whether ``run`` names a run file :func:`read_run_parts` can read (a path or ``-``,
    not run text); open it as a :class:`~ir_bright.runs.run_file.RunFile` to read it again
    should its queries turn out not to be grouped (a pipe or stdin is read again from a copy).
    """
    if isinstance(run, str):
        return "\n" not in run and not os.path.isdir(run)  # a str with a line break is run text
    if isinstance(run, os.PathLike):
        return not os.path.isdir(os.fspath(run))  # a path may hold any character
    return False


def read_run_parts(
    path: str | os.PathLike[str] | RunFile,
    part_entries: int | None = None,
    keep: Keep | None = None,
) -> Iterator[CheckedRun]:
    """A run file (a path, ``-`` for stdin, or a :class:`~ir_bright.runs.run_file.RunFile`) read
    strictly, as :func:`read_run` reads it, in consecutive parts of whole queries (about
    ``part_entries`` entries each, :data:`PART_ENTRIES` by default), so a scorer holds one
    part at a time, whether the run comes from a file, a pipe or stdin.

    ``keep(query_id, docs)``, when given, is handed each query's docs as soon as its last line
    is read, and the part holds what it returns (a scorer keeps the part of the ranking its
    protocol can use): memory is then bounded by the queries times what is kept, whatever the
    run's length, and the entry cap (:func:`~ir_bright.runs.bounds.max_run_entries`) bounds
    what is held rather than what is read: the entries kept so far, plus those of the query
    being read (all held, to find a doc ranked twice).

    The lines of each query must come together, as every toolkit writes them; a query whose
    lines resume after another query's raises :class:`QueriesNotGrouped` (read the run
    whole with :func:`read_run` then).
    """
    part_entries = part_entries or PART_ENTRIES
    held_limit = max_run_entries() if keep is not None else None
    part, entries, kept_entries, seen = CheckedRun(), 0, 0, set()
    current_id: str | None = None
    current: dict[str, float] | None = None
    for rows in _file_rows(path, whole_run_cap=keep is None):
        pairs = zip(rows.doc_ids, rows.scores)
        for query_id, start, end in query_spans(rows.query_ids):
            if query_id != current_id:
                if query_id in seen:
                    raise QueriesNotGrouped(
                        f"{rows.place(start)}: the lines of query {query_id!r} are not together"
                    )
                if current_id is not None and current is not None:
                    kept = current if keep is None else keep(current_id, current)
                    part[current_id], entries = kept, entries + len(kept)
                    kept_entries += len(kept)
                seen.add(query_id)
                current_id, current = query_id, None
            current = add_span(current, query_id, rows, start, end, pairs)
            if held_limit is not None and kept_entries + len(current) > held_limit:
                raise too_many(run_label(path), held_limit)
        if entries >= part_entries:
            part.owned = True
            yield part
            part, entries = CheckedRun(), 0
    if current_id is not None and current is not None:
        part[current_id] = current if keep is None else keep(current_id, current)
    part.owned = True
    yield part


def scored_docs(run: Any, name: str | None = None) -> Iterator[ScoredDoc]:
    """The entries of a run file, run text or iterable of ScoredDoc, in their order (format,
    ids and scores checked, repeats not)."""
    name = name or run_label(run)
    if not isinstance(run, str | os.PathLike | RunFile):
        yield from iter(run)
        return
    for rows in _row_blocks(run, name):
        yield from map(ScoredDoc, rows.query_ids, rows.doc_ids, rows.scores)


def run_label(run: Any) -> str:
    """How messages name a run: its path, ``stdin``, ``run text``, ``run DataFrame`` or
    ``run``."""
    if isinstance(run, RunFile):
        return run.label
    if isinstance(run, str) and "\n" in run:
        return "run text"
    if isinstance(run, str | os.PathLike):
        return "stdin" if os.fspath(run) == STDIN else os.fspath(run)
    return "run DataFrame" if hasattr(run, "columns") else "run"


def _row_blocks(run: Any, name: str) -> Iterator[Rows]:
    if isinstance(run, str) and "\n" in run:  # the text of a run, as ir_measures accepts
        chunks = plain_chunks(io.BytesIO(run.encode("utf-8")), name)
        yield from block_rows(line_blocks(chunks, name), name)
    elif isinstance(run, str | os.PathLike | RunFile):
        yield from _file_rows(run)
    elif hasattr(run, "columns"):
        yield frame_rows(run, name)
    elif isinstance(run, Iterable):
        yield from record_rows(run, name)
    else:
        raise RunFormatError(
            f"{name}: a run must be a TREC run file, a DataFrame, ScoredDocs or a dict of "
            f"dicts, not {type(run).__name__}"
        )


def _file_rows(run: str | os.PathLike[str] | RunFile, whole_run_cap: bool = True) -> Iterator[Rows]:
    """The rows of a run file from its start (a path is opened here and closed after);
    ``whole_run_cap``: refuse more entries than the entry cap in the whole run."""
    if isinstance(run, RunFile):
        yield from run.rows(whole_run_cap)
        return
    with RunFile(run) as file:
        yield from file.rows(whole_run_cap)
