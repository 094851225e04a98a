"""The record types of BRIGHT's datasets (namedtuples, as everywhere in ir_datasets).

The annotations are ir_datasets' contract, not only hints: its exporter (``python -m
ir_datasets export``), its documentation and its tests read ``__annotations__`` as runtime
types (:mod:`ir_bright.records` says more), so this module does not use ``from __future__
import annotations`` and spells tuples ``Tuple[str, ...]``.
"""

from typing import NamedTuple

__all__ = ["BrightQuery", "BrightReasoningQuery", "RECORDS"]


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


RECORDS = (BrightQuery, BrightReasoningQuery)
"""The record types of the family's datasets."""
