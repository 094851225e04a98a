"""The provenance of a score: ``evaluate --format json`` names the hub repository, the commit
the mirror's ``main`` resolved to and the sha256 of each file scored against; files cached
before provenance was recorded say commit unknown; files of two commits are said to mix."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

import ir_datasets
import pytest

import ir_bright
from ir_bright.cli import main
from ir_bright.hub import fetch_records
from ir_bright.provenance import dataset_provenance, provenance, write_run_provenance
from tests.fixtures import bright_hub
from tests.fixtures.bright_hub import REPO, repo_path

MIRROR_COMMIT = "0123456789abcdef0123456789abcdef01234567"  # the held-out mirror's own main
OTHER_COMMIT = "fedcba9876543210fedcba9876543210fedcba98"
EXAMPLES = repo_path("examples", "biology")
DOCUMENTS = repo_path("documents", "biology")


@pytest.fixture
def mirror(hub, hub_root, monkeypatch):
    """The fixture BRIGHT on a loopback hub whose main resolves to MIRROR_COMMIT (checksums
    off: the pins are the real files'), in a process that has used no hub file yet."""
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    monkeypatch.setattr(fetch_records, "_COMMITS_SEEN", {})
    monkeypatch.setattr(fetch_records, "_WATCHED", set())
    bright_hub.write_bright(hub_root)
    hub.commit = MIRROR_COMMIT
    return hub


def served_sha256(hub_root, path):
    """The sha256 of the bytes the mirror serves for ``path``, computed here."""
    return hashlib.sha256((hub_root / REPO / path).read_bytes()).hexdigest()


def biology_run(tmp_path):
    path = tmp_path / "r.run"
    path.write_text(
        "0 Q0 insects_light/Phototaxis_0.txt 1 3.0 t\n"
        "0 Q0 insects_light/Phototaxis_3.txt 2 2.0 t\n"
        "1 Q0 bird_song/Birdsong_2.txt 1 1.0 t\n"
    )
    return str(path)


def evaluate_json(capsys, *argv):
    status = main(["evaluate", *map(str, argv), "--format", "json"])
    out = capsys.readouterr().out
    assert status == 0
    return json.loads(out)


def test_evaluate_json_names_the_mirrors_commit_and_the_examples_sha256(
    mirror, hub_root, tmp_path, capsys
):
    run = biology_run(tmp_path)
    out = evaluate_json(capsys, "bright/biology", run, "-m", "nDCG@10")
    assert out[run] == {"nDCG@10": pytest.approx(1.0)}  # the scores stay where they were
    about = out["provenance"]
    assert about["ir_bright"] == ir_bright.__version__
    assert about["protocol"] == "official" and about["measures"] == ["nDCG@10"]
    (dataset,) = about["datasets"]
    assert dataset["dataset"] == "bright/biology"
    assert dataset["repo"] == REPO and dataset["commit"] == MIRROR_COMMIT
    assert dataset["mixed_commits"] is False and dataset["known_as"] is None
    (examples,) = dataset["files"]  # the qrels are read from examples alone
    assert examples["path"] == EXAMPLES
    assert examples["sha256"] == served_sha256(hub_root, EXAMPLES)
    assert examples["md5"] == hashlib.md5((hub_root / REPO / EXAMPLES).read_bytes()).hexdigest()
    assert examples["size"] == (hub_root / REPO / EXAMPLES).stat().st_size
    assert examples["commit"] == MIRROR_COMMIT and examples["fetched_at"].endswith("Z")


def test_stock_columns_are_named_among_the_measures(mirror, tmp_path, capsys):
    run = biology_run(tmp_path)
    out = evaluate_json(capsys, "bright/biology", run, "-m", "nDCG@10", "--stock")
    assert out["provenance"]["measures"] == ["nDCG@10", "stock:nDCG@10"]


def test_files_cached_before_provenance_say_commit_unknown_with_their_sha256(
    mirror, hub_root, tmp_path, capsys, isolated_home
):
    run = biology_run(tmp_path)
    evaluate_json(capsys, "bright/biology", run)
    for record in isolated_home.rglob("*.provenance.json"):
        record.unlink()  # as an older ir_bright left its cache
    mirror.commit = OTHER_COMMIT  # never asked: the cached file is used as it is
    requests = len(mirror.requests)
    (dataset,) = evaluate_json(capsys, "bright/biology", run)["provenance"]["datasets"]
    assert len(mirror.requests) == requests
    assert dataset["commit"] == "unknown"
    (examples,) = dataset["files"]
    assert examples["commit"] == "unknown" and examples["fetched_at"] is None
    assert examples["sha256"] == served_sha256(hub_root, EXAMPLES)


def test_a_record_naming_other_bytes_certifies_nothing(
    mirror, hub_root, tmp_path, capsys, isolated_home, caplog
):
    run = biology_run(tmp_path)
    evaluate_json(capsys, "bright/biology", run)
    (record,) = isolated_home.rglob("biology.queries.parquet.provenance.json")
    forged = {**json.loads(record.read_text()), "sha256": "0" * 64}
    record.write_text(json.dumps(forged))  # the file keeps its size and time: only bytes tell
    (dataset,) = evaluate_json(capsys, "bright/biology", run)["provenance"]["datasets"]
    (examples,) = dataset["files"]
    assert examples["sha256"] == served_sha256(hub_root, EXAMPLES)
    assert examples["commit"] == "unknown" and dataset["commit"] == "unknown"
    assert any("names other bytes" in r.getMessage() for r in caplog.records)


def test_a_record_of_the_same_bytes_at_another_time_keeps_its_commit(
    mirror, hub_root, tmp_path, capsys, isolated_home
):
    run = biology_run(tmp_path)
    evaluate_json(capsys, "bright/biology", run)
    (cached,) = isolated_home.rglob("biology.queries.parquet")
    os.utime(cached, ns=(10**18, 10**18))  # as a copy of the cache without its times
    (dataset,) = evaluate_json(capsys, "bright/biology", run)["provenance"]["datasets"]
    (examples,) = dataset["files"]
    assert examples["commit"] == MIRROR_COMMIT
    assert examples["sha256"] == served_sha256(hub_root, EXAMPLES)
    assert fetch_records.recorded(cached)["commit"] == MIRROR_COMMIT  # brought up to date


def test_files_of_two_commits_warn_once_and_are_recorded_as_mixed(mirror, hub_root, caplog):
    dataset = ir_datasets.load("bright/biology")
    with caplog.at_level(logging.WARNING):
        list(dataset.qrels_iter())  # examples fetched at the mirror's commit
        mirror.commit = OTHER_COMMIT  # main moved on before the corpus was fetched
        list(dataset.docs_iter())
        list(dataset.qrels_iter())
        list(dataset.docs_iter())
    warnings = [r.getMessage() for r in caplog.records if "commits" in r.getMessage()]
    assert len(warnings) == 1
    for named in (MIRROR_COMMIT, OTHER_COMMIT, "examples", "documents", "IR_BRIGHT_REVISION"):
        assert named in warnings[0]
    about = dataset_provenance("bright/biology", entities=("docs", "qrels"))
    assert about["mixed_commits"] is True and about["commit"] is None
    by_path = {file["path"]: file for file in about["files"]}
    assert by_path[EXAMPLES]["commit"] == MIRROR_COMMIT
    assert by_path[DOCUMENTS]["commit"] == OTHER_COMMIT
    assert by_path[DOCUMENTS]["sha256"] == served_sha256(hub_root, DOCUMENTS)


def test_one_commit_throughout_warns_nothing(mirror, caplog):
    dataset = ir_datasets.load("bright/biology")
    with caplog.at_level(logging.WARNING):
        list(dataset.qrels_iter())
        list(dataset.docs_iter())
    assert not [r for r in caplog.records if "commits" in r.getMessage()]
    about = dataset_provenance(dataset, entities=("docs", "qrels"))
    assert about["commit"] == MIRROR_COMMIT and about["mixed_commits"] is False
    assert {file["path"] for file in about["files"]} == {EXAMPLES, DOCUMENTS}


def test_provenance_fetches_nothing_and_describes_only_cached_files(mirror):
    about = dataset_provenance("bright/biology", entities=("docs", "queries", "qrels"))
    assert about == {
        "dataset": "bright/biology",
        "repo": None,
        "commit": None,
        "alias": None,
        "known_as": None,
        "mixed_commits": False,
        "files": [],
    }
    assert mirror.requests == []


def test_queries_name_the_reasoning_config_they_read(mirror, hub_root):
    dataset = ir_datasets.load("bright/biology/gpt4-reason")
    list(dataset.queries_iter())
    paths = {file["path"] for file in dataset_provenance(dataset, ("queries",))["files"]}
    assert paths == {EXAMPLES, repo_path("gpt4_reason", "biology")}


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="entity"):
        dataset_provenance("bright/biology", entities=("scoreddocs",))
    with pytest.raises(ValueError, match="protocol"):
        provenance([], "trec", [])
    with pytest.raises(ValueError, match="replace"):
        provenance([], "official", [], extra={"measures": []})


