"""BRIGHT (Su et al., ICLR 2025) as ir_datasets datasets: short and long documents, the
LLM-reasoning query setting and the duplicate-aware (adjusted) qrels."""

from .datasets import (
    REPLACEMENT_REASON,
    BrightQrels,
    BrightQueries,
    BrightReasoningQueries,
    datasets,
)

__all__ = [
    "REPLACEMENT_REASON",
    "BrightQrels",
    "BrightQueries",
    "BrightReasoningQueries",
    "datasets",
]
