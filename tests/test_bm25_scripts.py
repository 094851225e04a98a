"""BM25 from the scripts users write: the docs' PyTerrier block saved as a file and run with
``python script.py`` (no ``if __name__ == "__main__":``), a ``multiprocessing`` user whose
workers build or load the index, and a script killed mid-build. Each runs in a fresh
interpreter on a fresh cache, over a domain large enough that the build starts worker
processes."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fixtures import bright_hub as bright_fixture
from tests.helpers import BM25_WORKER, assert_gone_within, descendants

pytest.importorskip("Stemmer")  # the bm25 extra
if not Path("/proc/self/stat").exists():
    pytest.skip("reads the process table from /proc", allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent
INDEXING = "indexing bright/biology with BM25"

MULTIPROCESSING_USER = """
import json, multiprocessing, sys
import pandas as pd
import ir_bright
from ir_bright.pyterrier import bm25_transformer

def first_results(texts):
    topics = pd.DataFrame({"qid": list(texts), "query": list(texts.values())})
    ranked = bm25_transformer("bright/biology")(topics)
    mine = ir_bright.with_queries("bright/biology", texts)
    return {
        "first": {qid: docs.iloc[0] for qid, docs in ranked.groupby("qid").docno},
        "queries": {q.query_id: q.text for q in mine.queries_iter()},
    }

if __name__ == "__main__":
    method, texts = sys.argv[1], json.loads(sys.argv[2])
    if method == "fork":
        first_results(texts)  # the first use, in the parent; the children fork after it
    with multiprocessing.get_context(method).Pool(2) as pool:
        print(json.dumps(pool.map(first_results, [texts, texts])))
"""

KILLED_SCRIPT = """
import ir_bright
from ir_bright.bm25 import index_for
index_for("bright/biology")
"""


@pytest.fixture
def scripts(tmp_path, monkeypatch):
    """Scripts run in an empty folder, with this tree's package first on their path."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return tmp_path


@pytest.fixture
def large(bright_hub, scripts):
    """A domain large enough for worker processes on the loopback hub."""
    bright_hub({"biology": bright_fixture.large_domain})
    return scripts


@pytest.fixture
def slow(bright_hub, scripts):
    """The same, slow enough to index that it can be killed mid-build."""
    bright_hub({"biology": bright_fixture.slow_domain})
    return scripts


def python_block(page: str, number: int = 0) -> str:
    """The ``number``-th python block of ``docs/<page>``, exactly as written."""
    text = (ROOT / "docs" / page).read_text("utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)[number]


def run_script(script: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    """``python script *args``; on a timeout, the script and every process it started are
    killed and the test fails with what the script said."""
    proc = subprocess.Popen(
        [sys.executable, str(script), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_all(proc)
        pytest.fail(
            f"{script.name} still running after {timeout} s: {proc.communicate()[1][-3000:]}"
        )
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def kill_all(proc: subprocess.Popen) -> None:
    """Kill a script and every process it started (a failed test leaves none running)."""
    for pid in [*descendants(proc.pid), proc.pid]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.slow
def test_the_docs_pyterrier_block_runs_as_a_plain_script_and_builds_the_index_once(large):
    script = large / "script.py"
    script.write_text(python_block("pyterrier.md"))
    done = run_script(script)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stderr.count(INDEXING) == 1, done.stderr[-3000:]  # not again in each worker
    assert "waiting" not in done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_a_multiprocessing_users_workers_rank_with_the_bm25_baseline(large, method):
    script = large / "user.py"
    script.write_text(MULTIPROCESSING_USER)
    texts = {str(q): f"zq{q}a zq{q}b" for q in range(3)}  # each in doc_<q>.txt alone
    done = run_script(script, method, json.dumps(texts))
    assert done.returncode == 0, done.stderr[-3000:]
    expected = {"first": {q: f"doc_{q}.txt" for q in texts}, "queries": texts}
    assert json.loads(done.stdout) == [expected, expected]
    assert done.stderr.count(INDEXING) == 1, done.stderr[-3000:]


@pytest.mark.slow
def test_a_script_killed_mid_build_leaves_no_process_behind(slow):
    script = slow / "build.py"
    script.write_text(KILLED_SCRIPT)
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 60
    started: dict[int, str] = {}
    while proc.poll() is None and time.monotonic() < deadline:
        started = descendants(proc.pid)
        if sum(BM25_WORKER in line for line in started.values()) >= 2:
            break
        time.sleep(0.05)
    else:
        kill_all(proc)
        pytest.fail(f"no worker processes seen: {proc.communicate()[1].decode()[-3000:]}")
    time.sleep(0.3)  # at work on their first batches
    started |= descendants(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=15)
    assert_gone_within(started, 5)
