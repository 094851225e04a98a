"""BRIGHT's dataset ids, from ``etc/bright.json`` and ``etc/bright_counts.json`` alone: what
``import ir_bright`` registers before any dataset is built (:mod:`.collection` builds them)."""

from __future__ import annotations

from collections.abc import Iterator

from ..datafiles import DomainSetting, domain_settings, etc_json

__all__ = [
    "NAMESPACE",
    "REPLACEMENT_REASON",
    "adjusted_id",
    "dataset_ids",
    "reasoning_id",
    "settings",
]

NAMESPACE = "bright"
REPLACEMENT_REASON = (
    "ir_bright's BRIGHT loader gives -long datasets their long qrels and the *_reason fields "
    "the LLM text (the core's do not), and adds the <model>-reason query datasets"
)


def settings() -> Iterator[DomainSetting]:
    """Every domain in every document setting it has (long documents: 8 domains)."""
    counts = etc_json("bright_counts.json")
    for setting in domain_settings(NAMESPACE, "bright.json"):
        if not setting.long or counts[setting.split]["long_docs"]:
            yield setting


def adjusted_id(base: str) -> str:
    """The id of a short-document base id's duplicate-aware qrels."""
    return f"{base}/adjusted"


def reasoning_id(base: str, model: str) -> str:
    """The id of a base id whose query texts are ``model``'s reasoning."""
    return f"{base}/{model}-reason"


def dataset_ids() -> list[str]:
    """Every ``bright`` id, in registration order."""
    result = [NAMESPACE]
    models = etc_json("bright.json")["reasoning"]["models"]
    for setting in settings():
        result.append(setting.id)
        if not setting.long:
            result.append(adjusted_id(setting.id))
        result += [reasoning_id(setting.id, model) for model in models]
    return result
