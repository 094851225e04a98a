"""BRIGHT datasets through ir_datasets, served from a loopback hub in the real layout."""

from __future__ import annotations

import logging

import ir_datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import ir_bright
from ir_bright import hub
from ir_bright.errors import OfflineError
from ir_bright.hub import transfer
from tests.fixtures import bright_hub
from tests.fixtures.bright_hub import REASON_CONFIGS, llm_text, repo_path
from tests.helpers import qrels_of

MODELS = list(REASON_CONFIGS)


def gold_pairs(rows, column="gold_ids"):
    """(query_id, doc_id) of every gold id, each once, written from the fixture rows."""
    return {(r["id"], d) for r in rows for d in r[column] if d != "N/A"}


def excluded_pairs(rows):
    return {(r["id"], d) for r in rows for d in r["excluded_ids"] if d != "N/A"}


def test_every_id_family_is_registered():
    ids = set(ir_datasets.registry)
    domains = [
        "biology",
        "earth-science",
        "economics",
        "psychology",
        "robotics",
        "stackoverflow",
        "sustainable-living",
        "leetcode",
        "pony",
        "aops",
        "theoremqa-theorems",
        "theoremqa-questions",
    ]
    long_domains = domains[:7] + ["pony"]
    expected = {f"bright/{d}" for d in domains} | {f"bright/{d}-long" for d in long_domains}
    expected |= {f"{base}/{m}-reason" for base in set(expected) for m in MODELS}
    assert expected <= ids
    assert "bright/leetcode-long" not in ids
    assert all(ir_bright.registry.is_ours(i) for i in expected)


def test_register_again_is_harmless_and_keeps_the_same_objects():
    before = ir_datasets.registry._registered["bright/biology"]
    assert ir_bright.register() == []
    assert ir_datasets.registry._registered["bright/biology"] is before


def test_replacing_core_entries_logs_one_info_line(caplog):
    ir_datasets.registry._registered["bright/pony"] = object()  # as if the core re-registered it
    with caplog.at_level(logging.INFO, logger="ir_bright"):
        ir_bright.register()
    lines = [r for r in caplog.records if "replaced" in r.getMessage()]
    assert len(lines) == 1 and lines[0].levelno == logging.INFO
    assert "bright/pony" in lines[0].getMessage()
    assert ir_bright.registry.is_ours("bright/pony")


def test_short_qrels_are_gold_ones_and_excluded_minus_100(bright):
    rows = bright.rows["aops"]["examples"]
    qrels = qrels_of("bright/aops")
    expected = {pair: 1 for pair in gold_pairs(rows)}
    expected.update({pair: -100 for pair in excluded_pairs(rows)})
    assert qrels == expected


def test_long_qrels_are_the_long_gold_ids(bright):
    # ir_datasets 0.6.x yields the short gold_ids here, none of which is in the long corpus.
    rows = bright.rows["biology"]["examples"]
    qrels = qrels_of("bright/biology-long")
    assert qrels == {pair: 1 for pair in gold_pairs(rows, "gold_ids_long")}
    long_ids = {d.doc_id for d in ir_datasets.load("bright/biology-long").docs_iter()}
    assert {doc for _, doc in qrels} <= long_ids


def test_na_exclusions_are_skipped_and_empty_lists_give_no_exclusions(bright):
    assert set(qrels_of("bright/biology").values()) == {1}
    assert qrels_of("bright/theoremqa-theorems") == {
        ("TheoremQA_jianyu_xu/pigeonhole_3.json", "TheoremQA_jianyu_xu/pigeonhole_1.json"): 1
    }


def test_duplicate_gold_and_excluded_rows_appear_once(bright):
    qrels = list(ir_datasets.load("bright/theoremqa-questions").qrels_iter())
    pairs = [(q.query_id, q.doc_id) for q in qrels]
    assert len(pairs) == len(set(pairs)) == 3  # camel_4 twice in gold_ids, camel_5, one excluded
    aops = [(q.query_id, q.doc_id) for q in ir_datasets.load("bright/aops").qrels_iter()]
    assert aops.count(("aops_2019_AMC_12A_Problems/Problem_1", "camel_7")) == 1


