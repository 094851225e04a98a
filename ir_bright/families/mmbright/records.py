"""The record types of MM-BRIGHT's datasets (namedtuples, as everywhere in ir_datasets).

The annotations are ir_datasets' contract, not only hints: its exporter (``python -m
ir_datasets export``), its documentation and its tests read ``__annotations__`` as runtime
types (:mod:`ir_bright.records` says more), so this module does not use ``from __future__
import annotations`` and spells tuples ``Tuple[str, ...]``.
"""

from typing import NamedTuple, Tuple  # noqa: UP035 - ir_datasets' exporter tests for Tuple

__all__ = [
    "MMBrightQuery",
    "MMBrightMultimodalQuery",
    "MMBrightImageDoc",
    "MMBrightPairDoc",
    "RECORDS",
]


class MMBrightQuery(NamedTuple):
    """A Task 1 query of MM-BRIGHT (the ``examples`` config).

    ``gold_answers`` is a tuple of strings (the hub's value as a one-item tuple when it is a
    string, empty when absent).
    """

    query_id: str
    text: str
    gold_answers: Tuple[str, ...]  # noqa: UP006

    def default_text(self) -> str:
        """The text a retriever should use: the post."""
        return self.text


class MMBrightMultimodalQuery(NamedTuple):
    """A Task 2-4 query of MM-BRIGHT (``examples_multimodal``): text plus its images.

    ``image_ids`` are the query's ``image_paths`` that resolve to a decodable query image, in
    the row's order; ``images`` holds their encoded bytes (webp, png, jpg ...) in the same
    order. Paths that do not resolve are skipped (the dataset summary counts them).
    """

    query_id: str
    text: str
    image_ids: Tuple[str, ...]  # noqa: UP006
    images: Tuple[bytes, ...]  # noqa: UP006
    gold_answers: Tuple[str, ...]  # noqa: UP006

    def default_text(self) -> str:
        """The text part of the query."""
        return self.text


class MMBrightImageDoc(NamedTuple):
    """A document image of MM-BRIGHT (Task 3): ``doc_id`` is its path, ``image`` the encoded
    file, ``format`` what Pillow identified it as, lowercase (``webp``, ``png``, ``jpeg`` ...)."""

    doc_id: str
    image: bytes
    format: str


class MMBrightPairDoc(NamedTuple):
    """A (passage, image) pair of MM-BRIGHT's Task 4 corpus.

    ``doc_id`` is ``<passage_id>|||<image path>``, or ``<passage_id>|||__NO_IMAGE__`` for the
    passage alone, in which case ``image_id`` and ``image`` are None.
    """

    doc_id: str
    passage_id: str
    text: str
    image_id: str
    image: bytes

    def default_text(self) -> str:
        """The passage's text."""
        return self.text


RECORDS = (MMBrightQuery, MMBrightMultimodalQuery, MMBrightImageDoc, MMBrightPairDoc)
"""The record types of the family's datasets."""
