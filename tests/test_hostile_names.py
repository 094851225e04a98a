"""Tables survive any name: markdown escapes ``|``, ``\\`` and line breaks in system names,
LaTeX escapes its special characters, csv and json carry the name unchanged, and run paths
with spaces, tabs or line breaks are read as paths (never as run text) by report and compare."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest

from ir_bright.cli import main
from ir_bright.results.tables import Grid, latex_text, markdown_text, render
from tests.fixtures import bright_hub

GOLD = {"0": "insects_light/Phototaxis_0.txt", "1": "bird_song/Birdsong_2.txt"}  # the fixture's
# query 1's only gold document at rank 1, query 0 not ranked: R@1 = (0 + 1) / 2 = 50.0 x100
RUN = f"1 Q0 {GOLD['1']} 1 2 t\n"
HOSTILE = ["sp ace", "ta\tb", "new\nline", "pi|pe", "back\\slash", "a&b%c$d#e_f{g}h~i^j"]


@pytest.fixture
def biology(hub, hub_root, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    bright_hub.write_bright(hub_root, {"biology": bright_hub.biology})


def system(tmp_path, name):
    folder = tmp_path / "runs" / name
    folder.mkdir(parents=True)
    (folder / "bright__biology.trec").write_text(RUN)
    return folder


def cli(capsys, *argv):
    """The standard output of a command that must succeed."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def markdown_cells(line):
    """The cells of a markdown table row, split at the pipes that are not escaped."""
    inner = line.strip()[1:-1].replace("\\\\", "\0")  # an escaped backslash escapes no pipe
    cells = re.split(r"(?<!\\)\|", inner)
    return [c.strip().replace("\0", "\\\\") for c in cells]


# -- escaping, against hand-written expectations ----------------------------------------------


@pytest.mark.parametrize(
    "name, expected",
    [
        ("pi|pe", "pi\\|pe"),
        ("back\\slash", "back\\\\slash"),
        ("new\nline", "new<br>line"),
        ("cr\r\nlf", "cr<br>lf"),
        ("ta\tb", "ta\tb"),
    ],
)
def test_markdown_cells_escape_pipes_backslashes_and_line_breaks(name, expected):
    assert markdown_text(name) == expected


def test_latex_escapes_every_special_character():
    assert latex_text("a&b%c$d#e_f{g}h~i^j\\k") == (
        r"a\&b\%c\$d\#e\_f\{g\}h\textasciitilde{}i\textasciicircum{}j\textbackslash{}k"
    )
    assert latex_text("two\nlines") == "two lines"


def test_a_latex_comment_never_ends_inside_a_note():
    text = render(Grid(["system", "x"], [["a", "1"]], notes=["one\ntwo"]), "latex")
    assert "% one two\n" in text and "\ntwo" not in text


# -- report and compare on hostile folder names -----------------------------------------------


@pytest.mark.usefixtures("biology")
@pytest.mark.parametrize("name", HOSTILE)
def test_report_reads_every_name_and_keeps_the_markdown_table_whole(name, tmp_path, capsys):
    system(tmp_path, name)
    out = cli(capsys, "report", str(tmp_path / "runs" / name), "-b", "bright", "-m", "R@1")
    lines = out.splitlines()
    assert len(lines) == 3  # header, rule, one row
    cells = markdown_cells(lines[2])
    assert len(cells) == len(markdown_cells(lines[0])) == 17  # system, 12 domains, 3 groups, Avg
    assert cells[0] == markdown_text(name) and cells[1] == "50.0"


@pytest.mark.usefixtures("biology")
@pytest.mark.parametrize("name", HOSTILE)
def test_csv_and_json_carry_the_name_unchanged(name, tmp_path, capsys):
    folder = system(tmp_path, name)
    argv = ["report", str(folder), "-b", "bright", "-m", "R@1", "--format"]
    rows = list(csv.reader(io.StringIO(cli(capsys, *argv, "csv"))))
    assert len(rows) == 2 and rows[1][0] == name and rows[1][1] == "50.0"
    (row,) = json.loads(cli(capsys, *argv, "json"))["rows"]
    assert row["system"] == name and row["values"]["bright/biology"] == 0.5


@pytest.mark.usefixtures("biology")
def test_latex_table_escapes_the_names_of_systems(tmp_path, capsys):
    system(tmp_path, "a&b%c$d#e_f{g}h~i^j")
    out = cli(
        capsys, "report", str(tmp_path / "runs"), "-b", "bright", "-m", "R@1", "--format", "latex"
    )
    row = next(line for line in out.splitlines() if line.startswith("a"))
    assert row.startswith(r"a\&b\%c\$d\#e\_f\{g\}h\textasciitilde{}i\textasciicircum{}j & 50.0 &")


@pytest.mark.usefixtures("biology")
@pytest.mark.parametrize("name", ["sp ace", "ta\tb", "new\nline"])
def test_compare_reads_run_paths_with_whitespace(name, tmp_path, capsys):
    base = system(tmp_path, "base")
    mine = system(tmp_path, name)
    argv = ["--format", "json", "-m", "R@1"]
    files = [str(base / "bright__biology.trec"), str(mine / "bright__biology.trec")]
    (record,) = json.loads(cli(capsys, "compare", "bright/biology", *files, *argv))
    assert record["mean"] == 0.5 and record["system"] == files[1]
    (record,) = json.loads(cli(capsys, "compare", str(base), str(mine), "-b", "bright", *argv))
    assert record["mean"] == 0.5 and record["system"] == name


@pytest.mark.usefixtures("biology")
def test_compare_markdown_keeps_a_hostile_system_name_in_one_cell(tmp_path, capsys):
    base, mine = system(tmp_path, "base"), system(tmp_path, "x|y\nz")
    out = cli(
        capsys, "compare", str(base), str(mine), "-b", "bright", "-m", "R@1", "--samples", "50"
    )
    rows = [line for line in out.splitlines() if line.startswith("|")]
    assert len(rows) == 3 and markdown_cells(rows[2])[:2] == ["Bio", "x\\|y<br>z"]
    assert len(markdown_cells(rows[2])) == len(markdown_cells(rows[0]))
