"""``ir-bright diff OLD NEW [--run RUN]`` on BRIGHT served at two commits with planted edits
(tests/fixtures/revisions_hub.py): the changes reported are exactly the planted ones (the
fixture's hand-written manifest), and a run's scores under each revision are those of the
independent reference (tests/protocol.py) on that revision's rows."""

from __future__ import annotations

import json
import random

import pytest

from ir_bright.results.revision_diff import COUNTS, KINDS, document_changes
from tests import protocol
from tests.fixtures.revisions_hub import NEW, OLD, planted
from tests.helpers import write_run

MANIFEST = planted()["datasets"]
SCORE_MOVES = {"query_added", "query_removed", "gold_changed", "excluded_changed"}
"""The kinds that can move a fixed run's score (the others change no judgement)."""


def _diff_json(cli, *argv):
    status, out, err = cli("diff", *argv, "--format", "json")
    assert status == 0, err
    return json.loads(out)


@pytest.mark.parametrize(
    "dataset_id",
    [
        "bright/biology",
        "bright/biology-long",
        "bright/biology/gpt4-reason",
        "bright/biology/adjusted",
        "bright/aops",
        "bright/theoremqa-questions",
    ],
)
def test_the_planted_edits_are_exactly_what_diff_reports(bright_revisions, cli, dataset_id):
    found = _diff_json(cli, f"{dataset_id}@mteb-v1", f"{dataset_id}@mteb-v1.1")
    assert found == {"datasets": {dataset_id: MANIFEST[dataset_id]}}


def test_commits_and_the_plain_id_name_the_same_two_revisions(bright_revisions, cli):
    found = _diff_json(cli, f"bright/biology@{OLD[:7]}", "bright/biology")
    assert found == {"datasets": {"bright/biology": MANIFEST["bright/biology"]}}
    backwards = _diff_json(cli, f"bright/aops@{NEW}", "bright/aops@mteb-v1")["datasets"]
    expected = dict(MANIFEST["bright/aops"], excluded_added=0, excluded_removed=1)
    assert backwards == {"bright/aops": expected}


def test_a_family_level_diff_reports_every_dataset_the_hub_serves(bright_revisions, cli, caplog):
    status, out, err = cli("diff", "bright@mteb-v1", "bright", "--format", "json")
    assert status == 0, err
    assert json.loads(out) == {"datasets": MANIFEST}  # unchanged ones with zeros
    # the fixture serves 4 of the 12 domains: the others are said to be left out
    assert "bright/pony is on the hub at neither revision" in caplog.text


def test_the_json_schema_is_exact(bright_revisions, cli, tmp_path):
    run = write_run(tmp_path / "bright__biology.trec", [("0", "insects_light/Phototaxis_0.txt", 1)])
    found = _diff_json(cli, "bright/biology@mteb-v1", "bright/biology", "--run", run)
    assert set(found) == {"datasets", "scores"}
    counts = found["datasets"]["bright/biology"]
    assert list(counts) == [*COUNTS, "queries"]
    assert all(type(counts[key]) is int for key in COUNTS)
    for kinds in counts["queries"].values():
        assert kinds and set(kinds) <= set(KINDS) and kinds == sorted(kinds, key=KINDS.index)
        assert len(kinds) == 1 or not {"query_added", "query_removed"} & set(kinds)
    scores = found["scores"][str(run)]
    assert list(scores) == ["old", "new", "per_query"]
    assert all(
        len(entry) == 3 and isinstance(entry[2], list) for entry in scores["per_query"].values()
    )


def _random_run(rng, rows_by_commit, split, share=0.6):
    """A run over the documents of both revisions (judged, excluded and edited ones always
    among them, at random scores)."""
    docs = sorted({d for rows in rows_by_commit.values() for d in rows[split]["documents"]})
    examples = [r for rows in rows_by_commit.values() for r in rows[split]["examples"]]
    judged = {d for r in examples for d in (*r["gold_ids"], *r["excluded_ids"])}
    queries = sorted({r["id"] for r in examples})
    return [
        (q, d, float(rng.randint(0, 20)))
        for q in queries
        for d in docs
        if d in judged or rng.random() < share
    ]


def _reference_qrels(rows, gold="gold_ids"):
    """The qrels of one revision's rows, as the benchmark defines them (not as loaded)."""
    qrels = set()
    for row in rows["examples"]:
        qrels |= {(row["id"], d, 1) for d in row[gold] if d != "N/A"}
        qrels |= {(row["id"], d, -100) for d in row["excluded_ids"] if d != "N/A"}
    return sorted(qrels)


@pytest.mark.parametrize(
    ("split", "dataset_id"), [("biology", "bright/biology"), ("aops", "bright/aops")]
)
def test_scores_under_each_revision_are_the_references_on_its_own_qrels(
    bright_revisions, cli, tmp_path, split, dataset_id
):
    rng = random.Random(7)
    for trial in range(3):
        run = _random_run(rng, bright_revisions, split)
        path = write_run(tmp_path / f"run{trial}.trec", run)
        found = _diff_json(cli, f"{dataset_id}@mteb-v1", f"{dataset_id}@mteb-v1.1", "--run", path)
        scores = found["scores"][str(path)]
        old = protocol.per_query("nDCG@10", _reference_qrels(bright_revisions[OLD][split]), run)
        new = protocol.per_query("nDCG@10", _reference_qrels(bright_revisions[NEW][split]), run)
        assert {
            q: v[0] for q, v in scores["per_query"].items() if v[0] is not None
        } == pytest.approx(old)
        assert {
            q: v[1] for q, v in scores["per_query"].items() if v[1] is not None
        } == pytest.approx(new)
        assert scores["old"] == pytest.approx(sum(old.values()) / len(old))
        assert scores["new"] == pytest.approx(sum(new.values()) / len(new))


