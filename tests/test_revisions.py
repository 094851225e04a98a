"""Datasets at a revision, ``<id>@<revision>``: each commit's own data, side by side in one
process, cached apart, each unchanged file downloaded once, verified by the hub's listing for
its commit (tests/fixtures/revisions_hub.py serves BRIGHT at two commits)."""

from __future__ import annotations

import json

import ir_datasets
import ir_measures
import pytest

import ir_bright  # noqa: F401 - registers the ids
from ir_bright import registry
from ir_bright.errors import ChecksumError, DatasetNotFoundError
from tests.fixtures import revisions_hub
from tests.fixtures.bright_hub import repo_path
from tests.fixtures.revisions_hub import NEW, OLD


@pytest.fixture
def two(hub, hub_root, monkeypatch):
    """BRIGHT at mteb-v1 and mteb-v1.1 (= main) on the loopback hub, with its listing API; the
    plain ids' declared pins are the real files', so they are trusted only from the hub."""
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "hub")
    hub.listing = True
    return revisions_hub.serve(hub, hub_root)


def _query_ids(dataset_id):
    return [q.query_id for q in ir_datasets.load(dataset_id).queries_iter()]


def _qrels(dataset_id):
    return {(q.query_id, q.doc_id, q.relevance) for q in ir_datasets.load(dataset_id).qrels_iter()}


def _expected_qrels(rows, gold="gold_ids"):
    pairs = set()
    for row in rows["examples"]:
        pairs |= {(row["id"], doc, 1) for doc in row[gold] if doc != "N/A"}
        pairs |= {(row["id"], doc, -100) for doc in row["excluded_ids"] if doc != "N/A"}
    return pairs


def test_each_revision_loads_its_own_data_side_by_side(two):
    old, new = two[OLD]["biology"], two[NEW]["biology"]
    assert _query_ids("bright/biology@mteb-v1") == [row["id"] for row in old["examples"]]
    assert _query_ids("bright/biology@mteb-v1.1") == [row["id"] for row in new["examples"]]
    assert _qrels("bright/biology@mteb-v1") == _expected_qrels(old)
    assert _qrels("bright/biology@mteb-v1.1") == _expected_qrels(new)
    assert _qrels("bright/biology-long@mteb-v1") == _expected_qrels(old, "gold_ids_long")
    docs = {d.doc_id: d.text for d in ir_datasets.load("bright/biology@mteb-v1").docs_iter()}
    assert docs == old["documents"]
    store = ir_datasets.load("bright/biology@mteb-v1.1").docs_store()
    assert store.get(revisions_hub.EDITED_DOC).text == new["documents"][revisions_hub.EDITED_DOC]
    assert _qrels("bright/aops@mteb-v1") == _expected_qrels(two[OLD]["aops"])
    assert _qrels("bright/aops@mteb-v1.1") == _expected_qrels(two[NEW]["aops"])


def test_commits_prefixes_and_main_name_the_same_revisions(two):
    expected = [row["id"] for row in two[OLD]["biology"]["examples"]]
    assert _query_ids(f"bright/biology@{OLD}") == expected
    assert _query_ids(f"bright/biology@{OLD[:9]}") == expected
    newer = [row["id"] for row in two[NEW]["biology"]["examples"]]
    assert _query_ids("bright/biology@main") == newer
    dataset = registry.load("bright/biology@main")
    assert dataset.dataset_id() == "bright/biology@main"
    assert dataset.revision() == {"asked": "main", "commit": NEW, "alias": "mteb-v1.1"}


