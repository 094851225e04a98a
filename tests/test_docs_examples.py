"""Every python and bash block of README.md and docs/*.md runs as written, both ways a reader
runs it: the page top to bottom, and each block alone.

Sybil parses the pages. Each page's blocks run in order (the page pass), against the fixture
hubs of every family served on loopback: the python blocks in one namespace, in the page's
working folder. Each block also runs alone, just before its turn in the page: a python block as
``python script.py`` in a fresh interpreter, a bash block in a fresh ``bash``, each in an empty
folder of its own, so it has none of the names and none of the files of the blocks above it.
A block that reads a file an earlier block wrote says so on its first lines,
``# needs runs/run.trec`` (paths separated by spaces or commas, a folder ending in ``/``, an
optional explanation in parentheses after them), and gets a copy of it from the page's folder;
the files a bash block writes are then copied into the page's folder, as if it had run there.
A block that uses an earlier block's names, or reads a file it does not declare, fails alone.
Deprecation warnings raised by a block's own code are errors in the script pass.

A block preceded by ``<!-- skip: next "reason" -->`` needs what the suite does not have (the
real network, a GPU) and is reported skipped with the reason. Blocks of other languages
(``text``, ``bibtex``) show output or data and are not run.

Every page with examples says which extras they need, on a line starting with ``Needs``
(``Needs the `bm25` extra ...``, ``Needs no extra ...``).
"""

from __future__ import annotations

import configparser
import os
import re
import shutil
import signal
import subprocess
import sys
import unittest
from pathlib import Path

import pytest

sybil = pytest.importorskip("sybil")
from sybil.evaluators.python import PythonEvaluator  # noqa: E402
from sybil.parsers.markdown import CodeBlockParser, SkipParser  # noqa: E402

from tests.fixtures.hubs import WRITERS  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TIMEOUT = 180  # seconds a block may take: the slowest (Ray's) takes well under a minute
NEEDS = re.compile(
    r"\A(?:#[^\n]*\n)*?# needs (?P<paths>[^(\n]+?)[ \t]*(?:\([^\n]*\))?[ \t]*$", re.M
)
"""The ``# needs PATH ...`` line among a block's first comment lines."""
EXTRAS_USED = {  # what in a runnable block's code needs which extra
    "bm25": r"\bir-bright (?:-q )?bm25\b|\bbm25_transformer\b",
    "compare": r"\bir-bright compare\b|\bir_bright\.compare\(",
    "images": r"\bmm-bright/[\w-]+/task[234]\b",
    "plot": r"--plot\b",
    "pyterrier": r"\bimport pyterrier\b",
}


def needed_files(code: str) -> list[str]:
    """The files (or folders, ending in ``/``) a block says it needs from earlier blocks."""
    match = NEEDS.match(code)
    if match is None:
        return []
    return [path for path in re.split(r"[,\s]+", match.group("paths")) if path]


class PageRun:
    """One page run both ways: each block first alone, in a fresh folder with the files it
    declares, then in the page (python in the page's namespace)."""

    def __init__(self, page: Path, scratch: Path):
        self.scratch = scratch
        self.work = Path.cwd()  # the page's working folder
        self.in_page = PythonEvaluator()

    def parser(self) -> sybil.Sybil:
        """The page's parser: python and bash blocks run both ways, skip directives honoured."""
        return sybil.Sybil(
            parsers=[
                CodeBlockParser(language="python", evaluator=self.run_python),
                CodeBlockParser(language="bash", evaluator=self.run_bash),
                SkipParser(),
            ]
        )

    def alone(self, example) -> Path:
        """A fresh folder for the block, holding copies of the files it declares."""
        folder = self.scratch / f"line_{example.line}"
        folder.mkdir()
        for needed in needed_files(str(example.parsed)):
            source = self.work / needed
            if not source.exists():
                raise AssertionError(
                    f"line {example.line} needs {needed}, which no block above it wrote"
                )
            target = folder / needed
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, target, dirs_exist_ok=True)
            else:
                shutil.copy2(source, target)
        return folder

    def run_python(self, example) -> None:
        """Run the block as ``python script.py`` alone, then in the page's namespace."""
        folder = self.alone(example)
        script = self.scratch / f"line_{example.line}.py"
        script.write_text(str(example.parsed), encoding="utf-8")
        argv = [sys.executable, "-W", "error::DeprecationWarning:__main__", str(script)]
        run_to_the_end(argv, f"line {example.line}, run alone as `python {script.name}`", folder)
        self.in_page(example)

    def run_bash(self, example) -> None:
        """Run the block with ``-e -o pipefail`` alone (a failing command fails it), then copy
        what it wrote into the page's folder, as if it had run there."""
        folder = self.alone(example)
        argv = ["bash", "-e", "-o", "pipefail", "-c", example.parsed]
        run_to_the_end(argv, f"line {example.line}, run alone", folder)
        shutil.copytree(folder, self.work, dirs_exist_ok=True, symlinks=True)


def run_to_the_end(argv: list[str], what: str, folder: Path) -> None:
    """Run ``argv`` in ``folder``, in a session of its own; a failure, or not finishing within
    :data:`TIMEOUT` (then the whole session is killed, workers included), fails ``what``."""
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=folder,
    )
    try:
        out, err = process.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        raise AssertionError(
            f"{what}: not finished after {TIMEOUT} s\n--- stdout\n{out}\n--- stderr\n{err}"
        ) from None
    if process.returncode != 0:
        raise AssertionError(
            f"{what}: exit {process.returncode}\n--- stdout\n{out}\n--- stderr\n{err}"
        )


