"""The record types of BRIGHT-Pro's datasets (namedtuples, as everywhere in ir_datasets).

The annotations are ir_datasets' contract, not only hints: its exporter (``python -m
ir_datasets export``), its documentation and its tests read ``__annotations__`` as runtime
types (:mod:`ir_bright.records` says more), so this module does not use ``from __future__
import annotations`` and spells tuples ``Tuple[str, ...]``.
"""

from typing import NamedTuple, Tuple  # noqa: UP035 - ir_datasets' exporter tests for Tuple

__all__ = ["BrightProQuery", "BrightProQrel", "BrightProAspect", "RECORDS"]


class BrightProQuery(NamedTuple):
    """A BRIGHT-Pro query (the ``examples`` config): the post and the experts' reference
    answer (None when the row has none; declared ``str`` so ir_datasets' exporter keeps it)."""

    query_id: str
    text: str
    reference_answer: str

    def default_text(self) -> str:
        """The text a retriever should use: the post."""
        return self.text


class BrightProQrel(NamedTuple):
    """A BRIGHT-Pro judgement: ``TrecQrel``'s fields, then the aspect the official code maps
    the doc to (``""`` when none) and that aspect's weight normalised over its query (0.0 when
    none). Gold docs are 1; a doc an aspect of the query lists without being gold is 0."""

    query_id: str
    doc_id: str
    relevance: int
    iteration: str
    aspect_id: str
    aspect_weight: float


class BrightProAspect(NamedTuple):
    """A reasoning aspect of a BRIGHT-Pro query (the ``aspects`` config).

    ``weight`` is the raw Likert weight (1, 2 or 3); ``normalised_weight`` divides it by the
    sum over the aspects of the same query (the id without its ``-a{k}`` / ``-aspect-{k}``
    suffix); ``query_id`` is the last ``-`` part of that stem; ``supporting_docs`` its doc ids.
    """

    aspect_id: str
    query_id: str
    text: str
    weight: float
    normalised_weight: float
    supporting_docs: Tuple[str, ...]  # noqa: UP006


RECORDS = (BrightProQuery, BrightProQrel, BrightProAspect)
"""The record types of the family's datasets."""
