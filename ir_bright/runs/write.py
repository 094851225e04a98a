"""Writing runs: TREC lines ``query_id Q0 doc_id rank score tag``, each query's documents in
trec_eval's order (score descending, ties by doc id descending), as every scorer reads them.

Where a run goes (a file replaced atomically, stdout, a FIFO) is :class:`ir_bright.outputs.
Output`'s concern; this module only formats. Scores are written with ``repr``, so a run read
back holds exactly the floats written; a score that is not finite is refused, since no reader
accepts one.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from math import isfinite
from typing import IO, NamedTuple

from ..errors import RunFormatError


class RankedDoc(NamedTuple):
    """One line of a run."""

    query_id: str
    doc_id: str
    rank: int
    score: float


def ranked_docs(run: Mapping[str, Mapping[str, float]]) -> Iterator[RankedDoc]:
    """A run's lines, each query's documents ranked 1, 2, ... in trec_eval's order."""
    from .order import best

    for query_id, docs in run.items():
        if not docs:
            continue
        for rank, (doc_id, score) in enumerate(best(docs, len(docs)), 1):
            yield RankedDoc(query_id, doc_id, rank, score)


def check_tag(tag: str, option: str = "run tag") -> str:
    """``tag``, or a one-line error when it is empty or holds white space (a line no TREC
    reader can split); commands call it with their option's name before any work."""
    if not tag or any(c.isspace() for c in tag):
        raise RunFormatError(f"{option} {tag!r} is empty or holds white space: a TREC run cannot")
    return tag


def write_trec(ranked: Iterable[RankedDoc], out: IO[str], tag: str) -> int:
    """Write ``query_id Q0 doc_id rank score tag`` lines (the tag checked by
    :func:`check_tag`, every score finite); return the number written."""
    check_tag(tag)
    written = 0
    for query_id, doc_id, rank, score in ranked:
        if not isfinite(score):
            raise RunFormatError(
                f"query {query_id!r} doc {doc_id!r}: score {score} is not finite, "
                "which no run may hold (no scorer reads it)"
            )
        out.write(f"{query_id} Q0 {doc_id} {rank} {score!r} {tag}\n")
        written += 1
    return written
