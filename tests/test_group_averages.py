"""BRIGHT's group averages: ``StackExchange`` (the seven StackExchange domains), ``Coding``
(LeetCode, Pony) and ``Theorem`` (AoPS, TheoremQA-Q, TheoremQA-T), each the macro average of
its domains, beside ``Avg`` in every format of ``report``; ``compare`` tests each group as it
tests the benchmark row (macro means, the paired tests on the group's queries pooled).
Expectations are written by hand from the runs' R@1 per query."""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest
from scipy import stats

from ir_bright.cli import main
from ir_bright.results import references, report
from tests.fixtures import bright_hub
from tests.test_hostile_names import cli

STACKEXCHANGE = (
    "biology earth-science economics psychology robotics stackoverflow sustainable-living"
)
GROUPS = {
    "StackExchange": STACKEXCHANGE.split(),
    "Coding": ["leetcode", "pony"],
    "Theorem": ["aops", "theoremqa-questions", "theoremqa-theorems"],
}
DOMAINS = [d for domains in GROUPS.values() for d in domains]
# Every domain is shaped like the fixture's biology: query 0 has two gold documents, query 1
# one. R@1 per query of each ranking (the document ranked first):
# NONE ranks no document judged for its query: report and compare score it only with --force
NONE = {"0": "bird_song/Birdsong_0.txt", "1": "bird_song/Birdsong_0.txt"}  # 0, 0
HALF = {"0": "bird_song/Birdsong_0.txt", "1": "bird_song/Birdsong_2.txt"}  # 0, 1
QUARTER = {"0": "insects_light/Phototaxis_0.txt", "1": "bird_song/Birdsong_0.txt"}  # 0.5, 0
MOST = {"0": "insects_light/Phototaxis_0.txt", "1": "bird_song/Birdsong_2.txt"}  # 0.5, 1
PER_QUERY = {id(NONE): [0, 0], id(HALF): [0, 1], id(QUARTER): [0.5, 0], id(MOST): [0.5, 1]}
MINE = dict(
    zip(
        DOMAINS,
        [MOST, HALF, QUARTER, NONE, MOST, HALF, QUARTER, HALF, QUARTER, MOST, NONE, QUARTER],
    )
)
# by hand: StackExchange (.75 + .5 + .25 + 0 + .75 + .5 + .25) / 7 = 3/7; Coding (.5 + .25) / 2
# = .375; Theorem (.75 + 0 + .25) / 3 = 1/3; Avg (3 + .75 + 1) / 12 = 4.75/12
EXPECTED = {"StackExchange": 3 / 7, "Coding": 0.375, "Theorem": 1 / 3}
AVERAGE = 4.75 / 12


