"""A process waiting on a cache lock says so after a few seconds, naming the holder's pid."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading

from ir_bright.store import derived

HOLDER = """
import sys, time
from pathlib import Path
from ir_bright.store import derived
with derived.file_lock(Path(sys.argv[1])):
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
        monkeypatch.setattr(derived, "WAIT_NOTICE_SECONDS", 0.2)
        monkeypatch.setattr(derived, "WAIT_REPEAT_SECONDS", 0.2)
        done = threading.Event()

        def wait() -> None:
            with derived.file_lock(target):
                done.set()

        with caplog.at_level(logging.WARNING, logger=derived.__name__):
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


def test_an_unwaited_lock_logs_nothing(tmp_path, caplog):
    with caplog.at_level(logging.WARNING), derived.file_lock(tmp_path / "x"):
        pass
    assert caplog.records == []
