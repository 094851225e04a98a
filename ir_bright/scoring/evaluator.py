"""The evaluator of :class:`~ir_bright.scoring.official.Official` measures: the qrels split once,
each run dropped and cut by :mod:`.protocol`, the inner measures computed by ir_measures' own
default pipeline."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import ir_measures
from ir_measures import Metric
from ir_measures.measures.base import Measure
from ir_measures.providers.base import Evaluator
from ir_measures.util import QrelsConverter

from ..judgements import split_qrels
from ..upstream import inner_metrics
from .official import Official
from .protocol import OfficialRun, computed_by, needed_depth, official_docs, official_slices


class OfficialEvaluator(Evaluator):
    """Scores runs for a set of :class:`Official` measures against qrels read once.

    The qrels are split once into the judgements (0 and above), handed to an evaluator of the
    inner measures built by ir_measures' default pipeline, and per-query sets of excluded
    docs. Each run is then filtered with set lookups, cut, and passed to the inner evaluator.

    ``average`` is the protocol's (:attr:`~ir_bright.families.Protocol.average`): ``qrels``
    gives a query of the qrels the run misses the measure's default (0), as ir_measures and
    ``trec_eval -c`` do; ``shared`` leaves it out, so means are over the queries both have.
    """

    def __init__(self, measures: Iterable[Official], qrels: Any, average: str = "qrels"):
        measures = list(measures)
        self.average = average
        qrels, inner_qrels = _with_fields(qrels, [m.inner for m in measures])
        self.judged, self.excluded = split_qrels(qrels)
        self._official = {m.inner: m for m in measures}
        self._inner = ir_measures.DefaultPipeline.evaluator(
            list(self._official), self.judged if inner_qrels is None else inner_qrels
        )
        # the providers hand back the inner measure objects given to them: found by identity,
        # a metric costs no hashing of its measure (a repr each time)
        self._by_identity = {id(inner): m for inner, m in self._official.items()}
        # nDCG@10 alone needs each ranking's 10 best, not 1,000: the scorer sorts less
        self.depth = needed_depth(self._official)
        super().__init__(measures, set(self.judged))

    def cut(self, query_id: str, docs: dict[str, float]) -> Mapping[str, float]:
        """What the protocol keeps of one query's ranking (``docs``, a dict no one else
        holds): its excluded docs dropped, the rest cut to this evaluator's depth."""
        return official_docs(docs, self.excluded.get(query_id), self.depth)

    def official_part(self, part: Mapping[str, Mapping[str, float]]) -> OfficialRun:
        """``part``, whose queries :meth:`cut` has cut, marked so that scoring does not
        filter them again."""
        run = OfficialRun(self.excluded, self.depth)
        run.update(part)
        return run

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Per-query values of the run; a query of the qrels it misses gets the measure's
        default, unless the protocol averages over the shared queries only."""
        if self.average == "shared":
            return self._iter_calc(run)
        return super().iter_calc(run)

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        pieces = run if isinstance(run, RunParts) else [run]
        by_identity, by_value = self._by_identity, self._official
        # pytrec_eval copies the run it is given: a slice at a time, read while its ids are
        # in the processor's cache from being checked and filtered
        slices = (
            ranked
            for piece in pieces
            for ranked in official_slices(piece, self.excluded, self.depth)
        )
        for ranked in slices:
            for query_id, measure, value in inner_metrics(self._inner, ranked):
                official = by_identity.get(id(measure))
                if official is None:
                    official = by_value[measure]
                yield Metric(query_id, official, value)


class RunParts:
    """A run given as consecutive parts (dicts of dicts, or any run format), no query in two
    of them, which :class:`OfficialEvaluator` scores one after the other: only one part need
    be in memory at a time (:func:`ir_bright.runs.read_run_parts` reads a file so)."""

    def __init__(self, parts: Iterable[Any]):
        self._parts = parts

    def __iter__(self) -> Iterator[Any]:
        return iter(self._parts)


def _with_fields(qrels: Any, inner: list[Measure]) -> tuple[Any, Any]:
    """``(qrels, None)``, or, when an inner measure reads qrel fields beyond ``relevance``
    (BRIGHT-Pro's aspects, per its provider's ``qrel_inputs``), ``(qrels, the qrels judged 0
    and above with all their fields)`` for the inner evaluator. Only the providers that compute
    the measures are asked (:func:`~.protocol.computed_by`)."""
    fields = {
        f for provider, measures in computed_by(inner) for f in provider.qrel_inputs(measures)
    }
    if fields <= {"query_id", "doc_id", "relevance"}:
        return qrels, None
    if hasattr(qrels, "columns"):
        return qrels, qrels[qrels["relevance"] >= 0]
    records = list(QrelsConverter(qrels).as_namedtuple_iter())
    return records, [r for r in records if r.relevance >= 0]
