"""PyTerrier integration; PyTerrier itself is imported only when one of these is used.

- ``pt.get_dataset("irds:bright/biology")`` works once ir_bright is imported (the id is
  registered with ir_datasets); the ``pyterrier.dataset_provider`` entry point ``bright``
  (setup.cfg) makes ``pt.get_dataset("bright:biology")`` work with no import
  (:class:`BrightDatasetProvider`): its topics default to the query text (``text``), its qrels
  carry ``label`` (excluded documents -100).
- :func:`bm25_transformer` is the BM25 baseline as a retriever, and
  :func:`drop_excluded_transformer` removes from a result frame the documents each query
  excludes, for pipelines that want a clean run (``Official(...)`` measures do not need it).

The transformers and the dataset class subclass PyTerrier's, so they live in
:mod:`.transformers` and :mod:`.datasets`, imported by the functions here on first use.
"""

from __future__ import annotations

from typing import Any

from ..bm25.params import DEFAULT_PARAMS

__all__ = ["BrightDatasetProvider", "bm25_transformer", "drop_excluded_transformer"]


def drop_excluded_transformer(dataset: Any) -> Any:
    """A ``pt.Transformer`` dropping each query's excluded documents from a result frame.

    ``dataset`` is an id, an ir_datasets dataset or a PyTerrier one (``pt.get_dataset``); its
    exclusions are read on first use and kept. Rows keep their order and columns; ``rank`` (if
    present) is recomputed per query. An empty frame (PyTerrier's validation call) is returned
    as it is, without reading anything.
    """
    from .transformers import DropExcluded

    return DropExcluded(dataset)


def bm25_transformer(
    dataset: Any,
    k1: float = DEFAULT_PARAMS.k1,
    b: float = DEFAULT_PARAMS.b,
    query_side: bool | None = None,
    depth: int | None = None,
) -> Any:
    """The BM25 baseline as a ``pt.Transformer``: topics (``qid``, ``query``) in, results
    (``qid``, ``query``, ``docno``, ``score``, ``rank``) out, over ``dataset``'s corpus, each
    query's excluded documents removed before the cut (the index is built or loaded on first
    use, as by ``ir-bright bm25``). ``dataset`` is an id, an ir_datasets dataset or a
    PyTerrier one; ``query_side`` and ``depth`` left None are those of the family's official
    BM25, as ``ir-bright bm25``'s defaults; an empty topics frame (PyTerrier's validation
    call) gives an empty result without loading the index."""
    from .transformers import BrightBM25

    return BrightBM25(dataset, k1, b, query_side, depth)


class BrightDatasetProvider:
    """PyTerrier's dataset provider for ``bright:<name>``.

    ``<name>`` is a BRIGHT id without its ``bright/`` prefix (``biology``,
    ``pony-long/gpt4-reason``) or any full ir_bright id (``mm-bright/academia/task1``,
    ``r2med/biology``), either at a revision too (``bright/biology@mteb-v1``,
    ``biology@mteb-v1``).
    """

    def get_dataset(self, name: str) -> Any:
        """The dataset for ``name``; unknown names raise ``KeyError`` (PyTerrier's contract)."""
        from .. import registry
        from ..errors import DatasetNotFoundError

        registry.register()
        ids = set(registry.our_ids())
        plain, at, revision = name.partition("@")
        dataset_id = name if plain in ids else f"{_bare_namespace()}/{name}"
        if at or dataset_id not in ids:
            try:
                registry.load(dataset_id)
            except DatasetNotFoundError as exc:
                raise KeyError(str(exc)) from None
        return provided_dataset(dataset_id)

    def list_dataset_names(self) -> list[str]:
        """Every name this provider answers (ids without the ``bright/`` prefix)."""
        from .. import registry

        registry.register()
        prefix = f"{_bare_namespace()}/"
        return [i.removeprefix(prefix) for i in registry.our_ids() if "/" in i]


def _bare_namespace() -> str:
    """The namespace whose ids the provider takes without it: the first declared family's."""
    from ..families import families

    return families()[0].namespace


def provided_dataset(dataset_id: str) -> Any:
    """The PyTerrier dataset the ``bright`` provider gives for ``dataset_id`` (a full id)."""
    from .datasets import BrightDataset

    return BrightDataset(dataset_id)
