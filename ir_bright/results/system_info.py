"""A system's *setting*, as the BRIGHT leaderboard labels its rows: how the run was made.

A folder of runs may say so in ``system.json`` beside the runs (every key optional)::

    {"setting": "rerank", "first_stage": "BM25", "reranker": "ReasonRank", "depth": 100,
     "label": "BM25 + ReasonRank"}

- ``setting``: ``original`` (the posts as queries), ``<model>-reasoning`` (an LLM's reasoning
  as queries, e.g. ``gpt4-reasoning``), ``rerank``, ``agentic`` or ``unknown``;
- ``first_stage``, ``reranker``: names (text); ``depth``: how many first-stage documents were
  reranked (a whole number, 1 or more);
- ``label``: the system's name in tables (default: the folder's name).

``--setting [SYSTEM=]SETTING`` (:func:`apply_flags`) sets the setting of every system, or of
the one named, over what its ``system.json`` says. A malformed file or flag is a one-line error.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..errors import IrBrightError, UnreadableFileError
from ..reading import read_json
from .errors import ReportError

FILE = "system.json"
"""The file beside a system's runs that describes it."""

SETTINGS = ("original", "<model>-reasoning", "rerank", "agentic", "unknown")
"""The settings a system may have."""

SETTING_HELP = (
    "label the setting of every system (or of SYSTEM) as the leaderboard does: original, "
    "<model>-reasoning, rerank, agentic or unknown (repeatable; over system.json)"
)
"""The help of the ``--setting [SYSTEM=]SETTING`` flag of ``report`` and ``compare``."""

MAX_BYTES = 1 << 20  # a system.json is a few lines
_REASONING = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*-reasoning")
_TEXT_KEYS = ("first_stage", "reranker", "label")


@dataclass(frozen=True)
class SystemInfo:
    """What a system's ``system.json`` (or ``--setting``) says about it."""

    setting: str | None = None
    first_stage: str | None = None
    reranker: str | None = None
    depth: int | None = None
    label: str | None = None

    def text(self) -> str:
        """The Setting cell: ``rerank (first stage BM25, reranker ReasonRank, depth 100)``."""
        parts = [
            f"{what} {value}"
            for what, value in (
                ("first stage", self.first_stage),
                ("reranker", self.reranker),
                ("depth", self.depth),
            )
            if value is not None
        ]
        head = self.setting or "unknown"
        return f"{head} ({', '.join(parts)})" if parts else head

    def as_json(self) -> dict[str, Any]:
        """The setting's keys as a json object (label left out: it is the row's name)."""
        keys = ("setting", "first_stage", "reranker", "depth")
        return {k: getattr(self, k) for k in keys}


def check_setting(value: Any, where: str, error: type[IrBrightError] = ReportError) -> str:
    """``value`` if it is a setting (:data:`SETTINGS`), else a one-line error."""
    if value in ("original", "rerank", "agentic", "unknown"):
        return str(value)
    if isinstance(value, str) and _REASONING.fullmatch(value):
        return value
    raise error(f"{where}: setting {value!r} is not one of {', '.join(SETTINGS)}")


def from_mapping(data: Any, where: str, error: type[IrBrightError] = ReportError) -> SystemInfo:
    """A :class:`SystemInfo` from a ``system.json`` object; ``where`` names it in errors."""
    if not isinstance(data, Mapping):
        raise error(f'{where}: must be a JSON object such as {{"setting": "rerank"}}')
    known = ("setting", "first_stage", "reranker", "depth", "label")
    unknown = [k for k in data if k not in known]
    if unknown:
        raise error(f"{where}: unknown key {unknown[0]!r}: the keys are {', '.join(known)}")
    for key in _TEXT_KEYS:
        value = data.get(key)
        if value is not None and not (isinstance(value, str) and value.strip()):
            raise error(f"{where}: {key} must be a non-empty text, not {value!r}")
    depth = data.get("depth")
    if depth is not None and (type(depth) is not int or depth < 1):
        raise error(f"{where}: depth must be a whole number of documents, 1 or more, not {depth!r}")
    setting = data.get("setting")
    if setting is not None:
        check_setting(setting, where, error)
    return SystemInfo(
        setting, data.get("first_stage"), data.get("reranker"), depth, data.get("label")
    )


def read_system_json(folder: Path) -> SystemInfo | None:
    """The ``system.json`` in ``folder``, or None when there is none; a one-line error when
    it is not a regular file, or not JSON within :mod:`ir_bright.reading`'s bounds."""
    path = folder / FILE
    if not os.path.lexists(path):
        return None
    try:
        data = read_json(path, MAX_BYTES)
    except UnreadableFileError as exc:
        raise ReportError(f"{exc}: fix or remove it") from None
    except OSError as exc:
        reason = (exc.strerror or type(exc).__name__).lower()
        raise ReportError(f"{path}: cannot be read ({reason}): fix or remove it") from None
    return from_mapping(data, str(path))


def apply_flags(
    infos: Mapping[str, SystemInfo | None], flags: Sequence[str]
) -> dict[str, SystemInfo | None]:
    """``{system: info}`` with each ``--setting [SYSTEM=]SETTING`` applied, in order: without
    ``SYSTEM=`` to every system, else to the one named (a one-line error if none is)."""
    result = dict(infos)
    for flag in flags:
        name, _, value = flag.rpartition("=")
        check_setting(value, f"--setting {flag}")
        targets = list(result) if not name else [name]
        if name and name not in result:
            raise ReportError(
                f"--setting {flag}: no system is called {name!r} (the systems: {', '.join(result)})"
            )
        for target in targets:
            result[target] = replace(result[target] or SystemInfo(), setting=value)
    return result


def with_settings(
    infos: Mapping[str, SystemInfo | None], setting: str | Sequence[str] | Mapping[str, Any] | None
) -> dict[str, SystemInfo | None]:
    """``infos`` with ``setting`` applied: ``--setting`` values (a str or a list of them), or
    ``{system: setting text, system.json-like dict or SystemInfo}``."""
    if setting is None:
        return dict(infos)
    if isinstance(setting, str):
        return apply_flags(infos, [setting])
    if not isinstance(setting, Mapping):
        return apply_flags(infos, list(setting))
    result = dict(infos)
    for name, value in setting.items():
        if name not in result:
            raise ReportError(f"setting for {name!r}: no system is called so ({', '.join(result)})")
        if isinstance(value, str):
            value = {"setting": value}
        if not isinstance(value, SystemInfo):
            value = from_mapping(value, f"setting for {name!r}")
        result[name] = value
    return result
