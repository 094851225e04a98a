"""BrowseComp-Plus: the hub's encrypted queries decrypted as the official script does, the
official qrels derived from them, and the official measures averaged as ``trec_eval -c``.

Expectations come from the fixture's plaintext (tests/fixtures/browsecomp_hub.py), from the
official decryption code's output (tests/data/browsecomp_plus/official_decryption.json) and from
the independent reference of the scoring protocol (tests/protocol.py)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import ir_datasets
import pytest

import ir_bright
from ir_bright.errors import CacheError
from ir_bright.families import family
from ir_bright.families.browsecomp_plus import (
    DerivedQrels,
    EncryptedQueries,
    decrypt,
    decrypt_string,
    pairs_digest,
    shards,
)
from tests import protocol
from tests.fixtures.browsecomp_hub import (
    CANARY,
    QUERIES_REPO,
    encrypt,
    official_pairs,
    query_path,
)

OFFICIAL = json.loads(
    (Path(__file__).parent / "data" / "browsecomp_plus" / "official_decryption.json").read_text(
        encoding="utf-8"
    )
)
KINDS = {"evidence": "evidence_docs", "gold": "gold_docs"}


def test_decryption_gives_what_the_official_script_gives():
    encryption = family("browsecomp-plus").declaration.encryption
    assert encryption is not None and encryption.skip == ("query_id",)
    canary = encryption.canary
    for case in OFFICIAL["cases"]:
        assert decrypt(case["encrypted"], canary) == case["decrypted"]


def test_the_fixture_encrypts_as_the_hub_does():
    """The fixture's ciphertexts are those the official script decrypts to their plaintext."""
    strings = [c for c in OFFICIAL["cases"] if isinstance(c["encrypted"], str)]
    assert strings and all(encrypt(c["decrypted"]) == c["encrypted"] for c in strings)


def test_base64_wrapped_in_lines_decrypts_as_the_official_decoder_reads_it():
    text = "Schönbrunn №2 — a question long enough to wrap " * 4
    stored = encrypt(text)
    wrapped = "\n".join(stored[i : i + 76] for i in range(0, len(stored), 76))
    assert "\n" in wrapped and decrypt_string(wrapped, CANARY) == text


def test_a_string_that_is_not_the_schemes_is_refused():
    with pytest.raises(ValueError, match="base64"):
        decrypt_string("Which lighthouse keeper?", CANARY)
    with pytest.raises(ValueError):  # base64, but not UTF-8 once decrypted
        decrypt_string(encrypt("text"), CANARY + "x")


def test_the_declaration_records_the_official_qrels_files_and_counts():
    declared = family("browsecomp-plus")
    assert declared.collection.published_totals == {"docs": 100195, "queries": 830}
    evidence, gold = (declared.domains[k] for k in ("evidence", "gold"))
    assert "git blob d99a06aeb30dcf0dd9c41003c2bca8d775e4519c, 5,064 lines" in evidence.source
    assert "git blob 8129652990c139cfa153ce901b415e802f6fbdd7, 2,407 lines" in gold.source
    assert [evidence.counts["qrels"], gold.counts["qrels"]] == [5064, 2407]
    assert declared.protocol.average == "qrels" and not declared.protocol.query_side
    assert declared.protocol.depth == 1000 and declared.protocol.exclusions is None


def test_every_id_gives_the_corpus_and_the_decrypted_questions(browsecomp):
    corpus, queries = browsecomp["corpus"], browsecomp["queries"]
    for dataset_id in ("browsecomp-plus", "browsecomp-plus/evidence", "browsecomp-plus/gold"):
        dataset = ir_datasets.load(dataset_id)
        assert [(d.doc_id, d.text) for d in dataset.docs_iter()] == [
            (row["docid"], row["text"]) for row in corpus
        ]
        assert [tuple(q) for q in dataset.queries_iter()] == [
            (row["query_id"], row["query"], row["answer"]) for row in queries
        ]
    assert not ir_datasets.load("browsecomp-plus").has_qrels()


@pytest.mark.parametrize("kind", KINDS)
def test_the_qrels_are_the_official_pairs(browsecomp, kind):
    """Each query's evidence (gold) ids at relevance 1, each pair once: the pairs the official
    files list, computed here from the plaintext by the official rule."""
    qrels = list(ir_datasets.load(f"browsecomp-plus/{kind}").qrels_iter())
    pairs = [(q.query_id, q.doc_id) for q in qrels]
    assert len(pairs) == len(set(pairs))
    assert set(pairs) == official_pairs(browsecomp["queries"], KINDS[kind])
    assert {q.relevance for q in qrels} == {1}
    # as the official files: queries in the hub's order, a query's ids in text order
    order = list(dict.fromkeys(q for q, _ in pairs))
    assert order == [row["query_id"] for row in browsecomp["queries"]]
    for query_id in order:
        ids = [d for q, d in pairs if q == query_id]
        assert ids == sorted(ids)


