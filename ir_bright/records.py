"""The record types ir_bright's datasets yield (namedtuples, as everywhere in ir_datasets).

Docs of text corpora are ir_datasets' own ``GenericDoc(doc_id, text)``; qrels are
``TrecQrel(query_id, doc_id, relevance, iteration)``. The query types are below.

The annotations are ir_datasets' contract, not only hints: its exporter (``python -m
ir_datasets export``), its documentation and its tests read ``__annotations__`` as runtime
types, exporting a field only when the type *is* ``str``, ``int`` or ``float`` or a
``typing.Tuple[X, ...]`` of one. So this module does not use ``from __future__ import
annotations``, a field that may be None is declared by the type of its value (as the core's
``BrightQuery`` does), and tuples are spelled ``Tuple[str, ...]`` (the builtin spelling is
skipped by the exporter).
"""

from typing import NamedTuple, Tuple  # noqa: UP035 - ir_datasets' exporter tests for Tuple

__all__ = [
    "BrightQuery",
    "BrightReasoningQuery",
    "MMBrightQuery",
    "MMBrightMultimodalQuery",
    "MMBrightImageDoc",
    "MMBrightPairDoc",
    "BrightProQuery",
    "BrightProQrel",
    "BrightProAspect",
    "R2MedExpandedQuery",
    "TempoQuery",
]


class BrightQuery(NamedTuple):
    """A BRIGHT query, field for field as ir_datasets' core module defines it.

    ``text`` is the post; ``reasoning`` the human rationale; the five ``*_reason`` fields hold
    each LLM's reasoning about the post (the ``query`` column of its ``*_reason`` config), or
    None when that file could not be fetched offline.
    """

    query_id: str
    text: str
    reasoning: str
    gold_answer: str
    gemini_1_0_reason: str
    claude_3_opus_reason: str
    gpt4_reason: str
    grit_reason: str
    llama3_70b_reason: str

    def default_text(self) -> str:
        """The text a retriever should use: the post."""
        return self.text


class BrightReasoningQuery(NamedTuple):
    """A query of the reasoning-query setting: ``text`` is an LLM's reasoning about the post.

    ``original_text`` is the post itself; ``reasoning`` the human rationale.
    """

    query_id: str
    text: str
    original_text: str
    reasoning: str
    gold_answer: str

    def default_text(self) -> str:
        """The text a retriever should use: the LLM's reasoning."""
        return self.text


# --- MM-BRIGHT ---------------------------------------------------------------------------------


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


# --- BRIGHT-Pro --------------------------------------------------------------------------------


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


# --- R2MED and TEMPO ---------------------------------------------------------------------------


class R2MedExpandedQuery(NamedTuple):
    """A query of an R2MED expansion set: ``text`` is the query R2MED's official BM25 code
    builds from the row (a reasoning LLM's answer alone; otherwise the method's composition of
    the original query and the LLM's output, e.g. HyDE's output alone).

    ``original_text`` is the task's query; ``llm_output`` the LLM's whole text (``hy_doc``);
    ``answer`` the answer extracted from a reasoning LLM's output (the output itself for the
    other LLMs, and where the extraction's mark is missing).
    """

    query_id: str
    text: str
    original_text: str
    llm_output: str
    answer: str

    def default_text(self) -> str:
        """The text a retriever should use: the built query."""
        return self.text


class TempoQuery(NamedTuple):
    """A TEMPO query (the ``examples`` config, or a ``<model>_reason`` config whose ``query``
    is that LLM's reasoning): the text and the accepted answers (HTML), a tuple of strings."""

    query_id: str
    text: str
    gold_answers: Tuple[str, ...]  # noqa: UP006

    def default_text(self) -> str:
        """The text a retriever should use."""
        return self.text
