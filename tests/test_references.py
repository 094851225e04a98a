"""``ir-bright references``: every published row ir_bright holds, with its source, and
``report --reference`` / ``--check`` on any of them.

The expected figures are read by hand from the BRIGHT leaderboard
(https://github.com/brightbenchmark/brightbenchmark.github.io at commit
3f9fe1eab1faa7c5d8c4c6e7207518a61b0320b0: leaderboard_scores/main.py's ``scores`` and dated
rows, leaderboard_scores/long.py's ``scores``) and the BRIGHT paper's GPT-4 reasoning table.
"""

from __future__ import annotations

import csv
import io
import json

import pytest

from tests.fixtures import bright_hub as bright_fixture
from tests.test_group_averages import DOMAINS, HALF, write_system
from tests.test_startup import HEAVY, imported_by

REASONING = ("gpt4", "llama3-70b", "claude-3-opus", "gemini-1.0", "grit")
# the paper's 13 retrievers, by the leaderboard's keys
RETRIEVERS = "bm25 bge inst-l sbert e5 sfr inst-xl grit qwen cohere openai voyage google".split()
LEADERBOARD = "https://github.com/brightbenchmark/brightbenchmark.github.io"


@pytest.fixture
def records(cli):
    """``references --format json`` by (benchmark, name)."""
    status, out, err = cli("references", "--format", "json")
    assert status == 0, err
    return {(r["benchmark"], r["name"]): r for r in json.loads(out)}


def paper_rows(records, benchmark, suffix=""):
    return {
        name: row
        for (bench, name), row in records.items()
        if bench == benchmark
        and name.startswith("paper-")
        and row["setting"] != "rerank"
        and name.removeprefix("paper-").removesuffix(suffix) in RETRIEVERS
    }


def test_the_papers_13_retrievers_on_original_reasoning_and_long_queries(records):
    sets = {"bright": ("", "original"), "bright-long": ("", "original")}
    sets |= {f"bright-{m}-reason": (f"-{m}-reason", f"{m}-reasoning") for m in REASONING}
    for benchmark, (suffix, setting) in sets.items():
        rows = paper_rows(records, benchmark, suffix)
        assert sorted(rows) == sorted(f"paper-{r}{suffix}" for r in RETRIEVERS), benchmark
        for row in rows.values():
            assert row["setting"] == setting and row["date"] == "2024-07-11"
            assert isinstance(row["average"], float) and LEADERBOARD in row["source"]
            assert "3f9fe1eab1faa7c5d8c4c6e7207518a61b0320b0" in row["source"]


def test_the_published_averages(records):
    expected = {
        ("bright", "paper-qwen"): 22.5,
        ("bright", "paper-grit"): 21.0,
        ("bright-gpt4-reason", "paper-bm25-gpt4-reason"): 27.0,
        ("bright-llama3-70b-reason", "paper-inst-xl-llama3-70b-reason"): 26.3,
        ("bright-grit-reason", "paper-sbert-grit-reason"): 13.9,
        ("bright-long", "paper-qwen"): 27.8,
        ("bright-long", "leaderboard-mira-reasoning-retrieval"): 56.0,
        ("bright", "leaderboard-rader-qwen-rerank"): 39.2,
        ("bright", "leaderboard-mira-reasoning-retrieval"): 66.9,
    }
    assert {key: records[key]["average"] for key in expected} == expected
    assert records[("bright-long", "paper-qwen")]["measure"] == "R@1"
    assert records[("bright", "paper-qwen")]["values"] is None  # the leaderboard: averages only


def test_a_dated_submission_and_a_reranking_row(records):
    row = records[("bright", "leaderboard-reasonrank")]
    assert (row["average"], row["date"], row["setting"]) == (40.8, "2025-08-09", "rerank")
    assert row["values"] is None and "leaderboard_scores/main.py" in row["source"]
    rerank = records[("bright", "paper-bm25-rerank-gpt4-top100")]
    assert rerank["average"] == 17.0
    assert (rerank["first_stage"], rerank["reranker"], rerank["depth"]) == ("BM25", "GPT-4", 100)


def test_a_row_the_paper_publishes_per_domain_keeps_its_values_and_gains_the_leaderboards_keys(
    records,
):
    row = records[("bright-gpt4-reason", "paper-bm25-gpt4-reason")]
    assert row["values"]["Bio"] == 53.6 and row["values"]["TheoT"] == 20.8  # the paper's table
    assert row["setting"] == "gpt4-reasoning" and row["date"] == "2024-07-11"
    assert "arXiv 2407.12883" in row["source"] and LEADERBOARD in row["source"]
    bm25 = records[("bright", "paper-bm25")]
    assert bm25["values"]["Leet"] == 24.4 and bm25["average"] == 14.5
    assert records[("bright", "pyserini-bm25-query-side")]["average"] == 14.79
    assert records[("mm-bright-task1", "paper-diver")]["average"] == 32.2


