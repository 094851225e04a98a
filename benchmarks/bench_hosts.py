"""Registration when a host is imported (``when_imported.py``, with ``lazy.py``'s fork guard)
vs importing the hosts eagerly in ``import ir_bright``.

``import ir_bright`` registers the package's datasets with ir_datasets and its measures with
ir_measures (the hosts). Today it imports neither: the registration runs when the first of
them is imported, and the heavy libraries (pyarrow, NumPy) are imported on first use, with a
guard that holds a fork back while another thread imports. The simple alternative imports the
hosts (and those libraries) in ``import ir_bright`` and registers at once: no import watch, no
deferred imports, no fork guard. Each case times the two as whole processes in turn (A B A B
...), ``--pairs`` times after one warm-up pair, on one core: the median of the pair-by-pair
wall-time ratios, and each side's median peak memory. The eager side is what ``import
ir_bright`` would cost if it began with ``import ir_datasets, ir_measures`` (and ``import
pyarrow, numpy``): those imports, then the package's, which registers at once.

    python benchmarks/bench_hosts.py [--pairs 15]
"""

from __future__ import annotations

import argparse
import compileall
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_startup import command_line, paired  # noqa: E402 - after the path

HOSTS = "import ir_datasets, ir_measures"
"""What ``import ir_bright`` would import first with its hosts imported eagerly."""
EVERYTHING = f"{HOSTS}, pyarrow, numpy"
"""... and with no deferred import at all (no fork guard needed)."""
HELP = "import sys; from ir_bright.cli import main; sys.exit(main(['--help']))"


def python(code: str) -> list[str]:
    """``python -c code``."""
    return [sys.executable, "-c", code]


def code_lines() -> dict[str, int]:
    """The lines the lazy way takes: the import watch, the deferred imports and fork guard."""
    return {
        name: sum(1 for _ in (ROOT / "ir_bright" / name).open())
        for name in ("when_imported.py", "lazy.py")
    }


def main() -> int:
    """Time each case both ways; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=15, help="timed pairs per case")
    args = parser.parse_args()
    compileall.compile_dir(str(ROOT / "ir_bright"), quiet=1)
    env = {**os.environ, "IR_BRIGHT_VERIFY": "0"}
    tool = command_line()
    cases = {
        "`import ir_bright` (a process that uses neither host)": (
            python("import ir_bright"),
            "import ir_bright",
        ),
        "`ir-bright --help`": ([*tool, "--help"], HELP),
        "`import ir_bright, ir_datasets, ir_measures` (a user of both hosts)": (
            python("import ir_bright, ir_datasets, ir_measures"),
            "import ir_bright",
        ),
    }
    print(
        f"Medians of {args.pairs} alternating pairs of whole processes on one core; wall "
        f"seconds, peak memory in MiB. Hosts eager: `{HOSTS}` first, then the same; "
        f"everything eager: `{EVERYTHING}` first.\n"
    )
    print(
        "| case | as now (s) | hosts eager (s) | now / hosts eager | everything eager (s) "
        "| now / everything eager | MiB: now, hosts eager, everything eager |"
    )
    print("|---|---:|---:|---:|---:|---:|---|")
    for case, (lazy, then) in cases.items():
        hosts = paired(lazy, python(f"{HOSTS}; {then}"), env, args.pairs)
        everything = paired(lazy, python(f"{EVERYTHING}; {then}"), env, args.pairs)
        print(
            f"| {case} | {hosts.wall_a:.3f} | {hosts.wall_b:.3f} | {hosts.ratio:.2f}x "
            f"| {everything.wall_b:.3f} | {everything.ratio:.2f}x "
            f"| {hosts.peak_a:.0f}, {hosts.peak_b:.0f}, {everything.peak_b:.0f} |"
        )
    lines = code_lines()
    print(
        "\nThe lazy way's own code: "
        + ", ".join(f"`{name}` {count} lines" for name, count in lines.items())
        + f" ({sum(lines.values())} in all)."
    )
    return 0


if __name__ == "__main__":
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "hosts")
