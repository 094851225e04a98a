"""docs/performance.md, and the measured sections of docs/decisions.md, are written by
benchmarks/docpage.py, never by hand."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def docpage(tmp_path, monkeypatch):
    """benchmarks/docpage.py, writing to a page in tmp_path."""
    spec = importlib.util.spec_from_file_location("docpage", ROOT / "benchmarks" / "docpage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "PAGE", tmp_path / "performance.md")
    monkeypatch.setattr(module, "DECISIONS_PAGE", tmp_path / "decisions.md")
    return module


def test_a_benchmark_run_with_write_page_writes_its_output_dated_with_the_machine(
    docpage, monkeypatch, capsys
):
    monkeypatch.setattr(sys, "argv", ["bench_docs.py", "--docs", "10", "--write-page"])

    def main():
        assert sys.argv == ["bench_docs.py", "--docs", "10"]  # the flag is not the script's
        print("| measure | ours |\n|---|---:|\n| speed | 2.00x |")

    with pytest.raises(SystemExit) as done:
        docpage.run(main, "docs")
    assert done.value.code == 0
    assert "| speed | 2.00x |" in capsys.readouterr().out  # printed as usual
    page = docpage.PAGE.read_text()
    assert "| speed | 2.00x |" in page
    assert "by `python benchmarks/bench_docs.py --docs 10` on " in page
    assert " cores" in page and "Python " in page and "UTC at commit " in page


def test_the_command_on_the_page_names_no_path_of_the_measuring_machine(docpage):
    inside = str(ROOT / "README.md")
    shown = docpage.shown_arguments(
        ["--pyserini-python", "/opt/venv/bin/python", "--java-home=/usr/lib/jvm/jdk", inside, "3"]
    )
    assert shown == [
        "--pyserini-python",
        "<pyserini-python>",
        "--java-home=<java-home>",
        "README.md",
        "3",
    ]


def test_a_section_is_replaced_and_the_others_kept_in_order(docpage):
    docpage.write_section("scoring", "scoring table", "stamp 1")
    docpage.write_section("docs", "first docs table", "stamp 2")
    docpage.write_section("docs", "second docs table", "stamp 3")
    page = docpage.PAGE.read_text()
    assert "first docs table" not in page
    assert page.index("second docs table") < page.index("scoring table")  # the page's order


def test_every_section_of_the_page_is_measured_or_exactly_its_recorded_output(docpage):
    page = (ROOT / "docs" / "performance.md").read_text("utf-8")
    for key in docpage.SECTIONS:
        start, end = f"<!-- section {key} -->", f"<!-- end {key} -->"
        section = page[page.index(start) : page.index(end)]
        if "**Not rerun for this page.**" not in section:
            assert "UTC at commit " in section, f"{key}: neither measured nor recorded"
            continue
        recorded = ROOT / "benchmarks" / "recorded" / f"{key}.md"
        assert recorded.exists(), f"{key}: marked not rerun, but nothing was recorded"
        body = recorded.read_text("utf-8").split("\n\n", 1)[1].strip()
        assert section.rstrip().endswith(body), f"{key}: edited by hand, or not rewritten"


def test_a_section_not_rerun_is_written_from_its_recorded_output_and_says_so(
    docpage, tmp_path, monkeypatch
):
    recorded = tmp_path / "recorded"
    recorded.mkdir()
    (recorded / "docs.md").write_text(
        "date: 2026-11-30\ncommit: abc1234\ncommand: python benchmarks/bench_docs.py\n"
        "machine: a 2-core machine\n\n| measure | ours |\n|---|---:|\n| speed | 2.00x |\n"
    )
    monkeypatch.setattr(docpage, "RECORDED", recorded)
    docpage.write_recorded("docs")
    page = docpage.PAGE.read_text()
    assert "**Not rerun for this page.** The output below was recorded on 2026-11-30 " in page
    assert "(commit abc1234) by `python benchmarks/bench_docs.py` on a 2-core machine." in page
    assert page.rstrip().endswith("| speed | 2.00x |\n<!-- end docs -->")


DECISIONS_PROSE = """# Decisions

Prose before.

<!-- section store -->
old table
<!-- end store -->

Prose after, with its own **words**.
"""


def test_a_decisions_section_is_written_in_place_and_the_prose_kept(docpage):
    docpage.DECISIONS_PAGE.write_text(DECISIONS_PROSE)
    docpage.write_section("store", "| store | 1 s |", "Measured then.")
    docpage.write_section("store", "| store | 2 s |", "Measured again.")
    page = docpage.DECISIONS_PAGE.read_text()
    assert page.startswith("# Decisions\n\nProse before.\n\n<!-- section store -->\n")
    assert page.endswith("<!-- end store -->\n\nProse after, with its own **words**.\n")
    assert "Measured again.\n\n| store | 2 s |" in page
    assert "old table" not in page and "1 s" not in page and "Measured then" not in page
    assert not docpage.PAGE.exists()  # the performance page is not touched


def test_a_decisions_page_without_the_section_s_markers_is_refused(docpage):
    docpage.DECISIONS_PAGE.write_text("# Decisions\n\nNo markers.\n")
    with pytest.raises(SystemExit, match="no markers <!-- section ranx -->"):
        docpage.write_section("ranx", "table", "stamp")
    assert docpage.DECISIONS_PAGE.read_text() == "# Decisions\n\nNo markers.\n"


def test_every_measured_section_of_the_decisions_page_was_written_by_its_script(docpage):
    page = (ROOT / "docs" / "decisions.md").read_text("utf-8")
    for key in docpage.DECISIONS:
        start, end = f"<!-- section {key} -->", f"<!-- end {key} -->"
        assert start in page and end in page, f"{key}: the page has no place for it"
        section = page[page.index(start) : page.index(end)]
        assert "UTC at commit " in section and "by `python benchmarks/" in section, key


FIGURE = re.compile(
    r"(?<![\w.])\d[\d,.]*(?:\s?(?:MB|MiB|GB|GiB|ms|s|x|%)(?!\w)|\s(?:lines|times)\b)"
    r"|(?<![\w.])\d[\d,]* of \d[\d,]*(?!\w)"
)
"""A figure: a quantity with its unit (``18 MB``, ``0.8 s``, ``1.2x``, ``550 lines``) or a
count out of a total (``53 of 300``)."""


def test_every_figure_of_the_decisions_prose_is_in_a_measured_section():
    """The prose states no figure that no script wrote: each one also stands in one of the
    page's measured sections."""
    page = (ROOT / "docs" / "decisions.md").read_text("utf-8")
    sections = re.findall(r"<!-- section ([\w-]+) -->(.*?)<!-- end \1 -->", page, re.S)
    measured = "\n".join(body for _, body in sections)
    prose = re.sub(r"<!-- section ([\w-]+) -->.*?<!-- end \1 -->", "", page, flags=re.S)
    prose = re.sub(r"`[^`\n]*`", "", prose)  # code: versions, names, options
    unmeasured = [m.group(0) for m in FIGURE.finditer(prose) if m.group(0) not in measured]
    assert unmeasured == [], "figures no script wrote on docs/decisions.md"


def test_the_figure_rule_finds_a_figure_no_script_wrote():
    assert FIGURE.findall("adds 18 MB in 11 distributions, 0.8 s, 1.15x and 550 lines") == [
        "18 MB",
        "0.8 s",
        "1.15x",
        "550 lines",
    ]
    assert FIGURE.findall("53 of 300 queries, Python 3.14, sha256") == ["53 of 300"]
