"""User query sets: a dataset whose queries are your texts (HyDE, expansions, another LLM's
reasoning) and whose documents, qrels and exclusions stay the dataset's.

A query file is TSV (``query_id<TAB>text``, one query a line) or JSONL (one object a line
with ``query_id`` and ``text``; a text may hold tabs and newlines there). Every query id of
the file must be one of the dataset's and every query of the dataset must have a text: a
rewrite that lost or invented queries would score as if those queries failed, so either is
refused with the counts and the first few ids.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ir_datasets.formats import GenericQuery

from ..errors import IrBrightError
from ..registry import query_texts

__all__ = ["QueriesError", "UserQueries", "query_texts", "read_queries", "with_queries"]

SHOWN_IDS = 3


class QueriesError(IrBrightError):
    """A user query set that does not fit its dataset, or a query file that cannot be read."""


def read_queries(path: str | os.PathLike[str]) -> dict[str, str]:
    """``{query_id: text}`` from a TSV or JSONL query file (JSONL when the first non-blank
    character is ``{``)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise QueriesError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise QueriesError(f"cannot read the query file {path}: {exc.strerror or exc}") from None
    reader = _jsonl_query if text.lstrip().startswith("{") else _tsv_query
    found: dict[str, str] = {}
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        query_id, query = reader(line, f"{path}, line {number}")
        if query_id in found:
            raise QueriesError(f"{path}, line {number}: query {query_id!r} is given twice")
        found[query_id] = query
    if not found:
        raise QueriesError(f"{path} holds no queries (expected query_id<TAB>text or JSONL)")
    return found


def _tsv_query(line: str, where: str) -> tuple[str, str]:
    query_id, tab, query = line.rstrip("\r").partition("\t")
    if not tab or not query_id.strip():
        raise QueriesError(f"{where}: expected query_id<TAB>text")
    return query_id.strip(), query


def _jsonl_query(line: str, where: str) -> tuple[str, str]:
    try:
        row = json.loads(line)
    except json.JSONDecodeError as exc:
        raise QueriesError(f"{where}: not a JSON object ({exc.msg})") from None
    if not isinstance(row, dict):
        raise QueriesError(f"{where}: expected an object with query_id and text")
    query_id, query = row.get("query_id"), row.get("text")
    if not isinstance(query_id, (str, int)) or isinstance(query_id, bool):
        raise QueriesError(f"{where}: query_id must be text, got {query_id!r}")
    if not isinstance(query, str):
        raise QueriesError(f"{where}: text must be a string, got {type(query).__name__}")
    return str(query_id), query


class UserQueries:
    """``base`` with its queries replaced by ``texts`` (``{query_id: text}``); everything
    else (docs, docs store, qrels, documentation, official measures) is ``base``'s."""

    def __init__(self, base: Any, texts: Mapping[str, str], source: str):
        self._base = base
        self._texts = dict(texts)
        self._source = source

    def __getattr__(self, name: str) -> Any:
        return getattr(self._base, name)

    def dataset_id(self) -> str:
        """The base dataset's id (the scores are that dataset's, with other query texts)."""
        return str(self._base.dataset_id())

    def has_queries(self) -> bool:
        """True: the user's queries."""
        return True

    def queries_iter(self) -> Iterator[GenericQuery]:
        """The user's queries, in the base dataset's query order."""
        for query_id, text in self._texts.items():
            yield GenericQuery(query_id, text)

    def query_texts(self) -> Iterator[tuple[str, str]]:
        """``(query_id, text)`` of the user's queries, in the base dataset's query order."""
        yield from self._texts.items()

    def queries_count(self) -> int:
        """How many queries (the base dataset's count)."""
        return len(self._texts)

    def queries_cls(self) -> type:
        """``GenericQuery``: (query_id, text)."""
        return GenericQuery

    def get_topics(self) -> Any:
        """The queries as PyTerrier topics: a DataFrame with columns ``qid`` and ``query``
        (untokenised), for ``pipeline.transform(dataset.get_topics())``."""
        import pandas as pd

        return pd.DataFrame(list(self._texts.items()), columns=["qid", "query"])

    def __repr__(self) -> str:
        return f"with_queries({self.dataset_id()!r}, {self._source!r})"


def with_queries(dataset: Any, queries: str | os.PathLike[str] | Mapping[str, str]) -> UserQueries:
    """``dataset`` (an id, an ir_datasets dataset or a PyTerrier one) with the texts of
    ``queries`` (a TSV or JSONL file, or a ``{query_id: text}`` mapping) as its queries.

    Raises :class:`QueriesError` when a query id is not the dataset's, or a dataset query has
    no text (with the counts and the first ids).
    """
    from .. import registry

    base = registry.load(dataset)
    if isinstance(queries, Mapping):
        texts, source = {str(k): str(v) for k, v in queries.items()}, "a mapping"
    else:
        texts, source = read_queries(queries), str(queries)
    order = [query_id for query_id, _ in query_texts(base)]
    _refuse_mismatch(order, texts, source, _label(base))
    return UserQueries(base, {query_id: texts[query_id] for query_id in order}, source)


def _refuse_mismatch(order: list[str], texts: Mapping[str, str], source: str, label: str) -> None:
    known = set(order)
    unknown = [query_id for query_id in texts if query_id not in known]
    missing = [query_id for query_id in order if query_id not in texts]
    if unknown:
        raise QueriesError(
            f"{len(unknown)} of the {len(texts)} queries of {source} are not queries of "
            f"{label} (first: {', '.join(map(repr, unknown[:SHOWN_IDS]))}): is the file for "
            "another dataset?"
        )
    if missing:
        raise QueriesError(
            f"{source} has no text for {len(missing)} of the {len(order)} queries of {label} "
            f"(first: {', '.join(map(repr, missing[:SHOWN_IDS]))}): give every query a text"
        )


def _label(dataset: Any) -> str:
    try:
        return str(dataset.dataset_id())
    except AttributeError:
        return "the dataset"