@pytest.fixture
def bright(hub, hub_root, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    splits = [d.replace("-", "_") for d in DOMAINS]
    bright_hub.write_bright(hub_root, {s: bright_hub.biology for s in splits})


def write_system(folder, rankings, skip=()):
    folder.mkdir(parents=True)
    for domain, ranking in rankings.items():
        if domain not in skip:
            lines = "".join(f"{q} Q0 {d} 1 1 t\n" for q, d in ranking.items())
            (folder / f"bright__{domain}.trec").write_text(lines)
    return folder


def test_the_bright_benchmarks_have_the_three_groups_and_the_others_none():
    names = ["bright", "bright-adjusted"]
    names += [
        f"bright-{m}-reason" for m in ("gpt4", "claude-3-opus", "llama3-70b", "gemini-1.0", "grit")
    ]
    for name in names:
        bench = report.benchmark(name)
        suffix = bench.ids[0].removeprefix("bright/biology")
        expected = {g: tuple(f"bright/{d}{suffix}" for d in ds) for g, ds in GROUPS.items()}
        assert {g.label: g.ids for g in bench.groups} == expected, name
    for name in ("bright-long", "bright-pro", "mm-bright-task1"):
        assert report.benchmark(name).groups == ()


@pytest.mark.usefixtures("bright")
def test_report_json_rows_carry_the_group_means_beside_the_domains(tmp_path, capsys):
    folder = write_system(tmp_path / "mine", MINE)
    table = json.loads(
        cli(
            capsys,
            "report",
            str(folder),
            "-b",
            "bright",
            "--force",
            "-m",
            "R@1",
            "--format",
            "json",
        )
    )
    (row,) = table["rows"]
    for group, value in EXPECTED.items():
        assert row["values"][group] == pytest.approx(value, abs=1e-12)
    assert row["values"]["bright/pony"] == 0.25 and row["average"] == pytest.approx(AVERAGE)
    groups = [c for c in table["columns"] if "group" in c]
    assert [c["id"] for c in groups] == list(GROUPS)
    assert groups[1]["group"] == ["bright/leetcode", "bright/pony"]


@pytest.mark.usefixtures("bright")
def test_markdown_csv_and_latex_print_the_groups_before_avg(tmp_path, capsys):
    folder = write_system(tmp_path / "mine", MINE)
    argv = ["report", str(folder), "-b", "bright", "--force", "-m", "R@1", "--format"]
    header, row = list(csv.reader(io.StringIO(cli(capsys, *argv, "csv"))))
    assert header[-4:] == ["StackExchange", "Coding", "Theorem", "Avg"]
    assert row[-4:] == ["42.9", "37.5", "33.3", "39.6"]
    markdown = cli(capsys, *argv, "markdown").splitlines()
    assert markdown[0].endswith("| StackExchange | Coding | Theorem | Avg |")
    assert markdown[2].endswith("| 42.9 | 37.5 | 33.3 | 39.6 |")
    latex = cli(capsys, *argv, "latex")
    assert "StackExchange & Coding & Theorem & Avg \\\\" in latex
    assert "& 42.9 & 37.5 & 33.3 & 39.6 \\\\" in latex


@pytest.mark.usefixtures("bright")
def test_a_group_missing_a_run_has_no_mean_and_the_others_do(tmp_path, capsys):
    folder = write_system(tmp_path / "mine", MINE, skip={"robotics"})
    argv = ["report", str(folder), "-b", "bright", "--force", "-m", "R@1", "--format", "csv"]
    _, row = list(csv.reader(io.StringIO(cli(capsys, *argv))))
    assert row[-4:] == ["-", "37.5", "33.3", "-"]


@pytest.mark.usefixtures("bright")
def test_a_published_row_with_group_values_fills_and_checks_them(tmp_path, capsys, monkeypatch):
    # nDCG@10 of one document ranked per query: query 0 finds one of its two gold documents
    q0 = 1 / (1 + 1 / math.log2(3))
    stackexchange = (2 * (q0 + 1) / 2 + 2 * 0.5 + 2 * q0 / 2) / 7  # MOST, HALF, QUARTER twice
    coding = (0.5 + q0 / 2) / 2  # HALF, QUARTER
    values = {
        "StackExchange": round(stackexchange * 100, 1),
        "Coding": round(coding * 100 - 0.2, 1),
    }
    row = {"label": "groups only", "values": values, "source": "test"}
    real = references._published_rows
    monkeypatch.setattr(
        references,
        "_published_rows",
        lambda: {**real(), "bright": {**real()["bright"], "groups": row}},
    )
    folder = write_system(tmp_path / "mine", MINE)
    argv = ["report", str(folder), "-b", "bright", "--force", "--format", "json"]
    status = main([*argv, "--check", "groups", "--reference", "groups"])
    table = json.loads(capsys.readouterr().out)
    assert status == 1  # Coding is 0.2 points off
    ours, published = table["rows"]
    assert ours["values"]["Coding"] == pytest.approx(coding, abs=1e-12)
    assert set(ours["check"]) == {"StackExchange", "Coding"}
    assert ours["check"]["StackExchange"]["within"] and not ours["check"]["Coding"]["within"]
    assert published["values"]["StackExchange"] == pytest.approx(values["StackExchange"] / 100)
    assert published["values"]["Theorem"] is None and published["average"] is None


COMPARE_OPTIONS = ("-b", "bright", "--force", "-m", "R@1")


def per_query(rankings, domains):
    """The R@1 of every query of ``domains``, domain after domain, queries 0 then 1."""
    return np.array([v for d in domains for v in PER_QUERY[id(rankings[d])]], float)


@pytest.mark.usefixtures("bright")
def test_compare_tests_each_group_on_its_domains_queries_pooled(tmp_path, capsys):
    base = write_system(tmp_path / "base", dict.fromkeys(DOMAINS, NONE))
    mine = write_system(tmp_path / "mine", MINE)
    argv = ["compare", str(base), str(mine), *COMPARE_OPTIONS, "--samples", "200"]
    records = json.loads(cli(capsys, *argv, "--format", "json"))
    assert [r["dataset"] for r in records][-4:] == [*GROUPS, "bright"]
    by_dataset = {r["dataset"]: r for r in records}
    for group, domains in GROUPS.items():
        record = by_dataset[group]
        ours = per_query(MINE, domains)
        assert record["mean"] == pytest.approx(EXPECTED[group], abs=1e-12)
        assert record["baseline_mean"] == 0 and record["queries"] == 2 * len(domains)
        assert record["p_ttest"] == pytest.approx(stats.ttest_rel(ours, 0 * ours).pvalue, rel=1e-9)
        expected_w = stats.wilcoxon(ours, 0 * ours, zero_method="wilcox", method="auto").pvalue
        assert record["p_wilcoxon"] == pytest.approx(expected_w, rel=1e-9)
        assert record["test"] == "paired t-test, all queries pooled"
    assert by_dataset["bright"]["mean"] == pytest.approx(AVERAGE, abs=1e-12)
    assert len(records) == 12 + 3 + 1  # the correction's family holds the groups too
    markdown = cli(capsys, *argv)
    assert "| Coding | mine |" in markdown and "| Avg | mine |" in markdown
    assert "StackExchange, Coding, Theorem: likewise over their domains." in markdown


@pytest.mark.usefixtures("bright")
def test_compare_leaves_out_a_group_whose_domains_are_not_all_compared(tmp_path, capsys):
    base = write_system(tmp_path / "base", dict.fromkeys(DOMAINS, NONE), skip={"pony"})
    mine = write_system(tmp_path / "mine", MINE)
    argv = ["compare", str(base), str(mine), *COMPARE_OPTIONS, "--samples", "50"]
    records = json.loads(cli(capsys, *argv, "--format", "json"))
    assert [r["dataset"] for r in records][-3:] == ["StackExchange", "Theorem", "bright"]