def test_old_new_old_again_refetches_nothing_and_same_files_are_fetched_once(two, hub):
    for dataset_id in ("bright/biology@mteb-v1", "bright/biology@mteb-v1.1"):
        dataset = ir_datasets.load(dataset_id)
        list(dataset.docs_iter()), list(dataset.queries_iter()), list(dataset.qrels_iter())
    fetched = list(hub.fetched)
    assert len(fetched) == len(set(fetched))  # nothing twice
    for dataset_id in ("bright/biology@mteb-v1", "bright/biology", "bright/biology@main"):
        dataset = ir_datasets.load(dataset_id)
        list(dataset.docs_iter()), list(dataset.queries_iter()), list(dataset.qrels_iter())
    assert hub.fetched == fetched  # old, new, the plain id (= new): nothing again
    long_docs = ir_datasets.load("bright/biology-long@mteb-v1")
    list(long_docs.docs_iter())
    list(ir_datasets.load("bright/biology-long").docs_iter())
    list(ir_datasets.load("bright/biology-long@mteb-v1.1").docs_iter())
    path = repo_path("long_documents", "biology")
    assert [p for _, p in hub.fetched].count(path) == 1  # the same bytes at both commits


def test_a_file_the_same_at_both_commits_is_stored_once(two, isolated_home):
    list(ir_datasets.load("bright/aops@mteb-v1").docs_iter())
    list(ir_datasets.load("bright/aops").docs_iter())
    copies = [p for p in isolated_home.rglob("aops.docs.parquet")]
    assert len(copies) == 2 and copies[0].stat().st_ino == copies[1].stat().st_ino


def test_each_revisions_files_are_cached_in_its_commits_folder(two, isolated_home):
    path = registry.load("bright/biology@mteb-v1").docs_path()
    assert f"@{OLD}" in str(path)
    record = json.loads(path.with_name(path.name + ".provenance.json").read_text())
    assert record["commit"] == OLD and record["alias"] == "mteb-v1"
    assert record["pin"]["source"] == "hub listing"


def test_an_unknown_revision_names_the_aliases(two):
    with pytest.raises(DatasetNotFoundError) as error:
        ir_datasets.load("bright/biology@0123456")
    message = str(error.value)
    assert "mteb-v1 (a75a0eb)" in message and "mteb-v1.1 (3066d29)" in message
    assert "Invalid rev id: 0123456" in message and "\n" not in message


def test_an_unknown_revision_is_exit_2_with_one_line(two, cli):
    outcome = cli("info", "bright/biology@not-a-branch")
    assert outcome.status == 2 and outcome.out == ""
    (line,) = outcome.err.strip().splitlines()
    assert "mteb-v1" in line and "mteb-v1.1" in line and "not-a-branch" in line


def test_a_revisions_file_with_wrong_bytes_is_refused(two, hub, isolated_home):
    hub.corrupt.add(repo_path("examples", "biology"))
    with pytest.raises(ChecksumError, match="the hub publishes .* at a75a0eb"):
        list(ir_datasets.load("bright/biology@mteb-v1").queries_iter())
    assert not list(isolated_home.rglob("biology.queries.parquet"))


def test_a_short_commit_the_hub_does_not_resolve_is_found_among_the_known(two, hub):
    hub.short_commits = False
    assert _query_ids(f"bright/biology@{OLD[:7]}") == [
        row["id"] for row in two[OLD]["biology"]["examples"]
    ]


def test_the_hub_resolves_commits_the_declaration_does_not_know(hub, hub_root, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "hub")
    hub.listing = True
    rows = revisions_hub.serve(hub, hub_root)
    other = "b" * 40
    (hub_root / NEW).rename(hub_root / other)
    hub.revisions = {"main": other, OLD: OLD, other: other}
    dataset = registry.load(f"bright/biology@{other[:8]}")
    assert dataset.revision() == {"asked": other[:8], "commit": other, "alias": None}
    assert [q.query_id for q in dataset.queries_iter()] == [
        row["id"] for row in rows[NEW]["biology"]["examples"]
    ]


