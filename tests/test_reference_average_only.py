"""Published rows whose source gives only an average (``values: null``, as the leaderboard's
dated submissions): ``--reference`` fills only the average column and ``--check`` checks only
the average; a row's ``setting`` fills the Setting column."""

from __future__ import annotations

import csv
import io

import pytest

from ir_bright.cli import main
from ir_bright.results import references
from tests.fixtures import bright_hub
from tests.test_group_averages import DOMAINS, HALF, write_system

# every domain shaped like the fixture's biology and ranked HALF: nDCG@10 (0 + 1) / 2 = 50.0
ROWS = {
    "board": {"label": "leaderboard row", "values": None, "average": 50.0, "source": "test"},
    "off": {"label": "off by 0.2", "values": None, "average": 50.2, "source": "test"},
    "rerank": {
        "label": "a reranker",
        "values": None,
        "average": 36.9,
        "setting": "rerank",
        "first_stage": "ReasonIR",
        "depth": 100,
        "source": "test",
    },
}


@pytest.fixture
def bright(hub, hub_root, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    splits = [d.replace("-", "_") for d in DOMAINS]
    bright_hub.write_bright(hub_root, {s: bright_hub.biology for s in splits})
    real = references._published_rows
    monkeypatch.setattr(
        references, "_published_rows", lambda: {**real(), "bright": {**real()["bright"], **ROWS}}
    )


def run(capsys, *argv):
    status = main(["report", *argv, "-b", "bright", "--format", "csv"])
    out, err = capsys.readouterr()
    return status, list(csv.reader(io.StringIO(out))), err


@pytest.mark.usefixtures("bright")
def test_an_average_only_row_fills_the_average_column_only(tmp_path, capsys):
    folder = write_system(tmp_path / "mine", dict.fromkeys(DOMAINS, HALF))
    status, (header, ours, board), err = run(capsys, str(folder), "--reference", "board")
    assert status == 0, err
    assert ours[1:] == ["50.0"] * 16
    assert board == ["leaderboard row", *["-"] * 15, "50.0"]


@pytest.mark.usefixtures("bright")
def test_check_against_an_average_only_row_checks_the_average(tmp_path, capsys):
    folder = write_system(tmp_path / "mine", dict.fromkeys(DOMAINS, HALF))
    status, (_, ours), err = run(capsys, str(folder), "--check", "board")
    assert status == 0, err
    assert ours[1:-1] == ["50.0"] * 15 and ours[-1] == "50.0 (50.0 ok)"
    status, (_, ours), _ = run(capsys, str(folder), "--check", "off")
    assert status == 1 and ours[-1] == "50.0 (50.2 FAIL -0.2)"


@pytest.mark.usefixtures("bright")
def test_a_published_rows_setting_fills_the_setting_column(tmp_path, capsys):
    folder = write_system(tmp_path / "mine", dict.fromkeys(DOMAINS, HALF))
    status, (header, ours, row), err = run(capsys, str(folder), "--reference", "rerank")
    assert status == 0, err
    assert header[:2] == ["system", "Setting"] and ours[1] == "-"
    assert row[:2] == ["a reranker", "rerank (first stage ReasonIR, depth 100)"]
    assert row[-1] == "36.9"
