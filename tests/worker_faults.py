"""``ir-bright ARGV`` with its BM25 worker processes killed at one point of their lives, in an
interpreter of its own: ``python -m tests.worker_faults POINT ARGV...``.

The index build is made to use two workers however small the corpus, each handed many small
batches, and SIGKILL reaches a
worker at POINT: ``started`` (just started, before any request), ``waiting`` (idle, its
first answer read, waiting for its next batch), ``mid-batch`` (while it analyses a batch),
``after`` (every answer read, before it is told to stop). ``no-interpreter`` makes
``sys.executable`` a program that is no Python (an embedding host). The command's exit status
is this process's.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys

from ir_bright.bm25 import build, workers


def killed_mid_batch(texts):
    """A worker's analysis that dies while it runs (SIGKILL: no cleanup)."""
    os.kill(os.getpid(), signal.SIGKILL)


def _kill(process) -> None:
    process.kill()
    process.wait()


def _arrange(point: str) -> None:
    build.default_workers = lambda wanted, total: 2
    count_corpus = build.count_corpus

    def in_small_batches(batches, count, bar):  # many requests per worker, however small
        small = (batch.slice(row, 1) for batch in batches for row in range(len(batch)))
        return count_corpus(small, count, bar)

    build.count_corpus = in_small_batches
    if point == "started":
        start = workers._start

        def started_then_killed():
            process, connection = start()
            _kill(process)
            return process, connection

        workers._start = started_then_killed
    elif point in ("waiting", "after"):
        ordered = workers.Workers.ordered

        def killing(self, func, items, arg):
            answers = 0
            for answer in ordered(self, func, items, arg):
                answers += 1
                if point == "waiting" and answers == 1:
                    _kill(self._workers[0][0])  # the one that answered: idle now
                yield answer
            if point == "after":
                for process, _ in self._workers:
                    _kill(process)

        workers.Workers.ordered = killing
    elif point == "mid-batch":  # by its importable name: this module runs as __main__
        build._count_texts = importlib.import_module("tests.worker_faults").killed_mid_batch
    elif point == "no-interpreter":
        sys.executable = "/bin/true"
    else:
        raise SystemExit(f"unknown point {point}")


if __name__ == "__main__":
    _arrange(sys.argv[1])
    from ir_bright.cli import main

    sys.exit(main(sys.argv[2:]))