def test_extra_keys_sit_beside_the_standard_ones():
    about = provenance([], "stock", ["R@1"], extra={"bm25": {"k1": 0.9}})
    assert about == {
        "ir_bright": ir_bright.__version__,
        "protocol": "stock",
        "measures": ["R@1"],
        "datasets": [],
        "bm25": {"k1": 0.9},
    }


def test_a_run_named_provenance_is_refused_in_json(mirror, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "provenance").write_text("0 Q0 x 1 1.0 t\n")
    assert main(["evaluate", "bright/biology", "provenance", "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert "./provenance" in err and len(err.strip().splitlines()) == 1


def test_info_shows_each_cached_files_repo_commit_sha256_and_time(mirror, hub_root, capsys):
    list(ir_datasets.load("bright/biology").qrels_iter())  # caches examples only
    assert main(["info", "bright/biology"]) == 0
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(EXAMPLES))
    assert f"from {REPO} at commit {MIRROR_COMMIT}, fetched 20" in lines[at + 1]
    assert lines[at + 2].split() == ["sha256", served_sha256(hub_root, EXAMPLES)]
    assert main(["info", "bright/biology", "--format", "json"]) == 0
    files = {f["path"]: f for f in json.loads(capsys.readouterr().out)["files"]}
    assert files[EXAMPLES]["provenance"]["commit"] == MIRROR_COMMIT
    assert files[EXAMPLES]["provenance"]["sha256"] == served_sha256(hub_root, EXAMPLES)
    assert files[DOCUMENTS]["provenance"] is None  # not cached: nothing to describe
    assert len(mirror.requests) == 1, mirror.requests  # info fetched nothing


def test_info_says_when_a_file_was_cached_before_provenance(mirror, capsys, isolated_home):
    list(ir_datasets.load("bright/biology").qrels_iter())
    for record in isolated_home.rglob("*.provenance.json"):
        record.unlink()
    assert main(["info", "bright/biology"]) == 0
    out = capsys.readouterr().out
    assert "at commit unknown, fetched unknown (cached before ir_bright recorded it)" in out


def test_a_known_revision_is_named(mirror, monkeypatch):
    """The commit MTEB's BRIGHT(v1.1) tasks pin (embeddings-benchmark/mteb,
    mteb/tasks/retrieval/eng/bright_v1_1_retrieval.py at commit 1fb1d57)."""
    v1_1 = "3066d29c9651a576c8aba4832d249807b181ecae"
    mirror.commit = v1_1
    monkeypatch.setenv("IR_BRIGHT_REVISION", v1_1)
    list(ir_datasets.load("bright/biology").qrels_iter())
    about = dataset_provenance("bright/biology")
    assert about["commit"] == v1_1 and about["known_as"] == "MTEB BRIGHT(v1.1)"


def write_system(folder, text):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bright__biology.trec").write_text(text)
    return folder


def test_report_json_carries_the_provenance_of_the_datasets_scored(
    mirror, hub_root, tmp_path, capsys
):
    run = Path(biology_run(tmp_path)).read_text()
    folder = write_system(tmp_path / "mine", run)
    assert main(["report", str(folder), "-b", "bright", "--format", "json"]) == 0
    about = json.loads(capsys.readouterr().out)["provenance"]
    assert about["protocol"] == "official" and about["measures"] == ["nDCG@10"]
    (dataset,) = about["datasets"]  # only biology has a run
    assert dataset["dataset"] == "bright/biology" and dataset["commit"] == MIRROR_COMMIT
    assert [f["sha256"] for f in dataset["files"]] == [served_sha256(hub_root, EXAMPLES)]


def test_compare_json_records_carry_their_datasets_provenance(mirror, hub_root, tmp_path, capsys):
    good = Path(biology_run(tmp_path)).read_text()
    base = write_system(tmp_path / "base", good)
    mine = write_system(tmp_path / "mine", "\n".join(reversed(good.splitlines())) + "\n")
    argv = ["compare", "bright/biology", str(base / "bright__biology.trec")]
    argv.append(str(mine / "bright__biology.trec"))
    assert main([*argv, "--samples", "50", "--format", "json"]) == 0
    (record,) = json.loads(capsys.readouterr().out)
    about = record["provenance"]
    assert about["measures"] == [record["measure"]] and about["protocol"] == "official"
    (dataset,) = about["datasets"]
    assert dataset["commit"] == MIRROR_COMMIT
    assert [f["sha256"] for f in dataset["files"]] == [served_sha256(hub_root, EXAMPLES)]


def test_a_runs_provenance_is_written_beside_it(mirror, hub_root, tmp_path):
    dataset = ir_datasets.load("bright/biology")
    list(dataset.queries_iter())
    list(dataset.docs_iter())
    run = tmp_path / "bm25.trec"
    run.write_text("0 Q0 d 1 1.0 t\n")
    params = {"bm25": {"k1": 0.9, "b": 0.4, "analyzer": "lucene-en-v2"}}
    written = write_run_provenance(run, "bright/biology", params)
    assert written == tmp_path / "bm25.trec.json"
    about = json.loads(written.read_text())
    assert about["protocol"] is None and about["measures"] == [] and about["bm25"]["k1"] == 0.9
    (described,) = about["datasets"]
    by_path = {f["path"]: f for f in described["files"]}
    assert by_path[DOCUMENTS]["sha256"] == served_sha256(hub_root, DOCUMENTS)
    assert by_path[EXAMPLES]["commit"] == MIRROR_COMMIT


def test_bm25_writes_the_runs_provenance_beside_it(mirror, hub_root, tmp_path, capsys):
    pytest.importorskip("Stemmer")  # the bm25 extra
    run = tmp_path / "runs" / "bright__biology.trec"
    assert main(["bm25", "bright/biology", "-o", str(run), "--k1", "1.2"]) == 0
    about = json.loads((tmp_path / "runs" / "bright__biology.trec.json").read_text())
    assert about["bm25"]["k1"] == 1.2 and about["bm25"]["b"] == 0.4
    assert about["bm25"]["analyzer"] and about["bm25"]["query_side"] is True
    assert about["bm25"]["depth"] == 1000  # the family's official BM25 (the paper's code)
    (dataset,) = about["datasets"]
    assert dataset["commit"] == MIRROR_COMMIT
    by_path = {f["path"]: f for f in dataset["files"]}
    assert by_path[DOCUMENTS]["sha256"] == served_sha256(hub_root, DOCUMENTS)
    assert EXAMPLES in by_path  # the queries' file
    assert main(["report", str(run.parent), "-b", "bright", "--format", "json"]) == 0
    assert [r["system"] for r in json.loads(capsys.readouterr().out)["rows"]] == ["runs"]


def test_bm25_to_stdout_writes_no_provenance_file(mirror, tmp_path, capsys, monkeypatch):
    pytest.importorskip("Stemmer")  # the bm25 extra
    monkeypatch.chdir(tmp_path)
    assert main(["bm25", "bright/biology"]) == 0
    assert capsys.readouterr().out and not list(tmp_path.glob("*.json"))  # cwd: none
