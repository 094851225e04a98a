"""The hub client: one file of a Hugging Face hub dataset, fetched once into a verified cache.

It knows nothing about BRIGHT: the collections describe their files as :class:`HubFile`
(repository, revision, path, cache place, pins) and ask for a local path. Its modules, each
importing only those above it in this list: :mod:`.config` (every environment variable),
:mod:`.http` (requests and the retry loop), :mod:`.listing` (the listing APIs), :mod:`.verify`
(pins and published checksums), :mod:`.provenance` (where each cached file came from),
:mod:`.transfer` (one file's download), :mod:`.revisions` (the commit an ``@<revision>``
names), :mod:`.content` (a file the same at two revisions, stored once), :mod:`.files`
(:class:`HubFile`, :class:`HubFileLike`). A family's declaration says which files it reads
(:mod:`ir_bright.families.files`).
"""

from .config import cache_home, endpoint, offline, verification_mode
from .files import HubFile, HubFileLike
from .listing import ListedEntry, list_folder
from .transfer import human_size

__all__ = [
    "HubFile",
    "HubFileLike",
    "ListedEntry",
    "cache_home",
    "endpoint",
    "human_size",
    "list_folder",
    "offline",
    "verification_mode",
]
