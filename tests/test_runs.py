"""Run reading (ir_bright.runs): strict, bounded, and the same values from every input format."""

from __future__ import annotations

import gzip
import io
import logging
import random
import sys
from collections import namedtuple

import ir_measures
import pandas as pd
import pytest
from ir_measures import AP, RR, Qrel, R, ScoredDoc, nDCG

import ir_bright  # noqa: F401  (registers Official with ir_measures)
from ir_bright.errors import RunFormatError
from ir_bright.measures import Official
from ir_bright.runs import inflate, read_run
from ir_bright.runs import read as runs
from ir_bright.runs import run_file as run_files
from ir_bright.scoring import Scorer, evaluate
from tests import protocol

TOLERANCE = 1e-12
NAMES = ["nDCG@10", "R@100", "RR", "AP@100", "P@10"]
RunRow = namedtuple("RunRow", "rank score doc_id query_id")  # the fields in another order
QrelRow = namedtuple("QrelRow", "relevance query_id doc_id")


def run_text(rows):
    return "".join(f"{q} Q0 {d} {i} {s!r} t\n" for i, (q, d, s) in enumerate(rows))


def many_rows(queries=3, docs=40):
    return [(f"q{q}", f"doc-{q}-{d}", float(docs - d)) for q in range(queries) for d in range(docs)]


# -- strict reading: control characters and NUL ---------------------------------------------


def test_a_nul_late_in_a_file_is_refused_with_its_line(tmp_path):
    """The NUL check read only the first 8 KB; pytrec_eval would score doc\\0junk as doc."""
    rows = many_rows(5, 100)
    path = tmp_path / "r.run"
    text = run_text(rows) + "q0 Q0 doc-0-1\0junk 0 99.0 t\n"
    path.write_text(text)
    assert len(text) > 8192
    line = len(rows) + 1
    with pytest.raises(RunFormatError, match=rf"r\.run line {line}: the doc id .* control") as e:
        read_run(path)
    assert "\n" not in str(e.value)


def test_two_ids_differing_after_a_nul_are_not_two_docs(tmp_path):
    path = tmp_path / "r.run"
    tail = b"q1 Q0 doc\0a 1 2.0 t\nq1 Q0 doc\0b 2 1.0 t\n"
    path.write_bytes(run_text(many_rows()).encode() + tail)
    with pytest.raises(RunFormatError, match=r"line 121: the doc id 'doc\\x00a'"):
        read_run(path)


@pytest.mark.parametrize(
    "line, what",
    [
        (b"q\x01 Q0 d 1 1.0 t\n", "query id"),
        (b"q Q0 d\x7fx 1 1.0 t\n", "doc id"),
        (b"q Q0 d\x1cx 1 1.0 t\n", "doc id"),
        (b"q Q0 d 1 1.0 t\x1b\n", "column 6"),
    ],
)
def test_control_characters_are_refused_naming_the_column(tmp_path, line, what):
    path = tmp_path / "r.run"
    path.write_bytes(b"q Q0 a 1 2.0 t\n" + line)
    with pytest.raises(RunFormatError, match=rf"r\.run line 2: the {what} .* control character"):
        read_run(path)


def test_tabs_and_crlf_line_ends_are_whitespace(tmp_path):
    path = tmp_path / "r.run"
    path.write_bytes(b"q\tQ0\ta\t1\t2.0\tt\r\nq Q0 b 2 1.0 t\r\n")
    assert read_run(path) == {"q": {"a": 2.0, "b": 1.0}}


@pytest.mark.parametrize(
    "run",
    [
        pd.DataFrame({"query_id": ["q"], "doc_id": ["d\0x"], "score": [1.0]}),
        [ScoredDoc("q\0", "d", 1.0)],
        {"q": {"d\0x": 1.0}},
        {"q\0": {"d": 1.0}},
        {1: {"d\0": 1}},
    ],
    ids=["frame", "scored-docs", "dict", "dict-query", "dict-to-convert"],
)
def test_nul_in_ids_given_in_memory_is_refused(run):
    with pytest.raises(RunFormatError, match="NUL character"):
        read_run(run)


