"""bright-pro/* datasets from a loopback hub served with the listing API."""

from __future__ import annotations

import json
import logging
import math
import os

import ir_datasets
import ir_measures
import pytest
from ir_measures import Qrel, ScoredDoc, nDCG

import ir_bright
from ir_bright.errors import ChecksumError, DownloadError, OfflineError
from ir_bright.families import family
from ir_bright.families.brightpro.records import BrightProQrel
from ir_bright.measures import A_Recall, wAlpha_nDCG
from tests.fixtures.brightpro_hub import write_brightpro
from tests.helpers import write_run
from tests.test_aspect_measures import reference_a_recall, reference_alpha_ndcg


@pytest.fixture
def pro(hub, hub_root):
    """The fixture BRIGHT-Pro's rows, served by the loopback hub."""
    return write_brightpro(hub_root)


def test_biology_qrels_carry_the_official_aspect_of_each_doc(pro):
    # bio/0.txt is listed by biology-3-a1 and then by biology-4-aspect-1: the last one wins,
    # for query 3 too; bio/3.txt is listed by a query-3 aspect without being gold there: 0
    expected = [
        BrightProQrel("3", "bio/0.txt", 1, "0", "biology-4-aspect-1", 0.5),
        BrightProQrel("3", "bio/1.txt", 1, "0", "biology-3-a1", 0.75),
        BrightProQrel("3", "bio/2.txt", 1, "0", "biology-3-a2", 0.25),
        BrightProQrel("3", "bio/3.txt", 0, "0", "biology-4-aspect-1", 0.5),
        BrightProQrel("4", "bio/3.txt", 1, "0", "biology-4-aspect-1", 0.5),
        BrightProQrel("4", "bio/0.txt", 1, "0", "biology-4-aspect-1", 0.5),
        BrightProQrel("4", "bio/4.txt", 1, "0", "", 0.0),
    ]
    assert list(ir_datasets.load("bright-pro/biology").qrels_iter()) == expected


def test_queries_have_string_ids_and_reference_answers(pro):
    queries = list(ir_datasets.load("bright-pro/biology").queries_iter())
    assert [(q.query_id, q.text, q.reference_answer) for q in queries] == [
        (str(row["id"]), row["query"], row["reference_answer"])
        for row in pro["biology"]["examples"]
    ]
    earth = list(ir_datasets.load("bright-pro/earth-science").queries_iter())
    assert [(q.query_id, q.reference_answer) for q in earth] == [("0", None)]


@pytest.mark.parametrize(
    "dataset_id, split",
    [
        ("bright-pro/biology", "biology"),  # two parquet shards
        ("bright-pro/earth-science", "earth_science"),  # JSON list of rows
        ("bright-pro/economics", "economics"),  # JSON Lines
    ],
)
def test_docs_are_read_from_every_format(pro, dataset_id, split):
    dataset = ir_datasets.load(dataset_id)
    expected = [(row["id"], row["content"]) for row in pro[split]["documents"]]
    assert [(d.doc_id, d.text) for d in dataset.docs_iter()] == expected
    assert dataset.docs_count() == len(expected)
    last_id, last_text = expected[-1]
    assert dataset.docs_store().get(last_id).text == last_text
    # examples not fetched yet: the declared count (the real hub's, not the fixture's)
    assert dataset.queries_count() == family("bright-pro").domains[split].counts["queries"]
    assert len(list(dataset.queries_iter())) == dataset.queries_count()
    assert dataset.queries_count() == len(pro[split]["examples"])


def test_aspects_are_available_with_raw_and_normalised_weights(pro):
    aspects = list(ir_datasets.load("bright-pro/biology").aspects_iter())
    assert [(a.aspect_id, a.query_id, a.weight, a.normalised_weight) for a in aspects] == [
        ("biology-3-a1", "3", 3.0, 0.75),
        ("biology-3-a2", "3", 1.0, 0.25),
        ("biology-4-aspect-1", "4", 2.0, 0.5),
        ("biology-4-aspect-2", "4", 2.0, 0.5),
    ]
    assert aspects[2].supporting_docs == ("bio/3.txt", "bio/0.txt")
    assert aspects[0].text == "text of biology-3-a1"


def test_agentic_subset_keeps_the_listed_queries_only(pro):
    dataset = ir_datasets.load("bright-pro/biology/agentic")
    assert [q.query_id for q in dataset.queries_iter()] == ["3", "4"]  # 5 is not in the list
    assert {q.query_id for q in dataset.qrels_iter()} == {"3", "4"}
    assert {a.query_id for a in dataset.aspects_iter()} == {"3", "4"}
    assert len(list(dataset.docs_iter())) == dataset.docs_count() == 12


