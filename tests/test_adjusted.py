"""bright/<domain>/adjusted: BRIGHT's qrels plus every twin (equal stripped text) of a gold doc."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import ir_datasets
import pytest
from ir_measures import ScoredDoc

import ir_bright
from ir_bright import hub
from ir_bright.families import family
from ir_bright.families.bright import adjusted
from ir_bright.hub import transfer
from ir_bright.store import derived
from tests import protocol
from tests.fixtures import bright_hub
from tests.helpers import cached, qrels_of

PYSERINI_OUTPUT = Path(__file__).parent / "data" / "pyserini_adjusted_qrels.json"
DOMAINS = {
    **bright_hub.DOMAINS,
    "leetcode": bright_hub.leetcode_with_twins,
    "aops": bright_hub.aops_with_twins,
    "theoremqa_questions": bright_hub.theoremqa_questions_with_twins,
}
PYSERINI_DOMAINS = bright_hub.PYSERINI_DOMAINS


@pytest.fixture
def bright(bright_hub):
    return bright_hub(DOMAINS)


@pytest.fixture
def hash_passes(monkeypatch):
    """Counts the corpus passes of the adjustment."""
    calls = []
    real = adjusted.twins_of

    def spy(batches, gold):
        calls.append(sorted(gold))
        return real(batches, gold)

    monkeypatch.setattr(adjusted, "twins_of", spy)
    return calls


def expected_qrels(rows):
    """The adjustment rule, written plainly: group the corpus by stripped text; every doc in
    the group of a gold id is relevant; BRIGHT's exclusions stay, and win over a twin."""
    by_text = defaultdict(set)
    for doc_id, text in rows["documents"].items():
        by_text[text.strip()].add(doc_id)
    expected = {}
    for row in rows["examples"]:
        query_id = row["id"]
        gold = {g for g in row["gold_ids"] if g != "N/A"}
        excluded = {e for e in row["excluded_ids"] if e != "N/A"}
        relevant = set(gold)
        for gold_id in gold & set(rows["documents"]):
            relevant |= by_text[rows["documents"][gold_id].strip()]
        expected.update({(query_id, d): -100 for d in excluded})
        expected.update({(query_id, d): 1 for d in relevant if d in gold or d not in excluded})
    return expected


def cache_file(isolated_home, split="leetcode"):
    return cached(isolated_home, "bright", f"{split}.docs.parquet{adjusted.CACHE_SUFFIX}")


def test_the_twelve_short_domains_have_an_adjusted_id():
    # ids pinned to a revision (``bright/x@<commit>``) are registered when other tests use them
    plain = [i for i in ir_datasets.registry if "@" not in i]
    short = [i for i in plain if i.startswith("bright/") and i.count("/") == 1]
    short = [i for i in short if not i.endswith("-long")]
    ids = {i for i in plain if i.endswith("/adjusted")}
    assert len(short) == 12 and ids == {f"{i}/adjusted" for i in short}
    assert all(ir_bright.registry.is_ours(i) for i in ids)


def test_adjusted_qrels_equal_the_rule_computed_independently(bright):
    rows = bright.rows["leetcode"]
    qrels = qrels_of("bright/leetcode/adjusted")
    assert qrels == expected_qrels(rows)
    # The cases the fixture was made for, spelt out:
    assert qrels["0", "two-sum-copy.txt"] == qrels["0", "two-sum-spaced.txt"] == 1
    assert ("0", "two-sum-near.txt") not in qrels  # differs inside the text
    assert ("0", "own-problem-copy.txt") not in qrels  # an excluded doc's twin: not excluded
    assert qrels["1", "sliding-excluded-twin.txt"] == -100  # excluded by the query: stays so
    assert qrels["2", "dp-c.txt"] == 1
    assert qrels["3", "missing.txt"] == 1  # a gold id missing from the corpus stays relevant
    assert not any(d.startswith("blank") for _, d in qrels)


