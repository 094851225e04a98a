"""Statistics and fusion: ir_bright's own vs ``scipy.stats`` and ranx, value for value.

- Statistics: 1,000 pairs of per-query scores of BRIGHT's shape (100 queries, nDCG-like values
  with zeros and ties), tested by ir_bright (``results.stats.paired_tests``), by the scipy
  calls it documents, and by ranx's paired t-test; the largest difference of the p-values, the
  time, and what each does with two systems that score every query alike.
- Fusion: three runs fused by RRF with ir_bright's ``fuse`` and ``ranx.fuse``, both scored with
  ``Official(nDCG@10)`` (excluded documents dropped, then the cut to 1,000): runs with distinct
  scores, and runs with ties (scores of one decimal, as BM25 gives short queries); then runs
  whose query sets differ.
- Import and first-call time in a fresh interpreter, and what each library adds to an install.

    python benchmarks/bench_ranx.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
PAIRS = 1000
QUERIES = 100


def score_pairs(seed: int = 0) -> list[tuple[list[float], list[float]]]:
    """Pairs (system, baseline) of per-query scores: a third zeros, values on a 0.01 grid."""
    rng = random.Random(seed)
    pairs = []
    for _ in range(PAIRS):
        base = [0.0 if rng.random() < 0.3 else round(rng.random(), 2) for _ in range(QUERIES)]
        shift = rng.uniform(-0.05, 0.05)
        system = [min(1.0, max(0.0, round(b + shift + rng.gauss(0, 0.1), 2))) for b in base]
        pairs.append((system, base))
    return pairs


def worst(a: list[float], b: list[float]) -> str:
    """The largest difference of two lists of p-values, for the table."""
    return f"{max(abs(x - y) for x, y in zip(a, b)):.1e}"


def statistics_table() -> None:
    from ranx.statistical_tests import paired_student_t_test
    from scipy import stats

    from ir_bright.results.stats import paired_tests

    pairs = score_pairs()
    start = time.perf_counter()
    ours = [paired_tests(s, b) for s, b in pairs]
    ours_s = time.perf_counter() - start
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        start = time.perf_counter()
        scipy_t = [stats.ttest_rel(s, b).pvalue for s, b in pairs]
        scipy_w = [
            stats.wilcoxon(s, b, zero_method="wilcox", correction=False, method="auto").pvalue
            for s, b in pairs
        ]
        scipy_s = time.perf_counter() - start
        start = time.perf_counter()
        ranx_t = [paired_student_t_test(b, s)[0] for s, b in pairs]
        ranx_s = time.perf_counter() - start
        same = [0.1, 0.5, 0.0] * 30
        equal = {
            "ir_bright": paired_tests(same, same),
            "scipy": (stats.ttest_rel(same, same).pvalue, stats.wilcoxon(same, same).pvalue),
            "ranx": (paired_student_t_test(same, same)[0], math.nan),
        }

    print(f"{PAIRS:,} pairs of {QUERIES} per-query scores.\n")
    print("| | ir_bright | scipy.stats | ranx |")
    print("|---|---|---|---|")
    print(
        f"| paired t-test: largest p-value difference from ir_bright's | 0 | "
        f"{worst([p for p, _ in ours], scipy_t)} | {worst([p for p, _ in ours], ranx_t)} |"
    )
    print(
        f"| Wilcoxon signed-rank: largest difference | 0 | "
        f"{worst([p for _, p in ours], scipy_w)} | no Wilcoxon test |"
    )
    print(
        f"| time for the {PAIRS:,} pairs (s) | {ours_s:.2f} (both tests) | {scipy_s:.2f} (both "
        f"tests) | {ranx_s:.2f} (t-test only) |"
    )
    shown = {name: f"t {t:.3g}, Wilcoxon {w:.3g}" for name, (t, w) in equal.items()}
    shown["ranx"] = shown["ranx"].replace("Wilcoxon nan", "no Wilcoxon")
    print(
        f"| two systems scoring every query alike | {shown['ir_bright']} | {shown['scipy']} | "
        f"{shown['ranx']} |"
    )
    print(
        "| multiple-comparison correction | Holm, Bonferroni (its own), Benjamini-Hochberg "
        "(scipy's) | Benjamini-Hochberg only | none (p <= max_p, uncorrected) |"
    )
    print(
        "| bootstrap interval of the macro-averaged difference | scipy's `bootstrap`, "
        "stratified by domain | `bootstrap` (one sample) | none |"
    )


def make_runs(queries: int, docs: int, decimals: int | None, seed: int = 1) -> list[dict]:
    """Three runs over a shared pool; scores rounded to ``decimals`` (ties) when given."""
    rng = random.Random(seed)
    pool = [f"doc{i}" for i in range(docs * 3)]
    runs = []
    for _ in range(3):
        run = {}
        for q in range(queries):
            scores = {d: rng.random() * 30 for d in rng.sample(pool, docs)}
            if decimals is not None:
                scores = {d: round(s, decimals) for d, s in scores.items()}
            run[f"q{q}"] = scores
        runs.append(run)
    return runs


def judgements(run: dict, seed: int = 2) -> dict:
    """Qrels drawn from ``run``'s 100 best documents a query: 10 relevant, 10 excluded (-100)."""
    rng = random.Random(seed)
    qrels = {}
    for query_id, scores in run.items():
        best = sorted(scores, key=scores.__getitem__, reverse=True)[:100]
        chosen = rng.sample(best, 20)
        qrels[query_id] = {**dict.fromkeys(chosen[:10], 1), **dict.fromkeys(chosen[10:], -100)}
    return qrels


