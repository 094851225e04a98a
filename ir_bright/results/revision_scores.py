"""A run scored under two revisions of its dataset, each query's move explained by what
changed (``ir-bright diff OLD NEW --run RUN``).

A fixed run's official score on a query depends only on that query's judgements and
exclusions, so every query whose score moved is touched by a change: ``gold_changed``,
``excluded_changed``, ``query_added`` or ``query_removed`` (:mod:`.revision_diff`). A move
without one would be a bug; it is logged as an error, never hidden.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ReportError
from .revision_diff import DatasetDiff, Pair, natural
from .systems import is_id_path

logger = logging.getLogger(__name__)

PerQuery = dict[str, tuple[float | None, float | None, list[str]]]

SCORING_KINDS = frozenset({"query_added", "query_removed", "gold_changed", "excluded_changed"})
"""The change kinds that can move a fixed run's score: the others (a query's text, a
document's text) change no judgement."""


@dataclass
class ScoreDiff:
    """One run's official mean of ``measure`` under the old and the new revision (None where
    no query is scored), and per query scored at either: ``(old, new, change kinds)``, None
    on the side where the query is not scored."""

    run: str
    dataset_id: str
    measure: str
    old: float | None
    new: float | None
    per_query: PerQuery

    @property
    def difference(self) -> float | None:
        """New minus old, or None when a side has no score."""
        return None if self.old is None or self.new is None else self.new - self.old

    def moved(self) -> PerQuery:
        """The queries whose score differs between the revisions (or exists at one only)."""
        return {q: entry for q, entry in self.per_query.items() if entry[0] != entry[1]}

    def unexplained(self) -> list[str]:
        """The queries whose score moved though no change touches them (never, unless a bug)."""
        return [q for q, (_, _, kinds) in self.moved().items() if not kinds]

    def as_json(self) -> dict[str, Any]:
        """``{"old", "new", "per_query": {query id: [old, new, kinds]}}``."""
        per_query = {q: [old, new, list(kinds)] for q, (old, new, kinds) in self.per_query.items()}
        return {"old": self.old, "new": self.new, "per_query": per_query}


def headline_measure(dataset: Any) -> str:
    """The first of a dataset's official measures (its papers' headline)."""
    from ..scoring.scorer import official_measures

    return str(official_measures(dataset)[0])


def per_query_scores(
    run: Any, dataset: Any, measure: str, label: str, force: bool = False
) -> dict[str, float]:
    """``{query id: official value of measure}`` of the run on ``dataset``, every scored
    query included (a query the run misses scores the measure's default, as in ``evaluate``);
    a run none of whose documents is judged there is refused unless ``force``."""
    from ..scoring import Scorer

    scores = Scorer(dataset, [measure], force=force).per_query(run, label)
    return {query_id: values[measure] for query_id, values in scores.items()}


def _both_sides(
    run: Any, datasets: tuple[Any | None, Any | None], measure: str, label: str
) -> list[dict[str, float]]:
    """The run's per-query scores on each side (empty where the dataset is not on the hub).
    A run judged at one revision only (its gold documents changed) is scored at the other
    all the same; a run judged at neither is refused as ``evaluate`` refuses it."""
    from ..errors import RunFormatError

    found: list[dict[str, float] | None] = []
    refusals = []
    for dataset in datasets:
        try:
            found.append({} if dataset is None else per_query_scores(run, dataset, measure, label))
        except RunFormatError as exc:
            found.append(None)
            refusals.append(exc)
    if refusals and all(side is None for side in found):
        raise refusals[0]
    return [
        per_query_scores(run, dataset, measure, label, force=True) if side is None else side
        for side, dataset in zip(found, datasets, strict=True)
    ]


def mean(values: Sequence[float]) -> float | None:
    """The mean of the values that are numbers (a measure that skips a query gives NaN)."""
    kept = [v for v in values if not math.isnan(v)]
    return sum(kept) / len(kept) if kept else None


def score_diff(
    run: str | Path,
    datasets: tuple[Any | None, Any | None],
    changes: DatasetDiff,
    measure: str,
) -> ScoreDiff:
    """Score ``run`` on the old and the new dataset (None: a side where the dataset is not on
    the hub) and explain each query's move by ``changes``."""
    label = str(run)
    old, new = _both_sides(_path(run), datasets, measure, label)
    result: PerQuery = {}
    for query_id in sorted({*old, *new}, key=natural):
        kinds = changes.queries.get(query_id, [])
        result[query_id] = (old.get(query_id), new.get(query_id), list(kinds))
    made = ScoreDiff(
        label,
        changes.dataset_id,
        measure,
        mean(list(old.values())) if old else None,
        mean(list(new.values())) if new else None,
        result,
    )
    for query_id in made.unexplained():
        logger.error(
            "%s: the score of query %s moved with no change touching it: a bug, please report it",
            label,
            query_id,
        )
    return made


def runs_by_dataset(runs: Sequence[str], found: Sequence[Pair]) -> list[tuple[str, Pair]]:
    """Each ``--run`` argument with the dataset it is scored on: the diff's one dataset, or,
    in a family-level diff, the one its file name (or ``ID=PATH``) names."""
    from .benchmarks import dataset_from_filename, filename_for

    by_id = {pair.dataset_id: pair for pair in found}
    result = []
    for argument in runs:
        given, _, path = argument.rpartition("=") if is_id_path(argument) else ("", "", argument)
        dataset_id = given or (found[0].dataset_id if len(found) == 1 else None)
        if dataset_id is None:
            dataset_id = dataset_from_filename(Path(path).name)
        if dataset_id not in by_id:
            example = filename_for(found[0].dataset_id)
            raise ReportError(
                f"--run {argument}: {dataset_id!r} is not a dataset of this diff: name the run "
                f"file after its dataset ({example}) or give ID=PATH"
            )
        result.append((argument, by_id[dataset_id]))
    return result


def run_paths(runs: Sequence[str]) -> list[str]:
    """The files of ``--run`` arguments (``ID=PATH`` gives its path)."""
    return [str(_path(run)) for run in runs]


def _path(run: str | Path) -> Any:
    """A run argument as a path (``ID=PATH`` gives its path; ``-`` stays stdin)."""
    text = str(run)
    if is_id_path(text):
        text = text.rpartition("=")[2]
    return text if text == "-" else Path(text)


def check_measure(measure: str | None) -> str | None:
    """``measure`` in its canonical spelling (``ndcg@10`` -> ``nDCG@10``), or None; a measure
    ir_measures cannot parse is a one-line error."""
    if measure is None:
        return None
    from ..scoring import parse_measures

    return str(parse_measures([measure])[0])
