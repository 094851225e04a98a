"""The queries and qrels of MM-BRIGHT's four tasks (the official code, github
mm-bright/MM-BRIGHT ``src/eval_runner.py``; Abdallah et al., 2026, arXiv 2601.09562).

- Tasks 1 and 2: each gold id 1; each negative id excluded (-100, ``"N/A"`` skipped); a gold
  id that is also a negative id gets both qrels (relevant, and removed from the ranking).
- Task 3: each positive image (slashes normalised) 1, even when not in the corpus; no
  exclusions; a query without positives has no qrels.
- Task 4: ``<gold>|||__NO_IMAGE__`` 1 for every gold id; ``<gold>|||<image>`` 2 for every
  decodable positive image whose key equals the gold passage's key; for each negative image
  that is not also positive, its pairs with every passage of its key are excluded (gold
  passages included), whether or not the image decodes (pairs of an undecodable image are
  in no corpus, so only the ``excluded`` count sees them). Text negative ids are not excluded.

Exclusions travel as qrels of :data:`~ir_bright.judgements.EXCLUDED`, as for BRIGHT.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ir_datasets.formats import BaseQrels, BaseQueries, TrecQrel

from ...hub import HubFile
from ...judgements import EXCLUDED, query_qrels
from ...store.counts import cached_count
from ..declaration import Family
from .images import ImageCorpus
from .keys import image_key, pair_id
from .pairs import PairCorpus
from .records import MMBrightMultimodalQuery, MMBrightQuery
from .source import DOC_IMAGES, DOCUMENTS, EXAMPLES, MULTIMODAL, file, query_rows, unique

TEXT_QRELS = {1: "Relevant (a gold passage)", EXCLUDED: "Excluded: removed from the ranking"}
IMAGE_QRELS = {1: "Relevant (a positive image)"}
PAIR_QRELS = {
    2: "A gold passage with a positive image of its page",
    1: "A gold passage alone (__NO_IMAGE__)",
    EXCLUDED: "Excluded: a negative image's pair, removed from the ranking",
}


class _Queries(BaseQueries):
    def __init__(self, domain: str, family: Family | None = None):
        self._domain = domain
        self._family = family

    def queries_namespace(self) -> str:
        """Queries of one domain share ids across tasks."""
        return f"mm-bright/{self._domain}"

    def queries_lang(self) -> str:
        """English."""
        return "en"


class TextQueries(_Queries):
    """Task 1's queries: the ``examples`` rows."""

    def queries_hub_files(self) -> list[HubFile]:
        """The hub files the queries are read from (``examples``)."""
        return [file(EXAMPLES, self._domain, self._family)]

    def queries_iter(self) -> Iterator[MMBrightQuery]:
        """``MMBrightQuery`` records in the hub's row order (repeated texts kept)."""
        for row in query_rows(EXAMPLES, self._domain, self._family):
            yield MMBrightQuery(row.query_id, row.text, row.gold_answers)

    def queries_cls(self) -> type:
        """``MMBrightQuery``."""
        return MMBrightQuery


class MultimodalQueries(_Queries):
    """Tasks 2-4's queries: the ``examples_multimodal`` rows with their decodable images."""

    def __init__(
        self, domain: str, images: Callable[[], ImageCorpus], family: Family | None = None
    ):
        super().__init__(domain, family)
        self._images = images

    def queries_hub_files(self) -> list[HubFile]:
        """The hub files the queries are read from: the rows and the query images."""
        return [file(MULTIMODAL, self._domain, self._family), self._images().hub_file]

    def queries_iter(self) -> Iterator[MMBrightMultimodalQuery]:
        """``MMBrightMultimodalQuery`` records in the hub's row order."""
        images = self._images()
        for row in query_rows(MULTIMODAL, self._domain, self._family):
            ids, blobs, _, _ = images.resolve(row.image_paths)
            yield MMBrightMultimodalQuery(
                row.query_id, row.text, tuple(ids), tuple(blobs), row.gold_answers
            )

    def queries_cls(self) -> type:
        """``MMBrightMultimodalQuery``."""
        return MMBrightMultimodalQuery


class _Qrels(BaseQrels):
    DEFS: dict[int, str] = {}

    def _count(self, name: str, inputs: list) -> int | None:
        """The number of qrels, once ``inputs`` are cached (computed once, then stored)."""
        return cached_count(name, inputs, lambda: sum(1 for _ in self.qrels_iter()))

    def qrels_cls(self) -> type:
        """``TrecQrel``."""
        return TrecQrel

    def qrels_defs(self) -> dict[int, str]:
        """What each relevance value means."""
        return dict(self.DEFS)


