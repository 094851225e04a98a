"""Hub files of rows in JSON or JSON Lines, and corpora rewritten once into the parquet file
every docs reader serves.

Some benchmarks publish JSON Lines (R2MED) or shards in several formats (BRIGHT-Pro). Their
rows are read here, each field checked against the types it may have, and a corpus is
rewritten once into one parquet file (columns ``id``, ``content``) so that the shared parquet
machinery (checked batches, the memory-mapped store, BM25 indexes) serves it as BRIGHT's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CacheError, unwritable_cache
from ..reading import open_regular, parse_json
from . import derived
from .lock import file_lock

if TYPE_CHECKING:
    import pyarrow as pa

BATCH_ROWS = 50_000
"""Rows per batch, and so per row group, of a rewritten corpus: the memory-mapped store builds
about twice as fast from row groups of 50,000 rows as from 4,096 (benchmarks/bench_families.py
measured it on an R2MED task)."""
REWRITTEN_KIND = "ir_bright.rewritten-corpus"
REWRITTEN_VERSION = 1


def json_rows(path: Path) -> Iterator[dict[str, Any]]:
    """Rows of a JSON file holding a list of objects, or of JSON Lines (told by the first
    character that is not white space), each parsed within bounds
    (:func:`~ir_bright.reading.parse_json`); a file that is neither, or not a regular file,
    is a one-line error."""
    try:
        with open_regular(path) as file:
            first = file.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
            file.seek(0)
            if first == b"[":
                rows = parse_json(file.read(), str(path))
                yield from (_object(row, path, i) for i, row in enumerate(rows, 1))
                return
            for number, line in enumerate(file, 1):
                if line.strip():
                    row = parse_json(line, f"{path}, line {number}")
                    yield _object(row, path, number)
    except ValueError as exc:
        raise CacheError(
            f"cannot read {path} as JSON or JSON Lines ({' '.join(str(exc).split())[:200]}): "
            "delete it and run again to fetch it anew"
        ) from exc


def _object(row: Any, path: Path, number: int) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise CacheError(f"{path}: row {number} is not an object: not a file of rows")
    return row


def field(row: dict[str, Any], name: str, path: Path, types: tuple[type, ...] | None = None) -> Any:
    """``row[name]``, or a one-line error naming the file when the row has no such field or
    its value is of none of ``types`` (``None`` types: anything)."""
    if name not in row:
        raise CacheError(
            f"{path}: a row without {name!r} (it has {', '.join(row)}): not the hub's file? "
            "delete it and run again to fetch it anew"
        )
    value = row[name]
    if types is not None and not isinstance(value, types):
        expected = " or ".join("null" if t is type(None) else t.__name__ for t in types)
        raise CacheError(
            f"{path}: {name!r} of a row is {type(value).__name__} {str(value)[:40]!r}, not "
            f"{expected}: not the hub's file? delete it and run again to fetch it anew"
        )
    return value


def write_docs(target: Path, batches: Iterable[pa.RecordBatch]) -> None:
    """Write ``batches`` (columns ``id``, ``content``) as the parquet file ``target``, whole
    or not at all; a full or read-only disk is a one-line error."""
    import pyarrow.parquet as pq

    try:
        with (
            derived.replaced_atomically(target) as out,
            pq.ParquetWriter(out, docs_schema()) as writer,
        ):
            for batch in batches:
                writer.write_batch(batch)
    except OSError as exc:
        raise unwritable_cache(target, exc) from exc


def docs_schema() -> pa.Schema:
    """The rewritten corpus' schema: ``id`` and ``content``, text."""
    import pyarrow as pa

    return pa.schema([("id", pa.string()), ("content", pa.string())])


def doc_batches(pairs: Iterable[tuple[str, str]]) -> Iterator[pa.RecordBatch]:
    """``(id, content)`` pairs as record batches of the rewritten corpus' schema."""
    import pyarrow as pa

    schema = docs_schema()
    ids: list[str] = []
    texts: list[str] = []
    for doc_id, text in pairs:
        ids.append(doc_id)
        texts.append(text)
        if len(ids) == BATCH_ROWS:
            yield pa.RecordBatch.from_arrays([pa.array(ids), pa.array(texts)], schema=schema)
            ids, texts = [], []
    if ids:
        yield pa.RecordBatch.from_arrays([pa.array(ids), pa.array(texts)], schema=schema)


class RewrittenCorpus:
    """A corpus as the single parquet file ``ParquetDocs`` reads: ``write(sources, target)``
    builds it once, under a lock, from the verified hub files ``sources()`` fetches, at the
    path ``target()`` gives (asked each time: ``IR_DATASETS_HOME`` may change). Its manifest
    (:mod:`.derived`) records the sources' identity: a corpus rewritten from other copies of
    them, or damaged, is rewritten with one warning; ``companions`` name files ``write`` puts
    beside it (``<target name><companion>``), which the manifest covers too. It is a
    :class:`~ir_bright.hub.HubFileLike` whose hub files are ``hub_files()``'s."""

    def __init__(
        self,
        target: Callable[[], Path],
        sources: Callable[[], list[Any]],
        write: Callable[[list[Path], Path], None],
        hub_files: Callable[[], list[Any]] | None = None,
        companions: tuple[str, ...] = (),
    ):
        self._target = target
        self._sources = sources
        self._write = write
        self._hub_files = hub_files or sources
        self._companions = companions

    @property
    def local_path(self) -> Path:
        """Where the rewritten corpus is (or will be)."""
        return self._target()

    @property
    def path(self) -> str:
        """Its name, for messages."""
        return self.local_path.name

    def companion(self, suffix: str) -> Path:
        """Where its companion file ``suffix`` is (or will be)."""
        target = self.local_path
        return target.with_name(target.name + suffix)

    def shared(self) -> RewrittenCorpus:
        """Itself."""
        return self

    def cached_path(self) -> Path | None:
        """The rewritten corpus if built, else None."""
        return self.local_path if self.local_path.is_file() else None

    def is_cached(self) -> bool:
        """Whether the rewritten corpus exists."""
        return self.local_path.is_file()

    def hub_files(self) -> list[Any]:
        """The hub files the corpus is rewritten from (or stand-ins until they are known)."""
        return self._hub_files()

    def fetch(self) -> Path:
        """The rewritten corpus, downloading and rewriting first if needed."""
        target = self.local_path
        sources = [file.fetch() for file in self._sources()]
        files = {
            target.name: target,
            **{target.name + c: self.companion(c) for c in self._companions},
        }
        if target.is_file() and _problem(target, files, sources) is None:
            return target
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise unwritable_cache(target.parent, exc) from exc
        with file_lock(target):
            problem = _problem(target, files, sources)
            if problem is not None:
                if target.exists():
                    derived.rebuild_warning(target, problem)
                self._write(sources, target)
                extra = {"sources": [derived.source_identity(path) for path in sources]}
                derived.write_manifest(
                    target, REWRITTEN_KIND, REWRITTEN_VERSION, None, files, extra
                )
        return target


def _problem(target: Path, files: dict[str, Path], sources: list[Path]) -> str | None:
    """What is wrong with a rewritten corpus (None: intact and rewritten from ``sources``)."""
    if not target.is_file():
        return "not built"
    manifest, problem = derived.check(
        target, REWRITTEN_KIND, REWRITTEN_VERSION, None, files, whole=False
    )
    if manifest is None:
        return problem
    if manifest.get("sources") != [derived.source_identity(path) for path in sources]:
        return "rewritten from other copies of its hub files"
    return None
