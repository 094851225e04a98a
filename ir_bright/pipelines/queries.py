"""User query sets: a dataset whose queries are your texts (HyDE, expansions, another LLM's
reasoning) and whose documents, qrels and exclusions stay the dataset's.

A query file is TSV (``query_id<TAB>text``, one query a line) or JSONL (one object a line
with ``query_id`` and ``text``; a text may hold tabs and newlines there), UTF-8 with or
without a byte-order mark. Every query id of the file must be one of the dataset's and every
query of the dataset must have a text: a rewrite that lost or invented queries would score as
if those queries failed, so either is refused with the counts and the first few ids. A query
id is text or a whole number and a text is a string, in a file or a mapping alike (``None`` or
bytes are refused, never read as ``"None"`` or ``"b'...'"``).

A :class:`UserQueries` pickles, copies and deep-copies as its base dataset (a registered one
pickles as its id), its texts and their source, so it can be handed to a worker process.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ir_datasets.formats import GenericQuery

from ..errors import IrBrightError, UnreadableFileError
from ..reading import parse_json
from ..registry import query_texts

SHOWN_IDS = 3


class QueriesError(IrBrightError):
    """A user query set that does not fit its dataset, or a query file that cannot be read."""


def read_queries(path: str | os.PathLike[str]) -> dict[str, str]:
    """``{query_id: text}`` from a TSV or JSONL query file (JSONL when the first non-blank
    character is ``{``; a byte-order mark is skipped)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
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
        row = parse_json(line, where)
    except UnreadableFileError as exc:
        raise QueriesError(f"{exc}: expected an object with query_id and text") from None
    if not isinstance(row, dict):
        raise QueriesError(f"{where}: expected an object with query_id and text")
    return _checked_query(row.get("query_id"), row.get("text"), where)


def _checked_query(query_id: Any, text: Any, where: str) -> tuple[str, str]:
    """``(query_id, text)`` as strings: the id text or a whole number, the text a string."""
    if not isinstance(query_id, (str, int)) or isinstance(query_id, bool):
        raise QueriesError(f"{where}: query_id must be text, got {query_id!r:.60}")
    if not isinstance(text, str):
        raise QueriesError(
            f"{where}: text must be a string, got {type(text).__name__}: give every query its text"
        )
    return str(query_id), text


class UserQueries:
    """``base`` with its queries replaced by ``texts`` (``{query_id: text}``); everything
    else (docs, docs store, qrels, documentation, official measures) is ``base``'s."""

    def __init__(self, base: Any, texts: Mapping[str, str], source: str):
        self._base = base
        self._texts = dict(texts)
        self._source = source

    def __getattr__(self, name: str) -> Any:
        # only names this class lacks reach here: never its own state (absent while pickle
        # or copy builds an instance) nor a special name, which Python looks up on the class
        if name.startswith("__") or name in ("_base", "_texts", "_source"):
            raise AttributeError(name)
        return getattr(self._base, name)

    def __reduce__(self) -> tuple[type, tuple[Any, dict[str, str], str]]:
        return UserQueries, (self._base, self._texts, self._source)

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
        texts, source = _mapping_texts(queries), "a mapping"
    else:
        texts, source = read_queries(queries), str(queries)
    order = [query_id for query_id, _ in query_texts(base)]
    _refuse_mismatch(order, texts, source, _label(base))
    return UserQueries(base, {query_id: texts[query_id] for query_id in order}, source)


def _mapping_texts(queries: Mapping[Any, Any]) -> dict[str, str]:
    """``{query_id: text}`` of a mapping, each checked as a file's would be."""
    texts: dict[str, str] = {}
    for key, value in queries.items():
        query_id, text = _checked_query(key, value, f"a mapping, query {key!r:.60}")
        if query_id in texts:
            raise QueriesError(f"a mapping: query {query_id!r} is given twice (as {key!r})")
        texts[query_id] = text
    return texts


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
