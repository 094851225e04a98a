"""The list, download, info, export and bm25 subcommands (evaluate has its own tests)."""

from __future__ import annotations

import errno
import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ir_bright.cli import main
from tests.fixtures import bright_hub
from tests.helpers import cached

pytest.importorskip("Stemmer")  # the bm25 extra


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


DOMAINS = {**bright_hub.DOMAINS, "pony": pony}


@pytest.fixture
def bright(bright_hub):
    return bright_hub(DOMAINS)


def assert_usage_error(cli, *argv, mentions=""):
    status, out, err = cli(*argv)
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


def test_list_shows_counts_and_cache_status_without_downloading(bright, cli):
    status, out, _ = cli("list", "bright/biology")
    assert status == 0
    row = next(line.split() for line in out.splitlines() if line.startswith("bright/biology "))
    assert row == ["bright/biology", "57359", "103", "372", "no"]  # counts of the real data
    assert bright.requests == []


def test_list_glob_selects_ids(cli):
    status, out, _ = cli("list", "bright/*-long", "--format", "json")
    ids = [row["id"] for row in json.loads(out)]
    assert status == 0 and len(ids) == 8 and all(i.endswith("-long") for i in ids)


def test_list_says_yes_once_files_are_cached(bright, cli):
    cli("download", "bright/pony")
    _, out, _ = cli("list", "bright/pony", "--format", "json")
    rows = {row["id"]: row for row in json.loads(out)}
    assert rows["bright/pony"]["cached"] == "yes"
    assert rows["bright/pony"]["docs"] == 7  # counted from the cached file
    assert rows["bright/pony-long"]["cached"] == "6/7"  # all but the long documents


def test_list_pattern_matching_nothing_is_a_usage_error(cli):
    assert_usage_error(cli, "list", "nothing-like-this", mentions="no dataset id matches")


# -- --format: one meaning in every command --------------------------------------------------


def test_tsv_is_one_record_a_line_without_a_header_in_list_as_in_export(bright, cli):
    _, listed, _ = cli("list", "bright/pony", "--format", "tsv")
    _, as_json, _ = cli("list", "bright/pony", "--format", "json")
    columns = ("id", "docs", "queries", "qrels", "cached")
    expected = [
        ["?" if row[c] is None else str(row[c]) for c in columns] for row in json.loads(as_json)
    ]
    assert [line.split("\t") for line in listed.splitlines()] == expected  # no header row
    assert expected[0] == ["bright/pony", "7894", "112", "2219", "no"]  # declared counts
    _, exported, _ = cli("export", "bright/pony", "queries", "--format", "tsv")
    assert [line.split("\t")[0] for line in exported.splitlines()] == ["0", "1"]


def test_csv_starts_with_its_header_row_in_every_command(bright, cli, tmp_path):
    run = tmp_path / "run.trec"
    run.write_text("0 Q0 Pony/builtin-String_0.txt 1 1.0 t\n")
    _, scored, _ = cli("evaluate", "bright/pony", str(run), "-m", "R@10", "--format", "csv")
    assert scored.splitlines() == ["run,R@10", f"{run},0.5"]  # query 1 is missing: 0
    _, published, _ = cli("references", "--benchmark", "bright", "--format", "csv")
    header = "benchmark,name,label,setting,date,revision,measure,source,Avg"
    assert published.splitlines()[0] == header


# -- download ---------------------------------------------------------------------------------


def test_download_fetches_every_file_once_and_reports_bytes(bright, cli):
    status, out, _ = cli("download", "bright/pony", "bright/pony/gpt4-reason")
    assert status == 0
    assert out.startswith("fetched 7 file(s)")
    assert "NOT verified (IR_BRIGHT_VERIFY=0)" in out
    assert len(bright.requests) == 7 == len(set(bright.requests))
    status, out, _ = cli("download", "bright/pony")
    assert out.startswith("fetched 0 file(s)") and "7 already cached" in out
    assert len(bright.requests) == 7