def test_official_refuses_a_nul_in_a_run_given_to_ir_measures():
    qrels = [Qrel("q", "doc", 1)]
    with pytest.raises(RunFormatError, match="NUL character"):
        ir_measures.calc_aggregate([Official(RR)], qrels, {"q": {"doc\0junk": 1.0}})
    assert ir_measures.calc_aggregate([RR], qrels, {"q": {"doc\0junk": 1.0}})[RR] == 1.0


# -- bounds ---------------------------------------------------------------------------------


def test_a_line_over_64_kib_is_refused(tmp_path):
    path = tmp_path / "r.run"
    path.write_text("q Q0 a 1 2.0 t\n" + "q Q0 " + "x" * (70 * 1024) + " 2 1.0 t\n")
    with pytest.raises(RunFormatError, match=r"r\.run line 2: longer than 64 KiB"):
        read_run(path)


def test_one_huge_line_is_refused_before_it_is_held(tmp_path, monkeypatch):
    """No newline in sight: refused once 64 KiB are buffered, whatever the file's size."""
    path = tmp_path / "r.run"
    path.write_bytes(b"q Q0 a 1 2.0 t\n" + b"y" * (8 << 20))
    seen = []
    real = run_files.line_blocks

    def spy(chunks, label):
        for item in real(chunks, label):
            seen.append(len(item[1]))
            yield item

    monkeypatch.setattr(run_files, "line_blocks", spy)
    with pytest.raises(RunFormatError, match=r"line 2: longer than 64 KiB"):
        read_run(gzip_file(tmp_path / "r.gz", path.read_bytes()))
    with pytest.raises(RunFormatError, match=r"line 2: longer than 64 KiB"):
        read_run(path)
    assert max(seen) < 2 * run_files.BLOCK_BYTES


def gzip_file(path, data):
    path.write_bytes(gzip.compress(data))
    return path


def test_a_gzip_bomb_of_newlines_is_refused_early(tmp_path, monkeypatch):
    monkeypatch.setattr(inflate, "_RATIO_GRACE", 1 << 20)
    path = gzip_file(tmp_path / "bomb.gz", b"q Q0 a 1 2.0 t\n" + b"\n" * (8 << 20))
    produced = []
    real = run_files.gzip_chunks

    def counting(raw, label):
        for chunk in real(raw, label):
            produced.append(len(chunk))
            yield chunk

    monkeypatch.setattr(run_files, "gzip_chunks", counting)
    with pytest.raises(RunFormatError, match=r"bomb\.gz: inflates to over 100 times"):
        read_run(path)
    assert sum(produced) < 3 << 20


def test_a_real_gzip_run_is_far_below_the_ratio(tmp_path, monkeypatch):
    monkeypatch.setattr(inflate, "_RATIO_GRACE", 0)
    rows = [("q1", f"doc/{i}.txt", 0.0) for i in range(20000)]
    path = gzip_file(tmp_path / "r.gz", run_text(rows).encode())
    assert len(read_run(path)["q1"]) == 20000


@pytest.mark.parametrize("compress", [False, True])
def test_more_text_than_the_ceiling_is_refused(tmp_path, monkeypatch, compress):
    monkeypatch.setenv("IR_BRIGHT_MAX_RUN_BYTES", "1000")
    data = run_text(many_rows()).encode()
    path = gzip_file(tmp_path / "r.gz", data) if compress else tmp_path / "r.run"
    if not compress:
        path.write_bytes(data)
    with pytest.raises(RunFormatError, match=r"over 1,000 bytes of run text.*IR_BRIGHT_MAX_RUN"):
        read_run(path)
    monkeypatch.setenv("IR_BRIGHT_MAX_RUN_BYTES", "lots")
    with pytest.raises(RunFormatError, match="IR_BRIGHT_MAX_RUN_BYTES='lots' is not a number"):
        read_run(path)


