"""Task 4's corpus: (passage, image) pairs, generated from the passages and images on the fly.

Every passage gives ``<passage>|||__NO_IMAGE__``, then ``<passage>|||<image>`` for each
decodable document image whose key equals the passage's key (under the ``paper`` or ``legacy``
rule, see :mod:`.keys`), images in ``document_images`` row order. Nothing is materialised: the
passages stream from the parquet (or its memory-mapped store), the image index is a few
thousand paths, and lookups by pair id read one passage and one image from memory maps.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ir_datasets.formats import BaseDocs
from ir_datasets.indices import Docstore

from ...store.arrow import ArrowStore
from ...store.counts import cached_count
from ...store.docs import DOCS_SPEC
from ...store.schema import checked_batches
from ..declaration import Family
from .images import ImageCorpus
from .keys import image_key, pair_id, passage_key_rule, split_pair_id
from .records import MMBrightPairDoc

if TYPE_CHECKING:
    import pyarrow as pa

ID, TEXT = "id", "content"


class PairCorpus:
    """The passages and decodable images of one domain, joined by one key rule."""

    def __init__(
        self, domain: str, rule: str, passages_file, images: ImageCorpus, family: Family | None
    ):
        self.domain = domain
        self.family = family
        self.rule = rule
        self.passage_key = passage_key_rule(rule)
        self.passages_file = passages_file
        self.passages = ArrowStore(passages_file.fetch, ID, [ID, TEXT], spec=DOCS_SPEC)
        self.images = images

    @cached_property
    def images_by_key(self) -> dict[str, list[str]]:
        """Page key -> the decodable images of that page, in row order."""
        by_key: dict[str, list[str]] = {}
        for path in self.images.formats:
            key = image_key(path, self.domain)
            if key is not None:
                by_key.setdefault(key, []).append(path)
        return by_key

    def passage_batches(self, columns: list[str]) -> Iterator[pa.RecordBatch]:
        """The passages in corpus order, from the memory map once built, else the parquet."""
        if self.passages.built():
            yield from self.passages.batches(columns=columns)
        else:
            yield from checked_batches(self.passages_file.fetch(), DOCS_SPEC, columns)

    def passages_by_key(self, keys: Collection[str]) -> dict[str, list[str]]:
        """Key -> the ids of the passages with that key, for the keys asked (one id scan)."""
        found: dict[str, list[str]] = {}
        if not keys:
            return found
        key_of = self.passage_key
        for batch in self.passage_batches([ID]):
            for passage_id in batch.column(0).to_pylist():
                key = key_of(passage_id)
                if key in keys:
                    found.setdefault(key, []).append(passage_id)
        return found

    def pair_ids(self) -> Iterator[str]:
        """Every pair id in corpus order (ids only, no text or image)."""
        by_key, key_of = self.images_by_key, self.passage_key
        for batch in self.passage_batches([ID]):
            for passage_id in batch.column(0).to_pylist():
                yield pair_id(passage_id, None)
                for path in by_key.get(key_of(passage_id), ()):
                    yield pair_id(passage_id, path)

    def pairs(self) -> Iterator[MMBrightPairDoc]:
        """Every pair in corpus order, with text and image bytes."""
        by_key, key_of, image = self.images_by_key, self.passage_key, self.images.image
        for batch in self.passage_batches([ID, TEXT]):
            ids = batch.column(0).to_pylist()
            texts = batch.column(1).to_pylist()
            for passage_id, text in zip(ids, texts):
                # _make: the image fields of a text-only pair are None (see ir_bright.records)
                yield MMBrightPairDoc._make(
                    (pair_id(passage_id, None), passage_id, text, None, None)
                )
                for path in by_key.get(key_of(passage_id), ()):
                    pair = (pair_id(passage_id, path), passage_id, text, path, image(path))
                    yield MMBrightPairDoc._make(pair)

    def get(self, doc_id: str) -> MMBrightPairDoc | None:
        """The pair of ``doc_id``, or None when no such pair is in the corpus."""
        parts = split_pair_id(doc_id)
        if parts is None:
            return None
        passage_id, path = parts
        passage = self.passages.lookup(passage_id)
        if passage is None:
            return None
        data = None
        if path is not None:
            if image_key(path, self.domain) != self.passage_key(passage_id):
                return None
            data = self.images.image(path)
            if data is None:
                return None
        _, text = passage
        return MMBrightPairDoc._make((doc_id, passage_id, text, path, data))


class PairDocstore(Docstore):
    """Lookups by pair id: one passage row and at most one image row, from memory maps."""

    def __init__(self, corpus: PairCorpus):
        super().__init__(MMBrightPairDoc, "doc_id")
        self._corpus = corpus

    def get_many_iter(self, doc_ids: Iterable[str]) -> Iterator[MMBrightPairDoc]:
        """The pairs of the ids that are in the corpus, in the order asked."""
        for doc_id in doc_ids:
            doc = self._corpus.get(doc_id)
            if doc is not None:
                yield doc


class PairDocs(BaseDocs):
    """ir_datasets docs component of a :class:`PairCorpus`."""

    def __init__(self, domain: str, rule: str, corpus: Callable[[], PairCorpus]):
        self._domain = domain
        self._rule = rule
        self._corpus = corpus

    def docs_iter(self) -> Iterator[MMBrightPairDoc]:
        """Every pair, generated in corpus order."""
        return self._corpus().pairs()

    def docs_hub_files(self) -> list[Any]:
        """The hub files the pairs are built from: the passages and the document images."""
        corpus = self._corpus()
        return [corpus.passages_file, corpus.images.hub_file]

    def docs_store(self, field: str = "doc_id") -> PairDocstore:
        """Random access by pair id."""
        return PairDocstore(self._corpus())

    def docs_count(self) -> int | None:
        """Published nowhere: known once the passages and document images are cached (the
        pairs are counted once, by id, then the count is stored)."""
        corpus = self._corpus()
        inputs = self.docs_hub_files()
        count = lambda: sum(1 for _ in corpus.pair_ids())  # noqa: E731
        return cached_count(f"pairs {self._rule}", inputs, count)

    def docs_cls(self) -> type:
        """``MMBrightPairDoc``."""
        return MMBrightPairDoc

    def docs_namespace(self) -> str:
        """Pairs differ per key rule."""
        return f"mm-bright/{self._domain}/pairs-{self._rule}"

    def docs_lang(self) -> str:
        """The passages' language."""
        return "en"
