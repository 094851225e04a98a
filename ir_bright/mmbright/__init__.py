"""MM-BRIGHT (Abdallah et al., 2026) as ir_datasets datasets: 29 domains, four tasks.

Ids, for every domain:

- ``mm-bright/<domain>``: the text corpus (``documents``), docs only.
- ``mm-bright/<domain>/task1``: text queries (``examples``) over the text corpus.
- ``mm-bright/<domain>/task2``: multimodal queries (``examples_multimodal``) over the text corpus.
- ``mm-bright/<domain>/task3``: multimodal queries over the domain's decodable images.
- ``mm-bright/<domain>/task4``: multimodal queries over the (passage, image) pair corpus,
  graded, ``paper`` key rule; ``.../task4-legacy``: the ``legacy`` key rule of the paper's tables.

Modules: :mod:`.ids` (the ids, from the data files alone), :mod:`.collection` (the datasets,
built on first use; :func:`summary`), :mod:`.keys` (key rules, pair ids), :mod:`.source` (hub
files, query rows), :mod:`.images` (image stores, decodability), :mod:`.pairs` (the pair
corpus), :mod:`.tasks` (queries and qrels of each task). Facts live in ``etc/mmbright_*.json``
and ``etc/mmbright.json``.
"""

from .. import lazy
from .ids import KEY_RULE_OF_TASK, NAMESPACE, REPLACEMENT_REASON, TASKS, dataset_ids

__all__ = [
    "KEY_RULE_OF_TASK",
    "NAMESPACE",
    "NO_IMAGE",
    "REPLACEMENT_REASON",
    "TASKS",
    "dataset_ids",
    "datasets",
    "summary",
]

__getattr__ = lazy.exports(
    __name__, {"NO_IMAGE": "keys", "datasets": "collection", "summary": "collection"}
)
