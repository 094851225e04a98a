"""The list, download, info, export and bm25 subcommands (evaluate has its own tests)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ir_bright.cli import main
from tests.fixtures import bright_hub

pytest.importorskip("bm25s")


def pony():
    """A small pony domain: the fixture BRIGHT has none."""
    docs = {
        f"Pony/{i}_control-structures_{i}.txt": f"pony actor behaviour number {i}" for i in range(5)
    }
    docs["Pony/builtin-String_0.txt"] = "a String in Pony holds bytes; concatenate with add"
    docs["Pony/collections-List_0.txt"] = "a List is a sequence; push appends an element"
    examples = [
        bright_hub.example(
            "0", "How do I concatenate two String values in Pony?", ["Pony/builtin-String_0.txt"]
        ),
        bright_hub.example("1", "append an element to a List", ["Pony/collections-List_0.txt"]),
    ]
    long_docs = {"Pony/builtin-String.txt": "the String page", "Pony/List.txt": "the List page"}
    return {"documents": docs, "long_documents": long_docs, "examples": examples}


@pytest.fixture
def bright(hub, hub_root, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    hub.rows = bright_hub.write_bright(hub_root, {**bright_hub.DOMAINS, "pony": pony})
    return hub


def cli(capsys, *argv):
    """Run the command; return (exit status, stdout, stderr)."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def assert_usage_error(capsys, *argv, mentions=""):
    try:
        status = main(list(argv))
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    out, err = capsys.readouterr()
    assert status == 2, err
    assert out == ""
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert mentions.lower() in lines[0].lower()
    return lines[0]


# -- help -------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["list", "download", "info", "export", "bm25", "report"])
def test_every_subcommand_has_help_with_examples(capsys, command):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert "examples:" in capsys.readouterr().out


# -- list -------------------------------------------------------------------------------------


def test_list_shows_counts_and_cache_status_without_downloading(bright, capsys):
    status, out, _ = cli(capsys, "list", "bright/biology")
    assert status == 0
    row = next(line.split() for line in out.splitlines() if line.startswith("bright/biology "))
    assert row == ["bright/biology", "57359", "103", "372", "no"]  # counts of the real data
    assert bright.requests == []


def test_list_glob_selects_ids(capsys):
    status, out, _ = cli(capsys, "list", "bright/*-long", "--format", "json")
    ids = [row["id"] for row in json.loads(out)]
    assert status == 0 and len(ids) == 8 and all(i.endswith("-long") for i in ids)


def test_list_says_yes_once_files_are_cached(bright, capsys):
    cli(capsys, "download", "bright/pony")
    _, out, _ = cli(capsys, "list", "bright/pony", "--format", "json")
    rows = {row["id"]: row for row in json.loads(out)}
    assert rows["bright/pony"]["cached"] == "yes"
    assert rows["bright/pony"]["docs"] == 7  # counted from the cached file
    assert rows["bright/pony-long"]["cached"] == "6/7"  # all but the long documents


def test_list_pattern_matching_nothing_is_a_usage_error(capsys):
    assert_usage_error(capsys, "list", "nothing-like-this", mentions="no dataset id matches")


# -- download ---------------------------------------------------------------------------------


def test_download_fetches_every_file_once_and_reports_bytes(bright, capsys):
    status, out, _ = cli(capsys, "download", "bright/pony", "bright/pony/gpt4-reason")
    assert status == 0
    assert out.startswith("fetched 7 file(s)")
    assert "NOT verified (IR_BRIGHT_VERIFY=0)" in out
    assert len(bright.requests) == 7 == len(set(bright.requests))
    status, out, _ = cli(capsys, "download", "bright/pony")
    assert out.startswith("fetched 0 file(s)") and "7 already cached" in out
    assert len(bright.requests) == 7


def test_download_then_offline_runs_bm25_and_evaluate(bright, capsys, monkeypatch, tmp_path):
    cli(capsys, "download", "bright/pony")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    before = len(bright.requests)
    run = tmp_path / "run.trec"
    assert cli(capsys, "bm25", "bright/pony", "-o", str(run))[0] == 0
    status, out, _ = cli(capsys, "evaluate", "bright/pony", str(run), "--format", "json")
    assert status == 0 and "nDCG@10" in out
    assert len(bright.requests) == before


