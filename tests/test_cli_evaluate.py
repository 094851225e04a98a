"""``ir-bright evaluate``: output formats, values against the reference, one-line errors."""

from __future__ import annotations

import csv
import gzip
import io
import json
import random
import re

import ir_datasets
import pytest

import ir_bright  # noqa: F401
from ir_bright.cli import main
from tests import protocol
from tests.helpers import json_scores, run_text, write_run

TEST_ID = "ir-bright-test/cli"
QRELS = [("1", "gold-a", 1), ("1", "own", -100), ("2", "gold-b", 2), ("2", "gold-c", 1)]
RUN = [("1", "own", 9.0), ("1", "x", 5.0), ("1", "gold-a", 4.0), ("2", "gold-c", 3.0)]


@pytest.fixture
def dataset(monkeypatch):
    """Register a tiny dataset under TEST_ID (official measures nDCG@10 and R@1)."""

    def add(qrels=QRELS, official=("nDCG@10", "R@1")):
        tiny = protocol.tiny_dataset(qrels, official, TEST_ID)
        monkeypatch.setitem(ir_datasets.registry._registered, TEST_ID, tiny)
        return tiny

    add()
    return add


def test_table_has_a_header_and_one_row_per_run(dataset, tmp_path, cli):
    a, b = str(write_run(tmp_path / "a.run", RUN)), str(write_run(tmp_path / "b.run", RUN[:2]))
    status, out, _ = cli("evaluate", TEST_ID, a, b)
    lines = out.splitlines()
    assert status == 0
    assert lines[0].split() == ["run", "nDCG@10", "R@1"]
    expected = protocol.mean("nDCG@10", QRELS, RUN)
    assert lines[1].split() == [a, f"{expected:.4f}", f"{protocol.mean('R@1', QRELS, RUN):.4f}"]
    assert lines[2].split()[0] == b and len(lines) == 3


def test_json_equals_the_reference_on_a_random_realistic_run(dataset, tmp_path, cli):
    qrels, run = protocol.random_case(random.Random(21), graded=True)
    dataset(qrels, official=("nDCG@10", "R@1", "RR"))
    path = str(write_run(tmp_path / "r.run", run))
    status, out, _ = cli("evaluate", TEST_ID, path, "--format", "json")
    assert status == 0
    got = json.loads(out)[path]
    for name in ["nDCG@10", "R@1", "RR"]:
        assert got[name] == pytest.approx(protocol.mean(name, qrels, run), abs=1e-12)


def test_csv_per_query_has_every_scored_query_and_a_mean_row(dataset, tmp_path, cli):
    path = str(write_run(tmp_path / "r.run", RUN))
    status, out, _ = cli("evaluate", TEST_ID, path, "--per-query", "--format", "csv", "-m", "RR")
    rows = list(csv.reader(io.StringIO(out)))
    assert status == 0
    assert rows[0] == ["run", "query", "RR"]
    assert [(r[0], r[1], float(r[2])) for r in rows[1:]] == [
        (path, "1", 0.5),
        (path, "2", 1.0),
        (path, "all", 0.75),
    ]


def test_per_query_table_and_json(dataset, tmp_path, cli):
    path = str(write_run(tmp_path / "r.run", RUN))
    _, out, _ = cli("evaluate", TEST_ID, path, "--per-query")
    assert [line.split()[1] for line in out.splitlines()] == ["query", "1", "2", "all"]
    _, out, _ = cli("evaluate", TEST_ID, path, "--per-query", "--format", "json", "-m", "P@1")
    assert json_scores(out) == {path: {"1": {"P@1": 0.0}, "2": {"P@1": 1.0}, "all": {"P@1": 0.5}}}


def test_measure_option_is_repeatable_and_sets_the_columns(dataset, tmp_path, cli):
    path = write_run(tmp_path / "r.run", RUN)
    _, out, _ = cli("evaluate", TEST_ID, path, "-m", "RR", "--measure", "P@1", "-m", "AP@100")
    assert out.splitlines()[0].split() == ["run", "RR", "P@1", "AP@100"]


