"""The key rules that join passages and images of the same source page (the official
code, github mm-bright/MM-BRIGHT ``src/eval_runner.py`` and ``src/data.py``; Abdallah et al., 2026,
arXiv 2601.09562).

An image's key is the lowercase hex run after ``<domain>_`` that is followed by ``_<digits>``
(``academia/academia_a7beca61_0002/image_1.webp`` -> ``a7beca61``); an image without one is
never paired. A passage's key depends on the rule:

- ``paper`` (the default): the first lowercase hex run after a slash and before an underscore
  (``biology/fec40b40_1635_4.txt`` -> ``fec40b40``); no match means the whole id is the key.
- ``legacy`` (what produced the paper's tables): the id must end in ``/<hex>_<digits>.txt``,
  so chunked passages such as ``biology/fec40b40_1635_4.txt`` keep their whole id as key.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

NO_IMAGE = "__NO_IMAGE__"
PAIR_SEPARATOR = "|||"

_PAPER = re.compile(r"/([0-9a-f]+)_")
_LEGACY = re.compile(r"/([0-9a-f]+)_\d+\.txt$")
KEY_RULES = {"paper": _PAPER, "legacy": _LEGACY}


def passage_key_rule(rule: str) -> Callable[[str], str]:
    """The passage-key function of ``rule`` (``paper`` or ``legacy``)."""
    search = KEY_RULES[rule].search

    def passage_key(passage_id: str) -> str:
        match = search(passage_id)
        return match.group(1) if match else passage_id

    return passage_key


@cache
def _image_pattern(domain: str) -> re.Pattern:
    return re.compile(rf"{re.escape(domain)}_([0-9a-f]+)_\d+")


def image_key(path: str, domain: str) -> str | None:
    """The page key of an image path, or None when the path has none (never paired)."""
    match = _image_pattern(domain).search(path)
    return match.group(1) if match else None


def normalise_path(path: str) -> str:
    """An annotation's image path with backslashes turned into slashes."""
    return path.replace("\\", "/")


def pair_id(passage_id: str, image_id: str | None) -> str:
    """The Task 4 doc id of a passage and an image (None: the passage alone)."""
    return f"{passage_id}{PAIR_SEPARATOR}{image_id if image_id is not None else NO_IMAGE}"


def split_pair_id(doc_id: str) -> tuple[str, str | None] | None:
    """``(passage_id, image_id or None)`` of a pair id, or None when it is not one."""
    passage_id, separator, image_id = doc_id.partition(PAIR_SEPARATOR)
    if not separator or not passage_id or not image_id:
        return None
    return passage_id, None if image_id == NO_IMAGE else image_id
