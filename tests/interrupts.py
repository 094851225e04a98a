"""SIGINT delivered at many points of a locked section, in an interpreter of its own.

``python -m tests.interrupts write FOLDER`` interrupts a locked write into ``FOLDER`` at every
point; ``python -m tests.interrupts adjusted HOME`` interrupts BRIGHT biology's adjusted-qrels
pass (the hub and ``IR_DATASETS_HOME`` as the environment says) at about 150 points. Each
point must end the section with ``KeyboardInterrupt`` and leave the lock free while the
exception is kept (as a notebook keeps the last one); the next use must give what a clean run
gives and leave nothing behind. A failure is an ``AssertionError`` (status 1).

SIGINT is raised where Python handles signals: as a function starts, and after a call into C.
A profiler counts those points and raises the signal at the n-th. It runs in a process of its
own because interrupts land in the standard library's code too (logging's module lock, for
one, may stay taken), which a test process must not inherit. A signal that lands in a
destructor is printed and ignored: Python's rule, whoever's destructor.
"""

from __future__ import annotations

import gc
import signal
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

import ir_datasets

import ir_bright  # noqa: F401 - registers the datasets
from ir_bright.store import derived
from ir_bright.store.lock import Lock, file_lock
from tests.helpers import held_locks


class SigintAt:
    """A profiler that raises SIGINT at its n-th point: a call, or a return from C."""

    def __init__(self, n: int):
        self.n = n
        self.seen = 0
        self.where = ""  # the stack the signal was raised in, innermost first
        self.entering: object = None  # the code whose first instruction it was raised at

    def __call__(self, frame, event, arg):
        if event in ("call", "c_return"):
            self.seen += 1
            if self.seen == self.n:
                self.where = " < ".join(
                    f"{Path(f.f_code.co_filename).name}:{line} {f.f_code.co_name}"
                    for f, line in list(traceback.walk_stack(frame))[:8]
                )
                self.entering = frame.f_code if event == "call" else None
                signal.raise_signal(signal.SIGINT)
        return self

    @property
    def fired(self) -> bool:
        return self.seen >= self.n


def interrupted_at(n: int, section: Callable[[], object]) -> tuple[SigintAt, BaseException | None]:
    """Run ``section`` with SIGINT at its ``n``-th point: (where it was raised, the exception
    the section ended with, or None)."""
    profiler = SigintAt(n)
    sys.setprofile(profiler)
    try:
        section()
    except BaseException as error:  # noqa: BLE001 - what the section ended with is the result
        return profiler, error
    finally:
        sys.setprofile(None)
    return profiler, None


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith((".part", ".lock.pid")))


def assert_interrupted_cleanly(n: int, section: Callable[[], object], folder: Path) -> bool:
    """SIGINT at point ``n`` of ``section``: a KeyboardInterrupt, and no lock held while it is
    kept; False once ``section`` has fewer points."""
    point, error = interrupted_at(n, section)
    if not point.fired:
        return False
    if error is None:  # the signal hit a destructor, which ignores it (Python's rule)
        return True
    assert isinstance(error, KeyboardInterrupt), f"{error!r} at {point.where}"
    if point.entering is Lock.__exit__.__code__:
        # Python raises a pending signal at a function's first instruction, before any code
        # of the lock's exit runs: the hold goes when the lock object does, with the exception
        del error
        gc.collect()
    assert held_locks(folder) == [], f"held while the interrupt is kept: {point.where}"
    return True


def locked_write(folder: Path) -> None:
    """Every point of a locked write: the file is then the old or the new one, whole."""
    target = folder / "derived.json"
    target.write_text("old")

    def section() -> None:
        with file_lock(target), derived.replaced_atomically(target) as out:
            out.write(b"new")

    section()  # imports done: the points are those of the section itself
    target.write_text("old")
    n = 1
    while assert_interrupted_cleanly(n, section, folder):
        assert target.read_text() in ("old", "new"), f"point {n}"
        target.write_text("old")
        n += 1
    assert n > 300  # the section had that many points
    gc.collect()  # a notebook drops its last exception sooner or later
    section()  # the next use works and cleans up what an interrupted one left
    assert target.read_text() == "new" and leftovers(folder) == []


def adjusted_pass(home: Path) -> None:
    """About 150 points of the adjusted-qrels pass: each next pass gives the clean result."""
    adjusted = "bright/biology/adjusted"
    dataset = ir_datasets.load(adjusted)
    dataset.docs_path()
    list(dataset.queries_iter())  # the files fetched: the pass is what is interrupted
    (corpus,) = home.rglob("biology.docs.parquet")

    def section() -> list:
        return sorted(ir_datasets.load(adjusted).qrels_iter())

    def forget_the_pass() -> None:
        for path in corpus.parent.glob(corpus.name + ".adjusted-qrels.json*"):
            path.unlink()

    section()  # imports done: the points counted next are those of every later pass
    forget_the_pass()
    points = SigintAt(0)
    sys.setprofile(points)
    try:
        expected = section()
    finally:
        sys.setprofile(None)
    for n in range(1, points.seen, max(1, points.seen // 150)):
        forget_the_pass()
        assert assert_interrupted_cleanly(n, section, home)
        assert section() == expected, f"point {n}"
    gc.collect()
    assert leftovers(home) == [], leftovers(home)


if __name__ == "__main__":
    {"write": locked_write, "adjusted": adjusted_pass}[sys.argv[1]](Path(sys.argv[2]))
