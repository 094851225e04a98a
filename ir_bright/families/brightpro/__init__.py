"""BRIGHT-Pro (Zhao et al., ACL 2026): the builder of the ``bright-pro`` family's datasets.

Ids, for each of biology, earth-science, economics, psychology, robotics, stackoverflow and
sustainable-living (spelt as ``bright/*``; declared in ``ir_bright/families/bright-pro.json``):

- ``bright-pro/<domain>``: docs ``GenericDoc(doc_id, text)``, queries
  ``BrightProQuery(query_id, text, reference_answer)``, qrels ``BrightProQrel`` (gold 1 with
  the doc's aspect and its normalised weight; see :mod:`.aspects`), and ``aspects_iter()``
  yielding ``BrightProAspect`` records.
- ``bright-pro/<domain>/agentic``: the fixed 25-query subset of the domain used for agentic
  search (from the official repository), same docs.

Modules: :mod:`.collection` (the datasets, built on first use; :func:`~.collection.summary`),
:mod:`.aspects` (the aspect maps) and :mod:`.source` (listing-API discovery, verification,
parquet / JSON / JSON Lines). Official measures: ``wAlpha_nDCG@25``, ``A_Recall@25``
(:mod:`ir_bright.scoring.aspect_measures`) and ``nDCG@10``.
"""
