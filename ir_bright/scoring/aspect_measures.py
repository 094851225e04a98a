"""BRIGHT-Pro's aspect measures as ir_measures measures: ``wAlpha_nDCG`` and ``A_Recall``.

BRIGHT-Pro (Zhao et al., ACL 2026) groups each query's gold passages into weighted reasoning
aspects and scores a ranking by how well it covers them. Both measures read the aspects from
the qrels themselves: every qrel carries ``aspect_id`` (empty for a judged doc without one)
and ``aspect_weight`` (the aspect's weight normalised over its query's aspects), as the
``bright-pro/*`` datasets' qrels do. So

    ir_measures.calc_aggregate([wAlpha_nDCG@25, A_Recall@25], dataset.qrels_iter(), run)

is exact without any other input. The definitions follow the official scripts of
github.com/yale-nlp/Bright-Pro (commit 5df9e9b), ``retrieval/evaluation/alpha-ndcg-evaluation.py``
and ``retrieval/evaluation/weighted_aspect_recall.py``:

- a query's ranking is its run docs by score descending; equal scores keep the run's order
  (the scripts' stable ``sorted`` over the score file's order);
- a query absent from the run, or without a doc judged above 0 (gold), is skipped: it yields
  NaN per query and the mean is over the other queries (0 when there are none), as the
  scripts average only what they evaluate.

The name ``alpha_nDCG`` is ir_measures' own (ndeval's unweighted alpha-nDCG over subtopics),
hence ``wAlpha_nDCG`` for the weighted variant.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from ir_measures import Metric
from ir_measures.measures.base import Agg, Measure, ParamInfo
from ir_measures.providers.base import Any as AnyValue
from ir_measures.providers.base import Evaluator, Provider
from ir_measures.util import QrelsConverter, RunConverter

from ..errors import MeasureError
from ..upstream import put_provider_first, register_measure

QREL_FIELDS = ("query_id", "doc_id", "relevance", "aspect_id", "aspect_weight")
"""The qrel fields the aspect measures read (``qrel_inputs`` of their provider)."""


class SkippingMean(Agg):
    """The mean of the values that are not NaN (skipped queries); 0.0 when there are none."""

    def __init__(self):
        self.sum = 0.0
        self.count = 0

    def add(self, value: float) -> None:
        """Add one query's value; NaN (a skipped query) is ignored."""
        if not math.isnan(value):
            self.sum += value
            self.count += 1

    def result(self) -> float:
        """The mean over the added values, or 0.0."""
        return self.sum / self.count if self.count else 0.0


class _Fraction(ParamInfo):
    """A float parameter from 0 to 1 (the integers 0 and 1 too); anything else is invalid."""

    def validate(self, value: Any) -> bool:
        """Whether ``value`` is absent (the default) or a number from 0 to 1."""
        if isinstance(value, int | float) and not isinstance(value, bool):
            return 0 <= value <= 1
        return super().validate(value)


class _AspectMeasure(Measure):
    DEFAULT = float("nan")  # a query absent from the run is skipped, not 0

    def aggregator(self) -> SkippingMean:
        """A mean that skips the queries the official scripts skip (NaN values)."""
        return SkippingMean()


class _WeightedAlphaNDCG(_AspectMeasure):
    """
    Weighted alpha-nDCG@k of BRIGHT-Pro (the paper's headline measure, alpha 0.5, k 25).

    For ranks i = 1..k, a doc judged above 0 whose qrel names aspect a adds
    ``w_a * (1 - alpha) ** n_a / log2(i + 1)``, n_a being how many such docs of aspect a rank
    above i; any other doc adds 0. The ideal DCG is built greedily: at each rank the aspect
    with the largest ``w_a * (1 - alpha) ** seen_a`` among aspects with gold docs left (the
    first such aspect on a tie; only gains above 0) until the ranks or the gold docs run out.
    A query's value is DCG / ideal DCG; queries absent from the run, without gold, or with an
    ideal DCG of 0 are skipped (NaN), as the official script skips them. Without a cutoff the
    whole ranking is used. Official code: yale-nlp/Bright-Pro
    ``retrieval/evaluation/alpha-ndcg-evaluation.py`` (compute_alpha_dcg_at_k,
    compute_alpha_idcg_at_k, evaluate_file).
    """

    __name__ = "wAlpha_nDCG"
    NAME = __name__
    PRETTY_NAME = "Weighted alpha-nDCG (BRIGHT-Pro)"
    SHORT_DESC = "alpha-nDCG over weighted reasoning aspects, with a greedy ideal ranking."
    SUPPORTED_PARAMS = {
        "cutoff": ParamInfo(dtype=int, required=False, desc="ranking cutoff threshold"),
        "alpha": _Fraction(dtype=float, default=0.5, desc="redundancy penalty, 0 to 1"),
    }