def test_adjusted_qrels_list_each_pair_once_and_keep_the_base_ones(bright):
    adjusted_pairs = [
        (q.query_id, q.doc_id) for q in ir_datasets.load("bright/leetcode/adjusted").qrels_iter()
    ]
    assert len(adjusted_pairs) == len(set(adjusted_pairs))
    base = qrels_of("bright/leetcode")
    assert base.items() <= qrels_of("bright/leetcode/adjusted").items()
    assert ("0", "two-sum-copy.txt") not in base


def test_docs_and_queries_are_the_base_datasets(bright):
    base, adj = ir_datasets.load("bright/leetcode"), ir_datasets.load("bright/leetcode/adjusted")
    assert list(adj.docs_iter()) == list(base.docs_iter())
    assert list(adj.queries_iter()) == list(base.queries_iter())
    assert adj.docs_namespace() == base.docs_namespace()
    assert adj.documentation()["official_measures"] == ["nDCG@10"]


def test_the_cache_file_lists_added_pairs_excluded_twins_and_missing_gold(
    bright, isolated_home, caplog
):
    with caplog.at_level(logging.WARNING, logger="ir_bright"):
        qrels_of("bright/leetcode/adjusted")
    cache = json.loads(cache_file(isolated_home).read_text())
    manifest = derived.read_manifest(cache_file(isolated_home))
    assert (manifest["kind"], manifest["version"]) == (adjusted.KIND, adjusted.VERSION)
    section = cache["domains"]["leetcode"]
    assert sorted(map(tuple, section["added"])) == [
        ("0", "two-sum-copy.txt"),
        ("0", "two-sum-spaced.txt"),
        ("2", "dp-c.txt"),
    ]
    assert section["excluded_twins"] == [["1", "sliding-excluded-twin.txt"]]
    assert section["gold_not_in_corpus"] == [["3", "missing.txt"]]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert any("excluded" in w and "leetcode" in w for w in warnings)


def test_a_second_load_reuses_the_cache_without_hashing(bright, isolated_home, hash_passes):
    first = qrels_of("bright/leetcode/adjusted")
    path = cache_file(isolated_home)
    stamp = path.stat().st_mtime_ns
    assert len(hash_passes) == 1
    assert qrels_of("bright/leetcode/adjusted") == first
    assert ir_datasets.load("bright/leetcode/adjusted").qrels_count() == len(first)
    assert len(hash_passes) == 1
    assert path.stat().st_mtime_ns == stamp


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: "not json at all",
        lambda text: text[: len(text) // 2],  # cut off
        lambda text: json.dumps({**json.loads(text), "domains": {"leetcode": {"added": 3}}}),
        lambda text: "",
    ],
    ids=["garbage", "truncated", "wrong-shape", "empty"],
)
def test_a_damaged_cache_file_is_named_and_rebuilt(
    bright, isolated_home, caplog, hash_passes, damage
):
    expected = qrels_of("bright/leetcode/adjusted")
    path = cache_file(isolated_home)
    path.write_text(damage(path.read_text()))
    with caplog.at_level(logging.WARNING, logger="ir_bright"):
        assert qrels_of("bright/leetcode/adjusted") == expected
    assert len(hash_passes) == 2
    assert any(str(path) in r.getMessage() and "damaged" in r.getMessage() for r in caplog.records)
    assert adjusted.read_cache(path)["domains"]["leetcode"]["added"]


def test_a_cache_file_of_another_format_version_is_rebuilt(
    bright, isolated_home, caplog, hash_passes
):
    expected = qrels_of("bright/leetcode/adjusted")
    manifest = derived.manifest_path(cache_file(isolated_home))
    manifest.write_text(
        manifest.read_text().replace(f'"version": {adjusted.VERSION}', '"version": 1')
    )
    with caplog.at_level(logging.WARNING, logger="ir_bright"):
        assert qrels_of("bright/leetcode/adjusted") == expected
    assert len(hash_passes) == 2 and "not ir_bright.adjusted-qrels v2" in caplog.text


