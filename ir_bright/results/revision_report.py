"""``ir-bright diff``'s result: the datasets' changes between two revisions and, for each run
given, its scores under both (:func:`make_diff`), written as markdown or JSON."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import RunFormatError
from .revision_diff import DatasetDiff, diff, load_pair, pairs, split_id
from .revision_scores import (
    ScoreDiff,
    check_measure,
    headline_measure,
    run_paths,
    runs_by_dataset,
    score_diff,
)
from .tables import Grid, render

FORMATS = ("markdown", "json")
"""The formats a diff is written in."""

_COLUMNS = {
    "docs": ("docs_added", "docs_removed", "docs_changed"),
    "queries": ("queries_added", "queries_removed", "queries_changed"),
    "gold": ("gold_added", "gold_removed"),
    "excluded": ("excluded_added", "excluded_removed"),
}
_SIGNS = {"added": "+", "removed": "-", "changed": "~"}


@dataclass
class DiffReport:
    """What ``ir-bright diff OLD NEW [--run RUN...]`` found."""

    old: str
    new: str
    datasets: dict[str, DatasetDiff]
    scores: dict[str, ScoreDiff] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        """``{"datasets": {id: counts and queries}}``, and ``"scores": {run: {"old", "new",
        "per_query"}}`` when runs were scored."""
        document: dict[str, Any] = {
            "datasets": {i: found.as_json() for i, found in self.datasets.items()}
        }
        if self.scores:
            document["scores"] = {run: found.as_json() for run, found in self.scores.items()}
        return document


def make_diff(
    old: str, new: str, runs: Sequence[str] = (), measure: str | None = None
) -> DiffReport:
    """Compare ``old`` and ``new`` (see :func:`~.revision_diff.diff`) and score each of
    ``runs`` under both with ``measure`` (default: each dataset's headline measure)."""
    measure = check_measure(measure)
    scored = runs_by_dataset(runs, pairs(old, new)) if runs else []
    missing = [path for path in run_paths(runs) if path != "-" and not os.path.exists(path)]
    if missing:  # before the comparison, which may download gigabytes
        raise RunFormatError(f"{missing[0]}: no such run file")
    datasets = diff(old, new)
    scores = {}
    for argument, pair in scored:
        if pair.dataset_id not in datasets:
            continue  # on the hub at neither revision (a warning said so)
        changes = datasets[pair.dataset_id]
        before, after = load_pair(pair)
        sides = (before if changes.at_old else None, after if changes.at_new else None)
        wanted = measure or headline_measure(before)
        scores[argument] = score_diff(argument, sides, changes, wanted)
    return DiffReport(old, new, datasets, scores)


def format_diff(report: DiffReport, fmt: str = "markdown") -> str:
    """The report as markdown (tables of counts, of the queries touched and of each run's
    scores) or as JSON (:meth:`DiffReport.as_json`)."""
    from .errors import ReportError

    if fmt == "json":
        return render(Grid([], []), "json", document=report.as_json(), error=ReportError)
    parts = [_counts_table(report), _queries_table(report)]
    parts += [_scores_table(report), *(_moves_table(s) for s in report.scores.values())]
    return "\n".join(render(grid, fmt, error=ReportError) for grid in parts if grid is not None)


def _counts_table(report: DiffReport) -> Grid:
    header = [
        "dataset",
        *(f"{what} {'/'.join(_sign(c) for c in cs)}" for what, cs in _COLUMNS.items()),
    ]
    rows = [
        [i, *("/".join(str(found.counts[c]) for c in cs) for cs in _COLUMNS.values())]
        for i, found in report.datasets.items()
    ]
    note = (
        f"From {_with_commit(report.old)} to {_with_commit(report.new)}: + added, - removed, "
        "~ changed (documents: any field but the id; queries: their text); gold and excluded "
        "pairs over every query."
    )
    return Grid(header, rows, 1, notes=[note])


def _with_commit(given: str) -> str:
    """``bright/biology (3066d29, mteb-v1.1)``: an id as given, with the commit it was read at
    and that commit's alias, when its family reads one repository at one commit."""
    from ..families import family_of
    from ..hub.config import revision

    base, asked = split_id(given)
    family = family_of(base)
    repo = family.repo(base) if family is not None else None
    if family is None or repo is None or family.hub.revision is None:
        return given
    aliases = family.aliases()
    commit = asked[1:] if asked else revision(repo, family.hub.revision)
    commit = aliases.get(commit, commit)
    if len(commit) != 40:  # a branch, or a commit's prefix: shown as given
        return given
    alias = next((a for a, c in aliases.items() if c == commit and a != asked[1:]), None)
    return f"{given} ({commit[:7]}{f', {alias}' if alias else ''})"


def _sign(count: str) -> str:
    return _SIGNS[count.rsplit("_", 1)[1]]


def _queries_table(report: DiffReport) -> Grid | None:
    rows = [
        [dataset_id, query_id, ", ".join(kinds)]
        for dataset_id, found in report.datasets.items()
        for query_id, kinds in found.queries.items()
    ]
    if not rows:
        return None
    return Grid(["dataset", "query", "changes"], rows, 3)


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.4f}"


def _scores_table(report: DiffReport) -> Grid | None:
    if not report.scores:
        return None
    rows = [
        [run, s.dataset_id, s.measure, _score(s.old), _score(s.new), _signed(s.difference)]
        for run, s in report.scores.items()
    ]
    header = ["run", "dataset", "measure", "old", "new", "difference"]
    return Grid(
        header, rows, 3, notes=["Official scores, the mean over each revision's scored queries."]
    )


def _moves_table(scores: ScoreDiff) -> Grid | None:
    moved = scores.moved()
    if not moved:
        return None
    rows = []
    for query_id, (old, new, kinds) in moved.items():
        change = None if old is None or new is None else new - old
        rows.append(
            [query_id, ", ".join(kinds) or "none", _score(old), _score(new), _signed(change)]
        )
    title = f"{scores.run}: the queries whose {scores.measure} moved, and why"
    return Grid(["query", "changes", "old", "new", "difference"], rows, 2, notes=[title])
