"""Write benchmark output into docs/performance.md or docs/decisions.md, dated, with the
machine described.

Every benchmark script ends with ``docpage.run(main, KEY)``: given ``--write-page`` it runs as
usual, prints its tables as usual, and also writes them as section KEY of its page, under a line
saying when, with which command and on which machine they were measured. The performance page
is never edited by hand; a section not yet rerun on the current code is written from the output
recorded earlier (``benchmarks/recorded/KEY.md``) by

    python benchmarks/docpage.py --recorded KEY [KEY ...]

and the section says that it was not rerun. The decisions page is prose written by hand around
its measured sections (:data:`DECISIONS`): a script replaces its own section between the
page's markers and leaves the prose alone.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import io
import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAGE = HERE.parent / "docs" / "performance.md"
RECORDED = HERE / "recorded"
FLAG = "--write-page"
SECTIONS = {
    "docs": "BRIGHT documents: ir_bright vs ir_datasets' loader (`bench_docs.py`)",
    "adjusted": "Duplicate-aware qrels: the hash pass (`bench_adjusted.py`)",
    "mmbright": "MM-BRIGHT documents and images (`bench_mmbright.py`)",
    "scoring": "Official scoring vs stock ir_measures (`bench_scoring.py`)",
    "bm25": "BM25: ir_bright vs bm25s and Pyserini (`bench_bm25.py`)",
    "fuse": "Run fusion: ir_bright vs ranx (`bench_fuse.py`)",
    "candidates": "Reranking candidates for the 12 BRIGHT domains (`bench_candidates.py`)",
    "startup": "Start-up: importing and the command (`bench_startup.py`)",
    "families": "R2MED and TEMPO beside BRIGHT: loading and scoring (`bench_families.py`)",
    "scale": "From 100,000 to 2,500,000 documents (`bench_scale.py`)",
}
DECISIONS_PAGE = HERE.parent / "docs" / "decisions.md"
DECISIONS = {
    "hub-faults": "the hub client's fault scenarios (`bench_hub_faults.py`)",
    "store": "the document store (`bench_store.py`)",
    "analysis": "the BM25 analysis (`bench_analysis.py`)",
    "ranx": "statistics and fusion (`bench_ranx.py`)",
    "workers": "the worker pool (`bench_workers.py`)",
    "sizes": "the own pieces' sizes (`bench_sizes.py`)",
    "lock": "the cache lock (`bench_lock.py`)",
    "hosts": "registration without importing the hosts (`bench_hosts.py`)",
    "runs": "reading runs (`bench_runs.py`)",
}
"""The decisions page's measured sections; their headings and the prose around them are the
page's own."""
INTRO = """# Performance

This page is written by the scripts in `benchmarks/`, never by hand: each section is the
output of one script run with `--write-page`, under a line giving the date, the command and the
machine. A section whose script was not rerun on the current code says so, and gives the date
and commit of the output it shows. Ratios compare ir_bright with the named baseline in the same
run; absolute times depend on the machine and its load.
"""


def machine() -> str:
    """One line describing this machine: CPU, cores, memory, OS, Python, load."""
    cpu = platform.processor() or platform.machine()
    memory = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                memory = f", {int(line.split()[1]) / 2**20:.0f} GiB memory"
                break
    except OSError:
        pass
    load = ""
    if hasattr(os, "getloadavg"):
        load = f", load average {os.getloadavg()[0]:.1f} at the start"
    return (
        f"{cpu}, {os.cpu_count()} cores{memory}; {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}{load}"
    )