def test_gzip_run_files_are_read(dataset, tmp_path, cli):
    plain = cli("evaluate", TEST_ID, write_run(tmp_path / "r.run", RUN), "--format", "json")[1]
    packed = cli(
        "evaluate", TEST_ID, write_run(tmp_path / "r.gz", RUN, compress=True), "--format", "json"
    )
    assert list(json_scores(packed[1]).values()) == list(json_scores(plain).values())


def test_help_shows_examples(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["evaluate", "--help"])
    out = capsys.readouterr().out
    assert exit_.value.code == 0
    assert "examples:" in out and "ir-bright evaluate bright/aops bm25.run" in out


@pytest.mark.parametrize(
    "lines, extra, message",
    [
        ("1 Q0 own 1 9.0\n", [], r"r\.run line 1: expected 6 columns"),
        ("1 Q0 own 1 9.0 t\n1 Q0 x 2 nan t\n", [], r"r\.run line 2: score nan is not finite"),
        ("1 Q0 own 1 inf t\n", [], r"r\.run line 1: score inf is not finite"),
        ("1 Q0 x 1 2 t\n1 Q0 x 2 1 t\n", [], r"r\.run line 2: query '1' ranks doc 'x' twice"),
        ("1 Q0 x 1 2 t\n", ["-m", "nDCG@@10"], r"cannot read measure 'nDCG@@10'"),
        ("1 Q0 x 1 2 t\n", ["-m", "MAP@x"], r"cannot read measure 'MAP@x'"),
        ("7 Q0 x 1 2 t\n8 Q0 x 1 2 t\n", [], r"2 of its 2 queries .* wrong dataset"),
    ],
)
def test_bad_input_exits_2_with_one_line(dataset, tmp_path, cli, lines, extra, message):
    path = tmp_path / "r.run"
    path.write_text(lines)
    status, out, err = cli("evaluate", TEST_ID, path, *extra)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("ir-bright evaluate: error: ")
    assert re.search(message, err)


def test_unknown_dataset_and_missing_file_exit_2(dataset, tmp_path, cli):
    status, _, err = cli("evaluate", TEST_ID + "x", write_run(tmp_path / "r.run", RUN))
    assert status == 2 and f"did you mean {TEST_ID}?" in err
    status, _, err = cli("evaluate", TEST_ID, tmp_path / "absent.run")
    assert status == 2 and "absent.run: no such run file" in err


def test_nothing_is_printed_when_a_later_run_is_bad(dataset, tmp_path, cli):
    good = write_run(tmp_path / "good.run", RUN)
    (tmp_path / "bad.run").write_text("1 Q0 x 1 oops t\n")
    status, out, err = cli("evaluate", TEST_ID, good, tmp_path / "bad.run")
    assert (status, out) == (2, "")
    assert "bad.run line 1: score 'oops' is not a number" in err


