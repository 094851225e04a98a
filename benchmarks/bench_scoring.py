"""Official(nDCG@10) against stock ir_measures nDCG@10 on the same inputs, side by side.

The shape of BRIGHT's worst domains (aops, theoremqa-questions): 200 queries, 1,000 ranked
docs each, 5,000 excluded ids per query given as qrels of -100, a few relevant docs, and the
query's own excluded problems ranked first. Each measure is timed one-shot
(``ir_measures.calc_aggregate``: qrels read every time) and through an ``evaluator`` built once
and reused; raw pytrec_eval on the pre-filtered run is the floor. The run is given as a list of
ScoredDoc (what ``read_trec_run`` yields) and as a DataFrame (what PyTerrier passes).
Prints medians of ``--repeats`` timings as a markdown table (GC paused while timing, as
``timeit`` does; the timed calls alternate so machine load hits them alike).

    python benchmarks/bench_scoring.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from collections.abc import Callable

import ir_measures
import pandas as pd
import pytrec_eval
from ir_measures import Qrel, ScoredDoc, nDCG

from ir_bright.measures import Official

TARGET = 1.5  # Official may take at most this many times stock's time


def make_inputs(queries: int, depth: int, excluded: int, relevant: int, seed: int = 0):
    """``(qrels, run)``: lists of Qrel and ScoredDoc of the benchmark's shape."""
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(queries):
        query_id = f"q{q}"
        pool = [f"doc/{q}/{i}.txt" for i in range(relevant + excluded + 2 * depth)]
        gold, gone, rest = pool[:relevant], pool[relevant : relevant + excluded], pool[-2 * depth :]
        qrels += [Qrel(query_id, d, 1) for d in gold] + [Qrel(query_id, d, -100) for d in gone]
        ranked = gone[:10] + rng.sample(rest, depth - 10)  # own problems ranked first
        for doc_id in gold:
            ranked.insert(rng.randrange(10, 100), doc_id)
        ranked = ranked[:depth]
        run += [ScoredDoc(query_id, d, float(depth - i)) for i, d in enumerate(ranked)]
    return qrels, run


def median_seconds(*works: Callable[[], object], repeats: int) -> list[float]:
    """Median wall time of each of ``works`` over ``repeats`` rounds.

    The works alternate within a round, so a busy machine slows them alike; as in ``timeit``,
    the garbage collector runs before each call and is paused during it.
    """
    times: list[list[float]] = [[] for _ in works]
    for _ in range(repeats):
        for work, spent in zip(works, times):
            gc.collect()
            gc.disable()
            start = time.perf_counter()
            try:
                work()
            finally:
                spent.append(time.perf_counter() - start)
                gc.enable()
    return [statistics.median(spent) for spent in times]


def floor_inputs(qrels, run):
    """Positive qrels and the run with excluded docs removed, as pytrec_eval dicts."""
    judged, gone = {}, set()
    for qrel in qrels:
        if qrel.relevance < 0:
            gone.add((qrel.query_id, qrel.doc_id))
        else:
            judged.setdefault(qrel.query_id, {})[qrel.doc_id] = qrel.relevance
    clean = {}
    for doc in run:
        if (doc.query_id, doc.doc_id) not in gone:
            clean.setdefault(doc.query_id, {})[doc.doc_id] = doc.score
    return judged, clean


def time_floor(qrels, run, repeats: int) -> dict[str, float]:
    """Raw pytrec_eval on the pre-filtered run: evaluator built each time, or once."""
    judged, clean = floor_inputs(qrels, run)
    built = pytrec_eval.RelevanceEvaluator(judged, {"ndcg_cut_10"})
    one_shot, reused = median_seconds(
        lambda: pytrec_eval.RelevanceEvaluator(judged, {"ndcg_cut_10"}).evaluate(clean),
        lambda: built.evaluate(clean),
        repeats=repeats,
    )
    return {"one-shot": one_shot, "reused": reused}


def time_measures(measures, qrels, run, repeats: int) -> list[dict[str, float]]:
    """Each measure through calc_aggregate (one-shot) and through a reused evaluator."""
    one_shot = median_seconds(
        *[lambda m=m: ir_measures.calc_aggregate([m], qrels, run) for m in measures],
        repeats=repeats,
    )
    evaluators = [ir_measures.evaluator([m], qrels) for m in measures]
    reused = median_seconds(
        *[lambda e=e: e.calc_aggregate(run) for e in evaluators], repeats=repeats
    )
    return [{"one-shot": o, "reused": r} for o, r in zip(one_shot, reused)]


def check_official_equals_floor(qrels, run) -> float:
    """Official(nDCG@10) must equal pytrec_eval on the pre-filtered run (to 1e-12)."""
    judged, clean = floor_inputs(qrels, run)
    per_query = pytrec_eval.RelevanceEvaluator(judged, {"ndcg_cut_10"}).evaluate(clean)
    floor = sum(v["ndcg_cut_10"] for v in per_query.values()) / len(judged)
    official = ir_measures.calc_aggregate([Official(nDCG @ 10)], qrels, run)[Official(nDCG @ 10)]
    assert abs(official - floor) < 1e-12, (official, floor)
    return official


def main() -> None:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--excluded", type=int, default=5000)
    parser.add_argument("--relevant", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    qrels, run = make_inputs(args.queries, args.depth, args.excluded, args.relevant)
    value = check_official_equals_floor(qrels, run)
    stock_value = ir_measures.calc_aggregate([nDCG @ 10], qrels, run)[nDCG @ 10]
    floor = time_floor(qrels, run, args.repeats)
    frame = pd.DataFrame(run)
    print(
        f"{args.queries} queries x {args.depth} docs, {args.excluded} excluded ids per query; "
        f"median of {args.repeats}; Official(nDCG@10) = {value:.4f}, stock = {stock_value:.4f}\n"
    )
    print(
        "| run given as | mode | pytrec_eval floor | stock nDCG@10 | Official(nDCG@10) "
        "| Official / stock | Official / floor |"
    )
    print("|---|---|---:|---:|---:|---:|---:|")
    failed = []
    for label, given in [("list of ScoredDoc", run), ("DataFrame", frame)]:
        stock, official = time_measures(
            [nDCG @ 10, Official(nDCG @ 10)], qrels, given, args.repeats
        )
        for mode in ("one-shot", "reused"):
            ratio = official[mode] / stock[mode]
            if ratio > TARGET:
                failed.append(f"{label} {mode}")
            print(
                f"| {label} | {mode} | {floor[mode]:.3f} s | {stock[mode]:.3f} s "
                f"| {official[mode]:.3f} s | {ratio:.2f}x | {official[mode] / floor[mode]:.1f}x |"
            )
    verdict = f"missed in: {', '.join(failed)}" if failed else "met everywhere"
    print(f"\ntarget Official <= {TARGET}x stock: {verdict}")


if __name__ == "__main__":
    main()
