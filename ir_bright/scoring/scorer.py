"""Score a run under the official protocol: ``evaluate``, ``per_query`` and ``drop_excluded``.

A run is any shape :mod:`ir_bright.runs` reads strictly (a TREC run file, plain or gzip, or
stdin; run text; a DataFrame; ScoredDocs; a dict of dicts); every problem with it raises
:class:`~ir_bright.errors.RunFormatError` naming the file and line (or row).

Every measure is computed under the official protocol (:class:`~ir_bright.measures.Official`)
and keyed by the wrapped measure's name (``"nDCG@10"``). Like ir_measures, queries of the qrels
missing from the run count as 0 (unless the dataset's family averages over the queries the run
and the qrels share: :attr:`~ir_bright.families.Protocol.average`); a run missing some gets a
warning with the count, and a run
whose queries are mostly unknown to the dataset's qrels, while it misses most of the scored
queries, is refused (probably the wrong dataset). A run
none of whose ranked documents is judged or excluded for its query is not scored either
(:func:`~ir_bright.scoring.diagnosis.unjudged_run` names the dataset of the family it seems to
be for: its queries are the dataset's but its documents another corpus's, ``bright/x-long``
against ``bright/x``, or another domain's whose query ids collide); ``force=True`` scores it
with a warning.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from itertools import islice
from typing import Any, TypeVar

from ir_measures import Measure

from .. import judgements, registry
from ..errors import IrBrightError, MeasureError, RunFormatError
from ..families import protocol_of
from ..families.advice import family_refusal
from ..runs.memory import frame_columns, mapping_slices
from ..runs.read import (
    QueriesNotGrouped,
    read_run,
    read_run_parts,
    run_label,
    scored_docs,
    streamable,
)
from ..runs.run_file import RunFile
from .diagnosis import FORCE_HINT, SAMPLE_PAIRS, likely_fit, unjudged_run, wrong_dataset
from .evaluator import OfficialEvaluator, RunParts
from .official import Official
from .parsing import parse_measures
from .protocol import ConsumableRun

logger = logging.getLogger(__name__)

UNKNOWN_QUERIES_LIMIT = 0.5
"""A run with more than this share of queries unknown to the qrels, covering no more than this
share of the scored queries, is refused as a run for another dataset."""

_NO_DOCS: frozenset[str] = frozenset()
T = TypeVar("T")


def evaluate(
    run: Any, dataset: Any, measures: Iterable[str | Measure] | None = None
) -> dict[str, float]:
    """The run's official scores on ``dataset``: an id, an ir_datasets dataset or a PyTerrier
    one (``pt.get_dataset``).

    ``measures`` (ir_measures objects or names such as ``"nDCG@10"``) default to the dataset's
    official ones. Returns ``{measure name: mean over the dataset's scored queries}``: every
    query of its qrels (one the run misses counts 0), or, where the dataset's family averages
    over the shared queries (RAR-b, after BEIR), those the run ranks.
    """
    return Scorer(dataset, measures).evaluate(run)


def per_query(
    run: Any, dataset: Any, measures: Iterable[str | Measure] | None = None
) -> dict[str, dict[str, float]]:
    """Like :func:`evaluate`, per query: ``{query_id: {measure name: value}}``."""
    return Scorer(dataset, measures).per_query(run)


def drop_excluded(run: Any, dataset: Any) -> Any:
    """The run without the documents each query excludes (judged below 0 in the qrels).

    The result has the run's type: a DataFrame gives a DataFrame with the same columns and
    index, rows kept in order (ranks are not recomputed); a dict of dicts gives a new dict of
    dicts; a run file path or an iterable of ScoredDoc gives a list of records in their
    original order. The ranking is not cut to 1,000; the official measures do that.
    """
    return without(run, excluded_docs(dataset))


def excluded_docs(dataset: Any) -> Mapping[str, AbstractSet[str]]:
    """``{query_id: excluded doc ids}`` of a dataset (id, ir_datasets or PyTerrier dataset):
    its qrels below 0 (:func:`ir_bright.judgements.split_qrels`, the one reader of them);
    empty for a dataset without qrels. Every consumer of exclusions reads them here: the
    scorer, BM25, candidates, fusion and the PyTerrier transformers."""
    dataset = registry.load(dataset)
    if not getattr(dataset, "has_qrels", lambda: False)():
        return {}
    return judgements.split_qrels(dataset.qrels_iter())[1]


def official_measures(dataset: Any) -> list[Measure]:
    """The measures a dataset's documentation names as official (``official_measures``)."""
    dataset = registry.load(dataset)
    try:
        names = dataset.documentation().get("official_measures")
    except AttributeError:
        names = None
    if not names:
        raise MeasureError(
            f"{_label(dataset)} names no official measures: give them, e.g. -m nDCG@10"
        )
    return parse_measures(names)


class Scorer:
    """Official scores of any number of runs on one dataset; the qrels are read once.

    ``Scorer(dataset, measures)`` loads the dataset (an id, an ir_datasets or a PyTerrier
    dataset) and builds one :class:`~ir_bright.scoring.evaluator.OfficialEvaluator`;
    :meth:`evaluate` and :meth:`per_query` then score runs of any supported shape. A run none
    of whose ranked documents is judged or excluded is refused unless ``force``.
    """

    def __init__(
        self,
        dataset: Any,
        measures: Iterable[str | Measure] | None = None,
        *,
        force: bool = False,
    ):
        self.force = force
        self.dataset = registry.load(dataset)
        refusal = None
        if isinstance(dataset, str) and not self.dataset.has_qrels():
            refusal = family_refusal(dataset)
        if refusal is not None:
            raise IrBrightError(refusal)
        self.label = dataset if isinstance(dataset, str) else _label(self.dataset)
        inner = official_measures(self.dataset) if measures is None else parse_measures(measures)
        self.measures = [Official(m) for m in inner]
        protocol = protocol_of(self.dataset)
        self.average = protocol.average if protocol is not None else "qrels"
        self.evaluator = OfficialEvaluator(self.measures, _qrels(self.dataset), self.average)
        self.known_queries = set(self.evaluator.judged) | set(self.evaluator.excluded)

    @property
    def names(self) -> list[str]:
        """The measure names, in order: the keys of every result."""
        return [str(m.inner) for m in self.measures]

    def evaluate(self, run: Any, name: str | None = None) -> dict[str, float]:
        """``{measure name: mean}`` of one run; ``name`` labels it in messages."""
        values = self._scored(run, name, self.evaluator.calc_aggregate)
        return {str(m.inner): float(values[m]) for m in self.measures}

    def per_query(self, run: Any, name: str | None = None) -> dict[str, dict[str, float]]:
        """``{query_id: {measure name: value}}`` of one run, every scored query included."""

        def collect(ranked: Any) -> dict[str, dict[str, float]]:
            result: dict[str, dict[str, float]] = {}
            for query_id, measure, value in self.evaluator.iter_calc(ranked):
                inner = measure.inner if isinstance(measure, Official) else measure
                result.setdefault(query_id, {})[str(inner)] = float(value)
            return result

        result = self._scored(run, name, collect)
        order = self.names
        return {q: {n: result[q][n] for n in order} for q in sorted(result, key=natural_key)}

    def _scored(self, run: Any, name: str | None, score: Callable[[Any], T]) -> T:
        """``score(the run, read strictly)``, the run checked against the qrels.

        A run file is read once, each query cut to what the protocol keeps as soon as its
        lines are read, and scored a part at a time: memory for the queries times the depth,
        whatever the run's length. Should its queries not be grouped, it is read whole and
        scored again.
        """
        name = name or run_label(run)
        if not streamable(run):
            return self._scored_whole(run, name, score)
        evaluator = self.evaluator
        with RunFile(run) as file:
            summary = _RunSummary(self)

            def keep(query_id: str, docs: dict[str, float]) -> Mapping[str, float]:
                summary.note(query_id, docs)  # before the cut: the checks see every doc
                return evaluator.cut(query_id, docs)

            parts = read_run_parts(file, keep=keep)
            try:
                result = score(RunParts(map(evaluator.official_part, parts)))
            except QueriesNotGrouped as exc:
                logger.debug("%s; reading the whole run", exc)
                return self._scored_whole(file, name, score)
        summary.check(name)
        return result

    def _scored_whole(self, run: Any, name: str, score: Callable[[Any], T]) -> T:
        """``score(the run, read whole and strictly)``, the run checked against the qrels."""
        if isinstance(run, Mapping):
            return self._scored_mapping(run, name, score)
        ranked = read_run(run, name)
        summary = _RunSummary(self)
        summary.add(ranked)
        summary.check(name)
        return score(ConsumableRun(ranked) if ranked.owned else ranked)  # never seen by the caller

    def _scored_mapping(self, run: Mapping, name: str, score: Callable[[Any], T]) -> T:
        """``score(a dict-of-dicts run)``, checked strictly a slice at a time as it is scored
        (the checks leave the slice in the processor's cache for the scorer), then checked
        against the qrels. Score types are read from their sums, unless pytrec_eval finds
        one it cannot read (:func:`~ir_bright.runs.memory.mapping_slices`): then every score
        is converted and the run scored again."""
        try:
            return self._scored_slices(run, name, score, exact=False)
        except TypeError:
            return self._scored_slices(run, name, score, exact=True)

    def _scored_slices(self, run: Mapping, name: str, score: Callable[[Any], T], exact: bool) -> T:
        summary = _RunSummary(self)

        def noted(part: Mapping[str, Mapping[str, float]]) -> Mapping[str, Mapping[str, float]]:
            summary.add(part)
            return part

        result = score(RunParts(map(noted, mapping_slices(run, name, exact=exact))))
        summary.check(name)
        return result


class _RunSummary:
    """What the checks of a run against the qrels need, gathered part by part: its query ids,
    how many docs its judged queries rank, and whether any of them is judged or excluded."""

    def __init__(self, scorer: Scorer) -> None:
        self.scorer = scorer
        self.query_ids: dict[str, None] = {}
        self.ranked_docs = 0
        self.overlap = False
        self.sample: list[tuple[str, str]] = []  # a few (query, doc) pairs, for the hint

    def add(self, ranked: Mapping[str, Mapping[str, float]]) -> None:
        """Note the queries and docs of ``ranked`` (a whole run)."""
        for query_id, docs in ranked.items():
            self.note(query_id, docs)

    def note(self, query_id: str, docs: Mapping[str, float]) -> None:
        """Note one query and its docs."""
        self.query_ids[query_id] = None
        if self.overlap:
            return
        if len(self.sample) < SAMPLE_PAIRS:
            self.sample.extend((query_id, doc_id) for doc_id in islice(docs, 10))
        judged, excluded = self.scorer.evaluator.judged, self.scorer.evaluator.excluded
        known = judged.get(query_id, {}).keys() | excluded.get(query_id, _NO_DOCS)
        if not known:
            return
        if not known.isdisjoint(docs):
            self.overlap = True
            return
        self.ranked_docs += len(docs)

    def check(self, name: str) -> None:
        """Refuse a run for another dataset; warn about unknown and missing queries, and about
        a run none of whose docs is judged or excluded for its query."""
        scorer, ranked = self.scorer, self.query_ids
        unknown = [q for q in ranked if q not in scorer.known_queries]
        scored = set(scorer.evaluator.qrel_qids)
        covered = sum(1 for q in scored if q in ranked)
        # Wrong dataset: mostly queries without judgements here, and most scored queries absent
        # (a run that ranks every query of a dataset whose queries are mostly unjudged, as MM-BRIGHT
        # task 3's queries without positive images, still covers all scored queries).
        if (
            unknown
            and len(unknown) > UNKNOWN_QUERIES_LIMIT * len(ranked)
            and covered <= UNKNOWN_QUERIES_LIMIT * len(scored)
        ):
            raise RunFormatError(
                f"{name}: {len(unknown)} of its {len(ranked)} queries (e.g. {unknown[0]!r}) are "
                f"not queries of {scorer.label}: {self._wrong_dataset()}"
            )
        if unknown:
            logger.warning(
                "%s: ignoring %d queries without judgements in %s (unknown there, or not scored)",
                name,
                len(unknown),
                scorer.label,
            )
        if not self.overlap and self.ranked_docs:
            fact, cause = unjudged_run(scorer.dataset, scorer.label, self.sample, self.ranked_docs)
            if not scorer.force:
                raise RunFormatError(f"{name}: {fact}, so it is not scored: {cause}; {FORCE_HINT}")
            logger.warning("%s: %s; scored all the same, as forced: %s", name, fact, cause)
        missing = len(scored) - covered
        if missing:
            logger.warning(
                "%s: no ranking for %d of the %d queries of %s; %s",
                name,
                missing,
                len(scored),
                scorer.label,
                self._missing_rule(),
            )

    def _wrong_dataset(self) -> str:
        """The likely cause: the cached dataset the run's pairs are judged in, if one is."""
        return wrong_dataset(likely_fit(self.sample, self.scorer.label), self.scorer.label)

    def _missing_rule(self) -> str:
        """How the measures treat a query the run does not rank: as 0 (a measure's
        ``DEFAULT``, ir_measures' convention) or skipped (a NaN default, as the aspect
        measures skip them, after BRIGHT-Pro's official scripts)."""
        if self.scorer.average == "shared":
            return "they are left out of the means, as the official evaluator leaves them"
        measures = self.scorer.measures
        skipping = [str(m.inner) for m in measures if math.isnan(m.inner.DEFAULT)]
        if not skipping:
            return "they count as 0"
        if len(skipping) == len(measures):
            return "they are skipped, as the official scripts skip them"
        return f"they count as 0, except in {', '.join(skipping)}, which skips them"


def natural_key(text: str) -> list[tuple[int, Any]]:
    """Sort key putting ``"q2"`` before ``"q10"`` (digit runs compare as numbers)."""
    return [(0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", text) if p]


def without(run: Any, excluded: Mapping[str, AbstractSet[str]]) -> Any:
    """The run without the ``excluded`` docs of each query (``{query_id: doc ids}``, as
    :func:`excluded_docs` gives them), in the run's type (see :func:`drop_excluded`)."""
    if isinstance(run, Mapping):
        return {
            q: {d: s for d, s in docs.items() if d not in excluded.get(q, _NO_DOCS)}
            for q, docs in run.items()
        }
    if hasattr(run, "columns"):
        return _drop_frame(run, excluded)
    records = scored_docs(run)
    return [r for r in records if r.doc_id not in excluded.get(r.query_id, _NO_DOCS)]


def _drop_frame(frame: Any, excluded: Mapping[str, AbstractSet[str]]) -> Any:
    import numpy as np

    query_col, doc_col, _ = frame_columns(frame, "run DataFrame")
    pairs = zip(frame[query_col].astype(str).tolist(), frame[doc_col].astype(str).tolist())
    keep = [d not in excluded.get(q, _NO_DOCS) for q, d in pairs]
    return frame.loc[np.array(keep, dtype=bool)]


def _qrels(dataset: Any) -> Iterator[Any]:
    if not hasattr(dataset, "qrels_iter"):
        raise IrBrightError(f"{_label(dataset)} has no qrels, so it cannot score runs")
    return dataset.qrels_iter()


def _label(dataset: Any) -> str:
    try:
        return dataset.dataset_id()
    except AttributeError:
        return "the dataset"
