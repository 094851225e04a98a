"""BRIGHT-Pro (Zhao et al., ACL 2026) as ir_datasets datasets: 7 domains, aspect-carrying qrels.

Ids, for each of biology, earth-science, economics, psychology, robotics, stackoverflow and
sustainable-living (spelt as ``bright/*``):

- ``bright-pro/<domain>``: docs ``GenericDoc(doc_id, text)``, queries
  ``BrightProQuery(query_id, text, reference_answer)``, qrels ``BrightProQrel`` (gold 1 with
  the doc's aspect and its normalised weight; see :mod:`.aspects`), and ``aspects_iter()``
  yielding ``BrightProAspect`` records.
- ``bright-pro/<domain>/agentic``: the fixed 25-query subset of the domain used for agentic
  search (``etc/brightpro_agentic.json``, from the official repository), same docs.

Modules: :mod:`.ids` (the ids, from the data files alone), :mod:`.collection` (the datasets,
built on first use; :func:`summary`), :mod:`.aspects` (the aspect maps) and :mod:`.source`
(listing-API discovery, verification, parquet / JSON / JSON Lines). Official measures:
``wAlpha_nDCG@25``, ``A_Recall@25`` (:mod:`ir_bright.scoring.aspects`) and ``nDCG@10``.
"""

from .. import lazy
from .ids import NAMESPACE, REPLACEMENT_REASON, dataset_ids

__all__ = [
    "NAMESPACE",
    "REPLACEMENT_REASON",
    "ProAspects",
    "ProQrels",
    "ProQueries",
    "dataset_ids",
    "datasets",
    "summary",
]

__getattr__ = lazy.exports(
    __name__,
    {
        name: "collection"
        for name in ("ProAspects", "ProQrels", "ProQueries", "datasets", "summary")
    },
)
