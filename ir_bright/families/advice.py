"""The commands ir_bright advises for scoring an id, made from the declarations.

A dataset id is scored by ``ir-bright evaluate ID RUN``. A family's own id (``bright``,
``r2med``, ...) is no dataset: its datasets' queries share ids (BRIGHT's domains and R2MED's
tasks each number theirs 0, 1, ...), so one run cannot hold them all, and the family's figure is
the macro average of one run per dataset, which ``ir-bright report RUNS --benchmark NAME``
makes (a folder of runs named after their datasets, ``/`` written ``__``). So a family id is
refused with those two commands rather than scored. Standard library only, as
:mod:`.declaration`.
"""

from __future__ import annotations

from .declaration import Family, families

RUN = "RUN"
"""The placeholder of a run file in advised commands."""

RUNS = "RUNS"
"""The placeholder of a folder of runs, one per dataset, named as ``report`` wants them."""


def _family_named(namespace: str) -> Family | None:
    """The family whose own id ``namespace`` is."""
    return next((found for found in families() if found.namespace == namespace), None)


def scoring_commands(dataset_id: str, judged: bool = True) -> list[str]:
    """The commands that score runs for ``dataset_id``: ``evaluate`` for a dataset with qrels
    (``judged``; none without); for a family's own id, ``evaluate`` on its first dataset and
    ``report`` on its headline benchmark."""
    found = _family_named(dataset_id)
    if found is None or judged:
        return [f"ir-bright evaluate {dataset_id} {RUN}"] if judged else []
    name, bench = next(iter(found.benchmarks().items()))
    return [
        f"ir-bright evaluate {bench.dataset_of(bench.ids[0])} {RUN}",
        f"ir-bright report {RUNS} --benchmark {name}",
    ]


def bm25_command(dataset_id: str) -> str:
    """The command that makes the official BM25 run of ``dataset_id`` (of a family's first
    dataset, for the family's own id)."""
    found = _family_named(dataset_id)
    if found is not None:
        dataset_id = next(iter(found.benchmarks().values())).run_ids[0]
    return f"ir-bright bm25 {dataset_id} -o {RUN}"


def family_refusal(dataset_id: str) -> str | None:
    """Why runs cannot be scored on ``dataset_id`` when it is a family's own id without
    qrels, with the commands to use instead; None for any other id."""
    found = _family_named(dataset_id)
    if found is None:
        return None
    one, table = scoring_commands(dataset_id, judged=False)
    name = next(iter(found.benchmarks()))
    first = found.benchmarks()[name].run_ids[0]
    return (
        f"{dataset_id} is the {found.collection.pretty_name} family, not one dataset: score "
        f"a run of one of its datasets with `{one}`, or "
        f"the family's table, the mean over its datasets, from a folder {RUNS} holding a run "
        f"per dataset named after it ({first.replace('/', '__')}.trec, ...) with `{table}`"
    )
