"""BM25's parameters, the ranking depth and the run tag, and the one place they are checked."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from ..errors import IrBrightError

RUN_TAG = "ir_bright-bm25"


class BM25Params(NamedTuple):
    """BM25's free parameters (the paper's values by default)."""

    k1: float = 0.9
    b: float = 0.4
    lucene_norms: bool = False
    """Lucene's one-byte document lengths and float32 arithmetic (Pyserini's scores) instead
    of exact lengths (the paper's gensim code)."""

    def key(self) -> str:
        """The index cache folder name for these parameters and the current analysis.

        k1 and b are written as ``repr`` of the float, the shortest text that reads back as
        the same float: two values that differ in their last bit never share an index."""
        from .analysis import ANALYSIS

        k1, b = (repr(float(value) + 0.0) for value in (self.k1, self.b))
        return f"{ANALYSIS}-k1={k1}-b={b}" + ("-lucene" if self.lucene_norms else "")

    def checked(self, names: tuple[str, str] = ("BM25 k1", "BM25 b")) -> BM25Params:
        """These parameters as plain floats (``-0.0`` made 0), or an error naming the bad one
        by ``names`` (the command line passes its option names): k1 must be finite and at
        least 0, b between 0 and 1 (NaN would be cached as an index that cannot be loaded)."""
        k1_name, b_name = names
        try:
            k1, b = float(self.k1) + 0.0, float(self.b) + 0.0
        except (TypeError, ValueError):
            raise IrBrightError(
                f"{k1_name} and {b_name} must be numbers, not {self.k1!r} and {self.b!r}"
            ) from None
        if not (math.isfinite(k1) and k1 >= 0):
            raise IrBrightError(f"{k1_name} must be at least 0 and finite, not {self.k1}")
        if not 0 <= b <= 1:
            raise IrBrightError(f"{b_name} must be between 0 and 1, not {self.b}")
        return BM25Params(k1, b, bool(self.lucene_norms))


DEFAULT_PARAMS = BM25Params()
"""The BRIGHT paper's BM25 parameters (:class:`BM25Params`' defaults, which are also
Pyserini's), with exact document lengths."""


def check_depth(depth: int, name: str = "the ranking depth") -> int:
    """``depth``, or an error when it is below 1."""
    if depth < 1:
        raise IrBrightError(f"{name} must be at least 1, not {depth}")
    return depth


class Mode(NamedTuple):
    """How a BM25 run weights its queries and how deep it ranks."""

    query_side: bool
    depth: int

    def tag(self, lucene_norms: bool) -> str:
        """The default run tag of this mode: ``ir_bright-bm25[-qs|-lucene]``."""
        return RUN_TAG + ("-qs" if self.query_side else "-lucene" if lucene_norms else "")


def official_mode(
    dataset: Any, query_side: bool | None, depth: int | None, lucene_norms: bool = False
) -> Mode:
    """The weighting and depth asked for, the official BM25 of the dataset's family where left
    None (:class:`~ir_bright.families.Protocol`: the BRIGHT paper's query-side weighting and
    its family's run depth); a dataset no family declares gets bag-of-words weighting and
    the official protocol's depth. Lucene's norms are Pyserini's bag of words, never
    query-side."""
    from ..families import protocol_of, run_depth

    protocol = protocol_of(dataset)
    if query_side is None:
        query_side = protocol is not None and protocol.query_side and not lucene_norms
    if depth is None:
        depth = run_depth(dataset)
    check_mode(query_side, lucene_norms)
    return Mode(bool(query_side), check_depth(depth))


def check_mode(query_side: bool, lucene_norms: bool, names: tuple[str, str] | None = None) -> None:
    """Refuse query-side weighting with Lucene's norms: the two reproduce different published
    rows (the paper's gensim code, exact lengths; Pyserini's bag of words, one-byte lengths)."""
    if query_side and lucene_norms:
        side, norms = names or ("query-side weighting", "Lucene's norms")
        raise IrBrightError(
            f"{side} (the paper's gensim code) and {norms} (Pyserini's bag of words) reproduce "
            "different published rows: give one of them"
        )
