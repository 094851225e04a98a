"""Documents of a leetcode-size BRIGHT corpus: ir_bright vs ir_datasets' core loader.

Generates (once, cached in the work folder) a parquet of 413,932 documents in the hub's layout
and times, side by side on that file, each phase in a fresh subprocess so peak memory is that
phase's alone:

- docs_iter, first pass: the core's ``BrightDocs.docs_iter`` vs ours (nothing built yet);
- docs_iter, later passes: both loaders then iterate what their docs store built;
- docs store: time to the first ``docs_store().get`` (including any build), then 1,000 random
  lookups, and the peak resident memory.

Prints medians over ``--repeats`` runs and our/core ratios as a markdown table.

    python benchmarks/bench_docs.py [--docs 413932] [--repeats 3] [--row-group-rows 1000 50000]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOOKUPS = 1000

PHASE = r"""
import json, os, sys, threading, time
from pathlib import Path
system, phase, parquet = sys.argv[1], sys.argv[2], Path(sys.argv[3])

def status(field):
    return int(Path("/proc/self/status").read_text().split(field + ":")[1].split()[0]) / 1024

peak_private = [0.0]
def sample():  # RssAnon has no high-water mark of its own
    while True:
        peak_private[0] = max(peak_private[0], status("RssAnon"))
        time.sleep(0.005)
threading.Thread(target=sample, daemon=True).start()

def core_docs():
    from ir_datasets.datasets.bright import BrightDocs
    class Local:  # the core's download object, reduced to a local path
        def path(self, force=True):
            return parquet
    return BrightDocs("leetcode", Local())

def our_docs():
    os.environ["IR_DATASETS_HOME"] = str(parquet.parent.parent)
    from ir_bright.hub import HubFile
    from ir_bright.store import ParquetDocs
    file = HubFile(repo="-", path="-", namespace=parquet.parent.name, cache_path=parquet.name)
    return ParquetDocs(file, namespace="bench")

docs = core_docs() if system == "core" else our_docs()
start = time.perf_counter()
result = {}
if phase == "iter":
    n = sum(1 for _ in docs.docs_iter())
    result["docs_per_s"] = n / (time.perf_counter() - start)
else:
    ids = json.loads(sys.argv[4])
    store = docs.docs_store()
    store.get(ids[0])
    result["first_lookup_s"] = time.perf_counter() - start
    start = time.perf_counter()
    for doc_id in ids[1:]:
        assert store.get(doc_id).doc_id == doc_id
    result["lookups_s"] = time.perf_counter() - start
peak_private[0] = max(peak_private[0], status("RssAnon"))
result["peak_mb"] = status("VmHWM")  # resident, including mapped pages of cached files
result["private_mb"] = peak_private[0]  # anonymous memory: what the process itself holds
print(json.dumps(result))
"""


def run_phase(system: str, phase: str, parquet: Path, ids: list[str]) -> dict:
    """Run one phase in a fresh interpreter; return its measurements."""
    argv = [sys.executable, "-c", PHASE, system, phase, str(parquet), json.dumps(ids)]
    out = subprocess.run(argv, check=True, capture_output=True, text=True, cwd=HERE.parent)
    return json.loads(out.stdout.strip().splitlines()[-1])


def clear_stores(parquet: Path) -> None:
    """Remove what either loader built next to the parquet."""
    for built in parquet.parent.glob(parquet.name + ".*"):
        shutil.rmtree(built) if built.is_dir() else built.unlink()


def measure(parquet: Path, n_docs: int, repeats: int) -> dict[str, dict[str, list[float]]]:
    """All phases for both systems, ``repeats`` times, alternating which system goes first."""
    import random

    rng = random.Random(0)
    ids = [f"leetcode/leetcode_{rng.randrange(n_docs)}.txt" for _ in range(LOOKUPS + 1)]
    results: dict[str, dict[str, list[float]]] = {}

    def record(name: str, values: dict) -> None:
        for key, value in values.items():
            results.setdefault(name, {}).setdefault(key, []).append(value)

    for repeat in range(repeats):
        systems = ("core", "ours") if repeat % 2 == 0 else ("ours", "core")
        for system in systems:
            clear_stores(parquet)
            record(f"{system} iter cold", run_phase(system, "iter", parquet, ids))
            record(f"{system} store", run_phase(system, "store", parquet, ids))
            record(f"{system} iter warm", run_phase(system, "iter", parquet, ids))
    clear_stores(parquet)
    return results


def table(results: dict[str, dict[str, list[float]]]) -> str:
    """The markdown table of medians and ratios (ours relative to core; >1 means ours is better)."""
    med = {name: {k: statistics.median(v) for k, v in m.items()} for name, m in results.items()}
    rows = [
        ("docs_iter, first pass (docs/s)", "iter cold", "docs_per_s", False),
        ("docs_iter, store built (docs/s)", "iter warm", "docs_per_s", False),
        ("first lookup (s, incl. build)", "store", "first_lookup_s", True),
        (f"{LOOKUPS} random lookups (s)", "store", "lookups_s", True),
        ("peak private memory, docs_iter first pass (MB)", "iter cold", "private_mb", True),
        ("peak private memory, store + lookups (MB)", "store", "private_mb", True),
        ("peak private memory, docs_iter store built (MB)", "iter warm", "private_mb", True),
        ("peak resident memory, docs_iter first pass (MB)", "iter cold", "peak_mb", True),
        ("peak resident memory, store + lookups (MB)", "store", "peak_mb", True),
    ]
    lines = [
        "| measure | core ir_datasets | ir_bright | ratio (ours better if > 1) |",
        "|---|---:|---:|---:|",
    ]
    for label, phase, key, lower_is_better in rows:
        core, ours = med[f"core {phase}"][key], med[f"ours {phase}"][key]
        ratio = core / ours if lower_is_better else ours / core
        lines.append(f"| {label} | {core:,.2f} | {ours:,.2f} | {ratio:.2f}x |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=413_932)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--row-group-rows",
        type=int,
        nargs="+",
        default=[1000, 50_000],
        help="row-group layouts to measure (the hub's is not ours to choose)",
    )
    parser.add_argument(
        "--workdir", type=Path, default=Path(tempfile.gettempdir()) / "ir_bright_bench"
    )
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from corpus import write_corpus

    for rows in args.row_group_rows:
        parquet = args.workdir / "bench" / f"leetcode-{args.docs}-rg{rows}.docs.parquet"
        if not parquet.exists():
            print(f"generating {parquet} ...", file=sys.stderr)
            write_corpus(parquet, n_docs=args.docs, row_group_size=rows)
        size_mb = parquet.stat().st_size / 1e6
        print(
            f"\ncorpus: {args.docs:,} docs, {size_mb:.0f} MB parquet in row groups of {rows:,} "
            f"rows; medians of {args.repeats} runs\n"
        )
        print(table(measure(parquet, args.docs, args.repeats)))


if __name__ == "__main__":
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "docs")
