"""``ir-bright report --check REFERENCE``: each cell beside the published one, exit status 1
when one is outside the tolerance, so a reproduction can be a CI step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ir_bright.cli import main
from ir_bright.results import benchmarks, references, scores
from ir_bright.results.errors import ReportError
from tests.test_report import bright, hand_runs  # noqa: F401 - bright is a fixture

REFERENCES = {
    bench: rows
    for path in (Path(references.__file__).parents[1] / "families").glob("*.json")
    for bench, rows in json.loads(path.read_text()).get("references", {}).items()
}
ROWS = [(bench, name) for bench, rows in REFERENCES.items() for name in rows]


@pytest.fixture
def published_row(monkeypatch):
    """Add published rows ``hand`` (the hand runs' cells: Bio 77.5, AoPS 81.5) and ``near``
    (Bio 77.7) to benchmark bright, as a family declaration would hold them."""
    real = references._published_rows

    def published_rows():
        data = real()
        rows = dict(data["bright"])
        rows["hand"] = {"label": "hand", "values": {"Bio": 77.5, "AoPS": 81.5}, "source": "test"}
        rows["near"] = {"label": "near", "values": {"Bio": 77.7, "AoPS": 81.5}, "source": "test"}
        return {**data, "bright": rows}

    monkeypatch.setattr(references, "_published_rows", published_rows)


def check(capsys, *argv):
    status = main(["report", *argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.usefixtures("bright")
def test_check_passes_a_run_matching_the_published_row(published_row, capsys, tmp_path):
    hand_runs(tmp_path / "mine")
    status, out, err = check(capsys, str(tmp_path / "mine"), "-b", "bright", "--check", "hand")
    assert status == 0, err
    row = next(line for line in out.splitlines() if line.startswith("| mine"))
    assert "| 77.5 (77.5 ok) |" in row and "| 81.5 (81.5 ok) |" in row
    assert "| - |" in row  # a domain the reference does not publish is not checked
    assert "within 0.05 points" in out and "0 of 2 cells outside" in out


@pytest.mark.usefixtures("bright")
def test_check_fails_a_cell_outside_the_tolerance_with_status_1(
    published_row, capsys, caplog, tmp_path
):
    hand_runs(tmp_path / "mine")
    status, out, err = check(capsys, str(tmp_path / "mine"), "-b", "bright", "--check", "near")
    assert status == 1
    assert "77.5 (77.7 FAIL -0.2)" in out and "81.5 (81.5 ok)" in out
    assert "1 cells outside the tolerance of near: mine Bio" in caplog.text


@pytest.mark.usefixtures("bright")
def test_a_wider_tolerance_accepts_the_cell(published_row, capsys, tmp_path):
    hand_runs(tmp_path / "mine")
    argv = [str(tmp_path / "mine"), "-b", "bright", "--check", "near", "--tolerance", "0.3"]
    status, out, err = check(capsys, *argv, "--format", "json")
    assert status == 0, err
    cells = json.loads(out)["rows"][0]["check"]
    assert cells["bright/biology"]["within"] and cells["bright/biology"]["published"] == 77.7
    assert cells["bright/biology"]["difference"] == pytest.approx(77.5 - 77.7, abs=0.05)
    assert cells["bright/biology"]["tolerance"] == 0.3


@pytest.mark.usefixtures("bright")
def test_check_against_the_papers_row_fails_missing_and_distant_cells(capsys, caplog, tmp_path):
    hand_runs(tmp_path / "mine")
    argv = [str(tmp_path / "mine"), "-b", "bright", "--check", "paper-bm25", "--format", "csv"]
    status, out, err = check(capsys, *argv)
    assert status == 1
    assert "77.5 (18.9 FAIL +58.6)" in out and "- (27.2 missing)" in out
    # 13 cells (12 domains, Avg): Bio and AoPS are outside, the 10 domains without a run and
    # the Avg over them are missing
    assert "2 cells outside the tolerance of paper-bm25: mine Bio, mine AoPS; " in caplog.text
    assert "11 cells missing (no run): mine Earth, " in caplog.text


def test_check_counts_cells_outside_and_missing_apart():
    """Three systems against the paper's BM25 row (Bio 18.9, Earth 27.2, ..., Avg 14.5)."""
    bench = benchmarks.benchmark("bright")
    published = REFERENCES["bright"]["paper-bm25"]["values"]
    exact = {d: published[label] / 100 for d, label in zip(bench.ids, bench.labels)}
    off = {**exact, "bright/earth-science": 0.30}  # 30.0 against 27.2
    partial = {d: (0.189 if d == "bright/biology" else None) for d in bench.ids}  # Bio alone
    table = scores.Table(
        bench,
        bench.measure,
        [
            scores.Row("exact", exact, 0.145),
            scores.Row("off", off, 0.30),  # and an average 30.0 against 14.5
            scores.Row("partial", partial, None),
        ],
    )
    failures = references.check(table, "paper-bm25")
    assert failures.outside == ["off Earth", "off Avg"]
    labels = [label for label in bench.labels if label != "Bio"]
    assert failures.missing == [f"partial {label}" for label in labels] + ["partial Avg"]
    assert failures.summary("paper-bm25").startswith(
        "2 cells outside the tolerance of paper-bm25: off Earth, off Avg; "
        "12 cells missing (no run): partial Earth, "
    )
    assert table.notes[-1].endswith("; 2 of 39 cells outside, 12 missing.")
    assert not references.check(scores.Table(bench, bench.measure, [table.rows[0]]), "paper-bm25")


@pytest.mark.parametrize("bench_name, name", ROWS)
def test_every_published_row_can_be_checked(bench_name, name):
    """A system scoring exactly the published cells passes; one cell off by more than the
    tolerance fails, and only that cell."""
    bench = benchmarks.benchmark(bench_name)
    spec = dict(REFERENCES[bench_name][name])
    spec["values"] = spec["values"] or {}  # null: the source publishes only the average
    mean = spec.get("average")
    values = {
        d: spec["values"].get(label, mean) / 100 if mean or label in spec["values"] else None
        for d, label in zip(bench.ids, bench.labels)
    }
    exact = scores.Row("exact", values, None if mean is None else mean / 100)
    table = scores.Table(bench, bench.measure, [exact])
    assert not references.check(table, name)
    published = [v for v in spec["values"].values()] + ([mean] if mean is not None else [])
    # the row's values are printed with as many decimals as its longest one (JSON drops
    # trailing zeros): BRIGHT's with one or two, R2MED's with three
    decimals = max(len(repr(float(v)).split(".")[1].rstrip("0")) for v in published)
    decimals = max(decimals, 1)
    assert {c.decimals for c in table.checks["exact"].values()} == {decimals}
    off_values, off_average = dict(values), exact.average
    labels = dict(zip(bench.ids, bench.labels))
    first = next((d for d in bench.ids if labels[d] in spec["values"]), None)
    if first is not None:  # 0.06 points off: outside 0.05
        off_values[first] += 0.0006
    else:
        off_average += 0.0006
    table = scores.Table(bench, bench.measure, [scores.Row("off", off_values, off_average)])
    expected = labels[first] if first is not None else "Avg"
    assert references.check(table, name, tolerance=0.05).outside == [f"off {expected}"]


@pytest.mark.parametrize(
    "argv, mentions",
    [
        (["--check", "paper-nope"], "no published row"),
        (["--check", "paper-bm25", "-m", "R@1"], "the published rows are nDCG@10"),
        (["--tolerance", "0.5"], "--tolerance applies to --check"),
        (["--check", "paper-bm25", "--tolerance", "-1"], "0 or more points"),
    ],
)
@pytest.mark.usefixtures("bright")
def test_check_bad_input_is_a_one_line_error(capsys, tmp_path, argv, mentions):
    hand_runs(tmp_path / "mine")
    status, out, err = check(capsys, str(tmp_path / "mine"), "-b", "bright", *argv)
    lines = [line for line in err.splitlines() if line.strip() and "WARNING" not in line]
    assert status == 2 and out == "" and len(lines) == 1, err
    assert mentions in lines[0]


def test_a_benchmark_without_published_rows_says_so():
    bench = benchmarks.benchmark("bright-pro")
    with pytest.raises(ReportError, match="for benchmark bright-pro: none is in ir_bright$"):
        references.published("paper-bm25", bench, bench.measure)
