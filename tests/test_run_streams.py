"""Runs read from pipes, FIFOs and stdin: in parts like files when their queries are grouped,
whole (from a copy) when they are not, stopped at the byte cap, and a closed stdin or a bad
IR_BRIGHT_MAX_RUN_BYTES a one-line error; bounded in entries, so in memory, as well as in bytes."""

from __future__ import annotations

import io
import itertools
import os
import random
import sys
import threading
import tracemalloc

import ir_datasets
import pytest

import ir_bright  # noqa: F401
from ir_bright.cli import main
from ir_bright.errors import RunFormatError
from ir_bright.runs import RunFile, max_run_bytes, max_run_entries, read_run, read_run_parts
from ir_bright.runs import read as runs_read
from ir_bright.runs import run_file as run_files
from ir_bright.runs.bounds import MAX_RUN_ENTRIES
from ir_bright.scoring import Scorer
from tests import protocol

TEST_ID = "ir-bright-test/streams"
NAMES = ["nDCG@10", "RR"]


def run_text(rows):
    return "".join(f"{q} Q0 {d} {i} {s!r} t\n" for i, (q, d, s) in enumerate(rows))


@pytest.fixture
def case(monkeypatch):
    qrels, run = protocol.random_case(random.Random(5), queries=8, graded=True)
    tiny = protocol.tiny_dataset(qrels, tuple(NAMES), TEST_ID)
    monkeypatch.setitem(ir_datasets.registry._registered, TEST_ID, tiny)
    return qrels, run


def expected(qrels, run):
    return {name: protocol.mean(name, qrels, run) for name in NAMES}


def fake_stdin(monkeypatch, data: bytes):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def count_parts(monkeypatch):
    parts = []
    real = runs_read.read_run_parts

    def counted(*args, **kwargs):
        for part in real(*args, **kwargs):
            parts.append(len(part))
            yield part

    monkeypatch.setattr("ir_bright.scoring.scorer.read_run_parts", counted)
    monkeypatch.setattr(runs_read, "PART_ENTRIES", 50)
    monkeypatch.setattr(run_files, "BLOCK_BYTES", 512)  # several blocks, so several parts
    return parts


@pytest.mark.parametrize("grouped", [True, False], ids=["grouped", "interleaved"])
def test_stdin_is_scored_in_parts_when_grouped_and_whole_otherwise(case, monkeypatch, grouped):
    qrels, run = case
    if not grouped:
        random.Random(2).shuffle(run)
    parts = count_parts(monkeypatch)
    fake_stdin(monkeypatch, run_text(run).encode())
    got = Scorer(TEST_ID, NAMES).evaluate("-")
    assert got == pytest.approx(expected(qrels, run), abs=1e-12)
    assert len(parts) > 2 if grouped else parts == []


def write_fifo(path, data: bytes, forever: bool = False):
    """A writer thread feeding the FIFO ``data``, or, ``forever``, lines of new queries."""

    def feed():
        try:
            with open(path, "wb") as out:
                out.write(data)
                for start in itertools.count(0, 1000) if forever else ():
                    out.write(run_text((f"q{start + i}", "d", 1.0) for i in range(1000)).encode())
        except BrokenPipeError:
            pass  # the reader stopped

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("grouped", [True, False], ids=["grouped", "interleaved"])
def test_a_fifo_is_scored_like_the_file(case, tmp_path, monkeypatch, grouped):
    qrels, run = case
    if not grouped:
        random.Random(3).shuffle(run)
    parts = count_parts(monkeypatch)
    fifo = tmp_path / "run.fifo"
    os.mkfifo(fifo)
    writer = write_fifo(fifo, run_text(run).encode())
    got = Scorer(TEST_ID, NAMES).evaluate(fifo)
    writer.join(10)
    assert got == pytest.approx(expected(qrels, run), abs=1e-12)
    assert len(parts) > 2 if grouped else parts == []


