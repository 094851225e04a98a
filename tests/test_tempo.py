"""TEMPO: every domain and reasoning set through ir_datasets, its exclusions, the official BM25
run and metrics, against tests/data/tempo/reference.json (the official code's own output on the
fixture hub, tests/fixtures/tempo_hub.py)."""

from __future__ import annotations

import json
from pathlib import Path

import ir_datasets
import ir_measures
import pytest
from ir_measures import AP, RR, P, R, nDCG

from ir_bright import Official
from ir_bright.errors import ChecksumError
from ir_bright.families import family
from tests.fixtures.tempo_hub import DOMAINS, REASONING_MODELS
from tests.helpers import assert_same_ranking

REFERENCE = json.loads(
    (Path(__file__).parent / "data" / "tempo" / "reference.json").read_text(encoding="utf-8")
)["sets"]
SETS = {"examples": "", **{f"{m}_reason": f"/{m}-reason" for m in REASONING_MODELS}}
EXCLUDED = -100


def test_the_family_declares_13_domains_and_four_reasoning_sets():
    tempo = family("tempo")
    assert list(tempo.domains) == list(DOMAINS)
    assert sum(d.counts["queries"] for d in tempo.domains.values()) == 1730  # the paper's
    assert sum(d.counts["docs"] for d in tempo.domains.values()) == 1_654_055
    assert len(tempo.dataset_ids()) == 1 + 13 * 5
    assert tempo.protocol.exclusions == "negative_ids" and tempo.protocol.depth == 1000


@pytest.mark.parametrize("domain", DOMAINS)
def test_queries_and_judgements_come_from_the_sets_own_rows(tempo, domain):
    for config, suffix in SETS.items():
        rows = tempo[domain][config]
        dataset = ir_datasets.load(f"tempo/{domain}{suffix}")
        queries = list(dataset.queries_iter())
        assert [(q.query_id, q.text) for q in queries] == [(r["id"], r["query"]) for r in rows]
        assert queries[0].gold_answers == tuple(rows[0]["gold_answers"])
        expected = set()
        for row in rows:
            expected |= {(row["id"], gold, 1) for gold in row["gold_ids"]}
            negatives = set(row["negative_ids"]) - {"N/A"}
            expected |= {(row["id"], doc, EXCLUDED) for doc in negatives}
        got = {(q.query_id, q.doc_id, q.relevance) for q in dataset.qrels_iter()}
        assert got == expected


def test_documents_are_the_domains_corpus(tempo):
    dataset = ir_datasets.load("tempo/history")
    docs = list(dataset.docs_iter())
    rows = tempo["history"]["documents"]
    assert [(d.doc_id, d.text) for d in docs] == [(r["id"], r["content"]) for r in rows]
    assert dataset.docs_store().get(rows[-1]["id"]).text == rows[-1]["content"]


@pytest.mark.slow
@pytest.mark.parametrize("config", list(SETS))
def test_bm25_runs_are_the_official_codes(tempo, config):
    from ir_bright import bm25

    for domain in DOMAINS:
        retrieved = bm25.retrieve(f"tempo/{domain}{SETS[config]}", progress=False)
        assert_same_ranking(retrieved, REFERENCE[config]["domains"][domain]["run"], domain)


MEASURES = {
    **{f"NDCG@{k}": nDCG @ k for k in (1, 5, 10, 25, 50, 100)},
    **{f"MAP@{k}": AP @ k for k in (1, 5, 10, 25, 50, 100)},
    **{f"Recall@{k}": R @ k for k in (1, 5, 10, 25, 50, 100)},
    **{f"P@{k}": P @ k for k in (1, 5, 10, 25, 50, 100)},
    "MRR": RR,
}


@pytest.mark.parametrize("config", ["examples", "gpt4o_reason", "llama70b_reason"])
def test_official_measures_of_the_official_runs_give_the_official_metrics(tempo, config):
    # the run keeps excluded documents out already; Official(...) must agree with the
    # official scorer domain by domain, and the benchmark figure is the mean of the 13
    # rounded domain values, rounded (run.py's summary)
    official = {name: Official(measure) for name, measure in MEASURES.items()}
    per_domain = []
    for domain in DOMAINS:
        reference = REFERENCE[config]["domains"][domain]
        run = {q: dict(map(tuple, docs)) for q, docs in reference["run"].items()}
        qrels = ir_datasets.load(f"tempo/{domain}{SETS[config]}").qrels_iter()
        values = ir_measures.calc_aggregate(list(official.values()), qrels, run)
        rounded = {name: round(values[m], 5) for name, m in official.items()}
        assert rounded == {name: reference["metrics"][name] for name in MEASURES}, domain
        per_domain.append(rounded)
    means = REFERENCE[config]["means"]
    for name in MEASURES:
        assert round(sum(d[name] for d in per_domain) / len(DOMAINS), 5) == means[name]


def test_official_removes_the_negative_ids_a_run_ranks(tempo):
    # economics: query 0 lists a gold id among its negative ids; a run ranking the excluded
    # documents first scores as if they were absent
    query = tempo["economics"]["examples"][0]
    negatives = [d for d in query["negative_ids"] if d not in ("N/A", *query["gold_ids"])]
    assert negatives
    run = {query["id"]: {**{d: 10.0 for d in negatives}, query["gold_ids"][0]: 1.0}}
    qrels = list(ir_datasets.load("tempo/economics").qrels_iter())
    values = ir_measures.calc_aggregate([Official(P @ 1), P @ 1], qrels, run)
    # two queries are judged; the one missing from the run counts 0, as in ir_measures
    assert (values[Official(P @ 1)], values[P @ 1]) == (0.5, 0.0)


def test_a_pinned_sha256_refuses_another_file(tempo, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "1")  # the fixture's files are not the real ones
    with pytest.raises(ChecksumError, match="sha256"):
        list(ir_datasets.load("tempo/law").queries_iter())


def test_references_hold_tempos_published_bm25(cli):
    status, out, _ = cli("references", "--benchmark", "tempo", "--format", "json")
    assert status == 0
    (row,) = json.loads(out)
    # tempo-bench/Tempo README.md, Leaderboard table, BM25: Political 32.7, Avg. 10.8
    assert row["values"]["Political"] == 32.7 and row["average"] == 10.8
    assert len(row["values"]) == 13


@pytest.mark.slow
def test_report_check_proves_a_reproduction_of_the_official_bm25(tempo, cli, tmp_path, monkeypatch):
    from ir_bright.results import references

    labels = {key: about.label for key, about in family("tempo").domains.items()}
    official = {
        labels[d]: round(REFERENCE["examples"]["domains"][d]["metrics"]["NDCG@10"] * 100, 3)
        for d in DOMAINS
    }
    row = {"label": "official code on the fixture", "values": official, "source": "test"}
    real = references._published_rows
    monkeypatch.setattr(
        references,
        "_published_rows",
        lambda: {**real(), "tempo": {**real()["tempo"], "fixture": row}},
    )
    runs = tmp_path / "bm25"
    for domain in DOMAINS:
        status, _, err = cli("bm25", f"tempo/{domain}", "-o", str(runs / f"tempo__{domain}.trec"))
        assert status == 0, err
    status, out, err = cli("report", str(runs), "-b", "tempo", "--check", "fixture")
    assert status == 0, out + err
    assert "0 of 13 cells outside" in out
