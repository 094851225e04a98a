"""The record types ir_bright's datasets yield (namedtuples, as everywhere in ir_datasets).

Docs of text corpora are ir_datasets' own ``GenericDoc(doc_id, text)``; qrels are
``TrecQrel(query_id, doc_id, relevance, iteration)``. The query types are below.
"""

from __future__ import annotations

from typing import NamedTuple

from ir_datasets.formats import GenericDoc, TrecQrel

__all__ = ["GenericDoc", "TrecQrel", "BrightQuery", "BrightReasoningQuery"]


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
    gemini_1_0_reason: str | None
    claude_3_opus_reason: str | None
    gpt4_reason: str | None
    grit_reason: str | None
    llama3_70b_reason: str | None

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
