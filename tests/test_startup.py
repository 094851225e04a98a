"""What starting costs: ``import ir_bright`` loads nothing heavy, neither ir_datasets nor
ir_measures, and registers everything with them as soon as one of them is imported, whichever
import comes first and however the process was started; the command's parsers (``--help``,
usage errors) need neither ir_datasets nor the collections.

Each check runs a fresh interpreter: what a process has imported is only visible from inside
one that imported nothing else before.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ir_bright.cli import SUBCOMMANDS  # every command the tool offers, as its parser lists them

HEAVY = ("pyarrow", "numpy", "pandas", "scipy", "nltk", "matplotlib", "PIL", "yaml")


def loaded_after(code: str) -> set[str]:
    """The top-level packages a fresh interpreter holds after running ``code``."""
    probe = (
        code
        + "\nimport sys, json; print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.splitlines()[-1]))


def test_import_loads_no_heavy_library_beyond_the_stock_imports():
    stock = loaded_after("import ir_datasets, ir_measures")
    ours = loaded_after("import ir_bright")
    added = sorted(set(HEAVY) & (ours - stock))
    assert added == [], f"import ir_bright imports {added}: import them where they are used"


REGISTERED = """
import ir_bright, ir_datasets, ir_measures
assert ir_bright.registry.is_ours("bright/pony"), "bright/pony is the core's"
print(ir_measures.parse_measure("Official(nDCG@10)"))
"""


def test_import_imports_neither_ir_datasets_nor_ir_measures():
    assert not {"ir_datasets", "ir_measures"} & loaded_after("import ir_bright")


@pytest.mark.parametrize(
    "first",
    [
        "import ir_bright, ir_datasets",
        "import ir_datasets, ir_bright",
        "import ir_bright, ir_measures",
        "import ir_bright.registry",
        "from ir_bright import evaluate",
        "import ir_bright.scoring.provider",
        "import pyterrier, ir_bright; pyterrier.get_dataset('irds:bright/pony')",
    ],
)
def test_whichever_import_comes_first_the_datasets_and_measures_are_registered(first):
    if first.startswith("import pyterrier"):
        pytest.importorskip("pyterrier")
    proc = subprocess.run(
        [sys.executable, "-c", f"{first}\n{REGISTERED}"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Official(nDCG@10)"


def test_import_registers_the_same_way_whatever_the_command_line(tmp_path):
    """A program named like the console script is a library user like any other."""
    script = tmp_path / "ir-bright"
    script.write_text(REGISTERED)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Official(nDCG@10)"


def test_registration_leaves_no_trace_on_the_import_system():
    code = """
import sys
before = [type(f).__name__ for f in sys.meta_path]
import ir_bright, ir_datasets
assert [type(f).__name__ for f in sys.meta_path] == before, sys.meta_path
for module in (ir_datasets, ir_bright.registry):
    assert type(module.__loader__).__name__ == "SourceFileLoader", module.__loader__
    assert module.__spec__.loader is module.__loader__
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_import_still_registers_datasets_and_measures():
    code = """
import ir_bright, ir_datasets, ir_measures
assert ir_bright.registry.is_ours("bright/pony") and ir_bright.registry.is_ours("mm-bright")
assert ir_datasets.load("bright/pony").docs_count() == 7894  # the BRIGHT paper, Table 1
print(ir_measures.parse_measure("Official(nDCG@10)"))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Official(nDCG@10)"


def test_the_public_names_load_on_first_use():
    code = """
import inspect, ir_bright
from ir_bright import Official, compare, drop_excluded, evaluate, per_query_frame, register
assert inspect.isfunction(ir_bright.compare) and ir_bright.compare is compare
assert set(ir_bright.__all__) <= set(dir(ir_bright))
print(ir_bright.__version__)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()