class _AspectRecall(_AspectMeasure):
    """
    Weighted aspect recall A-Recall@k of BRIGHT-Pro (k 25 in the paper).

    The aspects of a query are those its gold docs' qrels name. A-Recall@k is the sum of
    ``w_a`` over those aspects with at least one doc among the top k whose qrel names a (each
    aspect once; such a doc may be judged 0 when the aspect lists it but the query's gold ids
    do not); 0 for a query whose gold docs have no aspect. Queries absent from the run or
    without gold are skipped (NaN). Official code: yale-nlp/Bright-Pro
    ``retrieval/evaluation/weighted_aspect_recall.py`` (compute_weighted_aspect_recall_at_k,
    evaluate_file).
    """

    __name__ = "A_Recall"
    NAME = __name__
    PRETTY_NAME = "Weighted aspect recall (BRIGHT-Pro)"
    SHORT_DESC = "The weight of a query's aspects that the top k documents cover."
    SUPPORTED_PARAMS = {
        "cutoff": ParamInfo(dtype=int, required=False, desc="ranking cutoff threshold"),
    }


wAlpha_nDCG = _WeightedAlphaNDCG()
"""BRIGHT-Pro's weighted alpha-nDCG (``wAlpha_nDCG@25``, ``alpha`` 0.5 by default): alpha-nDCG
over the query's weighted reasoning aspects, read from the qrels, with a greedy ideal
ranking, as the official scripts compute it."""

A_Recall = _AspectRecall()
"""BRIGHT-Pro's weighted aspect recall (``A_Recall@25``): the weight of a query's aspects
that the top k documents cover, as the official scripts compute it."""


class _Judged(NamedTuple):
    """One query's judgements: gold docs in qrels order, each judged doc's aspect, weights."""

    gold: dict[str, None]
    aspect_of: dict[str, str]
    weight: dict[str, float]


def read_aspect_qrels(qrels: Any) -> dict[str, _Judged]:
    """``{query_id: its judgements}`` from qrels carrying ``aspect_id`` and ``aspect_weight``
    (namedtuples or a DataFrame); anything else is refused naming the missing fields."""
    judged: dict[str, _Judged] = {}
    for qrel in _qrel_records(qrels):
        query_id, doc_id = str(qrel.query_id), str(qrel.doc_id)  # ids as text, as Official
        query = judged.get(query_id)
        if query is None:
            query = judged[query_id] = _Judged({}, {}, {})
        if qrel.relevance > 0:
            query.gold[doc_id] = None
        if qrel.aspect_id and qrel.relevance >= 0:
            aspect = str(qrel.aspect_id)
            query.aspect_of[doc_id] = aspect
            query.weight[aspect] = float(qrel.aspect_weight)
    return judged


def _qrel_records(qrels: Any) -> Iterable[Any]:
    converter = QrelsConverter(qrels)
    kind, error = converter.predict_type()
    if kind == "pd_dataframe":
        records: Iterable[Any] = qrels.itertuples()
        fields = set(qrels.columns)
    elif kind == "namedtuple_iter":
        records = list(converter.qrels)
        fields = set(records[0]._fields) if records else set(QREL_FIELDS)
    else:
        fields, records = set(), ()
    missing = [name for name in QREL_FIELDS if name not in fields]
    if missing or error:
        raise MeasureError(
            f"wAlpha_nDCG and A_Recall need qrels with {', '.join(QREL_FIELDS)} (missing "
            f"{', '.join(missing) or error}): use a bright-pro dataset's qrels_iter()"
        )
    return records


def rankings(run: Any) -> dict[str, list[str]]:
    """``{query_id: doc ids by score descending}``; equal scores keep the run's order, and a
    doc given twice keeps its first place and its last score (as a dict of the run would).
    Ids that are not text (integer query ids of a DataFrame) are read as text, as
    ``Official(...)`` reads them, so they match the qrels' ids whatever their type."""
    scores: dict[str, dict[str, float]] = {}
    for scored in RunConverter(run).as_namedtuple_iter():
        query_id = str(scored.query_id)
        docs = scores.get(query_id)
        if docs is None:
            docs = scores[query_id] = {}
        docs[str(scored.doc_id)] = scored.score
    return {
        query_id: sorted(docs, key=docs.__getitem__, reverse=True)
        for query_id, docs in scores.items()
    }