def test_every_gold_pair_is_an_evidence_pair(browsecomp):
    gold = {tuple(q[:2]) for q in ir_datasets.load("browsecomp-plus/gold").qrels_iter()}
    evidence = {tuple(q[:2]) for q in ir_datasets.load("browsecomp-plus/evidence").qrels_iter()}
    assert gold and gold <= evidence


def test_metadata_counts_every_entity_type(browsecomp):
    for dataset_id, qrels in (("browsecomp-plus/evidence", 5064), ("browsecomp-plus/gold", 2407)):
        metadata = ir_datasets.load(dataset_id).metadata()
        assert metadata["docs"]["count"] == 100195 and metadata["queries"]["count"] == 830
        assert metadata["qrels"]["count"] == qrels
    assert set(ir_datasets.load("browsecomp-plus").metadata()) == {"docs", "queries"}


def test_a_query_file_that_is_not_encrypted_is_refused_with_one_line(browsecomp, hub_root):
    import pyarrow as pa
    import pyarrow.parquet as pq

    target = hub_root / QUERIES_REPO / query_path(0)
    rows = pq.read_table(target).to_pylist()
    for row in rows:
        row["query"] = "a plain question?"
    pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(target)), target)
    with pytest.raises(CacheError, match="does not decrypt") as caught:
        list(ir_datasets.load("browsecomp-plus").queries_iter())
    assert "\n" not in str(caught.value)


def _run_missing_queries(browsecomp, seed=7):
    """A run over the fixture's documents that misses two queries and ranks the rest."""
    rng = random.Random(seed)
    doc_ids = [row["docid"] for row in browsecomp["corpus"]]
    run = []
    for number, row in enumerate(browsecomp["queries"]):
        if number in (1, 6):
            continue
        for doc_id in rng.sample(doc_ids, 30):
            run.append((row["query_id"], doc_id, float(rng.randint(0, 9))))
    return run


@pytest.mark.parametrize("kind", KINDS)
def test_scores_are_trec_eval_c_over_every_query_of_the_qrels(browsecomp, kind, tmp_path):
    """A missed query counts 0 (``trec_eval -c``), as the official evaluation runs it."""
    run = _run_missing_queries(browsecomp)
    path = tmp_path / "run.trec"
    path.write_text("".join(f"{q} Q0 {d} 0 {s} r\n" for q, d, s in run), encoding="utf-8")
    qrels = [(q, d, 1) for q, d in official_pairs(browsecomp["queries"], KINDS[kind])]
    scores = ir_bright.evaluate(path, f"browsecomp-plus/{kind}")
    assert list(scores) == ["nDCG@10", "R@5", "R@100", "R@1000"]
    for name, value in scores.items():
        assert value == pytest.approx(protocol.mean(name, qrels, run), abs=1e-12)
    judged = {q for q, _, _ in qrels}
    shared = protocol.per_query("nDCG@10", qrels, run)
    ranked = {q for q, _, _ in run}
    assert len(judged - ranked) == 2  # so a mean over the shared queries would differ
    assert scores["nDCG@10"] * len(judged) == pytest.approx(sum(shared.values()))


LABELS = [
    f"{kind} {m}" for kind in ("Evidence", "Gold") for m in ("R@5", "R@100", "R@1000", "nDCG@10")
]


def test_report_reads_one_run_and_gives_both_qrels_columns(browsecomp, cli, tmp_path):
    run = _run_missing_queries(browsecomp)
    folder = tmp_path / "bm25"
    folder.mkdir()
    (folder / "browsecomp-plus.trec").write_text(
        "".join(f"{q} Q0 {d} 0 {s} r\n" for q, d, s in run), encoding="utf-8"
    )
    status, out, err = cli("report", str(folder), "--format", "json", "--reference", "paper-bm25")
    assert status == 0, err
    table = json.loads(out)
    assert table["benchmark"] == "browsecomp-plus"  # found from the run file's name
    assert [c["label"] for c in table["columns"]] == LABELS
    ours, published = table["rows"]
    for column in table["columns"]:
        kind = {"Evidence": "evidence_docs", "Gold": "gold_docs"}[column["label"].split()[0]]
        qrels = [(q, d, 1) for q, d in official_pairs(browsecomp["queries"], kind)]
        expected = protocol.mean(column["measure"], qrels, run)
        assert ours["values"][column["id"]] == pytest.approx(expected, abs=1e-12)
    assert ours["average"] is None and published["reference"]
    assert [published["values"][c["id"]] * 100 for c in table["columns"]] == pytest.approx(
        [1.2, 4.7, 13.7, 1.6, 1.4, 6.1, 17.3, 1.7]
    )
    status, out, _ = cli("report", str(folder), "-b", "browsecomp-plus")
    header = next(line for line in out.splitlines() if line.startswith("| system"))
    assert "Evidence nDCG@10" in header and "Avg" not in header


