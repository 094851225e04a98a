"""Run fusion: ir_bright's ``fuse`` beside ranx's ``fuse`` on the same runs and parameters.

Shape: 1,000 queries x 1,000 documents x 3 runs (random scores over a 5,000-document pool, so
runs overlap), the shape the leaderboard's hybrids fuse. Each method is timed in this process,
the median of ``--repeats`` calls; ranx's first call (numba compiling its functions) is timed
apart and left out of its median. Every fused run is checked against ranx's to 1e-9 before it
is timed. Also times ``ir-bright fuse`` as a whole process (reading three TREC files, writing
one) against ``python -c 'ranx...'`` doing the same through ranx's own TREC reader and writer.

    python benchmarks/bench_fuse.py [--repeats 5] [--write-page]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ir_bright.pipelines import fuse

CASES = [
    ("rrf", None, None, "rrf", "min-max", {"k": 60}),
    ("combsum", "min-max", None, "sum", "min-max", {}),
    ("combmnz", "min-max", None, "mnz", "min-max", {}),
    ("wsum", "min-max", [0.5, 0.3, 0.2], "wsum", "min-max", {"weights": [0.5, 0.3, 0.2]}),
    ("wsum", "zmuv", [0.5, 0.3, 0.2], "wsum", "zmuv", {"weights": [0.5, 0.3, 0.2]}),
]


def make_runs(queries: int, docs: int, count: int, seed: int = 1) -> list[dict]:
    """``count`` runs of ``queries`` x ``docs`` distinct random scores over a shared pool."""
    rng = random.Random(seed)
    pool = [f"doc{i}" for i in range(docs * 5)]
    return [
        {f"q{q}": {d: rng.random() * 30 for d in rng.sample(pool, docs)} for q in range(queries)}
        for _ in range(count)
    ]


def timed(call, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_library(runs: list[dict], repeats: int) -> None:
    import ranx

    ranx_runs = [ranx.Run(run) for run in runs]
    print("| method | norm | ir_bright (s) | ranx (s) | ranx first call (s) | ratio |")
    print("|---|---|---:|---:|---:|---:|")
    for method, norm, weights, theirs, their_norm, params in CASES:

        def ours(m=method, n=norm, w=weights):
            return fuse(runs, m, n, w, depth=None)

        def ranx_fuse(m=theirs, n=their_norm, p=params):
            return ranx.fuse(ranx_runs, norm=n, method=m, params=p)

        start = time.perf_counter()
        expected = ranx_fuse().to_dict()
        first = time.perf_counter() - start
        got = ours()
        worst = max(abs(got[q][d] - s) for q, docs in expected.items() for d, s in docs.items())
        assert worst < 1e-9, (method, norm, worst)
        mine, other = timed(ours, repeats), timed(ranx_fuse, repeats)
        print(
            f"| {method} | {norm or 'none'} | {mine:.2f} | {other:.2f} | {first:.2f} "
            f"| {mine / other:.2f}x |"
        )


def write_trec(path: Path, run: dict) -> str:
    with open(path, "w", encoding="utf-8") as out:
        for query_id, docs in run.items():
            ordered = sorted(docs.items(), key=lambda kv: -kv[1])
            for rank, (doc_id, score) in enumerate(ordered, 1):
                out.write(f"{query_id} Q0 {doc_id} {rank} {score!r} r\n")
    return str(path)


RANX_SCRIPT = """
import sys, ranx
runs = [ranx.Run.from_file(p, kind="trec") for p in sys.argv[1:4]]
fused = ranx.fuse(runs, norm="min-max", method="rrf", params={"k": 60})
fused.save(sys.argv[4], kind="trec")
"""


def bench_command(runs: list[dict], repeats: int, folder: Path) -> None:
    paths = [write_trec(folder / f"run{i}.trec", run) for i, run in enumerate(runs)]
    ours = [sys.executable, "-m", "ir_bright", "fuse", *paths, "--method", "rrf", "-o"]
    ours.append(str(folder / "ours.trec"))
    theirs = [sys.executable, "-c", RANX_SCRIPT, *paths, str(folder / "ranx.trec")]
    subprocess.run(theirs, check=True, capture_output=True)  # numba's cache, once
    mine, other = [], []
    for _ in range(repeats):
        for command, times in ((ours, mine), (theirs, other)):
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            times.append(time.perf_counter() - start)
    m, o = statistics.median(mine), statistics.median(other)
    print("\n| whole process, RRF of three TREC files | ir-bright fuse (s) | ranx (s) | ratio |")
    print("|---|---:|---:|---:|")
    print(
        f"| read 3 x {sum(map(len, runs)) // 3:,} queries, fuse, write | {m:.2f} | {o:.2f} "
        f"| {m / o:.2f}x |"
    )


def main() -> None:
    """Run the benchmark and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--docs", type=int, default=1000)
    args = parser.parse_args()
    runs = make_runs(args.queries, args.docs, 3)
    print(
        f"{args.queries:,} queries x {args.docs:,} documents x 3 runs; medians of "
        f"{args.repeats}; ratio < 1 means ir_bright is faster.\n"
    )
    bench_library(runs, args.repeats)
    with tempfile.TemporaryDirectory() as tmp:
        bench_command(runs, args.repeats, Path(tmp))


if __name__ == "__main__":
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "fuse")
