"""Deprecated: the comparison module is :mod:`ir_bright.results.comparison` (records),
:mod:`ir_bright.results.stats` (tests, intervals, corrections) and
:mod:`ir_bright.results.comparison_output` (tables, chart).

This module shared its name with the function ``ir_bright.compare``; it re-exports its former
names and warns once, when imported.
"""

from __future__ import annotations

import warnings

from .comparison import POOLED, RECORD_KEYS, compare, per_query, per_query_frame
from .comparison_output import FORMATS, MARK, format_comparison, plot_comparison
from .errors import CompareError
from .stats import (
    ALPHA,
    CONFIDENCE,
    CORRECTIONS,
    SAMPLES,
    SEED,
    TESTS,
    adjust,
    bootstrap_interval,
    paired_tests,
)

__all__ = [
    "ALPHA",
    "CONFIDENCE",
    "CORRECTIONS",
    "FORMATS",
    "MARK",
    "POOLED",
    "RECORD_KEYS",
    "SAMPLES",
    "SEED",
    "TESTS",
    "CompareError",
    "adjust",
    "bootstrap_interval",
    "compare",
    "format_comparison",
    "paired_tests",
    "per_query",
    "per_query_frame",
    "plot_comparison",
]

warnings.warn(
    "ir_bright.results.compare is deprecated (it shares its name with the function "
    "ir_bright.compare): import from ir_bright.results.comparison, ir_bright.results.stats "
    "or ir_bright.results.comparison_output",
    DeprecationWarning,
    stacklevel=2,
)
