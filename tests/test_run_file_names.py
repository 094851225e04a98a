"""One run-file naming rule for every command: ``report`` and ``compare`` find the same files
(the dataset id with each ``/`` written ``__``, then .trec, .run, .txt, .tsv or .res, then
optionally .gz)."""

from __future__ import annotations

import gzip
import json

import pytest

from ir_bright.cli import main
from tests.fixtures import bright_hub

SUFFIXES = [".trec", ".run", ".txt", ".tsv", ".res", ".trec.gz", ".res.gz"]
GOLD = {"0": "insects_light/Phototaxis_0.txt", "1": "bird_song/Birdsong_2.txt"}  # the fixture's


@pytest.fixture
def biology(hub, hub_root, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    bright_hub.write_bright(hub_root, {"biology": bright_hub.biology})


def write_run(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


# query 1's only gold document at rank 1, query 0 not ranked: R@1 = (0 + 1) / 2
RUN = f"1 Q0 {GOLD['1']} 1 2 t\n"


@pytest.mark.usefixtures("biology")
@pytest.mark.parametrize("suffix", SUFFIXES)
def test_report_and_compare_find_the_same_file_names(suffix, tmp_path, capsys):
    for system in ("base", "mine"):
        write_run(tmp_path / system / f"bright__biology{suffix}", RUN)
    argv = ["-m", "R@1", "--format", "json"]
    assert main(["report", str(tmp_path / "mine"), "-b", "bright", *argv]) == 0
    (row,) = json.loads(capsys.readouterr().out)["rows"]
    assert row["system"] == "mine" and row["values"]["bright/biology"] == 0.5
    assert (
        main(["compare", str(tmp_path / "base"), str(tmp_path / "mine"), "-b", "bright", *argv])
        == 0
    )
    (record,) = json.loads(capsys.readouterr().out)
    assert record["dataset"] == "bright/biology" and record["mean"] == 0.5


@pytest.mark.usefixtures("biology")
def test_a_single_run_file_is_named_after_its_stem(tmp_path, capsys):
    base = write_run(tmp_path / "bm25.res", RUN)
    mine = write_run(tmp_path / "mine.run.gz", RUN)
    argv = ["compare", "bright/biology", str(base), str(mine), "--format", "json"]
    assert main(argv) == 0
    (record,) = json.loads(capsys.readouterr().out)
    assert (record["baseline"], record["system"]) == ("bm25", "mine")
