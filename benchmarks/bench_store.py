"""The document store: ir_bright's Arrow store vs ir_datasets' own docstore, on one parquet.

ir_datasets 0.6.3 offers ``PickleLz4FullStore`` (lz4 blocks of pickled records with numpy
position and sorted-id indexes: what its BRIGHT and NanoBEIR loaders use), ``ZPickleDocStore``
and ``IndexedTsvDocstore``; none reads parquet. A switch would feed ``PickleLz4FullStore``
ir_bright's own parquet reading, so that is what is measured here: both stores built from the
same generated corpus of a BRIGHT domain's size (``corpus.py``), each phase in a fresh
interpreter so its peak memory is its own.

- build: the store written from the parquet; its size on disk (every file it writes);
- open + 1,000 random lookups: the time and the peak private memory (anonymous pages: what the
  process holds, not the file's pages the kernel maps);
- damage: on the smallest corpus, the built store is damaged four ways and every document is
  then read back by id and compared with the parquet's text.

    python benchmarks/bench_store.py [--sizes 7894 57359 413932] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SYSTEMS = {"ir_bright": "ir_bright's Arrow store", "pklz4": "ir_datasets' PickleLz4FullStore"}
LOOKUPS = 1000
DAMAGES = {
    "byte flipped": "one byte of the store's data flipped, halfway through the file",
    "truncated": "the store's data file cut to half its length",
    "build killed": "the build killed (SIGKILL) halfway, then the store opened again",
    "stale source": "the parquet replaced by a newer one (other texts, same ids)",
}


# -- the child: one phase of one system -----------------------------------------------------


def _status(field: str) -> float:
    return int(Path("/proc/self/status").read_text().split(field + ":")[1].split()[0]) / 1024


def _watch_private_memory() -> list[float]:
    peak = [0.0]

    def sample() -> None:  # RssAnon has no high-water mark of its own
        while True:
            peak[0] = max(peak[0], _status("RssAnon"))
            time.sleep(0.005)

    threading.Thread(target=sample, daemon=True).start()
    return peak


def _store(system: str, parquet: Path):
    """The docstore ``system`` would serve ``parquet`` with."""
    os.environ["IR_DATASETS_HOME"] = str(parquet.parent.parent)
    from ir_bright.hub import HubFile
    from ir_bright.store import ParquetDocs

    file = HubFile(repo="-", path="-", namespace=parquet.parent.name, cache_path=parquet.name)
    docs = ParquetDocs(file, namespace="bench")
    if system == "ir_bright":
        return docs.docs_store()
    from ir_datasets.formats import GenericDoc
    from ir_datasets.indices import PickleLz4FullStore

    return PickleLz4FullStore(
        path=f"{parquet}.pklz4",
        init_iter_fn=docs.docs_iter,  # ir_bright's parquet reading, as a switch would keep
        data_cls=GenericDoc,
        lookup_field="doc_id",
        index_fields=["doc_id"],
    )


def child(system: str, phase: str, parquet: Path, ids: list[str]) -> dict:
    """Run ``phase`` (build, lookups or check) of ``system`` on ``parquet``."""
    peak = _watch_private_memory()
    store = _store(system, parquet)
    result: dict = {}
    start = time.perf_counter()
    if phase == "build":
        store.build()
        result["seconds"] = time.perf_counter() - start
    elif phase == "lookups":
        for doc_id in ids:
            assert store.get(doc_id).doc_id == doc_id
        result["seconds"] = time.perf_counter() - start
        result["private_mb"] = max(peak[0], _status("RssAnon"))
    else:  # check: every document by id, against the parquet
        import pyarrow.parquet as pq

        table = pq.read_table(parquet, columns=["id", "content"])
        expected = dict(zip(table.column("id").to_pylist(), table.column("content").to_pylist()))
        got = {doc.doc_id: doc.text for doc in store.get_many_iter(list(expected))}
        result["missing"] = sum(doc_id not in got for doc_id in expected)
        result["wrong"] = sum(got[d] != text for d, text in expected.items() if d in got)
    return result


# -- the parent ---------------------------------------------------------------------------------


def run_phase(system: str, phase: str, parquet: Path, ids: list[str]) -> dict:
    """One phase in a fresh interpreter; an exception there is an outcome, not a crash."""
    argv = [sys.executable, __file__, "--child", system, phase, str(parquet), json.dumps(ids)]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    warned = "rebuilding" in done.stderr
    if done.returncode:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"error": last[:100], "warned": warned}
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "warned": warned}


def built_files(system: str, parquet: Path) -> list[Path]:
    """Every file ``system``'s store wrote next to ``parquet``."""
    suffix = ".pklz4" if system == "pklz4" else ".arrow"
    found = [p for p in parquet.parent.glob(parquet.name + suffix + "*") if p.is_file()]
    found += [p for p in parquet.parent.glob(parquet.name + suffix + "/*") if p.is_file()]
    return sorted(found)


def data_file(system: str, parquet: Path) -> Path:
    """The file holding the texts (the one damaged)."""
    return Path(f"{parquet}.pklz4/bin") if system == "pklz4" else Path(f"{parquet}.arrow")


def clear(parquet: Path) -> None:
    """Remove what either store built next to ``parquet``."""
    for built in parquet.parent.glob(parquet.name + ".*"):
        shutil.rmtree(built) if built.is_dir() else built.unlink()


