"""What changed in a dataset between two revisions of its hub data (``ir-bright diff``).

:func:`diff` takes two ids of one dataset at two revisions (``bright/biology@mteb-v1``,
``bright/biology``), or two family-level ids (``bright@mteb-v1``, ``bright``) for every dataset
of the family, and gives per dataset a :class:`DatasetDiff`: documents added, removed and
changed, queries added, removed and changed, gold pairs and excluded pairs added and removed,
and the change kinds (:data:`KINDS`) touching each query.

What counts as a change:

- a document changed when any of its fields but its id differs (its text; an image's bytes);
  the corpora are compared by a 16-byte digest per document, streamed: the old side's digests
  are held, the new side's documents are read one at a time and compared, so neither corpus
  is ever held as text;
- a query changed when its ``text`` (and images, where a query has them) differs: the fields a
  retriever reads, not its rationale or answer;
- a gold pair is a (query, document, label) judged 1 or more; an excluded pair a (query,
  document) judged below 0 (:mod:`ir_bright.judgements`); pairs are counted over every query,
  so a removed query's gold pairs are in ``gold_removed``;
- ``doc_changed`` touches a query when a document judged or excluded for it at either revision
  was edited or removed.

An added or removed query has the one kind ``query_added`` or ``query_removed``. A query
exists at a revision when it is among that revision's queries or judged there.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from ..errors import IrBrightError
from ..judgements import split_qrels

logger = logging.getLogger(__name__)

KINDS = (
    "query_added",
    "query_removed",
    "query_changed",
    "gold_changed",
    "excluded_changed",
    "doc_changed",
)
"""The change kinds that touch a query, in the order they are listed."""

COUNTS = (
    "docs_added",
    "docs_removed",
    "docs_changed",
    "queries_added",
    "queries_removed",
    "queries_changed",
    "gold_added",
    "gold_removed",
    "excluded_added",
    "excluded_removed",
)
"""The counts of a dataset's diff, in the order they are written."""

REVISION_MARK = "@"
"""What separates an id from its revision: ``bright/biology@mteb-v1``."""

_QUERY_CONTENT = ("text", "images")  # the query fields a retriever reads


class DiffError(IrBrightError, ValueError):
    """Two ids that are not one dataset (or one family) at two revisions."""


@dataclass
class DatasetDiff:
    """What changed in one dataset between two revisions: :data:`COUNTS` and, per query
    touched, its change kinds (:data:`KINDS`, in that order)."""

    dataset_id: str
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTS, 0))
    queries: dict[str, list[str]] = field(default_factory=dict)
    at_old: bool = True
    """Whether the dataset is on the hub at the old revision (else all its queries are added)."""
    at_new: bool = True
    """Whether it is on the hub at the new revision (else all its queries are removed)."""

    def as_json(self) -> dict[str, Any]:
        """The counts and ``queries`` as ``ir-bright diff --format json`` writes them."""
        return {**self.counts, "queries": {q: list(k) for q, k in self.queries.items()}}


@dataclass(frozen=True)
class Judgements:
    """One revision's queries and judgements of a dataset, reduced to what a diff compares."""

    queries: Mapping[str, bytes]
    """Query id -> digest of what a retriever reads of it."""
    judged: Mapping[str, Mapping[str, int]]
    """Query id -> doc id -> label (0 and above)."""
    excluded: Mapping[str, AbstractSet[str]]
    """Query id -> the doc ids removed from its ranking."""

    def query_ids(self) -> set[str]:
        """Every query that exists at this revision (listed, or judged)."""
        return set(self.queries) | set(self.judged) | set(self.excluded)


@dataclass(frozen=True)
class DocumentChanges:
    """How one corpus differs between two revisions."""

    added: int = 0
    removed: int = 0
    changed: int = 0
    touched: frozenset[str] = frozenset()
    """The doc ids edited or removed (what ``doc_changed`` looks for)."""


def split_id(dataset_id: str) -> tuple[str, str]:
    """``(id, "@revision")`` of an id (``("bright/biology", "@mteb-v1")``); ``""`` for an id
    without a revision."""
    base, mark, revision = dataset_id.partition(REVISION_MARK)
    return base, mark + revision


def digest(parts: Iterable[Any]) -> bytes:
    """A 16-byte digest of a record's fields (text, bytes, tuples of them, numbers), each
    framed by its length so that no two different records share the bytes hashed."""
    hasher = hashlib.blake2b(digest_size=16)
    for part in parts:
        if isinstance(part, tuple | list):
            data = digest(part)
        elif isinstance(part, bytes):
            data = part
        else:
            data = str(part).encode("utf-8", "surrogatepass")
        hasher.update(len(data).to_bytes(8, "little"))
        hasher.update(data)
    return hasher.digest()


