"""User query sets: a dataset with your query texts and its own docs, qrels and exclusions."""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from ir_bright import evaluate
from ir_bright.cli import main
from ir_bright.pipelines import QueriesError, with_queries
from tests.fixtures import bright_hub


@pytest.fixture
def bright(hub, hub_root, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    hub.rows = bright_hub.write_bright(hub_root)
    return hub


def write_tsv(path, texts):
    path.write_text("".join(f"{q}\t{t}\n" for q, t in texts.items()), encoding="utf-8")
    return str(path)


def write_jsonl(path, texts):
    lines = (json.dumps({"query_id": q, "text": t}) for q, t in texts.items())
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def own_texts(rows):
    return {e["id"]: e["query"] for e in rows["examples"]}


def test_a_tsv_file_replaces_the_query_texts_and_keeps_the_rest(bright, tmp_path):
    rows = bright.rows["aops"]
    texts = {q: f"rewritten {q}" for q in own_texts(rows)}
    dataset = with_queries("bright/aops", write_tsv(tmp_path / "q.tsv", texts))
    assert [(q.query_id, q.text) for q in dataset.queries_iter()] == list(texts.items())
    assert dataset.dataset_id() == "bright/aops"
    assert {d.doc_id for d in dataset.docs_iter()} == set(rows["documents"])
    qrels = {(q.query_id, q.doc_id): q.relevance for q in dataset.qrels_iter()}
    assert qrels[(rows["examples"][0]["id"], "camel_7")] == -100  # exclusions kept


def test_jsonl_texts_may_hold_tabs_and_newlines(bright, tmp_path):
    texts = {q: f"line one\tand\nline two of {q}" for q in own_texts(bright.rows["aops"])}
    dataset = with_queries("bright/aops", write_jsonl(tmp_path / "q.jsonl", texts))
    assert {q.query_id: q.text for q in dataset.queries_iter()} == texts


def test_the_queries_come_in_the_datasets_order(bright):
    texts = own_texts(bright.rows["aops"])
    backwards = dict(reversed(list(texts.items())))
    assert [q.query_id for q in with_queries("bright/aops", backwards).queries_iter()] == list(
        texts
    )


def test_unknown_query_ids_are_refused_with_counts(bright):
    texts = {**own_texts(bright.rows["aops"]), "nope": "x", "nada": "y"}
    with pytest.raises(QueriesError, match=r"2 of the 4 queries .* are not queries of bright/aops"):
        with_queries("bright/aops", texts)


def test_missing_queries_are_refused_with_counts(bright):
    texts = dict(list(own_texts(bright.rows["aops"]).items())[:1])
    with pytest.raises(QueriesError, match="no text for 1 of the 2 queries of bright/aops"):
        with_queries("bright/aops", texts)


@pytest.mark.parametrize(
    "content, mentions",
    [
        ("just one column\n", "expected query_id<TAB>text"),
        ('{"query_id": 1.5, "text": "x"}\n', "query_id must be text"),
        ('{"query_id": "a"}\n', "text must be a string"),
        ('{"query_id": "a", "text": "x"}\n{oops\n', "line 2 is not JSON"),
        ('{"query_id": "a", "text": ' + "[" * 100_000 + "\n", "line 1 is nested more than"),
        ('{"query_id": ' + "7" * 5000 + ', "text": "x"}\n', "more than 40 digits"),
        ("a\tx\na\ty\n", "given twice"),
        ("\n\n", "holds no queries"),
    ],
)
def test_malformed_query_files_are_one_line_errors(bright, tmp_path, content, mentions):
    path = tmp_path / "q.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(QueriesError, match=mentions):
        with_queries("bright/aops", str(path))


@pytest.mark.parametrize(
    "texts, mentions",
    [
        ({"0": None}, "query '0': text must be a string, got NoneType"),
        ({"0": b"bytes"}, "query '0': text must be a string, got bytes"),
        ({b"0": "x"}, "query_id must be text, got b'0'"),
        ({0: "x", "0": "y"}, "query '0' is given twice"),
    ],
)
def test_query_texts_that_are_not_strings_are_refused(bright, texts, mentions):
    texts = {**own_texts(bright.rows["aops"]), **texts}
    with pytest.raises(QueriesError, match=mentions):
        with_queries("bright/aops", texts)


def test_whole_number_query_ids_of_a_mapping_are_read_as_text(bright):
    texts = {int(q): f"about {q}" for q in own_texts(bright.rows["biology"])}  # "0", "1"
    dataset = with_queries("bright/biology", texts)
    assert {q.query_id: q.text for q in dataset.queries_iter()} == {
        str(q): t for q, t in texts.items()
    }


@pytest.mark.parametrize("write", [write_tsv, write_jsonl], ids=["tsv", "jsonl"])
def test_a_query_file_with_a_byte_order_mark_is_read(bright, tmp_path, write):
    texts = {q: f"rewritten {q}" for q in own_texts(bright.rows["aops"])}
    path = Path(write(tmp_path / "q.txt", texts))
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    dataset = with_queries("bright/aops", str(path))
    assert [(q.query_id, q.text) for q in dataset.queries_iter()] == list(texts.items())


def same_dataset(copied, original):
    assert type(copied) is type(original) and copied is not original
    assert copied.dataset_id() == original.dataset_id()
    assert list(copied.queries_iter()) == list(original.queries_iter())
    assert list(copied.qrels_iter()) == list(original.qrels_iter())


def test_a_user_query_set_pickles_copies_and_deep_copies(bright):
    texts = {q: f"rewritten {q}" for q in own_texts(bright.rows["aops"])}
    dataset = with_queries("bright/aops", texts)
    for copied in (pickle.loads(pickle.dumps(dataset)), copy.copy(dataset), copy.deepcopy(dataset)):
        same_dataset(copied, dataset)
    assert repr(copy.copy(dataset)) == repr(dataset)


@pytest.mark.slow
def test_a_user_query_set_reaches_a_spawned_worker(bright):
    texts = {q: f"rewritten {q}" for q in own_texts(bright.rows["aops"])}
    dataset = with_queries("bright/aops", texts)
    code = (
        "import pickle, sys\n"
        "dataset = pickle.load(sys.stdin.buffer)\n"
        "print(dataset.dataset_id(), [q.text for q in dataset.queries_iter()],"
        " len(list(dataset.qrels_iter())))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], input=pickle.dumps(dataset), capture_output=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr.decode()
    qrels = len(list(dataset.qrels_iter()))
    assert proc.stdout.decode().split("\n")[0] == f"bright/aops {list(texts.values())} {qrels}"


def test_user_queries_score_with_the_datasets_qrels(bright):
    dataset = with_queries("bright/aops", own_texts(bright.rows["aops"]))
    gold = {e["id"]: {d: 1.0 for d in e["gold_ids"]} for e in bright.rows["aops"]["examples"]}
    assert evaluate(gold, dataset) == {"nDCG@10": pytest.approx(1.0)}


def bm25_run(capsys, *argv):
    assert main(["bm25", *argv]) == 0
    return capsys.readouterr().out


def test_bm25_on_the_datasets_own_texts_gives_the_datasets_run(bright, tmp_path, capsys):
    pytest.importorskip("Stemmer")  # the bm25 extra
    queries = write_tsv(tmp_path / "own.tsv", own_texts(bright.rows["aops"]))
    assert bm25_run(capsys, "bright/aops", "--queries", queries) == bm25_run(capsys, "bright/aops")


def test_bm25_on_gpt4_texts_gives_the_gpt4_reason_run(bright, tmp_path, capsys):
    pytest.importorskip("Stemmer")  # the bm25 extra
    texts = {q: bright_hub.llm_text("gpt4", q) for q in own_texts(bright.rows["aops"])}
    queries = write_jsonl(tmp_path / "gpt4.jsonl", texts)
    assert bm25_run(capsys, "bright/aops", "--queries", queries) == bm25_run(
        capsys, "bright/aops/gpt4-reason"
    )


def test_bm25_with_a_query_file_for_another_dataset_fails_in_one_line(bright, tmp_path, capsys):
    queries = write_tsv(tmp_path / "other.tsv", {"0": "moths", "1": "birds"})
    assert main(["bm25", "bright/aops", "--queries", queries]) == 2
    err = capsys.readouterr().err
    assert "not queries of bright/aops" in err and len(err.strip().splitlines()) == 1


def test_user_queries_are_pyterrier_topics(bright):
    texts = own_texts(bright.rows["aops"])
    topics = with_queries("bright/aops", texts).get_topics()
    assert list(topics.columns) == ["qid", "query"]
    assert dict(zip(topics["qid"], topics["query"])) == texts


def test_the_pipelines_are_names_of_the_package():
    import ir_bright
    from ir_bright import pipelines

    assert ir_bright.candidates is pipelines.candidates
    assert ir_bright.fuse is pipelines.fuse
    assert ir_bright.with_queries is pipelines.with_queries
