"""A family's hub files, as its declaration's ``hub`` block places and pins them
(:class:`~.spec.Hub`): the one reader of that block for every family and layout.

:func:`hub_file` gives the :class:`~ir_bright.hub.HubFile` of one key (``<config>/<domain>``),
the same object each time for one family, so that files sharing their bytes (``same_as``:
BRIGHT's aops and theoremqa_questions corpora) are twins fetched once.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

from .. import hub
from .declaration import Family
from .spec import FilePin

_MADE: weakref.WeakKeyDictionary[Family, dict[tuple, hub.HubFile]] = weakref.WeakKeyDictionary()


def hub_file(
    family: Family, config: str, domain: str, default: str | None = None, **fields: str
) -> hub.HubFile:
    """The hub file of ``config`` (a config, or a role of the layout: ``corpus``, ...) for
    ``domain``; ``default`` is the layout's path template for it where ``hub.paths`` has none;
    ``fields`` fill the rest of the template (R2MED's ``method`` and ``llm``)."""
    made = _MADE.setdefault(family, {})
    fields = {"template": default or family.hub.path, **fields}
    key = (config, domain, tuple(sorted(fields.items())))
    if key not in made:
        made[key] = _make(family, config, domain, fields)
    return made[key]


def _make(family: Family, config: str, domain: str, fields: Mapping[str, str]) -> Any:
    about = family.hub
    name = f"{config}/{domain}"
    pin = about.files.get(name, FilePin())
    twin = None
    if pin.same_as is not None and about.commit is None:  # at a revision: kin, not a twin
        other_config, _, other_domain = pin.same_as.partition("/")
        twin = hub_file(family, other_config, other_domain, fields["template"])
    path = _path(family, config, domain, fields)
    return hub.HubFile(
        repo=about.config_repos.get(config, about.repo).format(domain=domain),
        path=path,
        namespace=family.namespace,
        cache_path=_cache_path(family, config, domain, fields),
        revision=_revision(family, config, domain),
        size=pin.size,
        md5=pin.md5,
        sha256_pin=pin.sha256,
        commit=about.commit,
        alias=about.alias,
        aliases=_aliases(family, name) if about.commit is None else (),
        kin=_kin(family, name) if about.commit is not None else (),
        twin=twin,
    )


def _path(family: Family, config: str, domain: str, fields: Mapping[str, str]) -> str:
    about = family.hub
    pinned = about.files.get(f"{config}/{domain}", FilePin()).path
    fields = dict(fields)
    template = pinned or about.paths.get(config) or fields.pop("template", about.path)
    fields.pop("template", None)
    return template.format(config=config, domain=domain, split=about.split, **fields)


def _cache_path(family: Family, config: str, domain: str, fields: Mapping[str, str]) -> str:
    pinned = family.hub.files.get(f"{config}/{domain}", FilePin()).cache_path
    path = _path(family, config, domain, fields)
    return pinned or family.hub.cache_path.format(config=config, domain=domain, path=path)


def _revision(family: Family, config: str, domain: str) -> str:
    about = family.hub
    revision = about.domain_revisions.get(domain) or about.config_revisions.get(config)
    return revision or about.revision or "main"


def _aliases(family: Family, name: str) -> tuple[str, ...]:
    """The cache paths of the files declared ``same_as`` this one (their bytes are its)."""
    twins = [key.split("/", 1) for key, pin in family.hub.files.items() if pin.same_as == name]
    template = {"template": family.hub.path}
    return tuple(_cache_path(family, config, domain, template) for config, domain in twins)


def _kin(family: Family, name: str) -> tuple[str, ...]:
    """The cache paths of the files declared the same as this one, either way: at another
    commit than the pins', the same bytes only if the hub's listing says so."""
    pin = family.hub.files.get(name, FilePin())
    template = {"template": family.hub.path}
    related = [key for key, other in family.hub.files.items() if other.same_as == name]
    related += [pin.same_as] if pin.same_as else []
    pairs = [key.split("/", 1) for key in related]
    return tuple(_cache_path(family, config, domain, template) for config, domain in pairs)
