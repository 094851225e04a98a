"""The adjusted qrels' hash pass on a leetcode-size corpus: ir_bright vs a dict of texts.

The baseline groups the corpus in a dict keyed by each document's stripped text, as the rule
is usually written (Pyserini's create_adjusted_qrels.py keeps every text in memory this way);
ir_bright keeps a 20-byte SHA-1 digest and the id per document (``adjusted.twins_of``).
Both read the same Arrow batches of a generated parquet (``corpus.py``, 413,932 documents,
about 210 MB, with every 50th document a twin of another up to surrounding white space), each
run in a fresh subprocess; both must find the same twins for 500 gold ids. "Reading only"
turns the same batches into Python strings and does nothing else: the floor of both.

    python benchmarks/bench_adjusted.py [--docs 413932] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOLD = 500
TWIN_EVERY = 50

PHASE = r"""
import hashlib, json, os, sys, threading, time
from pathlib import Path
system, parquet = sys.argv[1], Path(sys.argv[2])
gold = json.loads(sys.argv[3])

def status(field):
    return int(Path("/proc/self/status").read_text().split(field + ":")[1].split()[0]) / 1024

peak = [0.0]
def sample():
    while True:
        peak[0] = max(peak[0], status("RssAnon"))
        time.sleep(0.005)
threading.Thread(target=sample, daemon=True).start()

os.environ["IR_DATASETS_HOME"] = str(parquet.parent.parent)
from ir_bright.families.bright.adjusted import twins_of
from ir_bright.hub import HubFile
from ir_bright.store import ParquetDocs

docs = ParquetDocs(HubFile(repo="-", path="-", namespace=parquet.parent.name,
                           cache_path=parquet.name), namespace="bench")
base = status("RssAnon")
start = time.perf_counter()
if system == "ours":
    twins = twins_of(docs.docs_arrow(), gold)
elif system == "floor":  # reading the texts into Python and nothing else
    twins = {}
    for batch in docs.docs_arrow():
        batch.column(0).to_pylist(), batch.column(1).to_pylist()
else:
    by_text, text_of = {}, {}
    wanted = set(gold)
    for batch in docs.docs_arrow():
        for doc_id, text in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist()):
            key = text.strip()
            by_text.setdefault(key, []).append(doc_id)
            if doc_id in wanted:
                text_of[doc_id] = key
    twins = {g: by_text[text_of[g]] for g in gold if g in text_of}
seconds = time.perf_counter() - start
peak[0] = max(peak[0], status("RssAnon"))
digest = hashlib.sha1(json.dumps(sorted((g, sorted(t)) for g, t in twins.items())).encode())
print(json.dumps({"seconds": seconds, "private_mb": peak[0] - base,
                  "twins": sum(len(t) - 1 for t in twins.values()), "result": digest.hexdigest()}))
"""


def write_corpus_with_twins(parquet: Path, n_docs: int) -> None:
    """The generated corpus, then every ``TWIN_EVERY``-th document made a twin of the one
    before it (its text with white space around it); renamed into place when complete."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sys.path.insert(0, str(HERE))
    from corpus import write_corpus

    plain = parquet.with_name(parquet.name + ".plain")
    write_corpus(plain, n_docs=n_docs)
    table = pq.read_table(plain)
    texts = table.column("content").to_pylist()
    for i in range(TWIN_EVERY, len(texts), TWIN_EVERY):
        texts[i] = f"  {texts[i - 1]}\n"
    table = table.set_column(1, "content", pa.array(texts, pa.string()))
    partial = parquet.with_name(parquet.name + ".part")
    pq.write_table(table, partial, row_group_size=1000)
    partial.replace(parquet)
    plain.unlink()


def run(system: str, parquet: Path, gold: list[str]) -> dict:
    """One pass in a fresh interpreter."""
    argv = [sys.executable, "-c", PHASE, system, str(parquet), json.dumps(gold)]
    out = subprocess.run(argv, check=True, capture_output=True, text=True, cwd=HERE.parent)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=413_932)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--workdir", type=Path, default=Path(tempfile.gettempdir()) / "ir_bright_bench"
    )
    args = parser.parse_args()
    parquet = args.workdir / "bench" / f"leetcode-{args.docs}-twins.docs.parquet"
    if not parquet.exists():
        print(f"generating {parquet} ...", file=sys.stderr)
        write_corpus_with_twins(parquet, args.docs)
    candidates = range(TWIN_EVERY - 1, args.docs - 1, TWIN_EVERY)  # each has a twin after it
    stride = max(1, len(candidates) // GOLD)
    gold = [f"leetcode/leetcode_{i}.txt" for i in candidates[::stride]][:GOLD]
    results: dict[str, list[dict]] = {"baseline": [], "ours": [], "floor": []}
    for repeat in range(args.repeats):
        order = ("baseline", "ours", "floor") if repeat % 2 == 0 else ("floor", "ours", "baseline")
        for system in order:
            results[system].append(run(system, parquet, gold))
    answers = {r["result"] for s in ("baseline", "ours") for r in results[s]}
    assert len(answers) == 1, "the two disagree on the twins"
    med = {
        s: {k: statistics.median(r[k] for r in rs) for k in ("seconds", "private_mb")}
        for s, rs in results.items()
    }
    size = parquet.stat().st_size / 1e6
    twins = results["ours"][0]["twins"]
    print(
        f"\ncorpus: {args.docs:,} docs, {size:.0f} MB parquet; {len(gold)} gold ids with "
        f"{twins} twins found by both; medians of {args.repeats} runs\n"
    )
    print("| measure | reading only | dict of texts | ir_bright | ratio (ours better if > 1) |")
    print("|---|---:|---:|---:|---:|")
    for label, key in (("hash pass (s)", "seconds"), ("peak private memory (MB)", "private_mb")):
        floor, base, ours = (med[s][key] for s in ("floor", "baseline", "ours"))
        print(f"| {label} | {floor:,.2f} | {base:,.2f} | {ours:,.2f} | {base / ours:.2f}x |")


if __name__ == "__main__":
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "adjusted")
