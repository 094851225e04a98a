"""Every hub file checked before use: column names and types, ids, texts, repeated ids.

A config's columns are declared as a :data:`Spec` (column -> :class:`Column`). The first time
a file is read, :func:`checked` checks it against its spec and refuses it with a one-line
:class:`InvalidFileError` naming the file, the column and the first offending row:

- **Types**, from the parquet footer: ids and texts are text (``string``); a query id may
  also be an integer (it is read as its decimal text, in queries and qrels alike, which come
  from the same rows); id lists are lists of text; image bytes are binary.
- **Ids** are never null or empty and hold no white space (a TREC run, which separates its
  columns by white space, could not carry them). Texts are never null unless the column is
  declared nullable. Text is valid UTF-8 wherever a column read holds it, nested in lists and
  structs too (a column of any other kind included): every text a reader decodes was checked,
  so a bad byte is this module's one-line error, never a reader's UnicodeDecodeError.
- **Repeated ids** (a document id, or a query id, on more than one row): the **first** row
  of each id wins, every later one is dropped, by every reader (docs, queries, qrels, the
  Arrow store), so no (query, doc) pair is ever yielded twice. One warning per file and
  process gives the count.

A file that passes is remembered in ``<file>.checked.json`` (a derived file, see
:mod:`.derived`: the check is redone when the file changes); a file that fails is never
marked as checked, so every later use refuses it again until it is replaced.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from .. import lazy
from ..errors import CacheError
from . import derived
from .lock import file_lock
from .parquet import BATCH_ROWS, open_parquet, read_batches, read_columns, read_row_range

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.compute as pc
else:
    pa = lazy.module("pyarrow")
    pc = lazy.module("pyarrow.compute")

logger = logging.getLogger(__name__)

ID, QUERY_ID, TEXT, IDS, BYTES, OTHER = "id", "query id", "text", "id list", "bytes", "other"
KIND = "ir_bright.hub-file-check"
VERSION = 2  # 2: text nested in any column read is checked as UTF-8
_FIX = "not the hub's file? delete it and run again to fetch it anew"


class InvalidFileError(CacheError):
    """A cached hub file whose columns or values are not what its config declares."""


@dataclass(frozen=True)
class Column:
    """What one column of a config holds: its ``kind``, whether a value may be null, and
    whether the column may be missing altogether (read as all null)."""

    kind: str
    nullable: bool = False
    optional: bool = False


Spec = Mapping[str, Column]


@dataclass(frozen=True)
class Checked:
    """The verdict on a file that passed: its row count and the rows that repeat an id."""

    rows: int
    repeated: tuple[int, ...]

    def keep(self, batch: pa.RecordBatch, start: int) -> pa.RecordBatch:
        """``batch`` (whose first row is row ``start`` of the file) without repeated rows."""
        drop = [row - start for row in self.repeated if start <= row < start + batch.num_rows]
        if not drop:
            return batch
        mask = [True] * batch.num_rows
        for row in drop:
            mask[row] = False
        return batch.filter(pa.array(mask))


def checked(path: Path, spec: Spec) -> Checked:
    """The verdict on ``path`` against ``spec``, checking the file first if this copy of it
    was never checked (a warning when rows repeat an id, once per file and process)."""
    stat = os.stat(path)
    return _checked(str(path), stat.st_size, stat.st_mtime_ns, _key(spec))


def known(path: Path, spec: Spec) -> Checked | None:
    """The remembered verdict on ``path``, or None when this copy was never checked (no
    check is run)."""
    return _remembered(path, _key(spec))


def cached_unique_rows(hub_file, spec: Spec) -> int | None:
    """The rows of a cached hub file less its repeats once it was checked, else its footer's
    row count; None when it is not cached (nothing is downloaded or checked here)."""
    path = hub_file.cached_path()
    if path is None:
        return None
    verdict = known(path, spec)
    if verdict is not None:
        return verdict.rows - len(verdict.repeated)
    return open_parquet(path).metadata.num_rows


def _key(spec: Spec) -> str:
    return json.dumps({name: vars(column) for name, column in spec.items()})


def _stamp(path: Path) -> Path:
    return path.with_name(path.name + ".checked.json")


def _remembered(path: Path, key: str) -> Checked | None:
    stamp = _stamp(path)
    manifest, _ = derived.check(stamp, KIND, VERSION, path, {}, manifest=stamp)
    if manifest is None or manifest.get("spec") != key:
        return None
    rows, repeated = manifest.get("rows"), manifest.get("repeated")
    if not isinstance(rows, int) or not isinstance(repeated, list):
        return None
    return Checked(rows, tuple(repeated))


@cache
def _checked(path_text: str, size: int, mtime_ns: int, key: str) -> Checked:
    path = Path(path_text)
    verdict = _remembered(path, key)
    if verdict is None:
        spec = {name: Column(**column) for name, column in json.loads(key).items()}
        verdict = _check_file(path, spec)
        _remember(_stamp(path), path, key, verdict)
    if verdict.repeated:
        logger.warning(
            "%s: %d rows repeat an id of an earlier row (first at row %d): the first row of "
            "each id is used, the repeats are dropped",
            path,
            len(verdict.repeated),
            verdict.repeated[0],
        )
    return verdict


def _remember(stamp: Path, path: Path, key: str, verdict: Checked) -> None:
    extra = {"spec": key, "rows": verdict.rows, "repeated": list(verdict.repeated)}
    try:
        with file_lock(stamp):
            derived.write_manifest(stamp, KIND, VERSION, path, {}, extra, manifest=stamp)
    except OSError as exc:  # a read-only cache: checked again next time
        logger.debug("cannot remember the check of %s: %s", path, exc)


def _check_file(path: Path, spec: Spec) -> Checked:
    """Check the footer's types, then every value that a kind constrains, batch by batch."""
    parquet = open_parquet(path)
    try:
        present = parquet.schema_arrow
        rows = parquet.metadata.num_rows
    finally:
        parquet.close()
    columns = [name for name in spec if name in present.names]
    missing = [name for name in spec if name not in present.names and not spec[name].optional]
    if missing:
        raise InvalidFileError(
            f"{path} has no column {', '.join(missing)} (it has {', '.join(present.names)}): "
            + _FIX
        )
    for name in columns:
        _check_type(path, name, present.field(name).type, spec[name])
    read = [name for name in columns if _needs_values(spec[name])]
    key = next((name for name in columns if spec[name].kind in (ID, QUERY_ID)), None)
    seen: set = set()
    repeated: list[int] = []
    start = 0
    for batch in read_batches(path, read) if read else ():
        for name in read:
            _check_values(path, name, batch.column(name), spec[name], start)
        if key is not None:
            for offset, value in enumerate(batch.column(key).to_pylist()):
                if value in seen:
                    repeated.append(start + offset)
                else:
                    seen.add(value)
        start += batch.num_rows
    return Checked(rows, tuple(repeated))


