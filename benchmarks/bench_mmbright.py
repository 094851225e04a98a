"""MM-BRIGHT at physics size: docs_iter throughput and 1,000 random lookups, with peak memory.

Generates a physics-size domain (338,291 passages on ~42k source pages, 1,184 small webp/png
document images plus a few SVGs, 81 multimodal queries) straight into a temporary
IR_DATASETS_HOME in the hub's cache layout, then runs each phase in its own subprocess and
reports its wall time, throughput and peak RSS (VmHWM of that process, which includes the
interpreter and imports: see the ``import`` row and the last column).

    python benchmarks/bench_mmbright.py [--passages N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

DOMAIN = "physics"
PASSAGES = 338_291
IMAGES = 1_184
SVGS = 6
LOOKUPS = 1_000
_VOCAB = np.array([f"w{i:x}" for i in range(30_000)] + ["the", "of", "energy", "field", "="])


def generate(home: Path, n_passages: int, seed: int = 0) -> None:
    """Write the five configs of the domain into ``home/mm-bright/physics/``."""
    from PIL import Image

    rng = np.random.default_rng(seed)
    folder = home / "mm-bright" / DOMAIN
    folder.mkdir(parents=True, exist_ok=True)
    pages = max(1, n_passages // 8)
    keys = [f"{k:08x}" for k in rng.choice(2**32, pages, replace=False)]
    schema = pa.schema([("id", pa.string()), ("content", pa.string())])
    with pq.ParquetWriter(folder / "documents.parquet", schema) as writer:
        for start in range(0, n_passages, 50_000):
            count = min(50_000, n_passages - start)
            page_of = rng.integers(0, pages, count)
            ids = [f"{DOMAIN}/{keys[p]}_{start + i}.txt" for i, p in enumerate(page_of)]
            lengths = rng.integers(60, 240, count)
            words = _VOCAB[np.minimum(rng.zipf(1.15, lengths.sum()), len(_VOCAB)) - 1]
            bounds = np.concatenate([[0], np.cumsum(lengths)])
            texts = [" ".join(words[bounds[i] : bounds[i + 1]]) for i in range(count)]
            writer.write_table(pa.table({"id": ids, "content": texts}, schema=schema))
    paths, blobs = [], []
    image_pages = rng.choice(pages, IMAGES // 2, replace=False)
    for n in range(IMAGES + SVGS):
        page = keys[image_pages[n % len(image_pages)]]
        fmt = "webp" if n % 2 else "png"
        if n >= IMAGES:
            paths.append(f"{DOMAIN}/{DOMAIN}_{page}_{n:04d}/figure.svg")
            blobs.append(b'<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>')
            continue
        pixels = rng.integers(0, 255, (48, 64, 3), dtype=np.uint8)
        out = io.BytesIO()
        Image.fromarray(pixels).save(out, format=fmt.upper())
        paths.append(f"{DOMAIN}/{DOMAIN}_{page}_{n:04d}/image_1.{fmt}")
        blobs.append(out.getvalue())
    image_schema = pa.schema([("path", pa.string()), ("bytes", pa.binary())])
    pq.write_table(
        pa.table({"path": paths, "bytes": blobs}, schema=image_schema),
        folder / "document_images.parquet",
    )
    pq.write_table(
        pa.table({"path": paths[:40], "bytes": blobs[:40]}, schema=image_schema),
        folder / "examples_images.parquet",
    )


def _ids(home: Path) -> list[str]:
    return pq.read_table(home / "mm-bright" / DOMAIN / "documents.parquet", columns=["id"])[
        "id"
    ].to_pylist()


def phase(name: str, home: Path) -> dict:
    """Run one phase in this process; return its measurements."""
    os.environ["IR_DATASETS_HOME"] = str(home)
    os.environ["HF_HUB_OFFLINE"] = "1"
    import ir_datasets

    import ir_bright  # noqa: F401
    from ir_bright.families.mmbright import collection as mmbright

    text = ir_datasets.load(f"mm-bright/{DOMAIN}")
    pairs = ir_datasets.load(f"mm-bright/{DOMAIN}/task4")
    rng = random.Random(0)
    sampler = _AnonPeak()
    started = time.perf_counter()
    items = 0
    if name == "import":
        pass
    elif name in ("text docs_iter (parquet)", "text docs_iter (store built)"):
        for _ in text.docs_iter():
            items += 1
    elif name == "text store build":
        text.docs_store().build()
        items = text.docs_count()
    elif name == "text 1,000 lookups":
        sample = rng.sample(_ids(home), LOOKUPS)
        sampler.stop()
        sampler = _AnonPeak()  # the sampling above is not the lookups' memory
        started = time.perf_counter()
        items = len(text.docs_store().get_many(sample))
    elif name == "decodability (once)":
        items = len(mmbright._domain(DOMAIN).doc_images.formats)
    elif name == "pair docs_iter":
        for _ in pairs.docs_iter():
            items += 1
    elif name == "pair 1,000 lookups":
        corpus = mmbright._domain(DOMAIN).pairs["paper"]
        all_ids = list(corpus.pair_ids())
        alone = [i for i in all_ids if i.endswith("__NO_IMAGE__")]
        with_image = [i for i in all_ids if not i.endswith("__NO_IMAGE__")]
        sample = rng.sample(with_image, min(LOOKUPS // 2, len(with_image)))
        sample += rng.sample(alone, LOOKUPS - len(sample))
        del all_ids, alone, with_image
        sampler.stop()
        sampler = _AnonPeak()
        started = time.perf_counter()
        items = len(pairs.docs_store().get_many(sample))
    elif name == "task4 qrels + summary":
        items = mmbright.summary(f"mm-bright/{DOMAIN}/task4")["docs"]
    seconds = time.perf_counter() - started
    return {
        "phase": name,
        "items": items,
        "seconds": seconds,
        "peak_rss_mb": _peak_rss_mb(),
        "peak_anon_mb": sampler.stop(),
    }


class _AnonPeak:
    """Samples RssAnon (private memory: Python objects, Arrow buffers; not the page cache of
    memory-mapped files) every 5 ms in a thread; ``stop()`` returns the peak in MB."""

    def __init__(self):
        import threading

        self.peak = _rss_anon_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, _rss_anon_mb())

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return max(self.peak, _rss_anon_mb())


def _rss_anon_mb() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _peak_rss_mb() -> float:
    """This process's peak RSS: VmHWM (per address space, reset by exec) where Linux has it;
    ru_maxrss otherwise (on Linux that one survives exec, so it would show the parent's)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


PHASES = [
    "import",
    "text docs_iter (parquet)",
    "text store build",
    "text docs_iter (store built)",
    "text 1,000 lookups",
    "decodability (once)",
    "pair docs_iter",
    "pair 1,000 lookups",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--passages", type=int, default=PASSAGES)
    parser.add_argument("--keep", type=Path, help="generate into (or reuse) this folder")
    parser.add_argument("--phase", help=argparse.SUPPRESS)
    parser.add_argument("--home", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(phase(args.phase, args.home)))
        return
    with tempfile.TemporaryDirectory() as scratch:
        home = args.keep or Path(scratch)
        if not (home / "mm-bright" / DOMAIN / "documents.parquet").is_file():
            started = time.perf_counter()
            generate(home, args.passages)
            print(f"generated {args.passages:,} passages in {time.perf_counter() - started:.1f} s")
        rows = []
        for name in PHASES:
            out = subprocess.run(
                [sys.executable, __file__, "--phase", name, "--home", str(home)],
                check=True,
                capture_output=True,
                text=True,
            )
            rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        base = rows[0]["peak_anon_mb"]
        print(
            "| phase | items | seconds | items/s | peak RSS (MB) | peak private (MB) "
            "| private above import (MB) |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|")
        for row in rows:
            rate = row["items"] / row["seconds"] if row["items"] and row["seconds"] else 0
            print(
                f"| {row['phase']} | {row['items']:,} | {row['seconds']:.2f} | {rate:,.0f} | "
                f"{row['peak_rss_mb']:.0f} | {row['peak_anon_mb']:.0f} | "
                f"{row['peak_anon_mb'] - base:.0f} |"
            )


if __name__ == "__main__":
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "mmbright")
