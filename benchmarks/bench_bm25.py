"""Time BM25 indexing and retrieval: ir_bright beside Pyserini and bm25s, in one run.

A generated corpus of leetcode's size (413,932 documents, ``benchmarks/corpus.py``) is indexed
by each system in its own process (so that each peak memory is its own, worker processes
included), then the same random queries are run, 1,000 results each (the median of
``--passes`` passes over them: one pass of 142 queries takes ir_bright under a second, too
short to time once on a noisy machine):

- ir_bright: streamed from Arrow batches, analysis in one worker process per core (exact
  lengths; then ``--lucene-norms``); each query excludes ``--excluded`` documents;
- bm25s with its default tokenizer (``bm25s.tokenize``, no stemmer; the corpus in memory);
- Pyserini (Lucene, ``-threads`` = cores) when an interpreter with ``pyserini`` and a JDK is
  given by ``--pyserini-python`` (or this one has them); otherwise skipped with a note.
  The corpus is written as JsonCollection first (not timed).

    python benchmarks/bench_bm25.py --pyserini-python /path/to/venv/bin/python
    python benchmarks/bench_bm25.py --docs 50000    # quicker
    python benchmarks/bench_bm25.py --bright-domains  # then ir_bright end to end, 12 domains

``--bright-domains`` then also indexes a generated corpus of each BRIGHT domain's real size
(aops and theoremqa-questions share one, as they do) and runs as many queries as the domain
has.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.corpus import LEETCODE_DOCS  # noqa: E402


def peak_rss_mb() -> float:
    """Peak resident memory of this process or its largest child so far, in MB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return max(own, children) / 1024


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def make_queries(corpus: Path, n: int, words: int) -> list[str]:
    """``n`` queries of ``words`` words drawn from the corpus' first documents."""
    import numpy as np
    import pyarrow.parquet as pq

    first = pq.ParquetFile(corpus).read_row_group(0, columns=["content"]).column(0)
    vocab = sorted({w for text in first.to_pylist()[:2000] for w in text.split()})
    rng = np.random.default_rng(1)
    return [" ".join(rng.choice(vocab, words)) for _ in range(n)]


# -- one system per process -------------------------------------------------------------------


def run_ir_bright(corpus: Path, queries: list[str], folder: Path, args) -> dict:
    import numpy as np

    from ir_bright import bm25
    from ir_bright.store.parquet import read_batches

    def batches():
        for batch in read_batches(corpus, ["id", "content"]):
            yield batch.rename_columns(["doc_id", "text"])

    params = bm25.BM25Params(lucene_norms=args.lucene_norms)
    start = time.perf_counter()
    index = bm25.BM25Index.build(batches(), params, total=args.docs, progress=False)
    index_s = time.perf_counter() - start
    index.save(folder / "index")
    del index
    start = time.perf_counter()
    index = bm25.BM25Index.load(folder / "index")
    load_s = time.perf_counter() - start
    rng = np.random.default_rng(2)
    excluded = [rng.integers(0, args.docs, args.excluded) for _ in queries]
    result = {"index_s": index_s, "load_s": load_s, "postings": len(index.data)}
    sides = [False] if args.lucene_norms else [False, True]
    for query_side in sides:  # one query first: caches and memory-mapped pages warm up
        index.search(queries[0], 1000, excluded[0], query_side=query_side)

        def one_pass(query_side=query_side):
            for text, rows in zip(queries, excluded):
                index.search(text, 1000, rows, query_side=query_side)

        result["qs" if query_side else "bow"] = median_pass(one_pass, args.passes)
    return result


def median_pass(one_pass, passes: int) -> float:
    """Median seconds of ``passes`` calls of ``one_pass`` (a pass over every query)."""
    import statistics

    spent = []
    for _ in range(passes):
        start = time.perf_counter()
        one_pass()
        spent.append(time.perf_counter() - start)
    return statistics.median(spent)


def run_bm25s(corpus: Path, queries: list[str], folder: Path, args) -> dict:
    import bm25s
    import pyarrow.parquet as pq

    start = time.perf_counter()
    texts = pq.read_table(corpus, columns=["content"]).column(0).to_pylist()
    tokens = bm25s.tokenize(texts, show_progress=False)
    del texts
    retriever = bm25s.BM25()
    retriever.index(tokens, show_progress=False)
    index_s = time.perf_counter() - start

    def one_pass():
        query_tokens = bm25s.tokenize(queries, show_progress=False)
        retriever.retrieve(query_tokens, k=1000, show_progress=False, n_threads=1)

    one_pass()  # timed from the second pass on, as the others
    return {"index_s": index_s, "bow": median_pass(one_pass, args.passes)}


