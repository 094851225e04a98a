"""``report --check``'s revision warning: a published row made at another revision of the hub
data than the user's runs were scored at, and by how much that difference moves their score.

A published row states the revision it was made at where its source says so (``revision``: a
commit of the family's hub repository, with ``revision_source`` saying why; the BRIGHT
paper's rows: the data at its release, before the edits of September and November 2024). The
user's revision is the commit the scored datasets' qrels were fetched at (their provenance).
When the two differ, each system's run of each dataset is scored again with the qrels and
exclusions of the row's revision (only the small file of queries and judgements is fetched,
never a corpus): the warning gives the queries the diff of the two revisions touches and the
move of the dataset's score (ours minus the same run at the row's revision), in points x100,
and the move of the average.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import IrBrightError
from .references import published
from .scores import Table
from .systems import System

logger = logging.getLogger(__name__)

REVISION_KEY = "revision"
"""The key of a published row naming the commit it was made at."""


@dataclass(frozen=True)
class Move:
    """One run's score on one dataset at the row's revision and at ours, and the queries the
    diff between them touches (scored at either)."""

    dataset_id: str
    at_reference: float | None
    ours: float | None
    queries: int

    @property
    def points(self) -> float | None:
        """Ours minus at the reference's revision, x100."""
        if self.at_reference is None or self.ours is None:
            return None
        return (self.ours - self.at_reference) * 100


def revision_notes(table: Table, name: str, systems: Sequence[System]) -> list[str]:
    """The warnings (also added to the table's notes) when published row ``name`` was made at
    another revision than the datasets ``systems`` were scored at; none when it states no
    revision or the revisions agree."""
    spec = published(name, table.benchmark, table.measure)
    reference = spec.get(REVISION_KEY)
    if not reference:
        return []
    ids = [i for i in table.benchmark.ids if any(i in s.runs for s in systems)]
    ours = _commits(ids)
    differing = [i for i in ids if ours.get(i) not in (None, reference)]  # None: not known
    if not differing:
        return []
    notes = []
    for system in systems:
        notes.append(_system_note(system, name, reference, ours, differing, table.measure))
    for note in notes:
        logger.warning("%s", note)
    table.notes.extend(notes)
    return notes


def _commits(ids: Sequence[str]) -> dict[str, str | None]:
    """The commit each dataset's qrels were fetched at (None: unknown or mixed)."""
    from ..hub.fetch_records import UNKNOWN
    from ..provenance import dataset_provenance

    found = {i: dataset_provenance(i)["commit"] for i in ids}
    return {i: None if commit == UNKNOWN else commit for i, commit in found.items()}


def _system_note(
    system: System,
    name: str,
    reference: str,
    ours: dict[str, str | None],
    differing: Sequence[str],
    measure: str,
) -> str:
    """One line: the row's revision, ours, and per dataset the queries touched and the move."""
    theirs = _named(reference)
    commits = {c for i in differing if (c := ours.get(i))}
    mine = ", ".join(sorted(_named(c) for c in commits)) or "an unknown commit"
    head = f"{name} was made at {theirs}; {system.name}'s runs were scored at {mine}"
    moves, failures = [], []
    for dataset_id in differing:
        run = system.runs.get(dataset_id)
        if run is None:
            continue
        try:
            moves.append(_move(run, system.dataset_of(dataset_id), reference, measure))
        except IrBrightError as exc:  # the row's revision cannot be fetched: said, not fatal
            failures.append(f"{dataset_id} ({exc})")
    parts = [_move_text(move) for move in moves]
    average = _average_move(moves)
    if average is not None:
        parts.append(f"{average:+.2f} on their average")
    text = head
    if moves:
        text += f": the changes between the two move {measure} x100 by " + ", ".join(parts)
    if failures:
        text += "; not measured: " + ", ".join(failures)
    example = differing[0]
    return (
        text + f" (`ir-bright diff {example}@{reference[:7]} {example} --run RUN` shows each query)"
    )


def _move(run: Any, dataset_id: str, reference: str, measure: str) -> Move:
    """Score ``run`` at the reference's revision and at ours, on the qrels alone."""
    from .revision_diff import diff, load_pair, pairs
    from .revision_scores import SCORING_KINDS, score_diff

    old_id = f"{dataset_id}@{reference}"
    changes = diff(old_id, dataset_id, documents=False)[dataset_id]
    if not changes.at_old:
        raise IrBrightError(f"the hub has no {dataset_id} at {reference[:7]}")
    before, after = load_pair(pairs(old_id, dataset_id)[0])
    sides = (before if changes.at_old else None, after if changes.at_new else None)
    scores = score_diff(run, sides, changes, measure)
    touched = [q for q, (_, _, kinds) in scores.per_query.items() if SCORING_KINDS & set(kinds)]
    return Move(dataset_id, scores.old, scores.new, len(touched))


def _move_text(move: Move) -> str:
    points = move.points
    how = "-" if points is None else f"{points:+.2f}"
    queries = "1 query" if move.queries == 1 else f"{move.queries} queries"
    return f"{how} on {move.dataset_id} ({queries} judged differently)"


def _average_move(moves: Sequence[Move]) -> float | None:
    points = [m.points for m in moves if m.points is not None]
    if len(moves) < 2 or len(points) < len(moves):
        return None
    return sum(points) / len(points)


def _known(commit: str) -> tuple[str | None, str | None]:
    """The name and alias the families declare for ``commit`` (None where none)."""
    from ..provenance import known_revisions

    names = {c: known for (_, c), known in known_revisions().items()}
    return names.get(commit, (None, None))


def _named(commit: str) -> str:
    """``a75a0eb (mteb-v1: MTEB BRIGHT (first task))``: a short commit, its alias and name."""
    name, alias = _known(commit)
    if name is None:
        return commit[:7]
    return f"{commit[:7]} ({alias}: {name})" if alias else f"{commit[:7]} ({name})"