def test_a_damaged_cache_file_is_marked_by_info_and_counts_unknown(bright, isolated_home, cli):
    qrels_of("bright/leetcode/adjusted")
    cache_file(isolated_home).write_text("{")
    # not the damaged file's count: the declared one (the real hub's, not the fixture's)
    declared = family("bright").domains["leetcode"].counts["adjusted/qrels"].count
    assert ir_datasets.load("bright/leetcode/adjusted").qrels_count() == declared
    status, out, _ = cli("info", "bright/leetcode/adjusted")
    assert status == 0 and "damaged" in out and str(cache_file(isolated_home)) in out


def test_a_changed_source_file_makes_the_cache_stale(bright, isolated_home, hash_passes):
    qrels_of("bright/leetcode/adjusted")
    examples = cached(isolated_home, "bright", "leetcode.queries.parquet")
    os.utime(examples, ns=(1, 1))
    assert "out of date" in adjusted_state()
    assert qrels_of("bright/leetcode/adjusted") == expected_qrels(bright.rows["leetcode"])
    assert len(hash_passes) == 2
    assert adjusted_state() == "computed"


def adjusted_state():
    return (
        ir_datasets.load("bright/leetcode/adjusted").qrels_handler().adjustment_summary()["state"]
    )


def test_aops_and_theoremqa_questions_share_one_pass_and_one_file(
    bright, isolated_home, monkeypatch, hash_passes
):
    monkeypatch.delenv("IR_BRIGHT_VERIFY")  # the two corpora are one file only when verified
    monkeypatch.setattr(transfer, "verify", lambda *args: None)  # as if it matched the pins
    monkeypatch.setattr(hub.HubFile, "pins", lambda self: (None, None))
    assert qrels_of("bright/aops/adjusted") == expected_qrels(bright.rows["aops"])
    assert qrels_of("bright/theoremqa-questions/adjusted") == expected_qrels(
        bright.rows["theoremqa_questions"]
    )
    assert len(hash_passes) == 1
    assert set(hash_passes[0]) == {"camel_1", "camel_2", "camel_3", "camel_4", "camel_5"}
    own = cached(isolated_home, "bright", "x").parent
    files = sorted(p.name for p in own.glob("*" + adjusted.CACHE_SUFFIX))
    assert files == ["aops.docs.parquet" + adjusted.CACHE_SUFFIX]
    # the twins of both domains' gold documents were found
    assert qrels_of("bright/aops/adjusted")["aops_2019_AMC_12A_Problems/Problem_1", "camel_1_dup"]
    assert qrels_of("bright/theoremqa-questions/adjusted")[
        "TheoremQA_elainewan/math_calculus_5_2.json", "camel_5_dup"
    ]


def test_an_unverified_mirror_adjusts_each_corpus_apart(bright, isolated_home, hash_passes):
    assert qrels_of("bright/theoremqa-questions/adjusted") == expected_qrels(
        bright.rows["theoremqa_questions"]
    )
    assert cache_file(isolated_home, "theoremqa-questions").is_file()
    assert not cache_file(isolated_home, "aops").exists()


def test_info_says_how_many_pairs_were_added_and_where_the_list_is(bright, isolated_home, cli):
    status, out, _ = cli("info", "bright/leetcode/adjusted")
    assert status == 0
    assert "not computed yet" in out and str(cache_file(isolated_home)) in out
    assert bright.requests == []  # info never downloads or computes
    qrels_of("bright/leetcode/adjusted")
    status, out, _ = cli("info", "bright/leetcode/adjusted")
    assert "adjusted qrels: 3 (query, doc) pairs added" in out
    assert str(cache_file(isolated_home)) in out and "domains.leetcode.added" in out
    assert "twins left excluded (the query excludes them): 1" in out
    _, out, _ = cli("info", "bright/leetcode/adjusted", "--format", "json")
    info = json.loads(out)["adjusted_qrels"]
    assert (info["added"], info["excluded_twins"], info["gold_not_in_corpus"]) == (3, 1, 1)
    assert info["list"] == str(cache_file(isolated_home))


