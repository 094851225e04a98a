"""The PyTerrier dataset ir_bright's ``bright:`` provider gives (importing this module imports
PyTerrier)."""

from __future__ import annotations

from typing import Any

from ..errors import require
from ..upstream import irds_dataset_class

require("pyterrier", "pyterrier")


class BrightDataset(irds_dataset_class()):  # type: ignore[misc]
    """An ir_datasets-backed PyTerrier dataset whose topics default to the query text."""

    def __init__(self, irds_id: str):
        super().__init__(irds_id)
        self.irds_id = irds_id  # the base class keeps it under a private name

    def get_topics(self, variant: str | None = None, tokenise_query: Any = None) -> Any:
        """Topics ``qid, query``; ``query`` is the ``text`` field unless ``variant``. The text
        alone reads only the files it comes from (no ``*_reason`` downloads)."""
        texts = getattr(self.irds_ref(), "query_texts", None)
        if variant in (None, "text") and texts is not None:
            import pandas as pd

            return pd.DataFrame(list(texts()), columns=["qid", "query"])
        return super().get_topics(variant or "text")

    def __repr__(self) -> str:
        return f"BrightDataset({self.irds_id!r})"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return BrightDataset, (self.irds_id,)