def runnable_code(page: Path) -> list[str]:
    """The code of the page's python and bash blocks the page pass runs (not skipped)."""
    parser = sybil.Sybil(
        parsers=[CodeBlockParser(language="python"), CodeBlockParser(language="bash"), SkipParser()]
    )
    code, skip_next = [], False
    for example in parser.parse(page):
        if isinstance(example.parsed, tuple):  # a skip directive: (action, reason)
            skip_next = example.parsed[0] == "next"
        elif skip_next:
            skip_next = False
        else:
            code.append(str(example.parsed))
    return code


@pytest.fixture
def fixture_hub(hub, hub_root, tmp_path, monkeypatch):
    """Every family's fixture benchmark on the loopback hub, a fresh working folder, and the
    interpreter's ``ir-bright`` first on PATH. Checksums off: the pins are the real files'."""
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    for write in WRITERS.values():
        write(hub_root)
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", bin_dir + os.pathsep + os.environ.get("PATH", ""))
    monkeypatch.setenv("PYTHONPATH", str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return hub


@pytest.mark.slow  # minutes: the pages run the command line, BM25 and Ray for real
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_block_of_the_page_runs_as_written_and_alone(page, fixture_hub, tmp_path):
    scratch = tmp_path / "alone"
    scratch.mkdir()
    run = PageRun(page, scratch)
    skipped = []
    ran = 0
    for example in run.parser().parse(page):
        try:
            example.evaluate()
        except unittest.SkipTest as reason:
            skipped.append(f"line {example.line}: {reason}")
        else:
            ran += 1
    if not ran and skipped:
        pytest.skip("; ".join(skipped))


def run_page(page: Path, scratch: Path) -> None:
    """Both passes over ``page`` (no fixtures: for pages of plain Python), the page's working
    folder the current one."""
    scratch.mkdir()
    for example in PageRun(page, scratch).parser().parse(page):
        example.evaluate()


@pytest.fixture
def page_folder(tmp_path, monkeypatch):
    """A page's working folder, the current one."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return work


def test_a_block_using_an_earlier_blocks_names_fails_alone(tmp_path, page_folder):
    page = tmp_path / "page.md"
    page.write_text("# A\n\n```python\nx = 1\n```\n\n# B\n\n```python\nassert x == 1\n```\n")
    with pytest.raises(AssertionError, match=r"(?s)line 9, run alone as .*NameError: name 'x'"):
        run_page(page, tmp_path / "alone")


WRITES = "```bash\nmkdir -p runs && echo 7 > runs/seven.txt\n```\n\n"
READS = "```python\n{needs}assert open('runs/seven.txt').read() == '7\\n'\n```\n"


def test_a_block_reading_an_earlier_blocks_file_gets_it_only_if_it_says_so(tmp_path, page_folder):
    page = tmp_path / "page.md"
    page.write_text(READS.format(needs="# needs runs/seven.txt\n"))
    with pytest.raises(AssertionError, match="needs runs/seven.txt, which no block above"):
        run_page(page, tmp_path / "unwritten")
    page.write_text(WRITES + READS.format(needs=""))
    with pytest.raises(AssertionError, match=r"(?s)run alone as .*FileNotFoundError"):
        run_page(page, tmp_path / "undeclared")
    page.write_text(WRITES + READS.format(needs="# needs runs/seven.txt (the block above)\n"))
    run_page(page, tmp_path / "declared")
    assert (page_folder / "runs" / "seven.txt").read_text() == "7\n"  # the page has it too


def test_a_needs_line_names_files_and_folders_before_its_explanation():
    code = "# a comment\n# needs runs/a.trec, runs/b/ c.tsv (written above)\nprint(1)\n"
    assert needed_files(code) == ["runs/a.trec", "runs/b/", "c.tsv"]
    assert needed_files("print(1)\n# needs x.trec\n") == []  # only among the first comments


def test_a_deprecated_call_in_a_block_fails_its_script(tmp_path, page_folder):
    page = tmp_path / "page.md"
    code = "import warnings\nwarnings.warn('old', DeprecationWarning, stacklevel=1)\n"
    page.write_text(f"# A\n\n```python\n{code}```\n")
    with pytest.raises(AssertionError, match="DeprecationWarning: old"):
        run_page(page, tmp_path / "scripts")


def test_every_page_says_which_extras_its_examples_need():
    setup = configparser.ConfigParser()
    setup.read(ROOT / "setup.cfg")
    extras = set(setup["options.extras_require"])
    for page in PAGES:
        code = "\n".join(runnable_code(page))
        if not code:
            continue
        needed = {extra for extra, used in EXTRAS_USED.items() if re.search(used, code)}
        lines = [line for line in page.read_text("utf-8").splitlines() if line.startswith("Needs ")]
        assert len(lines) == 1, f"{page.name}: {len(lines)} lines start with 'Needs ', not one"
        named = set(re.findall(r"`([\w-]+)`", lines[0]))
        assert named <= extras, f"{page.name}: {named - extras} are not extras"
        assert named == needed, f"{page.name} says it needs {named}, its examples need {needed}"
        install = re.search(r"\.\[([\w,-]+)\]", lines[0])
        assert install is None or set(install.group(1).split(",")) == named, page.name


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