@pytest.mark.parametrize("shape", ["file", "gzip file", "stdin", "run text"])
def test_a_byte_order_mark_is_skipped_in_every_run_text(tmp_path, monkeypatch, shape):
    rows = many_rows(queries=2, docs=3)
    data = b"\xef\xbb\xbf" + run_text(rows).encode()
    expected = {q: {d: s for q2, d, s in rows if q2 == q} for q in ("q0", "q1")}
    if shape == "run text":
        run = data.decode("utf-8")  # the mark as the str's first character
    elif shape == "stdin":
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
        run = "-"
    else:
        run = tmp_path / "r.run"
        run.write_bytes(gzip.compress(data) if shape == "gzip file" else data)
    assert read_run(run) == expected


def test_gzip_members_and_zero_padding_are_read_as_gzip_does(tmp_path):
    rows = many_rows()
    first, second = run_text(rows[:50]).encode(), run_text(rows[50:]).encode()
    path = tmp_path / "r.gz"
    path.write_bytes(gzip.compress(first) + gzip.compress(second) + b"\0" * 100)
    assert read_run(path) == read_run(run_text(rows))
    path.write_bytes(gzip.compress(first) + b"garbage")
    with pytest.raises(RunFormatError, match="damaged gzip file"):
        read_run(path)


def test_lines_across_block_bounds_keep_their_numbers(tmp_path, monkeypatch):
    monkeypatch.setattr(run_files, "BLOCK_BYTES", 64)
    rows = many_rows(4, 30)
    text = run_text(rows[:70]) + "\n\n" + run_text(rows[70:])
    path = tmp_path / "r.run"
    path.write_text(text)
    expected = {}
    for q, d, s in rows:
        expected.setdefault(q, {})[d] = s
    assert read_run(path) == expected
    path.write_text(text + "q0 Q0 doc-0-3 9 1.0 t\n")
    with pytest.raises(RunFormatError, match=r"line 123: query 'q0' ranks doc 'doc-0-3' twice"):
        read_run(path)
    path.write_text(text + "q0 Q0 doc-0-x 9 NaN t\n")
    with pytest.raises(RunFormatError, match=r"line 123: score NaN is not finite"):
        read_run(path)


# -- the same values from every format -----------------------------------------------------


def formats(qrels, run, tmp_path):
    """``{label: (qrels, run)}`` for every format ir_measures accepts, fresh each call."""
    path = tmp_path / "run.txt"
    path.write_text(run_text(run))
    qrels_path = tmp_path / "qrels.txt"
    qrels_path.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels))
    qrels_dict, run_dict = {}, {}
    for q, d, r in qrels:
        qrels_dict.setdefault(q, {})[d] = r
    for q, d, s in run:
        run_dict.setdefault(q, {})[d] = s
    qrel_list = [Qrel(*row) for row in qrels]
    scored = [ScoredDoc(*row) for row in run]
    columns = ["query_id", "doc_id", "score"]
    return {
        "dict": lambda: (qrels_dict, run_dict),
        "list": lambda: (qrel_list, scored),
        "generator": lambda: (iter(qrel_list), (r for r in scored)),
        "namedtuples": lambda: (
            [QrelRow(r, q, d) for q, d, r in qrels],
            [RunRow(i, s, d, q) for i, (q, d, s) in enumerate(run)],
        ),
        "frame": lambda: (
            pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"]),
            pd.DataFrame(run, columns=columns),
        ),
        "read_trec_run": lambda: (
            ir_measures.read_trec_qrels(str(qrels_path)),
            ir_measures.read_trec_run(str(path)),
        ),
    }