def _doc_digests(docs: Iterable[Any]) -> Iterator[tuple[str, bytes]]:
    """``(doc id, digest of every other field)`` of each document."""
    for doc in docs:
        yield doc[0], digest(doc[1:])


def document_changes(old_docs: Iterable[Any], new_docs: Iterable[Any]) -> DocumentChanges:
    """Compare two corpora (iterables of document records, the id first): the old one's
    digests are held, the new one is streamed against them."""
    remaining = dict(_doc_digests(old_docs))
    added = changed = 0
    touched: set[str] = set()
    for doc_id, new in _doc_digests(new_docs):
        old = remaining.pop(doc_id, None)
        if old is None:
            added += 1
        elif old != new:
            changed += 1
            touched.add(doc_id)
    touched.update(remaining)
    return DocumentChanges(added, len(remaining), changed, frozenset(touched))


def judgements(dataset: Any) -> Judgements:
    """A dataset's queries (digested) and qrels, split into judgements and exclusions."""
    queries: dict[str, bytes] = {}
    if dataset.has_queries():
        for query in dataset.queries_iter():
            fields = [f for f in _QUERY_CONTENT if f in query._fields]
            queries[query.query_id] = digest(getattr(query, f) for f in fields)
    judged: Mapping[str, Mapping[str, int]] = {}
    excluded: Mapping[str, AbstractSet[str]] = {}
    if dataset.has_qrels():
        judged, excluded = split_qrels(dataset.qrels_iter())
    return Judgements(queries, judged, excluded)


def _gold(labels: Mapping[str, int]) -> set[tuple[str, int]]:
    return {(doc_id, label) for doc_id, label in labels.items() if label > 0}


def compare(
    dataset_id: str, old: Judgements, new: Judgements, docs: DocumentChanges | None = None
) -> DatasetDiff:
    """The diff of one dataset from its two revisions' judgements and, when the corpora were
    compared, their :class:`DocumentChanges` (without them, no document counts nor
    ``doc_changed``: what scoring needs, without reading any corpus)."""
    result = DatasetDiff(dataset_id)
    counts = result.counts
    docs = docs or DocumentChanges()
    counts.update(docs_added=docs.added, docs_removed=docs.removed, docs_changed=docs.changed)
    before, after = old.query_ids(), new.query_ids()
    empty_labels: Mapping[str, int] = {}
    empty_docs: AbstractSet[str] = frozenset()
    for query_id in before | after:
        old_labels = old.judged.get(query_id, empty_labels)
        new_labels = new.judged.get(query_id, empty_labels)
        old_excluded = old.excluded.get(query_id, empty_docs)
        new_excluded = new.excluded.get(query_id, empty_docs)
        old_gold, new_gold = _gold(old_labels), _gold(new_labels)
        counts["gold_added"] += len(new_gold - old_gold)
        counts["gold_removed"] += len(old_gold - new_gold)
        counts["excluded_added"] += len(set(new_excluded) - set(old_excluded))
        counts["excluded_removed"] += len(set(old_excluded) - set(new_excluded))
        if query_id not in before:
            counts["queries_added"] += 1
            result.queries[query_id] = ["query_added"]
            continue
        if query_id not in after:
            counts["queries_removed"] += 1
            result.queries[query_id] = ["query_removed"]
            continue
        kinds = []
        if old.queries.get(query_id) != new.queries.get(query_id):
            counts["queries_changed"] += 1
            kinds.append("query_changed")
        if dict(old_labels) != dict(new_labels):
            kinds.append("gold_changed")
        if set(old_excluded) != set(new_excluded):
            kinds.append("excluded_changed")
        if docs.touched and not docs.touched.isdisjoint(
            {*old_labels, *new_labels, *old_excluded, *new_excluded}
        ):
            kinds.append("doc_changed")
        if kinds:
            result.queries[query_id] = kinds
    result.queries = {q: result.queries[q] for q in sorted(result.queries, key=natural)}
    return result


def natural(text: str) -> list[tuple[int, Any]]:
    """Sort key of query ids: ``"2"`` before ``"10"``."""
    from ..scoring.scorer import natural_key

    return natural_key(text)


@dataclass(frozen=True)
class Pair:
    """One dataset to compare: its id (without a revision) and its ids at the two revisions."""

    dataset_id: str
    old: str
    new: str


