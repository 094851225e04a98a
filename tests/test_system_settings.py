"""A system's setting, as the leaderboard labels its rows: a ``system.json`` beside the runs or
``--setting [SYSTEM=]SETTING`` gives report and compare a Setting column; a malformed file or
flag is a one-line error with exit status 2."""

from __future__ import annotations

import csv
import io
import json
import os

import pytest

from ir_bright.cli import main
from tests.fixtures import bright_hub
from tests.test_hostile_names import cli

GOLD = {"0": "insects_light/Phototaxis_0.txt", "1": "bird_song/Birdsong_2.txt"}  # the fixture's
RUN = f"1 Q0 {GOLD['1']} 1 2 t\n"  # R@1: query 0 none of 2, query 1 its one: (0 + 1) / 2
RERANK = {
    "setting": "rerank",
    "first_stage": "BM25",
    "reranker": "ReasonRank",
    "depth": 100,
    "label": "BM25 + ReasonRank",
}
RERANK_CELL = "rerank (first stage BM25, reranker ReasonRank, depth 100)"


@pytest.fixture
def biology(hub, hub_root, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    bright_hub.write_bright(hub_root, {"biology": bright_hub.biology})


def system(folder, info=None, text=None):
    folder.mkdir(parents=True)
    (folder / "bright__biology.trec").write_text(RUN)
    if info is not None or text is not None:
        (folder / "system.json").write_text(text if text is not None else json.dumps(info))
    return folder


def report(capsys, *argv, fmt="csv"):
    out = cli(capsys, "report", *argv, "-b", "bright", "-m", "R@1", "--format", fmt)
    return out if fmt in ("markdown", "latex") else list(csv.reader(io.StringIO(out)))


def fails(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip() and "WARNING" not in line]
    assert status == 2 and out == "" and len(lines) == 1, err
    return lines[0]


@pytest.mark.usefixtures("biology")
def test_system_json_names_the_row_and_fills_a_setting_column(tmp_path, capsys):
    system(tmp_path / "runs" / "a", RERANK)
    system(tmp_path / "runs" / "b")
    header, *rows = report(capsys, str(tmp_path / "runs"))
    assert header[:3] == ["system", "Setting", "Bio"]
    assert rows == [
        ["BM25 + ReasonRank", RERANK_CELL, "50.0", *["-"] * 15],
        ["b", "-", "50.0", *["-"] * 15],
    ]
    table = json.loads(
        cli(capsys, "report", str(tmp_path / "runs"), "-b", "bright", "--format", "json")
    )
    settings = [row["setting"] for row in table["rows"]]
    assert settings == [{k: v for k, v in RERANK.items() if k != "label"}, None]


@pytest.mark.usefixtures("biology")
def test_markdown_and_latex_tables_read_like_the_leaderboards(tmp_path, capsys):
    system(tmp_path / "runs" / "a", RERANK)
    markdown = report(capsys, str(tmp_path / "runs"), fmt="markdown").splitlines()
    assert markdown[0].startswith("| system | Setting | Bio |")
    assert markdown[1].startswith("|---|---|---:|")  # the setting is text, left-aligned
    assert markdown[2].startswith(f"| BM25 + ReasonRank | {RERANK_CELL} | 50.0 |")
    latex = report(capsys, str(tmp_path / "runs"), fmt="latex")
    assert "\\begin{tabular}{llr" in latex and f"BM25 + ReasonRank & {RERANK_CELL} & 50.0" in latex


@pytest.mark.usefixtures("biology")
def test_without_a_setting_there_is_no_setting_column(tmp_path, capsys):
    system(tmp_path / "runs" / "a")
    header, _ = report(capsys, str(tmp_path / "runs"))
    assert header[:2] == ["system", "Bio"]


@pytest.mark.usefixtures("biology")
def test_the_setting_flag_labels_every_system_or_the_one_named(tmp_path, capsys):
    system(tmp_path / "runs" / "a", RERANK)
    system(tmp_path / "runs" / "b")
    runs = str(tmp_path / "runs")
    _, *rows = report(capsys, runs, "--setting", "gpt4-reasoning")
    assert [r[1] for r in rows] == [
        "gpt4-reasoning (first stage BM25, reranker ReasonRank, depth 100)",  # the rest kept
        "gpt4-reasoning",
    ]
    _, *rows = report(capsys, runs, "--setting", "b=original")
    assert [r[1] for r in rows] == [RERANK_CELL, "original"]
    _, row = report(
        capsys, str(tmp_path / "runs" / "b" / "bright__biology.trec"), "--setting", "agentic"
    )
    assert row[:2] == ["run", "agentic"]  # loose files: the flag alone


@pytest.mark.usefixtures("biology")
@pytest.mark.parametrize(
    "flag, mentions",
    [
        ("nobody=original", "no system is called 'nobody'"),
        ("reranking", "setting 'reranking' is not one of"),
    ],
)
def test_a_bad_setting_flag_is_a_one_line_error(tmp_path, capsys, flag, mentions):
    system(tmp_path / "runs" / "a")
    line = fails(capsys, "report", str(tmp_path / "runs"), "-b", "bright", "--setting", flag)
    assert mentions in line


@pytest.mark.usefixtures("biology")
@pytest.mark.parametrize(
    "text, mentions",
    [
        ("{", "not JSON"),
        ("[]", "must be a JSON object"),
        ('{"stage": "BM25"}', "unknown key 'stage'"),
        ('{"setting": "reranking"}', "setting 'reranking' is not one of original"),
        ('{"depth": 0}', "depth must be a whole number"),
        ('{"depth": "100"}', "depth must be a whole number"),
        ('{"depth": true}', "depth must be a whole number"),
        ('{"label": ""}', "label must be a non-empty text"),
        ('{"reranker": 7}', "reranker must be a non-empty text"),
        ('{"label": ' * 5000 + "1" + "}" * 5000, "nested more than 64 levels deep"),
        ('{"depth": ' + "9" * 5000 + "}", "a number of more than 40 digits"),
        ('{"depth": 1e999}', "out of range"),
        ('{"depth": NaN}', "NaN is not a number JSON allows"),
        ("[" * 100000, "nested more than 64 levels deep"),
    ],
)
def test_a_malformed_system_json_is_a_one_line_error(tmp_path, capsys, text, mentions):
    folder = system(tmp_path / "runs" / "a", text=text)
    for command in (
        ["report", str(folder), "-b", "bright"],
        ["compare", str(folder), str(folder), "-b", "bright"],
    ):
        line = fails(capsys, *command)
        assert str(folder / "system.json") in line and mentions in line


@pytest.mark.usefixtures("biology")
@pytest.mark.parametrize("kind, make", [("a FIFO", os.mkfifo), ("a folder", os.mkdir)])
def test_a_system_json_that_is_not_a_regular_file_is_refused(tmp_path, capsys, kind, make):
    folder = system(tmp_path / "runs" / "a")
    make(folder / "system.json")
    line = fails(capsys, "report", str(folder), "-b", "bright")
    assert f"{folder / 'system.json'} is {kind}, not a regular file" in line


@pytest.mark.usefixtures("biology")
def test_a_system_json_with_a_byte_order_mark_is_read(tmp_path, capsys):
    system(tmp_path / "runs" / "a", text="\ufeff" + json.dumps(RERANK))
    header, *rows = report(capsys, str(tmp_path / "runs"))
    assert [row[0] for row in rows] == ["BM25 + ReasonRank"]


@pytest.mark.usefixtures("biology")
def test_compare_labels_each_systems_setting(tmp_path, capsys):
    base = system(tmp_path / "base", {"setting": "original", "first_stage": "BM25"})
    mine = system(tmp_path / "mine", RERANK)
    argv = ["compare", str(base), str(mine), "-b", "bright", "-m", "R@1", "--samples", "50"]
    (record,) = json.loads(cli(capsys, *argv, "--format", "json"))
    assert record["system"] == "BM25 + ReasonRank" and record["setting"] == RERANK_CELL
    markdown = cli(capsys, *argv)
    assert markdown.startswith("| dataset | system | Setting | baseline |")
    assert f"| Bio | BM25 + ReasonRank | {RERANK_CELL} | 50.0 |" in markdown
    assert "Baseline base (original (first stage BM25));" in markdown


@pytest.mark.usefixtures("biology")
def test_compare_on_a_dataset_takes_the_setting_flag(tmp_path, capsys):
    base = system(tmp_path / "base") / "bright__biology.trec"
    mine = system(tmp_path / "mine") / "bright__biology.trec"
    argv = ["compare", "bright/biology", str(base), str(mine), "--samples", "50"]
    (record,) = json.loads(cli(capsys, *argv, "--setting", f"{mine}=rerank", "--format", "json"))
    assert record["setting"] == "rerank"
