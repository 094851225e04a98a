"""Provisional: stdout or an atomically replaced file (to be replaced by the one writer)."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO

from .fuse import trec_order


@contextlib.contextmanager
def open_output(path: str | None, what: str, inputs: Sequence[str] = ()) -> Iterator[IO[str]]:
    if path is None or path == "-":
        yield sys.stdout
        return
    target = Path(path)
    fd, partial = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            yield out
        os.replace(partial, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise


def write_run(
    run: Mapping[str, Mapping[str, float]], path: str | None, tag: str, inputs: Sequence[str] = ()
) -> None:
    with open_output(path, "the run", inputs) as out:
        for query_id, docs in run.items():
            for rank, (doc_id, score) in enumerate(trec_order(docs), 1):
                out.write(f"{query_id} Q0 {doc_id} {rank} {score!r} {tag}\n")