@pytest.mark.parametrize(
    "imports", ["import ir_datasets, ir_bright", "import ir_bright, ir_datasets"]
)
def test_replacing_the_core_entries_is_one_info_record_shown_where_logging_is_configured(imports):
    """Silent in a notebook or script (``python -m ir_measures`` with ir_bright imported prints
    what it prints without); one INFO record for logging the user set up before the import."""
    quiet = subprocess.run([sys.executable, "-c", imports], capture_output=True, text=True)
    assert quiet.returncode == 0 and quiet.stderr == ""
    setup = "import logging; logging.basicConfig(level=logging.INFO, format='%(name)s|%(message)s')"
    shown = subprocess.run(
        [sys.executable, "-c", f"{setup}\n{imports}"],
        capture_output=True,
        text=True,
    )
    lines = [line for line in shown.stderr.splitlines() if line.startswith("ir_bright")]
    assert len(lines) == 1 and lines[0].startswith("ir_bright.registry|replaced "), shown.stderr


def imported_by(*argv: str) -> tuple[int, set[str]]:
    """Exit status and modules imported by ``python -m ir_bright ARGV`` (``-X importtime``)."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ir_bright", *argv],
        capture_output=True,
        text=True,
    )
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return proc.returncode, names


@pytest.mark.parametrize("argv", [["--help"], *([name, "--help"] for name in SUBCOMMANDS)])
def test_help_imports_neither_ir_datasets_nor_heavy_libraries(argv):
    status, names = imported_by(*argv)
    assert status == 0
    assert "ir_bright.cli" in names  # the probe works
    heavy = sorted(n for n in names if n.split(".")[0] in ("ir_datasets", "ir_measures", *HEAVY))
    assert heavy == []


def test_a_usage_error_imports_no_collection():
    status, names = imported_by("bm25", "--k1")
    assert status == 2
    assert not any(
        n.startswith(("ir_datasets", "ir_bright.families.bright", "ir_bright.registry"))
        for n in names
    )


def test_a_command_registers_once_its_arguments_are_parsed():
    proc = subprocess.run(
        [sys.executable, "-m", "ir_bright", "list", "bright/pony", "--format", "json"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "bright/pony-long" in {row["id"] for row in json.loads(proc.stdout)}
    assert "replaced" not in proc.stderr  # the library's line; the command shows it with -v
    verbose = subprocess.run(
        [sys.executable, "-m", "ir_bright", "list", "bright/pony", "-v"],
        capture_output=True,
        text=True,
    )
    assert "replaced" in verbose.stderr


def test_import_builds_no_dataset_and_first_use_builds_only_its_collection():
    code = """
import sys, ir_bright, ir_datasets
def built():
    return sorted(m for m in sys.modules if m.endswith(".collection") or m.startswith(
        ("ir_bright.hub", "ir_bright.store", "ir_bright.runs")))
print(built())
ir_datasets.load("bright/pony").docs_count()
print([m for m in built() if m.endswith(".collection")])
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    at_import, after_use = proc.stdout.splitlines()
    assert at_import == "[]"
    assert after_use == "['ir_bright.families.bright.collection']"


def freeze_count_after(code: str) -> int:
    """How many objects a fresh interpreter has frozen out of garbage collection after
    running ``code`` (``gc.freeze``)."""
    probe = code + "\nimport gc, sys; print(gc.get_freeze_count(), file=sys.stderr)"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    return int(proc.stderr.splitlines()[-1])


def test_the_command_run_inside_a_host_leaves_the_hosts_garbage_collection_alone():
    assert freeze_count_after("from ir_bright.cli import main; main(['list'])") == 0


def test_the_command_run_as_its_own_process_freezes_what_its_imports_made():
    run_as_main = (
        "import runpy, sys; sys.argv = ['ir-bright', 'list']\n"
        "try:\n    runpy.run_module('ir_bright', run_name='__main__')\n"
        "except SystemExit:\n    pass"
    )
    assert freeze_count_after(run_as_main) > 10_000
