"""``ir-bright report``: run discovery, official cells, averages, formats, references, plot."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from ir_bright.cli import main
from ir_bright.families import Benchmark
from ir_bright.results import benchmarks, scores, systems
from ir_bright.results.errors import ReportError
from ir_bright.scoring import evaluate
from tests.fixtures import bright_hub
from tests.helpers import write_run

SPLITS = [
    "biology",
    "earth_science",
    "economics",
    "psychology",
    "robotics",
    "stackoverflow",
    "sustainable_living",
    "leetcode",
    "pony",
    "aops",
    "theoremqa_questions",
    "theoremqa_theorems",
]
BRIGHT_IDS = [f"bright/{s.replace('_', '-')}" for s in SPLITS]
MM_DOMAINS = (
    "academia apple askubuntu aviation bioacoustics bioinformatics biology bitcoin chemistry "
    "christianity crypto earthscience economics gaming gis islam law math medicalsciences "
    "philosophy physics pm psychology quant quantumcomputing robotics salesforce "
    "sustainability travel"
).split()


# All 12 BRIGHT domains (those the fixture lacks are shaped like its biology).
DOMAINS = {split: bright_hub.DOMAINS.get(split, bright_hub.biology) for split in SPLITS}


@pytest.fixture
def bright(bright_hub):
    return bright_hub(DOMAINS)


def hand_runs(folder):
    """Runs whose nDCG@10 is computed by hand below."""
    write_run(
        folder / "bright__biology.trec",
        {
            "0": [
                "insects_light/Phototaxis_0.txt",
                "bird_song/Birdsong_0.txt",
                "insects_light/Phototaxis_3.txt",
            ],
            "1": ["bird_song/Birdsong_0.txt", "bird_song/Birdsong_2.txt"],
        },
    )
    write_run(
        folder / "bright__aops.trec",
        {  # the excluded problem ranked first is removed: the gold ones move to ranks 1 and 2
            "aops_2019_AMC_12A_Problems/Problem_1": [
                "aops_2019_AMC_12A_Problems/Problem_1",
                "camel_1",
                "camel_2",
            ],
            "aops_2019_AMC_12A_Problems/Problem_2": ["camel_0", "camel_3"],
        },
    )


NDCG_BIOLOGY = ((1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3)) + 1 / math.log2(3)) / 2
NDCG_AOPS = (1.0 + 1 / math.log2(3)) / 2


def run_report(capsys, *argv):
    status = main(["report", *argv])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def markdown_rows(text):
    lines = [line.strip("|").split("|") for line in text.strip().splitlines()]
    header = [c.strip() for c in lines[0]]
    return header, {
        cells[0].strip(): dict(zip(header, (c.strip() for c in cells))) for cells in lines[2:]
    }


# -- the naming rule and benchmarks -----------------------------------------------------------


@pytest.mark.parametrize(
    "dataset_id",
    ["bright/biology", "bright/pony-long", "bright/aops/gpt4-reason", "mm-bright/academia/task1"],
)
def test_file_names_round_trip_to_dataset_ids(dataset_id):
    for suffix in (".trec", ".run", ".txt", ".trec.gz"):
        assert (
            benchmarks.dataset_from_filename(benchmarks.filename_for(dataset_id, suffix))
            == dataset_id
        )


def test_bright_benchmark_has_the_papers_12_columns_in_order():
    bench = benchmarks.benchmark("bright")
    assert list(bench.ids) == BRIGHT_IDS
    assert bench.labels[-3:] == ("AoPS", "TheoQ", "TheoT") and bench.measure == "nDCG@10"
    long = benchmarks.benchmark("bright-long")
    assert len(long.ids) == 8 and long.measure == "R@1" and "bright/pony-long" in long.ids


@pytest.mark.parametrize("task", [1, 2, 3, 4])
def test_mm_bright_benchmarks_select_the_29_domains_of_each_task(task):
    bench = benchmarks.benchmark(f"mm-bright-task{task}")
    assert list(bench.ids) == [f"mm-bright/{d}/task{task}" for d in MM_DOMAINS]
    assert benchmarks.dataset_from_filename(f"mm-bright__gis__task{task}.trec") in bench.ids


def test_unknown_benchmark_is_a_one_line_error():
    with pytest.raises(ReportError, match="choose one of bright, bright-long"):
        benchmarks.benchmark("brite")


# -- official cells ---------------------------------------------------------------------------


def test_cells_are_the_official_scores_x100_computed_by_hand(bright, capsys, tmp_path):
    hand_runs(tmp_path / "mine")
    header, rows = markdown_rows(run_report(capsys, str(tmp_path / "mine"), "-b", "bright"))
    assert header == [
        "system",
        "Bio",
        "Earth",
        "Econ",
        "Psy",
        "Rob",
        "Stack",
        "Sus",
        "Leet",
        "Pony",
        "AoPS",
        "TheoQ",
        "TheoT",
        "StackExchange",
        "Coding",
        "Theorem",
        "Avg",
    ]
    row = rows["mine"]
    assert row["Bio"] == f"{NDCG_BIOLOGY * 100:.1f}" == "77.5"
    assert row["AoPS"] == f"{NDCG_AOPS * 100:.1f}" == "81.5"
    assert row["Earth"] == "-" and row["Avg"] == "-"  # no run, no average
    assert row["StackExchange"] == row["Coding"] == row["Theorem"] == "-"  # likewise


def test_json_values_equal_evaluate_on_each_run(bright, capsys, tmp_path):
    hand_runs(tmp_path / "mine")
    table = json.loads(
        run_report(capsys, str(tmp_path / "mine"), "-b", "bright", "--format", "json")
    )
    values = table["rows"][0]["values"]
    for dataset_id, name in [
        ("bright/biology", "bright__biology.trec"),
        ("bright/aops", "bright__aops.trec"),
    ]:
        expected = evaluate(str(tmp_path / "mine" / name), dataset_id)["nDCG@10"]
        assert values[dataset_id] == expected
    assert values["bright/biology"] == pytest.approx(NDCG_BIOLOGY, abs=1e-12)
    assert values["bright/aops"] == pytest.approx(NDCG_AOPS, abs=1e-12)


@pytest.mark.slow
def test_a_folder_of_12_bm25_runs_gives_the_13_column_table_equal_to_evaluate(
    bright, capsys, tmp_path
):
    pytest.importorskip("Stemmer")  # the bm25 extra
    pytest.importorskip("matplotlib")
    folder = tmp_path / "runs" / "bm25"
    for dataset_id in BRIGHT_IDS:
        assert (
            main(["bm25", dataset_id, "-o", str(folder / benchmarks.filename_for(dataset_id))]) == 0
        )
    capsys.readouterr()
    png = tmp_path / "bright.png"
    out = run_report(
        capsys, str(tmp_path / "runs"), "-b", "bright", "--plot", str(png), "--format", "csv"
    )
    header, *rows = list(csv.reader(io.StringIO(out)))
    assert len(header) == 17 and len(rows) == 1  # system + 12 domains + 3 groups + Avg
    values = []
    for dataset_id, label in zip(BRIGHT_IDS, header[1:]):
        capsys.readouterr()
        main(
            [
                "evaluate",
                dataset_id,
                str(folder / benchmarks.filename_for(dataset_id)),
                "--format",
                "json",
            ]
        )
        value = _first_number(json.loads(capsys.readouterr().out))
        values.append(value)
        assert rows[0][header.index(label)] == f"{value * 100:.1f}"
    assert rows[0][-1] == f"{sum(values) / 12 * 100:.1f}"
    groups = {"StackExchange": values[:7], "Coding": values[7:9], "Theorem": values[9:]}
    for label, members in groups.items():
        assert rows[0][header.index(label)] == f"{sum(members) / len(members) * 100:.1f}"
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 1000


def _first_number(document):
    """The nDCG@10 value in ``ir-bright evaluate --format json`` output, whatever its nesting."""
    if isinstance(document, dict):
        if "nDCG@10" in document and isinstance(document["nDCG@10"], int | float):
            return document["nDCG@10"]
        for value in document.values():
            found = _first_number(value)
            if found is not None:
                return found
    if isinstance(document, list):
        for value in document:
            found = _first_number(value)
            if found is not None:
                return found
    return None


def test_average_is_the_mean_of_the_domains(bright, tmp_path):
    hand_runs(tmp_path / "mine")
    bench = Benchmark("two", "two", "nDCG@10", ("bright/biology", "bright/aops"), ("Bio", "AoPS"))
    found = systems.collect([str(tmp_path / "mine")], bench)
    table = scores.score(found, bench, progress=False)
    assert table.rows[0].average == pytest.approx((NDCG_BIOLOGY + NDCG_AOPS) / 2, abs=1e-12)


# -- finding runs -----------------------------------------------------------------------------


def test_a_folder_of_folders_gives_one_row_per_system(bright, capsys, tmp_path):
    hand_runs(tmp_path / "runs" / "a")
    hand_runs(tmp_path / "runs" / "b")
    (tmp_path / "runs" / "notes").mkdir()
    _, rows = markdown_rows(run_report(capsys, str(tmp_path / "runs"), "-b", "bright"))
    assert list(rows) == ["a", "b"]


def test_id_equals_path_arguments_and_loose_files_form_one_named_system(bright, capsys, tmp_path):
    hand_runs(tmp_path / "mine")
    out = run_report(
        capsys,
        f"bright/aops={tmp_path / 'mine' / 'bright__aops.trec'}",
        str(tmp_path / "mine" / "bright__biology.trec"),
        "-b",
        "bright",
        "--name",
        "hand",
    )
    _, rows = markdown_rows(out)
    assert rows["hand"]["Bio"] == "77.5" and rows["hand"]["AoPS"] == "81.5"


def test_references_add_the_published_rows(bright, capsys, tmp_path):
    hand_runs(tmp_path / "mine")
    out = run_report(
        capsys,
        str(tmp_path / "mine"),
        "-b",
        "bright",
        "--reference",
        "paper-bm25,pyserini-bm25-query-side",
    )
    _, rows = markdown_rows(out)
    assert rows["paper, BM25"]["Bio"] == "18.9" and rows["paper, BM25"]["Avg"] == "14.5"
    assert rows["Pyserini BM25 query-side weighting"]["TheoT"] == "4.9"


def test_latex_output_is_a_tabular_with_escaped_names(bright, capsys, tmp_path):
    hand_runs(tmp_path / "my_runs")
    out = run_report(capsys, str(tmp_path / "my_runs"), "-b", "bright", "--format", "latex")
    assert (
        "\\begin{tabular}{l" in out
        and "my\\_runs & 77.5" in out
        and out.rstrip().endswith("\\end{tabular}")
    )


@pytest.mark.parametrize(
    "argv, mentions",
    [
        (["report", "{tmp}/nothing", "-b", "bright"], "no such file or folder"),
        (["report", "{tmp}/empty", "-b", "bright"], "no run file named after a dataset"),
        (
            ["report", "{tmp}/mine/bright__aops.trec", "-b", "bright-long"],
            "names no dataset of bright-long",
        ),
        (
            ["report", "bright/pony-long={tmp}/mine/bright__aops.trec", "-b", "bright"],
            "is not a dataset of benchmark bright",
        ),
        (["report", "{tmp}/mine", "-b", "bright", "--reference", "paper-nope"], "no published row"),
        (["report", "{tmp}/mine", "-b", "bright", "--plot", "{tmp}/x.jpg"], "name it FILE.png"),
        (
            ["report", "{tmp}/mine", "-b", "bright", "-m", "R@1", "--reference", "paper-bm25"],
            "the published rows are nDCG@10",
        ),
        (["report", "{tmp}/mine", "-b", "brite"], "invalid choice"),
        (["report", "{tmp}/empty"], "no run file named after a dataset of any benchmark"),
        (["report", "{tmp}/bad", "-b", "bright"], "bad.trec"),
    ],
)
def test_report_bad_input_is_a_one_line_error(bright, capsys, tmp_path, argv, mentions):
    hand_runs(tmp_path / "mine")
    (tmp_path / "empty").mkdir()
    write_run(tmp_path / "bad" / "bright__aops.trec", [])
    (tmp_path / "bad" / "bright__aops.trec").write_text("not a run line\n")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip() and "WARNING" not in line]
    assert status == 2 and out == "" and len(lines) == 1, err
    if mentions == "bad.trec":
        mentions = "bright__aops.trec"
    assert mentions in lines[0]
