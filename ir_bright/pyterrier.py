"""PyTerrier integration; PyTerrier itself is imported only when one of these is used.

``drop_excluded_transformer(dataset)`` removes from a result frame the documents each query
excludes, for pipelines that want a clean run (``Official(...)`` measures do not need it).
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from functools import cache
from typing import Any

from . import registry
from .bm25.params import DEFAULT_PARAMS
from .errors import require
from .scoring.scorer import excluded_docs, without
from .upstream import irds_dataset_class

__all__ = ["drop_excluded_transformer"]


def drop_excluded_transformer(dataset: Any) -> Any:
    """A ``pt.Transformer`` dropping each query's excluded documents from a result frame.

    ``dataset`` is an id, an ir_datasets dataset or a PyTerrier one (``pt.get_dataset``); its
    exclusions are read on first use and kept. Rows keep their order and columns; ``rank`` (if
    present) is recomputed per query. An empty frame (PyTerrier's validation call) is returned
    as it is, without reading anything.
    """
    return _transformer_class()(dataset)


@cache
def _transformer_class() -> type:
    pt = require("pyterrier", "pyterrier")

    transformer: Any = pt.Transformer

    class DropExcluded(transformer):
        """Drops each query's excluded documents (qrels below 0) from a result frame."""

        def __init__(self, dataset: Any):
            super().__init__()
            self.dataset = registry.load(dataset)
            self._excluded: Mapping[str, AbstractSet[str]] | None = None

        def transform(self, inp: Any) -> Any:
            """The input frame without its excluded (qid, docno) rows."""
            if not len(inp):
                return inp
            excluded = self._excluded
            if excluded is None:
                excluded = self._excluded = excluded_docs(self.dataset)
            out = without(inp, excluded)
            if "rank" in out.columns and "score" in out.columns and len(out):
                by_query = out.groupby("qid", sort=False)["score"]
                ranks = by_query.rank(ascending=False, method="first").astype("int64")
                out = out.assign(rank=ranks - 1 + pt.model.FIRST_RANK)
            return out

        def transform_outputs(self, input_columns: list[str]) -> list[str]:
            """The same columns as the input (for ``pt.inspect``)."""
            return list(input_columns)

        def __repr__(self) -> str:
            return f"DropExcluded({_name(self.dataset)!r})"

    return DropExcluded


# -- dataset provider and the BM25 baseline (ir_bright.bm25) ----------------------------------
#
# ``pt.get_dataset("irds:bright/biology")`` works once ir_bright is imported (the id is
# registered with ir_datasets). The ``pyterrier.dataset_provider`` entry point ``bright``
# (setup.cfg) makes ``pt.get_dataset("bright:biology")`` work with no import; its topics
# default to the query text (``text``), its qrels carry ``label`` (excluded documents -100).


class BrightDatasetProvider:
    """PyTerrier's dataset provider for ``bright:<name>``.

    ``<name>`` is a BRIGHT id without its ``bright/`` prefix (``biology``,
    ``pony-long/gpt4-reason``) or any full ir_bright id (``mm-bright/academia/task1``).
    """

    def get_dataset(self, name: str) -> Any:
        """The dataset for ``name``; unknown names raise ``KeyError`` (PyTerrier's contract)."""
        from . import registry
        from .errors import DatasetNotFoundError

        registry.register()
        ids = set(registry.our_ids())
        dataset_id = name if name in ids else f"bright/{name}"
        if dataset_id not in ids:
            try:
                registry.load(dataset_id)
            except DatasetNotFoundError as exc:
                raise KeyError(str(exc)) from None
        return _dataset_class()(dataset_id)

    def list_dataset_names(self) -> list[str]:
        """Every name this provider answers (ids without the ``bright/`` prefix)."""
        from . import registry

        registry.register()
        return [i.removeprefix("bright/") for i in registry.our_ids() if "/" in i]


@cache
def _dataset_class() -> type:
    require("pyterrier", "pyterrier")

    class BrightDataset(irds_dataset_class()):  # type: ignore[misc]
        """An ir_datasets-backed PyTerrier dataset whose topics default to the query text."""

        def __init__(self, irds_id: str):
            super().__init__(irds_id)
            self.irds_id = irds_id  # the base class keeps it under a private name

        def get_topics(self, variant: str | None = None, tokenise_query: Any = None) -> Any:
            """Topics ``qid, query``; ``query`` is the ``text`` field unless ``variant``. The
            text alone reads only the files it comes from (no ``*_reason`` downloads)."""
            texts = getattr(self.irds_ref(), "query_texts", None)
            if variant in (None, "text") and texts is not None:
                import pandas as pd

                return pd.DataFrame(list(texts()), columns=["qid", "query"])
            return super().get_topics(variant or "text")

        def __repr__(self) -> str:
            return f"BrightDataset({self.irds_id!r})"

        def __reduce__(self) -> tuple[Any, tuple[str]]:
            return provided_dataset, (self.irds_id,)  # its class is made on first use

    return BrightDataset


def provided_dataset(dataset_id: str) -> Any:
    """The PyTerrier dataset the ``bright`` provider gives for ``dataset_id`` (a full id)."""
    return _dataset_class()(dataset_id)


def bm25_transformer(
    dataset: Any,
    k1: float = DEFAULT_PARAMS.k1,
    b: float = DEFAULT_PARAMS.b,
    query_side: bool | None = None,
    depth: int | None = None,
) -> Any:
    """The BM25 baseline as a ``pt.Transformer``: topics (``qid``, ``query``) in, results
    (``qid``, ``query``, ``docno``, ``score``, ``rank``) out, over ``dataset``'s corpus, each
    query's excluded documents removed before the cut (the index is built or loaded on first
    use, as by ``ir-bright bm25``). ``dataset`` is an id, an ir_datasets dataset or a
    PyTerrier one; ``query_side`` and ``depth`` left None are those of the family's
    official BM25, as ``ir-bright bm25``'s defaults; an empty topics frame (PyTerrier's
    validation call) gives an empty result without loading the index."""
    return _bm25_class()(dataset, k1, b, query_side, depth)


@cache
def _bm25_class() -> type:
    pt = require("pyterrier", "pyterrier")

    transformer: Any = pt.Transformer

    class BrightBM25(transformer):
        """ir_bright's BM25 baseline (Lucene's English analysis, in process) as a retriever."""

        def __init__(
            self,
            dataset: Any,
            k1: float,
            b: float,
            query_side: bool | None,
            depth: int | None,
        ) -> None:
            super().__init__()
            self.dataset = registry.load(dataset)
            self.k1, self.b = k1, b
            self.query_side = query_side
            self.depth = depth
            self._index: Any = None
            self._excluded: Mapping[str, AbstractSet[str]] | None = None
            self._mode: Any = None

        def transform(self, inp: Any) -> Any:
            """Retrieve for every row of a topics frame."""
            import pandas as pd

            from . import bm25

            if not len(inp):
                return pd.DataFrame([], columns=list(RESULT_COLUMNS))
            if self._index is None or self._excluded is None:
                self._index = bm25.index_for(self.dataset, bm25.BM25Params(self.k1, self.b))
                self._excluded = excluded_docs(self.dataset)
                self._mode = bm25.official_mode(self.dataset, self.query_side, self.depth)
            index, excluded_ids, mode = self._index, self._excluded, self._mode
            rows = []
            for qid, query in zip(inp["qid"].astype(str), inp["query"]):
                excluded = index.rows_of(excluded_ids.get(qid, ()))
                found = index.search(query, mode.depth, excluded, mode.query_side)
                for rank, (docno, score) in enumerate(found):
                    rows.append((qid, query, docno, score, rank))
            return pd.DataFrame(rows, columns=list(RESULT_COLUMNS))

        def transform_outputs(self, input_columns: list[str]) -> list[str]:
            """The result columns (for ``pt.inspect``), whatever the topics' columns."""
            return list(RESULT_COLUMNS)

        def __repr__(self) -> str:
            side = "" if self.query_side is None else f", query_side={self.query_side}"
            return f"BrightBM25({_name(self.dataset)!r}, k1={self.k1}, b={self.b}{side})"

    return BrightBM25


RESULT_COLUMNS = ("qid", "query", "docno", "score", "rank")
"""The columns of :func:`bm25_transformer`'s results."""


def _name(dataset: Any) -> str:
    """A dataset's id for a ``repr`` (``"dataset"`` when it has none)."""
    try:
        return str(dataset.dataset_id())
    except AttributeError:
        return "dataset"


__all__ += ["BrightDatasetProvider", "bm25_transformer"]