PYSERINI = r"""
import json, os, resource, subprocess, sys, time
from pathlib import Path
folder, threads, passes = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
queries = json.loads(Path(folder, "queries.json").read_text())
start = time.perf_counter()
subprocess.run([sys.executable, "-m", "pyserini.index.lucene", "-collection", "JsonCollection",
    "-input", str(folder / "json"), "-index", str(folder / "lucene"), "-generator",
    "DefaultLuceneDocumentGenerator", "-threads", threads], check=True,
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
index_s = time.perf_counter() - start
from pyserini.pyclass import autoclass
searcher = autoclass("io.anserini.search.SimpleSearcher")(str(folder / "lucene"))
searcher.set_bm25(0.9, 0.4)
searcher.search(queries[0], 1000)
spent = []
for _ in range(passes):
    start = time.perf_counter()
    for q in queries:
        searcher.search(q, 1000)
    spent.append(time.perf_counter() - start)
bow = sorted(spent)[len(spent) // 2]
rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
          resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
print(json.dumps({"index_s": index_s, "bow": bow, "rss_mb": rss}))
"""


def run_pyserini(corpus: Path, queries: list[str], folder: Path, args) -> dict:
    import pyarrow.parquet as pq

    (folder / "json").mkdir(parents=True, exist_ok=True)
    with open(folder / "json" / "docs.jsonl", "w", encoding="utf-8") as out:
        for batch in pq.ParquetFile(corpus).iter_batches(columns=["id", "content"]):
            for doc_id, text in zip(*(c.to_pylist() for c in batch.columns)):
                out.write(json.dumps({"id": doc_id, "contents": text}) + "\n")
    (folder / "queries.json").write_text(json.dumps(queries))
    env = dict(os.environ, OPENAI_API_KEY=os.environ.get("OPENAI_API_KEY", "x"))
    done = subprocess.run(
        [args.pyserini_python, "-c", PYSERINI, str(folder), str(cores()), str(args.passes)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


SYSTEMS = {"ir_bright": run_ir_bright, "bm25s": run_bm25s, "pyserini": run_pyserini}


def child(args) -> int:
    queries = json.loads(Path(args.folder, "queries.json").read_text())
    folder = Path(tempfile.mkdtemp(prefix=f"{args.system}_", dir=args.folder))
    result = SYSTEMS[args.system](args.corpus, queries, folder, args)
    result.setdefault("rss_mb", peak_rss_mb())
    print(json.dumps(result))
    return 0


# -- the comparison ---------------------------------------------------------------------------


def pyserini_python(given: str | None) -> str | None:
    """An interpreter that imports pyserini with a JDK, or None."""
    candidate = given or sys.executable
    code = "import pyserini.analysis"
    env = dict(os.environ, OPENAI_API_KEY=os.environ.get("OPENAI_API_KEY", "x"))
    try:
        ok = subprocess.run([candidate, "-c", code], capture_output=True, env=env).returncode == 0
    except OSError:
        return None
    return candidate if ok else None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=LEETCODE_DOCS)
    parser.add_argument("--queries", type=int, default=142, help="leetcode has 142")
    parser.add_argument("--query-words", type=int, default=120)
    parser.add_argument("--excluded", type=int, default=500, help="excluded ids per query")
    parser.add_argument(
        "--passes", type=int, default=5, help="passes over the queries (the median is shown)"
    )
    parser.add_argument("--folder", type=Path, help="keep the corpus and indexes here")
    parser.add_argument("--pyserini-python", help="a Python with pyserini and a JDK")
    parser.add_argument(
        "--bright-domains", action="store_true", help="then the 12 domains end to end"
    )
    parser.add_argument("--system", choices=SYSTEMS, help=argparse.SUPPRESS)
    parser.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--lucene-norms", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.system:
        return child(args)

    folder = args.folder or Path(tempfile.mkdtemp(prefix="bench_bm25_"))
    folder.mkdir(parents=True, exist_ok=True)
    corpus = folder / f"corpus-{args.docs}.parquet"
    if not corpus.exists():
        code = (
            "from pathlib import Path; from benchmarks.corpus import write_corpus; "
            f"write_corpus(Path({str(corpus)!r}), {args.docs})"
        )
        subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)
    queries = make_queries(corpus, args.queries, args.query_words)
    (folder / "queries.json").write_text(json.dumps(queries))
    runs = [("ir_bright", []), ("ir_bright --lucene-norms", ["--lucene-norms"]), ("bm25s", [])]
    python = pyserini_python(args.pyserini_python)
    if python:
        runs.append(("pyserini", ["--pyserini-python", python]))
    results = {}
    for name, extra in runs:
        system = name.split()[0]
        command = [sys.executable, __file__, "--system", system, "--corpus", str(corpus)]
        command += ["--folder", str(folder), "--docs", str(args.docs)]
        command += ["--excluded", str(args.excluded), "--passes", str(args.passes), *extra]
        done = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT)
        results[name] = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{name}: {results[name]}", file=sys.stderr)
    print_table(results, args, python)
    if args.bright_domains:
        print()
        bright_domains(args)
    return 0


