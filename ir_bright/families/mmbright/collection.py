"""MM-BRIGHT's datasets, built from the data files: each domain's text corpus and its five task
ids, sharing one image store and pair corpus per domain; :func:`summary` gives the consistency
counts of any id."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache, partial
from typing import Any

from ir_datasets.datasets.base import Dataset

from ... import hub
from ...errors import DatasetNotFoundError
from ...judgements import EXCLUDED
from ...store.docs import ParquetDocs
from ...store.parquet import open_parquet
from ..components import Documentation, collection_root, dataset, unknown_metadata
from ..declaration import Family
from .images import ImageCorpus, ImageDocs
from .keys import NO_IMAGE, image_key
from .pairs import PairCorpus, PairDocs
from .records import RECORDS as RECORDS  # the family's record types (Family.record_types)
from .source import (
    DOC_IMAGES,
    DOCUMENTS,
    EXAMPLES,
    MULTIMODAL,
    QUERY_IMAGES,
    declaration,
    file,
    query_rows,
    unique,
)
from .tasks import (
    ImageQrels,
    MultimodalQueries,
    PairQrels,
    TextQrels,
    TextQueries,
    task4_judgements,
)

CONFIGS = (DOCUMENTS, EXAMPLES, MULTIMODAL, DOC_IMAGES, QUERY_IMAGES)

READS_REVISIONS = True
"""Its datasets read every hub file from the family they are built from, so a family at a
revision (:meth:`~ir_bright.families.Family.at`) reads that revision."""


@dataclass
class _Domain:
    """The shared pieces of one domain's datasets (one object per domain and process)."""

    name: str
    doc_images: ImageCorpus
    query_images: ImageCorpus
    pairs: dict[str, PairCorpus]


def _domain(name: str, family: Family | None = None) -> _Domain:
    """The pieces of ``name`` in ``family`` (default: the declared one) for the current cache
    folder (``IR_DATASETS_HOME`` is read per call, so a changed home never serves another
    folder's stores)."""
    return _domain_at(family or declaration(), name, str(hub.cache_home()))


@cache
def _domain_at(family: Family, name: str, home: str) -> _Domain:
    documents = file(DOCUMENTS, name, family)
    doc_images = ImageCorpus(DOC_IMAGES, name, family)
    pairs = {
        rule: PairCorpus(name, rule, documents, doc_images, family) for rule in ("paper", "legacy")
    }
    return _Domain(
        name=name,
        doc_images=doc_images,
        query_images=ImageCorpus(QUERY_IMAGES, name, family),
        pairs=pairs,
    )


def datasets(family: Family) -> dict[str, Dataset]:
    """Every id of the MM-BRIGHT family -> its Dataset, built from its declaration (nothing is
    downloaded)."""
    result = {family.namespace: collection_root(family.namespace, family.collection)}
    for name in family.domains:
        entries = [entry for entry in family.entries if entry.domain == name]
        result.update(_domain_datasets(family, name, {e.query_set: e.id for e in entries}))
    return result


def _key_rules(family: Family) -> dict[str, str]:
    """The image-key rule of each Task 4 query set (:mod:`.keys`)."""
    return {name: about.key_rule for name, about in family.query_sets.items() if about.key_rule}


def _domain_datasets(family: Family, name: str, ids: dict[str, str]) -> dict[str, Dataset]:
    """``mm-bright/<domain>`` (the ``corpus`` query set: documents only) and its task ids."""
    counts = {kind: n for kind, n in family.domains[name].counts.items() if isinstance(n, int)}
    pretty = family.domains[name].name
    files = {config: file(config, name, family) for config in CONFIGS}
    base = ids["corpus"]
    text_docs = ParquetDocs(files[DOCUMENTS], base, count=counts.get("passages"))

    def doc(title: str, desc: str) -> Documentation:
        return Documentation(
            family.documentation(f"MM-BRIGHT {pretty}, {title}", desc.format(domain=pretty))
        )

    passages = {"docs": {"count": counts.get("passages")}}
    corpus = family.query_sets["corpus"]
    corpus_doc = doc(corpus.name or "", corpus.desc or "")
    result = {
        base: dataset(base, text_docs, corpus_doc, metadata=passages, files=[files[DOCUMENTS]])
    }
    tasks = _tasks(family, name, counts, text_docs)
    for task, (components, metadata, task_files) in tasks.items():
        about = family.query_sets[task]
        entry = family.entry(ids[task])
        assert entry is not None, "every task is a declared dataset"
        result[ids[task]] = dataset(
            ids[task],
            *components,
            doc(about.name or "", about.desc or ""),
            metadata={**unknown_metadata(family, entry), **metadata},
            files=[files[config] for config in task_files],
        )
    return result


_TaskParts = tuple[list[Any], dict[str, Any], list[str]]