SCRIPT = """
import sys
import ir_datasets
from tests import protocol
from ir_bright.cli import main
qrels = [("1", "gold-a", 1), ("2", "gold-b", 1), ("3", "gold-c", 1)]
ir_datasets.registry._registered["t/sub"] = protocol.tiny_dataset(qrels, ["nDCG@10"], "t/sub")
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.slow
def test_missing_queries_warn_on_stderr_while_results_go_to_stdout(cli, tmp_path):
    path = str(write_run(tmp_path / "r.run", [("1", "gold-a", 1.0)]))
    done = cli.fresh("evaluate", "t/sub", path, "--format", "json", script=SCRIPT)
    assert done.returncode == 0
    assert json_scores(done.stdout) == {path: {"nDCG@10": pytest.approx(1 / 3)}}
    assert "no ranking for 2 of the 3 queries of t/sub" in done.stderr


@pytest.mark.slow
def test_a_malformed_run_gives_no_traceback(cli, tmp_path):
    (tmp_path / "r.run").write_text("1 Q0 gold-a\n")
    done = cli.fresh("evaluate", "t/sub", tmp_path / "r.run", script=SCRIPT)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        f"ir-bright evaluate: error: {tmp_path / 'r.run'} line 1: expected 6 columns "
        "'query_id Q0 doc_id rank score run_name', found 3"
    ]


@pytest.mark.slow
def test_a_misspelt_real_dataset_id_names_the_close_ones(cli, tmp_path):
    done = cli.fresh("evaluate", "bright/aopz", write_run(tmp_path / "r.run", RUN))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "did you mean bright/aops" in done.stderr


# -- hardening: what researchers really pass ----------------------------------------------------


def gzipped(text: str) -> bytes:
    return gzip.compress(text.encode())


def corrupt_gzip() -> bytes:
    body = bytearray(gzipped(run_text(RUN) * 50))
    for i in range(20, 60):  # inside the deflate stream: zlib.error, not EOFError
        body[i] ^= 0x55
    return bytes(body)


def assert_one_line_error(status, out, err, mentions):
    assert status == 2, err
    assert out == ""
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("ir-bright evaluate: error: "), err
    assert re.search(mentions, err), err


@pytest.mark.parametrize(
    "content, mentions",
    [
        (b"", r"r\.run: the run file is empty"),
        (b"\n  \n", r"r\.run: the run file is empty"),
        (b"\x00\x01garbage\xff" * 40, r"r\.run: not a text or gzip run file \(binary data\)"),
        (b"PAR1\x15\x04\x00\x00" + b"\x00" * 64, r"r\.run: not a text or gzip run file"),
        (b"1 Q0 x 1 2 t\n1 Q0 \xe9t\xe9 2 1 t\n", r"r\.run line 2: not a text or gzip run file"),
        (gzipped(run_text(RUN))[:30], r"r\.run: damaged gzip file"),
        (b"\x1f\x8bnot really gzip", r"r\.run: damaged gzip file"),
        (corrupt_gzip(), r"r\.run: damaged gzip file \(Error -3"),
        (gzipped(""), r"r\.run: the run file is empty"),
        (
            (run_text(RUN) * 800 + "1 Q0 x\0y 1 2 t\n").encode(),
            r"r\.run line 3201: the doc id 'x\\x00y' holds a control character",
        ),
        (b"1 Q0 x 1 2 t\n1 Q0 " + b"y" * 70000 + b" 1 2 t\n", r"r\.run line 2: longer than 64 KiB"),
        (gzipped("1 Q0 x 1 2 t\n" + "z" * (1 << 20)), r"r\.run line 2: longer than 64 KiB"),
    ],
    ids=[
        "empty",
        "blank",
        "binary",
        "parquet",
        "latin-1",
        "truncated-gzip",
        "gzip-magic-only",
        "corrupt-gzip",
        "empty-gzip",
        "nul-after-8kb",
        "long-line",
        "gzip-huge-line",
    ],
)
def test_unusable_run_files_exit_2_with_one_line(dataset, tmp_path, cli, content, mentions):
    path = tmp_path / "r.run"
    path.write_bytes(content)
    assert_one_line_error(*cli("evaluate", TEST_ID, path), mentions)


def test_a_folder_or_an_unreadable_run_file_exits_2(dataset, tmp_path, cli, monkeypatch):
    from ir_bright.runs import run_file as runs

    assert_one_line_error(*cli("evaluate", TEST_ID, tmp_path), "is a folder, not a run file")
    path = write_run(tmp_path / "secret.run", RUN)

    def forbidden(file, *args, **kwargs):  # tests run as root: chmod 000 would not stop them
        raise PermissionError(13, "Permission denied", str(file))

    monkeypatch.setattr(runs, "open", forbidden, raising=False)
    assert_one_line_error(
        *cli("evaluate", TEST_ID, path), r"secret\.run: cannot read it \(Permission denied\)"
    )


def test_a_byte_order_mark_is_not_part_of_the_first_query_id(dataset, tmp_path, cli):
    """Windows tools write one; it used to make the first line's query id unknown."""
    rows = [("1", "gold-a", 4.0), ("1", "x", 5.0), ("2", "gold-c", 3.0)]
    plain = cli("evaluate", TEST_ID, write_run(tmp_path / "a.run", rows), "--format", "json")[1]
    (tmp_path / "bom.run").write_bytes(b"\xef\xbb\xbf" + run_text(rows).encode())
    status, out, err = cli("evaluate", TEST_ID, tmp_path / "bom.run", "--format", "json")
    assert status == 0 and "unknown" not in err
    assert list(json_scores(out).values()) == list(json_scores(plain).values())


