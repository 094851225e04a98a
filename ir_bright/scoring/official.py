"""``Official(measure)``: any ir_measures measure, computed under BRIGHT's official protocol.

BRIGHT and MM-BRIGHT score a run in three steps (SPEC §1.3, MM-BRIGHT §2):

1. the documents a query EXCLUDES (judged below 0 in the qrels; the datasets use -100) are
   removed from that query's ranking, so they never occupy a rank;
2. the ranking is cut to its 1,000 best, by score descending with ties broken as trec_eval
   breaks them (doc id descending);
3. pytrec_eval scores what remains against the non-negative judgements, graded labels as
   linear gains.

Stock ``nDCG@10`` keeps an excluded document at its rank (trec_eval gives -100 a gain of 0),
so it scores lower wherever a retriever ranks excluded documents. ``Official(nDCG@10)`` does
steps 1 and 2 and hands the result to ir_measures' own provider for the inner measure.

After :func:`register` (``import ir_bright`` calls it) the wrapper works everywhere a measure
does: ``ir_measures.calc_aggregate / iter_calc / calc / evaluator``, mixed with stock measures
in one call, and PyTerrier's ``pt.Experiment``; ``ir_measures.parse_measure`` reads its
printed name back. Like ir_measures, queries of the qrels that are missing from the run count
as the inner measure's default (0); a query is scored only if it has a judgement of 0 or more.
Inside ir_measures the run is read as ir_measures reads it (a repeated query/doc pair keeps the
last score), except that ids holding a NUL are refused and ids given as numbers in a DataFrame
are read as text; :mod:`ir_bright.runs` reads runs strictly instead. A dict of dicts (qrels or
run) is read without being copied or changed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from heapq import nlargest
from itertools import compress, groupby, repeat
from operator import attrgetter, ge, itemgetter, lt, not_
from typing import Any

import ir_measures
from ir_measures import Metric
from ir_measures.measures.base import Measure, ParamInfo
from ir_measures.providers.base import Evaluator, Provider
from ir_measures.util import QrelsConverter, RunConverter

from .. import runs
from ..runs import CheckedRun, query_spans, refuse_nul
from ..upstream import inner_metrics, install_measure_parser, put_provider_first, stock_parser

DEPTH = 1000
"""How many documents of each query's ranking the official protocol keeps."""

NAME = "Official"

__all__ = ["DEPTH", "Official", "OfficialEvaluator", "OfficialProvider", "RunParts", "register"]


