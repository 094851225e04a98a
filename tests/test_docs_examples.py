"""Every python and bash block of README.md and docs/*.md runs as written, both ways a reader
runs it: the page top to bottom in one interpreter, and each python block alone.

Sybil parses the pages. Each page's blocks run in order in one namespace (the page pass), against
the fixture BRIGHT, MM-BRIGHT and BRIGHT-Pro served on loopback, in a fresh working folder. Each
python block also runs as ``python script.py`` in a fresh interpreter (the script pass), in
the same working folder just before its turn in the page, so it has the files the blocks above
it wrote but none of their names. A block that needs an earlier block's names says so on its
first line, ``# continues the block under "<heading>"`` (the last python block under that
heading of the same page): its script is that block's script, then its own. Deprecation
warnings raised by a block's own code are errors in the script pass.

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
import signal
import subprocess
import sys
import unittest
from pathlib import Path

import pytest

sybil = pytest.importorskip("sybil")
from sybil.evaluators.python import PythonEvaluator  # noqa: E402
from sybil.parsers.markdown import CodeBlockParser, SkipParser  # noqa: E402

from tests.fixtures import (  # noqa: E402
    bright_hub,
    brightpro_hub,
    browsecomp_hub,
    mmbright_hub,
    r2med_hub,
    rarb_hub,
    tempo_hub,
)

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TIMEOUT = 180  # seconds a block may take: the slowest (Ray's) takes well under a minute
CONTINUES = re.compile(r'\A# continues the block under "(?P<heading>[^"]+)"[ \t]*\n')
EXTRAS_USED = {  # what in a runnable block's code needs which extra
    "bm25": r"\bir-bright (?:-q )?bm25\b|\bbm25_transformer\b",
    "compare": r"\bir-bright compare\b|\bir_bright\.compare\(",
    "images": r"\bmm-bright/[\w-]+/task[234]\b",
    "plot": r"--plot\b",
    "pyterrier": r"\bimport pyterrier\b",
}


def headings(text: str) -> list[tuple[int, str]]:
    """``(position, title)`` of each markdown heading of ``text`` outside code fences."""
    found, fenced, position = [], False, 0
    for line in text.splitlines(keepends=True):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"#{1,6} +(.+?)\s*$", line)):
            found.append((position, match.group(1)))
        position += len(line)
    return found


class PageRun:
    """One page run both ways: each python block first as a script in a fresh interpreter
    (with the scripts of the blocks it continues), then in the page's namespace."""

    def __init__(self, page: Path, scripts: Path):
        self.scripts = scripts
        self.headings = headings(page.read_text("utf-8"))
        self.ran: list[tuple[str, str]] = []  # (heading, script) of the python blocks run
        self.in_page = PythonEvaluator()

    def parser(self) -> sybil.Sybil:
        """The page's parser: python blocks run both ways, bash blocks in the page pass (each
        is a fresh ``bash`` process already), skip directives honoured."""
        return sybil.Sybil(
            parsers=[
                CodeBlockParser(language="python", evaluator=self.run_python),
                CodeBlockParser(language="bash", evaluator=run_bash),
                SkipParser(),
            ]
        )

    def run_python(self, example) -> None:
        """Run the block as ``python script.py``, then in the page's namespace."""
        script = self.script_of(example)
        path = self.scripts / f"line_{example.line}.py"
        path.write_text(script, encoding="utf-8")
        argv = [sys.executable, "-W", "error::DeprecationWarning:__main__", str(path)]
        run_to_the_end(argv, f"line {example.line}, run alone as `python {path.name}`")
        self.ran.append((self.heading_of(example.start), script))
        self.in_page(example)

    def script_of(self, example) -> str:
        """The block's source, after the script of the block it continues, if it says so."""
        source = str(example.parsed)
        match = CONTINUES.match(source)
        if match is None:
            return source
        wanted = match.group("heading")
        earlier = [script for heading, script in self.ran if heading == wanted]
        if not earlier:
            raise AssertionError(
                f"line {example.line} continues the block under {wanted!r}, but no python "
                "block under a heading of that name runs before it"
            )
        return f"{earlier[-1]}\n{source}"

    def heading_of(self, position: int) -> str:
        """The title of the section holding ``position``."""
        titles = [title for start, title in self.headings if start < position]
        return titles[-1] if titles else ""


def run_bash(example) -> None:
    """Run a bash block with ``-e -o pipefail``; a failing command fails the example."""
    run_to_the_end(["bash", "-e", "-o", "pipefail", "-c", example.parsed], f"line {example.line}")


def run_to_the_end(argv: list[str], what: str) -> None:
    """Run ``argv`` in a session of its own; a failure, or not finishing within
    :data:`TIMEOUT` (then the whole session is killed, workers included), fails ``what``."""
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
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
    """Every fixture benchmark on the loopback hub, a fresh working folder, and the
    interpreter's ``ir-bright`` first on PATH. Checksums off: the pins are the real files'."""
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    bright_hub.write_bright(hub_root)
    mmbright_hub.write_mmbright(hub_root)
    brightpro_hub.write_brightpro(hub_root)
    r2med_hub.write_r2med(hub_root)
    tempo_hub.write_tempo(hub_root)
    browsecomp_hub.write_browsecomp(hub_root)
    rarb_hub.write_rarb(hub_root)
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
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    run = PageRun(page, scripts)
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


def run_page(page: Path, scripts: Path) -> None:
    """Both passes over ``page`` (no fixtures: for pages of plain Python)."""
    scripts.mkdir()
    for example in PageRun(page, scripts).parser().parse(page):
        example.evaluate()


def test_a_block_using_an_earlier_blocks_names_fails_unless_it_says_it_continues(tmp_path):
    page = tmp_path / "page.md"
    first = "# A\n\n```python\nx = 1\n```\n\n# B\n\n```python\n"
    page.write_text(first + "assert x == 1\n```\n")
    with pytest.raises(AssertionError, match=r"(?s)line 9, run alone as .*NameError: name 'x'"):
        run_page(page, tmp_path / "alone")
    page.write_text(first + '# continues the block under "A"\nassert x == 1\n```\n')
    run_page(page, tmp_path / "continued")
    assert (tmp_path / "continued" / "line_9.py").read_text().startswith("x = 1\n")
    page.write_text(first + '# continues the block under "B"\nassert x == 1\n```\n')
    with pytest.raises(AssertionError, match="no python block under a heading of that name"):
        run_page(page, tmp_path / "misnamed")


def test_a_deprecated_call_in_a_block_fails_its_script(tmp_path):
    page = tmp_path / "page.md"
    code = "import warnings\nwarnings.warn('old', DeprecationWarning, stacklevel=1)\n"
    page.write_text(f"# A\n\n```python\n{code}```\n")
    with pytest.raises(AssertionError, match="DeprecationWarning: old"):
        run_page(page, tmp_path / "scripts")


def test_a_continuing_block_names_a_heading_of_its_page():
    for page in PAGES:
        titles = {title for _, title in headings(page.read_text("utf-8"))}
        for code in runnable_code(page):
            match = CONTINUES.match(code)
            assert match is None or match.group("heading") in titles, (page.name, code[:80])


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
