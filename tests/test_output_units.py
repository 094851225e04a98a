"""An output and its sidecar are one unit (``bm25 -o RUN`` writes ``RUN`` and ``RUN.json``):
the sidecar never describes another run, whatever kills the writer and whenever; temporary
files are the writer's own and never outlive it for long; a sidecar that cannot be written is
refused before any work or said in a warning after a good run, naming the real cause."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
from contextlib import nullcontext
from pathlib import Path

import pytest

from ir_bright.outputs import Output, write_output

DATASET = "bright/biology"

KILL_AFTER_RENAME = """
import os, signal, sys
target = os.path.realpath(sys.argv[1])
real_replace = os.replace
def replace(src, dst, *args, **kwargs):
    real_replace(src, dst, *args, **kwargs)
    if os.path.realpath(dst) == target:
        os.kill(os.getpid(), signal.SIGKILL)
os.replace = replace
from ir_bright.cli import main
sys.exit(main(["bm25", sys.argv[2], "--depth", sys.argv[3], "-o", target]))
"""

KILL_WHILE_WRITING = """
import os, signal, sys
from ir_bright.outputs import Output
with Output(sys.argv[1]).open() as out:
    out.write("half a run\\n")
    out.flush()
    os.kill(os.getpid(), signal.SIGKILL)
