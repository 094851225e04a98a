"""Reading runs: ir_bright's readers (``ir_bright/runs/``) vs ir_measures' ``read_trec_run``.

Two parts. Faults: small run files a user may well hand over (a short line, a repeated
(query, doc) pair, a score that is not a number, NaN, a gzip file without ``.gz``, a NUL in an
id, a parquet file by mistake, Windows line ends), each read by both into a dict of dicts
(ir_measures' readings through its own ``RunConverter``, as ``calc_aggregate`` converts a run),
and what each gives: the run, or which error. Speed and memory: a generated run of ``--queries``
queries x 1,000 documents, read into a dict of dicts by each in a whole process, in turn (A B A
B ...), ``--pairs`` times after a warm-up pair: medians of the pair-by-pair ratios, and of each
side's wall time and peak memory.

    python benchmarks/bench_runs.py [--queries 1000] [--pairs 7]
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from benchmarks.processes import run_timed  # noqa: E402 - after the path is set

GOOD = "q1 Q0 d1 1 3.5 t\nq1 Q0 d2 2 2.5 t\nq2 Q0 d1 1 1.0 t\n"
FAULTS = {
    "a good run": GOOD,
    "a line of five columns (the tag left out)": GOOD + "q2 Q0 d3 2 0.5\n",
    "one (query, doc) pair twice, two scores": GOOD + "q1 Q0 d1 3 0.1 t\n",
    "a score that is not a number": GOOD.replace("2.5", "2,5"),
    "a score of NaN": GOOD.replace("2.5", "nan"),
    "a gzip file named run.trec": gzip.compress(GOOD.encode()),
    "a NUL character in a doc id": GOOD.replace("d2", "d\x002"),
    "Windows line ends": GOOD.replace("\n", "\r\n"),
    "an empty file": "",
    "a parquet file by mistake": b"PAR1\x15\x04\x15\x10\x15\x14L\x15\x02\x15\x00\x12\x00\x00PAR1",
}
EXPECTED = {"q1": {"d1": 3.5, "d2": 2.5}, "q2": {"d1": 1.0}}

OURS = "from ir_bright.runs import read_run; run = read_run({path!r})"
THEIRS = (
    "import ir_measures; from ir_measures.util import RunConverter; "
    "run = RunConverter(ir_measures.read_trec_run({path!r})).as_dict_of_dict()"
)


def reading(code: str, path: Path) -> str:
    """What reading ``path`` with ``code`` gives: the run (as expected or not), or the error."""
    namespace: dict = {}
    try:
        exec(code.format(path=str(path)), namespace)
    except Exception as exc:  # noqa: BLE001 - what each reader raises is the finding
        message = " ".join(str(exc).split())
        if len(message) > 90:
            message = message[:87] + "..."
        return f"{type(exc).__name__}: {message}"
    run = {q: dict(docs) for q, docs in namespace["run"].items()}
    if run == EXPECTED:
        return "the run"
    if not run:
        return "an empty run, no error"
    return f"**another run, no error**: {summary(run)}"


def summary(run: dict) -> str:
    """A run in a few characters: what differs from the expected run."""
    parts = []
    for query, docs in run.items():
        for doc, score in docs.items():
            if EXPECTED.get(query, {}).get(doc) != score:
                parts.append(f"{query!r} {doc!r} {score}")
    return "; ".join(parts)[:80] or "the same pairs"


def fault_table(folder: Path) -> None:
    """Read each faulty file with both readers; print the table."""
    print("| the file | ir_bright's `read_run` | ir_measures' `read_trec_run` |")
    print("|---|---|---|")
    for described, content in FAULTS.items():
        path = folder / "run.trec"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))
        cells = [reading(code, Path(path.name)) for code in (OURS, THEIRS)]  # in the folder
        cells = [cell.replace("|", "\\|") for cell in cells]
        print(f"| {described} | {cells[0]} | {cells[1]} |")


def write_run(path: Path, queries: int, depth: int = 1000) -> int:
    """A run of ``queries`` x ``depth`` lines, ids and scores as real runs have them."""
    rng = random.Random(1)
    with open(path, "w", encoding="utf-8") as out:
        for q in range(queries):
            docs = rng.sample(range(queries * 50), depth)
            scores = sorted((rng.uniform(0, 30) for _ in docs), reverse=True)
            for rank, (doc, score) in enumerate(zip(docs, scores), 1):
                out.write(f"{q} Q0 doc{doc:08d} {rank} {score:.6f} run\n")
    return queries * depth


def main() -> int:
    """The fault table, then the paired timings; print both."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1000, help="queries of the timed run")
    parser.add_argument("--pairs", type=int, default=7, help="timed pairs")
    args = parser.parse_args()
    import ir_measures

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"ir_measures {ir_measures.__version__}; each file read into a dict of dicts.\n")
        here = Path.cwd()
        os.chdir(folder)  # the messages name the file as a user gives it: run.trec
        try:
            fault_table(folder)
        finally:
            os.chdir(here)
        path = folder / "big.trec"
        lines = write_run(path, args.queries)
        ours = [sys.executable, "-c", OURS.format(path=str(path))]
        theirs = [sys.executable, "-c", THEIRS.format(path=str(path))]
        env = dict(os.environ)
        run_timed(ours, env), run_timed(theirs, env)  # warm-up pair
        pairs = [(run_timed(ours, env), run_timed(theirs, env)) for _ in range(args.pairs)]
    median = statistics.median
    print(
        f"\nA run of {args.queries:,} queries x 1,000 documents ({lines:,} lines) read into a "
        f"dict of dicts, whole processes (imports included), medians of {args.pairs} "
        "alternating pairs:\n"
    )
    print("| reader | wall (s) | peak memory (MiB) |")
    print("|---|---:|---:|")
    print(
        f"| ir_bright's `read_run` | {median(a.wall for a, _ in pairs):.2f} "
        f"| {median(a.peak for a, _ in pairs):.0f} |"
    )
    print(
        f"| ir_measures' `read_trec_run` and `RunConverter` | "
        f"{median(b.wall for _, b in pairs):.2f} | {median(b.peak for _, b in pairs):.0f} |"
    )
    ratio = median(a.wall / b.wall for a, b in pairs)
    print(f"\nir_bright / ir_measures, wall time: {ratio:.2f}x (median of the pairs' ratios).")
    return 0


if __name__ == "__main__":
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "runs")
