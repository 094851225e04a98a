"""The cache's inter-process lock (``ir_bright/store/lock.py``) vs ``filelock``'s ``FileLock``.

Each scenario runs in fresh interpreters, once with each lock on the same ``<path>.lock`` file,
and is stopped after a time-out: a process killed while it holds the lock; a child process
waiting for the lock its parent holds (the deadlock of a script without ``if __name__ ==
"__main__":`` run again by a spawned worker); one thread taking the lock again through a second
lock object (a nested section); a long wait (does the waiter say who holds the lock?); a lock
file that is a symbolic link to a file outside the cache; a waiter interrupted by SIGINT. Then
the cost: an uncontended take and release, the import, what the library adds to an install.

    python benchmarks/bench_lock.py
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
LOCKS = {
    "ir_bright": "ir_bright's `file_lock` (`store/lock.py`)",
    "filelock": "`filelock.FileLock`",
}
TIME_OUT = 20.0

CHILD = r"""
import json, logging, os, signal, subprocess, sys, threading, time
from pathlib import Path

kind, path, action = sys.argv[1], sys.argv[2], sys.argv[3]
logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(message)s")

def lock():
    if kind == "ir_bright":
        from ir_bright.store.lock import file_lock
        return file_lock(Path(path))
    import filelock
    return filelock.FileLock(path + ".lock", is_singleton=True)  # reentrant, as ours

def say(**facts):
    print(json.dumps(facts), flush=True)

started = time.monotonic()
if action == "hold":  # take it, say so, keep it for argv[4] seconds
    with lock():
        say(held=os.getpid())
        time.sleep(float(sys.argv[4]))
elif action == "take":  # take it, say how long that took
    with lock():
        say(taken=time.monotonic() - started)
elif action == "parent":  # take it, then run a child that takes it too, and wait for the child
    with lock():
        child = [sys.executable, __file__, kind, path, "take"]
        try:
            done = subprocess.run(child, capture_output=True, text=True, timeout=float(sys.argv[4]))
        except subprocess.TimeoutExpired:
            say(child="no end")
        else:
            last = (done.stderr.strip().splitlines() or [""])[-1]
            say(child="taken" if done.returncode == 0 else "refused", error=last.split(":")[0],
                seconds=time.monotonic() - started)
elif action == "nested":  # one thread, two lock objects on one path, one inside the other
    with lock():
        with lock():
            say(taken=time.monotonic() - started)
elif action == "speed":  # uncontended take and release, argv[4] times
    times = int(sys.argv[4])
    held = lock()
    start = time.perf_counter()
    for _ in range(times):
        with held:
            pass
    say(microseconds=(time.perf_counter() - start) / times * 1e6)
elif action == "import":
    import ir_bright
    start = time.perf_counter()
    if kind == "ir_bright":
        import ir_bright.store.lock
    else:
        import filelock
    say(seconds=time.perf_counter() - start)
"""


def child(folder: Path, kind: str, path: Path, action: str, *more: str) -> list[str]:
    """The command of one child process."""
    script = folder / "locker.py"
    if not script.exists():
        script.write_text(CHILD)
    return [sys.executable, str(script), kind, str(path), action, *more]


def holder(folder: Path, kind: str, path: Path, seconds: float) -> subprocess.Popen:
    """A process holding the lock of ``path`` for ``seconds``, once it says it holds it."""
    process = subprocess.Popen(
        child(folder, kind, path, "hold", str(seconds)),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    assert process.stdout is not None
    json.loads(process.stdout.readline())
    return process


def finished(command: list[str], time_out: float = TIME_OUT) -> tuple[str, dict, float]:
    """Run ``command``: (its standard error, its last JSON line, seconds), or ``no end``."""
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=time_out, cwd=ROOT)
    except subprocess.TimeoutExpired as exc:
        err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else exc.stderr or ""
        return err, {"no_end": True}, time.monotonic() - started
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    facts = json.loads(lines[-1]) if lines else {"exit": done.returncode}
    if done.returncode and "exit" not in facts:
        facts["exit"] = done.returncode
    last = (done.stderr.strip().splitlines() or [""])[-1]
    facts.setdefault("error", last.split(":")[0])
    return done.stderr, facts, time.monotonic() - started


def killed_holder(folder: Path, kind: str) -> str:
    """The holder is killed (SIGKILL); how soon does another process take the lock?"""
    path = folder / f"killed-{kind}"
    process = holder(folder, kind, path, 60)
    process.send_signal(signal.SIGKILL)
    process.wait()
    _, facts, seconds = finished(child(folder, kind, path, "take"))
    if facts.get("no_end"):
        return f"**no end in {TIME_OUT:.0f} s**"
    return f"taken in {facts['taken']:.2f} s"


def parent_holds(folder: Path, kind: str) -> str:
    """A child waits for the lock its parent holds while the parent waits for the child."""
    path = folder / f"parent-{kind}"
    _, facts, seconds = finished(child(folder, kind, path, "parent", str(TIME_OUT)), TIME_OUT + 10)
    if facts.get("child") == "no end":
        return f"**no end in {TIME_OUT:.0f} s** (the child still waiting)"
    if facts.get("child") == "refused":
        return f"refused in {facts['seconds']:.1f} s ({facts['error'].rsplit('.', 1)[-1]})"
    return f"{facts}"


def nested(folder: Path, kind: str) -> str:
    """One thread takes the lock of a path, then again through a second lock object."""
    _, facts, _ = finished(child(folder, kind, folder / f"nested-{kind}", "nested"))
    if facts.get("no_end"):
        return f"**no end in {TIME_OUT:.0f} s** (it waits for itself)"
    if "taken" in facts:
        return f"taken in {facts['taken']:.2f} s"
    return f"failed ({facts.get('error')})"


def named_holder(folder: Path, kind: str) -> str:
    """A process waits 6 s for another's lock: does it say who holds it?"""
    path = folder / f"named-{kind}"
    process = holder(folder, kind, path, 6)
    err, facts, seconds = finished(child(folder, kind, path, "take"))
    process.wait()
    said = [line for line in err.splitlines() if str(process.pid) in line]
    shown = "names the holder's pid" if said else "**says nothing**"
    return f"taken in {seconds:.1f} s; {shown}"


