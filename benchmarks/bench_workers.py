"""The BM25 worker pool vs ``concurrent.futures`` and ``multiprocessing.Pool``: how each ends.

A parent process starts a pool of 2 worker processes, hands each a 30-second task, and is then
sent a signal: SIGTERM (a scheduler or ``kill``), SIGINT to its process group (Ctrl-C) or SIGKILL
(the out-of-memory killer). Measured: the seconds until the parent is gone, and how many
processes of its group (workers, resource trackers) are still alive 3 s after the signal. A last
case runs each pool from a script without ``if __name__ == "__main__":``, as a user's plain
script is written: spawned workers import the script again, ir_bright's (fresh interpreters
running its own worker module) do not.

    python benchmarks/bench_workers.py
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
POOLS = {
    "ir_bright": "ir_bright's `Workers` (fresh interpreters, a socket pair each)",
    "futures": "`concurrent.futures.ProcessPoolExecutor` (spawn)",
    "pool": "`multiprocessing.Pool` (spawn)",
}
SIGNALS = {
    "SIGTERM": "SIGTERM to the parent",
    "SIGINT": "SIGINT to the group (Ctrl-C)",
    "SIGKILL": "SIGKILL to the parent",
}
SETTLE_S = 3.0

PARENT = r"""
import json, multiprocessing, sys, time
kind = sys.argv[1]
spawn = multiprocessing.get_context("spawn")

def run():
    if kind == "ir_bright":
        from ir_bright.bm25.workers import Workers
        with Workers(2) as workers:
            results = workers.ordered(time.sleep, [TASK, TASK], lambda seconds: seconds)
            print(json.dumps([p.pid for p, _ in workers._workers]), flush=True)
            list(results)
    elif kind == "futures":
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(2, mp_context=spawn) as pool:
            futures = [pool.submit(time.sleep, TASK) for _ in range(2)]
            print(json.dumps(list(pool._processes)), flush=True)
            [f.result() for f in futures]
    else:
        with spawn.Pool(2) as pool:
            pending = pool.map_async(time.sleep, [TASK, TASK], chunksize=1)
            print(json.dumps([p.pid for p in pool._pool]), flush=True)
            pending.get()

"""


def _as_in_a_terminal() -> None:
    """SIGINT handled as a terminal's foreground job has it (a shell's background job, this
    benchmark's own parent perhaps, ignores it, and the children would inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def group_alive(group: int) -> int:
    """Processes of process group ``group`` that are alive (zombies not counted)."""
    count = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and fields[0] != "Z":
            count += 1
    return count


def signalled(kind: str, name: str, folder: Path) -> str:
    """Start ``kind``'s pool in a parent of its own group, send ``name``, report."""
    script = folder / "parent.py"
    script.write_text(PARENT.replace("TASK", "30") + 'if __name__ == "__main__":\n    run()\n')
    parent = subprocess.Popen(
        [sys.executable, str(script), kind],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
        start_new_session=True,
        preexec_fn=_as_in_a_terminal,
    )
    assert parent.stdout is not None
    json.loads(parent.stdout.readline())  # the workers are up
    time.sleep(1.0)  # and busy
    sent = time.monotonic()
    if name == "SIGINT":
        os.killpg(parent.pid, signal.SIGINT)
    else:
        parent.send_signal(getattr(signal, name))
    try:
        parent.wait(timeout=SETTLE_S)
        gone = f"{time.monotonic() - sent:.2f} s"
    except subprocess.TimeoutExpired:
        gone = f"**not within {SETTLE_S:.0f} s**"
    time.sleep(max(0.0, sent + SETTLE_S - time.monotonic()))
    left = group_alive(parent.pid) - (parent.poll() is None)
    with_parent = "" if parent.poll() is not None else " (parent still running)"
    with contextlib.suppress(ProcessLookupError):  # whatever is left, before the next case
        os.killpg(parent.pid, signal.SIGKILL)
    parent.wait()
    shown = "none" if left == 0 else f"**{left}**"
    return f"gone in {gone}; left: {shown}{with_parent}"


def unguarded(kind: str, folder: Path) -> str:
    """Run ``kind``'s pool from a script whose pool code is not under a ``__main__`` guard."""
    script = folder / "plain_script.py"
    script.write_text(PARENT.replace("TASK", "0.1") + "run()\n")
    started = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, str(script), kind],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
            start_new_session=True,
            preexec_fn=_as_in_a_terminal,
        )
    except subprocess.TimeoutExpired as exc:
        return f"**no end in {exc.timeout:.0f} s**"
    seconds = time.monotonic() - started
    if done.returncode == 0:
        return f"finished in {seconds:.1f} s"
    last = (done.stderr.strip().splitlines() or ["?"])[-1].split(":")[0]
    return f"failed in {seconds:.1f} s ({last})"


def main() -> int:
    """Signal each pool in turn, run each from a plain script; print the table."""
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(
            f"2 workers, each in a 30 s task, then the signal; 'left': processes of the "
            f"parent's group still alive {SETTLE_S:.0f} s after it.\n"
        )
        print("| pool | " + " | ".join(SIGNALS.values()) + " | a plain script, unguarded |")
        print("|---|" + "---|" * (len(SIGNALS) + 1))
        for kind, described in POOLS.items():
            cells = [signalled(kind, name, folder) for name in SIGNALS]
            cells.append(unguarded(kind, folder))
            print(f"| {described} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "workers")