def test_list_counts_the_declared_qrels_then_the_computed_ones(bright, cli):
    _, out, _ = cli("list", "bright/leetcode/adjusted", "--format", "json")
    (row,) = json.loads(out)
    declared = family("bright").domains["leetcode"].counts["adjusted/qrels"].count
    assert (row["docs"], row["queries"], row["qrels"]) == (413932, 142, declared)
    assert bright.requests == []
    expected = expected_qrels(bright.rows["leetcode"])
    qrels_of("bright/leetcode/adjusted")
    _, out, _ = cli("list", "bright/leetcode/adjusted", "--format", "json")
    (row,) = json.loads(out)
    assert (row["docs"], row["queries"], row["qrels"]) == (14, 4, len(expected))


def test_ir_datasets_own_export_writes_the_adjusted_qrels(bright, capsys):
    from ir_datasets.commands import export

    export.main(["bright/leetcode/adjusted", "qrels"])
    lines = capsys.readouterr().out.splitlines()
    written = {}
    for line in lines:
        query_id, _, doc_id, label = line.split()
        written[query_id, doc_id] = int(label)
    assert written == expected_qrels(bright.rows["leetcode"])


@pytest.mark.slow
def test_ir_datasets_command_line_with_ir_bright_imported(bright):
    # `python -m ir_datasets` itself imports no plugin; this is the README's one-liner.
    code = "import ir_bright, ir_datasets; ir_datasets.main_cli()"
    proc = subprocess.run(
        [sys.executable, "-c", code, "export", "bright/leetcode/adjusted", "qrels"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "0 0 two-sum-spaced.txt 1" in proc.stdout.splitlines()


def test_export_lists_twins_as_relevant_and_download_fetches_the_shared_corpus_s_files(bright, cli):
    status, out, _ = cli("export", "bright/leetcode/adjusted", "qrels")
    assert status == 0 and "0 0 two-sum-copy.txt 1" in out.splitlines()
    status, out, _ = cli("download", "bright/aops/adjusted")
    assert status == 0
    fetched = bright.downloads("-00000-of-00001.parquet")
    assert bright_hub.repo_path("examples", "theoremqa_questions") in fetched  # shared corpus


def test_evaluate_credits_the_twin_of_a_gold_document(bright):
    run = {"0": {"two-sum-spaced.txt": 3.0, "own-problem.txt": 2.0, "other.txt": 1.0}}
    run["2"] = {"dp-c.txt": 2.0, "dp-a.txt": 1.0}
    trec = [ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    qrels = expected_qrels(bright.rows["leetcode"])
    judged, excluded = protocol.split((q, d, r) for (q, d), r in qrels.items())
    per_query = [
        protocol.ndcg(protocol.ranking(run.get(q, {}), excluded.get(q, set())), judged[q], 10)
        for q in judged
    ]
    result = ir_bright.evaluate(trec, "bright/leetcode/adjusted")
    assert result == {"nDCG@10": pytest.approx(sum(per_query) / len(per_query), abs=1e-12)}
    assert result["nDCG@10"] > ir_bright.evaluate(trec, "bright/leetcode")["nDCG@10"]


def test_the_bright_adjusted_benchmark_has_each_adjusted_id_and_bright_s_labels():
    from ir_bright.results import report

    bench = report.benchmark("bright-adjusted")
    assert bench.measure == "nDCG@10"
    assert bench.ids == tuple(f"{i}/adjusted" for i in report.benchmark("bright").ids)
    assert bench.labels == report.benchmark("bright").labels


def test_bm25_runs_on_the_adjusted_id_with_the_base_index(bright, cli, tmp_path):
    pytest.importorskip("Stemmer")  # the bm25 extra
    from ir_bright import bm25

    base, adj = ir_datasets.load("bright/leetcode"), ir_datasets.load("bright/leetcode/adjusted")
    assert bm25.index_folder(adj) == bm25.index_folder(base)
    run = tmp_path / "bright__leetcode__adjusted.trec"
    status, _, _ = cli("bm25", "bright/leetcode/adjusted", "-o", str(run))
    assert status == 0
    ranked = [line.split() for line in run.read_text().splitlines()]
    assert not any(q == "0" and d == "own-problem.txt" for q, _, d, *_ in ranked)
    status, out, _ = cli("report", str(run), "--benchmark", "bright-adjusted")
    assert status == 0 and "Leet" in out


def test_pyterrier_provider_serves_the_adjusted_qrels(bright):
    pt = pytest.importorskip("pyterrier")
    qrels = pt.get_dataset("bright:leetcode/adjusted").get_qrels()
    got = {(q, d): int(label) for q, d, label in zip(qrels.qid, qrels.docno, qrels.label)}
    assert got == expected_qrels(bright.rows["leetcode"])


@pytest.fixture
def pyserini_domains(bright_hub):
    return bright_hub(PYSERINI_DOMAINS)


@pytest.mark.parametrize("split", list(bright_hub.PYSERINI_DOMAINS))
def test_relevant_docs_and_added_pairs_equal_pyserini_scripts_output(pyserini_domains, split):
    reference = json.loads(PYSERINI_OUTPUT.read_text())[split]
    dataset = ir_datasets.load(f"bright/{split.replace('_', '-')}/adjusted")
    relevant = {(q.query_id, q.doc_id) for q in dataset.qrels_iter() if q.relevance > 0}
    assert relevant == set(map(tuple, reference["qrels"]))
    added = dataset.qrels_handler().adjustment()["added"]
    assert len(added) == len({tuple(p) for p in added})  # Pyserini's list may repeat a pair
    assert {tuple(p) for p in added} == set(map(tuple, reference["added"]))


def test_texts_are_compared_as_python_strips_them():
    # Arrow strips the texts (no Python string per document); it must strip what str.strip()
    # strips: every str.isspace() character, and nothing else (not a zero-width space).
    import hashlib

    import pyarrow as pa

    spaces = [c for c in map(chr, range(0x3001)) if c.isspace()]
    texts = [f"{s}a{s}b{s}" for s in spaces] + ["\u200bz\u200b", "", None, " é ", "\x1c\x85"]
    for array in (
        pa.array(texts, pa.string()),
        pa.array(["pad", *texts], pa.large_string()).slice(1),
    ):
        digests = bytes(adjusted._digests(array))
        size = adjusted.DIGEST_BYTES
        for i, text in enumerate(texts):
            got = digests[i * size : (i + 1) * size]
            if text is None:
                assert got == adjusted._NO_TEXT
            else:
                assert got == hashlib.sha1(text.strip().encode()).digest()
    everywhere = {c for c in map(chr, range(0x110000)) if c.isspace()}
    assert set(adjusted.PYTHON_WHITESPACE) == everywhere and len(spaces) == len(everywhere)


def test_concurrent_first_uses_hash_the_corpus_once(bright, hash_passes):
    from concurrent.futures import ThreadPoolExecutor

    ir_datasets.load("bright/leetcode").docs_path()  # fetched ahead: the race is the pass
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(lambda _: qrels_of("bright/leetcode/adjusted"), range(3)))
    assert len(hash_passes) == 1
    assert all(r == expected_qrels(bright.rows["leetcode"]) for r in results)


def test_a_failed_write_leaves_no_cache_file(bright, isolated_home, monkeypatch):
    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(adjusted.os, "fsync", broken)  # the disk fills mid-write
    with pytest.raises(ir_bright.errors.CacheError, match="No space left"):
        qrels_of("bright/leetcode/adjusted")
    folder = cached(isolated_home, "bright", "x").parent
    assert not [
        p.name
        for p in folder.iterdir()
        if ".adjusted-qrels.json" in p.name and not p.name.endswith(".lock")
    ]
