"""Every python and bash block of README.md and docs/*.md runs as written.

Sybil parses the pages; each page's blocks run in order in one namespace (a later block may use
an earlier one's names), against the fixture BRIGHT, MM-BRIGHT and BRIGHT-Pro served on
loopback, in a fresh working folder. A block preceded by ``<!-- skip: next "reason" -->``
needs what the suite does not have (the real network, a GPU) and is reported skipped with the
reason. Blocks of other languages (``text``, ``console``) show output and are not run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unittest
from pathlib import Path

import pytest

sybil = pytest.importorskip("sybil")
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser  # noqa: E402

from tests.fixtures import (  # noqa: E402
    bright_hub,
    brightpro_hub,
    mmbright_hub,
    r2med_hub,
    tempo_hub,
)

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def run_bash(example) -> None:
    """Run a bash block with ``-e -o pipefail``; a failing command fails the example."""
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", example.parsed],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise AssertionError(
            f"exit {done.returncode}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
        )


PARSER = sybil.Sybil(
    parsers=[
        PythonCodeBlockParser(),
        CodeBlockParser(language="bash", evaluator=run_bash),
        SkipParser(),
    ]
)


@pytest.fixture
def fixture_hub(hub, hub_root, tmp_path, monkeypatch):
    """The three fixture benchmarks on the loopback hub, a fresh working folder, and the
    interpreter's ``ir-bright`` first on PATH. Checksums off: the pins are the real files'."""
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    bright_hub.write_bright(hub_root)
    mmbright_hub.write_mmbright(hub_root)
    brightpro_hub.write_brightpro(hub_root)
    r2med_hub.write_r2med(hub_root)
    tempo_hub.write_tempo(hub_root)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", bin_dir + os.pathsep + os.environ.get("PATH", ""))
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return hub


@pytest.mark.slow  # minutes: the pages run the command line, BM25 and Ray for real
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_block_of_the_page_runs_as_written(page, fixture_hub):
    document = PARSER.parse(page)
    skipped = []
    ran = 0
    for example in document:
        try:
            example.evaluate()
        except unittest.SkipTest as reason:
            skipped.append(f"line {example.line}: {reason}")
        else:
            ran += 1
    if not ran and skipped:
        pytest.skip("; ".join(skipped))


def test_every_environment_variable_the_package_reads_is_in_the_configuration_table():
    read = set()
    for path in (ROOT / "ir_bright").rglob("*.py"):
        read |= set(
            re.findall(r"\b(?:IR_BRIGHT_[A-Z_]+|HF_[A-Z_]+|IR_DATASETS_HOME)\b", path.read_text())
        )
    table = (ROOT / "docs" / "configuration.md").read_text()
    documented = set(re.findall(r"^\| `([A-Z_]+)", table, re.MULTILINE))
    assert read - documented == set()


def test_every_code_block_is_run_or_labelled_as_output():
    """A block in another language (or none) would silently escape the test above: only python
    and bash run; text and bibtex show output or data."""
    allowed = {"python", "bash", "text", "bibtex"}
    for page in PAGES:
        fence = None
        for number, line in enumerate(page.read_text("utf-8").splitlines(), 1):
            stripped = line.strip()
            if not stripped.startswith("```"):
                continue
            if fence is None:
                fence = stripped[3:].strip()
                assert fence in allowed, f"{page.name}:{number}: a ```{fence} block"
            elif stripped == "```":
                fence = None