def numeric_case(seed):
    """A realistic random case whose query ids are numbers (as integer ids in a DataFrame)."""
    qrels, run = protocol.random_case(random.Random(seed), graded=seed % 2 == 0)
    rename = {}

    def number(query_id):
        return rename.setdefault(query_id, str(len(rename) + 1))

    return [(number(q), d, r) for q, d, r in qrels], [(number(q), d, s) for q, d, s in run]


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_official_is_identical_on_every_format_and_equals_the_reference(tmp_path, seed):
    qrels, run = numeric_case(seed)
    measures = [Official(ir_measures.parse_measure(n)) for n in NAMES]
    expected = {n: protocol.mean(n, qrels, run) for n in NAMES}
    results = {}
    for label, make in formats(qrels, run, tmp_path).items():
        got = ir_measures.calc_aggregate(measures, *make())
        evaluator = ir_measures.evaluator(measures, make()[0])
        reused = evaluator.calc_aggregate(make()[1])
        results[label] = [got[m] for m in measures]
        assert [reused[m] for m in measures] == results[label], label
    for label, values in results.items():
        assert values == results["dict"], label
        assert values == pytest.approx([expected[n] for n in NAMES], abs=TOLERANCE), label


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_evaluate_is_identical_on_every_run_format(tmp_path, seed):
    qrels, run = numeric_case(seed)
    dataset = protocol.tiny_dataset(qrels)
    scorer = Scorer(dataset, NAMES)
    shapes = {label: make()[1] for label, make in formats(qrels, run, tmp_path).items()}
    frame = pd.DataFrame(run, columns=["qid", "docno", "score"])
    shapes["frame, integer query ids"] = frame.assign(qid=frame.qid.astype("int64"))
    shapes["file"] = tmp_path / "run.txt"
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress((tmp_path / "run.txt").read_bytes()))
    shapes["gzip file"] = gz
    expected = {n: protocol.mean(n, qrels, run) for n in NAMES}
    first = None
    for label, shape in shapes.items():
        got = evaluate(shape, dataset, NAMES)
        first = first or got
        assert got == first, label
        assert got == pytest.approx(expected, abs=TOLERANCE), label
    for label, make in formats(qrels, run, tmp_path).items():
        assert scorer.evaluate(make()[1]) == first, label


def test_ties_only_excluded_docs_ranked_and_empty_runs_agree_everywhere(tmp_path):
    qrels = [("a", "g1", 1), ("a", "g2", 2), ("a", "x", -100), ("b", "g", 1), ("b", "y", -100)]
    qrels += [("c", "g", 1)]
    run = [("a", f"t{i}", 1.0) for i in range(1005)] + [("a", "g1", 1.0), ("a", "x", 5.0)]
    run += [("a", "g2", 1.0), ("b", "y", 3.0)]  # b ranks only its excluded doc; c nothing
    measures = [Official(m) for m in (nDCG @ 10, R @ 1000, RR, AP @ 1000)]
    names = [str(m.inner) for m in measures]
    for rows in (run, []):
        expected = [protocol.mean(n, qrels, rows) for n in names]
        for label, make in formats(qrels, rows, tmp_path).items():
            got = ir_measures.calc_aggregate(measures, *make())
            assert [got[m] for m in measures] == pytest.approx(expected, abs=TOLERANCE), label
    dataset = protocol.tiny_dataset(qrels)
    assert evaluate([], dataset, names) == {n: 0.0 for n in names}
    assert list(evaluate(iter(()), dataset, names).values()) == [0.0] * 4


def test_a_dict_of_dicts_is_read_without_being_changed(tmp_path):
    qrels = {"q": {"gold": 1, "x": -100}}
    run = {"q": {"x": 3.0, "gold": 2.0, "other": 1.0}}
    before = {q: dict(d) for q, d in run.items()}
    values = ir_measures.calc_aggregate([Official(RR)], qrels, run)
    assert values[Official(RR)] == 1.0
    assert run == before and qrels == {"q": {"gold": 1, "x": -100}}
    assert read_run(run)["q"] is run["q"]  # clean input is read, not copied


# -- run files read and scored a part at a time -------------------------------------------