def _tasks(
    family: Family, name: str, counts: dict[str, int], text_docs: ParquetDocs
) -> dict[str, _TaskParts]:
    """Per task id: its components, its declared metadata and the configs it reads (counts
    are None at a revision whose counts are not declared)."""

    def doc_images() -> ImageCorpus:
        return _domain(name, family).doc_images

    def query_images() -> ImageCorpus:
        return _domain(name, family).query_images

    passages = {"docs": {"count": counts.get("passages")}}
    multimodal = {"queries": {"count": counts.get("multimodal_queries")}}
    mm_queries = MultimodalQueries(name, query_images, family)
    images = ImageDocs(name, doc_images, counts.get("decodable_images"))
    tasks: dict[str, _TaskParts] = {
        "task1": (
            [text_docs, TextQueries(name, family), TextQrels(name, EXAMPLES, family)],
            dict(passages, queries={"count": counts.get("task1_queries")}),
            [DOCUMENTS, EXAMPLES],
        ),
        "task2": (
            [text_docs, mm_queries, TextQrels(name, MULTIMODAL, family)],
            dict(passages, **multimodal),
            [DOCUMENTS, MULTIMODAL, QUERY_IMAGES],
        ),
        "task3": (
            [images, mm_queries, ImageQrels(name, family)],
            dict(multimodal, docs={"count": counts.get("decodable_images")}),
            [DOC_IMAGES, MULTIMODAL, QUERY_IMAGES],
        ),
    }
    for task, rule in _key_rules(family).items():
        corpus = partial(_pairs, family, name, rule)
        tasks[task] = (
            [PairDocs(name, rule, corpus), mm_queries, PairQrels(corpus)],
            dict(multimodal),
            [DOCUMENTS, DOC_IMAGES, MULTIMODAL, QUERY_IMAGES],
        )
    return tasks


def _pairs(family: Family, name: str, rule: str) -> PairCorpus:
    return _domain(name, family).pairs[rule]


def summary(dataset_id: str) -> dict[str, int]:
    """Consistency counts of an ``mm-bright`` id, as a plain dict of ints.

    Every id: ``docs``. Task ids add ``queries`` (rows), ``scored_queries`` (queries with a
    judgement of 0 or more), ``qrels_<label>`` for each label >= 0 and ``excluded`` (qrels of
    -100). Task 3 adds ``orphan_positives`` (positive images absent from ``document_images``)
    and ``undecodable_positives``; Task 4 adds ``image_pairs``, ``orphan_positives`` (positive
    images whose key matches no gold passage) and ``undecodable_positives`` (matching but not
    decodable). Tasks 2-4 add ``query_images`` (annotated paths), ``unresolvable_query_images``
    and its two parts, ``query_images_missing`` and ``query_images_undecodable``. Tasks 3-4 add
    ``decodable_images`` and ``undecodable_images`` of the domain. Downloads what it needs.
    """
    domain, task = _parse(dataset_id)
    if task is None:
        return {"docs": _rows(file(DOCUMENTS, domain))}
    parts = _domain(domain)
    out, qrels = _corpus_counts(domain, task, parts)
    rows = query_rows(EXAMPLES if task == "task1" else MULTIMODAL, domain)
    out["queries"] = len(rows)
    out["scored_queries"] = len({q.query_id for q in qrels if q.relevance >= 0})
    labels = Counter(q.relevance for q in qrels)
    for label in sorted((lab for lab in labels if lab >= 0), reverse=True):
        out[f"qrels_{label}"] = labels[label]
    out["excluded"] = labels.get(EXCLUDED, 0)
    if task in ("task3", "task4", "task4-legacy"):
        out["decodable_images"] = len(parts.doc_images.formats)
        out["undecodable_images"] = len(parts.doc_images.undecodable)
        out["unpaired_images"] = sum(
            1 for p in parts.doc_images.formats if image_key(p, domain) is None
        )
    if task != "task1":
        missing = broken = total = 0
        for row in rows:
            _, _, lost, bad = parts.query_images.resolve(unique(row.image_paths))
            total += len(unique(row.image_paths))
            missing += lost
            broken += bad
        out["query_images"] = total
        out["unresolvable_query_images"] = missing + broken
        out["query_images_missing"] = missing
        out["query_images_undecodable"] = broken
    return out


def _corpus_counts(domain: str, task: str, parts: _Domain) -> tuple[dict[str, int], list[Any]]:
    """The counts of a task's corpus (``docs``, and the positives it lacks), and its qrels."""
    out: dict[str, int] = {}
    if task in ("task1", "task2"):
        out["docs"] = _rows(file(DOCUMENTS, domain))
        config = EXAMPLES if task == "task1" else MULTIMODAL
        qrels = list(TextQrels(domain, config).qrels_iter())
    elif task == "task3":
        out["docs"] = len(parts.doc_images.formats)
        qrels = list(ImageQrels(domain).qrels_iter())
        undecodable = set(parts.doc_images.undecodable)
        positives = {q.doc_id for q in qrels}
        out["orphan_positives"] = sum(
            1 for p in positives if p not in parts.doc_images.formats and p not in undecodable
        )
        out["undecodable_positives"] = len(positives & undecodable)
    else:
        corpus = parts.pairs[_key_rules(declaration())[task]]
        pairs = image_pairs = 0
        for pid in corpus.pair_ids():
            pairs += 1
            image_pairs += not pid.endswith(NO_IMAGE)
        out["docs"], out["image_pairs"] = pairs, image_pairs
        judgements = task4_judgements(corpus)
        qrels = judgements.qrels
        out["orphan_positives"] = judgements.orphan_positives
        out["undecodable_positives"] = judgements.undecodable_positives
    return out, qrels


def _parse(dataset_id: str) -> tuple[str, str | None]:
    """The domain and task (None: the text corpus) of an MM-BRIGHT id."""
    mm_bright = declaration()
    entry = mm_bright.entry(dataset_id)
    if entry is None:
        tasks = "|".join(name for name in mm_bright.query_sets if name != "corpus")
        raise DatasetNotFoundError(
            f"{dataset_id!r} is not an MM-BRIGHT id: {mm_bright.namespace}/<domain>[/{tasks}]"
        )
    return entry.domain, None if entry.query_set == "corpus" else entry.query_set


def _rows(hub_file) -> int:
    return open_parquet(hub_file.fetch()).metadata.num_rows