def test_query_records_keep_the_core_fields_with_llm_reasoning(bright):
    # The core fills these five fields with the human rationale of the *_reason configs.
    rows = bright.rows["biology"]["examples"]
    queries = list(ir_datasets.load("bright/biology").queries_iter())
    assert queries[0]._fields == (
        "query_id",
        "text",
        "reasoning",
        "gold_answer",
        "gemini_1_0_reason",
        "claude_3_opus_reason",
        "gpt4_reason",
        "grit_reason",
        "llama3_70b_reason",
    )
    assert [(q.query_id, q.text, q.reasoning, q.gold_answer) for q in queries] == [
        (r["id"], r["query"], r["reasoning"], r["gold_answer"]) for r in rows
    ]
    first = queries[0]
    assert first.gpt4_reason == llm_text("gpt4", "0")
    assert first.claude_3_opus_reason == llm_text("claude-3-opus", "0")
    assert first.llama3_70b_reason == llm_text("llama3-70b", "0")
    assert first.gemini_1_0_reason == llm_text("gemini-1.0", "0")
    assert first.grit_reason == llm_text("grit", "0")


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("base", ["bright/biology", "bright/biology-long", "bright/aops"])
def test_reasoning_variants_use_the_llm_text_as_query(bright, base, model):
    variant = ir_datasets.load(f"{base}/{model}-reason")
    split = "aops" if "aops" in base else "biology"
    rows = bright.rows[split]["examples"]
    queries = list(variant.queries_iter())
    assert [(q.query_id, q.text, q.original_text) for q in queries] == [
        (r["id"], llm_text(model, r["id"]), r["query"]) for r in rows
    ]
    assert qrels_of(f"{base}/{model}-reason") == qrels_of(base)
    assert variant.docs_namespace() == ir_datasets.load(base).docs_namespace()


def test_reasoning_variant_fetches_examples_and_its_one_reason_file(bright):
    list(ir_datasets.load("bright/biology/claude-3-opus-reason").queries_iter())
    assert sorted(bright.requests) == sorted(
        [repo_path("examples", "biology"), repo_path("claude-3-opus_reason", "biology")]
    )


def test_each_access_fetches_only_what_it_needs(bright):
    dataset = ir_datasets.load("bright/biology")
    list(dataset.qrels_iter())
    assert bright.requests == [repo_path("examples", "biology")]
    list(dataset.docs_iter())
    assert bright.requests[1:] == [repo_path("documents", "biology")]


def test_counts_and_documentation_are_known_without_downloading(bright):
    dataset = ir_datasets.load("bright/biology-long/gpt4-reason")
    assert dataset.docs_count() == 524 and dataset.queries_count() == 103
    assert dataset.qrels_count() == 134
    assert ir_datasets.load("bright/aops").qrels_count() == 524 + 622653
    assert ir_datasets.load("bright/theoremqa-questions").qrels_count() == 439 + 606523
    doc = dataset.documentation()
    assert doc["official_measures"] == ["R@1"]
    assert ir_datasets.load("bright/biology").documentation()["official_measures"] == ["nDCG@10"]
    assert "Su" in doc["bibtex"] and doc["pretty_name"] and doc["desc"]
    assert bright.requests == []


def test_docs_iter_and_store_serve_ids_with_slashes(bright):
    docs = bright.rows["biology"]["documents"]
    dataset = ir_datasets.load("bright/biology")
    assert [(d.doc_id, d.text) for d in dataset.docs_iter()] == list(docs.items())
    store = dataset.docs_store()
    doc_id = "insects_light/Phototaxis_3.txt"
    assert store.get(doc_id).text == docs[doc_id]
    assert store.get_many([doc_id, "missing"]) == {doc_id: (doc_id, docs[doc_id])}
    with pytest.raises(KeyError):
        store.get("missing")
    # once the store is built, docs_iter reads it; slicing works like ir_datasets'
    assert [(d.doc_id, d.text) for d in dataset.docs_iter()] == list(docs.items())
    assert [d.doc_id for d in dataset.docs_iter()[2:5]] == list(docs)[2:5]
    assert dataset.docs_iter()[-1].doc_id == list(docs)[-1]


def test_bulk_access_gives_arrow_and_pandas_batches(bright):
    docs = bright.rows["biology"]["documents"]
    dataset = ir_datasets.load("bright/biology")
    batches = list(dataset.docs_arrow(batch_size=4))
    assert [b.num_rows for b in batches] == [4, 4, 2]
    assert batches[0].schema.names == ["doc_id", "text"]
    frames = list(dataset.docs_dataframes(batch_size=100))
    assert frames[0]["doc_id"].tolist() == list(docs)


def test_aops_and_theoremqa_questions_share_one_download_when_verified(bright, monkeypatch):
    # The two corpora are pinned to one md5; with verification on, one file serves both.
    monkeypatch.delenv("IR_BRIGHT_VERIFY")
    monkeypatch.setattr(transfer, "verify", lambda *args: None)  # as if it matched the pins
    monkeypatch.setattr(hub.HubFile, "pins", lambda self: (None, None))
    aops = {d.doc_id for d in ir_datasets.load("bright/aops").docs_iter()}
    theorem = {d.doc_id for d in ir_datasets.load("bright/theoremqa-questions").docs_iter()}
    assert aops == theorem
    assert bright.downloads("-00000-of-00001.parquet") == [repo_path("documents", "aops")]
    assert (
        ir_datasets.load("bright/aops").docs_namespace()
        == ir_datasets.load("bright/theoremqa-questions").docs_namespace()
    )


