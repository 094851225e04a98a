"""R2MED: every task and expansion set through ir_datasets, the queries the official code builds,
its BM25 top 100 and its metrics, against tests/data/r2med/reference.json (the official code's
own output on the fixture hub, tests/fixtures/r2med_hub.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import ir_datasets
import ir_measures
import pytest
from ir_measures import AP, RR, P, R, nDCG

import ir_bright
from ir_bright import Official
from ir_bright.families import family
from tests.fixtures.r2med_hub import EXPANSIONS, TASKS
from tests.helpers import assert_same_ranking

REFERENCE = json.loads(
    (Path(__file__).parent / "data" / "r2med" / "reference.json").read_text(encoding="utf-8")
)["tasks"]
SETS = ["original", *(f"{method}/{llm}" for method, llms in EXPANSIONS.items() for llm in llms)]


def dataset_id(task: str, query_set: str = "original") -> str:
    base = f"r2med/{task.lower()}"
    return base if query_set == "original" else f"{base}/{query_set}"


def test_the_family_declares_eight_tasks_and_twenty_expansion_sets_each():
    r2med = family("r2med")
    assert len(r2med.domains) == 8 and len(SETS) == 21
    assert len(r2med.dataset_ids()) == 1 + 8 * 21
    assert sum(d.counts["queries"] for d in r2med.domains.values()) == 876  # the paper's
    for task in TASKS:
        assert all(r2med.owns(dataset_id(task, s)) for s in SETS)
    assert r2med.protocol.exclusions is None and r2med.protocol.depth == 100


@pytest.mark.parametrize("task", TASKS)
def test_queries_are_the_texts_the_official_bm25_code_builds(r2med, task):
    for query_set in SETS:
        queries = list(ir_datasets.load(dataset_id(task, query_set)).queries_iter())
        assert {q.query_id: q.text for q in queries} == REFERENCE[task][query_set]["queries"]
    rows = r2med[task]["expansions"]["hyde"]["r1-qwen-32b"]
    expanded = list(ir_datasets.load(dataset_id(task, "hyde/r1-qwen-32b")).queries_iter())
    assert [(q.original_text, q.llm_output) for q in expanded] == [
        (row["text"], row["hy_doc"]) for row in rows
    ]


def test_a_repeated_document_id_keeps_its_last_row_and_counts_once(r2med):
    corpus = r2med["MedQA-Diag"]["corpus"]
    last = {row["id"]: row["text"] for row in corpus}  # as every official reader does
    dataset = ir_datasets.load("r2med/medqa-diag")
    docs = list(dataset.docs_iter())
    assert len(corpus) > len(last) == len(docs) == dataset.docs_count()
    assert {d.doc_id: d.text for d in docs} == last
    store = dataset.docs_store()
    assert all(store.get(doc_id).text == text for doc_id, text in last.items())


def test_qrels_are_the_judgement_rows(r2med):
    for task in TASKS:
        rows = r2med[task]["qrels"]
        qrels = list(ir_datasets.load(dataset_id(task, "lamer/gpt4")).qrels_iter())
        assert [(q.query_id, q.doc_id, q.relevance) for q in qrels] == [
            (r["q_id"], r["p_id"], r["score"]) for r in rows
        ]


@pytest.mark.slow
@pytest.mark.parametrize("task", TASKS)
def test_bm25_top_100_is_the_official_codes(r2med, task):
    from ir_bright import bm25

    for query_set in SETS:
        retrieved = bm25.retrieve(dataset_id(task, query_set), progress=False)
        assert_same_ranking(retrieved, REFERENCE[task][query_set]["run"], query_set)


METRICS = {
    "ndcg_at_{k}": lambda k: nDCG @ k,
    "map_at_{k}": lambda k: AP @ k,
    "recall_at_{k}": lambda k: R @ k,
    "precision_at_{k}": lambda k: P @ k,
}


@pytest.mark.parametrize("task", ["MedQA-Diag", "IIYi-Clinical", "Biology"])
def test_official_measures_of_the_official_run_are_the_official_metrics(r2med, task):
    for query_set in ("original", "hyde/gpt4", "search-r1/qwen-7b-ins"):
        reference = REFERENCE[task][query_set]
        run = {q: dict(map(tuple, docs)) for q, docs in reference["run"].items()}
        measures = {
            name.format(k=k): Official(make(k))
            for name, make in METRICS.items()
            for k in (1, 10, 25, 50, 100)
        }
        measures["mrr"] = Official(RR)
        qrels = ir_datasets.load(dataset_id(task, query_set)).qrels_iter()
        values = ir_measures.calc_aggregate(list(measures.values()), qrels, run)
        for name, measure in measures.items():
            assert round(values[measure], 5) == reference["metrics"][name], (query_set, name)


def test_official_on_r2med_is_plain_pytrec_eval(r2med):
    # R2MED excludes nothing: Official(...) equals the stock measure on any run
    reference = REFERENCE["PMC-Treatment"]["hyde/qwen-72b"]
    run = {q: dict(map(tuple, docs)) for q, docs in reference["run"].items()}
    qrels = list(ir_datasets.load("r2med/pmc-treatment").qrels_iter())
    measures = [nDCG @ 10, Official(nDCG @ 10), AP, Official(AP)]
    values = ir_measures.calc_aggregate(measures, qrels, run)
    assert values[Official(nDCG @ 10)] == values[nDCG @ 10]
    assert values[Official(AP)] == values[AP]


@pytest.mark.slow
def test_the_command_line_runs_the_official_bm25_at_depth_100(r2med, cli, tmp_path):
    run = tmp_path / "r2med__medqa-diag.trec"
    status, _, err = cli("bm25", "r2med/medqa-diag", "-o", str(run))
    assert status == 0, err
    lines = [line.split() for line in run.read_text().splitlines()]
    per_query = {}
    for query_id, _, doc_id, _, _, tag in lines:
        per_query.setdefault(query_id, []).append(doc_id)
        assert tag == "ir_bright-bm25-qs"
    want = REFERENCE["MedQA-Diag"]["original"]["run"]
    assert per_query == {q: [d for d, _ in docs] for q, docs in want.items()}
    assert all(len(docs) == 100 for docs in per_query.values())
    status, out, err = cli("evaluate", "r2med/medqa-diag", str(run), "--format", "json")
    assert status == 0, err
    ndcg = json.loads(out)[str(run)]["nDCG@10"]
    assert round(ndcg, 5) == REFERENCE["MedQA-Diag"]["original"]["metrics"]["ndcg_at_10"]


@pytest.mark.slow
def test_ir_datasets_exports_an_expansion_set(r2med):
    code = "import ir_bright, ir_datasets; ir_datasets.main_cli()"
    argv = ["export", "r2med/biology/lamer/gpt4", "queries", "--format", "jsonl"]
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    built = REFERENCE["Biology"]["lamer/gpt4"]["queries"]
    assert {row["query_id"]: row["text"] for row in rows} == built
    assert set(rows[0]) == {"query_id", "text", "original_text", "llm_output", "answer"}


def test_pyterrier_serves_an_r2med_task(r2med):
    pt = pytest.importorskip("pyterrier")
    dataset = pt.get_dataset("bright:r2med/iiyi-clinical")
    topics = dataset.get_topics()
    queries = dict(zip(topics["qid"], topics["query"]))
    assert queries == REFERENCE["IIYi-Clinical"]["original"]["queries"]
    assert len(dataset.get_qrels()) == len(r2med["IIYi-Clinical"]["qrels"])


def test_the_package_lists_r2med_beside_bright():
    assert "r2med/biology/search-o1/qwq-32b" in ir_bright.registry.our_ids()


def test_references_hold_the_papers_r2med_rows(cli):
    status, out, _ = cli("references", "--benchmark", "r2med", "--format", "json")
    assert status == 0
    rows = {row["name"]: row for row in json.loads(out)}
    assert set(rows) >= {"paper-bm25", "paper-nv-embed-v2", "paper-bge", "paper-grit"}
    # R2MED/R2MED results/base retriever/bm25/Biology.json, test.ndcg_at_10 = 0.19188
    assert rows["paper-bm25"]["values"]["Biology"] == 19.188
    assert rows["paper-hyde-gpt4-bm25"]["values"]["MedQA-Diag"] == 49.596
    assert all("62b7074600407f7776fbec6f55a4db96eb237ea4" in row["source"] for row in rows.values())


@pytest.mark.slow
def test_report_check_proves_a_reproduction_of_the_official_bm25(r2med, cli, tmp_path, monkeypatch):
    # the official code's nDCG@10 on the fixture, as a published row would print it (x100,
    # every decimal of its 5-decimal fractions): ir_bright's BM25 runs must reproduce it
    from ir_bright.results import references

    official = {
        family("r2med").domains[task].label: round(
            REFERENCE[task]["original"]["metrics"]["ndcg_at_10"] * 100, 3
        )
        for task in TASKS
    }
    row = {"label": "official code on the fixture", "values": official, "source": "test"}
    real = references._published_rows
    monkeypatch.setattr(
        references,
        "_published_rows",
        lambda: {**real(), "r2med": {**real()["r2med"], "fixture": row}},
    )
    runs = tmp_path / "bm25"
    for task in TASKS:
        status, _, err = cli(
            "bm25", dataset_id(task), "-o", str(runs / f"r2med__{task.lower()}.trec")
        )
        assert status == 0, err
    status, out, err = cli("report", str(runs), "-b", "r2med", "--check", "fixture")
    assert status == 0, out + err
    assert "0 of 8 cells outside" in out
    status, out, _ = cli("report", str(runs), "-b", "r2med", "--check", "paper-bm25")
    assert status == 1  # the fixture is not the real data


@pytest.mark.parametrize("score", [-1, -100, "-1", "1.5"])
def test_a_qrels_score_no_official_script_grades_is_refused_as_a_malformed_file(
    r2med, hub_root, monkeypatch, score
):
    """R2MED's protocol excludes nothing, so a negative score is no exclusion (which the
    official protocol's scorer would drop from the ranking: Official would then remove what
    the docs promise it leaves); it and a score that is no whole number mean the file is not
    the hub's: one line naming it and the fix."""
    from ir_bright.errors import CacheError

    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")  # the planted file is not the pinned one
    (qrels,) = [p for p in hub_root.rglob("qrels.jsonl") if p.parent.name == "Biology"]
    rows = [json.loads(line) for line in qrels.read_text().splitlines()]
    rows[0]["score"] = score
    qrels.write_text("".join(json.dumps(row) + "\n" for row in rows))
    with pytest.raises(CacheError, match=r"qrels\.jsonl: a qrels score .* is not a .*delete it"):
        list(ir_datasets.load("r2med/biology").qrels_iter())


def test_a_negative_label_is_an_exclusion_only_where_the_protocol_has_exclusions():
    from ir_bright.errors import CacheError
    from ir_bright.judgements import judged_label

    assert judged_label(-100, "qrels", excludes=True) == -100
    assert judged_label(1.0, "qrels", excludes=False) == 1  # int(score), as the official code
    with pytest.raises(CacheError):
        judged_label(-100, "qrels", excludes=False)
