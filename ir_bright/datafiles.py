"""The package's data files (``ir_bright/etc/``), read once per process.

A light module (the standard library only) so that the command line's parsers can read the
names they offer without importing ir_datasets.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import Any, NamedTuple

__all__ = ["DomainSetting", "domain_settings", "etc_json"]


def _text(name: str) -> str:
    return resources.files(__package__).joinpath("etc").joinpath(name).read_text("utf-8")


@cache
def etc_json(name: str) -> Any:
    """A JSON data file from ``ir_bright/etc``."""
    return json.loads(_text(name))


class DomainSetting(NamedTuple):
    """One domain of a collection in one of its settings, and the id of that dataset."""

    split: str
    domain: dict[str, Any]
    name: str
    spec: dict[str, Any]
    id: str

    @property
    def long(self) -> bool:
        """Whether this is BRIGHT's long-document setting."""
        return self.name == "long"


def domain_settings(namespace: str, docs_file: str) -> Iterator[DomainSetting]:
    """Every domain in every setting of a documentation file (``etc/bright.json``,
    ``etc/brightpro.json``), in its order: ``<namespace>/<domain id><setting suffix>``."""
    docs_json = etc_json(docs_file)
    for split, domain in docs_json["domains"].items():
        for name, spec in docs_json["settings"].items():
            dataset_id = f"{namespace}/{domain['id']}{spec['suffix']}"
            yield DomainSetting(split, domain, name, spec, dataset_id)
