"""Time the BM25 baseline on a generated corpus of leetcode's size (413,932 documents).

Reports indexing speed (docs/s, streamed from Arrow batches into a bm25s index and saved),
loading the cached index, retrieval speed (queries/s, bag of words and query-side, 1,000 per
query after removing excluded documents) and the peak memory of the process.

    python benchmarks/bench_bm25.py                 # leetcode size
    python benchmarks/bench_bm25.py --docs 50000    # quicker
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.corpus import LEETCODE_DOCS  # noqa: E402
from ir_bright import bm25  # noqa: E402
from ir_bright.parquet import read_batches  # noqa: E402


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=LEETCODE_DOCS)
    parser.add_argument("--queries", type=int, default=142, help="leetcode has 142")
    parser.add_argument("--query-words", type=int, default=120)
    parser.add_argument("--excluded", type=int, default=500, help="excluded ids per query")
    parser.add_argument("--folder", type=Path, help="keep the corpus and index here")
    args = parser.parse_args(argv)

    folder = args.folder or Path(tempfile.mkdtemp(prefix="bench_bm25_"))
    corpus = folder / f"corpus-{args.docs}.parquet"
    if not corpus.exists():
        start = time.perf_counter()
        code = (
            "from pathlib import Path; from benchmarks.corpus import write_corpus; "
            f"write_corpus(Path({str(corpus)!r}), {args.docs})"
        )
        # in another process, so that this one's peak memory is the baseline's alone
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
        print(
            f"generated {args.docs:,} docs in {time.perf_counter() - start:.1f} s", file=sys.stderr
        )
    base_rss = peak_rss_mb()

    def batches():
        for batch in read_batches(corpus, ["id", "content"]):
            yield batch.rename_columns(["doc_id", "text"])

    start = time.perf_counter()
    index = bm25.BM25Index.build(batches(), total=args.docs, progress=False)
    build_s = time.perf_counter() - start
    target = folder / "index"
    start = time.perf_counter()
    index.save(target)
    save_s = time.perf_counter() - start
    build_rss = peak_rss_mb()
    del index
    start = time.perf_counter()
    index = bm25.BM25Index.load(target)
    load_s = time.perf_counter() - start

    rng = np.random.default_rng(1)
    vocab = np.array(list(index.vocab))
    queries = [" ".join(rng.choice(vocab, args.query_words)) for _ in range(args.queries)]
    excluded = [
        index.rows_of(index.doc_ids.take(rng.integers(0, args.docs, args.excluded)).to_pylist())
        for _ in range(args.queries)
    ]
    timings = {}
    for query_side in (False, True):
        start = time.perf_counter()
        for text, rows in zip(queries, excluded):
            found = index.search(text, 1000, rows, query_side=query_side)
            assert len(found) == 1000
        timings[query_side] = time.perf_counter() - start

    nnz = len(index.retriever.scores["data"])
    rows = [
        ("step", "time", "rate"),
        (
            f"index {args.docs:,} docs ({nnz:,} postings)",
            f"{build_s:.1f} s",
            f"{args.docs / build_s:,.0f} docs/s",
        ),
        ("save the index", f"{save_s:.1f} s", ""),
        ("load the cached index (a second run)", f"{load_s:.2f} s", ""),
    ]
    for query_side, label in ((False, "bag of words"), (True, "query-side")):
        seconds = timings[query_side]
        rows.append(
            (
                f"retrieve {args.queries} queries of {args.query_words} words, top 1,000, "
                f"{args.excluded} excluded each ({label})",
                f"{seconds:.1f} s",
                f"{args.queries / seconds:,.1f} queries/s",
            )
        )
    rows.append(
        (
            "peak memory (RSS)",
            f"{peak_rss_mb():,.0f} MB",
            f"indexing added {build_rss - base_rss:,.0f} MB",
        )
    )
    for i, row in enumerate(rows):
        print("| " + " | ".join(row) + " |")
        if i == 0:
            print("|---|---:|---:|")
    return 0


if __name__ == "__main__":
    sys.exit(main())