def test_agentic_subset_is_the_official_list():
    from ir_bright.families import family

    tasks = {key: d.agentic_queries for key, d in family("bright-pro").domains.items()}
    assert {task: len(ids) for task, ids in tasks.items()} == {
        "biology": 25,
        "earth_science": 25,
        "economics": 25,
        "psychology": 25,
        "robotics": 25,
        "stackoverflow": 25,
        "sustainable_living": 25,
    }


def scores_of(pro):
    """A run over biology with ties; query 5 (no gold) ranked too."""
    docs = [row["id"] for row in pro["biology"]["documents"]]
    return {
        "3": {d: float(len(docs) - i) for i, d in enumerate(reversed(docs))},
        "4": {d: float(i % 3) for i, d in enumerate(docs)},
        "5": {docs[0]: 1.0},
    }


def test_official_measures_equal_the_official_scripts(pro, tmp_path):
    scores = scores_of(pro)
    rows = pro["biology"]
    expected_alpha = reference_alpha_ndcg(scores, rows["examples"], rows["aspects"], 0.5, 25)
    expected_recall = reference_a_recall(scores, rows["examples"], rows["aspects"], 25)
    gold = [
        Qrel(str(e["id"]), g, 1) for e in rows["examples"] for g in e["gold_ids"]
    ]  # pytrec_eval's nDCG@10 over gold ids, mean over the queries it returns
    run = [ScoredDoc(q, d, s) for q, docs in scores.items() for d, s in docs.items()]
    expected_ndcg = ir_measures.calc_aggregate([nDCG @ 10], gold, run)[nDCG @ 10]
    assert ir_bright.evaluate(run, "bright-pro/biology") == pytest.approx(
        {
            "wAlpha_nDCG@25": expected_alpha,
            "A_Recall@25": expected_recall,
            "nDCG@10": expected_ndcg,
        },
        abs=1e-9,
    )
    qrels = ir_datasets.load("bright-pro/biology").qrels_iter()
    values = ir_measures.calc_aggregate([wAlpha_nDCG @ 25, A_Recall @ 25, nDCG @ 10], qrels, run)
    assert values[wAlpha_nDCG @ 25] == pytest.approx(expected_alpha, abs=1e-9)
    assert values[A_Recall @ 25] == pytest.approx(expected_recall, abs=1e-9)
    assert values[nDCG @ 10] == pytest.approx(expected_ndcg, abs=1e-9)
    assert 0 < expected_alpha < 1 and 0 < expected_recall <= 1


def test_files_are_verified_by_the_listing_sha256(pro, hub, isolated_home):
    hub.corrupt.add("aspects/biology-00000-of-00001.parquet")
    with pytest.raises(ChecksumError, match="listing"):
        list(ir_datasets.load("bright-pro/biology").qrels_iter())
    assert not list(isolated_home.rglob("biology-00000-of-00001.parquet"))


def test_listing_pages_are_followed_and_cached(pro, hub):
    hub.listing_page = 1  # one entry per page: every page must be read
    assert len(list(ir_datasets.load("bright-pro/economics").docs_iter())) == 4
    listings = hub.downloads("documents")
    assert listings.count("api:documents") == 4  # 4 files in the folder, 4 pages
    list(ir_datasets.load("bright-pro/earth-science").docs_iter())
    assert hub.requests.count("api:documents") == 4  # the cached listing serves earth science


def test_a_busy_or_throttling_listing_is_asked_again(pro, hub, monkeypatch):
    from ir_bright.hub import http as hub_module

    waits = []
    monkeypatch.setattr(hub_module, "_sleep", waits.append)
    hub.status["api:documents"] = [(503, None), (429, 7)]
    assert len(list(ir_datasets.load("bright-pro/economics").docs_iter())) == 4
    assert hub.requests.count("api:documents") == 3
    assert len(waits) == 2 and waits[1] >= 7  # the second wait honours Retry-After


def test_a_listing_that_stays_busy_is_a_one_line_error_and_nothing_is_cached(
    pro, hub, isolated_home, monkeypatch
):
    monkeypatch.setenv("IR_BRIGHT_HTTP_RETRIES", "2")
    hub.status_always["api:documents"] = (503, None)
    with pytest.raises(DownloadError, match=r"the hub is busy.*gave up after 3 attempt\(s\)"):
        list(ir_datasets.load("bright-pro/economics").docs_iter())
    assert hub.requests.count("api:documents") == 3
    assert not list(isolated_home.rglob("documents.json"))


