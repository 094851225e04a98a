"""The official protocol's ranking steps: each query's excluded documents dropped from its
ranking, then the ranking cut to its :data:`~ir_bright.families.OFFICIAL_DEPTH` best in
trec_eval's order.

The benchmarks' own code does the same: xlang-ai/BRIGHT ``retrievers.py`` ``get_scores``
(commit 5ec4cb3) pops each query's excluded ids, then keeps the 1,000 best by score;
mm-bright/MM-BRIGHT ``src/eval_runner.py`` (commit b35eaeb) likewise for its four tasks.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from itertools import islice
from typing import TYPE_CHECKING, Any

from ..families.declaration import OFFICIAL_DEPTH
from ..runs.columns import run_column_chunks
from ..runs.entries import (
    NUL,
    SLICE_ENTRIES,
    CheckedRun,
    query_spans,
    refuse_nul_ids,
    slices,
)
from ..runs.order import best

if TYPE_CHECKING:
    from ir_measures.measures.base import Measure

_TOP_ONLY = {"nDCG", "P", "R", "AP", "Success"}
"""Measures that, given a cutoff k (and not ``judged_only``), read only a ranking's top k."""


class ConsumableRun(CheckedRun):
    """A run read by :func:`~ir_bright.runs.read_run` into dicts no one else holds, which
    :func:`official_run` may therefore filter in place."""


class OfficialRun(dict):
    """A run already dropped and cut by :func:`official_docs` (as the run was read), with
    the ``excluded`` docs and ``depth`` it was cut with: :func:`official_run` passes it on
    as it is when asked for the same cut."""

    def __init__(self, excluded: Mapping[str, AbstractSet[str]], depth: int):
        super().__init__()
        self.excluded, self.depth = excluded, depth


def official_run(
    run: Any, excluded: Mapping[str, AbstractSet[str]], depth: int = OFFICIAL_DEPTH
) -> dict[str, Mapping[str, float]]:
    """The run (any ir_measures format) as a dict of dicts, excluded docs dropped, cut to
    ``depth`` per query (score descending, then doc id descending, as trec_eval ranks); the
    slices of :func:`official_slices` in one dict."""
    result: dict[str, Mapping[str, float]] = {}
    for part in official_slices(run, excluded, depth, entries=None):
        result.update(part)
    return result


def official_slices(
    run: Any,
    excluded: Mapping[str, AbstractSet[str]],
    depth: int = OFFICIAL_DEPTH,
    entries: int | None = SLICE_ENTRIES,
) -> Iterator[dict[str, Mapping[str, float]]]:
    """The run (any ir_measures format) in consecutive dicts of whole queries of about
    ``entries`` entries each (None: one dict), each query's excluded docs dropped and its
    ranking cut to ``depth`` (score descending, then doc id descending, as trec_eval ranks).

    One pass over each query, done just before its slice is handed on: its ids are checked for
    a NUL character (pytrec_eval would cut them short and score another id), its excluded docs
    dropped and its ranking cut while its entries are in the processor's cache, where the
    scorer then finds them. A dict of dicts is read, never changed: a query's docs are copied
    only when some of them are dropped, otherwise the caller's dict is passed on as it is (a
    :class:`ConsumableRun` is filtered in place instead).
    """
    if type(run) is OfficialRun and run.excluded is excluded and run.depth == depth:
        return slices(run.items(), entries)
    if not isinstance(run, dict):
        run = _columns_run(run)
    return slices(_official_queries(run, excluded, depth), entries)


def _official_queries(
    run: dict[str, Mapping[str, float]], excluded: Mapping[str, AbstractSet[str]], depth: int
) -> Iterator[tuple[str, Mapping[str, float]]]:
    """Each query of a dict-of-dicts run, its ids checked for a NUL (unless the run was read
    strictly), its excluded docs dropped and its ranking cut."""
    owned, checked = type(run) is ConsumableRun, isinstance(run, CheckedRun)
    get = excluded.get
    for query_id, docs in run.items():
        if not checked:
            _refuse_nul(query_id, docs)
        yield query_id, official_docs(docs, get(query_id), depth, owned)


def official_docs(
    docs: Mapping[str, float], gone: Any, depth: int, owned: bool = True
) -> Mapping[str, float]:
    """One query's ranking without its excluded docs (``gone``), cut to ``depth``; ``owned``:
    ``docs`` is a dict no one else holds, filtered in place rather than copied."""
    if gone:
        # iterate the smaller side: a set is intersected with the ranking's keys
        dropped = docs.keys() & gone if type(gone) is set else gone.intersection(docs)
        if dropped:
            kept = docs if owned and isinstance(docs, dict) else dict(docs)
            for doc_id in dropped:
                del kept[doc_id]
            docs = kept
    if len(docs) > depth:
        docs = dict(best(docs, depth))
    return docs


def _refuse_nul(query_id: Any, docs: Mapping[Any, Any]) -> None:
    """Refuse a NUL in one query's ids (joined at C speed; ids that are not text are left
    to the scorer to refuse)."""
    try:
        if NUL not in query_id and NUL not in "".join(docs):
            return
    except TypeError:
        return
    refuse_nul_ids(query_id, docs, "run")


def needed_depth(measures: Iterable[Measure]) -> int:
    """How deep a ranking the measures read: the largest cutoff when every measure reads only
    its top k (``nDCG@10``, ``R@100``) and is computed by trec_eval, else
    :data:`~ir_bright.families.OFFICIAL_DEPTH`.

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
            or provider_name(measure) != "pytrec_eval"
        ):
            return OFFICIAL_DEPTH
        cutoffs.append(cutoff)
    return min(OFFICIAL_DEPTH, max(cutoffs, default=OFFICIAL_DEPTH))


def provider_name(measure: Measure) -> str | None:
    """The name of the provider ir_measures' default pipeline computes ``measure`` with."""
    return next((provider.NAME for provider, _ in computed_by([measure])), None)


def computed_by(measures: Iterable[Measure]) -> list[tuple[Any, list[Measure]]]:
    """``(provider, its measures)``: which provider of ir_measures' default pipeline computes
    each of ``measures``, the first that supports it and is available, as the pipeline's own
    evaluator assigns them.

    Only providers that support a measure still unassigned are asked whether they are
    available: asking imports a provider (ranx, where installed, takes seconds), and ir_measures'
    ``DefaultPipeline.qrel_inputs`` asks every one.
    """
    assigned = []
    left = list(measures)
    import ir_measures

    for provider in ir_measures.DefaultPipeline.providers:
        if not left:
            break
        supported = [m for m in left if provider.supports(m)]
        if supported and provider.is_available():
            assigned.append((provider, supported))
            left = [m for m in left if m not in supported]
    return assigned


def _columns_run(run: Any) -> ConsumableRun:
    """A run in any other ir_measures format as dicts of its own, read as ir_measures reads it
    (a repeated (query, doc) pair keeps its last score), each query's ids checked for a NUL
    as its dict is built."""
    ranked = ConsumableRun()
    for query_ids, doc_ids, scores in run_column_chunks(run):
        pairs = zip(doc_ids, scores)  # consumed a query at a time: no slice of the columns
        for query_id, start, end in query_spans(query_ids):
            docs = dict(islice(pairs, end - start))
            _refuse_nul(query_id, docs)  # while its ids are in the processor's cache
            found = ranked.get(query_id)
            if found is None:
                ranked[query_id] = docs
            else:
                found.update(docs)
    return ranked
