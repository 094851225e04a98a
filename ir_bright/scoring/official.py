"""``Official(measure)``: any ir_measures measure, computed under BRIGHT's official protocol.

BRIGHT and MM-BRIGHT score a run in three steps (xlang-ai/BRIGHT ``run.py`` and
``retrievers.py`` ``get_scores``, commit 5ec4cb3; mm-bright/MM-BRIGHT ``src/eval_runner.py``,
commit b35eaeb):

1. the documents a query EXCLUDES (judged below 0 in the qrels; the datasets use -100) are
   removed from that query's ranking, so they never occupy a rank;
2. the ranking is cut to its 1,000 best, by score descending with ties broken as trec_eval
   breaks them (doc id descending);
3. pytrec_eval scores what remains against the non-negative judgements, graded labels as
   linear gains.

Stock ``nDCG@10`` keeps an excluded document at its rank (trec_eval gives -100 a gain of 0),
so it scores lower wherever a retriever ranks excluded documents. ``Official(nDCG@10)`` does
steps 1 and 2 and hands the result to ir_measures' own provider for the inner measure.

After :func:`~ir_bright.scoring.provider.register` (``import ir_bright`` calls it) the wrapper
works everywhere a measure does: ``ir_measures.calc_aggregate / iter_calc / calc / evaluator``,
mixed with stock measures in one call, and PyTerrier's ``pt.Experiment``;
``ir_measures.parse_measure`` reads its printed name back. Like ir_measures, queries of the
qrels that are missing from the run count as the inner measure's default (0); a query is scored
only if it has a judgement of 0 or more. Inside ir_measures the run is read as ir_measures
reads it (a repeated query/doc pair keeps the last score), except that ids holding a NUL are
refused and ids given as numbers in a DataFrame are read as text; :mod:`ir_bright.runs` reads
runs strictly instead. A dict of dicts (qrels or run) is read without being copied or changed.
"""

from __future__ import annotations

import re
from typing import Any

import ir_measures
from ir_measures.measures.base import Measure, ParamInfo

from ..upstream import stock_parser

NAME = "Official"


class Official(Measure):
    """
    ``Official(measure)``: ``measure`` under the benchmarks' official protocol.

    Documents judged below 0 for a query are dropped from its ranking, the ranking is cut to
    its 1,000 best (score descending, ties by doc id descending, as trec_eval orders them),
    and ``measure`` is computed on what remains by ir_measures' own provider, against the
    judgements of 0 and above (graded labels are linear gains).

    ``Official(nDCG@10)`` prints as ``Official(nDCG@10)``, parses back from that string, and
    never equals the stock ``nDCG@10``; ``Official(nDCG)@10`` is ``Official(nDCG@10)``.
    """

    __name__ = NAME
    NAME = NAME
    PRETTY_NAME = "Official BRIGHT protocol"
    SHORT_DESC = (
        "A measure computed after removing each query's excluded documents from its ranking "
        "and cutting the ranking to its 1,000 best."
    )
    SUPPORTED_PARAMS = {
        "measure": ParamInfo(dtype=Measure, required=True, desc="the measure to compute"),
    }

    def __init__(self, measure: Measure | str | None = None, **params: Any):
        if measure is not None:
            params["measure"] = _as_measure(measure)
        inner = params.get("measure")
        if isinstance(inner, Official):
            raise ValueError(f"{inner} is already official; do not wrap it twice")
        super().__init__(**params)
        if inner is not None:
            self.DEFAULT = inner.DEFAULT

    @property
    def inner(self) -> Measure:
        """The wrapped measure."""
        return self.params["measure"]

    def __call__(self, **kwargs: Any) -> Official:
        """``Official(nDCG)(cutoff=10)`` passes the parameters on to the wrapped measure."""
        if "measure" in kwargs or "measure" not in self.params:
            return type(self)(**{**self.params, **kwargs})
        return type(self)(self.inner(**kwargs))

    def __matmul__(self, at_param: Any) -> Official:
        """``Official(nDCG)@10`` is ``Official(nDCG@10)``."""
        return type(self)(self.inner @ at_param)

    def __repr__(self) -> str:
        return f"{NAME}({self.params['measure']!r})" if "measure" in self.params else NAME

    def __hash__(self) -> int:
        # ir_measures hashes the measure of every metric it aggregates, and a measure's hash is
        # that of its repr, which nests the inner one's: computed once (measures are immutable)
        found: int | None = self.__dict__.get("_hash")
        if found is None:
            found = self.__dict__["_hash"] = hash(repr(self))
        return found

    def aggregator(self):
        """The wrapped measure's aggregator (a mean for every BRIGHT measure); the bare
        registry entry ``Official`` gets ir_measures' default (a mean), as stock entries do."""
        if "measure" not in self.params:
            return super().aggregator()
        return self.inner.aggregator()


def _as_measure(measure: Measure | str) -> Measure:
    if isinstance(measure, Measure):
        return measure
    return ir_measures.parse_measure(measure)


_OFFICIAL_NAME = re.compile(rf"\s*{NAME}\s*\((.*)\)\s*", re.DOTALL)


def parse_measure(measure: str | Measure) -> Measure:
    """``ir_measures.parse_measure``, plus the ``Official(...)`` form (installed by register)."""
    if isinstance(measure, str):
        match = _OFFICIAL_NAME.fullmatch(measure)
        if match:
            return Official(parse_measure(match.group(1)))
        if measure.strip() == NAME:
            raise ValueError(f"{NAME} needs a measure to wrap, e.g. {NAME}(nDCG@10)")
    return stock_parser()(measure)