def test_report_refuses_another_measure_for_a_table_of_several(browsecomp, cli, tmp_path):
    path = tmp_path / "browsecomp-plus.trec"
    path.write_text("769 Q0 1 0 1.0 r\n", encoding="utf-8")
    status, _, err = cli("report", str(path), "-m", "R@10")
    assert status == 2 and "drop --measure" in err


@pytest.mark.slow
def test_every_command_works_on_browsecomp_plus(browsecomp, cli, tmp_path):
    for dataset_id in ("browsecomp-plus", "browsecomp-plus/evidence", "browsecomp-plus/gold"):
        status, out, _ = cli("list", dataset_id, "--format", "json")
        assert status == 0 and dataset_id in [row["id"] for row in json.loads(out)]
    assert cli("download", "browsecomp-plus/gold")[0] == 0
    status, out, _ = cli("info", "browsecomp-plus/gold", "--format", "json")
    info = json.loads(out)
    assert all(f["cached"] for f in info["files"]) and info["protocol"]["average"] == "qrels"
    status, out, _ = cli("export", "browsecomp-plus/gold", "qrels")
    judged = {tuple(line.split()[::2]) for line in out.splitlines()}
    assert judged == official_pairs(browsecomp["queries"], "gold_docs")
    status, out, _ = cli("export", "browsecomp-plus", "queries", "--format", "jsonl")
    assert [json.loads(line)["answer"] for line in out.splitlines()] == [
        row["answer"] for row in browsecomp["queries"]
    ]
    run = tmp_path / "browsecomp-plus.trec"
    status, _, err = cli("bm25", "browsecomp-plus", "-o", str(run))
    assert status == 0, err
    lines = run.read_text(encoding="utf-8").splitlines()
    assert {line.split()[0] for line in lines} == {r["query_id"] for r in browsecomp["queries"]}
    status, out, err = cli("evaluate", "browsecomp-plus/evidence", str(run), "--format", "json")
    assert status == 0, err
    assert list(json.loads(out)[str(run)]) == ["nDCG@10", "R@5", "R@100", "R@1000"]


def test_pyterrier_reads_the_decrypted_questions_and_the_official_qrels(browsecomp):
    pt = pytest.importorskip("pyterrier")
    dataset = pt.get_dataset("bright:browsecomp-plus/gold")  # topics: the question text
    topics = dataset.get_topics()
    assert list(topics["qid"]) == [row["query_id"] for row in browsecomp["queries"]]
    assert list(topics["query"]) == [row["query"] for row in browsecomp["queries"]]
    qrels = dataset.get_qrels()
    pairs = set(zip(qrels["qid"], qrels["docno"]))
    assert pairs == official_pairs(browsecomp["queries"], "gold_docs")
    answers = pt.get_dataset("irds:browsecomp-plus/gold").get_topics("answer")
    assert list(answers["query"]) == [row["answer"] for row in browsecomp["queries"]]


def test_the_digest_of_qrels_pairs_ignores_their_order_and_repeats():
    pairs = [("769", "5412"), ("769", "18639"), ("1", "7")]
    expected = hashlib.sha256(b"1 7\n769 18639\n769 5412\n").hexdigest()
    assert pairs_digest(pairs) == pairs_digest([*reversed(pairs), pairs[0]]) == expected


@pytest.mark.parametrize("kind", KINDS.values())
def test_derived_qrels_unlike_the_official_files_pairs_get_a_warning(browsecomp, kind, caplog):
    declared = family("browsecomp-plus")
    encryption = declared.declaration.encryption
    source = EncryptedQueries(shards(declared, "queries"), encryption.canary, encryption.skip)
    mine = pairs_digest(official_pairs(browsecomp["queries"], kind))
    for expected, warned in ((mine, False), (encryption.pairs_sha256["evidence"], True)):
        caplog.clear()
        qrels = list(DerivedQrels(source, kind, "relevant", expected).qrels_iter())
        assert len(qrels) == len(official_pairs(browsecomp["queries"], kind))
        assert ("not the official file's pairs" in caplog.text) is warned


def test_references_list_the_papers_bm25_row_with_its_measures(cli):
    status, out, _ = cli("references", "-b", "browsecomp-plus", "--format", "json")
    (row,) = json.loads(out)
    assert status == 0 and row["name"] == "paper-bm25" and row["average"] is None
    assert row["measure"] == "R@5, R@100, R@1000, nDCG@10"
    assert list(row["values"]) == LABELS and "Table 2" in row["source"]


def test_at_another_commit_the_corpus_keeps_its_own_repositorys_revision():
    declared = family("browsecomp-plus")
    commit = "0" * 40
    view = declared.at(commit)
    queries, corpus = shards(view, "queries")[0], shards(view, "corpus")[0]
    assert (queries.repo, queries.revision) == ("Tevatron/browsecomp-plus", commit)
    assert corpus.repo == "Tevatron/browsecomp-plus-corpus"
    assert corpus.revision == "b27b02bc3e45511b8b82a13e6f90ce761df726f6"
    assert declared.at(declared.hub.revision) is declared
