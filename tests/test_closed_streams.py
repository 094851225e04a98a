"""A command started with standard streams closed (``exec 1>&-``, ``2>&-``, all three): it
does its work, writes its outputs and exits as it would otherwise; logs and bars go nowhere,
and results bound for a closed stdout are an error, never an exit 0 without them."""

from __future__ import annotations

import shlex
import subprocess
import sys

import pytest

from tests.conftest import ROOT

CLOSED = {
    "stdout": "exec 1>&-",
    "stderr": "exec 2>&-",
    "all three": "exec 0<&- 1>&- 2>&-",
}


def run_closed(closing: str, *argv) -> subprocess.CompletedProcess:
    """``python -m ir_bright ARGV`` from a shell that closed some of its streams first."""
    command = shlex.join([sys.executable, "-m", "ir_bright", *map(str, argv)])
    return subprocess.run(
        ["sh", "-c", f"{closing}; {command}"], cwd=ROOT, capture_output=True, text=True
    )


@pytest.fixture
def expected_run(bright, tmp_path):
    """The run ``bm25 bright/biology`` writes with every stream open."""
    run = tmp_path / "expected.trec"
    proc = run_closed(":", "-q", "bm25", "bright/biology", "-o", run)
    assert proc.returncode == 0, proc.stderr
    return run.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("quiet", [[], ["-q"]], ids=["logging", "quiet"])
@pytest.mark.parametrize("closed", CLOSED)
def test_a_command_with_closed_streams_writes_its_output_and_exits_0(
    expected_run, tmp_path, closed, quiet
):
    run = tmp_path / "run.trec"
    proc = run_closed(CLOSED[closed], *quiet, "bm25", "bright/biology", "-o", run)
    assert proc.returncode == 0, proc.stderr
    assert run.read_text() == expected_run
    assert proc.stdout == ""  # nothing, not even an error, leaks onto stdout
    assert "Traceback" not in proc.stderr and "error" not in proc.stderr


def test_results_bound_for_a_closed_stdout_are_a_one_line_error(bright):
    proc = run_closed(CLOSED["stdout"], "-q", "export", "bright/biology", "qrels")
    assert proc.returncode == 2
    assert proc.stderr.startswith("ir-bright export: error: stdout is closed: give an output")
    assert proc.stderr.count("\n") == 1, proc.stderr


def test_logging_and_bars_cope_with_no_stderr(monkeypatch):
    import logging

    from ir_bright import log

    monkeypatch.setattr(sys, "stderr", None)
    with log.progress(total=3) as bar:  # a bar on no stream: hidden
        bar.update(3)
    logging.getLogger("ir_bright.test").warning("nowhere to go")  # no error either