class Official(Measure):
    """
    ``Official(measure)``: ``measure`` under the official BRIGHT / MM-BRIGHT protocol.

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


class OfficialEvaluator(Evaluator):
    """Scores runs for a set of :class:`Official` measures against qrels read once.

    The qrels are split once into the judgements (0 and above), handed to an evaluator of the
    inner measures built by ir_measures' default pipeline, and per-query sets of excluded
    docs. Each run is then filtered with set lookups, cut, and passed to the inner evaluator.
    """

    def __init__(self, measures: Iterable[Official], qrels: Any):
        measures = list(measures)
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

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        parts: Iterator[dict[str, Mapping[str, float]]]
        if isinstance(run, RunParts):
            parts = (official_run(part, self.excluded, self.depth) for part in run)
        else:
            parts = _slices(official_run(run, self.excluded, self.depth))
        by_identity, by_value = self._by_identity, self._official
        for ranked in parts:  # the scorer copies one part of the run at a time
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


def _slices(ranked: dict[str, Mapping[str, float]]) -> Iterator[dict]:
    """``ranked`` in consecutive dicts of whole queries, about ``runs.PART_ENTRIES`` entries
    each: pytrec_eval copies the run it is given, so a long run is copied a part at a time."""
    entries = runs.PART_ENTRIES
    if sum(map(len, ranked.values())) <= entries:
        yield ranked
        return
    part: dict[str, Mapping[str, float]] = {}
    size = 0
    for query_id, docs in ranked.items():
        part[query_id] = docs
        size += len(docs)
        if size >= entries:
            yield part
            part, size = {}, 0
    if part:
        yield part


def _with_fields(qrels: Any, inner: list[Measure]) -> tuple[Any, Any]:
    """``(qrels, None)``, or, when an inner measure reads qrel fields beyond ``relevance``
    (BRIGHT-Pro's aspects, per its provider's ``qrel_inputs``), ``(qrels, the qrels judged 0
    and above with all their fields)`` for the inner evaluator."""
    if set(ir_measures.DefaultPipeline.qrel_inputs(inner)) <= {"query_id", "doc_id", "relevance"}:
        return qrels, None
    if hasattr(qrels, "columns"):
        return qrels, qrels[qrels["relevance"] >= 0]
    records = list(QrelsConverter(qrels).as_namedtuple_iter())
    return records, [r for r in records if r.relevance >= 0]


class OfficialProvider(Provider):
    """
    Official BRIGHT / MM-BRIGHT protocol

    Provides :class:`Official` measures by delegating the inner measure to the other providers
    of ir_measures' default pipeline, after dropping excluded documents and cutting to 1,000.
    """

    NAME = "ir_bright"

    def supports(self, measure: Measure) -> bool:
        """Whether ``measure`` is ``Official(m)`` with an ``m`` some other provider supports."""
        if not isinstance(measure, Official) or "measure" not in measure.params:
            return False
        return ir_measures.DefaultPipeline.supports(measure.inner)

    def _evaluator(self, measures: Iterable[Measure], qrels: Any) -> OfficialEvaluator:
        return OfficialEvaluator([m for m in measures if isinstance(m, Official)], qrels)


def split_qrels(
    qrels: Any,
) -> tuple[dict[str, Mapping[str, int]], Mapping[str, AbstractSet[str]]]:
    """Split qrels (any ir_measures format) into judgements >= 0 and excluded docs per query.

    A pair judged both ways (never the case in BRIGHT) is excluded from the ranking and still
    counts its non-negative judgement, as the benchmarks' own code would do. A dict of dicts
    is read, not copied: a query without exclusions keeps the caller's dict, and a query's
    excluded docs are an :class:`ExcludedDocs` view of it (never change the dicts while
    scoring); other formats are split column-wise into new dicts and sets, by C-level
    iterators, so a million exclusions take a fraction of a second.
    """
    if isinstance(qrels, dict):
        return _split_dict(qrels)
    query_ids, doc_ids, labels = _columns(
        qrels, QrelsConverter, ("query_id", "doc_id", "relevance")
    )
    negative = list(map(lt, labels, repeat(0)))
    kept = list(map(not_, negative))
    excluded = _group(compress(query_ids, negative), compress(doc_ids, negative), set)
    judgements = zip(compress(doc_ids, kept), compress(labels, kept))
    return _group(compress(query_ids, kept), judgements, dict), excluded


def _split_dict(
    qrels: Mapping[str, Mapping[str, int]],
) -> tuple[dict[str, Mapping[str, int]], dict[str, ExcludedDocs]]:
    judged: dict[str, Mapping[str, int]] = {}
    excluded: dict[str, ExcludedDocs] = {}
    for query_id, labels in qrels.items():
        kept: Mapping[str, int] = {d: label for d, label in labels.items() if label >= 0}
        if len(kept) < len(labels):
            excluded[query_id] = ExcludedDocs(labels, len(labels) - len(kept))
        else:
            kept = labels  # nothing excluded: the caller's dict is read as it is
        if kept:
            judged[query_id] = kept
    return judged, excluded


class ExcludedDocs(AbstractSet[str]):
    """The docs one query excludes, read from its labels (those below 0) without a copy.

    A set for every reader (``in``, iteration, ``len``, set operators); ``intersection``
    finds the excluded docs among a ranking at C speed.
    """

    __slots__ = ("_count", "_labels", "_set")

    def __init__(self, labels: Mapping[str, int], count: int):
        self._labels, self._count = labels, count
        self._set: set[str] | None = None

    @classmethod
    def _from_iterable(cls, iterable: Iterable[Any]) -> set[Any]:
        return set(iterable)  # set operators give plain sets

    def __contains__(self, doc_id: object) -> bool:
        labels: Mapping[Any, int] = self._labels  # any id may be asked for
        return labels.get(doc_id, 0) < 0

    def __iter__(self) -> Iterator[str]:
        return (doc_id for doc_id, label in self._labels.items() if label < 0)

    def __len__(self) -> int:
        return self._count

    def intersection(self, docs: Mapping[str, Any]) -> set[str]:
        """The excluded docs among the keys of ``docs`` (the set of excluded docs is made on
        first use and kept: a reused evaluator looks them up faster in a set)."""
        if self._set is None:
            labels = self._labels
            self._set = set(compress(labels, map(lt, labels.values(), repeat(0))))
        if isinstance(docs, dict):  # a keys view looks the (fewer) excluded docs up in docs
            return docs.keys() & self._set
        return self._set.intersection(docs)


def official_run(
    run: Any, excluded: Mapping[str, AbstractSet[str]], depth: int = DEPTH
) -> dict[str, Mapping[str, float]]:
    """The run (any ir_measures format) as a dict of dicts, excluded docs dropped, cut to
    ``depth`` per query (score descending, then doc id descending, as trec_eval ranks).

    A dict of dicts is read, never changed: a query's docs are copied only when some of them
    are dropped, otherwise the caller's dict is passed on as it is (a :class:`ConsumableRun`
    is filtered in place instead). Ids holding a NUL character are refused (pytrec_eval would
    cut them short and score another id).
    """
    if isinstance(run, dict):
        ranked, owned = run, type(run) is ConsumableRun
    else:
        ranked, owned = _run_dict(run), True
    refuse_nul(ranked, "run")
    return {
        query_id: _official_docs(docs, excluded.get(query_id), depth, owned)
        for query_id, docs in ranked.items()
    }


class ConsumableRun(CheckedRun):
    """A run read by :func:`~ir_bright.runs.read_run` into dicts no one else holds, which
    :func:`official_run` may therefore filter in place."""


def _official_docs(
    docs: Mapping[str, float], gone: Any, depth: int, owned: bool
) -> Mapping[str, float]:
    if gone:
        # iterate the smaller side: a set is intersected with the ranking's keys
        dropped = docs.keys() & gone if type(gone) is set else gone.intersection(docs)
        if dropped:
            kept = docs if owned and isinstance(docs, dict) else dict(docs)
            for doc_id in dropped:
                del kept[doc_id]
            docs = kept
    if len(docs) > depth:
        docs = dict(_best(docs, depth))
    return docs


def _best(docs: Mapping[str, float], depth: int) -> list[tuple[str, float]]:
    """The ``depth`` best (doc id, score) items of ``docs`` in trec_eval's order.

    A short cut of a long ranking sorts only the items scoring at least the ``depth``-th best
    score (found at C speed); the full sort is the fallback (and the path for NaN scores).
    """
    items: Iterable[tuple[str, float]] = docs.items()
    if depth * 8 <= len(docs):
        kth = nlargest(depth, docs.values())[-1]
        candidates = list(compress(items, map(ge, docs.values(), repeat(kth))))
        if len(candidates) >= depth:
            items = candidates
    return sorted(items, key=_TREC_ORDER, reverse=True)[:depth]


_TREC_ORDER = itemgetter(1, 0)
"""The sort key of a (doc id, score) item in trec_eval's order, reversed: score, then doc id."""

