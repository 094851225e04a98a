"""Waiting on a cache lock: a waiter says whom it waits for after a few seconds, and never
waits without end: not for its own thread, and not for the process that started it."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading

import ir_datasets

from ir_bright.store import lock

HOLDER = """
import sys, time
from pathlib import Path
from ir_bright.store import lock
with lock.file_lock(Path(sys.argv[1])):
    print("holding", flush=True)
    sys.stdin.read()  # until the test closes the pipe
"""


def test_a_waiter_logs_the_holders_pid_then_goes_on_when_it_leaves(tmp_path, monkeypatch, caplog):
    target = tmp_path / "corpus.parquet.arrow"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(target)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "holding\n"
        monkeypatch.setattr(lock, "WAIT_NOTICE_SECONDS", 0.2)
        monkeypatch.setattr(lock, "WAIT_REPEAT_SECONDS", 0.2)
        done = threading.Event()

        def wait() -> None:
            with lock.file_lock(target):
                done.set()

        with caplog.at_level(logging.WARNING, logger=lock.__name__):
            waiter = threading.Thread(target=wait)
            waiter.start()
            assert not done.wait(1.0)  # still held
            messages = [r.getMessage() for r in caplog.records]
            assert messages and all(f"held by pid {holder.pid}" in m for m in messages)
            assert str(target) + ".lock" in messages[0] and "\n" not in messages[0]
            holder.stdin.close()
            assert done.wait(10.0)
            waiter.join()
    finally:
        holder.kill()
        holder.wait()
    assert not (tmp_path / "corpus.parquet.arrow.lock.pid").exists()  # released: no holder


STARTER = """
import subprocess, sys
from pathlib import Path
from ir_bright.store import lock
with lock.file_lock(Path(sys.argv[1])):
    try:
        done = subprocess.run(
            [sys.executable, "-m", "ir_bright", *sys.argv[2:]],
            capture_output=True, text=True, timeout=60,
        )
    except subprocess.TimeoutExpired:
        print("still waiting after 60 s")
    else:
        print(done.returncode)
        print(done.stderr, end="")
"""


def test_a_command_whose_starter_holds_the_lock_fails_in_one_line_instead_of_waiting(bright):
    docs = ir_datasets.load("bright/biology").docs_path(force=False)
    starter = subprocess.Popen(
        [sys.executable, "-c", STARTER, docs, "-q", "download", "bright/biology"],
        stdout=subprocess.PIPE,
        text=True,
    )
    status, *err = starter.communicate(timeout=120)[0].splitlines()
    assert status == "2", err
    assert len(err) == 1 and f"held by pid {starter.pid}, which started this process" in err[0]
    assert "__main__" in err[0]  # the way out for a script run by multiprocessing


def test_a_thread_takes_a_lock_it_holds_again_without_waiting(tmp_path):
    target = tmp_path / "index"
    done = threading.Event()

    def nested() -> None:
        with lock.file_lock(target), lock.file_lock(target):
            done.set()

    threading.Thread(target=nested, daemon=True).start()
    assert done.wait(10)
    other = subprocess.run(
        [sys.executable, "-c", HOLDER, str(target)], input="", capture_output=True, text=True
    )
    assert other.stdout == "holding\n"  # given back whole: another process takes it


def test_threads_of_one_process_take_a_lock_in_turn(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(lock, "WAIT_NOTICE_SECONDS", 0.2)
    target = tmp_path / "index"
    second = threading.Event()

    def wait() -> None:
        with lock.file_lock(target):
            second.set()

    with caplog.at_level(logging.WARNING, logger=lock.__name__):
        with lock.file_lock(target):
            waiter = threading.Thread(target=wait)
            waiter.start()
            assert not second.wait(1.0)
        assert second.wait(10)
        waiter.join()
    (message,) = {r.getMessage().split(" s for ")[1] for r in caplog.records}
    assert message.startswith(f"{target}.lock, held by another thread of this process")


def test_an_unwaited_lock_logs_nothing(tmp_path, caplog):
    with caplog.at_level(logging.WARNING), lock.file_lock(tmp_path / "x"):
        pass
    assert caplog.records == []
