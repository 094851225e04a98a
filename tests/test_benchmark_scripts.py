"""The benchmark scripts still run on the package as it is: they write the performance and
decisions pages, and a script that only breaks when the pages are measured again (as two did,
reaching for names and cache paths the package had moved) leaves a page nobody can refresh.

Each script starts and answers ``--help``; the two parts that broke run on small inputs:
``bench_scoring.py``'s command-line table, and the hub-fault harness's scenarios that set up a
cache, a second hub or a killed download, with ir_bright as the client (huggingface_hub, the
other client, is not a test dependency).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
SCRIPTS = sorted(p.name for p in BENCHMARKS.glob("bench_*.py"))

pytestmark = pytest.mark.slow


def run_script(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=timeout
    )


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_benchmark_script_starts_and_answers_help(script):
    done = run_script(str(BENCHMARKS / script), "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:"), done.stdout


def test_the_scoring_benchmarks_command_line_table_runs_and_scores_officially(tmp_path):
    done = run_script(
        str(BENCHMARKS / "bench_scoring.py"), "--shapes", "--repeats", "1", "--long-factor", "2"
    )
    assert done.returncode == 0, done.stderr[-2000:]
    table = [line for line in done.stdout.splitlines() if line.startswith(("| plain", "| gzip"))]
    assert len(table) == 2, done.stdout
    assert "from both runs" in done.stdout  # each run's value was checked against ir_measures
    assert "2,000,000-line run" in done.stdout and "the same" in done.stdout  # streamed


HARNESS_SCENARIOS = [
    "cache entry is a link",  # a good fetch, then the cached file replaced by a link
    "offline, cached",  # a good fetch, then HF_HUB_OFFLINE
    "cached, hub up",  # a good fetch, then the requests counted
    "redirect, other host",  # a second hub
    "listing next link, other port",  # a listing served by a second hub
    "killed mid-download",  # a child killed mid-body, then fetched again
]


@pytest.mark.parametrize("scenario", HARNESS_SCENARIOS)
def test_the_hub_fault_harness_sets_up_its_scenario_and_ir_bright_holds_it(scenario):
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import bench_hub_faults
    finally:
        sys.path.remove(str(BENCHMARKS))
    done = run_script(str(BENCHMARKS / "bench_hub_faults.py"), "--child", scenario, "ir_bright")
    assert done.returncode == 0, done.stderr[-2000:]
    outcome = json.loads(done.stdout.splitlines()[-1])
    held, detail = bench_hub_faults.verdict(scenario, outcome)
    assert held, detail


def test_the_scale_benchmark_measures_every_phase_of_a_tiny_corpus(tmp_path):
    plot = tmp_path / "scale.svg"
    done = run_script(
        str(BENCHMARKS / "bench_scale.py"), "--sizes", "1500", "3000", "--plot", str(plot)
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line for line in done.stdout.splitlines() if line.startswith(("| 1,500", "| 3,000"))]
    assert len(rows) == 2 and all(len(row.split("|")) == 12 for row in rows), done.stdout
    assert "largest corpus whose peak fits 24 GiB" in done.stdout
    assert "2,500,000 documents not measured in this run" in done.stdout  # bounds estimated
    assert plot.read_text().startswith("<svg") and "polyline" in plot.read_text()
