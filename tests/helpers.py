"""Plain helpers the test files share (fixtures are in tests/conftest.py)."""

from __future__ import annotations

import fcntl
import gzip
import json
import os
import signal
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

import ir_datasets

Run = Iterable[tuple[str, str, float]] | Mapping[str, list[str]]

BM25_WORKER = "ir_bright.bm25.workers import serve"
"""In the command line of each worker process of a BM25 index build."""


def run_text(run: Run) -> str:
    """``run`` as TREC run lines: ``(query_id, doc_id, score)`` triples, or
    ``{query_id: [doc_id, ...]}`` best first (scores descending)."""
    if isinstance(run, Mapping):
        run = [(q, d, float(len(docs) - i)) for q, docs in run.items() for i, d in enumerate(docs)]
    return "".join(f"{q} Q0 {d} {i + 1} {s!r} test\n" for i, (q, d, s) in enumerate(run))


def write_run(path: Path, run: Run, compress: bool = False) -> Path:
    """Write ``run`` (see :func:`run_text`) as a TREC run file, gzipped if ``compress``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if compress:
        with gzip.open(path, "wt") as f:
            f.write(run_text(run))
    else:
        path.write_text(run_text(run))
    return path


def cached(home: Path, namespace: str, name: str) -> Path:
    """Where ir_bright caches the hub file of ``namespace`` named ``name`` (the name ir_datasets'
    own loader gives it, where it has one): in an ``ir_bright`` folder beside that name, out of
    the core loader's way."""
    named = home / namespace / name
    return named.parent / "ir_bright" / named.name


def qrels_of(dataset_id: str) -> dict[tuple[str, str], int]:
    """``{(query_id, doc_id): relevance}`` as ir_datasets yields the dataset's qrels."""
    return {(q.query_id, q.doc_id): q.relevance for q in ir_datasets.load(dataset_id).qrels_iter()}


def json_scores(text: str) -> dict:
    """The scores of ``evaluate --format json``: every key but ``provenance``
    (tests/test_provenance.py checks that one)."""
    found = json.loads(text)
    found.pop("provenance")
    return found


def children(pid: int) -> dict[int, str]:
    """{pid: command line} of the processes whose parent is ``pid`` (read from ``/proc``)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found[int(entry.name)] = cmdline
    return found


def descendants(pid: int) -> dict[int, str]:
    """{pid: command line} of the processes ``pid`` started, and theirs, and so on."""
    found: dict[int, str] = {}
    level = children(pid)
    while level:
        found.update(level)
        level = {k: v for child in level for k, v in children(child).items() if k not in found}
    return found


def held_locks(folder: Path) -> list[str]:
    """The lock files under ``folder`` that some open file holds (``flock``: another open
    file cannot take them, whichever process holds them)."""
    held = []
    for path in folder.rglob("*.lock"):
        with open(path, "rb") as probe:
            try:
                fcntl.flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                held.append(path.name)
    return held


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie has ended: only its exit status is left)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def assert_gone_within(pids, seconds: float) -> None:
    """Fail (after killing them) when any of ``pids`` still runs after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(map(alive, pids)):
        time.sleep(0.05)
    left = [pid for pid in pids if alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes left running: {left}"


def assert_same_ranking(retrieved, official: dict, where: str = "") -> None:
    """``retrieved`` (RankedDoc records of a run) has the queries of ``official`` (``{query
    id: [[doc id, score], ...]}``, an official code's run) and, for each, the same documents in
    the same order, with the same float32 scores (the official BM25 code's are gensim's)."""
    import numpy as np

    ranked: dict[str, list] = {}
    for doc in retrieved:
        ranked.setdefault(doc.query_id, []).append((doc.doc_id, doc.score))
    assert set(ranked) == set(official), where
    for query_id, found in ranked.items():
        assert [d for d, _ in found] == [d for d, _ in official[query_id]], (where, query_id)
        scores = np.array([s for _, s in found], dtype=np.float32)
        expected = np.array([s for _, s in official[query_id]], dtype=np.float32)
        assert np.allclose(scores, expected, rtol=1e-6, atol=1e-7), (where, query_id)
