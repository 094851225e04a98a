"""MM-BRIGHT (Abdallah et al., 2026): the builder of the ``mm-bright`` family's datasets.

Ids, for every domain (declared in ``ir_bright/families/mm-bright.json``):

- ``mm-bright/<domain>``: the text corpus (``documents``), docs only.
- ``mm-bright/<domain>/task1``: text queries (``examples``) over the text corpus.
- ``mm-bright/<domain>/task2``: multimodal queries (``examples_multimodal``) over the text corpus.
- ``mm-bright/<domain>/task3``: multimodal queries over the domain's decodable images.
- ``mm-bright/<domain>/task4``: multimodal queries over the (passage, image) pair corpus,
  graded, ``paper`` key rule; ``.../task4-legacy``: the ``legacy`` key rule of the paper's tables.

Modules: :mod:`.collection` (the datasets, built on first use; :func:`~.collection.summary`),
:mod:`.keys` (key rules, pair ids), :mod:`.source` (hub files, query rows), :mod:`.images`
(image stores, decodability), :mod:`.pairs` (the pair corpus), :mod:`.tasks` (queries and
qrels of each task).
"""