def test_every_query_whose_score_moved_is_explained_by_a_change(bright_revisions, cli, tmp_path):
    rng = random.Random(11)
    argv = []
    for trial in range(8):
        for split in ("biology", "aops"):
            run = _random_run(rng, bright_revisions, split, 0.4)
            argv += ["--run", str(write_run(tmp_path / f"{trial}" / f"bright__{split}.trec", run))]
    found = _diff_json(cli, "bright@mteb-v1", "bright@mteb-v1.1", *argv)
    assert len(found["scores"]) == 16
    moved = set()
    for scores in found["scores"].values():
        for query_id, (old, new, kinds) in scores["per_query"].items():
            if old != new:
                assert SCORE_MOVES & set(kinds), (query_id, old, new, kinds)
                moved.add(query_id)
            if not SCORE_MOVES & set(kinds):
                assert old == new, (query_id, kinds)
    assert {"0", "aops_2019_AMC_12A_Problems/Problem_2"} <= moved  # the test saw moves


def test_a_query_at_one_revision_only_scores_null_on_the_other(bright_revisions, cli, tmp_path):
    run = write_run(
        tmp_path / "run.trec",
        {"2": ["insects_light/Phototaxis_6.txt"], "3": ["bird_song/Birdsong_3.txt"]},
    )
    found = _diff_json(cli, "bright/biology@mteb-v1", "bright/biology@mteb-v1.1", "--run", run)
    per_query = found["scores"][str(run)]["per_query"]
    assert per_query["2"] == [None, 1.0, ["query_added"]]
    assert per_query["3"] == [1.0, None, ["query_removed"]]
    assert per_query["1"] == [0.0, 0.0, ["query_changed"]]


def test_markdown_by_default_lists_counts_touched_queries_and_moves(
    bright_revisions, cli, tmp_path
):
    run = write_run(tmp_path / "run.trec", {"0": ["insects_light/Phototaxis_3.txt"]})
    output = tmp_path / "diff.md"
    status, out, err = cli(
        "diff", "bright/biology@mteb-v1", "bright/biology", "--run", run, "-o", output
    )
    assert status == 0, err
    assert out == ""
    text = output.read_text()
    assert "| bright/biology | 1/1/1 | 1/1/1 | 2/2 | 0/0 |" in text
    assert "From bright/biology@mteb-v1 (a75a0eb) to bright/biology (3066d29, mteb-v1.1):" in text
    assert "| bright/biology | 0 | gold_changed, doc_changed |" in text
    assert "| 0 | gold_changed, doc_changed | 0.6131 | 0.0000 | -0.6131 |" in text


def test_two_different_datasets_are_a_one_line_error(bright_revisions, cli):
    status, out, err = cli("diff", "bright/biology@mteb-v1", "bright/aops")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "not one dataset at two revisions" in err


def test_an_unknown_revision_is_a_one_line_error_naming_the_aliases(bright_revisions, cli):
    status, out, err = cli("diff", "bright/biology@nope", "bright/biology")
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "mteb-v1" in err


def test_a_family_run_needs_a_dataset_name(bright_revisions, cli, tmp_path):
    run = write_run(tmp_path / "mine.trec", {"0": ["insects_light/Phototaxis_0.txt"]})
    status, out, err = cli("diff", "bright@mteb-v1", "bright", "--run", run)
    assert status == 2 and "ID=PATH" in err
    status, out, err = cli(
        "diff", "bright@mteb-v1", "bright", "--run", f"bright/biology={run}", "--format", "json"
    )
    assert status == 0, err
    assert json.loads(out)["scores"][f"bright/biology={run}"]["per_query"]["0"][2] == [
        "gold_changed",
        "doc_changed",
    ]


def test_documents_are_compared_by_content_streamed():
    old = [("a", "x"), ("b", "y"), ("c", "z")]
    new = iter([("b", "y"), ("c", "z!"), ("d", "w")])  # an iterator: read once
    found = document_changes(old, new)
    assert (found.added, found.removed, found.changed) == (1, 1, 1)
    assert found.touched == {"a", "c"}


def test_a_corpus_of_the_same_files_at_both_revisions_is_not_read_again(
    bright_revisions, cli, monkeypatch
):
    from ir_bright.results import revision_diff

    compared = []
    real = revision_diff.document_changes
    monkeypatch.setattr(
        revision_diff, "document_changes", lambda *a: compared.append(a) or real(*a)
    )
    assert (
        _diff_json(cli, "bright/aops@mteb-v1", "bright/aops")["datasets"]["bright/aops"]
        == (MANIFEST["bright/aops"])
    )
    assert compared == []  # aops' documents are byte-identical at the two commits
    _diff_json(cli, "bright/biology@mteb-v1", "bright/biology")
    assert len(compared) == 1  # biology's differ: compared document by document


def test_a_run_judged_at_neither_revision_is_refused_as_evaluate_refuses_it(
    bright_revisions, cli, tmp_path
):
    run = write_run(tmp_path / "run.trec", {"0": ["insects_light/Phototaxis_1.txt"]})
    status, out, err = cli("diff", "bright/biology@mteb-v1", "bright/biology", "--run", run)
    assert status == 2 and out == "" and "none of its 1 ranked documents is judged" in err


def test_a_missing_run_file_is_refused_before_anything_is_fetched(bright_revisions, cli, hub):
    status, out, err = cli("diff", "bright/biology@mteb-v1", "bright/biology", "--run", "no.trec")
    assert status == 2 and out == "" and "no.trec: no such run file" in err
    assert hub.fetched == []
