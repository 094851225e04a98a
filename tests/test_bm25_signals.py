"""Signals during a BM25 index build with worker processes: the command ends within seconds
with the shell's status, no worker outlives it (whatever killed it), nothing half-built is
trusted later, and a rerun gives the run a clean build gives."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fixtures import bright_hub
from tests.helpers import BM25_WORKER, assert_gone_within, children

pytest.importorskip("Stemmer")  # the bm25 extra
if not Path("/proc/self/stat").exists():
    pytest.skip("reads the process table from /proc", allow_module_level=True)

DATASET = "bright/biology"  # 57,359 documents listed: the build starts worker processes


@pytest.fixture
def bright(hub, hub_root, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    hub.rows = bright_hub.write_bright(hub_root, {"biology": bright_hub.slow_domain})
    return hub


def start_bm25(run: Path) -> tuple[subprocess.Popen, dict[int, str]]:
    """Start ``ir-bright bm25 DATASET -o run``; return it and its worker processes once
    they are at work (the build is then under way)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ir_bright", "-q", "bm25", DATASET, "-o", str(run)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        workers = {p: c for p, c in children(proc.pid).items() if BM25_WORKER in c}
        if len(workers) >= 2:
            time.sleep(0.5)  # let them take their first batches
            return proc, children(proc.pid)
        time.sleep(0.05)
    proc.kill()
    pytest.fail(f"no worker processes seen: {proc.communicate()[1].decode()[-2000:]}")


def index_folder() -> Path:
    import ir_datasets

    from ir_bright import bm25

    return bm25.index_folder(ir_datasets.load(DATASET))


def assert_nothing_half_built(run: Path, cleaned: bool = True) -> None:
    """No index and no run: each is renamed into place only once whole. ``cleaned``: the
    command could clean up, so not even the partial run (opened first, so that an unwritable
    output fails before any work) is left."""
    assert not index_folder().exists()
    assert not run.exists()
    assert not (cleaned and run.with_name(run.name + ".part").exists())


def rerun(run: Path) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "ir_bright", "-q", "bm25", DATASET, "-o", str(run)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return run.read_text()


@pytest.mark.parametrize(
    "signum, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"]
)
def test_a_signal_mid_build_ends_the_command_and_its_workers_within_seconds(
    bright, tmp_path, signum, status
):
    run = tmp_path / "run.trec"
    proc, kids = start_bm25(run)
    sent = time.monotonic()
    proc.send_signal(signum)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail(f"still running 60 s after {signum.name}")
    assert proc.returncode == status, proc.stderr.read().decode()
    # seconds on an idle machine (about 1 s here); the bound leaves room for a loaded one,
    # where the main thread finishes the NumPy call it is in before the handler runs
    assert time.monotonic() - sent < 30
    assert_gone_within(kids, 5)
    assert_nothing_half_built(run)
    if signum == signal.SIGTERM:
        again = rerun(run)
        shutil.rmtree(index_folder())
        assert again == rerun(tmp_path / "clean.trec")  # a clean build's run


def test_workers_exit_by_themselves_when_the_command_is_killed(bright, tmp_path):
    run = tmp_path / "run.trec"
    proc, kids = start_bm25(run)
    proc.kill()  # SIGKILL: no handler, no cleanup in the command itself
    proc.wait(timeout=15)
    assert_gone_within(kids, 5)
    assert_nothing_half_built(run, cleaned=False)
    assert rerun(run).count("\n") == 3 * 1000


def test_workers_answer_in_order_and_hand_back_a_workers_error():
    from ir_bright.bm25.workers import Workers

    with Workers(2) as workers:
        items = [str(n) for n in range(7)]
        assert list(workers.ordered(int, items, lambda item: item)) == [
            (item, int(item)) for item in items
        ]
    with pytest.raises(ValueError, match="invalid literal"):
        with Workers(2) as workers:
            list(workers.ordered(int, ["1", "x", "3"], lambda item: item))
    assert workers._workers == []  # every worker killed and reaped