def linked(folder: Path, kind: str) -> str:
    """The lock file is a symbolic link to a file outside the cache."""
    path = folder / f"linked-{kind}"
    outside = folder / f"precious-{kind}.txt"
    outside.write_text("keep me")
    os.symlink(outside, f"{path}.lock")
    _, facts, _ = finished(child(folder, kind, path, "take"))
    kept = outside.read_text() == "keep me"
    effect = "the file outside kept" if kept else "**the file outside changed**"
    if "taken" in facts:
        return f"**followed**: taken; {effect}"
    return f"refused ({facts.get('error', '?').rsplit('.', 1)[-1]}); {effect}"


def interrupted(folder: Path, kind: str) -> str:
    """A waiter gets SIGINT; how soon does it end, and is the lock free after the holder?"""
    path = folder / f"interrupted-{kind}"
    process = holder(folder, kind, path, 3)
    waiter = subprocess.Popen(
        child(folder, kind, path, "take"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
    )
    time.sleep(1.0)  # waiting by now
    sent = time.monotonic()
    waiter.send_signal(signal.SIGINT)
    try:
        waiter.wait(timeout=TIME_OUT)
        gone = f"ended in {time.monotonic() - sent:.2f} s"
    except subprocess.TimeoutExpired:
        waiter.kill()
        gone = f"**no end in {TIME_OUT:.0f} s**"
    process.wait()
    _, facts, _ = finished(child(folder, kind, path, "take"))
    free = "the lock free after" if "taken" in facts else "**the lock left held**"
    return f"{gone}; {free}"


SCENARIOS = {
    "the holder killed (SIGKILL), then another process takes it": killed_holder,
    "a child process waits for the lock its parent holds, the parent for the child": parent_holds,
    "one thread takes it again through a second lock object (a nested section)": nested,
    "a process waits 6 s for another's lock": named_holder,
    "the lock file is a symbolic link to a file outside the cache": linked,
    "a waiting process gets SIGINT": interrupted,
}


def median_of(command: list[str], key: str, repeats: int) -> float:
    """The median of a child's reported ``key`` over ``repeats`` fresh interpreters."""
    return statistics.median(finished(command)[1][key] for _ in range(repeats))


def main() -> int:
    """Run every scenario with each lock, then the costs; print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="fresh interpreters per cost")
    args = parser.parse_args()
    import filelock

    sys.path.insert(0, str(HERE))
    import weight

    print(
        f"ir_bright's lock and filelock {filelock.__version__}, each scenario in fresh "
        f"interpreters on the same lock file, stopped after {TIME_OUT:.0f} s.\n"
    )
    print("| scenario | " + " | ".join(LOCKS.values()) + " |")
    print("|---|" + "---|" * len(LOCKS))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for described, scenario in SCENARIOS.items():
            cells = [scenario(folder, kind) for kind in LOCKS]
            print(f"| {described} | " + " | ".join(cells) + " |")
        print(f"\nCosts, medians of {args.repeats} fresh interpreters:\n")
        print("| cost | " + " | ".join(LOCKS.values()) + " |")
        print("|---|" + "---:|" * len(LOCKS))
        speed = [
            median_of(
                child(folder, k, folder / f"speed-{k}", "speed", "2000"),
                "microseconds",
                args.repeats,
            )
            for k in LOCKS
        ]
        print(
            "| an uncontended take and release (µs) | "
            + " | ".join(f"{s:.0f}" for s in speed)
            + " |"
        )
        imports = [
            median_of(child(folder, k, folder / "unused", "import"), "seconds", args.repeats)
            for k in LOCKS
        ]
        print(
            "| importing it after `import ir_bright` (ms) | "
            + " | ".join(f"{s * 1000:.1f}" for s in imports)
            + " |"
        )
    own = sum(1 for _ in (ROOT / "ir_bright" / "store" / "lock.py").open())
    theirs = sum(
        sum(1 for _ in path.open()) for path in Path(filelock.__file__).parent.rglob("*.py")
    )
    print(f"| lines of Python | {own:,} | {theirs:,} |")
    print(f"\nWhat filelock adds to an ir_bright install: {weight.added('filelock')}.")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "lock")