def measure(parquet: Path, n_docs: int, repeats: int) -> dict[str, dict[str, float]]:
    """Medians of build time, size, lookup time and memory for both systems."""
    rng = random.Random(0)
    prefix = parquet.name.split("-")[0]
    ids = [f"{prefix}/doc_{rng.randrange(n_docs)}.txt" for _ in range(LOOKUPS)]
    samples: dict[str, dict[str, list[float]]] = {s: {} for s in SYSTEMS}
    for repeat in range(repeats):
        order = list(SYSTEMS) if repeat % 2 == 0 else list(SYSTEMS)[::-1]
        for system in order:
            clear(parquet)
            built = run_phase(system, "build", parquet, [])
            size = sum(p.stat().st_size for p in built_files(system, parquet)) / 1e6
            looked = run_phase(system, "lookups", parquet, ids)
            for key, value in (
                ("build_s", built["seconds"]),
                ("size_mb", size),
                ("lookups_s", looked["seconds"]),
                ("private_mb", looked["private_mb"]),
            ):
                samples[system].setdefault(key, []).append(value)
    clear(parquet)
    return {s: {k: statistics.median(v) for k, v in m.items()} for s, m in samples.items()}


def _kill_build_halfway(system: str, parquet: Path, seconds: float) -> None:
    argv = [sys.executable, __file__, "--child", system, "build", str(parquet), "[]"]
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(seconds / 2)
    process.send_signal(signal.SIGKILL)
    process.wait()


def damaged(system: str, parquet: Path, damage: str, build_s: float) -> str:
    """Damage ``system``'s built store of ``parquet`` as ``damage`` says; read every document
    back; say what came of it."""
    clear(parquet)
    if damage == "build killed":
        _kill_build_halfway(system, parquet, build_s)
    else:
        run_phase(system, "build", parquet, [])
        target = data_file(system, parquet)
        if damage == "byte flipped":
            with open(target, "r+b") as out:
                out.seek(target.stat().st_size // 2)
                byte = out.read(1)
                out.seek(-1, os.SEEK_CUR)
                out.write(bytes([byte[0] ^ 0xFF]))
        elif damage == "truncated":
            os.truncate(target, target.stat().st_size // 2)
        else:
            newer = parquet.with_name(parquet.name + ".newer")
            _rewrite_texts(parquet, newer)
            original = parquet.with_name(parquet.name + ".original")
            parquet.rename(original)
            newer.rename(parquet)
    try:
        result = run_phase(system, "check", parquet, [])
    finally:
        original = parquet.with_name(parquet.name + ".original")
        if original.exists():
            original.replace(parquet)
        clear(parquet)
    if "error" in result:
        return f"error: {result['error']}"
    if result["wrong"] + result["missing"] == 0:
        return "rebuilt with a warning; all texts right" if result["warned"] else "all texts right"
    return f"**{result['wrong']:,} wrong and {result['missing']:,} missing texts, no error**"


def _rewrite_texts(parquet: Path, target: Path) -> None:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    table = pq.read_table(parquet)
    newer = pc.binary_join_element_wise(table.column("content"), pa.scalar("(revised)"), " ")
    pq.write_table(table.set_column(1, "content", newer), target)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[7_894, 57_359, 413_932])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--workdir", type=Path, default=Path(tempfile.gettempdir()) / "ir_bright_bench"
    )
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        system, phase, parquet, ids = args.child
        print(json.dumps(child(system, phase, Path(parquet), json.loads(ids))))
        return 0
    from corpus import write_corpus

    print(
        f"Generated corpora (about 245 words a document); medians of {args.repeats} builds, each "
        f"phase in a fresh interpreter; {LOOKUPS:,} random lookups after opening the store.\n"
    )
    print(
        "| documents | store | build (s) | on disk (MB) | open + lookups (s) | "
        "private memory (MB) |"
    )
    print("|---:|---|---:|---:|---:|---:|")
    parquets, builds = {}, {}
    for n_docs in args.sizes:
        parquet = args.workdir / "store" / f"d{n_docs}-{n_docs}.docs.parquet"
        if not parquet.exists():
            write_corpus(parquet, n_docs, id_prefix=f"d{n_docs}/doc_", seed=n_docs)
        parquets[n_docs] = parquet
        results = measure(parquet, n_docs, args.repeats)
        builds[n_docs] = {s: r["build_s"] for s, r in results.items()}
        for system, r in results.items():
            print(
                f"| {n_docs:,} | {SYSTEMS[system]} | {r['build_s']:.2f} | {r['size_mb']:.0f} | "
                f"{r['lookups_s']:.2f} | {r['private_mb']:.0f} |"
            )
    smallest = min(args.sizes)
    print(f"\nDamage, {smallest:,} documents: every document read back by id afterwards.\n")
    print("| damage | " + " | ".join(SYSTEMS.values()) + " |")
    print("|---|" + "---|" * len(SYSTEMS))
    for damage, what in DAMAGES.items():
        cells = [damaged(s, parquets[smallest], damage, builds[smallest][s]) for s in SYSTEMS]
        print(f"| {what} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(ROOT))
    if "--child" in sys.argv:
        sys.exit(main())
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "store")
