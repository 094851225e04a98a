"""Imports of the hosts (ir_datasets, ir_measures) and of ir_bright's modules in many threads
at once, in fresh interpreters: no import raises (above all the host's own), and the datasets
and ``Official`` end up registered, whatever the order, as a guest's registration must."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import ROOT

THREADS = 8
TARGETS = [
    "ir_measures",
    "ir_datasets",
    "ir_bright.scoring.aspect_measures",
    "ir_bright.scoring.provider",
    "ir_bright.registry",
    "ir_bright.scoring.official",
    "ir_bright",
    "ir_bright.scoring.evaluator",
]
SCRIPT = """
import importlib, json, sys, threading
first, targets = sys.argv[1], sys.argv[2:]
for name in first.split(",") if first else []:
    importlib.import_module(name)
barrier = threading.Barrier(len(targets))
errors = []

def imports(name):
    barrier.wait()
    try:
        importlib.import_module(name)
    except BaseException as exc:
        errors.append(f"{name}: {type(exc).__name__}: {exc}")

threads = [threading.Thread(target=imports, args=(name,)) for name in targets]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
import ir_datasets, ir_measures
try:
    from ir_bright import Official  # a user of Official names it first: it waits for the
    ir_measures.parse_measure("Official(nDCG@10)")  # registration another thread may be doing
    official = True
except Exception as exc:
    official = f"{type(exc).__name__}: {exc}"
print(json.dumps({
    "errors": errors,
    "official": official,
    "datasets": "bright/biology" in ir_datasets.registry._registered,
}))
"""


def imports_at_once(first: str, targets: list[str]) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, first, *targets],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize(
    "first",
    [
        "",  # nothing imported before the threads: they race for everything
        "ir_bright",  # the watch is waiting for a host
        "ir_measures,ir_datasets",  # the hosts came first: ir_bright registers in its import
    ],
)
def test_threads_importing_the_hosts_and_ir_bright_at_once_never_fail_and_register(first):
    for attempt in range(6):
        targets = TARGETS[attempt % 2 :] + TARGETS[: attempt % 2]  # vary who starts where
        seen = imports_at_once(first, targets)
        assert seen == {"errors": [], "official": True, "datasets": True}, (attempt, seen)