def test_json_keys(records):
    keys = {"benchmark", "name", "label", "setting", "date", "average", "values", "source"}
    for row in records.values():
        assert keys <= set(row), row["name"]


def test_csv_and_markdown_of_one_benchmark(cli):
    status, out, err = cli("references", "--benchmark", "bright-long", "--format", "csv")
    assert status == 0, err
    header, *rows = csv.reader(io.StringIO(out))
    assert header == [
        "benchmark",
        "name",
        "label",
        "setting",
        "date",
        "revision",
        "measure",
        "source",
        "Avg",
    ]
    assert len(rows) == 17 and {r[0] for r in rows} == {"bright-long"}  # 13 paper rows + 4
    qwen = next(r for r in rows if r[1] == "paper-qwen")
    assert (qwen[3], qwen[4], qwen[5], qwen[6], qwen[8]) == (
        "original",
        "2024-07-11",
        "a75a0eb",
        "R@1",
        "27.8",
    )
    status, out, _ = cli("references", "-b", "bright")
    lines = out.splitlines()
    assert status == 0 and lines[0].startswith("| benchmark | name |")
    reasonrank = next(line for line in lines if "| leaderboard-reasonrank |" in line)
    assert "rerank (first stage RaDeR, reranker ReasonRank)" in reasonrank
    assert reasonrank.endswith("| 40.8 |")


def test_an_unknown_benchmark_is_one_line_and_status_2(cli):
    status, out, err = cli("references", "--benchmark", "bright-short")
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "bright-short" in err and "bright-long" in err


def test_help_imports_neither_ir_datasets_nor_numpy():
    status, names = imported_by("references", "--help")
    assert status == 0 and "ir_bright.results.references" in names  # the parser ran
    assert [n for n in names if n.split(".")[0] in ("ir_datasets", *HEAVY)] == []


@pytest.fixture
def twelve(bright_hub):
    return bright_hub({d.replace("-", "_"): bright_fixture.biology for d in DOMAINS})


@pytest.mark.usefixtures("twelve")
def test_report_places_a_system_beside_a_leaderboard_row(tmp_path, cli):
    # every domain ranked HALF: nDCG@10 (0 + 1) / 2 = 50.0
    folder = write_system(tmp_path / "mine", dict.fromkeys(DOMAINS, HALF))
    status, out, err = cli(
        "report",
        folder,
        "-b",
        "bright",
        "--format",
        "csv",
        "--reference",
        "paper-qwen,leaderboard-reasonrank",
    )
    assert status == 0, err
    header, ours, qwen, reasonrank = csv.reader(io.StringIO(out))
    assert header[:2] == ["system", "Setting"] and ours[-1] == "50.0"
    assert qwen == ["paper, gte-Qwen1.5-7B-instruct", "original", *["-"] * 15, "22.5"]
    assert reasonrank[1:] == [
        "rerank (first stage RaDeR, reranker ReasonRank)",
        *["-"] * 15,
        "40.8",
    ]


@pytest.mark.usefixtures("twelve")
def test_check_against_a_leaderboard_row_checks_its_average_only(tmp_path, cli):
    folder = write_system(tmp_path / "mine", dict.fromkeys(DOMAINS, HALF))
    status, out, err = cli(
        "report", folder, "-b", "bright", "--format", "csv", "--check", "leaderboard-reasonrank"
    )
    assert status == 1, err  # 50.0 is not the published 40.8
    _, ours = csv.reader(io.StringIO(out))
    assert ours[-1] == "50.0 (40.8 FAIL +9.2)"
    assert all("(" not in cell for cell in ours[1:-1])  # no domain is checked


def test_the_library_refuses_an_unknown_benchmark_by_name():
    from ir_bright.results.errors import ReportError
    from ir_bright.results.references import listing

    with pytest.raises(ReportError, match="'bright-short'.*choose one of bright, "):
        listing("bright-short")


def test_every_row_names_a_source_a_reader_can_follow(records):
    for row in records.values():
        source = row["source"]
        assert source and "SPEC" not in source
        assert ".md" not in source or " at commit " in source  # a public file at a commit
        assert row["average"] is not None or row["values"], row["name"]
