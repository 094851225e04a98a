"""Stock scores beside the official ones: what ir_measures (and trec_eval) give a run as is."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .scorer import Scorer

STOCK = "stock:"
"""The prefix of a stock measure's name (``stock:nDCG@10``) beside the official one."""


class StockScorer:
    """The scorer's measures as stock ir_measures computes them on the dataset's own qrels:
    excluded documents (-100) stay in the ranking with a gain of 0 and nothing is cut.

    A query judged only below 0 has no relevant document, so every stock measure gives it 0
    whatever its ranking; its ranking is left out, because pytrec_eval crashes the process on
    a ranked query without a judgement of 0 or more (ir_measures then gives the 0 itself).
    """

    def __init__(self, scorer: Scorer):
        """The stock evaluator of ``scorer``'s measures (their inner measure) and qrels."""
        import ir_measures

        qrels = list(scorer.dataset.qrels_iter())
        self.measures = [m.inner for m in scorer.measures]
        self.evaluator = ir_measures.evaluator(self.measures, qrels)
        judged = {q.query_id for q in qrels if q.relevance >= 0}
        self.unjudged = {q.query_id for q in qrels if q.query_id not in judged}

    def _run(self, ranked: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        return {q: docs for q, docs in ranked.items() if q not in self.unjudged}

    def evaluate(self, ranked: dict[str, dict[str, float]]) -> dict[str, float]:
        """``{stock:<measure>: mean}``, the mean ir_measures takes (over the qrels' queries)."""
        values = self.evaluator.calc_aggregate(self._run(ranked))
        return {STOCK + str(m): float(values[m]) for m in self.measures}

    def per_query(self, ranked: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
        """``{query_id: {stock:<measure>: value}}``."""
        result: dict[str, dict[str, float]] = {}
        for metric in self.evaluator.iter_calc(self._run(ranked)):
            result.setdefault(metric.query_id, {})[STOCK + str(metric.measure)] = metric.value
        return result
