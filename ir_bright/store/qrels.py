"""ir_datasets' qrels component over a parquet file whose rows list each query's gold and
excluded document ids (BRIGHT's and TEMPO's ``examples``, a reasoning set's rows)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import repeat
from typing import Any

from ir_datasets.formats import BaseQrels, TrecQrel

from ..judgements import EXCLUDED, QrelsByQuery
from .schema import Spec, checked_columns

QRELS_DEFS = {1: "Relevant (a gold id)", EXCLUDED: "Excluded: removed from the ranking"}


class IdListQrels(BaseQrels):
    """Qrels from the rows of ``file`` (checked against ``spec``): each id of the ``gold``
    column 1 (once), each id of the ``excluded`` column -100 (``N/A`` skipped); a missing or
    null ``excluded`` list excludes nothing."""

    def __init__(self, file: Any, spec: Spec, gold: str, excluded: str | None):
        self._file = file
        self._spec = spec
        self._gold = gold
        self._excluded = excluded

    def qrels_iter(self) -> Iterator[TrecQrel]:
        """Yield the qrels query by query, in the file's row order (an iterator the scorer
        splits from the rows, without making the records)."""
        rows = self.judgement_rows()
        return QrelsByQuery(
            (query_id, zip(gold, repeat(1)), excluded) for query_id, gold, excluded in rows
        )

    def judgement_rows(self) -> Iterator[tuple[str, list[str], list[str]]]:
        """``(query id, gold ids, excluded ids)`` of each row, in the file's order, the lists
        as the file has them (sentinels and repeats included)."""
        columns = ["id", self._gold, *([self._excluded] if self._excluded else [])]
        rows: Mapping[str, list] = checked_columns(self._file.fetch(), self._spec, columns)
        excluded = rows[self._excluded] if self._excluded else [None] * len(rows["id"])
        for query_id, gold, gone in zip(rows["id"], rows[self._gold], excluded):
            yield str(query_id), list(gold or ()), list(gone or ())

    def examples_file(self) -> Any:
        """The hub file the judgements are read from."""
        return self._file

    def qrels_hub_files(self) -> list[Any]:
        """The hub files the qrels are read from."""
        return [self._file]

    def qrels_count(self) -> int | None:
        """The number of qrels if the file is cached, else None (the declared count is used)."""
        if not self._file.is_cached():
            return None
        return sum(1 for _ in self.qrels_iter())

    def qrels_cls(self) -> type:
        """``TrecQrel``."""
        return TrecQrel

    def qrels_defs(self) -> dict[int, str]:
        """What each relevance value means."""
        return dict(QRELS_DEFS)
