"""ir_bright's PyTerrier transformers (importing this module imports PyTerrier):
:class:`DropExcluded` and :class:`BrightBM25`."""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from .. import registry
from ..errors import require
from ..scoring.scorer import excluded_docs, without

pt = require("pyterrier", "pyterrier")

RESULT_COLUMNS = ("qid", "query", "docno", "score", "rank")
"""The columns of :class:`BrightBM25`'s results."""

_Transformer: Any = pt.Transformer


class DropExcluded(_Transformer):
    """Drops each query's excluded documents (qrels below 0) from a result frame."""

    def __init__(self, dataset: Any):
        super().__init__()
        self.dataset = registry.load(dataset)
        self._excluded: Mapping[str, AbstractSet[str]] | None = None

    def transform(self, inp: Any) -> Any:
        """The input frame without its excluded (qid, docno) rows; ``rank`` (if present) is
        recomputed per query. An empty frame (PyTerrier's validation call) is returned as it
        is, without reading anything."""
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
        return f"DropExcluded({dataset_name(self.dataset)!r})"


class BrightBM25(_Transformer):
    """ir_bright's BM25 baseline (Lucene's English analysis, in process) as a retriever."""

    def __init__(
        self, dataset: Any, k1: float, b: float, query_side: bool | None, depth: int | None
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
        """Retrieve for every row of a topics frame; an empty frame (PyTerrier's validation
        call) gives an empty result without loading the index."""
        import pandas as pd

        from .. import bm25
        from ..bm25.params import official_mode

        if not len(inp):
            return pd.DataFrame([], columns=list(RESULT_COLUMNS))
        if self._index is None or self._excluded is None:
            self._index = bm25.index_for(self.dataset, bm25.BM25Params(self.k1, self.b))
            self._excluded = excluded_docs(self.dataset)
            self._mode = official_mode(self.dataset, self.query_side, self.depth)
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
        return f"BrightBM25({dataset_name(self.dataset)!r}, k1={self.k1}, b={self.b}{side})"


def dataset_name(dataset: Any) -> str:
    """A dataset's id for a ``repr`` (``"dataset"`` when it has none)."""
    try:
        return str(dataset.dataset_id())
    except AttributeError:
        return "dataset"
