"""Which commit a revision names: a declared alias, a commit (or a prefix of one), or a ref.

``<id>@<revision>`` reads a dataset at one commit of its hub repository. :func:`resolve` turns
the revision into the full commit, in this order:

1. an alias the family's declaration gives a known revision (``mteb-v1``), or a known commit
   or a prefix of 7 or more digits of exactly one: no network call;
2. anything else (``main``, a tag, another commit or prefix) through the hub's revision API,
   ``GET {HF_ENDPOINT}/api/datasets/{repo}/revision/{revision}``, whose ``sha`` is the commit.

A revision the hub does not know is a one-line :class:`RevisionNotFoundError` naming the
known aliases and the hub's answer. Answers are kept for the process, so ``@main`` names one
commit for its whole life.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple
from urllib.parse import quote

from ..errors import DatasetNotFoundError, DownloadError
from .config import endpoint, http_patience, offline, redact
from .http import refuse_status, retrying, send
from .listing import json_answer

COMMIT = re.compile(r"^[0-9a-f]{7,40}$")
FULL_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_ANSWERS: dict[tuple[str, str, str], str] = {}  # (endpoint, repo, revision) -> commit


class RevisionNotFoundError(DatasetNotFoundError):
    """A revision neither the declaration nor the hub knows."""


class Revision(NamedTuple):
    """A revision as asked (``asked``), the full commit it names, and the declared alias of
    that commit (None when the declaration gives it none)."""

    asked: str
    commit: str
    alias: str | None


def resolve(repo: str, asked: str, aliases: Mapping[str, str]) -> Revision:
    """The :class:`Revision` ``asked`` names in ``repo``, whose declared aliases (alias ->
    full commit) are ``aliases``."""
    names = {commit: alias for alias, commit in aliases.items()}
    text = asked.strip()
    if not text:
        raise _not_found(repo, asked, aliases, "the revision after @ is empty")
    if text in aliases:
        return Revision(asked, aliases[text], text)
    lowered = text.lower()
    known = [c for c in names if COMMIT.match(lowered) and c.startswith(lowered)]
    if len(known) == 1:
        return Revision(asked, known[0], names[known[0]])
    commit = _ask_hub(repo, text, aliases)
    return Revision(asked, commit, names.get(commit, None if COMMIT.match(lowered) else text))


def _ask_hub(repo: str, rev: str, aliases: Mapping[str, str]) -> str:
    key = (endpoint(), repo, rev)
    if key in _ANSWERS:
        return _ANSWERS[key]
    url = f"{endpoint()}/api/datasets/{repo}/revision/{quote(rev, safe='')}"
    if offline():
        raise _not_found(
            repo, rev, aliases, "HF_HUB_OFFLINE is set, so the hub cannot be asked what it names"
        )
    patience = http_patience()

    def attempt() -> tuple[int, Any]:
        with send("GET", url, patience, stream=True) as response:
            if response.status_code in (400, 404):
                return response.status_code, _error_of(response)
            refuse_status(url, response, "the revision API")
            if response.status_code != 200:
                raise DownloadError(
                    f"{redact(url)} answered HTTP {response.status_code}: check HF_ENDPOINT"
                )
            return 200, json_answer(response, redact(url))

    status, answer = retrying(attempt, patience)
    if status != 200:
        raise _not_found(repo, rev, aliases, f"the hub answers HTTP {status}: {answer}")
    sha = str(answer.get("sha", "")).lower() if isinstance(answer, dict) else ""
    if not FULL_COMMIT.match(sha):
        raise DownloadError(f"{redact(url)} did not answer a commit (sha): check HF_ENDPOINT")
    _ANSWERS[key] = sha
    return sha


def _error_of(response: Any) -> str:
    """The hub's error message, short, on one line."""
    try:
        text = str(response.json().get("error", ""))
    except (ValueError, AttributeError):
        text = ""
    text = " ".join((text or response.headers.get("X-Error-Code", "") or "no detail").split())
    return text[:200]


def _not_found(
    repo: str, asked: str, aliases: Mapping[str, str], why: str
) -> RevisionNotFoundError:
    named = ", ".join(f"{a} ({c[:7]})" for a, c in aliases.items()) or "none declared"
    return RevisionNotFoundError(
        f"unknown revision {asked!r} of {repo}: {why}. Give a declared alias ({named}), "
        "main, or a commit of the repository"
    )
