"""The hub client: one file of a Hugging Face hub dataset, fetched once into a verified cache.

It knows nothing about BRIGHT: the collections describe their files as :class:`HubFile`
(repository, revision, path, cache place, pins) and ask for a local path.
"""

from .transfer import (
    HubFile,
    ListedEntry,
    cache_home,
    catalogue,
    endpoint,
    human_size,
    list_folder,
    offline,
    redact,
    verification_enabled,
    verification_mode,
)

__all__ = [
    "HubFile",
    "ListedEntry",
    "cache_home",
    "catalogue",
    "endpoint",
    "human_size",
    "list_folder",
    "offline",
    "redact",
    "verification_enabled",
    "verification_mode",
]
