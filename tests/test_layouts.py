"""The layout readers and the typed declaration schema.

A family in a known layout is a declaration alone: here small families declared in the test
(made-up text, the layouts' real file names, columns and quirks) are served on the loopback
hub and read through ir_datasets, against what BEIR's and MTEB's loaders make of the same
files (rows into dicts keyed by id: a repeated id keeps its last row, a repeated pair its
last score; BEIR's TSV qrels skip their header line). A declaration with a wrong, unknown or
missing key, or a value of the wrong type, is refused naming the file and the key.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from ir_bright.families import DeclarationError, Family, families

CORPUS = [
    {"_id": "d1", "title": "", "text": "the first document"},
    {"_id": "d2", "title": "", "text": "the second document"},
    {"_id": "d1", "title": "", "text": "the first document, rewritten"},
    {"_id": "d3", "title": "", "text": "a third one"},
]
QUERIES = [{"_id": "q1", "text": "which is first?"}, {"_id": "q2", "text": "and third?"}]
QRELS = [("q1", "d1", 1), ("q2", "d3", 1), ("q2", "d2", 2), ("q2", "d2", 0)]
"""A repeated pair (q2, d2): its last score wins, 0, as in BEIR's and MTEB's dicts."""


def declaration(layout: str, **hub: object) -> dict:
    """A family of one domain in ``layout``, declared as a data file would."""
    return {
        "name": "layout-test",
        "order": 99,
        "namespace": "layout-test",
        "layout": layout,
        "replaces": "ir_datasets has no such ids",
        "collection": {"pretty_name": "Test", "desc": "A test.", "bibtex": "", "website": "w"},
        "protocol": {"exclusions": None, "depth": 1000, "measure": "nDCG@10", "query_side": False},
        "hub": {"repo": "test-org/{domain}", "cache_path": "{domain}/{path}", **hub},
        "domains": {
            "ARC-Challenge": {
                "id": "arc-challenge",
                "name": "ARC",
                "label": "ARC",
                "counts": {"docs": 3, "queries": 2, "qrels": 3},
            }
        },
        "document_sets": {"all": {"suffix": ""}},
        "query_sets": {"original": {"suffix": ""}},
        "benchmarks": {},
    }


def beir_expectation() -> tuple[list, list, set]:
    """What BEIR's GenericDataLoader makes of the files: dicts keyed by id, in first-seen
    order, each holding the last row's values."""
    corpus: dict[str, str] = {}
    for row in CORPUS:
        corpus[row["_id"]] = row["text"]
    queries = {row["_id"]: row["text"] for row in QUERIES}
    qrels: dict[str, dict[str, int]] = {}
    for query_id, doc_id, score in QRELS:
        qrels.setdefault(query_id, {})[doc_id] = score
    judged = {(q, d, s) for q, docs in qrels.items() for d, s in docs.items()}
    return list(corpus.items()), list(queries.items()), judged


def read_family(data: dict) -> dict:
    family = Family.read(data, "layout-test.json")
    return family.datasets()


def check(datasets: dict) -> None:
    dataset = datasets["layout-test/arc-challenge"]
    docs, queries, qrels = beir_expectation()
    assert [(d.doc_id, d.text) for d in dataset.docs_iter()] == docs
    assert dataset.docs_store().get("d1").text == "the first document, rewritten"
    assert [(q.query_id, q.text) for q in dataset.queries_iter()] == queries
    assert {(q.query_id, q.doc_id, q.relevance) for q in dataset.qrels_iter()} == qrels
    assert dataset.docs_count() == 3 and dataset.queries_count() == 2
    assert sum(1 for _ in dataset.qrels_iter()) == dataset.qrels_count() == 3