def bright_domains(args) -> int:
    """Index and search a generated corpus of every BRIGHT domain's real size, timed."""
    from benchmarks.corpus import write_corpus
    from ir_bright import bm25
    from ir_bright.families import family
    from ir_bright.store.parquet import read_batches

    folder = args.folder or Path(tempfile.mkdtemp(prefix="bench_bm25_"))
    counts = {key: d.counts for key, d in family("bright").domains.items()}
    print(
        "All 12 BRIGHT domains, ir_bright end to end: a generated corpus of each domain's real "
        f"size, indexed, then as many {args.query_words}-word queries as the domain has.\n"
    )
    indexes: dict[int, object] = {}  # aops and theoremqa_questions: one corpus, one index
    print("| domain | documents | queries | index | retrieve (top 1,000) |")
    print("|---|---:|---:|---:|---:|")
    total = 0.0
    for domain, count in counts.items():
        docs, n_queries = count["docs"], count["queries"]
        index_s = 0.0
        if docs not in indexes:
            corpus = folder / f"corpus-{docs}.parquet"
            if not corpus.exists():
                write_corpus(corpus, docs, seed=docs)

            def batches(corpus=corpus):
                for batch in read_batches(corpus, ["id", "content"]):
                    yield batch.rename_columns(["doc_id", "text"])

            start = time.perf_counter()
            indexes[docs] = bm25.BM25Index.build(batches(), total=docs, progress=False)
            index_s = time.perf_counter() - start
            queries = make_queries(corpus, n_queries, args.query_words)
        else:
            queries = make_queries(folder / f"corpus-{docs}.parquet", n_queries, args.query_words)
        start = time.perf_counter()
        for text in queries:
            indexes[docs].search(text, 1000)
        search_s = time.perf_counter() - start
        if sum(c["docs"] == docs for c in counts.values()) == 1:
            del indexes[docs]  # keep only the shared corpus' index in memory
        total += index_s + search_s
        shared = f"{index_s:.1f} s" if index_s else "shared"
        print(f"| {domain} | {docs:,} | {n_queries} | {shared} | {search_s:.1f} s |")
    print(f"| all 12 | | | | {total:.0f} s in all |")
    return 0


def print_table(results: dict, args, python: str | None) -> None:
    base = results.get("pyserini")
    print(
        f"{args.docs:,} generated documents, {args.queries} queries of {args.query_words} "
        f"words, top 1,000, median of {args.passes} passes over the queries; {cores()} cores."
    )
    print()
    print("| system | index docs/s | peak memory | bag-of-words queries/s | query-side queries/s |")
    print("|---|---:|---:|---:|---:|")
    for name, r in results.items():
        rate = args.docs / r["index_s"]
        bow = args.queries / r["bow"]
        cells = [f"{rate:,.0f}", f"{r['rss_mb']:,.0f} MB", f"{bow:,.1f}"]
        cells.append(f"{args.queries / r['qs']:,.1f}" if "qs" in r else "")
        if base and name != "pyserini":
            cells[0] += f" ({rate / (args.docs / base['index_s']):.2f}x Pyserini)"
            cells[2] += f" ({bow / (args.queries / base['bow']):.1f}x)"
        print(f"| {name} | " + " | ".join(cells) + " |")
    if not python:
        print()
        print("Pyserini skipped: no pyserini with a JDK here (give --pyserini-python).")


if __name__ == "__main__":
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "bm25")
