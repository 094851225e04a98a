"""RAR-b: BEIR's protocol (the mean over the queries the run and the qrels share), and the 17
tasks through ir_datasets, the command line and PyTerrier, against the fixture hub
(tests/fixtures/rarb_hub.py) and the independent reference of the protocol (tests/protocol.py)."""

from __future__ import annotations

import json
import random

import ir_datasets
import pytest
from ir_measures import Qrel

import ir_bright
from ir_bright.families import family, run_depth
from ir_bright.scoring.evaluator import OfficialEvaluator
from ir_bright.scoring.official import Official
from ir_bright.scoring.parsing import parse_measures
from tests import protocol
from tests.fixtures.rarb_hub import INSTRUCTIONS, REPOS

MEASURES = ["nDCG@10", "R@100", "P@5", "RR", "AP@1000"]


@pytest.mark.parametrize("seed", range(4))
def test_a_shared_average_is_beirs_mean_over_the_queries_the_run_ranks(seed):
    qrels, run = protocol.random_case(random.Random(seed), excluded=0, run_length=1200)
    measures = [Official(m) for m in parse_measures(MEASURES)]
    judged = [Qrel(*row) for row in qrels]
    ranked: dict[str, dict[str, float]] = {}
    for query_id, doc_id, score in run:
        ranked.setdefault(query_id, {})[doc_id] = score
    shared = OfficialEvaluator(measures, judged, "shared").calc_aggregate(ranked)
    every = OfficialEvaluator(measures, judged).calc_aggregate(ranked)
    for measure in measures:
        name = str(measure.inner)
        assert shared[measure] == pytest.approx(protocol.shared_mean(name, qrels, run), abs=1e-12)
        assert every[measure] == pytest.approx(protocol.mean(name, qrels, run), abs=1e-12)
        assert shared[measure] >= every[measure]  # the case misses queries: 0s left out
    assert {q for q, _, _ in qrels} - set(ranked)  # so the two means are over other queries


def dataset_id(repo: str) -> str:
    return f"rar-b/{repo.lower()}"


def test_the_family_declares_the_17_tasks_at_mteb_pins():
    rarb = family("rar-b")
    assert sorted(dataset_id(repo) for repo in REPOS) == sorted(e.id for e in rarb.entries)
    assert rarb.dataset_ids()[0] == "rar-b" and len(rarb.dataset_ids()) == 18
    revisions = {key: rarb.hub.domain_revisions[key] for key in rarb.domains}
    assert revisions["ARC-Challenge"] == "c481e0da3dcbbad8bce7721dea9085b74320a0a3"
    assert revisions["math-pooled"] == "2393603c0221ff52f448d12dd75f0856103c6cca"
    assert rarb.protocol.average == "shared" and rarb.protocol.exclusions is None
    assert not rarb.protocol.query_side and run_depth("rar-b/piqa") == 1000
    assert family("rar-b").declaration.module is None  # data only: its layout reads it


@pytest.mark.parametrize("repo", REPOS)
def test_every_task_loads_its_files_with_the_instruction_as_a_query_field(rarb, repo):
    rows = rarb[repo]
    dataset = ir_datasets.load(dataset_id(repo))
    assert [(d.doc_id, d.text) for d in dataset.docs_iter()] == [
        (row["_id"], row["text"]) for row in rows["corpus"]
    ]
    queries = list(dataset.queries_iter())
    assert [(q.query_id, q.text, q.instruction) for q in queries] == [
        (row["_id"], row["text"], INSTRUCTIONS[repo]) for row in rows["queries"]
    ]
    assert queries[0].default_text() == queries[0].text
    judged = [(q.query_id, q.doc_id, q.relevance) for q in dataset.qrels_iter()]
    assert sorted(judged) == sorted(rows["qrels"])
    metadata = dataset.metadata()
    assert {"docs", "queries", "qrels"} <= set(metadata)
    assert all("count" in metadata[kind] for kind in ("docs", "queries", "qrels"))


def test_declared_counts_are_mtebs():
    counts = {key: domain.counts for key, domain in family("rar-b").domains.items()}
    assert sum(c["queries"] for c in counts.values()) == 65391
    assert counts["spartqa"] == {"queries": 3594, "docs": 1592, "qrels": 6752}
    assert counts["math-pooled"] == {"queries": 6319, "docs": 389376, "qrels": 6319}


def test_scores_are_beirs_mean_over_the_queries_run_and_qrels_share(rarb, tmp_path):
    rows = rarb["spartqa"]
    rng = random.Random(3)
    doc_ids = [row["_id"] for row in rows["corpus"]]
    run = [
        (row["_id"], doc_id, float(rng.randint(0, 5)))
        for row in rows["queries"][::2]  # half the queries
        for doc_id in doc_ids
    ]
    path = tmp_path / "run.trec"
    path.write_text("".join(f"{q} Q0 {d} 0 {s} r\n" for q, d, s in run), encoding="utf-8")
    scores = ir_bright.evaluate(path, "rar-b/spartqa", ["nDCG@10", "R@3", "RR"])
    for name, value in scores.items():
        assert value == pytest.approx(protocol.shared_mean(name, rows["qrels"], run), abs=1e-12)
    assert scores["nDCG@10"] != pytest.approx(protocol.mean("nDCG@10", rows["qrels"], run))


@pytest.mark.slow
def test_every_command_works_on_rar_b(rarb, cli, tmp_path):
    status, out, _ = cli("list", "rar-b/winogrande", "--format", "json")
    assert status == 0 and "rar-b/winogrande" in [row["id"] for row in json.loads(out)]
    assert cli("download", "rar-b/winogrande")[0] == 0
    status, out, _ = cli("info", "rar-b/winogrande", "--format", "json")
    info = json.loads(out)
    assert all(f["cached"] for f in info["files"]) and info["protocol"]["average"] == "shared"
    status, out, _ = cli("export", "rar-b/winogrande", "queries", "--format", "jsonl")
    assert {json.loads(line)["instruction"] for line in out.splitlines()} == {
        INSTRUCTIONS["winogrande"]
    }
    folder = tmp_path / "bm25"
    folder.mkdir()
    for repo in REPOS:
        run = folder / f"rar-b__{repo.lower()}.trec"
        status, _, err = cli("bm25", dataset_id(repo), "-o", str(run))
        assert status == 0, err
    status, out, err = cli("evaluate", "rar-b/winogrande", str(folder / "rar-b__winogrande.trec"))
    assert status == 0, err
    status, out, err = cli("report", str(folder), "--format", "json")
    assert status == 0, err
    table = json.loads(out)
    assert table["benchmark"] == "rar-b" and len(table["columns"]) == 17
    assert table["rows"][0]["average"] is not None


def test_pyterrier_reads_rar_b(rarb):
    pt = pytest.importorskip("pyterrier")
    topics = pt.get_dataset("bright:rar-b/piqa").get_topics()
    assert list(topics["query"]) == [row["text"] for row in rarb["piqa"]["queries"]]
    qrels = pt.get_dataset("irds:rar-b/piqa").get_qrels()
    assert set(zip(qrels["qid"], qrels["docno"])) == {q[:2] for q in rarb["piqa"]["qrels"]}


def test_counting_the_queries_downloads_nothing(rarb, hub):
    dataset = ir_datasets.load("rar-b/siqa")
    for file in dataset.queries_hub_files()[:1]:  # the queries cached, the instruction not
        file.fetch()
    before = len(hub.requests)
    assert dataset.queries_count() == 1954 == dataset.metadata()["queries"]["count"]
    assert len(hub.requests) == before