def alpha_dcg(ranking: list[str], judged: _Judged, alpha: float, k: int | None) -> float:
    """Weighted alpha-DCG of the first ``k`` docs of ``ranking`` (all when ``k`` is None)."""
    seen: dict[str, int] = {}
    total = 0.0
    for rank, doc_id in enumerate(ranking[:k], start=1):
        aspect = judged.aspect_of.get(doc_id) if doc_id in judged.gold else None
        if aspect is None:
            continue
        before = seen.get(aspect, 0)
        total += judged.weight[aspect] * (1.0 - alpha) ** before / math.log2(rank + 1)
        seen[aspect] = before + 1
    return total


def ideal_alpha_dcg(judged: _Judged, alpha: float, k: int | None) -> float:
    """The greedy ideal weighted alpha-DCG@k of a query's gold docs."""
    left: dict[str, int] = {}
    for doc_id in judged.gold:
        aspect = judged.aspect_of.get(doc_id)
        if aspect is not None:
            left[aspect] = left.get(aspect, 0) + 1
    seen = dict.fromkeys(left, 0)
    total = 0.0
    rank = 0
    while k is None or rank < k:
        rank += 1
        best, best_gain = None, 0.0
        for aspect, count in left.items():
            if count:
                gain = judged.weight[aspect] * (1.0 - alpha) ** seen[aspect] / math.log2(rank + 1)
                if gain > best_gain:
                    best, best_gain = aspect, gain
        if best is None:
            break
        total += best_gain
        left[best] -= 1
        seen[best] += 1
    return total


def aspect_recall(ranking: list[str], judged: _Judged, k: int | None) -> float:
    """Weighted aspect recall of the first ``k`` docs of ``ranking``."""
    aspects = {judged.aspect_of[d] for d in judged.gold if d in judged.aspect_of}
    covered = {judged.aspect_of[d] for d in ranking[:k] if d in judged.aspect_of} & aspects
    return sum((judged.weight[aspect] for aspect in covered), 0.0)


class AspectEvaluator(Evaluator):
    """Scores runs for aspect measures against qrels read once."""

    def __init__(self, measures: Iterable[Measure], qrels: Any):
        measures = list(measures)
        self.judged = read_aspect_qrels(qrels)
        super().__init__(measures, set(self.judged))

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        for query_id, ranking in rankings(run).items():
            judged = self.judged.get(query_id)
            if judged is None or not judged.gold:
                continue
            for measure in self.measures:
                value = self._value(measure, ranking, judged)
                if not math.isnan(value):
                    yield Metric(query_id, measure, value)

    @staticmethod
    def _value(measure: Measure, ranking: list[str], judged: _Judged) -> float:
        k = measure.params.get("cutoff")
        if measure.NAME == A_Recall.NAME:
            return aspect_recall(ranking, judged, k)
        ideal = ideal_alpha_dcg(judged, measure["alpha"], k)
        if not ideal > 0:
            return math.nan
        return alpha_dcg(ranking, judged, measure["alpha"], k) / ideal


class AspectProvider(Provider):
    """
    BRIGHT-Pro aspect measures

    Computes :data:`wAlpha_nDCG` and :data:`A_Recall` from qrels that carry each judged doc's
    aspect and normalised aspect weight (``bright-pro/*`` datasets' ``qrels_iter()``).
    """

    NAME = "ir_bright_aspects"
    SUPPORTED_MEASURES = [
        _WeightedAlphaNDCG(cutoff=AnyValue(), alpha=AnyValue()),
        _AspectRecall(cutoff=AnyValue()),
    ]

    def supports(self, measure: Measure) -> bool:
        """Whether ``measure`` is one of these aspect measures (by class: a measure of
        another package that has the same name is not) with valid parameters."""
        return isinstance(measure, _AspectMeasure) and super().supports(measure)

    def _evaluator(self, measures: Iterable[Measure], qrels: Any) -> AspectEvaluator:
        return AspectEvaluator(measures, qrels)

    def qrel_inputs(self, measures: Iterable[Measure]) -> list[str]:
        """The qrel fields the measures read, beyond ir_measures' usual three."""
        return list(QREL_FIELDS)


PROVIDER = AspectProvider()


def register() -> None:
    """Register the measures' names and :data:`PROVIDER` with ir_measures (idempotent), so
    ``parse_measure("wAlpha_nDCG(alpha=0.5)@25")`` and the default pipeline know them."""
    register_measure(wAlpha_nDCG)
    register_measure(A_Recall)
    put_provider_first(PROVIDER)
