"""BRIGHT (Su et al., ICLR 2025) as ir_datasets datasets: short and long documents, the
LLM-reasoning query setting and the duplicate-aware (adjusted) qrels.

The ids come from :mod:`.ids` (data files only); the datasets are built by
:func:`.collection.datasets` when one is first used."""

from .. import lazy
from .ids import NAMESPACE, REPLACEMENT_REASON, dataset_ids

__all__ = [
    "NAMESPACE",
    "REPLACEMENT_REASON",
    "BrightQrels",
    "BrightQueries",
    "BrightReasoningQueries",
    "dataset_ids",
    "datasets",
]

__getattr__ = lazy.exports(
    __name__,
    {
        "BrightQrels": "collection",
        "BrightQueries": "collection",
        "BrightReasoningQueries": "collection",
        "datasets": "collection",
    },
)
