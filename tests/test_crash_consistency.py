"""Crash consistency: a command killed with SIGKILL at a random point (a download, the Arrow
store's build, the BM25 index's build, the adjusted-qrels pass, an ``-o`` write) leaves
nothing that changes the next run's results, nothing behind (no temporary file, no lock that
blocks), and no sidecar describing another run, even right after the kill.

The kill points are drawn from a seed, printed on failure; ``CRASH_SEED=<seed>`` replays a
failure and ``CRASH_TRIALS=<n>`` runs more (or fewer) kills. A point is the n-th call into
ir_bright's code (or from it into a built-in such as ``os.replace`` or a file's ``write``),
counted in the main thread by a profile hook; the phase is drawn first, then a call within it,
so that every phase gets kills however many calls it makes.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import held_locks

pytestmark = pytest.mark.slow

DATASET = "bright/biology"
PHASES = {  # the part of a run a call belongs to, by the file it is in
    "download": ("hub/",),
    "store": ("store/",),
    "index": ("bm25/",),
    "adjusted": ("bright/adjusted.py",),
    "outputs": ("outputs.py", "atomic.py", "provenance.py", "cli/"),
}
PER_TOKEN = ("bm25/analysis.py", "bm25/porter.py", "bm25/lucene.py")  # calls by the million
OLD_RUN = "0 Q0 an-old-run 1 1.0 old\n"

DRIVER = """
import importlib.util, json, os, signal, sys
kill_at, events_file, folder = int(sys.argv[1]), sys.argv[2], sys.argv[3]
package = os.path.dirname(importlib.util.find_spec("ir_bright").origin) + os.sep
skipped = tuple(json.loads(sys.argv[4]))
commands = json.loads(sys.argv[5])
events, count = [], 0

def profile(frame, event, arg):
    global count
    if event not in ("call", "c_call"):
        return
    name = frame.f_code.co_filename
    if not name.startswith(package) or name.endswith(skipped):
        return
    count += 1
    if count == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
    if not kill_at:
        events.append(name[len(package):])

sys.setprofile(profile)
from ir_bright.cli import main
for argv in commands:
    status = main([a.replace("OUT", folder) for a in argv])
    if status:
        sys.exit(status)
sys.setprofile(None)
if not kill_at:
    with open(events_file, "w") as out:
        json.dump(events, out)
"""

COMMANDS = [
    ["bm25", DATASET, "-o", "OUT/run.trec"],
    ["evaluate", f"{DATASET}/adjusted", "OUT/run.trec", "-o", "OUT/scores.json", "--format=json"],
    ["candidates", DATASET, "OUT/run.trec", "--depth", "3", "-o", "OUT/candidates.jsonl"],
]


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Trial:
    """One cache (``home``) and one output folder (``out``, holding an older run and its
    sidecar, as a user's folder does before a run is replaced)."""

    def __init__(self, root: Path):
        self.home, self.out = root / "home", root / "out"
        self.home.mkdir(parents=True)
        self.out.mkdir()
        run = self.out / "run.trec"
        run.write_text(OLD_RUN)
        about = {"run": {"name": run.name, "size": run.stat().st_size, "sha256": sha256_of(run)}}
        (self.out / "run.trec.json").write_text(json.dumps(about))

    def drive(self, kill_at: int = 0, events: Path | None = None) -> subprocess.CompletedProcess:
        """The commands in one fresh interpreter, killed at the ``kill_at``-th call (0: run to
        the end, writing every call's file to ``events``)."""
        argv = [str(kill_at), str(events or os.devnull), str(self.out), json.dumps(PER_TOKEN)]
        return subprocess.run(
            [sys.executable, "-c", DRIVER, *argv, json.dumps(COMMANDS)],
            env={**os.environ, "IR_DATASETS_HOME": str(self.home)},
            capture_output=True,
            text=True,
            timeout=600,
        )

    def results(self) -> dict[str, object]:
        scores = json.loads((self.out / "scores.json").read_text())
        scores.pop("provenance")  # names fetch times, which differ from run to run
        return {
            "run": (self.out / "run.trec").read_bytes(),
            "scores": list(scores.values()),  # keyed by the run's path, the trial's own
            "candidates": (self.out / "candidates.jsonl").read_bytes(),
        }

    def sidecar_problem(self) -> str | None:
        """What is wrong between the run and its sidecar (a sidecar may be missing)."""
        sidecar = self.out / "run.trec.json"
        if not sidecar.exists():
            return None
        named = json.loads(sidecar.read_text())["run"]["sha256"]
        if named != sha256_of(self.out / "run.trec"):
            return f"{sidecar} describes another run"
        return None

    def leftovers(self) -> list[str]:
        """Temporary files and folders anywhere in the trial. (Lock files stay, as the cache's
        lock leaves them; :meth:`held_locks` says whether one blocks.)"""
        found = []
        for folder in (self.home, self.out):
            for path in folder.rglob("*"):
                if path.name.endswith(".part"):
                    found.append(str(path.relative_to(folder.parent)))
        return sorted(found)

    def held_locks(self) -> list[str]:
        """The cache's lock files that some process still holds."""
        return held_locks(self.home)


def kill_points(events: list[str], seed: int, trials: int) -> list[tuple[str, int]]:
    """``trials`` (phase, call number) pairs: a phase drawn uniformly among those with calls,
    then one of its calls."""
    by_phase: dict[str, list[int]] = {phase: [] for phase in PHASES}
    for number, name in enumerate(events, 1):
        for phase, prefixes in PHASES.items():
            if name.startswith(prefixes):
                by_phase[phase].append(number)
    phases = sorted(phase for phase, numbers in by_phase.items() if numbers)
    draw = random.Random(seed)
    points = []
    for _ in range(trials):
        phase = draw.choice(phases)
        points.append((phase, draw.choice(by_phase[phase])))
    return points


def test_a_kill_anywhere_leaves_the_next_run_identical_and_nothing_behind(bright, tmp_path):
    pytest.importorskip("Stemmer")  # the bm25 extra
    seed = int(os.environ.get("CRASH_SEED") or random.SystemRandom().randrange(1 << 32))
    trials = int(os.environ.get("CRASH_TRIALS", "8"))
    replay = f"replay with CRASH_SEED={seed}"
    print(replay)  # shown with a failure of any kind

    reference = Trial(tmp_path / "reference")
    events_file = tmp_path / "events.json"
    done = reference.drive(events=events_file)
    assert done.returncode == 0, done.stderr
    expected = reference.results()
    assert reference.leftovers() == [] and reference.sidecar_problem() is None
    events = json.loads(events_file.read_text())

    for number, (phase, kill_at) in enumerate(kill_points(events, seed, trials)):
        where = f"kill {number} at call {kill_at} of {len(events)} ({phase}); {replay}"
        trial = Trial(tmp_path / f"trial-{number}")
        killed = trial.drive(kill_at)
        assert killed.returncode in (-signal.SIGKILL, 0), f"{where}: {killed.stderr}"
        assert trial.sidecar_problem() is None, f"right after {where}"
        assert trial.held_locks() == [], f"right after {where}"
        again = trial.drive()
        assert again.returncode == 0, f"{where}: {again.stderr}"
        assert "Traceback" not in again.stderr and "waiting" not in again.stderr, where
        assert trial.results() == expected, where
        assert trial.sidecar_problem() is None, where
        assert trial.leftovers() == [], where
        shutil.rmtree(trial.home.parent)