@pytest.mark.parametrize("split", ["aops", "biology"])
def test_official_scores_at_each_revision_equal_pytrec_eval_without_its_exclusions(two, split):
    import pytrec_eval

    from tests import protocol

    for rows, alias in ((two[OLD][split], "mteb-v1"), (two[NEW][split], "mteb-v1.1")):
        docs = sorted(rows["documents"])
        run = [
            (row["id"], doc, float(i % 7)) for row in rows["examples"] for i, doc in enumerate(docs)
        ]
        excluded = {(row["id"], doc) for row in rows["examples"] for doc in row["excluded_ids"]}
        gold = {row["id"]: {doc: 1 for doc in row["gold_ids"]} for row in rows["examples"]}
        kept: dict[str, dict[str, float]] = {}
        for query_id, doc, score in run:
            if (query_id, doc) not in excluded:
                kept.setdefault(query_id, {})[doc] = score
        plain = pytrec_eval.RelevanceEvaluator(gold, {"ndcg_cut.10"}).evaluate(kept)
        expected = sum(v["ndcg_cut_10"] for v in plain.values()) / len(gold)
        qrels = [(q, d, 1) for q, ds in gold.items() for d in ds] + [
            (q, d, -100) for q, d in excluded
        ]
        assert protocol.mean("nDCG@10", qrels, run) == pytest.approx(expected)
        scored = [ir_measures.ScoredDoc(*entry) for entry in run]
        got = ir_bright.evaluate(scored, f"bright/{split}@{alias}", ["nDCG@10"])
        assert got["nDCG@10"] == pytest.approx(expected)


TEMPO_DOCS = "f9df06c05688225e37701974d23c8e3c5d4efaf6"  # TEMPO's declared pins: documents,
TEMPO_EXAMPLES = "1dba7027d0afa628993c6dd794e9b68c657a6fac"  # and everything else


@pytest.fixture
def tempo_two(tempo, hub, hub_root):
    """The fixture TEMPO served at both commits its declaration pins (the same files)."""
    import shutil

    for commit in (TEMPO_DOCS, TEMPO_EXAMPLES):
        shutil.copytree(hub_root / "tempo26", hub_root / commit / "tempo26")
    hub.revisions = {"main": TEMPO_EXAMPLES, TEMPO_DOCS: TEMPO_DOCS}
    hub.listing = True
    return tempo


def test_the_two_commits_tempo_pins_on_purpose_raise_no_mixed_warning(tempo_two, hub, caplog):
    dataset = registry.load("tempo/economics")
    list(dataset.docs_iter()), list(dataset.qrels_iter())
    assert {commit for commit, _ in hub.fetched} == {TEMPO_DOCS, TEMPO_EXAMPLES}
    assert "results mix them" not in caplog.text
    from ir_bright.provenance import dataset_provenance

    about = dataset_provenance("tempo/economics", ("docs", "qrels"))
    assert about["mixed_commits"] is False and about["commit"] is None


def test_a_revision_of_tempo_reads_every_file_at_that_commit(tempo_two, hub):
    dataset = registry.load("tempo/economics@negatives")
    list(dataset.docs_iter()), list(dataset.qrels_iter())
    assert {commit for commit, _ in hub.fetched} == {TEMPO_EXAMPLES}


def test_verify_hub_accepts_tempos_files_the_hub_publishes(tempo, hub, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "hub")
    hub.listing = True
    assert list(ir_datasets.load("tempo/law").queries_iter())


def test_a_pin_mismatch_says_the_value_is_the_declarations(tempo, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "1")
    with pytest.raises(ChecksumError) as error:
        list(ir_datasets.load("tempo/law").queries_iter())
    message = str(error.value)
    assert f"the declaration pins (for revision {TEMPO_EXAMPLES})" in message
    assert "hub publishes" not in message


def test_a_hub_mismatch_says_the_value_is_the_hubs(tempo, hub, monkeypatch):
    from tests.fixtures.tempo_hub import repo_path as tempo_path

    monkeypatch.setenv("IR_BRIGHT_VERIFY", "hub")
    hub.listing = True
    hub.corrupt.add(tempo_path("examples", "law"))
    with pytest.raises(
        ChecksumError, match=r"the hub publishes \w+ at 1dba702\w+ \(no declared pin\)"
    ):
        list(ir_datasets.load("tempo/law").queries_iter())