def test_offline_a_downloaded_domain_needs_no_request_and_another_names_its_file(
    pro, hub, monkeypatch, capsys
):
    from ir_bright.cli import main

    assert main(["download", "bright-pro/economics"]) == 0
    assert "fetched 3 file(s)" in capsys.readouterr().out
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    before = len(hub.requests)
    dataset = ir_datasets.load("bright-pro/economics")
    assert len(list(dataset.qrels_iter())) == 2 and len(list(dataset.docs_iter())) == 4
    assert len(hub.requests) == before
    with pytest.raises(OfflineError, match="biology-00000-of-00002.parquet is not cached"):
        list(ir_datasets.load("bright-pro/biology").docs_iter())


def test_offline_without_a_cached_listing_names_the_listing(pro, hub, monkeypatch, capsys):
    from ir_bright.cli import main

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OfflineError, match="listing .*examples.json is not cached"):
        list(ir_datasets.load("bright-pro/biology").queries_iter())
    assert main(["download", "bright-pro/biology"]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "bright-pro/biology are not all listed" in line and "HF_HUB_OFFLINE is set" in line
    assert "unset HF_HUB_OFFLINE" in line
    assert "ir-bright download" not in line.split(": error: ", 1)[1]
    assert not hub.requests


def test_the_revision_comes_from_ir_bright_revision_as_for_every_repository(
    pro, monkeypatch, isolated_home
):
    monkeypatch.setenv("IR_BRIGHT_REVISION", "xlangai/BRIGHT@main,yale-nlp/Bright-Pro@refs/pr/1")
    list(ir_datasets.load("bright-pro/economics").queries_iter())
    assert (isolated_home / "bright-pro" / "refs%2Fpr%2F1" / "listing" / "examples.json").is_file()


def test_the_former_variable_still_names_the_revision_with_a_warning(
    pro, monkeypatch, isolated_home, caplog
):
    from ir_bright.families.brightpro import source

    source._former_variable_warning.cache_clear()  # said once per process
    monkeypatch.setenv("IR_BRIGHT_PRO_REVISION", "refs/pr/1")
    with caplog.at_level("WARNING"):
        list(ir_datasets.load("bright-pro/economics").queries_iter())
    assert (isolated_home / "bright-pro" / "refs%2Fpr%2F1" / "listing" / "examples.json").is_file()
    assert "IR_BRIGHT_REVISION=yale-nlp/Bright-Pro@refs/pr/1 instead" in caplog.text


def test_list_needs_no_network(pro, hub, capsys):
    from ir_bright.cli import main

    assert main(["list", "bright-pro/", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 14 and not hub.requests
    assert {r["cached"] for r in rows} == {"no"}


def test_cli_evaluate_uses_the_official_measures(pro, tmp_path, capsys):
    from ir_bright.cli import main

    scores = scores_of(pro)
    triples = [(q, d, s) for q, docs in scores.items() for d, s in docs.items()]
    path = write_run(tmp_path / "run.trec", triples)
    assert main(["evaluate", "bright-pro/biology", str(path), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    text = json.dumps(out)
    rows = pro["biology"]
    expected = reference_alpha_ndcg(scores, rows["examples"], rows["aspects"], 0.5, 25)
    assert "wAlpha_nDCG@25" in text and "A_Recall@25" in text
    values = [v for v in _numbers(out)]
    assert any(math.isclose(v, expected, abs_tol=1e-9) for v in values)


def _numbers(value):
    if isinstance(value, dict):
        for item in value.values():
            yield from _numbers(item)
    elif isinstance(value, list):
        for item in value:
            yield from _numbers(item)
    elif isinstance(value, float):
        yield value


def test_download_then_list_knows_the_counts(pro, capsys):
    from ir_bright.cli import main

    assert main(["download", "bright-pro/biology"]) == 0
    capsys.readouterr()
    assert main(["list", "bright-pro/biology", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["id"], r["docs"], r["queries"], r["qrels"], r["cached"]) for r in rows] == [
        ("bright-pro/biology", 12, 3, 7, "yes"),
        ("bright-pro/biology/agentic", 12, 2, 7, "yes"),
    ]


def test_export_gives_plain_trec_qrels_and_jsonl_with_the_aspects(pro, capsys):
    from ir_bright.cli import main

    assert main(["export", "bright-pro/economics", "qrels"]) == 0
    assert capsys.readouterr().out.splitlines() == ["7 0 econ/0.txt 1", "7 0 econ/2.txt 1"]
    assert main(["export", "bright-pro/economics", "qrels", "--format", "jsonl"]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["aspect_id"] == "economics-7-a1" and first["aspect_weight"] == 0.5


def test_report_tabulates_the_bright_pro_benchmark(pro, tmp_path, capsys):
    from ir_bright.cli import main

    scores = scores_of(pro)
    folder = tmp_path / "runs" / "mine"
    folder.mkdir(parents=True)
    lines = [f"{q} Q0 {d} 1 {s} t" for q, docs in scores.items() for d, s in docs.items()]
    (folder / "bright-pro__biology.trec").write_text("\n".join(lines) + "\n")
    assert (
        main(["report", str(tmp_path / "runs"), "--benchmark", "bright-pro", "--format", "json"])
        == 0
    )
    rows = pro["biology"]
    expected = reference_alpha_ndcg(scores, rows["examples"], rows["aspects"], 0.5, 25)
    out = json.loads(capsys.readouterr().out)
    assert out["measure"] == "wAlpha_nDCG@25"
    assert any(math.isclose(v, expected, abs_tol=1e-9) for v in _numbers(out))


@pytest.mark.pyterrier
def test_pt_experiment_scores_aspect_measures_equal_to_hand_values(pro):
    pt = pytest.importorskip("pyterrier")
    import pandas as pd

    dataset = pt.get_dataset("bright:bright-pro/biology")
    qrels = dataset.get_qrels()
    assert {"aspect_id", "aspect_weight"} <= set(qrels.columns)
    run = pd.DataFrame(
        [("3", "bio/0.txt", 2.0), ("3", "bio/5.txt", 1.0), ("4", "bio/3.txt", 1.0)],
        columns=["qid", "docno", "score"],
    )
    table = pt.Experiment([run], dataset.get_topics(), qrels, [wAlpha_nDCG @ 25, A_Recall @ 25])
    # query 3: bio/0.txt (aspect biology-4-aspect-1, 0.5) at rank 1; ideal 0.75, 0.5, 0.25
    ideal_3 = 0.75 + 0.5 / math.log2(3) + 0.25 / 2
    # query 4: bio/3.txt (0.5) at rank 1; ideal: two docs of that aspect
    ideal_4 = 0.5 + 0.25 / math.log2(3)
    expected = (0.5 / ideal_3 + 0.5 / ideal_4) / 2
    assert table["wAlpha_nDCG@25"][0] == pytest.approx(expected, abs=1e-12)
    assert table["A_Recall@25"][0] == pytest.approx((0.5 + 0.5) / 2)


def test_a_split_in_two_formats_is_read_once(pro, hub_root):
    folder = hub_root / "yale-nlp" / "Bright-Pro" / "documents"
    rows = pro["economics"]["documents"]
    (folder / "economics.json").write_text(json.dumps(rows), "utf-8")  # beside economics.jsonl
    docs = list(ir_datasets.load("bright-pro/economics").docs_iter())
    assert [d.doc_id for d in docs] == [row["id"] for row in rows]


def test_shards_named_with_a_fingerprint_are_found(pro, hub_root):
    folder = hub_root / "yale-nlp" / "Bright-Pro" / "aspects"
    shard = folder / "biology-00000-of-00001.parquet"
    shard.rename(folder / "biology-00000-of-00001-0a1b2c3d.parquet")
    aspects = list(ir_datasets.load("bright-pro/biology").aspects_iter())
    assert len(aspects) == len(pro["biology"]["aspects"])


def test_bm25_runs_on_a_bright_pro_corpus(pro, tmp_path, capsys):
    pytest.importorskip("Stemmer")  # the bm25 extra
    from ir_bright.cli import main

    run = tmp_path / "bm25.trec"
    assert main(["bm25", "bright-pro/earth-science", "-o", str(run)]) == 0
    lines = run.read_text().splitlines()
    assert lines and {line.split()[0] for line in lines} == {"0"}
    assert main(["evaluate", "bright-pro/earth-science", str(run), "--format", "json"]) == 0
    values = json.loads(capsys.readouterr().out)[str(run)]
    assert set(values) == {"wAlpha_nDCG@25", "A_Recall@25", "nDCG@10"}


def test_listing_sends_the_token_and_names_it_when_refused(pro, hub, monkeypatch):
    from ir_bright.errors import DownloadError

    hub.token = "secret"
    with pytest.raises(DownloadError, match="HF_TOKEN"):
        list(ir_datasets.load("bright-pro/economics").queries_iter())
    monkeypatch.setenv("HF_TOKEN", "secret")
    assert len(list(ir_datasets.load("bright-pro/economics").queries_iter())) == 1


def test_a_damaged_cached_listing_is_named(pro, isolated_home):
    from ir_bright.errors import CacheError

    list(ir_datasets.load("bright-pro/economics").queries_iter())
    listing = isolated_home / "bright-pro" / "main" / "listing" / "examples.json"
    listing.write_text("[{", "utf-8")
    with pytest.raises(CacheError, match="examples.json"):
        list(ir_datasets.load("bright-pro/economics").queries_iter())


@pytest.mark.parametrize("page", [[{"type": "file", "size": 3}], ["examples/x.json"], {}])
def test_a_listing_that_is_not_a_list_of_files_is_a_one_line_error(
    monkeypatch, isolated_home, page
):
    import requests

    from ir_bright import hub
    from ir_bright.errors import DownloadError

    class Answer:
        status_code, links = 200, {}

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def iter_content(self, size):
            yield json.dumps(page).encode()

    monkeypatch.setattr(requests, "get", lambda *args, **kwargs: Answer())
    cache = isolated_home / "listing.json"
    with pytest.raises(DownloadError, match="did not answer a list of files"):
        hub.list_folder("yale-nlp/Bright-Pro", "main", "examples", cache)
    assert not cache.exists()


def test_a_listed_path_outside_the_config_folder_is_never_fetched(pro, hub, isolated_home):
    from ir_bright.errors import DownloadError

    listing = isolated_home / "bright-pro" / "main" / "listing" / "examples.json"
    listing.parent.mkdir(parents=True)
    outside = "examples/../../../../economics.jsonl"
    listing.write_text(json.dumps([{"path": outside, "size": 10, "sha256": None}]), "utf-8")
    with pytest.raises(DownloadError, match="no file for split economics in examples/"):
        list(ir_datasets.load("bright-pro/economics").queries_iter())
    assert hub.downloads() == []


def test_a_split_missing_from_the_listing_is_named(pro, hub_root):
    from ir_bright.errors import DownloadError

    (hub_root / "yale-nlp" / "Bright-Pro" / "examples" / "economics.jsonl").unlink()
    with pytest.raises(DownloadError, match="no file for split economics in examples/"):
        list(ir_datasets.load("bright-pro/economics").queries_iter())


@pytest.mark.parametrize(
    "config, row, mentions",
    [
        ("examples", {"id": 0, "query": "q"}, "without 'gold_ids'"),
        ("examples", {"query": "q", "gold_ids": ["earth/1.txt"]}, "without 'id'"),
        ("examples", {"id": 0, "query": "q", "gold_ids": "earth/1.txt"}, "'gold_ids' of a row"),
        ("aspects", {"weight": 1, "supporting_docs": ["earth/1.txt"]}, "without 'id'"),
        (
            "aspects",  # a string is not a list of one doc id: its characters are no doc ids
            {"id": "earth_science-0-a1", "weight": 1, "supporting_docs": "earth/1.txt"},
            "'supporting_docs' of a row is str",
        ),
        (
            "aspects",
            {"id": "earth_science-0-a1", "weight": "heavy", "supporting_docs": ["earth/1.txt"]},
            "weight 'heavy', not a number",
        ),
    ],
)
def test_a_row_missing_or_mistyping_a_field_is_a_one_line_error(
    pro, hub_root, tmp_path, capsys, config, row, mentions
):
    from ir_bright.cli import main

    path = hub_root / "yale-nlp" / "Bright-Pro" / config / "earth_science.json"
    path.write_text(json.dumps([row]), "utf-8")
    run = tmp_path / "run.trec"
    run.write_text("0 Q0 earth/1.txt 1 1.0 x\n")
    assert main(["evaluate", "bright-pro/earth-science", str(run)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert mentions in err and "error:" in err and "internal" not in err


def official_cases():
    """Inputs and the official scripts' outputs, committed with the command that made them."""
    from pathlib import Path

    path = Path(__file__).parent / "fixtures" / "brightpro_official.json"
    return json.loads(path.read_text("utf-8"))["cases"]


@pytest.mark.parametrize("case", range(2))
def test_evaluate_equals_the_official_scripts_outputs(hub, hub_root, case):
    data = official_cases()[case]
    for config in ("examples", "documents", "aspects"):
        folder = hub_root / "yale-nlp" / "Bright-Pro" / config
        folder.mkdir(parents=True)
        (folder / "biology.json").write_text(json.dumps(data[config]), "utf-8")
    run = [ScoredDoc(q, d, s) for q, docs in data["scores"].items() for d, s in docs.items()]
    values = ir_bright.evaluate(run, "bright-pro/biology", list(data["official"]))
    assert values == pytest.approx(data["official"], abs=1e-9)


def test_info_summarises_the_official_aspect_map(pro, capsys):
    from ir_bright.cli import main

    assert main(["download", "bright-pro/biology"]) == 0
    capsys.readouterr()
    assert main(["info", "bright-pro/biology", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"] == {
        "queries": 3,
        "queries with gold": 2,
        "gold pairs": 6,
        "gold pairs without aspect": 1,  # bio/4.txt of query 4
        "gold pairs under another query's aspect": 1,  # bio/0.txt of query 3
        "aspect-listed pairs not gold (relevance 0)": 1,  # bio/3.txt for query 3
        "excluded pairs": 0,
        "aspects": 4,
    }


def test_aspect_measures_on_a_dataset_without_aspects_are_a_one_line_error(
    bright, hub_root, capsys
):
    from ir_bright.cli import main

    run = hub_root / "run.trec"
    run.write_text("0 Q0 insects_light/Phototaxis_0.txt 1 1.0 x\n")
    assert main(["evaluate", "bright/biology", str(run), "-m", "A_Recall@25"]) == 2
    assert "need qrels with query_id, doc_id, relevance, aspect_id" in capsys.readouterr().err


def test_compare_pairs_only_the_queries_both_runs_score(pro, caplog):
    pytest.importorskip("scipy")
    from ir_bright.results.paired import compare

    both = [ScoredDoc("3", "bio/0.txt", 2.0), ScoredDoc("4", "bio/9.txt", 1.0)]
    only_3 = [ScoredDoc("3", "bio/1.txt", 2.0)]  # query 4 absent: skipped by wAlpha_nDCG
    frame = compare(both, [only_3], "bright-pro/biology", measures=["wAlpha_nDCG@25"])
    assert "wAlpha_nDCG@25 on bright-pro/biology: 1 of 2 queries left out" in caplog.text
    (row,) = frame.to_dict("records")
    ideal_3 = 0.75 + 0.5 / math.log2(3) + 0.25 / 2
    assert row["mean"] == pytest.approx(0.75 / ideal_3)  # query 3 only, for both runs
    assert row["baseline_mean"] == pytest.approx(0.5 / ideal_3)


def test_a_run_missing_queries_says_which_measures_skip_them(pro, caplog):
    """BRIGHT-Pro's aspect measures skip an unranked query (the official scripts do); nDCG
    counts it as 0: the warning must not claim 0 for the aspect measures."""
    query = next(iter(ir_datasets.load("bright-pro/biology").queries_iter())).query_id
    qrels = [q for q in ir_datasets.load("bright-pro/biology").qrels_iter() if q.relevance > 0]
    run = [ScoredDoc(q.query_id, q.doc_id, 1.0) for q in qrels if q.query_id == query]
    with caplog.at_level(logging.WARNING, logger="ir_bright"):
        ir_bright.evaluate(run, "bright-pro/biology")
    assert "they count as 0, except in wAlpha_nDCG@25, A_Recall@25, which skips them" in (
        caplog.text
    )


def test_a_damaged_or_outdated_rewritten_corpus_is_rewritten_with_a_warning(pro, caplog):
    dataset = ir_datasets.load("bright-pro/economics")
    docs = [tuple(doc) for doc in dataset.docs_iter()]
    rewritten = dataset.docs_path()
    rewritten.write_bytes(rewritten.read_bytes()[:100])  # cut short, as by a full disk
    with caplog.at_level("WARNING"):
        again = ir_datasets.load("bright-pro/economics").docs_path()
    assert "rebuilding" in caplog.text and str(rewritten) in caplog.text
    assert again == rewritten
    assert [tuple(doc) for doc in ir_datasets.load("bright-pro/economics").docs_iter()] == docs
    caplog.clear()
    (source,) = rewritten.parents[3].rglob("documents/ir_bright/economics.jsonl")  # the hub's
    os.utime(source, ns=(1, 1))  # another copy of the hub file
    with caplog.at_level("WARNING"):
        ir_datasets.load("bright-pro/economics").docs_path()
    assert "rewritten from other copies" in caplog.text
