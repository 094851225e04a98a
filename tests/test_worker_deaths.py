"""A BM25 worker process that dies, at any point of its life, never ends the command in an
exit 0 without the run: the command fails in one line naming the worker (exit 2), or writes
the run a clean build writes (the worker had done its part, or never served and the process
did the work, saying so). Only a closed stdout ends a command quietly."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytest.importorskip("Stemmer")  # the bm25 extra


def bm25_with(point: str, run) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tests.worker_faults", point, "bm25", "bright/biology", "-o", run],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def clean_run(bright, tmp_path, cli):
    run = tmp_path / "clean.trec"
    proc = cli.fresh("-q", "bm25", "bright/biology", "-o", run)
    assert proc.returncode == 0, proc.stderr
    for index in (tmp_path / "ir_datasets_home").rglob("*.bm25"):
        shutil.rmtree(index)  # the next build starts workers again
    return run.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("point", ["waiting", "mid-batch"])
def test_a_worker_killed_at_work_fails_the_command_naming_it(clean_run, tmp_path, point):
    run = tmp_path / "run.trec"
    proc = bm25_with(point, run)
    assert proc.returncode == 2, proc.stderr
    line = proc.stderr.strip().splitlines()[-1]
    assert line.startswith("ir-bright bm25: error: a BM25 worker process"), line
    assert "ended before answering (killed by signal 9)" in line
    assert not run.exists()


@pytest.mark.slow
def test_a_worker_killed_after_its_work_is_done_leaves_the_run_a_clean_build_gives(
    clean_run, tmp_path
):
    run = tmp_path / "run.trec"
    proc = bm25_with("after", run)
    assert proc.returncode == 0, proc.stderr
    assert run.read_text() == clean_run


@pytest.mark.slow
@pytest.mark.parametrize("point", ["started", "no-interpreter"])
def test_workers_that_never_serve_leave_the_work_to_the_process_saying_so(
    clean_run, tmp_path, point
):
    """A worker killed before it serves, or an interpreter that is no Python (an embedding
    host's ``sys.executable``): the index is built in the process, and a warning names the
    program that could not serve."""
    run = tmp_path / "run.trec"
    proc = bm25_with(point, run)
    assert proc.returncode == 0, proc.stderr
    assert run.read_text() == clean_run
    program = "/bin/true" if point == "no-interpreter" else sys.executable
    assert f"cannot start a BM25 worker process with {program!r}" in proc.stderr
    assert "indexing in this process instead" in proc.stderr
