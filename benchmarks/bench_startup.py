"""Start-up: what ``import ir_bright`` and the ``ir-bright`` command cost beside the stock imports.

Each case times two whole processes in turn (A B A B ...), ``--pairs`` times after one warm-up
pair, and gives the median of the pair-by-pair wall-time ratios A/B (pairing keeps a ratio
meaningful while the machine's speed drifts) and the medians of each side's peak memory
(``ru_maxrss`` of the finished child, through ``benchmarks/processes.py``). The import and
``--help`` cases run on one core (less scheduler noise); the BM25 run, which scores in worker
processes, on all. Every process gets the same fresh ``IR_DATASETS_HOME``. ir_bright's
bytecode is compiled first, as ``pip install`` leaves it (an editable install under
``PYTHONDONTWRITEBYTECODE=1`` would recompile every module per process). The targets:

- ``import ir_bright, ir_datasets, ir_measures`` (the import and the registration it triggers)
  at most 1.1x ``import ir_datasets, ir_measures``, and at most 12 MiB more;
- ``import ir_bright`` alone (it imports neither) at most 0.5x ``import ir_datasets``;
- ``ir-bright --help`` and each subcommand's ``--help`` at most 0.5x ``import ir_datasets``;
- a warm ``ir-bright bm25 bright/pony`` (index cached; a generated corpus of pony's 7,894
  documents and 112 queries on a loopback mirror) at most 2x ``import ir_datasets, ir_measures``.

    python benchmarks/bench_startup.py [--pairs 21] [--write-page]
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.processes import run_timed  # noqa: E402 - after the path is set

STOCK = [sys.executable, "-c", "import ir_datasets, ir_measures"]
BARE = [sys.executable, "-c", "import ir_datasets"]
REGISTERED = "import ir_bright, ir_datasets, ir_measures"


@dataclass
class Pairing:
    """The medians of ``pairs`` alternating runs of A and B."""

    ratio: float
    wall_a: float
    wall_b: float
    peak_a: float
    peak_b: float


def paired(
    a: list[str], b: list[str], env: dict[str, str], pairs: int, pin: bool = True
) -> Pairing:
    """A and B in turn, one warm-up pair not counted; pinned to one core unless A uses more
    (the BM25 run scores its queries in worker processes)."""
    run_timed(a, env, pin), run_timed(b, env, pin)
    runs = [(run_timed(a, env, pin), run_timed(b, env, pin)) for _ in range(pairs)]
    median = statistics.median
    return Pairing(
        ratio=median(x.wall / y.wall for x, y in runs),
        wall_a=median(x.wall for x, _ in runs),
        wall_b=median(y.wall for _, y in runs),
        peak_a=median(x.peak for x, _ in runs),
        peak_b=median(y.peak for _, y in runs),
    )


def verdict(value: float, target: float) -> str:
    return "met" if value <= target else "**missed**"


def row(case: str, baseline: str, result: Pairing, target: float) -> str:
    return (
        f"| {case} | {baseline} | {result.wall_a:.3f} | {result.wall_b:.3f} "
        f"| {result.ratio:.2f}x | {target}x | {verdict(result.ratio, target)} |"
    )


def command_line() -> list[str]:
    """The ``ir-bright`` console script beside this interpreter, else ``python -m ir_bright``."""
    script = Path(sys.executable).with_name("ir-bright")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ir_bright"]


def pony_mirror(folder: Path) -> tuple[object, str]:
    """A loopback hub serving a generated pony of its real size; returns (server, URL)."""
    from benchmarks.corpus import write_domain
    from ir_bright.families import family
    from tests.fixtures import hubserver

    counts = family("bright").domains["pony"].counts
    write_domain(folder / "hub", "pony", counts["docs"], counts["queries"], words=100)
    state, server = hubserver.start(folder / "hub")
    return server, state.url


def main() -> int:
    """Compile, set up the mirror, time the cases; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=21, help="timed pairs per case")
    args = parser.parse_args()
    compileall.compile_dir(str(ROOT / "ir_bright"), quiet=1)
    from ir_bright.cli import SUBCOMMANDS

    folder = Path(tempfile.mkdtemp(prefix="bench_startup_"))
    server, url = pony_mirror(folder)
    env = {**os.environ, "IR_DATASETS_HOME": str(folder / "home"), "HF_ENDPOINT": url}
    env["IR_BRIGHT_VERIFY"] = "0"  # the generated files are not the pinned ones
    tool = command_line()
    bm25 = [*tool, "-q", "bm25", "bright/pony", "-o", str(folder / "pony.trec")]
    try:
        run_timed(bm25, env)  # downloads and indexes: the timed runs are warm
        imports = paired([sys.executable, "-c", REGISTERED], STOCK, env, args.pairs)
        alone = paired([sys.executable, "-c", "import ir_bright"], BARE, env, args.pairs)
        helps = {
            name: paired([*tool, *name.split()], BARE, env, args.pairs)
            for name in ["--help", *(f"{sub} --help" for sub in SUBCOMMANDS)]
        }
        warm = paired(bm25, STOCK, env, args.pairs, pin=False)
    finally:
        server.shutdown()  # type: ignore[attr-defined]
    print(f"Medians of {args.pairs} alternating pairs of whole processes; wall seconds.\n")
    print("| case (A) | baseline (B) | A (s) | B (s) | A/B | target | |")
    print("|---|---|---:|---:|---:|---:|---|")
    print(row(f"`{REGISTERED}`", "`import ir_datasets, ir_measures`", imports, 1.1))
    print(row("`import ir_bright`", "`import ir_datasets`", alone, 0.5))
    print(row("`ir-bright --help`", "`import ir_datasets`", helps["--help"], 0.5))
    slowest = max((n for n in helps if n != "--help"), key=lambda n: helps[n].ratio)
    print(
        row(
            f"`ir-bright {slowest}` (slowest of {len(helps) - 1})",
            "`import ir_datasets`",
            helps[slowest],
            0.5,
        )
    )
    print(row("warm `ir-bright bm25 bright/pony`", "`import ir_datasets, ir_measures`", warm, 2))
    added = imports.peak_a - imports.peak_b
    print(
        f"\nMemory: `{REGISTERED}` peaks at {imports.peak_a:.1f} MiB, the stock imports at "
        f"{imports.peak_b:.1f} MiB: {added:+.1f} MiB (target at most +12: {verdict(added, 12)})."
    )
    return 0


if __name__ == "__main__":
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "startup")
