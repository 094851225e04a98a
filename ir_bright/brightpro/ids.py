"""BRIGHT-Pro's dataset ids, from ``etc/brightpro.json`` alone: what ``import ir_bright``
registers before any dataset is built (:mod:`.collection` builds them)."""

from __future__ import annotations

from collections.abc import Iterator

from ..datafiles import DomainSetting, domain_settings

__all__ = ["NAMESPACE", "REPLACEMENT_REASON", "dataset_ids", "settings"]

NAMESPACE = "bright-pro"
REPLACEMENT_REASON = "ir_datasets has no BRIGHT-Pro of its own"


def settings() -> Iterator[DomainSetting]:
    """Every domain in every query setting (all queries, the agentic subset), in order."""
    return domain_settings(NAMESPACE, "brightpro.json")


def dataset_ids() -> list[str]:
    """Every ``bright-pro`` id, in registration order."""
    return [NAMESPACE, *(setting.id for setting in settings())]
