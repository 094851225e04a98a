"""The BM25 index cache: one index per corpus file and parameters, built once, checked on use.

An index lives in ``<docs parquet>.bm25/<key>/``, where the key names the analysis and the
exact parameters (:meth:`BM25Params.key`); datasets with the same docs file (BRIGHT's aops and
theoremqa-questions) share it. Its folder is written under a lock as ``<key>.part`` and renamed
into place after its manifest (:mod:`ir_bright.store.derived`), so an interrupted build leaves
nothing a later run trusts; a damaged or outdated index is rebuilt with one warning.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from ..errors import unwritable_cache
from ..store import derived
from ..store.exclusive import refuse_symlink
from ..store.lock import file_lock
from .index import INDEX_KIND, INDEX_VERSION, BM25Index, index_files
from .params import DEFAULT_PARAMS, BM25Params

logger = logging.getLogger(__name__)


def index_folder(dataset: Any, params: BM25Params = DEFAULT_PARAMS) -> Path:
    """Where the index of ``dataset``'s corpus with ``params`` is cached."""
    try:
        docs = Path(dataset.docs_path(force=False))
    except (AttributeError, TypeError, NotImplementedError):
        from ..hub import cache_home

        name = re.sub(r"[^\w.-]+", "__", dataset_id(dataset))
        return cache_home() / "ir_bright" / "bm25" / name / params.key()
    return docs.with_name(docs.name + ".bm25") / params.key()


def index_for(
    dataset: Any, params: BM25Params = DEFAULT_PARAMS, progress: bool = True
) -> BM25Index:
    """The BM25 index of a dataset's corpus: loaded from the cache, or built and cached."""
    from .. import registry

    dataset = registry.load(dataset)
    params = params.checked()
    folder = index_folder(dataset, params)
    source = _source(dataset)
    if folder.exists() and _index_problem(folder, source) is None:
        index = BM25Index.load(folder)
        logger.info("using the cached BM25 index %s", folder)
        return index
    refuse_symlink(folder.parent)  # the index folder is ours: never a link
    with contextlib.ExitStack() as locked:
        try:
            folder.parent.mkdir(parents=True, exist_ok=True)
            locked.enter_context(file_lock(folder))
        except OSError as exc:
            raise unwritable_cache(folder.parent, exc, "the BM25 index folder") from exc
        problem = _index_problem(folder, source)
        if folder.exists() and problem is None:  # built by another process meanwhile
            return BM25Index.load(folder)
        if folder.exists() or folder.is_symlink():
            derived.rebuild_warning(folder, problem or "incomplete")
            _remove(folder)
        _build_into(folder, dataset, params, progress)
    return BM25Index.load(folder)


def _build_into(folder: Path, dataset: Any, params: BM25Params, progress: bool) -> None:
    """Build the index and write it to ``<folder>.part``, renamed to ``folder`` once whole;
    on any error or signal the partial folder is removed (the caller holds the lock)."""
    logger.info("indexing %s with BM25 (once; cached in %s)", dataset_id(dataset), folder)
    index = BM25Index.build(_doc_batches(dataset), params, total=_count(dataset), progress=progress)
    partial = folder.with_name(folder.name + ".part")
    _remove(partial)  # a killed build's leftover
    try:
        index.save(partial, _source(dataset))  # fetched by now
        os.replace(partial, folder)
    except OSError as exc:
        _remove(partial)
        raise unwritable_cache(folder, exc, "the BM25 index") from exc
    except BaseException:
        _remove(partial)
        raise


def _index_problem(folder: Path, source: Path | None) -> str | None:
    """What is wrong with a cached index folder (None when intact or absent)."""
    if folder.is_symlink():
        return "a symbolic link"
    if not folder.exists():
        return None
    if not folder.is_dir():
        return "not a folder"
    _, problem = derived.check(folder, INDEX_KIND, INDEX_VERSION, source, index_files(folder))
    return problem


def _remove(path: Path) -> None:
    """Remove a file, a link (not its target) or a folder."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def _source(dataset: Any) -> Path | None:
    """The cached docs file the index is built from, when the dataset has one."""
    try:
        path = Path(dataset.docs_path(force=False))
    except (AttributeError, TypeError, NotImplementedError):
        return None
    return path if path.is_file() else None


def _count(dataset: Any) -> int | None:
    try:
        return dataset.docs_count()
    except Exception:  # noqa: BLE001 - a count is only for the progress bar
        return None


def _doc_batches(dataset: Any, batch_size: int = 8192) -> Iterator[pa.RecordBatch]:
    """The corpus as Arrow batches (doc_id, text): every row of its file (``docs_rows_arrow``,
    as the benchmarks' code indexes them), else ``docs_arrow``, else the docs themselves."""
    docs_arrow = getattr(dataset, "docs_rows_arrow", None) or getattr(dataset, "docs_arrow", None)
    if docs_arrow is not None:
        for batch in docs_arrow(batch_size):
            yield batch.select(["doc_id", "text"]) if batch.num_columns > 2 else batch
        return
    ids, texts = [], []
    for doc in dataset.docs_iter():
        ids.append(doc.doc_id)
        texts.append(getattr(doc, "text", None) or getattr(doc, "default_text", lambda: "")())
        if len(ids) == batch_size:
            yield pa.record_batch([pa.array(ids), pa.array(texts)], names=["doc_id", "text"])
            ids, texts = [], []
    if ids:
        yield pa.record_batch([pa.array(ids), pa.array(texts)], names=["doc_id", "text"])


def dataset_id(dataset: Any) -> str:
    """The id of a dataset object (its ``dataset_id``), for messages and folder names."""
    value = getattr(dataset, "dataset_id", None)
    if callable(value):
        value = value()
    return str(value or dataset)
