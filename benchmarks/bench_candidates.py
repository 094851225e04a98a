"""Reranking candidates for all 12 BRIGHT domains: ``ir-bright candidates --depth 100``.

A loopback mirror holds, for each domain, a generated corpus of its real size
(``benchmarks/corpus.py``; BRIGHT's declaration gives the sizes) and generated
``examples`` with its real number of queries, each excluding two documents. A first-stage run
ranks 1,000 random documents per query. The cache is warmed first (``--depth 1``: the downloads and
the random-access store, built once per corpus, timed apart); then each domain's
``ir-bright candidates DATASET RUN --depth 100 -o FILE`` is timed as a whole process, and the
12 are summed. The target: well under a minute for the 12 domains.

    python benchmarks/bench_candidates.py [--words 100] [--write-page]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def write_run(path: Path, ids: list[str], queries: int, depth: int = 1000) -> None:
    rng = random.Random(len(ids))
    with open(path, "w", encoding="utf-8") as out:
        for q in range(queries):
            for rank, doc_id in enumerate(rng.sample(ids, depth), 1):
                out.write(f"{q} Q0 {doc_id} {rank} {depth - rank + rng.random():.6f} first\n")


def main() -> int:
    """Build the mirror, warm the cache, time the 12 commands; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--words", type=int, default=100, help="words per generated document")
    parser.add_argument("--depth", type=int, default=100)
    args = parser.parse_args()
    from benchmarks.corpus import write_domain
    from benchmarks.processes import run_timed
    from ir_bright.families import family
    from tests.fixtures import hubserver

    counts = {key: d.counts for key, d in family("bright").domains.items()}
    folder = Path(tempfile.mkdtemp(prefix="bench_candidates_"))
    state, server = hubserver.start(folder / "hub")
    env = {**os.environ, "HF_ENDPOINT": state.url, "IR_BRIGHT_VERIFY": "0"}
    env["IR_DATASETS_HOME"] = str(folder / "home")
    ir_bright = [sys.executable, "-m", "ir_bright", "-q"]
    print(f"--depth {args.depth}; generated documents of about {args.words} words; seconds.\n")
    print("| domain | documents | queries | first run (download, store) | candidates |")
    print("|---|---:|---:|---:|---:|")
    total = 0.0
    try:
        for split, count in counts.items():
            dataset = "bright/" + split.replace("_", "-")
            ids = write_domain(folder / "hub", split, count["docs"], count["queries"], args.words)
            run = folder / f"{split}.trec"
            write_run(run, ids, count["queries"])
            warm = run_timed(
                [*ir_bright, "candidates", dataset, str(run), "--depth", "1"], env
            ).wall
            out = folder / f"{split}.jsonl"
            command = [*ir_bright, "candidates", dataset, str(run), "--depth", str(args.depth)]
            seconds = run_timed([*command, "-o", str(out)], env).wall
            lines = sum(1 for _ in open(out, encoding="utf-8"))
            assert lines == count["queries"] * args.depth, (split, lines)
            total += seconds
            print(
                f"| {dataset} | {count['docs']:,} | {count['queries']} | {warm:.1f} "
                f"| {seconds:.1f} |"
            )
    finally:
        server.shutdown()
    print(f"| all 12 | | | | {total:.1f} s in all |")
    return 0


if __name__ == "__main__":
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "candidates")