def pairs(old_id: str, new_id: str) -> list[Pair]:
    """The datasets two ids name at two revisions: the one dataset both name, or, for two
    family-level ids (``bright@mteb-v1``, ``bright``), every dataset the family declares. Two
    ids of different datasets are a one-line error."""
    from ..families import family_of

    (old_base, old_revision), (new_base, new_revision) = split_id(old_id), split_id(new_id)
    if old_base != new_base:
        raise DiffError(
            f"{old_id} and {new_id} are not one dataset at two revisions: give the same id "
            f"twice, each with its revision, e.g. {old_base}@mteb-v1 {old_base}"
        )
    family = family_of(old_base)
    ids = [old_base]
    if family is not None and old_base == family.namespace:
        ids = [entry.id for entry in family.entries]
    return [Pair(i, i + old_revision, i + new_revision) for i in ids]


def load_pair(pair: Pair) -> tuple[Any, Any]:
    """The two datasets of ``pair`` (each id checked now: an unknown id or revision is a
    one-line error before anything is read)."""
    from ..registry import load

    return load(pair.old), load(pair.new)


class _Corpora:
    """Document comparisons of one diff, made once per pair of corpora (the datasets of one
    domain share theirs)."""

    def __init__(self) -> None:
        self._made: dict[tuple[int, int], tuple[Any, Any, DocumentChanges]] = {}

    def changes(self, label: str, old: Any | None, new: Any | None) -> DocumentChanges:
        """Compare the corpora of two datasets (None: a side where the dataset is not on
        the hub, whose corpus counts as empty); ``label`` names them in the log."""
        old_docs, new_docs = _docs_of(old), _docs_of(new)
        key = (id(old_docs), id(new_docs))  # the handlers are kept below: ids stay theirs
        if key not in self._made:
            if _same_files(old_docs, new_docs):
                made = DocumentChanges()
                logger.info("the documents of %s are the same files at both revisions", label)
            else:
                logger.info("comparing the documents of %s", label)
                made = document_changes(_iterate(old_docs), _iterate(new_docs))
            self._made[key] = (old_docs, new_docs, made)
        return self._made[key][2]


def _docs_of(dataset: Any | None) -> Any:
    return dataset.docs_handler() if dataset is not None and dataset.has_docs() else None


def _same_files(old_docs: Any, new_docs: Any) -> bool:
    """Whether two corpora are read from files of the same bytes (the same sha256, as recorded
    when each was fetched): then no document needs comparing. False when either side lists no
    hub files or a file has no recorded sha256."""
    sums = []
    for docs in (old_docs, new_docs):
        files = list(getattr(docs, "docs_hub_files", list)()) if docs is not None else []
        if not files:
            return False
        facts = []
        for file in files:
            file.fetch()
            about = file.provenance() if hasattr(file, "provenance") else None
            if not about or not about.get("sha256"):
                return False
            facts.append(about["sha256"])
        sums.append(facts)
    return sums[0] == sums[1]


def _iterate(docs: Any) -> Iterable[Any]:
    return () if docs is None else docs.docs_iter()


def diff(old_id: str, new_id: str, documents: bool = True) -> dict[str, DatasetDiff]:
    """Per dataset id (without its revision), what changed from ``old_id`` to ``new_id``
    (see the module's docstring). ``documents=False`` compares queries and judgements only
    (no corpus is read: what the scores depend on)."""
    found = pairs(old_id, new_id)
    loaded = [(pair, *load_pair(pair)) for pair in found]
    corpora = _Corpora()
    result = {}
    for pair, old, new in loaded:
        before, after = _judgements_or_none(old), _judgements_or_none(new)
        if before is None and after is None:
            if len(found) == 1:
                raise DiffError(f"{pair.dataset_id} is on the hub at neither revision")
            logger.warning("%s is on the hub at neither revision: left out", pair.dataset_id)
            continue
        docs = None
        if documents:
            docs = corpora.changes(
                pair.dataset_id,
                old if before is not None else None,
                new if after is not None else None,
            )
        empty = Judgements({}, {}, {})
        changes = compare(pair.dataset_id, before or empty, after or empty, docs)
        changes.at_old, changes.at_new = before is not None, after is not None
        result[pair.dataset_id] = changes
    return result


def _judgements_or_none(dataset: Any) -> Judgements | None:
    """The dataset's judgements, or None when its files are not on the hub at its revision
    (a dataset added or removed between two revisions)."""
    from ..errors import NotOnHubError

    try:
        return judgements(dataset)
    except NotOnHubError as exc:
        logger.debug("%s", exc)
        return None
