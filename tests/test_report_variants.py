"""``ir-bright report`` on every id family: reasoning-query benchmarks, runs found by name,
the benchmark read from the runs, and runs of another benchmark named instead of skipped."""

from __future__ import annotations

import json
import logging
import math

import pytest

from ir_bright.cli import main
from ir_bright.results import benchmarks, references, systems
from tests.fixtures import bright_hub
from tests.helpers import write_run

MODELS = ("gpt4", "claude-3-opus", "llama3-70b", "gemini-1.0", "grit")
BIOLOGY = {"biology": bright_hub.biology}
GOLD = {"0": "insects_light/Phototaxis_0.txt", "1": "bird_song/Birdsong_2.txt"}  # fixture


@pytest.fixture
def bright(bright_hub):
    return bright_hub(BIOLOGY)


@pytest.mark.parametrize("model", MODELS)
def test_each_model_has_a_12_domain_reasoning_benchmark_over_its_reason_ids(model):
    base, bench = benchmarks.benchmark("bright"), benchmarks.benchmark(f"bright-{model}-reason")
    assert bench.ids == tuple(f"{i}/{model}-reason" for i in base.ids)
    assert bench.labels == base.labels and bench.measure == "nDCG@10"


def test_gpt4_reasoning_benchmark_has_the_papers_gpt4_row():
    bench = benchmarks.benchmark("bright-gpt4-reason")
    (row,) = references.reference_rows(["paper-bm25-gpt4-reason"], bench, "nDCG@10")
    assert row.values["bright/biology/gpt4-reason"] == pytest.approx(0.536)
    assert row.average == pytest.approx(0.27)


def test_a_folder_of_reasoning_runs_is_reported_without_naming_the_benchmark(
    bright, tmp_path, capsys
):
    # biology: query 0's gold at rank 2, query 1's at rank 1
    ranking = {"0": ["bird_song/Birdsong_1.txt", GOLD["0"]], "1": [GOLD["1"]]}
    write_run(tmp_path / "gpt4" / "bright__biology__gpt4-reason.trec", ranking)
    argv = ["report", str(tmp_path / "gpt4"), "--format", "json", "--reference"]
    assert main([*argv, "paper-bm25-gpt4-reason"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert table["benchmark"] == "bright-gpt4-reason"
    ours = table["rows"][0]
    gold0 = len(bright_hub.biology()["examples"][0]["gold_ids"])
    gold1 = len(bright_hub.biology()["examples"][1]["gold_ids"])
    ideal = lambda n: sum(1 / math.log2(i + 2) for i in range(min(n, 10)))  # noqa: E731
    expected = ((1 / math.log2(3)) / ideal(gold0) + 1 / ideal(gold1)) / 2
    assert ours["system"] == "gpt4"
    assert ours["values"]["bright/biology/gpt4-reason"] == pytest.approx(expected)
    assert table["rows"][1]["system"] == "paper, BM25 on GPT-4 reasoning queries"


def test_runs_of_other_benchmarks_in_a_folder_are_named_not_silently_skipped(
    bright, tmp_path, capsys, caplog
):
    folder = tmp_path / "mixed"
    write_run(folder / "bright__biology.trec", {"0": [GOLD["0"]]})
    write_run(folder / "bright__biology__gpt4-reason.trec", {"0": [GOLD["0"]]})
    write_run(folder / "bright__biology-long.trec", {"0": ["insects_light/Phototaxis.txt"]})
    with caplog.at_level(logging.WARNING):
        assert main(["report", str(folder), "--benchmark", "bright", "--format", "json"]) == 0
    assert "bright-gpt4-reason: 1" in caplog.text and "bright-long: 1" in caplog.text
    capsys.readouterr()
    assert main(["report", str(folder)]) == 2  # several benchmarks: asks which
    err = capsys.readouterr().err
    assert "several benchmarks" in err and "bright-gpt4-reason" in err and "--benchmark" in err


def test_a_reasoning_run_passed_directly_names_its_benchmark(bright, tmp_path, capsys):
    run = write_run(tmp_path / "bright__biology__gpt4-reason.trec", {"0": [GOLD["0"]]})
    assert main(["report", str(run), "--benchmark", "bright"]) == 2
    assert "--benchmark bright-gpt4-reason" in capsys.readouterr().err
    assert main(["report", str(run), "--format", "json"]) == 0  # the benchmark is read from it
    assert json.loads(capsys.readouterr().out)["benchmark"] == "bright-gpt4-reason"


@pytest.mark.parametrize(
    "dataset_id,expected",
    [
        ("bright/biology-long", "bright-long"),
        ("mm-bright/academia/task1", "mm-bright-task1"),
        ("mm-bright/academia/task4-legacy", "mm-bright-task4-legacy"),
        ("bright/pony/grit-reason", "bright-grit-reason"),
    ],
)
def test_the_benchmark_is_read_from_run_names_of_every_family(tmp_path, dataset_id, expected):
    folder = tmp_path / "runs"
    write_run(folder / benchmarks.filename_for(dataset_id), {"q": ["d"]})
    assert systems.infer_benchmark([str(folder)]).name == expected