def test_provenance_names_the_commit_and_alias(two):
    from ir_bright.provenance import dataset_provenance

    list(ir_datasets.load("bright/biology@mteb-v1").qrels_iter())
    about = dataset_provenance("bright/biology@mteb-v1")
    assert about["dataset"] == "bright/biology@mteb-v1"
    assert (about["commit"], about["alias"]) == (OLD, "mteb-v1")
    assert about["known_as"] == "MTEB BRIGHT (first task)" and not about["mixed_commits"]
    (file,) = about["files"]
    assert (file["commit"], file["alias"], file["pin"]["source"]) == (OLD, "mteb-v1", "hub listing")


def test_commands_take_ids_at_a_revision(two, cli, tmp_path):
    rows = two[OLD]["biology"]
    run = tmp_path / "run.trec"
    run.write_text(
        "".join(f"{row['id']} Q0 {row['gold_ids'][0]} 1 1.0 r\n" for row in rows["examples"])
    )
    outcome = cli("evaluate", "bright/biology@mteb-v1", run, "--format", "json")
    assert outcome.status == 0, outcome.err
    scored = json.loads(outcome.out)
    (dataset,) = scored["provenance"]["datasets"]
    assert (dataset["dataset"], dataset["commit"], dataset["alias"]) == (
        "bright/biology@mteb-v1",
        OLD,
        "mteb-v1",
    )
    outcome = cli("info", "bright/biology@mteb-v1", "--format", "json")
    info = json.loads(outcome.out)
    assert outcome.status == 0 and info["id"] == "bright/biology@mteb-v1"
    assert (info["revision"]["commit"], info["revision"]["alias"]) == (OLD, "mteb-v1")
    assert {r["alias"] for r in info["revision"]["known"]} == {"mteb-v1", "mteb-v1.1"}
    (examples,) = [f for f in info["files"] if f["path"] == repo_path("examples", "biology")]
    assert examples["provenance"]["alias"] == "mteb-v1"
    text = cli("info", "bright/biology").out
    assert f"revision: {NEW} (mteb-v1.1)" in text and f"mteb-v1: {OLD}" in text
    assert cli("download", "bright/aops@mteb-v1").status == 0


@pytest.mark.pyterrier
def test_pyterrier_takes_ids_at_a_revision(two):
    pt = pytest.importorskip("pyterrier")
    topics = pt.get_dataset("bright:bright/biology@mteb-v1").get_topics()
    assert list(topics["qid"]) == [row["id"] for row in two[OLD]["biology"]["examples"]]
    short = pt.get_dataset("bright:biology@mteb-v1.1").get_topics()
    assert list(short["qid"]) == [row["id"] for row in two[NEW]["biology"]["examples"]]


def test_a_family_of_one_repository_per_dataset_takes_a_revision_per_dataset(r2med, hub, cli):
    hub.commit = "c" * 40  # what the hub's revision API answers for main
    dataset = registry.load("r2med/biology@main")
    assert dataset.revision() == {"asked": "main", "commit": "c" * 40, "alias": "main"}
    assert [q.query_id for q in dataset.queries_iter()] == [
        q["id"] for q in r2med["Biology"]["query"]
    ]
    assert all(f"/resolve/{'c' * 40}/" in url for url in [f.url for f in dataset.hub_files()])
    outcome = cli("info", "r2med@main")
    assert outcome.status == 2 and "r2med/biology@<commit>" in outcome.err


def test_a_family_whose_module_reads_one_revision_refuses_others(cli):
    from ir_bright.families import family

    browsecomp = family("browsecomp-plus")
    assert not getattr(browsecomp.module(), "READS_REVISIONS", False)
    outcome = cli("info", f"{browsecomp.entries[0].id}@main")
    assert outcome.status == 2 and "give the id without @" in outcome.err