@pytest.mark.slow
@pytest.mark.parametrize("compress", [False, True])
def test_a_run_from_a_pipe_is_read_whole(cli, tmp_path, compress):
    """``-`` is stdin; a pipe (``<(zcat run.gz)``, /dev/stdin) is opened once, so the bytes
    read to tell gzip from text are not lost (they were: the run scored 0 without an error)."""
    text = run_text([("1", "gold-a", 2.0), ("2", "gold-b", 1.0), ("3", "gold-c", 1.0)])
    data = gzipped(text) if compress else text.encode()
    for path in ("-", "/dev/stdin"):
        done = cli.fresh(
            "evaluate", "t/sub", path, "--format", "json", script=SCRIPT, input=data, text=False
        )
        assert done.returncode == 0, done.stderr
        assert list(json_scores(done.stdout).values()) == [{"nDCG@10": 1.0}]


@pytest.mark.parametrize(
    "measure, mentions",
    [
        ("nDCG@0", r"'nDCG@0': the cutoff must be at least 1"),  # pytrec_eval aborted on it
        ("P@0", r"'P@0': the cutoff must be at least 1"),
        ("Official(R@0)", r"the cutoff must be at least 1"),
        ("nDCG@10,R@1", r"give one measure per -m, e.g. -m nDCG@10 -m R@100"),
        ("nDCG@10 R@1", r"give one measure per -m"),
        ("ndcg_cut_10", r"did you mean nDCG@10\? ndcg_cut_10 is trec_eval's name"),
        ("map", r"did you mean AP\?"),
        ("nDCG@@10", r"write it like nDCG@10\)"),  # nDCG has no rel parameter
        ("AP@@10", r"write it like AP@10 or AP\(rel=2\)@10"),
        ("", r"cannot read measure ''"),
    ],
)
def test_bad_measures_exit_2_with_a_hint(dataset, tmp_path, cli, measure, mentions):
    path = write_run(tmp_path / "r.run", RUN)
    assert_one_line_error(*cli("evaluate", TEST_ID, path, "-m", measure), mentions)


def test_a_run_over_another_corpus_exits_2_and_force_scores_it(dataset, tmp_path, cli, caplog):
    """The short/long mix-up: the queries are the dataset's, no document is judged."""
    path = write_run(tmp_path / "long.run", [("1", "page-a", 2.0), ("2", "page-b", 1.0)])
    status, out, err = cli("evaluate", TEST_ID, path)
    assert status == 2 and out == ""
    (line,) = err.splitlines()
    assert "none of its 2 ranked documents is judged or excluded" in line
    assert "so it is not scored" in line and "--force" in line
    status, out, _ = cli("evaluate", TEST_ID, path, "--force")
    assert status == 0 and out.splitlines()[1].split()[1:] == ["0.0000", "0.0000"]
    assert "none of its 2 ranked documents is judged" in caplog.text
    caplog.clear()
    cli("evaluate", TEST_ID, write_run(tmp_path / "ok.run", RUN))
    assert "none of its" not in caplog.text


def test_a_run_ranking_many_unscored_queries_is_not_the_wrong_dataset(dataset, tmp_path, cli):
    """MM-BRIGHT task 3 scores only queries with a positive image; a run ranks them all."""
    rows = RUN + [(str(q), "x", 1.0) for q in range(10, 20)]  # 10 queries without qrels
    status, out, _ = cli(
        "evaluate", TEST_ID, write_run(tmp_path / "all.run", rows), "--format", "json"
    )
    plain = cli("evaluate", TEST_ID, write_run(tmp_path / "r.run", RUN), "--format", "json")[1]
    assert status == 0
    assert list(json_scores(out).values()) == list(json_scores(plain).values())


def test_a_gzip_bomb_and_an_oversized_run_exit_2_early(dataset, tmp_path, cli, monkeypatch):
    from ir_bright.runs import inflate

    monkeypatch.setattr(inflate, "_RATIO_GRACE", 1 << 20)
    path = tmp_path / "bomb.gz"
    path.write_bytes(gzipped(run_text(RUN) + "\n" * (8 << 20)))
    assert_one_line_error(*cli("evaluate", TEST_ID, path), r"bomb\.gz: inflates to over 100 times")
    monkeypatch.setenv("IR_BRIGHT_MAX_RUN_BYTES", "100")
    big = write_run(tmp_path / "big.run", RUN * 5)
    assert_one_line_error(*cli("evaluate", TEST_ID, big), r"big\.run: over 100 bytes of run text")