def test_an_unverified_mirror_gets_each_corpus_from_its_own_path(bright, hub_root):
    # With IR_BRIGHT_VERIFY=0 nothing proves the mirror's two files identical.
    mirror_only = bright_hub.REPO + "/" + repo_path("documents", "theoremqa_questions")
    bright_hub._write(
        hub_root, "documents", "theoremqa_questions", bright_hub._docs_table({"only": "here"})
    )
    assert (hub_root / mirror_only).is_file()
    docs = [d.doc_id for d in ir_datasets.load("bright/theoremqa-questions").docs_iter()]
    assert docs == ["only"]
    assert len(list(ir_datasets.load("bright/aops").docs_iter())) == 16


def test_core_downloads_are_reused(bright, isolated_home):
    # ir_datasets' own loader caches examples/biology as bright/biology.queries.parquet.
    source = bright.root / bright_hub.REPO / repo_path("examples", "biology")
    (isolated_home / "bright").mkdir()
    (isolated_home / "bright" / "biology.queries.parquet").write_bytes(source.read_bytes())
    assert len(list(ir_datasets.load("bright/biology").qrels_iter())) == 3
    assert bright.requests == []


def test_cached_files_are_used_offline_without_any_request(bright, monkeypatch):
    expected = qrels_of("bright/biology")
    bright.requests.clear()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    assert qrels_of("bright/biology") == expected
    assert bright.requests == []


def test_offline_without_the_file_fails_at_once_naming_it(bright, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OfflineError) as error:
        list(ir_datasets.load("bright/pony").docs_iter())
    message = str(error.value)
    assert "pony.docs.parquet" in message and "ir-bright download" in message
    assert "unset HF_HUB_OFFLINE" in message
    assert "\n" not in message
    assert bright.requests == []


def test_unreachable_hub_fails_with_one_line(monkeypatch):
    with pytest.raises(OfflineError) as error:
        list(ir_datasets.load("bright/pony").qrels_iter())
    assert "127.0.0.1:9" in str(error.value) and "\n" not in str(error.value)


def test_offline_queries_leave_uncached_llm_fields_empty(bright, monkeypatch, caplog):
    list(ir_datasets.load("bright/biology").qrels_iter())  # caches examples only
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with caplog.at_level(logging.WARNING):
        queries = list(ir_datasets.load("bright/biology").queries_iter())
    assert queries[0].text == bright.rows["biology"]["examples"][0]["query"]
    assert queries[0].gpt4_reason is None
    assert any("gpt4" in r.getMessage() for r in caplog.records)


def test_ir_datasets_home_isolates_the_cache(bright, tmp_path, monkeypatch):
    list(ir_datasets.load("bright/biology").qrels_iter())
    first_home = tmp_path / "ir_datasets_home"
    assert (first_home / "bright" / "ir_bright" / "biology.queries.parquet").is_file()
    other = tmp_path / "other_home"
    monkeypatch.setenv("IR_DATASETS_HOME", str(other))
    list(ir_datasets.load("bright/biology").qrels_iter())
    assert (other / "bright" / "ir_bright" / "biology.queries.parquet").is_file()
    assert bright.requests.count(repo_path("examples", "biology")) == 2


def test_hub_files_list_what_each_dataset_reads():
    base = {f.path for f in ir_datasets.load("bright/biology").hub_files()}
    assert base == {
        repo_path("examples", "biology"),
        repo_path("documents", "biology"),
        *(repo_path(config, "biology") for config in REASON_CONFIGS.values()),
    }
    variant = {f.path for f in ir_datasets.load("bright/pony-long/grit-reason").hub_files()}
    assert variant == {
        repo_path("examples", "pony"),
        repo_path("long_documents", "pony"),
        repo_path("grit_reason", "pony"),
    }


def test_counts_come_from_the_cached_files_once_they_are_there(bright):
    rows = bright.rows["aops"]
    dataset = ir_datasets.load("bright/aops")
    list(dataset.qrels_iter())
    list(dataset.docs_iter())
    assert dataset.queries_count() == len(rows["examples"])
    assert dataset.docs_count() == len(rows["documents"])
    expected_qrels = gold_pairs(rows["examples"]) | excluded_pairs(rows["examples"])
    assert dataset.qrels_count() == len(expected_qrels)


def test_an_unreadable_cached_file_is_named_and_kept(bright, isolated_home):
    cached = isolated_home / "bright" / "biology.queries.parquet"
    cached.parent.mkdir()
    cached.write_bytes(b"PAR1 this is not parquet")
    with pytest.raises(ir_bright.errors.CacheError) as error:
        list(ir_datasets.load("bright/biology").qrels_iter())
    message = str(error.value)
    assert str(cached) in message and "delete it" in message and "\n" not in message
    assert cached.read_bytes() == b"PAR1 this is not parquet"  # never deleted behind your back
    assert bright.requests == []


def test_a_cached_file_without_the_expected_columns_is_named(bright, isolated_home):
    cached = isolated_home / "bright" / "pony.docs.parquet"
    cached.parent.mkdir()
    pq.write_table(pa.table({"doc": ["a"]}), cached)
    with pytest.raises(ir_bright.errors.CacheError, match="no column id, content"):
        list(ir_datasets.load("bright/pony").docs_iter())