def test_offline_without_download_is_a_one_line_error(bright, capsys, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert_usage_error(capsys, "bm25", "bright/pony", mentions="not cached")


def test_download_unknown_id_names_close_matches(capsys):
    line = assert_usage_error(capsys, "download", "bright/biolgy", mentions="unknown dataset id")
    assert "bright/biology" in line


def test_download_dry_run_lists_urls_without_fetching(bright, capsys):
    status, out, _ = cli(capsys, "download", "bright/pony", "--dry-run")
    assert status == 0 and len(out.splitlines()) == 7 and bright.requests == []


# -- info -------------------------------------------------------------------------------------


def test_info_gives_measures_counts_and_cache_paths(bright, capsys, isolated_home):
    status, out, _ = cli(capsys, "info", "bright/aops", "--format", "json")
    info = json.loads(out)
    assert status == 0
    assert info["official_measures"] == ["nDCG@10"]
    assert info["counts"]["queries"] == 111
    assert all(f["local_path"].startswith(str(isolated_home)) for f in info["files"])
    assert not any(f["cached"] for f in info["files"])
    status, text, _ = cli(capsys, "info", "bright/aops")
    assert "official measures: nDCG@10" in text and "aops.docs.parquet" in text


def test_info_lists_a_built_bm25_index(bright, capsys, tmp_path, monkeypatch):
    from ir_bright import hub

    monkeypatch.delenv("IR_BRIGHT_VERIFY")  # the two corpora are one file only when verified
    monkeypatch.setattr(hub, "_verify", lambda *args: None)  # as if the fixture matched the pins
    cli(capsys, "bm25", "bright/aops", "-o", str(tmp_path / "r.trec"))
    _, out, _ = cli(capsys, "info", "bright/theoremqa-questions", "--format", "json")
    assert len(json.loads(out)["bm25_indexes"]) == 1  # shared with aops


def test_info_unknown_id_is_a_usage_error(capsys):
    assert_usage_error(capsys, "info", "bright/nope", mentions="unknown dataset id")


# -- export -----------------------------------------------------------------------------------


def test_export_qrels_as_trec_with_excluded_docs_at_minus_100(bright, capsys):
    status, out, _ = cli(capsys, "export", "bright/aops", "qrels")
    lines = [line.split() for line in out.splitlines()]
    assert status == 0
    assert ["aops_2019_AMC_12A_Problems/Problem_1", "0", "camel_1", "1"] in lines
    assert [
        "aops_2019_AMC_12A_Problems/Problem_2",
        "0",
        "aops_2019_AMC_12A_Problems/Problem_2",
        "-100",
    ] in lines


def test_export_queries_fields_as_jsonl(bright, capsys):
    status, out, _ = cli(
        capsys,
        "export",
        "bright/biology",
        "queries",
        "--fields",
        "query_id",
        "gpt4_reason",
        "--format",
        "jsonl",
    )
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 0
    assert rows == [
        {"query_id": "0", "gpt4_reason": bright_hub.llm_text("gpt4", "0")},
        {"query_id": "1", "gpt4_reason": bright_hub.llm_text("gpt4", "1")},
    ]


def test_export_docs_as_tsv(bright, capsys):
    status, out, _ = cli(capsys, "export", "bright/pony", "docs")
    docs = dict(line.split("\t") for line in out.splitlines())
    assert status == 0 and docs == pony()["documents"]


@pytest.mark.parametrize(
    "argv, mentions",
    [
        (["export", "bright/pony", "docs", "--format", "trec"], "does not apply to docs"),
        (["export", "bright/pony", "queries", "--fields", "nope"], "no field nope"),
        (["export", "bright/pony", "things"], "invalid choice"),
        (["export", "bright/ponyy", "docs"], "unknown dataset id"),
    ],
)
def test_export_bad_input_is_a_one_line_error(bright, capsys, argv, mentions):
    assert_usage_error(capsys, *argv, mentions=mentions)


# -- bm25 -------------------------------------------------------------------------------------


def test_bm25_writes_a_trec_run_that_finds_the_gold_documents(bright, capsys, tmp_path):
    run = tmp_path / "out" / "run.trec"
    status, out, _ = cli(capsys, "bm25", "bright/pony", "-o", str(run))
    assert status == 0 and out == ""
    lines = [line.split() for line in run.read_text().splitlines()]
    assert all(len(line) == 6 and line[5] == "ir_bright-bm25" for line in lines)
    best = {line[0]: line[2] for line in lines if line[3] == "1"}
    assert best == {"0": "Pony/builtin-String_0.txt", "1": "Pony/collections-List_0.txt"}
    status, out, _ = cli(capsys, "evaluate", "bright/pony", str(run), "--format", "json")
    assert status == 0 and "1.0" in out


def test_bm25_without_output_prints_the_run_to_stdout(bright, capsys):
    status, out, _ = cli(capsys, "bm25", "bright/pony", "--query-side", "--depth", "2")
    lines = out.splitlines()
    assert status == 0 and len(lines) == 4 and lines[0].endswith("ir_bright-bm25-qs")


@pytest.mark.parametrize(
    "argv, mentions",
    [
        (["bm25", "bright/pony", "--b", "2"], "--b must be between 0 and 1"),
        (["bm25", "bright/pony", "--k1", "-1"], "--k1 must be at least 0"),
        (["bm25", "bright/pony", "--depth", "0"], "--depth must be at least 1"),
        (["bm25", "bright/pony", "--k1", "x"], "invalid float value"),
        (["bm25", "bright/pny"], "did you mean"),
        (["bm25", "bright/pony", "--tag", "a b"], "white space"),
    ],
)
def test_bm25_bad_input_is_a_one_line_error(bright, capsys, argv, mentions):
    assert_usage_error(capsys, *argv, mentions=mentions)


def test_bm25_output_that_is_a_folder_is_a_usage_error(bright, capsys, tmp_path):
    assert_usage_error(capsys, "bm25", "bright/pony", "-o", str(tmp_path), mentions="is a folder")


def test_python_dash_m_runs_the_command_with_results_only_on_stdout(bright, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "ir_bright", "bm25", "bright/pony", "--depth", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert [line.split()[2] for line in proc.stdout.splitlines()] == [
        "Pony/builtin-String_0.txt",
        "Pony/collections-List_0.txt",
    ]
    assert "indexing" in proc.stderr  # logs go to stderr


# -- MM-BRIGHT --------------------------------------------------------------------------------


@pytest.fixture
def mmbright(hub, hub_root, monkeypatch):
    from tests.fixtures import mmbright_hub

    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    return mmbright_hub.write_mmbright(hub_root)


@pytest.mark.parametrize("task", ["task1", "task2"])
def test_bm25_runs_on_mm_bright_text_tasks_and_never_ranks_excluded_ids(
    mmbright, capsys, tmp_path, task
):
    import ir_datasets

    dataset_id = f"mm-bright/academia/{task}"
    run = tmp_path / "run.trec"
    assert cli(capsys, "bm25", dataset_id, "-o", str(run))[0] == 0
    ranked = {tuple(line.split()[::2][:2]) for line in run.read_text().splitlines()}
    excluded = {
        (q.query_id, q.doc_id) for q in ir_datasets.load(dataset_id).qrels_iter() if q.relevance < 0
    }
    assert ranked and not ranked & excluded
    status, out, _ = cli(capsys, "evaluate", dataset_id, str(run), "--format", "json")
    assert status == 0 and "nDCG@10" in out


def test_info_prints_the_mm_bright_summary_once_cached(mmbright, capsys):
    cli(capsys, "download", "mm-bright/academia/task1")
    status, out, _ = cli(capsys, "info", "mm-bright/academia/task1", "--format", "json")
    assert status == 0 and json.loads(out)["summary"]["queries"] > 0
