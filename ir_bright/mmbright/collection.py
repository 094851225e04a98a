"""MM-BRIGHT's datasets, built from the data files: each domain's text corpus and its five task
ids, sharing one image store and pair corpus per domain; :func:`summary` gives the consistency
counts of any id."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache, partial
from typing import Any

from ir_datasets.datasets.base import Dataset

from .. import hub
from ..datafiles import etc_json
from ..errors import DatasetNotFoundError
from ..judgements import EXCLUDED
from ..registry import Documentation, collection_root, dataset
from ..store.docs import ParquetDocs
from ..store.parquet import open_parquet
from .ids import KEY_RULE_OF_TASK, NAMESPACE, TASKS, domain_id, domains, task_id
from .images import ImageCorpus, ImageDocs
from .keys import NO_IMAGE, image_key
from .pairs import PairCorpus, PairDocs
from .source import (
    DOC_IMAGES,
    DOCUMENTS,
    EXAMPLES,
    MULTIMODAL,
    QUERY_IMAGES,
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

__all__ = ["datasets", "summary"]

CONFIGS = (DOCUMENTS, EXAMPLES, MULTIMODAL, DOC_IMAGES, QUERY_IMAGES)


@dataclass
class _Domain:
    """The shared pieces of one domain's datasets (one object per domain and process)."""

    name: str
    doc_images: ImageCorpus
    query_images: ImageCorpus
    pairs: dict[str, PairCorpus]


def _domain(name: str) -> _Domain:
    """The pieces of ``name`` for the current cache folder (``IR_DATASETS_HOME`` is read per
    call, so a changed home never serves another folder's stores)."""
    return _domain_at(name, str(hub.cache_home()))


@cache
def _domain_at(name: str, home: str) -> _Domain:
    documents = file(DOCUMENTS, name)
    doc_images = ImageCorpus(DOC_IMAGES, name)
    return _Domain(
        name=name,
        doc_images=doc_images,
        query_images=ImageCorpus(QUERY_IMAGES, name),
        pairs={rule: PairCorpus(name, rule, documents, doc_images) for rule in ("paper", "legacy")},
    )


def datasets() -> dict[str, Dataset]:
    """Every ``mm-bright`` id -> its Dataset, built from the data files (nothing is downloaded)."""
    docs_json = etc_json("mmbright.json")
    collection = docs_json["collection"]
    result = {NAMESPACE: collection_root(NAMESPACE, collection)}
    for name, pretty in domains().items():
        result.update(_domain_datasets(name, pretty, docs_json))
    return result


def _domain_datasets(name: str, pretty: str, docs_json: dict[str, Any]) -> dict[str, Dataset]:
    """``mm-bright/<domain>`` and its five task ids."""
    counts = etc_json("mmbright_counts.json")[name]
    files = {config: file(config, name) for config in CONFIGS}
    base = domain_id(name)
    text_docs = ParquetDocs(files[DOCUMENTS], base, count=counts["passages"])
    collection = docs_json["collection"]

    def doc(title: str, desc: str) -> Documentation:
        return Documentation(
            {
                "pretty_name": f"MM-BRIGHT {pretty}, {title}",
                "desc": desc.format(domain=pretty),
                "bibtex": collection["bibtex"],
                "official_measures": list(collection["official_measures"]),
                "website": collection["website"],
            }
        )

    passages = {"docs": {"count": counts["passages"]}}
    corpus_doc = doc("text corpus", docs_json["corpus"]["desc"])
    result = {
        base: dataset(base, text_docs, corpus_doc, metadata=passages, files=[files[DOCUMENTS]])
    }
    for task, (components, metadata, task_files) in _tasks(name, counts, text_docs).items():
        about = docs_json["tasks"][task]
        result[task_id(name, task)] = dataset(
            task_id(name, task),
            *components,
            doc(about["name"], about["desc"]),
            metadata=metadata,
            files=[files[config] for config in task_files],
        )
    return result


_TaskParts = tuple[list[Any], dict[str, Any], list[str]]


def _tasks(name: str, counts: dict[str, int], text_docs: ParquetDocs) -> dict[str, _TaskParts]:
    """Per task id: its components, its declared metadata and the configs it reads."""

    def doc_images() -> ImageCorpus:
        return _domain(name).doc_images

    def query_images() -> ImageCorpus:
        return _domain(name).query_images

    passages = {"docs": {"count": counts["passages"]}}
    multimodal = {"queries": {"count": counts["multimodal_queries"]}}
    mm_queries = MultimodalQueries(name, query_images)
    images = ImageDocs(name, doc_images, counts["decodable_images"])
    tasks: dict[str, _TaskParts] = {
        "task1": (
            [text_docs, TextQueries(name), TextQrels(name, EXAMPLES)],
            dict(passages, queries={"count": counts["task1_queries"]}),
            [DOCUMENTS, EXAMPLES],
        ),
        "task2": (
            [text_docs, mm_queries, TextQrels(name, MULTIMODAL)],
            dict(passages, **multimodal),
            [DOCUMENTS, MULTIMODAL, QUERY_IMAGES],
        ),
        "task3": (
            [images, mm_queries, ImageQrels(name)],
            dict(multimodal, docs={"count": counts["decodable_images"]}),
            [DOC_IMAGES, MULTIMODAL, QUERY_IMAGES],
        ),
    }
    for task, rule in KEY_RULE_OF_TASK.items():
        corpus = partial(_pairs, name, rule)
        tasks[task] = (
            [PairDocs(name, rule, corpus), mm_queries, PairQrels(corpus)],
            dict(multimodal),
            [DOCUMENTS, DOC_IMAGES, MULTIMODAL, QUERY_IMAGES],
        )
    return tasks


def _pairs(name: str, rule: str) -> PairCorpus:
    return _domain(name).pairs[rule]


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
    parts = _domain(domain)
    out: dict[str, int] = {}
    if task is None:
        return {"docs": _rows(file(DOCUMENTS, domain))}
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
        corpus = parts.pairs[KEY_RULE_OF_TASK[task]]
        pairs = image_pairs = 0
        for pid in corpus.pair_ids():
            pairs += 1
            image_pairs += not pid.endswith(NO_IMAGE)
        out["docs"], out["image_pairs"] = pairs, image_pairs
        judgements = task4_judgements(corpus)
        qrels = judgements.qrels
        out["orphan_positives"] = judgements.orphan_positives
        out["undecodable_positives"] = judgements.undecodable_positives
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


def _parse(dataset_id: str) -> tuple[str, str | None]:
    parts = dataset_id.split("/")
    domains = etc_json("mmbright_counts.json")
    if (
        len(parts) in (2, 3)
        and parts[0] == NAMESPACE
        and parts[1] in domains
        and (len(parts) == 2 or parts[2] in TASKS)
    ):
        return parts[1], parts[2] if len(parts) == 3 else None
    raise DatasetNotFoundError(
        f"{dataset_id!r} is not an MM-BRIGHT id: mm-bright/<domain>[/task1|task2|task3|task4"
        "|task4-legacy]"
    )


def _rows(hub_file) -> int:
    return open_parquet(hub_file.fetch()).metadata.num_rows