@pytest.mark.parametrize(
    "caps, says",
    [
        ({"IR_BRIGHT_MAX_RUN_BYTES": 4 << 20}, "over 4,194,304 bytes of run text"),
        # the entries cap bounds memory, before the bytes do (some 2 MB of lines)
        (
            {"IR_BRIGHT_MAX_RUN_ENTRIES": 50000, "IR_BRIGHT_MAX_RUN_BYTES": 64 << 20},
            "over 50,000 entries",
        ),
    ],
    ids=["bytes", "entries"],
)
def test_a_fifo_that_never_ends_stops_at_a_cap_naming_it(
    case, tmp_path, monkeypatch, capsys, caps, says
):
    for variable, value in caps.items():
        monkeypatch.setenv(variable, str(value))
    fifo = tmp_path / "endless.fifo"
    os.mkfifo(fifo)
    writer = write_fifo(fifo, b"", forever=True)
    status = main(["evaluate", TEST_ID, str(fifo)])
    err = capsys.readouterr().err
    writer.join(10)
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert says in err and f"set {next(iter(caps))} to read more" in err
    assert not writer.is_alive()


def test_a_run_read_whole_is_capped_in_entries_as_it_is_read(tmp_path, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_MAX_RUN_ENTRIES", "1000")
    path = tmp_path / "r.run"
    path.write_text(run_text((f"q{i // 100}", f"d{i}", 1.0) for i in range(1000)))
    assert sum(map(len, read_run(path).values())) == 1000  # the cap itself is allowed
    path.write_text(run_text((f"q{i // 100}", f"d{i}", 1.0) for i in range(1001)))
    with pytest.raises(RunFormatError, match="over 1,000 entries.*IR_BRIGHT_MAX_RUN_ENTRIES"):
        read_run(path)


def test_the_default_entry_cap_fits_a_few_hundred_mib_and_any_official_run(tmp_path):
    path = tmp_path / "r.run"
    rows = [
        (f"query-{q}", f"domain/some_document_{q}_{d}.txt", 1.0 / (d + 1))
        for q in range(20)
        for d in range(1000)
    ]
    path.write_text(run_text(rows))
    tracemalloc.start()
    try:
        run = read_run(path)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert len(run) == 20
    per_entry = held / len(rows)
    assert MAX_RUN_ENTRIES * per_entry < 400 << 20
    assert MAX_RUN_ENTRIES >= 10 * 1000 * 194  # 10 times a 1,000-deep run of 194 queries


def test_a_run_file_is_read_again_from_its_start(tmp_path):
    path = tmp_path / "r.run"
    path.write_text(run_text([("q1", "a", 2.0), ("q2", "b", 1.0), ("q1", "c", 0.5)]))
    with RunFile(path) as file, pytest.raises(RunFormatError, match="not together"):
        list(read_run_parts(file))
    with RunFile(path) as file:
        first = [rows.doc_ids for rows in file.rows()]
        assert [rows.doc_ids for rows in file.rows()] == first == [["a", "b", "c"]]


def test_a_pipe_is_read_again_from_a_copy(monkeypatch):
    rows = [("q1", "a", 2.0), ("q2", "b", 1.0), ("q1", "c", 0.5)]
    fake_stdin(monkeypatch, run_text(rows).encode())
    with RunFile("-") as file:
        with pytest.raises(RunFormatError, match="stdin line 3: the lines of query 'q1'"):
            list(read_run_parts(file))
        assert read_run(file) == {"q1": {"a": 2.0, "c": 0.5}, "q2": {"b": 1.0}}


def test_evaluate_with_stdin_closed_is_a_one_line_error(case, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", None)
    status = main(["evaluate", TEST_ID, "-"])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "stdin: there is no standard input" in err


@pytest.mark.parametrize("value", ["0", "-5", "1e9", "nan", "inf", "lots", "1.5", "٣"])
@pytest.mark.parametrize(
    "variable, read",
    [("IR_BRIGHT_MAX_RUN_BYTES", max_run_bytes), ("IR_BRIGHT_MAX_RUN_ENTRIES", max_run_entries)],
)
def test_a_bad_cap_is_a_one_line_error_naming_the_variable(monkeypatch, value, variable, read):
    monkeypatch.setenv(variable, value)
    with pytest.raises(RunFormatError, match=rf"^{variable}={value!r} is not"):
        read()


def test_a_good_byte_cap_is_read(monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_MAX_RUN_BYTES", " 8589934592 ")
    assert max_run_bytes() == 8589934592
    monkeypatch.delenv("IR_BRIGHT_MAX_RUN_BYTES")
    assert max_run_bytes() == 4 << 30


def test_a_good_entry_cap_is_read(monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_MAX_RUN_ENTRIES", " 10000000 ")
    assert max_run_entries() == 10_000_000
    monkeypatch.delenv("IR_BRIGHT_MAX_RUN_ENTRIES")
    assert max_run_entries() == MAX_RUN_ENTRIES == 2_000_000


def cut_case(queries=10):
    """``(qrels, run, extra lines)``: each query ranks 990 docs, then 30 tied at the cut
    (rank 1,000 falls among them, a relevant doc on it: the tied doc with the lowest id that
    the cut keeps), 50 excluded docs first; each query's 2,000 extra lines tie with the cut's
    score, their ids ranking below every kept tied doc (``a...`` < ``t...``), so the cut drops
    them all."""
    qrels, run, extra = [], [], []
    for q in range(queries):
        query_id = f"q{q}"
        gone = [f"d/{q}/x{i:02d}" for i in range(50)]
        run += [(query_id, d, 5000.0 + i) for i, d in enumerate(gone)]
        run += [(query_id, f"d/{q}/h{i:03d}", 2000.0 - i) for i in range(990)]
        run += [(query_id, f"d/{q}/t{i:02d}", 1.0) for i in range(30)]
        qrels += [(query_id, d, -100) for d in gone]
        qrels += [(query_id, f"d/{q}/h{q:03d}", 1), (query_id, f"d/{q}/t20", 2)]
        qrels += [(query_id, f"d/{q}/t19", 1)]  # tied, just below the cut: never counted
        extra += [(query_id, f"d/{q}/a{i:04d}", 1.0) for i in range(2000)]
    return qrels, run, extra


def test_a_run_longer_than_the_entry_cap_streams_to_the_value_of_its_official_part(
    tmp_path, monkeypatch
):
    """Official scoring keeps per query only what the protocol uses (the top 1,000 after the
    query's exclusions, ties broken by doc id descending), so a run far longer than the entry
    cap scores as the shorter run holding the same rankings; the cap bounds what is held
    (the kept rankings and the query being read), not the run."""
    qrels, run, extra = cut_case()
    names = ["nDCG@10", "R@1000", "AP@1000", "RR"]
    monkeypatch.setitem(
        ir_datasets.registry._registered, TEST_ID, protocol.tiny_dataset(qrels, tuple(names))
    )
    longer = []
    for query_id in dict.fromkeys(q for q, _, _ in run):  # each query's lines together
        longer += [r for r in run if r[0] == query_id] + [r for r in extra if r[0] == query_id]
    short_path, long_path = tmp_path / "short.run", tmp_path / "long.run"
    short_path.write_text(run_text(run))
    long_path.write_text(run_text(longer))
    cap = 13_500  # the kept 10 x 1,000 and the query being read (3,070) fit in it
    assert len(run) < cap and len(longer) > 2 * cap
    monkeypatch.setenv("IR_BRIGHT_MAX_RUN_ENTRIES", str(cap))
    whole = Scorer(TEST_ID, names).evaluate(read_run(short_path))
    parts = count_parts(monkeypatch)
    streamed = Scorer(TEST_ID, names).evaluate(long_path)
    assert len(parts) > 2  # scored through the streaming path, a part at a time
    assert streamed == pytest.approx(whole, abs=1e-12)
    reference = {name: protocol.mean(name, qrels, longer) for name in names}
    assert streamed == pytest.approx(reference, abs=1e-12)  # the independent reference
    assert streamed["R@1000"] == pytest.approx(2 / 3)  # t20 kept at rank 1,000, t19 cut
    with pytest.raises(RunFormatError, match=f"over {cap:,} entries"):
        read_run(long_path)  # where every entry is kept (stock measures), the cap holds


@pytest.mark.parametrize("variable", ["IR_BRIGHT_MAX_RUN_ENTRIES", "IR_BRIGHT_MAX_RUN_BYTES"])
@pytest.mark.parametrize("value", ["9" * 5000, "9" * 19, "0" * 5000])
def test_a_bound_beyond_any_machine_is_a_one_line_error_naming_the_variable(
    case, tmp_path, monkeypatch, capsys, variable, value
):
    """5,000 digits are past what ``int()`` reads (4,300) and any machine's memory."""
    monkeypatch.setenv(variable, value)
    path = tmp_path / "r.run"
    path.write_text(run_text([("q0", "d0", 1.0)]))
    with pytest.raises(RunFormatError, match=f"^{variable}=.* is not a number of"):
        read_run(path)
    status = main(["evaluate", TEST_ID, str(path)])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1 and variable in err
    assert "internal error" not in err and len(err) < 400