"""


def temporaries(folder: Path) -> list[str]:
    """Every file a writer left under a temporary name in ``folder``."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def failures_of_writers(write, writers: int = 16, times: int = 10) -> list[BaseException]:
    """Run ``write(number)`` ``times`` times in each of ``writers`` threads at once; return
    what they raised."""
    failures: list[BaseException] = []

    def repeat(number: int) -> None:
        try:
            for _ in range(times):
                write(number)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            failures.append(exc)

    threads = [threading.Thread(target=repeat, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return failures


@pytest.fixture
def bm25_extra():
    pytest.importorskip("Stemmer")


def test_a_run_killed_once_it_replaced_the_old_one_is_not_left_with_the_old_sidecar(
    bright, cli, tmp_path, bm25_extra
):
    run = tmp_path / "bm25.trec"
    assert cli("bm25", DATASET, "--depth", "5", "-o", run).status == 0
    assert json.loads((tmp_path / "bm25.trec.json").read_text())["bm25"]["depth"] == 5
    killed = cli.fresh(str(run), DATASET, "2", script=KILL_AFTER_RENAME)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert run_lines(run) == 2 * 2  # the new run: two queries, depth 2
    sidecar = tmp_path / "bm25.trec.json"
    assert not sidecar.exists() or json.loads(sidecar.read_text())["bm25"]["depth"] == 2


def test_the_sidecar_names_the_bytes_of_the_run_it_describes(bright, cli, tmp_path, bm25_extra):
    run = tmp_path / "bm25.trec"
    assert cli("bm25", DATASET, "-o", run).status == 0
    about = json.loads((tmp_path / "bm25.trec.json").read_text())["run"]
    assert about == {"name": "bm25.trec", "size": run.stat().st_size, "sha256": sha256_of(run)}


def test_a_sidecar_path_that_is_a_folder_is_refused_before_any_work(
    bright, cli, tmp_path, bm25_extra
):
    run = tmp_path / "bm25.trec"
    (tmp_path / "bm25.trec.json").mkdir()
    status, out, err = cli("bm25", DATASET, "-o", run)
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    assert f"{run}.json" in err and "is a folder" in err and "writable" not in err
    assert not run.exists() and bright.requests == []


def test_a_sidecar_that_cannot_be_written_after_a_good_run_is_a_warning(
    bright, cli, caplog, tmp_path, monkeypatch, bm25_extra
):
    from ir_bright import bm25

    run = tmp_path / "bm25.trec"
    sidecar = tmp_path / "bm25.trec.json"
    retrieve = bm25.retrieve

    def retrieve_then_block_the_sidecar(*args, **kwargs):
        ranked = list(retrieve(*args, **kwargs))
        sidecar.mkdir()  # after the checks: only the final rename can find it
        return ranked

    monkeypatch.setattr(bm25, "retrieve", retrieve_then_block_the_sidecar)
    status, out, err = cli("bm25", DATASET, "-o", run)
    assert status == 0, err
    assert run_lines(run) > 0 and sidecar.is_dir() and temporaries(tmp_path) == []
    (warning,) = [r.getMessage() for r in caplog.records if str(sidecar) in r.getMessage()]
    assert "directory" in warning and "writable" not in warning


@pytest.mark.parametrize("failure", [KeyboardInterrupt, OSError])
def test_a_failure_while_the_sidecar_is_made_leaves_the_old_pair_and_nothing_else(
    tmp_path, failure
):
    target, sidecar = tmp_path / "run.trec", tmp_path / "run.trec.json"
    target.write_text("old run\n")
    sidecar.write_text("old sidecar\n")

    def fail(facts):
        raise failure()

    output = Output(target, "the run", sidecar="the run's provenance")
    with pytest.raises(KeyboardInterrupt) if failure is KeyboardInterrupt else nullcontext():
        with output.open(sidecar=fail) as out:
            out.write("new run\n")
    if failure is KeyboardInterrupt:  # the command stops: nothing changes
        assert (target.read_text(), sidecar.read_text()) == ("old run\n", "old sidecar\n")
    else:  # the run stands, without a sidecar (the old one described the old run)
        assert target.read_text() == "new run\n" and not sidecar.exists()
    assert temporaries(tmp_path) == []


def test_a_killed_writers_temporary_file_is_removed_by_the_next_write(cli, tmp_path):
    target = tmp_path / "out.txt"
    killed = cli.fresh(str(target), script=KILL_WHILE_WRITING)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    assert len(temporaries(tmp_path)) == 1 and not target.exists()
    write_output(target, lambda out: out.write("whole\n"))
    assert target.read_text() == "whole\n"
    assert temporaries(tmp_path) == []


def test_a_live_writers_temporary_file_is_left_alone(tmp_path):
    target = tmp_path / "out.txt"
    with Output(target).open() as slow:
        slow.write("slow\n")
        (mine,) = temporaries(tmp_path)
        write_output(target, lambda out: out.write("fast\n"))
        assert target.read_text() == "fast\n"
        assert temporaries(tmp_path) == [mine]
    assert target.read_text() == "slow\n" and temporaries(tmp_path) == []


def test_a_temporary_file_locked_by_another_process_is_left_alone(tmp_path):
    target = tmp_path / "out.txt"
    foreign = tmp_path / ".out.txt.abcdef012345.part"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys; f = open(sys.argv[1], 'w'); "
            "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()",
            str(foreign),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        write_output(target, lambda out: out.write("x\n"))
        assert foreign.exists()
    finally:
        holder.communicate("", timeout=30)
    write_output(target, lambda out: out.write("y\n"))
    assert not foreign.exists() and target.read_text() == "y\n"


def test_only_the_outputs_own_temporary_names_are_cleaned(tmp_path):
    target = tmp_path / "run.trec"
    kept = [
        tmp_path / "run.trec.part",  # a user's file, not a temporary name of ours
        tmp_path / ".run.trec.gz.abcdef012345.part",  # another output's
        tmp_path / ".other.abcdef012345.part",
    ]
    for path in kept:
        path.write_text("keep")
    write_output(target, lambda out: out.write("x\n"))
    assert all(path.read_text() == "keep" for path in kept)


def test_concurrent_threads_writing_one_run_and_sidecar_each_succeed(bright, tmp_path, bm25_extra):
    import ir_datasets

    from ir_bright.provenance import write_run_provenance

    dataset = ir_datasets.load(DATASET)
    list(dataset.docs_iter()), list(dataset.queries_iter())
    run = tmp_path / "bm25.trec"

    def write(number: int) -> None:
        write_output(run, lambda out: out.write(f"{number}\n"), "the run")
        write_run_provenance(run, DATASET, {"writer": number})

    assert failures_of_writers(write) == []
    assert temporaries(tmp_path) == []
    assert json.loads((tmp_path / "bm25.trec.json").read_text())["writer"] in range(16)


def test_concurrent_threads_writing_outputs_with_sidecars_leave_matching_pairs(tmp_path):
    target = tmp_path / "run.trec"

    def describe(facts):
        return json.dumps({"run": facts})

    def write(number: int) -> None:
        output = Output(target, "the run", sidecar="the run's provenance")
        with output.open(sidecar=describe) as out:
            out.write(f"{number}\n" * (number + 1))

    assert failures_of_writers(write) == []
    about = json.loads((tmp_path / "run.trec.json").read_text())["run"]
    assert about["sha256"] == sha256_of(target) and about["size"] == target.stat().st_size
    assert temporaries(tmp_path) == []


@pytest.mark.slow
def test_concurrent_processes_writing_one_run_each_succeed_with_a_matching_sidecar(
    bright, cli, tmp_path, bm25_extra
):
    run = tmp_path / "bm25.trec"
    assert cli("bm25", DATASET, "-o", tmp_path / "warm.trec").status == 0  # cache filled
    command = [sys.executable, "-m", "ir_bright", "-q", "bm25", DATASET, "-o", str(run)]
    writers = [
        subprocess.Popen([*command, "--depth", str(depth)], stderr=subprocess.PIPE, text=True)
        for depth in (1, 2, 3, 4)
    ]
    for writer in writers:
        _, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err
    about = json.loads((tmp_path / "bm25.trec.json").read_text())
    assert about["run"]["sha256"] == sha256_of(run)
    assert run_lines(run) == 2 * about["bm25"]["depth"]
    assert temporaries(tmp_path) == []


def test_a_sidecar_is_refused_like_an_output_where_it_cannot_be_replaced(tmp_path):
    from ir_bright.errors import IrBrightError

    target = tmp_path / "run.trec"
    os.mkfifo(tmp_path / "run.trec.json")
    with pytest.raises(IrBrightError, match=r"run\.trec\.json, which is a FIFO"):
        Output(target, "the run", sidecar="the run's provenance")
    assert not target.exists()