_TOP_ONLY = {"nDCG", "P", "R", "AP", "Success"}
"""Measures that, given a cutoff k (and not ``judged_only``), read only a ranking's top k."""


def needed_depth(measures: Iterable[Measure]) -> int:
    """How deep a ranking the measures read: the largest cutoff when every measure reads only
    its top k (``nDCG@10``, ``R@100``) and is computed by trec_eval, else :data:`DEPTH`.

    The values are the same from the cut ranking: the ideal ranking and the number of relevant
    docs come from the qrels, and trec_eval orders the cut ranking as it was cut. (Another
    provider may break ties otherwise: ir_measures' ``RR@10`` sorts tied docs by ascending
    id, so the 10 it would rank first are not the 10 trec_eval keeps.)
    """
    cutoffs = []
    for measure in measures:
        cutoff = measure.params.get("cutoff")
        if (
            measure.NAME not in _TOP_ONLY
            or not isinstance(cutoff, int)  # absent (or ir_measures' NOT_PROVIDED)
            or measure.params.get("judged_only")
            or _provider(measure) != "pytrec_eval"
        ):
            return DEPTH
        cutoffs.append(cutoff)
    return min(DEPTH, max(cutoffs, default=DEPTH))


def _provider(measure: Measure) -> str | None:
    """The name of the provider ir_measures' default pipeline computes ``measure`` with."""
    for provider in ir_measures.DefaultPipeline.providers:
        if provider.supports(measure) and provider.is_available():
            return provider.NAME
    return None