def pony():
    """A domain sharing biology's query id 0, with documents of its own."""
    from tests.fixtures import bright_hub as fixtures

    docs = {f"Pony/doc_{i}.txt": f"pony text {i}" for i in range(4)}
    examples = [fixtures.example("0", "pony?", ["Pony/doc_1.txt"])]
    return {"documents": docs, "examples": examples}


@pytest.fixture
def pony_cached(bright_hub, cli, tmp_path):
    """Fixture biology and pony on the hub, pony downloaded; a run for pony."""
    from tests.fixtures import bright_hub as fixtures

    bright_hub({"biology": fixtures.biology, "pony": pony})
    assert cli("download", "bright/pony")[0] == 0
    return write_run(tmp_path / "pony.run", [("0", "Pony/doc_1.txt", 2.0)])


@pytest.mark.parametrize(
    "command",
    [
        ["evaluate", "bright/biology", "RUN"],
        ["evaluate", "bright/biology", "RUN", "--stock"],
        ["compare", "bright/biology", "RUN", "RUN.copy"],
        ["report", "bright/biology=RUN", "-b", "bright", "-m", "nDCG@10"],
    ],
)
def test_a_run_of_another_cached_domain_exits_2_naming_it(pony_cached, cli, command):
    """Query ids 0, 1 are shared by the StackExchange-like domains; the documents are not.
    biology's corpus is not cached: pony's judgements tell."""
    copy = pony_cached.with_suffix(".copy")
    copy.write_bytes(pony_cached.read_bytes())
    paths = {"RUN": str(pony_cached), "RUN.copy": str(copy)}
    argv = [paths.get(a, a).replace("=RUN", f"={pony_cached}") for a in command]
    status, out, err = cli(*argv)
    assert status == 2 and out == "", err
    (line,) = err.splitlines()
    assert line.startswith(f"ir-bright {command[0]}: error: ")
    assert "so it is not scored" in line
    assert "the run seems to be for bright/pony" in line


def test_a_run_none_of_whose_documents_is_in_the_cached_corpus_exits_2(pony_cached, cli):
    cli("download", "bright/biology")
    status, out, err = cli("evaluate", "bright/biology", pony_cached)
    assert status == 2 and out == ""
    assert "none of its documents (e.g. 'Pony/doc_1.txt') is in the corpus of bright/biology" in err
    assert "the run seems to be for bright/pony" in err


def test_a_run_of_corpus_documents_none_judged_is_scored_only_when_forced(
    pony_cached, cli, tmp_path, caplog
):
    """A bad run, maybe not a wrong one: its document is biology's, not judged for query 1.
    Nothing of the family fits it better: refused without naming another dataset."""
    cli("download", "bright/biology")
    run = write_run(tmp_path / "bad.run", [("1", "insects_light/Phototaxis_5.txt", 1.0)])
    status, out, err = cli("evaluate", "bright/biology", run)
    assert status == 2 and out == ""
    assert "no cached dataset of bright holds or judges its documents" in err
    status, out, _ = cli("evaluate", "bright/biology", run, "--format", "json", "--force")
    assert status == 0
    assert json_scores(out)[str(run)]["nDCG@10"] == 0.0
    assert "none of its 1 ranked documents is judged or excluded" in caplog.text


@pytest.mark.parametrize("name", ["with space.run", "with\ttab.run", "with\nnewline.run"])
def test_run_paths_with_spaces_tabs_or_newlines_are_read_as_paths(dataset, tmp_path, cli, name):
    plain = str(write_run(tmp_path / "plain.run", RUN))
    odd = tmp_path / name
    odd.write_text(open(plain, encoding="utf-8").read(), encoding="utf-8")
    expected = json.loads(cli("evaluate", TEST_ID, plain, "--format", "json")[1])[plain]
    status, out, err = cli("evaluate", TEST_ID, str(odd), "--format", "json")
    assert status == 0, err
    assert json.loads(out)[str(odd)] == expected