def official(run: dict, qrels: dict) -> dict[str, float]:
    import ir_measures
    from ir_measures import nDCG

    from ir_bright import Official

    measure = Official(nDCG @ 10)
    return {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}


def fusion_table(queries: int, docs: int) -> None:
    import ranx

    from ir_bright.pipelines import fuse

    print(
        f"\n{queries} queries x {docs:,} documents x 3 runs, fused by RRF (k = 60); each fused "
        "run scored with Official(nDCG@10) against 10 relevant and 10 excluded documents a "
        "query, drawn from the first run's 100 best.\n"
    )
    print(
        "| runs | queries scored differently | largest difference | mean, ir_bright | mean, ranx |"
    )
    print("|---|---:|---:|---:|---:|")
    for label, decimals in (("distinct scores", None), ("scores of one decimal (ties)", 1)):
        runs = make_runs(queries, docs, decimals)
        qrels = judgements(runs[0])
        excluded = {q: {d for d, r in j.items() if r < 0} for q, j in qrels.items()}
        ours = official(fuse(runs, "rrf", excluded=excluded), qrels)
        fused = ranx.fuse([ranx.Run(r) for r in runs], method="rrf", params={"k": 60})
        theirs = official(fused.to_dict(), qrels)
        differ = [q for q in ours if abs(ours[q] - theirs[q]) > 1e-12]
        largest = max((abs(ours[q] - theirs[q]) for q in ours), default=0.0)
        print(
            f"| {label} | {len(differ)} of {len(ours)} | {largest:.4f} | "
            f"{statistics.mean(ours.values()):.4f} | {statistics.mean(theirs.values()):.4f} |"
        )
    runs = make_runs(queries, docs, None)
    del runs[1]["q0"]
    kept = len(fuse(runs, "rrf"))
    try:
        ranx.fuse([ranx.Run(r) for r in runs], method="rrf")
        said = "fused"
    except Exception as exc:  # noqa: BLE001 - what ranx does is the measurement
        said = f"{type(exc).__name__}: {str(exc).splitlines()[0][:60]}"
    print(
        f"\nA second run without one of the {queries} queries: ir_bright keeps the first run's "
        f"{kept} queries; ranx: {said}."
    )


def first_calls(repeats: int) -> None:
    import processes
    import weight

    cases = {
        "`import scipy.stats`": "import scipy.stats",
        "`import ranx`": "import ranx",
        "ranx's Fisher randomization test, one call": (
            "import numpy as np; from ranx.statistical_tests import fisher_randomization_test as f;"
            " f(np.random.rand(100), np.random.rand(100), 1000, 0.05, 42)"
        ),
    }
    print(f"\nFresh interpreters, medians of {repeats}:\n")
    print("| step | seconds | peak memory (MiB) |")
    print("|---|---:|---:|")
    for label, code in cases.items():
        runs = [processes.run_timed([sys.executable, "-c", code], env=None) for _ in range(repeats)]
        wall = statistics.median(r.wall for r in runs)
        peak = statistics.median(r.peak for r in runs)
        print(f"| {label} | {wall:.2f} | {peak:.0f} |")
    print(f"\nWhat ranx adds to an ir_bright install: {weight.added('ranx')}.")
    scipy = weight.added("scipy")
    print(
        "scipy adds "
        + (
            "nothing: ir_bright already has it (pytrec-eval-terrier requires it)."
            if not scipy.names
            else f"{scipy}."
        )
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--docs", type=int, default=1000)
    args = parser.parse_args()
    statistics_table()
    fusion_table(args.queries, args.docs)
    first_calls(args.repeats)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "ranx")
