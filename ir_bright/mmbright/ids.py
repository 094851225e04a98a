"""MM-BRIGHT's dataset ids, from ``etc/mmbright.json`` alone: what ``import ir_bright``
registers before any dataset is built (:mod:`.collection` builds them)."""

from __future__ import annotations

from ..datafiles import etc_json

__all__ = [
    "KEY_RULE_OF_TASK",
    "NAMESPACE",
    "REPLACEMENT_REASON",
    "TASKS",
    "dataset_ids",
    "domain_id",
    "domains",
    "task_id",
]

NAMESPACE = "mm-bright"
REPLACEMENT_REASON = "ir_datasets has no MM-BRIGHT of its own"
TASKS = ("task1", "task2", "task3", "task4", "task4-legacy")
KEY_RULE_OF_TASK = {"task4": "paper", "task4-legacy": "legacy"}
"""The image-key rule of each Task 4 id (:mod:`.keys`)."""


def domains() -> dict[str, str]:
    """Each domain's hub name -> its printed name, in the data file's order."""
    return dict(etc_json("mmbright.json")["domains"])


def domain_id(name: str) -> str:
    """The id of a domain's text corpus."""
    return f"{NAMESPACE}/{name}"


def task_id(name: str, task: str) -> str:
    """The id of one task of a domain."""
    return f"{domain_id(name)}/{task}"


def dataset_ids() -> list[str]:
    """Every ``mm-bright`` id, in registration order."""
    result = [NAMESPACE]
    for name in domains():
        result += [domain_id(name), *(task_id(name, task) for task in TASKS)]
    return result
