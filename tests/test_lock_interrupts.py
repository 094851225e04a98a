"""SIGINT at any point of a locked section: the section ends with ``KeyboardInterrupt`` (the
command line: status 130, one line), the lock is free at once, even while the exception is
kept (as a notebook keeps the last one), and the next use gives the result a clean run gives
(tests/interrupts.py delivers the signals, for every point of a small section and many of the
adjusted-qrels pass, the probe that found ``RuntimeError: release unlocked lock``). An error
a library's cleanup raises while the interrupt unwinds the section leaves it as the interrupt.
"""

from __future__ import annotations

import fcntl
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ir_bright.store.lock import file_lock

ROOT = Path(__file__).resolve().parent.parent


def run_interrupts(case: str, folder: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "tests.interrupts", case, str(folder)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]


@pytest.mark.slow
def test_sigint_at_every_point_of_a_locked_write_leaves_the_lock_free_and_the_file_whole(
    tmp_path,
):
    run_interrupts("write", tmp_path)


@pytest.mark.slow
def test_sigint_anywhere_in_the_adjusted_pass_interrupts_it_and_the_next_use_is_clean(
    bright, isolated_home
):
    run_interrupts("adjusted", isolated_home)


def test_an_error_raised_while_an_interrupt_unwinds_a_locked_section_leaves_it_as_the_interrupt(
    tmp_path,
):
    with pytest.raises(KeyboardInterrupt) as caught, file_lock(tmp_path / "x"):
        try:
            raise KeyboardInterrupt
        finally:  # cleanup that fails because of the interrupt, as the standard library's can
            threading.Lock().release()
    assert isinstance(caught.value.__cause__, RuntimeError)  # what happened stays readable
    with open(tmp_path / "x.lock", "rb") as probe:
        fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free


def raise_during_interrupt(*args, **kwargs):
    """What a thread join or a queue interrupted at the wrong instruction raises."""
    try:
        raise KeyboardInterrupt
    finally:
        threading.Lock().release()


def test_sigint_whose_cleanup_fails_in_the_adjusted_pass_exits_130_in_one_line(
    bright, cli, monkeypatch
):
    from ir_bright.families.bright import adjusted

    monkeypatch.setattr(adjusted, "twins_of", raise_during_interrupt)
    status, out, err = cli("export", "bright/biology/adjusted", "qrels")
    said = [line for line in err.splitlines() if not line.startswith("INFO ")]
    assert (status, said) == (130, ["ir-bright: interrupted"])
