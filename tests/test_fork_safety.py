"""A process that forks while another of its threads makes the first use of a dataset (the
first ``docs_store()`` imports pyarrow and NumPy and builds the store) has children that
answer, whatever the moment of the fork."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import ir_datasets
import pytest

import ir_bright  # noqa: F401 - registers the datasets

if not hasattr(os, "fork"):
    pytest.skip("needs os.fork", allow_module_level=True)

FORKS_DURING_FIRST_USE = """
import faulthandler, json, os, sys, threading, time, warnings
warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads: the point here
import ir_datasets, ir_bright

doc_id, text, bound = sys.argv[1], sys.argv[2], float(sys.argv[3])
dataset = ir_datasets.load("bright/biology")

def lookup():
    return dataset.docs_store().get(doc_id).text == text

def answer():
    faulthandler.dump_traceback_later(bound, exit=True)  # where it hangs, then status 1
    os._exit(0 if lookup() else 4)

first_use = threading.Thread(target=lookup)
children = []
first_use.start()
while first_use.is_alive() and len(children) < 60:
    pid = os.fork()
    if pid == 0:
        answer()
    children.append(pid)
    time.sleep(0.004)
first_use.join()
print(json.dumps([os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children]))
"""


@pytest.mark.slow
def test_children_forked_at_any_moment_of_a_first_use_answer(bright):
    dataset = ir_datasets.load("bright/biology")
    dataset.docs_path()  # fetched: the first use is the imports and the store's build
    doc_id, text = next(iter(bright.rows["biology"]["documents"].items()))
    done = subprocess.run(
        [sys.executable, "-c", FORKS_DURING_FIRST_USE, doc_id, text, "60"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    statuses = json.loads(done.stdout)
    assert statuses and set(statuses) == {0}, done.stderr[-4000:]