_EXPECTED = {
    ID: "text",
    QUERY_ID: "text or an integer",
    TEXT: "text",
    IDS: "a list of text",
    BYTES: "binary",
}


def _type_ok(kind: str, arrow_type: pa.DataType) -> bool:
    text = pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type)
    if kind in (ID, TEXT):
        return text
    if kind == QUERY_ID:
        return text or pa.types.is_integer(arrow_type)
    if kind == IDS:
        if not (pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type)):
            return False
        item = arrow_type.value_type
        return pa.types.is_string(item) or pa.types.is_large_string(item) or pa.types.is_null(item)
    if kind == BYTES:
        return pa.types.is_binary(arrow_type) or pa.types.is_large_binary(arrow_type)
    return True


def _check_type(path: Path, name: str, arrow_type: pa.DataType, column: Column) -> None:
    if pa.types.is_null(arrow_type) and column.nullable:
        return  # every value null: allowed where nulls are
    if not _type_ok(column.kind, arrow_type):
        raise InvalidFileError(
            f"{path}: column {name} holds {arrow_type}, not {_EXPECTED[column.kind]} "
            f"(from row 0): {_FIX}"
        )


def _needs_values(column: Column) -> bool:
    return column.kind != BYTES or not column.nullable  # binary data holds no text


def _holds_text(arrow_type: pa.DataType) -> bool:
    """Whether values of ``arrow_type`` hold text at any depth (lists, structs, maps)."""
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return True
    if pa.types.is_dictionary(arrow_type):
        return _holds_text(arrow_type.value_type)
    return any(_holds_text(arrow_type.field(i).type) for i in range(arrow_type.num_fields))


