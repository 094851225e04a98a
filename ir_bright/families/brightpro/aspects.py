"""BRIGHT-Pro's judgements: aspects from the ``aspects`` rows, qrels carrying them.

The rules are those of the official code (github.com/yale-nlp/Bright-Pro, commit 5df9e9b,
``bright_pro_data.py``: ``build_doc_to_aspect_id``, ``build_aspect_weights``), so that the
aspect measures computed from the qrels alone equal the official scripts:

- doc -> aspect: every id in an aspect's ``supporting_docs`` maps to that aspect; an id listed
  by several aspects maps to the last one in file order (the official dict is overwritten).
- weights: the raw weight divided by the sum over the aspects sharing the id's stem (the id
  without ``-a{k}`` or ``-aspect-{k}``); 0 when that sum is 0. A missing weight is an error.
- qrels: each gold id 1 with its doc's aspect (whichever query that aspect belongs to, as the
  official map gives it); each excluded id -100 (``"N/A"`` skipped); and, so that aspect recall
  is exact, every other doc the official map sends to one of the query's aspects, as 0.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from ...errors import CacheError
from ...judgements import query_qrels
from .records import BrightProAspect, BrightProQrel

logger = logging.getLogger(__name__)

ASPECT_SUFFIX = re.compile(r"-(?:a\d+|aspect-\d+)$")
"""The suffix numbering an aspect in its query (``-a{k}``, legacy ``-aspect-{k}``)."""


def aspect_stem(aspect_id: str) -> str:
    """The aspect id without its numbering suffix: its query's stem (``biology-3``)."""
    return ASPECT_SUFFIX.sub("", aspect_id)


def parse_aspects(
    rows: Iterable[Mapping[str, Any]], where: str = "aspects"
) -> list[BrightProAspect]:
    """The aspects of ``rows`` (``id``, ``content``, ``weight``, ``supporting_docs``), with
    weights normalised per query stem; ``where`` names the file in errors."""
    raw = []
    totals: dict[str, float] = {}
    for row in rows:
        aspect_id = str(row["id"])
        weight = row.get("weight")
        if weight is None:
            raise CacheError(
                f"{where}: aspect {aspect_id!r} has no weight (the official code refuses it "
                "too): delete the file and fetch it again, or report it upstream"
            )
        try:
            weight = float(weight)
        except (TypeError, ValueError):
            raise CacheError(
                f"{where}: aspect {aspect_id!r} has weight {weight!r}, not a number: delete "
                "the file and fetch it again, or report it upstream"
            ) from None
        stem = aspect_stem(aspect_id)
        totals[stem] = totals.get(stem, 0.0) + weight
        docs = tuple(str(d) for d in row.get("supporting_docs") or ())
        raw.append((aspect_id, stem, row.get("content"), weight, docs))
    return [  # _make: a missing aspect text is None (see ir_bright.records)
        BrightProAspect._make(
            (
                aspect_id,
                stem.rsplit("-", 1)[-1],
                text,
                weight,
                weight / totals[stem] if totals[stem] > 0 else 0.0,
                docs,
            )
        )
        for aspect_id, stem, text, weight, docs in raw
    ]


class Aspects:
    """The official maps of one domain: doc -> aspect (last listing wins), aspect -> weight,
    and aspect -> the docs the map sends to it (in map order)."""

    def __init__(self, aspects: Iterable[BrightProAspect]):
        self.weight: dict[str, float] = {}
        self.of_doc: dict[str, str] = {}
        for aspect in aspects:
            self.weight[aspect.aspect_id] = aspect.normalised_weight
            for doc_id in aspect.supporting_docs:
                self.of_doc[doc_id] = aspect.aspect_id
        self.docs: dict[str, list[str]] = {}
        for doc_id, aspect_id in self.of_doc.items():
            self.docs.setdefault(aspect_id, []).append(doc_id)


def pro_qrels(
    query_id: str,
    gold: Iterable[str] | None,
    excluded: Iterable[str] | None,
    aspects: Aspects,
) -> Iterator[BrightProQrel]:
    """The qrels of one query, each carrying its doc's aspect and the aspect's weight (a
    missing list is empty)."""
    gold = [str(g) for g in gold or ()]
    if len(set(gold)) < len(gold):
        logger.warning(
            "BRIGHT-Pro query %s lists a gold id twice: judged once (the official ideal "
            "alpha-DCG would count it twice)",
            query_id,
        )
    gold_set = set(gold)
    query_aspects: dict[str, None] = {}
    for qrel in query_qrels(query_id, ((g, 1) for g in gold), excluded or ()):
        aspect = aspects.of_doc.get(qrel.doc_id, "") if qrel.relevance > 0 else ""
        if aspect:
            query_aspects[aspect] = None
        weight = aspects.weight.get(aspect, 0.0)
        yield BrightProQrel(
            qrel.query_id, qrel.doc_id, qrel.relevance, qrel.iteration, aspect, weight
        )
    for aspect in query_aspects:
        for doc_id in aspects.docs[aspect]:
            if doc_id not in gold_set:
                yield BrightProQrel(query_id, doc_id, 0, "0", aspect, aspects.weight[aspect])