class TextQrels(_Qrels):
    """Tasks 1 and 2: gold ids 1, negative ids -100 (a gold id among them gets both)."""

    DEFS = TEXT_QRELS

    def __init__(self, domain: str, config: str, family: Family | None = None):
        self._domain = domain
        self._config = config
        self._family = family

    def qrels_iter(self) -> Iterator[TrecQrel]:
        """The qrels query by query, in row order."""
        for row in query_rows(self._config, self._domain, self._family):
            yield from query_qrels(row.query_id, ((g, 1) for g in row.gold_ids), row.negative_ids)

    def qrels_hub_files(self) -> list[HubFile]:
        """The hub files the qrels are read from (the query rows)."""
        return [file(self._config, self._domain, self._family)]

    def qrels_count(self) -> int | None:
        """Known once the query file is cached."""
        return self._count(f"qrels {self._config}", self.qrels_hub_files())


class ImageQrels(_Qrels):
    """Task 3: positive images 1, no exclusions."""

    DEFS = IMAGE_QRELS

    def __init__(self, domain: str, family: Family | None = None):
        self._domain = domain
        self._family = family

    def qrels_iter(self) -> Iterator[TrecQrel]:
        """The qrels query by query, in row order."""
        for row in query_rows(MULTIMODAL, self._domain, self._family):
            yield from query_qrels(row.query_id, ((p, 1) for p in row.positive_images))

    def qrels_hub_files(self) -> list[HubFile]:
        """The hub files the qrels are read from (``examples_multimodal``)."""
        return [file(MULTIMODAL, self._domain, self._family)]

    def qrels_count(self) -> int | None:
        """Known once ``examples_multimodal`` is cached."""
        return self._count("qrels task3", self.qrels_hub_files())


@dataclass
class PairJudgements:
    """Task 4's qrels of a domain and what was skipped while building them."""

    qrels: list[TrecQrel] = field(default_factory=list)
    orphan_positives: int = 0  # positive images whose key matches no gold passage
    undecodable_positives: int = 0  # positive images matching a gold passage but not decodable

    def by_label(self) -> Counter:
        """How many qrels carry each relevance value."""
        return Counter(q.relevance for q in self.qrels)


def task4_judgements(corpus: PairCorpus) -> PairJudgements:
    """Task 4's qrels of ``corpus``'s domain under its key rule (one scan of passage ids)."""
    domain, decodable, key_of = corpus.domain, corpus.images.formats, corpus.passage_key
    rows = query_rows(MULTIMODAL, domain, corpus.family)
    negative_keys = set()
    for row in rows:
        for path in set(row.negative_images) - set(row.positive_images):
            key = image_key(path, domain)
            if key is not None:
                negative_keys.add(key)
    passages_of_key = corpus.passages_by_key(negative_keys)
    result = PairJudgements()
    for row in rows:
        gold = unique(row.gold_ids)
        judged = [(pair_id(g, None), 1) for g in gold]
        gold_of_key: dict[str, list[str]] = {}
        for g in gold:
            gold_of_key.setdefault(key_of(g), []).append(g)
        positives = unique(row.positive_images)
        for path in positives:
            key = image_key(path, domain)
            matches = gold_of_key.get(key, []) if key is not None else []
            if not matches:
                result.orphan_positives += 1
            elif path not in decodable:
                result.undecodable_positives += 1
            else:
                judged += [(pair_id(g, path), 2) for g in matches]
        excluded = [
            pair_id(passage_id, path)
            for path in unique(row.negative_images)
            if path not in positives
            for passage_id in passages_of_key.get(image_key(path, domain) or "", ())
        ]
        result.qrels.extend(query_qrels(row.query_id, judged, excluded))
    return result


class PairQrels(_Qrels):
    """Task 4: graded pair qrels and negative-image exclusions, under one key rule."""

    DEFS = PAIR_QRELS

    def __init__(self, corpus: Callable[[], PairCorpus]):
        self._corpus = corpus

    def qrels_iter(self) -> Iterator[TrecQrel]:
        """The qrels query by query, in row order."""
        yield from task4_judgements(self._corpus()).qrels

    def qrels_hub_files(self) -> list[HubFile]:
        """The hub files the qrels depend on: passages, document images, multimodal rows."""
        corpus = self._corpus()
        return [file(c, corpus.domain, corpus.family) for c in (DOCUMENTS, DOC_IMAGES, MULTIMODAL)]

    def qrels_count(self) -> int | None:
        """Known once the passages, document images and multimodal queries are cached (the
        image verdict is computed then if it is not yet)."""
        return self._count(f"qrels task4 {self._corpus().rule}", self.qrels_hub_files())