def _check_values(path: Path, name: str, values: pa.Array, column: Column, start: int) -> None:
    """Nulls, UTF-8 and the id rules of one batch's column (``start``: its first row)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not column.nullable and values.null_count:
        row = start + _first(pc.is_null(values))
        raise InvalidFileError(f"{path}: column {name}, row {row}: null, {_must(column)}: {_FIX}")
    if _holds_text(values.type):
        _check_utf8(path, name, values, start)
    if column.kind in (ID, QUERY_ID) and (
        pa.types.is_string(values.type) or pa.types.is_large_string(values.type)
    ):
        bad = pc.or_(pc.match_substring_regex(values, r"\s"), pc.equal(values, ""))
        if pc.any(bad).as_py():
            at = _first(bad)
            raise InvalidFileError(
                f"{path}: column {name}, row {start + at}: the id {values[at].as_py()!r} is "
                "empty or holds white space, which no TREC run can carry: replace the file "
                "(or fix the id upstream)"
            )


def _must(column: Column) -> str:
    return "an id is never null" if column.kind in (ID, QUERY_ID) else "a value is required"


def _first(mask: pa.Array) -> int:
    """The index of the first true value of a boolean array (nulls are false)."""
    return int(pc.index(pc.fill_null(mask, False), True).as_py())


def _check_utf8(path: Path, name: str, values: pa.Array, start: int) -> None:
    try:
        values.validate(full=True)
    except pa.ArrowInvalid:
        for index in range(len(values)):
            try:
                values[index].as_py()
            except UnicodeDecodeError:
                raise InvalidFileError(
                    f"{path}: column {name}, row {start + index}: not valid UTF-8 text: {_FIX}"
                ) from None
        raise InvalidFileError(f"{path}: column {name}: malformed values: {_FIX}") from None


def checked_columns(path: Path, spec: Spec, columns: Sequence[str]) -> dict[str, list]:
    """``{column: its values}`` of a small checked file, repeated rows dropped; a column the
    spec allows to be missing reads as all None."""
    verdict = checked(path, spec)
    names = set(open_parquet(path).schema_arrow.names)
    present = [name for name in columns if name in names]
    values = read_columns(path, present)
    drop = set(verdict.repeated)
    empty = [None] * verdict.rows
    return {
        name: [value for row, value in enumerate(values.get(name, empty)) if row not in drop]
        for name in columns
    }


def checked_rows(path: Path, spec: Spec | None = None) -> list[dict]:
    """Every row of a small checked file as a dict of plain values, repeated rows dropped;
    without ``spec``, each of its columns may hold anything, nulls included (its text is
    checked all the same)."""
    if spec is None:
        parquet = open_parquet(path)
        try:
            spec = {name: Column(OTHER, nullable=True) for name in parquet.schema_arrow.names}
        finally:
            parquet.close()
    values = checked_columns(path, spec, list(spec))
    return [dict(zip(values, row)) for row in zip(*values.values())]


def checked_batches(
    path: Path,
    spec: Spec,
    columns: Sequence[str],
    batch_size: int = BATCH_ROWS,
    repeats: bool = False,
) -> Iterator[pa.RecordBatch]:
    """The record batches of a checked file, repeated rows dropped (kept with ``repeats``: a
    BM25 index counts every row, as the benchmarks' own code does)."""
    verdict = checked(path, spec)
    batches = read_batches(path, columns, batch_size)
    yield from batches if repeats else _kept(verdict, batches, 0)


def checked_row_range(
    path: Path,
    spec: Spec,
    columns: Sequence[str],
    start: int,
    stop: int,
    batch_size: int = BATCH_ROWS,
) -> Iterator[pa.RecordBatch]:
    """Rows ``[start, stop)`` of a checked file, repeated rows dropped."""
    verdict = checked(path, spec)
    yield from _kept(verdict, read_row_range(path, columns, start, stop, batch_size), start)


def _kept(verdict: Checked, batches: Iterable[pa.RecordBatch], start: int):
    for batch in batches:
        kept = verdict.keep(batch, start) if verdict.repeated else batch
        start += batch.num_rows
        if kept.num_rows:
            yield kept
