"""Scoring under the official protocol: ``Official(...)`` through ir_measures, ``evaluate``,
``per_query`` and ``drop_excluded``, and BRIGHT-Pro's aspect measures."""

from .parsing import parse_measures
from .scorer import (
    Scorer,
    drop_excluded,
    evaluate,
    excluded_docs,
    official_measures,
    per_query,
)

__all__ = [
    "Scorer",
    "drop_excluded",
    "evaluate",
    "excluded_docs",
    "official_measures",
    "parse_measures",
    "per_query",
]
