"""Reranking candidates: the top K after exclusions, with texts, equal to a computation made
here from the fixture hub's own rows; and a rerun of them scores as any run."""

from __future__ import annotations

import json

import pytest

from ir_bright.cli import main
from ir_bright.pipelines import CandidatesError, candidates
from tests.fixtures import bright_hub


@pytest.fixture
def bright(hub, hub_root, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    hub.rows = bright_hub.write_bright(hub_root)
    return hub


def scored_run(rows):
    """Every document of the domain for every query, with distinct scores (and one tie)."""
    run = {}
    doc_ids = sorted(rows["documents"])
    for q, example in enumerate(rows["examples"]):
        scores = {d: float(len(doc_ids) - i + q) for i, d in enumerate(doc_ids)}
        scores[doc_ids[1]] = scores[doc_ids[0]]  # a tie at the top: doc id descending first
        run[example["id"]] = scores
    return run


def expected_candidates(rows, run, depth, text_of):
    """Excluded ids dropped, then score descending and doc id descending, cut to ``depth``."""
    expected = []
    for example in rows["examples"]:
        query_id = example["id"]
        excluded = set(example["excluded_ids"]) - {"N/A"}
        kept = {d: s for d, s in run[query_id].items() if d not in excluded}
        best = sorted(kept.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:depth]
        for rank, (doc_id, score) in enumerate(best, 1):
            expected.append(
                {
                    "query_id": query_id,
                    "query": text_of(example),
                    "doc_id": doc_id,
                    "text": rows["documents"][doc_id],
                    "rank": rank,
                    "score": score,
                }
            )
    return expected


def as_dicts(rows):
    return [row._asdict() for row in rows]


def test_candidates_drop_excluded_ids_before_the_cut(bright):
    rows = bright.rows["aops"]
    run = scored_run(rows)
    got = as_dicts(candidates("bright/aops", run, 3))
    assert got == expected_candidates(rows, run, 3, lambda e: e["query"])
    for example in rows["examples"]:
        mine = {row["doc_id"] for row in got if row["query_id"] == example["id"]}
        assert not mine & set(example["excluded_ids"])
    assert [row["rank"] for row in got] == [1, 2, 3, 1, 2, 3]


def test_candidates_carry_the_reasoning_texts_of_a_reasoning_dataset(bright):
    rows = bright.rows["aops"]
    run = scored_run(rows)
    got = as_dicts(candidates("bright/aops/gpt4-reason", run, 2))
    text_of = lambda e: bright_hub.llm_text("gpt4", e["id"])  # noqa: E731
    assert got == expected_candidates(rows, run, 2, text_of)


def test_a_query_with_fewer_documents_than_k_gets_them_all(bright):
    rows = bright.rows["theoremqa_theorems"]
    run = scored_run(rows)
    got = as_dicts(candidates("bright/theoremqa-theorems", run, 100))
    assert len(got) == len(rows["documents"])


def test_documents_missing_from_the_corpus_are_an_error(bright):
    run = {"TheoremQA_jianyu_xu/pigeonhole_3.json": {"Pony/not-here.txt": 1.0}}
    with pytest.raises(CandidatesError, match="not in the corpus"):
        list(candidates("bright/theoremqa-theorems", run, 5))


def test_a_depth_below_one_is_refused(bright):
    with pytest.raises(CandidatesError, match="depth"):
        list(candidates("bright/aops", {}, 0))


def write_trec(path, run):
    with open(path, "w", encoding="utf-8") as out:
        for query_id, docs in run.items():
            for rank, (doc_id, score) in enumerate(sorted(docs.items(), key=lambda kv: -kv[1])):
                out.write(f"{query_id} Q0 {doc_id} {rank + 1} {score} first\n")
    return str(path)


def test_the_command_writes_json_lines_and_a_rerun_scores(bright, tmp_path, capsys):
    rows = bright.rows["aops"]
    run = scored_run(rows)
    first = write_trec(tmp_path / "first.trec", run)
    out = tmp_path / "candidates.jsonl"
    assert main(["candidates", "bright/aops", first, "--depth", "3", "-o", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines == expected_candidates(rows, run, 3, lambda e: e["query"])
    # a "reranker" that reverses each query's candidates, written as a TREC run
    rerun = tmp_path / "rerun.trec"
    with open(rerun, "w", encoding="utf-8") as trec:
        for row in lines:
            trec.write(f"{row['query_id']} Q0 {row['doc_id']} 0 {row['rank']} rerank\n")
    capsys.readouterr()
    # the fixture's top 3 hold no judged document: a run evaluate refuses unless forced
    assert main(["evaluate", "bright/aops", str(rerun), "--format", "json", "--force"]) == 0
    assert "nDCG@10" in json.loads(capsys.readouterr().out)[str(rerun)]


def test_the_command_needs_a_depth(bright, tmp_path, capsys):
    first = write_trec(tmp_path / "first.trec", scored_run(bright.rows["aops"]))
    with pytest.raises(SystemExit) as stop:
        main(["candidates", "bright/aops", first])
    assert stop.value.code == 2
    assert "--depth" in capsys.readouterr().err
