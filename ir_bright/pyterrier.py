"""PyTerrier integration; PyTerrier itself is imported only when one of these is used.

``drop_excluded_transformer(dataset)`` removes from a result frame the documents each query
excludes, for pipelines that want a clean run (``Official(...)`` measures do not need it).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .errors import require
from .evaluate import _drop, excluded_docs

__all__ = ["drop_excluded_transformer"]


def drop_excluded_transformer(dataset: Any) -> Any:
    """A ``pt.Transformer`` dropping each query's excluded documents from a result frame.

    ``dataset`` is an id or an ir_datasets dataset; its exclusions are read on first use and
    kept. Rows keep their order and columns; ``rank`` (if present) is recomputed per query.
    """
    return _transformer_class()(dataset)


@cache
def _transformer_class() -> type:
    pt = require("pyterrier", "pyterrier")

    class DropExcluded(pt.Transformer):
        """Drops each query's excluded documents (qrels below 0) from a result frame."""

        def __init__(self, dataset: Any):
            super().__init__()
            self.dataset = dataset
            self._excluded: dict[str, set[str]] | None = None

        def transform(self, inp: Any) -> Any:
            """The input frame without its excluded (qid, docno) rows."""
            if self._excluded is None:
                self._excluded = excluded_docs(self.dataset)
            out = _drop(inp, self._excluded)
            if "rank" in out.columns and "score" in out.columns and len(out):
                by_query = out.groupby("qid", sort=False)["score"]
                ranks = by_query.rank(ascending=False, method="first").astype("int64")
                out = out.assign(rank=ranks - 1 + pt.model.FIRST_RANK)
            return out

        def transform_outputs(self, input_columns: list[str]) -> list[str]:
            """The same columns as the input (for ``pt.inspect``)."""
            return list(input_columns)

        def __repr__(self) -> str:
            name = self.dataset if isinstance(self.dataset, str) else "dataset"
            return f"DropExcluded({name!r})"

    return DropExcluded