def test_download_then_offline_runs_bm25_and_evaluate(bright, cli, monkeypatch, tmp_path):
    cli("download", "bright/pony")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    before = len(bright.requests)
    run = tmp_path / "run.trec"
    assert cli("bm25", "bright/pony", "-o", str(run))[0] == 0
    status, out, _ = cli("evaluate", "bright/pony", str(run), "--format", "json")
    assert status == 0 and "nDCG@10" in out
    assert len(bright.requests) == before


def test_offline_without_download_is_a_one_line_error(bright, cli, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    line = assert_usage_error(cli, "bm25", "bright/pony", mentions="not cached")
    assert "pony" in line and "unset HF_HUB_OFFLINE" in line


def test_download_offline_says_to_unset_the_flag_not_to_download(bright, cli, monkeypatch):
    """The advice leads somewhere: `ir-bright download` cannot be told to run itself."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    line = assert_usage_error(cli, "download", "bright/pony", mentions="7 file(s) are not cached")
    assert "HF_HUB_OFFLINE is set" in line and "unset HF_HUB_OFFLINE" in line
    assert "pony" in line and "ir-bright download" not in line.split(": error: ", 1)[1]
    assert bright.requests == []
    monkeypatch.delenv("HF_HUB_OFFLINE")
    assert cli("download", "bright/pony")[0] == 0
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    status, out, _ = cli("download", "bright/pony")  # everything cached: nothing to forbid
    assert status == 0 and "7 already cached" in out


def test_download_unknown_id_names_close_matches(cli):
    line = assert_usage_error(cli, "download", "bright/biolgy", mentions="unknown dataset id")
    assert "bright/biology" in line


def test_download_dry_run_lists_urls_without_fetching(bright, cli):
    status, out, _ = cli("download", "bright/pony", "--dry-run")
    assert status == 0 and len(out.splitlines()) == 7 and bright.requests == []


# -- info -------------------------------------------------------------------------------------


def test_info_gives_measures_counts_and_cache_paths(bright, cli, isolated_home):
    status, out, _ = cli("info", "bright/aops", "--format", "json")
    info = json.loads(out)
    assert status == 0
    assert info["official_measures"] == ["nDCG@10"]
    assert info["counts"]["queries"] == 111
    # BRIGHT's protocol: excluded_ids removed, 1,000 deep, the paper's query-side BM25
    assert info["protocol"] == {
        "exclusions": "excluded_ids",
        "depth": 1000,
        "measure": "nDCG@10",
        "query_side": True,
        "average": "qrels",
    }
    assert all(f["local_path"].startswith(str(isolated_home)) for f in info["files"])
    assert not any(f["cached"] for f in info["files"])
    status, text, _ = cli("info", "bright/aops")
    assert "official measures: nDCG@10" in text and "aops.docs.parquet" in text
    assert "protocol: each query's excluded_ids removed; official runs 1000 deep" in text


@pytest.mark.slow
def test_info_lists_a_built_bm25_index(bright, cli, tmp_path, monkeypatch):
    from ir_bright import hub
    from ir_bright.hub import transfer

    monkeypatch.delenv("IR_BRIGHT_VERIFY")  # the two corpora are one file only when verified
    monkeypatch.setattr(transfer, "verify", lambda *args: None)  # as if it matched the pins
    monkeypatch.setattr(hub.HubFile, "pins", lambda self: (None, None))
    cli("bm25", "bright/aops", "-o", str(tmp_path / "r.trec"))
    _, out, _ = cli("info", "bright/theoremqa-questions", "--format", "json")
    assert len(json.loads(out)["bm25_indexes"]) == 1  # shared with aops


PAPERS = {
    "bright": "2407.12883",
    "mm-bright": "2601.09562",
    "bright-pro": "2605.04018",
    "r2med": "2505.14558",
    "tempo": "2601.09523",
}
"""Each family's paper on arXiv (the papers' own pages), which its citation must name."""


@pytest.mark.parametrize("namespace, paper", PAPERS.items())
def test_info_prints_the_familys_citation_in_both_formats(cli, namespace, paper):
    status, text, _ = cli("info", namespace)
    assert status == 0
    cited = text.split("cite as:\n", 1)[1]
    entry = textwrap.dedent(cited[: cited.index("\n  }") + 4])
    assert entry.startswith("@") and paper in entry
    assert entry.count("{") == entry.count("}")  # one whole BibTeX entry, ready to paste
    status, out, _ = cli(
        "info", f"{namespace}/{next(iter(family_ids(namespace)))}", "--format", "json"
    )
    assert status == 0 and json.loads(out)["bibtex"].strip() == entry.strip()


def family_ids(namespace):
    from ir_bright.families import family_of

    return [i.split("/", 1)[1] for i in family_of(namespace).dataset_ids()[1:]]


def test_info_unknown_id_is_a_usage_error(cli):
    assert_usage_error(cli, "info", "bright/nope", mentions="unknown dataset id")


# -- export -----------------------------------------------------------------------------------


def test_export_qrels_as_trec_with_excluded_docs_at_minus_100(bright, cli):
    status, out, _ = cli("export", "bright/aops", "qrels")
    lines = [line.split() for line in out.splitlines()]
    assert status == 0
    assert ["aops_2019_AMC_12A_Problems/Problem_1", "0", "camel_1", "1"] in lines
    assert [
        "aops_2019_AMC_12A_Problems/Problem_2",
        "0",
        "aops_2019_AMC_12A_Problems/Problem_2",
        "-100",
    ] in lines


def test_export_queries_fields_as_jsonl(bright, cli):
    status, out, _ = cli(
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


def test_export_docs_as_tsv(bright, cli):
    status, out, _ = cli("export", "bright/pony", "docs")
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
def test_export_bad_input_is_a_one_line_error(bright, cli, argv, mentions):
    assert_usage_error(cli, *argv, mentions=mentions)


# -- bm25 -------------------------------------------------------------------------------------


def test_bm25_writes_a_trec_run_that_finds_the_gold_documents(bright, cli, tmp_path):
    run = tmp_path / "out" / "run.trec"
    status, out, _ = cli("bm25", "bright/pony", "-o", str(run))
    assert status == 0 and out == ""
    lines = [line.split() for line in run.read_text().splitlines()]
    assert all(len(line) == 6 and line[5] == "ir_bright-bm25-qs" for line in lines)
    best = {line[0]: line[2] for line in lines if line[3] == "1"}
    assert best == {"0": "Pony/builtin-String_0.txt", "1": "Pony/collections-List_0.txt"}
    status, out, _ = cli("evaluate", "bright/pony", str(run), "--format", "json")
    assert status == 0 and "1.0" in out


def test_bm25_by_default_is_the_papers_bm25_query_side_at_depth_1000(bright, cli):
    # the BRIGHT paper's BM25 row comes from its gensim code, which weights the query's terms
    # (query-side) and keeps each query's 1,000 best (xlang-ai/BRIGHT retrievers.py)
    default = cli("bm25", "bright/pony")
    paper = cli("bm25", "bright/pony", "--query-side", "--depth", "1000")
    bag_of_words = cli("bm25", "bright/pony", "--no-query-side")
    assert default.status == paper.status == bag_of_words.status == 0
    assert default.out == paper.out
    assert {line.split()[5] for line in bag_of_words.out.splitlines()} == {"ir_bright-bm25"}
    scores = {line.split()[4] for line in default.out.splitlines()}
    assert scores != {line.split()[4] for line in bag_of_words.out.splitlines()}


def test_bm25_lucene_norms_writes_a_pyserini_like_run_with_its_own_tag_and_index(bright, cli):
    status, out, _ = cli("bm25", "bright/pony", "--lucene-norms", "--depth", "3")
    lines = [line.split() for line in out.splitlines()]
    assert status == 0 and lines and all(line[5] == "ir_bright-bm25-lucene" for line in lines)
    scores = [float(line[4]) for line in lines]
    assert all(score > 0 for score in scores)  # matching documents only, as Pyserini
    import numpy as np

    assert all(np.float32(score) == score for score in scores)  # Lucene's float32 scores


def test_bm25_without_output_prints_the_run_to_stdout(bright, cli):
    status, out, _ = cli("bm25", "bright/pony", "--query-side", "--depth", "2")
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
        (["bm25", "bright/pony", "--query-side", "--lucene-norms"], "give one of them"),
    ],
)
def test_bm25_bad_input_is_a_one_line_error(bright, cli, argv, mentions):
    assert_usage_error(cli, *argv, mentions=mentions)


def test_bm25_output_that_is_a_folder_is_a_usage_error(bright, cli, tmp_path):
    assert_usage_error(cli, "bm25", "bright/pony", "-o", str(tmp_path), mentions="is a folder")


@pytest.mark.slow
def test_python_dash_m_runs_the_command_with_results_only_on_stdout(bright, cli):
    proc = cli.fresh("bm25", "bright/pony", "--depth", "1")
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


@pytest.mark.slow
@pytest.mark.parametrize("task", ["task1", "task2"])
def test_bm25_runs_on_mm_bright_text_tasks_and_never_ranks_excluded_ids(
    mmbright, cli, tmp_path, task
):
    import ir_datasets

    dataset_id = f"mm-bright/academia/{task}"
    run = tmp_path / "run.trec"
    assert cli("bm25", dataset_id, "-o", str(run))[0] == 0
    ranked = {tuple(line.split()[::2][:2]) for line in run.read_text().splitlines()}
    excluded = {
        (q.query_id, q.doc_id) for q in ir_datasets.load(dataset_id).qrels_iter() if q.relevance < 0
    }
    assert ranked and not ranked & excluded
    status, out, _ = cli("evaluate", dataset_id, str(run), "--format", "json")
    assert status == 0 and "nDCG@10" in out


def test_info_prints_the_mm_bright_summary_once_cached(mmbright, cli):
    cli("download", "mm-bright/academia/task1")
    status, out, _ = cli("info", "mm-bright/academia/task1", "--format", "json")
    assert status == 0 and json.loads(out)["summary"]["queries"] > 0


# -- hardening: the bad input researchers really produce ---------------------------------------


@pytest.mark.parametrize(
    "argv, mentions",
    [
        ([], "no command given: choose one of list, download"),
        (["nope"], "invalid choice: 'nope'"),
        (["list", "--format", "xml"], "invalid choice: 'xml'"),
    ],
)
def test_no_or_an_unknown_command_is_a_one_line_error(cli, argv, mentions):
    assert_usage_error(cli, *argv, mentions=mentions)


@pytest.mark.parametrize(
    "dataset_id, mentions",
    [
        ("", "the dataset id is empty"),
        ("   ", "the dataset id is empty"),
        ("BRIGHT/biology", "did you mean bright/biology?"),
        ("bright/biology/", "did you mean bright/biology?"),
        ("irds:bright/biology", "did you mean bright/biology?"),
        ("bright:pony", "did you mean bright/pony?"),
        ("bright/earth_science", "did you mean bright/earth-science?"),
        ("bright/theoremqa_questions", "did you mean bright/theoremqa-questions?"),
        ("mm-bright/academia/task5", "did you mean mm-bright/academia/task4"),
    ],
)
@pytest.mark.parametrize("command", [["info"], ["download"], ["export", "{id}", "qrels"]])
def test_misspelt_dataset_ids_name_the_right_one(cli, dataset_id, mentions, command):
    argv = [a.replace("{id}", dataset_id) for a in command]
    argv = argv if "{id}" in command else [*argv, dataset_id]
    assert_usage_error(cli, *argv, mentions=mentions)


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv", [["list"], ["info", "bright/pony"], ["evaluate", "bright/pony", "r.run"]]
)
def test_an_unusable_ir_datasets_home_is_a_one_line_error(cli, tmp_path, argv):
    """ir_datasets creates folders in its home when imported; that used to be a traceback
    from `import ir_bright`, before the command even started."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    env = {**os.environ, "IR_DATASETS_HOME": str(blocker / "home")}
    done = cli.fresh(*argv, env=env, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert str(blocker / "home") in done.stderr and "set IR_DATASETS_HOME" in done.stderr


def test_download_names_a_damaged_cached_file_and_leaves_it(bright, cli, isolated_home):
    cli("download", "bright/pony")
    path = cached(isolated_home, "bright", "pony.queries.parquet")
    damaged = path.read_bytes()[:700]  # a copy cut short
    path.write_bytes(damaged)
    before = len(bright.requests)
    line = assert_usage_error(cli, "download", "bright/pony", mentions=str(path))
    assert "not a readable parquet file" in line and "delete it" in line
    assert path.read_bytes() == damaged and len(bright.requests) == before
    line = assert_usage_error(cli, "evaluate", "bright/pony", str(path), mentions=str(path))
    assert "delete it" in line and path.read_bytes() == damaged


def test_info_marks_a_damaged_cached_file(bright, cli, isolated_home):
    cli("download", "bright/pony")
    path = cached(isolated_home, "bright", "pony.queries.parquet")
    path.write_bytes(path.read_bytes()[:700])
    status, out, _ = cli("info", "bright/pony", "--format", "json")
    damaged = {f["local_path"]: f["damaged"] for f in json.loads(out)["files"]}
    assert status == 0 and "not a readable parquet file" in damaged.pop(str(path))
    assert not any(damaged.values())
    _, text, _ = cli("info", "bright/pony")
    assert "cached but DAMAGED: delete it" in text


def test_download_without_network_is_a_one_line_error(cli, monkeypatch):
    line = assert_usage_error(cli, "download", "bright/pony", mentions="cannot reach")
    assert "127.0.0.1:9" in line  # the closed port conftest points HF_ENDPOINT at
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert_usage_error(cli, "download", "bright/pony", mentions="HF_HUB_OFFLINE is set")


def test_download_into_a_read_only_home_is_a_one_line_error(bright, cli, monkeypatch):
    home, real_open = os.environ["IR_DATASETS_HOME"], os.open

    def read_only(path, flags, *args, **kwargs):  # tests run as root: chmod would not stop them
        if flags & os.O_CREAT and os.fspath(path).startswith(home):
            raise PermissionError(errno.EROFS, "Read-only file system", os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    line = assert_usage_error(cli, "download", "bright/pony", mentions="cannot write")
    assert "set IR_DATASETS_HOME to a writable folder" in line


def test_a_full_disk_during_download_is_a_one_line_error(bright, cli, monkeypatch):
    from ir_bright.hub import transfer

    def full(file, target):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(transfer, "download", full)
    line = assert_usage_error(cli, "download", "bright/pony", mentions="No space left")
    assert "free some space" in line


@pytest.mark.parametrize(
    "argv, mentions",
    [
        (["--k1", "nan"], "--k1 must be at least 0 and finite, not nan"),
        (["--k1", "inf"], "--k1 must be at least 0 and finite, not inf"),
        (["--k1", "1e400"], "finite"),
        (["--b", "nan"], "--b must be between 0 and 1"),
        (["--b", "x"], "invalid float value"),
        (["-o", ""], "-o is empty"),
        (["--tag", ""], "--tag is empty"),
        (["--depth", "-5"], "--depth must be at least 1"),
    ],
)
def test_bm25_bad_parameters_are_refused_before_any_work(bright, cli, argv, mentions):
    assert_usage_error(cli, "bm25", "bright/pony", *argv, mentions=mentions)
    assert bright.requests == []  # nothing downloaded, nothing indexed (a NaN k1 was cached)


def test_bm25_output_under_a_file_or_unwritable_is_refused_first(bright, cli, tmp_path):
    (tmp_path / "a-file").write_text("")
    target = tmp_path / "a-file" / "run.trec"
    assert_usage_error(cli, "bm25", "bright/pony", "-o", str(target), mentions="is a file")
    assert bright.requests == []


def test_bm25_output_that_cannot_be_written_is_a_one_line_error(bright, cli, tmp_path, monkeypatch):
    from ir_bright import outputs

    monkeypatch.setattr(outputs.os, "access", lambda *args, **kwargs: False)
    target = tmp_path / "runs" / "run.trec"
    line = assert_usage_error(cli, "bm25", "bright/pony", "-o", str(target), mentions="run")
    assert "is not writable" in line and bright.requests == []
    monkeypatch.undo()

    def forbidden(*args, **kwargs):
        raise PermissionError(
            errno.EACCES, "Permission denied", str(target.parent / ".run.trec.x.part")
        )

    monkeypatch.setattr(outputs, "_pending", forbidden)
    line = assert_usage_error(cli, "bm25", "bright/pony", "-o", str(target), mentions="run")
    assert "cannot write the run" in line and "permission denied" in line.lower()
    assert not list(target.parent.iterdir())  # no .part left behind


def test_bm25_rebuilds_a_damaged_cached_index_with_one_warning(bright, cli, caplog, tmp_path):
    clean = tmp_path / "clean.trec"
    assert cli("bm25", "bright/pony", "-o", str(clean))[0] == 0
    _, out, _ = cli("info", "bright/pony", "--format", "json")
    (folder,) = json.loads(out)["bm25_indexes"]
    (Path(folder) / "ir_bright.json").write_text('{"k1": NaN')
    again = tmp_path / "again.trec"
    caplog.clear()
    assert cli("bm25", "bright/pony", "-o", str(again))[0] == 0
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and folder in warnings[0] and "rebuilding" in warnings[0]
    assert again.read_text() == clean.read_text()


def test_bm25_with_a_read_only_cache_is_a_one_line_error(bright, cli, monkeypatch):
    from ir_bright.store import lock

    def read_only(path):
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    cli("download", "bright/pony")  # the data is there, the index is not
    monkeypatch.setattr(lock, "_locked_file", read_only)
    line = assert_usage_error(cli, "bm25", "bright/pony", mentions="cannot write the BM25")
    assert "Read-only file system" in line


def test_bm25_refuses_image_documents_before_downloading(mmbright, hub, cli):
    line = assert_usage_error(cli, "bm25", "mm-bright/academia/task3", mentions="no document")
    assert "task1 or task2" in line and hub.requests == []


def hand_run(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bright__pony.trec"
    path.write_text("0 Q0 Pony/builtin-String_0.txt 1 2.0 t\n1 Q0 Pony/List.txt 1 1.0 t\n")
    return path


@pytest.mark.parametrize(
    "plot, mentions",
    [
        ("", "--plot is empty"),
        ("{tmp}", "is a folder"),
        ("{tmp}/a-file/chart.png", "a-file is a file"),
        ("{tmp}/chart.jpg", "name it FILE.png"),
        ("{tmp}/.png", "name it FILE.png"),
    ],
)
def test_report_bad_plot_paths_are_refused_before_scoring(bright, cli, tmp_path, plot, mentions):
    (tmp_path / "a-file").write_text("")
    runs = hand_run(tmp_path / "mine").parent
    plot = plot.replace("{tmp}", str(tmp_path))
    assert_usage_error(cli, "report", str(runs), "-b", "bright", "--plot", plot, mentions=mentions)
    assert bright.requests == []  # nothing was scored


def test_report_unwritable_plot_folder_is_refused_before_scoring(
    bright, cli, tmp_path, monkeypatch
):
    runs = hand_run(tmp_path / "mine").parent
    monkeypatch.setattr(os, "access", lambda *args, **kwargs: False)
    line = assert_usage_error(
        cli,
        "report",
        str(runs),
        "-b",
        "bright",
        "--plot",
        str(tmp_path / "c.png"),
        mentions="plot",
    )
    assert "is not writable" in line and bright.requests == []


def test_report_plot_into_a_new_folder_is_written(bright, cli, tmp_path):
    pytest.importorskip("matplotlib")
    runs = hand_run(tmp_path / "mine").parent
    chart = tmp_path / "figures" / "bright.png"
    status, out, _ = cli("report", str(runs), "-b", "bright", "--plot", str(chart))
    assert status == 0 and "| mine |" in out
    assert chart.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    "argument, mentions",
    [("bright/pony=", "no path after '='"), ("bright/pony={tmp}", "is a folder, not a run file")],
)
def test_report_id_path_arguments_name_the_problem(cli, tmp_path, argument, mentions):
    argument = argument.replace("{tmp}", str(tmp_path))
    assert_usage_error(cli, "report", argument, "-b", "bright", mentions=mentions)


def test_report_runs_of_the_wrong_dataset_are_named(bright, cli, tmp_path):
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "bright__aops.trec").write_text(hand_run(tmp_path / "mine").read_text())
    line = assert_usage_error(cli, "report", str(folder), "-b", "bright", mentions="aops.trec")
    assert "wrong dataset?" in line


def test_export_trec_qrels_fields_name_the_relevance_columns(bright, cli):
    line = assert_usage_error(
        cli,
        "export",
        "bright/pony",
        "qrels",
        "--fields",
        "query_id",
        "relevance",
        mentions="--fields query_id",
    )
    assert "--fields relevance" in line


def test_export_tsv_without_fields_logs_nothing(bright, cli):
    status, out, err = cli("export", "bright/pony", "queries")
    assert status == 0 and len(out.splitlines()) == 2 and "[INFO]" not in err


def test_export_jsonl_keeps_list_fields_and_quiet_silences_ir_datasets(mmbright, cli):
    status, out, err = cli("export", "mm-bright/academia/task2", "queries", "--format", "jsonl")
    first = json.loads(out.splitlines()[0])
    assert status == 0 and first["gold_answers"] and first["image_ids"]
    status, out, err = cli("-q", "export", "mm-bright/academia/task2", "queries")
    assert status == 0 and out and err == ""


def test_an_unexpected_failure_is_one_line_with_exit_status_1(capsys, monkeypatch):
    from ir_bright import inventory

    def boom(dataset_id):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(inventory, "describe", boom)
    status = main(["info", "bright/pony"])
    out, err = capsys.readouterr()
    assert status == 1 and out == "" and "Traceback" not in err
    assert err.splitlines() == [
        "ir-bright info: internal error: RuntimeError: boom second line (a bug: please report "
        "it; rerun with -v for the traceback)"
    ]
    assert main(["-v", "info", "bright/pony"]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_the_machines_refusals_exit_2_naming_the_file(cli, monkeypatch):
    from ir_bright import inventory

    def denied(dataset_id):
        raise PermissionError(errno.EACCES, "Permission denied", "/data/cache")

    monkeypatch.setattr(inventory, "describe", denied)
    assert_usage_error(
        cli, "info", "bright/pony", mentions="/data/cache: Permission denied: check its"
    )


def test_a_network_failure_outside_the_hub_is_one_line(cli, monkeypatch):
    """ir_datasets' own downloads (ids ir_bright does not serve) fail with requests' errors."""
    import requests

    from ir_bright import inventory

    def offline(dataset_id):
        raise requests.ConnectionError("Max retries exceeded with url: /scifact.zip")

    monkeypatch.setattr(inventory, "describe", offline)
    line = assert_usage_error(cli, "info", "beir/scifact", mentions="Max retries exceeded")
    assert "check the network" in line


def into_a_closed_pipe(argv, env=None, read_first=False):
    """Exit status and stderr of ``python -m ir_bright ARGV`` whose stdout reader goes away
    before the command writes (or, with ``read_first``, after its first byte)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ir_bright", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    if read_first:
        proc.stdout.read(1)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    return proc.wait(timeout=120), err


def assert_quiet_end(status, err):
    assert status == 0, err
    assert "Traceback" not in err and "Exception ignored" not in err and "Broken" not in err


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv", [["list"], ["list", "--format", "json"], ["export", "bright/pony", "qrels"]]
)
def test_a_closed_stdout_ends_quietly(bright, argv):
    """`ir-bright list | head -1`: the reader goes away before the command writes."""
    assert_quiet_end(*into_a_closed_pipe(argv))


@pytest.mark.slow
def test_help_into_a_closed_pipe_ends_quietly_every_time():
    """`ir-bright --help | head -1`. Help is written when argparse exits, into stdout's
    buffer; a reader gone by then used to show only in the flush at interpreter exit, which
    Python reports as "Exception ignored" with status 120 (every time with buffered stdout,
    now and then with PYTHONUNBUFFERED). Every combination, many times over."""
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    unbuffered = {**buffered, "PYTHONUNBUFFERED": "1"}
    for attempt in range(20):
        env = (buffered, unbuffered)[attempt % 2]
        argv = (["--help"], ["bm25", "--help"])[attempt // 2 % 2]
        assert_quiet_end(*into_a_closed_pipe(argv, env, read_first=attempt // 4 % 2 == 1))