def test_a_run_file_is_read_in_disjoint_parts_of_whole_queries(tmp_path, monkeypatch):
    monkeypatch.setattr(run_files, "BLOCK_BYTES", 64)  # queries cut across blocks as well
    rows = many_rows(6, 30)
    path = tmp_path / "r.run"
    path.write_text(run_text(rows))
    parts = list(runs.read_run_parts(path, part_entries=50))
    assert len(parts) > 2
    merged = {}
    for part in parts:
        assert merged.keys().isdisjoint(part)
        merged.update(part)
    assert merged == read_run(path)
    assert [len(docs) for part in parts for docs in part.values()] == [30] * 6


def test_the_part_reader_refuses_a_query_whose_lines_resume_later(tmp_path):
    rows = many_rows(3, 5)
    path = tmp_path / "r.run"
    path.write_text(run_text(rows[:3] + rows[5:] + rows[3:5]))  # q0 comes back on line 14
    with pytest.raises(runs.QueriesNotGrouped, match=r"line 14: the lines of query 'q0'"):
        list(runs.read_run_parts(path))
    assert not runs.streamable(str(tmp_path)) and not runs.streamable(run_text(rows))
    assert runs.streamable(path) and runs.streamable(str(path)) and runs.streamable(runs.STDIN)


def test_a_duplicate_in_a_later_block_is_refused_by_the_part_reader(tmp_path, monkeypatch):
    monkeypatch.setattr(run_files, "BLOCK_BYTES", 64)
    rows = many_rows(2, 20)
    path = tmp_path / "r.run"
    path.write_text(run_text(rows + [("q1", "doc-1-0", 0.5)]))
    with pytest.raises(RunFormatError, match=r"line 41: query 'q1' ranks doc 'doc-1-0' twice"):
        list(runs.read_run_parts(path, part_entries=5))


@pytest.mark.parametrize("grouped", [True, False], ids=["grouped", "queries interleaved"])
def test_run_files_scored_part_by_part_equal_the_reference(tmp_path, monkeypatch, grouped):
    monkeypatch.setattr(runs, "PART_ENTRIES", 300)  # several parts, read and scored
    qrels, run = protocol.random_case(random.Random(7), queries=10, graded=True)
    if not grouped:
        random.Random(1).shuffle(run)
    path = tmp_path / "run.txt.gz"
    path.write_bytes(gzip.compress(run_text(run).encode()))
    parts = []
    real_reader = runs.read_run_parts

    def counted(*args, **kwargs):
        for part in real_reader(*args, **kwargs):
            parts.append(len(part))
            yield part

    monkeypatch.setattr("ir_bright.scoring.scorer.read_run_parts", counted)
    scorer = Scorer(protocol.tiny_dataset(qrels), NAMES)
    got = scorer.evaluate(path)
    assert got == pytest.approx({n: protocol.mean(n, qrels, run) for n in NAMES}, abs=TOLERANCE)
    by_query = scorer.per_query(path)
    for name in NAMES:
        expected = protocol.per_query(name, qrels, run)
        assert {q: v[name] for q, v in by_query.items()} == pytest.approx(expected, abs=TOLERANCE)
    assert len(parts) > 3 if grouped else parts == []  # interleaved: read whole at once


def test_warnings_about_a_run_read_in_parts_cover_the_whole_run(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(runs, "PART_ENTRIES", 10)
    qrels = [(f"q{i}", f"gold{i}", 1) for i in range(4)] + [("q0", "x", -100)]
    rows = [(f"q{i}", f"other{i}-{d}", 1.0) for i in range(3) for d in range(20)]
    path = tmp_path / "run.txt"
    path.write_text(run_text(rows + [("stranger", "d", 1.0)]))
    caplog.set_level(logging.WARNING, logger="ir_bright")
    Scorer(protocol.tiny_dataset(qrels), ["RR"], force=True).evaluate(path)
    messages = " | ".join(r.getMessage() for r in caplog.records)
    assert "ignoring 1 queries without judgements" in messages
    assert "none of its 60 ranked documents is judged or excluded" in messages
    assert "no ranking for 1 of the 4 queries" in messages