def revision() -> str:
    """The commit measured, marked when the work tree differs from it (the pages the
    benchmarks write aside: a run of every script writes them one after the other)."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=HERE, capture_output=True, text=True, check=False)
        return done.stdout.strip() if done.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    pages = [
        f":(top,exclude){page.relative_to(HERE.parent)}"
        for page in (PAGE, DECISIONS_PAGE)
        if page.is_relative_to(HERE.parent)
    ]
    changed = git("status", "--porcelain", "--", ":(top)", *pages)
    return commit + (" with uncommitted changes" if changed else "")


def _markers(key: str) -> tuple[str, str]:
    return f"<!-- section {key} -->", f"<!-- end {key} -->"


def _sections(text: str) -> dict[str, str]:
    found = {}
    for key in SECTIONS:
        start, end = _markers(key)
        if start in text and end in text:
            found[key] = text[text.index(start) : text.index(end) + len(end)]
    return found


def write_section(key: str, body: str, stamp: str) -> None:
    """Replace (or add) section ``key`` of its page with ``stamp`` and ``body``."""
    if key in DECISIONS:
        _write_in_place(DECISIONS_PAGE, key, f"{stamp}\n\n{body.strip()}")
        return
    if key not in SECTIONS:
        known = ", ".join([*SECTIONS, *DECISIONS])
        raise SystemExit(f"docpage: unknown section {key!r}: one of {known}")
    sections = _sections(PAGE.read_text("utf-8")) if PAGE.exists() else {}
    start, end = _markers(key)
    sections[key] = f"{start}\n## {SECTIONS[key]}\n\n{stamp}\n\n{body.strip()}\n{end}"
    ordered = [sections[k] for k in SECTIONS if k in sections]
    temporary = PAGE.with_suffix(".md.tmp")
    temporary.write_text(INTRO + "\n" + "\n\n".join(ordered) + "\n", "utf-8")
    temporary.replace(PAGE)


def _write_in_place(page: Path, key: str, content: str) -> None:
    """Replace what lies between section ``key``'s markers on ``page``, nothing else."""
    text = page.read_text("utf-8")
    start, end = _markers(key)
    if start not in text or end not in text:
        raise SystemExit(f"docpage: {page.name} has no markers {start} ... {end}")
    before, rest = text.split(start, 1)
    after = rest.split(end, 1)[1]
    temporary = page.with_suffix(".md.tmp")
    temporary.write_text(f"{before}{start}\n{content}\n{end}{after}", "utf-8")
    temporary.replace(page)


class _Tee(io.TextIOBase):
    def __init__(self, stream):
        self.stream, self.parts = stream, []

    def write(self, text):
        self.parts.append(text)
        return self.stream.write(text)

    def flush(self):
        self.stream.flush()


def shown_arguments(arguments: list[str]) -> list[str]:
    """The arguments as a reader can follow them: a path outside the checkout (a Python with
    Pyserini, a JDK) is named by its option, ``--java-home <java-home>``; one inside it is
    relative to it."""
    shown, option = [], "path"
    for argument in arguments:
        name, equals, value = argument.partition("=")
        path = value if equals else argument
        if os.path.isabs(path):
            if Path(path).resolve().is_relative_to(HERE.parent):
                placeholder = str(Path(path).resolve().relative_to(HERE.parent))
            else:
                placeholder = f"<{(name if equals else option).lstrip('-')}>"
            argument = f"{name}={placeholder}" if equals else placeholder
        shown.append(argument)
        option = argument if argument.startswith("-") else "path"
    return shown


def run(main: Callable[[], object], key: str) -> None:
    """Run a benchmark's ``main``; with ``--write-page``, also write its output as section
    ``key`` of the page."""
    write = FLAG in sys.argv[1:]
    if write:
        sys.argv.remove(FLAG)
    arguments = shown_arguments(sys.argv[1:])
    command = "python " + shlex.join(["benchmarks/" + Path(sys.argv[0]).name, *arguments])
    started = dt.datetime.now(dt.timezone.utc)
    description = machine()
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        status = main()
    if write:
        stamp = (
            f"Measured {started:%Y-%m-%d %H:%M} UTC at commit {revision()} by `{command}` "
            f"on {description}."
        )
        write_section(key, "".join(tee.parts), stamp)
    sys.exit(status if isinstance(status, int) else 0)


def write_recorded(key: str) -> None:
    """Write section ``key`` from its recorded output, saying it was not rerun."""
    path = RECORDED / f"{key}.md"
    lines = path.read_text("utf-8").splitlines()
    header = dict(line.split(": ", 1) for line in lines[: lines.index("")])
    body = "\n".join(lines[lines.index("") + 1 :])
    stamp = (
        f"**Not rerun for this page.** The output below was recorded on {header['date']} "
        f"(commit {header['commit']}) by `{header['command']}` on {header['machine']}."
    )
    write_section(key, body, stamp)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recorded", nargs="+", choices=list(SECTIONS), required=True)
    for name in parser.parse_args().recorded:
        write_recorded(name)