@pytest.fixture
def unverified(hub, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    return hub


def test_beir_jsonl_reads_corpus_queries_and_tsv_qrels_as_beirs_loader(unverified, hub_root):
    folder = hub_root / "test-org" / "ARC-Challenge"
    (folder / "qrels").mkdir(parents=True)
    lines = "".join(json.dumps(row) + "\n" for row in CORPUS)
    (folder / "corpus.jsonl").write_text(lines, "utf-8")
    (folder / "queries.jsonl").write_text("".join(json.dumps(r) + "\n" for r in QUERIES))
    tsv = "query-id\tcorpus-id\tscore\n" + "".join(f"{q}\t{d}\t{s}\n" for q, d, s in QRELS)
    (folder / "qrels" / "test.tsv").write_text(tsv, "utf-8")
    check(read_family(declaration("beir-jsonl")))


def test_beir_jsonl_reads_a_familys_own_file_and_column_names(unverified, hub_root):
    folder = hub_root / "test-org" / "ARC-Challenge"
    folder.mkdir(parents=True)
    corpus = [{"id": r["_id"], "text": r["text"]} for r in CORPUS]
    (folder / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in corpus))
    queries = [{"id": r["_id"], "text": r["text"]} for r in QUERIES]
    (folder / "query.jsonl").write_text("".join(json.dumps(r) + "\n" for r in queries))
    qrels = [{"q_id": q, "p_id": d, "score": s} for q, d, s in QRELS]
    (folder / "qrels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in qrels))
    data = declaration("beir-jsonl", paths={"queries": "query.jsonl", "qrels": "qrels.jsonl"})
    data["columns"] = {
        "corpus": {"doc_id": "id"},
        "queries": {"query_id": "id"},
        "qrels": {"query_id": "q_id", "doc_id": "p_id", "relevance": "score"},
    }
    check(read_family(data))


def test_mteb_parquet_reads_its_configs_as_mtebs_loader(unverified, hub_root):
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = hub_root / "test-org" / "ARC-Challenge"
    tables = {
        "corpus": pa.Table.from_pylist(CORPUS),
        "queries": pa.Table.from_pylist(QUERIES),
        "qrels": pa.table(
            {
                "query-id": [q for q, _, _ in QRELS],
                "corpus-id": [d for _, d, _ in QRELS],
                "score": pa.array([s for _, _, s in QRELS], pa.int64()),
            }
        ),
    }
    for config, table in tables.items():
        (folder / config).mkdir(parents=True)
        pq.write_table(table, folder / config / "test-00000-of-00001.parquet")
    check(read_family(declaration("mteb-parquet")))


def test_a_layout_reads_nothing_until_asked(hub_root):
    # the datasets of a declaration are built without the network (the hub here is none)
    dataset = read_family(declaration("beir-jsonl"))["layout-test/arc-challenge"]
    assert dataset.docs_count() == 3 and dataset.qrels_count() == 3
    paths = [f.path for f in dataset.hub_files()]
    assert paths == ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv"]


def real_declarations() -> list[tuple[str, dict]]:
    folder = Path(families()[0].module().__file__).parents[1]
    return [(p.name, json.loads(p.read_text("utf-8"))) for p in sorted(folder.glob("*.json"))]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(colour="blue"), r"layout-test\.json\.colour: unknown key"),
        (lambda d: d["hub"].update(revison="main"), r"layout-test\.json\.hub\.revison: unknown"),
        (lambda d: d["protocol"].update(depth="1000"), r"protocol\.depth: expected int, got a"),
        (lambda d: d["protocol"].update(query_side=1), r"protocol\.query_side: expected bool"),
        (lambda d: d.pop("namespace"), r"layout-test\.json\.namespace: missing"),
        (lambda d: d.update(layout="csv"), r"layout-test\.json\.layout: 'csv' is not one of"),
        (
            lambda d: d["domains"]["ARC-Challenge"]["counts"].update(docs="3"),
            r"domains\['ARC-Challenge'\]\.counts\.docs: ",
        ),
        (lambda d: d["document_sets"]["all"].update(domains="ARC"), r"\.domains: expected an"),
        (
            lambda d: d["query_sets"]["original"].update(domains=["nowhere"]),
            r"query_sets\.original\.domains: 'nowhere' is not declared",
        ),
        (lambda d: d["hub"].update(files={"a/b": {"size": 1.5}}), r"\['a/b'\]\.size: expected"),
    ],
)
def test_a_wrong_declaration_is_refused_naming_the_file_and_key(change, message):
    data = copy.deepcopy(declaration("beir-jsonl"))
    Family.read(copy.deepcopy(data), "layout-test.json")  # the unchanged one is fine
    change(data)
    with pytest.raises(DeclarationError, match=message):
        Family.read(data, "layout-test.json")


@pytest.mark.parametrize(("name", "data"), real_declarations(), ids=lambda v: str(v)[:20])
def test_every_shipped_declaration_reads_and_an_unknown_key_in_it_is_refused(name, data):
    Family.read(copy.deepcopy(data), name)
    data["hub"]["mirror"] = "elsewhere"
    with pytest.raises(DeclarationError, match=rf"{name}\.hub\.mirror: unknown key"):
        Family.read(data, name)


def test_the_hub_block_has_one_shape_in_every_family():
    # every family's hub block is the same typed object, whatever its layout
    kinds = {type(f.hub) for f in families()}
    assert len(kinds) == 1 and all(f.hub.repo for f in families())
