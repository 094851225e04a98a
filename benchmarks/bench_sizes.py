"""The size of each piece of its own code the decisions page weighs against a library: the
lines of each of its files (every line counted, docstrings and comments included), and what
a switch to the library would remove.

    python benchmarks/bench_sizes.py
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = HERE.parent / "ir_bright"

PIECES = {
    "hub client (`huggingface_hub`)": (["hub/*.py"], ["hub/http.py", "hub/transfer.py"]),
    "document store (ir_datasets' `PickleLz4FullStore`)": (
        ["store/arrow*.py", "store/id_index.py"],
        ["store/arrow*.py", "store/id_index.py"],
    ),
    "Lucene analysis and Porter (PyStemmer)": (
        ["bm25/analysis.py", "bm25/porter.py"],
        ["bm25/porter.py"],
    ),
    "statistics (`scipy.stats`)": (["results/stats.py"], []),
    "fusion (ranx)": (["pipelines/fusion.py"], ["pipelines/fusion.py"]),
    "worker pool (`concurrent.futures`)": (["bm25/workers.py"], ["bm25/workers.py"]),
    "cache lock (filelock)": (["store/lock.py"], ["store/lock.py"]),
    "registration when a host is imported (eager imports)": (
        ["when_imported.py", "lazy.py"],
        ["when_imported.py", "lazy.py"],
    ),
    "run reading (ir_measures' readers)": (
        ["runs/*.py"],
        ["runs/read.py", "runs/run_file.py", "runs/text.py"],
    ),
}
"""piece (library) -> (its files, the files a switch would remove), globs under ir_bright/."""


def files(globs: list[str]) -> list[Path]:
    """The package's files matching ``globs``, sorted, ``__init__.py`` included."""
    return sorted({path for pattern in globs for path in PACKAGE.glob(pattern)})


def lines(paths: list[Path]) -> int:
    """Every line of ``paths``."""
    return sum(path.read_text("utf-8").count("\n") for path in paths)


def main() -> int:
    """Count; print the table."""
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    print("Lines of `ir_bright/`, every line counted.\n")
    print("| piece (library) | its files | lines | a switch would remove | lines |")
    print("|---|---|---:|---|---:|")
    for piece, (own, removed) in PIECES.items():
        mine, gone = files(own), files(removed)
        shown = ", ".join(f"`{p.relative_to(PACKAGE)}`" for p in mine)
        gone_shown = ", ".join(f"`{p.relative_to(PACKAGE)}`" for p in gone) or "nothing"
        print(f"| {piece} | {shown} | {lines(mine):,} | {gone_shown} | {lines(gone):,} |")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "sizes")
