"""The package's data files (``ir_bright/etc/``), read once per process.

A light module (the standard library only) so that the command line's parsers can read the
names they offer without importing ir_datasets.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["etc_json"]


def _text(name: str) -> str:
    return resources.files(__package__).joinpath("etc").joinpath(name).read_text("utf-8")


@cache
def etc_json(name: str) -> Any:
    """A JSON data file from ``ir_bright/etc``."""
    return json.loads(_text(name))