def test_derived_caches_are_per_revision(two, cli, tmp_path, isolated_home):
    pytest.importorskip("Stemmer")
    from ir_bright.bm25.cache import index_folder

    for alias in ("mteb-v1", "mteb-v1.1"):
        outcome = cli("bm25", f"bright/biology@{alias}", "-o", tmp_path / f"{alias}.trec")
        assert outcome.status == 0, outcome.err
    old_docs = {line.split()[2] for line in (tmp_path / "mteb-v1.trec").read_text().splitlines()}
    new_docs = {line.split()[2] for line in (tmp_path / "mteb-v1.1.trec").read_text().splitlines()}
    assert revisions_hub.REMOVED_DOC in old_docs and revisions_hub.REMOVED_DOC not in new_docs
    assert revisions_hub.ADDED_DOC in new_docs and revisions_hub.ADDED_DOC not in old_docs
    old_index = index_folder(registry.load("bright/biology@mteb-v1"))
    new_index = index_folder(registry.load("bright/biology@mteb-v1.1"))
    assert f"@{OLD}" in str(old_index) and old_index != new_index
    assert old_index.is_dir() and new_index.is_dir()


def test_ir_datasets_registry_iterates_as_before_and_with_ids_looked_up(two, cli):
    fresh = cli.fresh(
        script="import ir_bright, ir_datasets; print(sum('@' in i for i in ir_datasets.registry))"
    )
    assert fresh.returncode == 0 and fresh.stdout.strip() == "0"  # nothing registered ahead
    wanted = "bright/theoremqa-theorems@mteb-v1"
    looked_up = ir_datasets.load(wanted)
    assert wanted in list(ir_datasets.registry)
    for dataset_id in list(ir_datasets.registry):
        if "@" in dataset_id:  # every id looked up so far, in this process
            assert ir_datasets.registry[dataset_id].metadata() is not None
    assert looked_up.queries_count() is None  # the declared count is another commit's
    assert len(list(looked_up.queries_iter())) == 1
    assert looked_up.queries_count() == 1  # the revision's own file, once read


def test_a_glob_at_a_revision_downloads_each_id_at_it(two, cli, hub):
    assert cli("download", "bright/theoremqa-*@mteb-v1").status == 0
    assert {commit for commit, _ in hub.fetched} == {OLD}
    paths = {path for _, path in hub.fetched}
    assert repo_path("examples", "theoremqa_theorems") in paths
    assert repo_path("examples", "theoremqa_questions") in paths


@pytest.mark.parametrize(
    "dataset_id", ["bright/biology@", "bright/biology@a@b", "bright/biology@ "]
)
def test_an_id_without_a_revision_after_its_at_is_one_line(cli, dataset_id):
    outcome = cli("info", dataset_id)
    assert outcome.status == 2 and "names no revision after its @" in outcome.err
    assert len(outcome.err.strip().splitlines()) == 1


def test_files_the_declaration_pins_as_twins_are_fetched_once_at_a_revision_when_the_same(
    two, hub, isolated_home
):
    list(ir_datasets.load("bright/aops@mteb-v1").docs_iter())
    questions = ir_datasets.load("bright/theoremqa-questions@mteb-v1")
    assert {d.doc_id for d in questions.docs_iter()} == set(
        two[OLD]["theoremqa_questions"]["documents"]
    )
    paths = [path for _, path in hub.fetched]
    assert repo_path("documents", "aops") in paths
    assert (
        repo_path("documents", "theoremqa_questions") not in paths
    )  # the hub lists the same bytes
    folder = isolated_home / "bright" / f"@{OLD}"
    aops, theorems = folder / "aops.docs.parquet", folder / "theoremqa-questions.docs.parquet"
    assert aops.stat().st_ino == theorems.stat().st_ino


def test_kin_with_other_bytes_at_a_revision_is_fetched_for_itself(two, hub, hub_root):
    import pyarrow.parquet as pq

    from tests.fixtures.bright_hub import _docs_table

    target = hub_root / OLD / "xlangai/BRIGHT" / repo_path("documents", "theoremqa_questions")
    pq.write_table(_docs_table({"only_here": "a document of theoremqa alone"}), target)
    list(ir_datasets.load("bright/aops@mteb-v1").docs_iter())
    questions = ir_datasets.load("bright/theoremqa-questions@mteb-v1")
    assert [d.doc_id for d in questions.docs_iter()] == ["only_here"]
