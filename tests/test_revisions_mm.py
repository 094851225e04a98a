"""MM-BRIGHT at a revision, ``mm-bright/<domain>/<task>@<revision>``: every file of that commit,
cached under ``mm-bright/@<commit>/``, while the plain id reads the declared commit as before
(tests/fixtures/mmbright_hub.py served at two commits)."""

from __future__ import annotations

import ir_datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ir_bright  # noqa: F401 - registers the ids
from ir_bright.families import family
from tests.fixtures import mmbright_hub

OLD = "3" * 40
CHANGED = "How do I cite a figure from an old thesis?"


@pytest.fixture
def mm_two(hub, hub_root, monkeypatch):
    """The fixture MM-BRIGHT at its declared commit (= main) and at OLD, where academia's
    query 0 is reworded in both query configs."""
    declared = family("mm-bright").hub.revision
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "hub")
    hub.sha256_etag = True
    hub.listing = True
    written = mmbright_hub.write_mmbright.__wrapped__(hub_root / declared)
    mmbright_hub.write_mmbright.__wrapped__(hub_root / OLD)
    for config in ("examples", "examples_multimodal"):
        path = hub_root / OLD / mmbright_hub.REPO / mmbright_hub.repo_path(config, "academia")
        table = pq.read_table(path)
        texts = [
            CHANGED if i == "0" else t
            for i, t in zip(table["id"].to_pylist(), table["query"].to_pylist())
        ]
        table = table.set_column(
            table.schema.get_field_index("query"), "query", pa.array(texts, pa.string())
        )
        pq.write_table(table, path)
    hub.revisions = {"main": declared, declared: declared, OLD: OLD}
    return written


def _text_of_0(dataset_id):
    return next(q.text for q in ir_datasets.load(dataset_id).queries_iter() if q.query_id == "0")


def test_a_commit_id_reads_that_commits_files_cached_apart(mm_two, hub, isolated_home):
    original = next(r["query"] for r in mm_two["academia"].examples if r["id"] == "0")
    assert _text_of_0(f"mm-bright/academia/task1@{OLD}") == CHANGED
    assert _text_of_0(f"mm-bright/academia/task2@{OLD}") == CHANGED
    assert {commit for commit, _ in hub.fetched} == {OLD}
    folder = isolated_home / "mm-bright" / f"@{OLD}" / "academia"
    assert (folder / "examples.parquet").is_file()
    assert (folder / "examples_multimodal.parquet").is_file()
    assert _text_of_0("mm-bright/academia/task1") == original  # the declared commit, as before
    assert _text_of_0("mm-bright/academia/task1@main") == original


def test_every_task_at_a_commit_reads_only_that_commit(mm_two, hub):
    for task in ("task1", "task2", "task3", "task4"):
        plain = ir_datasets.load(f"mm-bright/academia/{task}")
        at = ir_datasets.load(f"mm-bright/academia/{task}@{OLD}")
        # only the query texts differ between the commits: the judgements are the same
        assert sorted(at.qrels_iter()) == sorted(plain.qrels_iter())
        assert [d.doc_id for d in at.docs_iter()] == [d.doc_id for d in plain.docs_iter()]
    commits = {commit for commit, _ in hub.fetched}
    assert commits == {OLD, family("mm-bright").hub.revision}
    at_old = sorted(path for commit, path in hub.fetched if commit == OLD)
    read = ("documents", "document_images", "examples", "examples_multimodal")
    assert at_old == sorted(mmbright_hub.repo_path(config, "academia") for config in read)
    # the files the same at both commits are downloaded once, the changed ones at each
    declared = sorted(path for commit, path in hub.fetched if commit != OLD)
    assert declared == sorted(
        mmbright_hub.repo_path(config, "academia") for config in read if "examples" in config
    )
