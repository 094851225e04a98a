"""The two-commit fixture hub (tests/fixtures/revisions_hub.py) is what its manifest says: the
planted edits counted from the rows written, identical files byte for byte, and a hub that
serves each commit's own files and resolves revisions as the real one does."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from tests.fixtures import revisions_hub
from tests.fixtures.revisions_hub import NEW, OLD


def _pairs(examples, field):
    return {(row["id"], doc) for row in examples for doc in row[field] if doc != "N/A"}


def _edits(old: dict, new: dict, gold: str, docs: str, text=lambda row: row["query"]) -> dict:
    """The counts a diff reports, computed from two revisions' rows by set arithmetic."""
    old_docs, new_docs = old.get(docs, {}), new.get(docs, {})
    old_q = {row["id"]: text(row) for row in old["examples"]}
    new_q = {row["id"]: text(row) for row in new["examples"]}
    old_gold, new_gold = _pairs(old["examples"], gold), _pairs(new["examples"], gold)
    old_ex = _pairs(old["examples"], "excluded_ids")
    new_ex = _pairs(new["examples"], "excluded_ids")
    return {
        "docs_added": len(new_docs.keys() - old_docs.keys()),
        "docs_removed": len(old_docs.keys() - new_docs.keys()),
        "docs_changed": sum(old_docs[d] != new_docs[d] for d in old_docs.keys() & new_docs.keys()),
        "queries_added": len(new_q.keys() - old_q.keys()),
        "queries_removed": len(old_q.keys() - new_q.keys()),
        "queries_changed": sum(old_q[q] != new_q[q] for q in old_q.keys() & new_q.keys()),
        "gold_added": len(new_gold - old_gold),
        "gold_removed": len(old_gold - new_gold),
        "excluded_added": len(new_ex - old_ex),
        "excluded_removed": len(old_ex - new_ex),
    }


@pytest.fixture
def rows(hub_root):
    return revisions_hub.write_revisions(hub_root)


@pytest.mark.parametrize(
    ("dataset_id", "split", "gold", "docs"),
    [
        ("bright/biology", "biology", "gold_ids", "documents"),
        ("bright/biology-long", "biology", "gold_ids_long", "long_documents"),
        ("bright/aops", "aops", "gold_ids", "documents"),
        ("bright/theoremqa-questions", "theoremqa_questions", "gold_ids", "documents"),
        ("bright/theoremqa-theorems", "theoremqa_theorems", "gold_ids", "documents"),
    ],
)
def test_manifest_counts_are_the_rows_edits(rows, dataset_id, split, gold, docs):
    expected = revisions_hub.planted()["datasets"][dataset_id]
    counted = _edits(rows[OLD][split], rows[NEW][split], gold, docs)
    assert counted == {key: value for key, value in expected.items() if key != "queries"}


def test_manifest_names_every_query_an_edit_touches(rows):
    queries = revisions_hub.planted()["datasets"]["bright/biology"]["queries"]
    old = {row["id"] for row in rows[OLD]["biology"]["examples"]}
    new = {row["id"] for row in rows[NEW]["biology"]["examples"]}
    assert {q for q, kinds in queries.items() if kinds == ["query_added"]} == new - old
    assert {q for q, kinds in queries.items() if kinds == ["query_removed"]} == old - new


def test_reason_query_sets_keep_the_models_text_where_only_the_post_changed(rows):
    reasoned = revisions_hub.planted()["datasets"]["bright/biology/gpt4-reason"]
    assert reasoned["queries_changed"] == 0
    assert (
        _edits(
            rows[OLD]["biology"],
            rows[NEW]["biology"],
            "gold_ids",
            "documents",
            text=lambda row: revisions_hub.bright_hub.llm_text("gpt4", row["id"]),
        )["queries_changed"]
        == 0
    )


def test_identical_files_are_the_manifests_and_byte_for_byte(hub_root, rows):
    assert revisions_hub.identical_files(hub_root) == revisions_hub.planted()["identical_files"]


def _get(url: str) -> tuple[int, bytes, dict]:
    try:
        with urllib.request.urlopen(url) as answer:
            return answer.status, answer.read(), dict(answer.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read(), dict(error.headers)


def test_hub_serves_each_commits_own_file_with_its_commit(hub, hub_root):
    revisions_hub.serve(hub, hub_root)
    path = "examples/biology-00000-of-00001.parquet"
    for rev, commit in [(OLD, OLD), ("main", NEW), (NEW[:7], NEW)]:
        status, body, headers = _get(f"{hub.url}/datasets/xlangai/BRIGHT/resolve/{rev}/{path}")
        assert status == 200 and headers["X-Repo-Commit"] == commit
        assert body == (hub_root / commit / "xlangai/BRIGHT" / path).read_bytes()
    assert hub.fetched == [(OLD, path), (NEW, path), (NEW, path)]


def test_revision_api_resolves_refs_and_prefixes_and_refuses_others(hub, hub_root):
    revisions_hub.serve(hub, hub_root)
    api = f"{hub.url}/api/datasets/xlangai/BRIGHT/revision"
    for rev, commit in [("main", NEW), (OLD, OLD), (OLD[:7], OLD)]:
        status, body, _ = _get(f"{api}/{rev}")
        assert status == 200 and json.loads(body)["sha"] == commit
    status, body, headers = _get(f"{api}/0123456")
    assert status == 404 and headers["X-Error-Code"] == "RevisionNotFound"
    hub.short_commits = False
    assert _get(f"{api}/{OLD[:7]}")[0] == 404
