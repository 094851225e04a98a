"""Logs and progress as ir_datasets shows them: ``[INFO]`` lines and bars on stderr with no
logging set up, quiet when ir_datasets' logger is silenced or under ``-q``, the user's own
handlers when they configured logging."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.fixtures import bright_hub

BIOLOGY = {"biology": bright_hub.biology}

DOC = "insects_light/Phototaxis_0.txt"
# a notebook cell: no logging configured; docs_store() downloads and builds the store
CELL = f"""
import ir_datasets, ir_bright
print(ir_datasets.load("bright/biology").docs_store().get({DOC!r}).doc_id)
"""
FAKE_NOTEBOOK = """
import sys, types
shell = types.ModuleType("IPython")
shell.get_ipython = lambda: object()
sys.modules["IPython"] = shell
"""


@pytest.fixture
def bright(bright_hub):
    return bright_hub(BIOLOGY)


def python(code: str) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.slow
def test_without_logging_set_up_downloads_and_builds_print_info_lines(bright):
    proc = python(CELL)
    assert proc.stdout.strip() == DOC
    info = [line for line in proc.stderr.splitlines() if line.startswith("[INFO] ")]
    assert any(line.startswith("[INFO] downloading ") for line in info), proc.stderr
    assert any("building the random-access store" in line for line in info), proc.stderr


@pytest.mark.slow
def test_silencing_ir_datasets_logger_silences_ir_bright(bright):
    silence = "import logging; logging.getLogger('ir_datasets').setLevel(logging.WARNING)\n"
    proc = python(FAKE_NOTEBOOK + silence + CELL)
    assert proc.stdout.strip() == DOC
    assert proc.stderr == ""  # no [INFO] line and no bar


@pytest.mark.slow
def test_in_a_notebook_store_builds_and_downloads_show_progress_bars(bright):
    proc = python(FAKE_NOTEBOOK + CELL)
    assert "store biology.docs.parquet" in proc.stderr and "doc/s" in proc.stderr
    assert "B/s" in proc.stderr  # a download bar


@pytest.mark.slow
def test_configured_logging_gets_the_records_once_in_the_users_format(bright):
    setup = (
        "import logging; logging.basicConfig(level=logging.INFO, format='%(name)s|%(message)s')\n"
    )
    proc = python(setup + CELL)
    assert "ir_bright.hub.transfer|downloading " in proc.stderr
    assert "[INFO]" not in proc.stderr.replace("[INFO] ir_datasets", "")


@pytest.mark.slow
def test_quiet_command_line_prints_nothing_on_stderr(bright):
    proc = subprocess.run(
        [sys.executable, "-m", "ir_bright", "-q", "download", "bright/biology"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    loud = subprocess.run(
        [sys.executable, "-m", "ir_bright", "download", "bright/biology-long"],
        capture_output=True,
        text=True,
    )
    assert "downloading" in loud.stderr
