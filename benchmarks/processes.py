"""A command timed as a whole process: wall seconds, peak memory, what it printed.

The one way the benchmarks time a command they start. Linux carries a process's peak resident
memory (``ru_maxrss``) across fork and exec, so a child of a benchmark (holding pyarrow and
its data) could never read below the benchmark's own peak. Each command is therefore started
by a small launcher (``python -S``, about 10 MiB), which waits for it and reports its wall
time, ``ru_maxrss`` and exit status as the last line of its own standard error.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass

__all__ = ["Finished", "run_timed"]

_MARK = "LAUNCHER-REPORT"
LAUNCHER = f"""
import os, sys, time
if sys.argv[1] == "pin":  # on one core: less noise from the scheduler
    os.sched_setaffinity(0, {{max(os.sched_getaffinity(0))}})
start = time.perf_counter()
pid = os.posix_spawn(sys.argv[2], sys.argv[2:], os.environ)
_, status, usage = os.wait4(pid, 0)
wall, peak = time.perf_counter() - start, usage.ru_maxrss / 1024
sys.stderr.write(f"\\n{_MARK} {{wall}} {{peak}} {{os.waitstatus_to_exitcode(status)}}\\n")
"""


@dataclass
class Finished:
    """One finished process: wall seconds, peak resident memory (MiB), its standard output."""

    wall: float
    peak: float
    stdout: str


def run_timed(command: list[str], env: dict[str, str], pin: bool = False) -> Finished:
    """Run ``command`` to its end (``pin``: on one core); a non-zero exit stops the benchmark
    with the command's last error lines (a broken case is no data)."""
    program = shutil.which(command[0]) or command[0]
    launcher = [sys.executable, "-S", "-c", LAUNCHER, "pin" if pin else "free", program]
    done = subprocess.run([*launcher, *command[1:]], env=env, capture_output=True, text=True)
    errors, _, report = done.stderr.rpartition(f"\n{_MARK} ")
    fields = report.split()
    if done.returncode or len(fields) != 3 or fields[2] != "0":
        raise SystemExit(f"{' '.join(command)} failed: {errors.strip()[-500:] or report}")
    return Finished(float(fields[0]), float(fields[1]), done.stdout)
