"""BRIGHT-Pro at a revision, ``bright-pro/<domain>@<revision>``: the listing and every file of
that commit, cached under ``bright-pro/@<commit>/``, while the plain id reads as before
(tests/fixtures/brightpro_hub.py served at two commits)."""

from __future__ import annotations

import json

import ir_datasets
import pytest

import ir_bright  # noqa: F401 - registers the ids
from tests.fixtures.brightpro_hub import economics, write_brightpro

OLD = "1" * 40
NEW = "2" * 40
CHANGED = "Why do prices rise so fast?"


@pytest.fixture
def pro_two(hub, hub_root):
    """The fixture BRIGHT-Pro at OLD and at NEW (= main), NEW's economics query reworded."""
    write_brightpro.__wrapped__(hub_root / OLD)
    write_brightpro.__wrapped__(hub_root / NEW)
    rows = [{**row, "query": CHANGED} for row in economics()["examples"]]
    lines = "".join(json.dumps(row) + "\n" for row in rows)
    (hub_root / NEW / "yale-nlp/Bright-Pro/examples/economics.jsonl").write_text(lines, "utf-8")
    hub.revisions = {"main": NEW, OLD: OLD, NEW: NEW}
    return hub


def _texts(dataset_id):
    return [q.text for q in ir_datasets.load(dataset_id).queries_iter()]


def test_a_commit_id_reads_that_commits_files_cached_apart(pro_two, isolated_home):
    old_text = economics()["examples"][0]["query"]
    assert _texts(f"bright-pro/economics@{OLD}") == [old_text]
    folder = isolated_home / "bright-pro" / f"@{OLD}"
    assert (folder / "listing" / "examples.json").is_file()
    assert (folder / "examples" / "economics.jsonl").is_file()
    assert (OLD, "examples/economics.jsonl") in pro_two.fetched
    assert all(commit == OLD for commit, _ in pro_two.fetched)
    assert _texts("bright-pro/economics") == [CHANGED]  # the plain id: main, as before
    assert (isolated_home / "bright-pro" / "main" / "listing" / "examples.json").is_file()
    assert _texts("bright-pro/economics@main") == [CHANGED]


def test_a_commit_id_fetches_each_file_once_and_ignores_the_revision_variable(pro_two, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_REVISION", "main")
    dataset_id = f"bright-pro/economics@{OLD}"
    docs = [d.doc_id for d in ir_datasets.load(dataset_id).docs_iter()]
    assert docs == [f"econ/{i}.txt" for i in range(4)]
    qrels = {(q.query_id, q.doc_id) for q in ir_datasets.load(dataset_id).qrels_iter()}
    assert qrels == {("7", "econ/0.txt"), ("7", "econ/2.txt")}
    requests = list(pro_two.requests)
    list(ir_datasets.load(dataset_id).queries_iter())
    list(ir_datasets.load(dataset_id).docs_iter())
    assert pro_two.requests == requests  # nothing asked again
    assert {commit for commit, _ in pro_two.fetched} == {OLD}
    assert sorted(r for r in requests if r.startswith("api:")) == [
        "api:aspects",
        "api:documents",
        "api:examples",
    ]