def _run_dict(run: Any) -> dict[str, dict[str, float]]:
    """The run as a dict of dicts; a repeated (query, doc) pair keeps its last score, as
    ir_measures reads runs."""
    query_ids, doc_ids, scores = _columns(run, RunConverter, ("query_id", "doc_id", "score"))
    ranked: dict[str, dict[str, float]] = {}
    for query_id, start, end in query_spans(query_ids):
        docs = dict(zip(doc_ids[start:end], scores[start:end]))
        found = ranked.get(query_id)
        if found is None:
            ranked[query_id] = docs
        else:
            found.update(docs)
    return ranked


def _columns(data: Any, converter_type: type, names: tuple[str, str, str]) -> list[list[Any]]:
    """Three columns of qrels or a run given in any ir_measures format.

    An iterable is read once as it is: ir_measures' own format check would wrap it in one
    more tee, which every record would then pass through.
    """
    if hasattr(data, "itertuples") or not hasattr(data, "__iter__") or isinstance(data, dict):
        kind, error = converter_type(data).predict_type()
        if kind == "pd_dataframe":  # ids that are not text (integer query ids) are read as text
            columns = [data[name].tolist() for name in names]
            return [_text(column) for column in columns[:2]] + columns[2:]
        if kind == "dict_of_dict":
            rows = [(q, d, v) for q, values in data.items() for d, v in values.items()]
            return [list(column) for column in zip(*rows)] or [[], [], []]
    else:
        records = data if isinstance(data, list | tuple) else list(data)
        try:
            return [list(map(attrgetter(name), records)) for name in names]
        except AttributeError:
            kind, error = converter_type(records).predict_type()
    raise ValueError(f"unknown {'run' if converter_type is RunConverter else 'qrels'}: {error}")


def _text(values: list[Any]) -> list[Any]:
    return values if set(map(type, values)) <= {str} else list(map(str, values))


def _group(query_ids: Iterable[str], items: Iterable[Any], bucket: type) -> dict[str, Any]:
    """``{query_id: bucket(items of that query)}``; runs of one query are added in one call."""
    grouped: dict[str, Any] = {}
    for query_id, rows in groupby(zip(query_ids, items), key=itemgetter(0)):
        found = grouped.get(query_id)
        if found is None:
            found = grouped[query_id] = bucket()
        found.update(map(itemgetter(1), rows))
    return grouped


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


PROVIDER = OfficialProvider()


def register() -> None:
    """Hook :class:`Official` into ir_measures (idempotent).

    Registers the measure name and :data:`PROVIDER` with ir_measures, puts the provider at the
    head of ``ir_measures.DefaultPipeline`` (it only claims ``Official`` measures), and makes
    ``ir_measures.parse_measure`` read ``Official(...)``.
    """
    ir_measures.measures.registry[NAME] = Official()
    put_provider_first(PROVIDER)
    install_measure_parser(parse_measure)
