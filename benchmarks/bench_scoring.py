"""Official scoring against stock ir_measures on every input format, and the command line
against ``python -m ir_measures``, side by side from one run.

Two shapes:

- ``exclusions``: BRIGHT's worst domains (aops, theoremqa-questions): 200 queries x 1,000 ranked
  docs, 5,000 excluded ids per query (qrels of -100), 200 of them ranked, each query's own
  problems first; nDCG@10.
- ``leaderboard``: 1,000 queries x 1,000 docs, 200 excluded ids per query (20 of them ranked);
  nDCG@10, R@100, RR and AP at once.

For each input format ir_measures accepts (dict of dicts, list and generator of Qrel /
ScoredDoc, other namedtuples with those fields, DataFrames, DataFrames with integer query ids,
the iterator of ``ir_measures.read_trec_run``), each mode is timed:

- one-shot: ``ir_measures.calc_aggregate`` (qrels read every call), stock measures against
  ``Official(...)``; and ``ir_bright.evaluate(run, dataset)`` against stock
  ``calc_aggregate(measures, dataset.qrels_iter(), run)``;
- reused: an ``ir_measures.evaluator`` built once (stock against Official), and a
  ``Scorer(dataset)`` built once against a stock evaluator of the dataset's qrels.

Qrels are given in the row's format too (a DataFrame of integer query ids: qrels of text ids,
as datasets give them; stock pytrec_eval cannot take integer ids, so that row's stock figure
is given the same frame with text ids). The floor is raw pytrec_eval on the pre-filtered run.
The command line section times ``ir-bright evaluate DATASET RUN`` against
``python -m ir_measures QRELS RUN MEASURES`` on a 1,000,000-line run (plain and gzip) of the
leaderboard shape (after one untimed evaluate: the first use of a cached file checks its schema
once), wall time and peak memory of each process, and checks the official values;
then ``ir-bright evaluate`` on a 10,000,000-line run (the same run, each query padded with nine
times as many documents scored below its own): official runs are streamed, so its peak memory
must not exceed the 1,000,000-line run's, and its value is the same.

Medians of ``--repeats`` (GC paused while timing, as ``timeit`` does; the timed calls
alternate, so machine load hits them alike).

    python benchmarks/bench_scoring.py [--repeats 3] [--shapes exclusions leaderboard] [--no-cli]
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import namedtuple
from collections.abc import Callable
from itertools import groupby
from operator import attrgetter
from pathlib import Path

import ir_measures
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytrec_eval
from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import TrecQrel
from ir_measures import AP, RR, Qrel, R, ScoredDoc, nDCG
from processes import run_timed  # benchmarks/, the script's folder

from ir_bright.measures import Official
from ir_bright.scoring import Scorer, evaluate

TARGET = 1.1  # Official(...) may take at most this many times stock's time
EVALUATE_TARGET = 1.15  # ir_bright.evaluate, against stock on the dataset's qrels
CLI_TIME_TARGET = 0.7  # ir-bright evaluate, against python -m ir_measures: wall time
CLI_MEMORY_TARGET = 1.0  # and peak memory (also: a run ten times as long, against this one)
LONG_FACTOR = 10  # the long run: 10,000,000 lines
RunRow = namedtuple("RunRow", "rank doc_id query_id score")  # "another namedtuple"
TREC_NAMES = {"nDCG@10": "ndcg_cut_10", "R@100": "recall_100", "RR": "recip_rank", "AP": "map"}
SHAPES = {
    "exclusions": dict(queries=200, depth=1000, excluded=5000, ranked_excluded=200, relevant=5),
    "leaderboard": dict(queries=1000, depth=1000, excluded=200, ranked_excluded=20, relevant=5),
}
SHAPE_MEASURES = {"exclusions": [nDCG @ 10], "leaderboard": [nDCG @ 10, R @ 100, RR, AP]}


def make_inputs(queries, depth, excluded, ranked_excluded, relevant, seed=0):
    """``(qrels, run)``: lists of Qrel and ScoredDoc of one shape."""
    rng = random.Random(seed)
    qrels, run = [], []
    for q in range(queries):
        query_id = str(q)  # numbers, as BRIGHT's ids (and integers in a DataFrame)
        pool = [f"doc/{q}/{i}.txt" for i in range(relevant + excluded + 2 * depth)]
        gold, gone, rest = pool[:relevant], pool[relevant : relevant + excluded], pool[-2 * depth :]
        qrels += [Qrel(query_id, d, 1) for d in gold] + [Qrel(query_id, d, -100) for d in gone]
        tail = rng.sample(rest, depth - ranked_excluded) + gone[10:ranked_excluded]
        rng.shuffle(tail)
        ranked = gone[:10] + tail  # own problems first, other excluded docs anywhere
        for doc_id in gold:
            ranked.insert(rng.randrange(10, 100), doc_id)
        ranked = ranked[:depth]
        run += [ScoredDoc(query_id, d, float(depth - i)) for i, d in enumerate(ranked)]
    return qrels, run


def median_seconds(*works: Callable[[], object], repeats: int) -> list[float]:
    """Median wall time of each of ``works`` over ``repeats`` rounds (alternating, GC off)."""
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


def dict_of_dicts(rows, value):
    result = {}
    for row in rows:
        result.setdefault(row.query_id, {})[row.doc_id] = getattr(row, value)
    return result


def tiny_dataset(qrels):
    """An ir_datasets Dataset whose qrels_iter() yields these qrels as TrecQrel."""

    class Qrels:
        def qrels_iter(self):
            return (TrecQrel(q.query_id, q.doc_id, q.relevance, "0") for q in qrels)

        def qrels_cls(self):
            return TrecQrel

        def qrels_defs(self):
            return {1: "relevant", -100: "excluded"}

        def qrels_handler(self):
            return self

    return Dataset(Qrels())


def formats(qrels, run, folder: Path):
    """``{label: (make_qrels, make_run)}``: fresh inputs per call (generators read once)."""
    qrels_dict, run_dict = dict_of_dicts(qrels, "relevance"), dict_of_dicts(run, "score")
    trec_qrels = [TrecQrel(q.query_id, q.doc_id, q.relevance, "0") for q in qrels]
    rows = [RunRow(i, r.doc_id, r.query_id, r.score) for i, r in enumerate(run)]
    qrels_frame, run_frame = pd.DataFrame(qrels), pd.DataFrame(run)
    int_frame = run_frame.assign(query_id=run_frame.query_id.astype("int64"))
    qrels_path, run_path = folder / "qrels.txt", folder / "run.txt"
    qrels_path.write_text("".join(f"{q.query_id} 0 {q.doc_id} {q.relevance}\n" for q in qrels))
    write_run(run_path, run)
    return {
        "dict of dicts": (lambda: qrels_dict, lambda: run_dict),
        "list of Qrel/ScoredDoc": (lambda: qrels, lambda: run),
        "generator of Qrel/ScoredDoc": (lambda: iter(qrels), lambda: iter(run)),
        "other namedtuples": (lambda: trec_qrels, lambda: rows),
        "DataFrame": (lambda: qrels_frame, lambda: run_frame),
        "DataFrame, int query ids": (lambda: qrels_frame, lambda: int_frame),
        "read_trec_run": (
            lambda: ir_measures.read_trec_qrels(str(qrels_path)),
            lambda: ir_measures.read_trec_run(str(run_path)),
        ),
    }


def write_run(path: Path, run, compress=False) -> Path:
    opener = gzip.open if compress else open
    with opener(path, "wt") as out:
        rank = 0
        for i, r in enumerate(run):
            rank = 0 if i == 0 or run[i - 1].query_id != r.query_id else rank + 1
            out.write(f"{r.query_id} Q0 {r.doc_id} {rank} {r.score} bench\n")
    return path


def floor(qrels, run, measures, repeats):
    """Raw pytrec_eval on the pre-filtered run: ``(one-shot, reused)`` seconds."""
    judged, gone = {}, set()
    for q in qrels:
        if q.relevance < 0:
            gone.add((q.query_id, q.doc_id))
        else:
            judged.setdefault(q.query_id, {})[q.doc_id] = q.relevance
    clean = dict_of_dicts([r for r in run if (r.query_id, r.doc_id) not in gone], "score")
    names = {TREC_NAMES[str(m)] for m in measures}
    built = pytrec_eval.RelevanceEvaluator(judged, names)
    return median_seconds(
        lambda: pytrec_eval.RelevanceEvaluator(judged, names).evaluate(clean),
        lambda: built.evaluate(clean),
        repeats=repeats,
    )


def time_format(measures, make_qrels, make_run, stock_run, dataset, repeats):
    """``{mode: (stock, Official, stock on dataset qrels, ir_bright)}`` seconds, and values."""
    official = [Official(m) for m in measures]
    names = [str(m) for m in measures]
    values = {
        "stock": ir_measures.calc_aggregate(measures, make_qrels(), stock_run()),
        "Official": ir_measures.calc_aggregate(official, make_qrels(), make_run()),
        "evaluate": evaluate(make_run(), dataset, names),
    }
    one_shot = median_seconds(
        lambda: ir_measures.calc_aggregate(measures, make_qrels(), stock_run()),
        lambda: ir_measures.calc_aggregate(official, make_qrels(), make_run()),
        lambda: ir_measures.calc_aggregate(measures, dataset.qrels_iter(), stock_run()),
        lambda: evaluate(make_run(), dataset, names),
        repeats=repeats,
    )
    stock, ours = (
        ir_measures.evaluator(measures, make_qrels()),
        ir_measures.evaluator(official, make_qrels()),
    )
    stock_dataset, scorer = (
        ir_measures.evaluator(measures, dataset.qrels_iter()),
        Scorer(dataset, names),
    )
    reused = median_seconds(
        lambda: stock.calc_aggregate(stock_run()),
        lambda: ours.calc_aggregate(make_run()),
        lambda: stock_dataset.calc_aggregate(stock_run()),
        lambda: scorer.evaluate(make_run()),
        repeats=repeats,
    )
    return {"one-shot": one_shot, "reused": reused}, values


def bench_shape(shape: str, repeats: int, folder: Path) -> list[str]:
    """Print one shape's table; return the rows that missed the target."""
    spec = SHAPES[shape]
    measures = SHAPE_MEASURES[shape]
    qrels, run = make_inputs(**spec)
    dataset = tiny_dataset(qrels)
    floors = dict(zip(("one-shot", "reused"), floor(qrels, run, measures, repeats)))
    made = formats(qrels, run, folder)
    str_frame = made["DataFrame"][1]
    print(
        f"\n### {shape}: {spec['queries']} queries x {spec['depth']} docs, {spec['excluded']} "
        f"excluded ids per query ({spec['ranked_excluded']} ranked); "
        f"{', '.join(map(str, measures))}; median of {repeats}\n"
    )
    print(
        "| input | mode | pytrec_eval floor | stock | Official | Official / stock "
        "| stock, dataset qrels | ir_bright.evaluate | evaluate / stock |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    missed, reference = [], None
    for label, (make_qrels, make_run) in made.items():
        stock_run = str_frame if label.startswith("DataFrame, int") else make_run
        timings, values = time_format(measures, make_qrels, make_run, stock_run, dataset, repeats)
        got = [values["Official"][Official(m)] for m in measures]
        got += [values["evaluate"][str(m)] for m in measures]
        reference = reference or got[: len(measures)]
        assert all(abs(a - b) < 1e-12 for a, b in zip(got, reference * 2)), (label, got)
        for mode, (stock, ours, stock_ds, ours_ds) in timings.items():
            ratios = ours / stock, ours_ds / stock_ds
            if ratios[0] > TARGET or ratios[1] > EVALUATE_TARGET:
                missed.append(f"{shape} {label} {mode}")
            print(
                f"| {label} | {mode} | {floors[mode]:.3f} s | {stock:.3f} s | {ours:.3f} s "
                f"| {ratios[0]:.2f}x | {stock_ds:.3f} s | {ours_ds:.3f} s | {ratios[1]:.2f}x |"
            )
    stock_values = values["stock"]
    print(
        "\nvalues: "
        + ", ".join(
            f"Official({m}) = {v:.4f} (stock {stock_values[m]:.4f})"
            for m, v in zip(measures, reference)
        )
    )
    return missed


# -- the command line -------------------------------------------------------------------------

CLI_DATASET = ("bright/aops", "examples/aops-00000-of-00001.parquet")


def write_examples(home: Path, qrels) -> None:
    """The qrels as BRIGHT's ``examples`` parquet, cached under ``home`` as the hub's copy."""
    dataset, path = CLI_DATASET
    code = (
        "import ir_datasets; from ir_bright.inventory import hub_files; "
        f"files = hub_files(ir_datasets.load({dataset!r})); "
        f"print(next(f.local_path for f in files if f.path == {path!r}))"
    )
    env = {**os.environ, "IR_DATASETS_HOME": str(home)}
    target = Path(subprocess.check_output([sys.executable, "-c", code], env=env, text=True).strip())
    target.parent.mkdir(parents=True, exist_ok=True)
    gold, gone = {}, {}
    for q in qrels:
        (gold if q.relevance > 0 else gone).setdefault(q.query_id, []).append(q.doc_id)
    ids = list(gold)
    table = pa.table(
        {
            "query": ["q"] * len(ids),
            "reasoning": ["N/A"] * len(ids),
            "id": ids,
            "excluded_ids": [gone.get(i, ["N/A"]) for i in ids],
            "gold_ids_long": [["N/A"]] * len(ids),
            "gold_ids": [gold[i] for i in ids],
            "gold_answer": ["N/A"] * len(ids),
        }
    )
    pq.write_table(table, target)


def bench_cli(repeats: int, folder: Path, long_factor: int = LONG_FACTOR) -> list[str]:
    """Print the command-line table; return what missed (slower or more memory)."""
    spec = SHAPES["leaderboard"]
    qrels, run = make_inputs(**spec)
    home = folder / "home"
    write_examples(home, qrels)
    qrels_path = folder / "qrels.txt"
    qrels_path.write_text("".join(f"{q.query_id} 0 {q.doc_id} {q.relevance}\n" for q in qrels))
    env = {**os.environ, "IR_DATASETS_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    reference = ir_measures.calc_aggregate([Official(nDCG @ 10)], qrels, run)
    warm_up = write_run(folder / "warm-up.txt", run[:1000])
    # the first use of a cached file checks its schema once and records it: a run not timed
    run_timed([sys.executable, "-m", "ir_bright", "evaluate", CLI_DATASET[0], str(warm_up)], env)
    print(
        f"\n### command line: {len(run):,}-line run, {spec['queries']} queries, "
        f"{spec['excluded']} excluded ids per query; nDCG@10; median of {repeats}\n"
    )
    print(
        "| run file | `python -m ir_measures` | peak memory | `ir-bright evaluate` "
        "| peak memory | time ratio | memory ratio |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    missed = []
    for label, compress in [("plain", False), ("gzip", True)]:
        path = write_run(folder / ("run.txt.gz" if compress else "run.txt"), run, compress)
        stock_cmd = [sys.executable, "-m", "ir_measures", str(qrels_path), str(path), "nDCG@10"]
        ours_cmd = [sys.executable, "-m", "ir_bright", "evaluate", CLI_DATASET[0], str(path)]
        ours_cmd += ["-m", "nDCG@10", "--format", "json"]
        stock_times, ours_times, stock_peak, ours_peak = [], [], 0, 0
        for _ in range(repeats):
            stock = run_timed(stock_cmd, env)
            stock_times.append(stock.wall)
            stock_peak = max(stock_peak, stock.peak)
            ours = run_timed(ours_cmd, env)
            ours_times.append(ours.wall)
            ours_peak = max(ours_peak, ours.peak)
            value = json.loads(ours.stdout)[str(path)]["nDCG@10"]
            assert abs(value - reference[Official(nDCG @ 10)]) < 1e-12, value
        stock_s, ours_s = statistics.median(stock_times), statistics.median(ours_times)
        if ours_s > CLI_TIME_TARGET * stock_s or ours_peak > CLI_MEMORY_TARGET * stock_peak:
            missed.append(f"command line {label}")
        print(
            f"| {label} | {stock_s:.2f} s | {stock_peak:.0f} MiB | {ours_s:.2f} s "
            f"| {ours_peak:.0f} MiB | {ours_s / stock_s:.2f}x "
            f"| {ours_peak / stock_peak:.2f}x |"
        )
    print(f"\nOfficial(nDCG@10) = {reference[Official(nDCG @ 10)]:.4f} from both runs")
    expected = reference[Official(nDCG @ 10)]
    return missed + bench_long_run(run, folder, env, expected, long_factor, repeats)


def write_long_run(path: Path, run, factor: int) -> int:
    """The run with ``factor - 1`` times as many lines again, each query's new documents
    (judged nowhere) scored below all of its own, so the official value is the run's.
    Written query by query; returns the number of lines."""
    lines = 0
    with open(path, "w") as out:
        for query_id, group in groupby(run, key=attrgetter("query_id")):
            ranked = list(group)
            low = min(r.score for r in ranked)
            padding = len(ranked) * (factor - 1)
            out.writelines(
                f"{query_id} Q0 {r.doc_id} {rank} {r.score} bench\n"
                for rank, r in enumerate(ranked)
            )
            out.writelines(
                f"{query_id} Q0 pad/{query_id}/{i} {len(ranked) + i} {low - 1 - i} bench\n"
                for i in range(padding)
            )
            lines += len(ranked) + padding
    return lines


def bench_long_run(
    run, folder: Path, env: dict, expected: float, factor: int, repeats: int
) -> list[str]:
    """``ir-bright evaluate`` on a run ten times as long (official runs are streamed: memory
    for the queries times the depth kept, whatever the length): its peak memory against the
    1,000,000-line run's (medians of ``repeats`` alternating runs), and the same value."""
    short_path, long_path = write_run(folder / "run.txt", run), folder / "run-long.txt"
    lines = write_long_run(long_path, run, factor)
    measured: dict[Path, list[float]] = {short_path: [], long_path: []}
    value = None
    for _ in range(repeats):
        for path, peaks in measured.items():
            command = [sys.executable, "-m", "ir_bright", "evaluate", CLI_DATASET[0], str(path)]
            done = run_timed([*command, "-m", "nDCG@10", "--format", "json"], env)
            peaks.append(done.peak)
            value = json.loads(done.stdout)[str(path)]["nDCG@10"]
            assert abs(value - expected) < 1e-12, (path, value)
    peaks = {path: statistics.median(found) for path, found in measured.items()}
    ratio = peaks[long_path] / peaks[short_path]
    low, high = min(measured[short_path]), max(measured[short_path])
    verdict = (
        "no larger: within the spread of the shorter run's own peaks"
        if peaks[long_path] <= high
        else f"larger by {peaks[long_path] - high:.0f} MiB than the shorter run's largest peak"
    )
    print(
        f"\n{lines:,}-line run (each query's lines, then {factor - 1} times as many scored "
        f"below them): `ir-bright evaluate` peak memory {peaks[long_path]:.0f} MiB (median of "
        f"{repeats}), {ratio:.2f}x the {len(run):,}-line run's {peaks[short_path]:.0f} MiB "
        f"({low:.0f}-{high:.0f} MiB over its {repeats} runs): {verdict}; "
        f"Official(nDCG@10) = {value:.4f}, the same"
    )
    return [] if peaks[long_path] <= high else ["command line, long run's memory"]


def main() -> None:
    """Run the benchmark and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--shapes", nargs="*", default=list(SHAPES), choices=list(SHAPES))
    parser.add_argument("--no-cli", action="store_true", help="skip the command-line section")
    parser.add_argument(
        "--long-factor",
        type=int,
        default=LONG_FACTOR,
        help=f"how many times longer the streamed run is (default {LONG_FACTOR})",
    )
    args = parser.parse_args()
    missed = []
    with tempfile.TemporaryDirectory() as tmp:
        for shape in args.shapes:
            missed += bench_shape(shape, args.repeats, Path(tmp))
        if not args.no_cli:
            missed += bench_cli(args.repeats, Path(tmp), args.long_factor)
    verdict = f"missed in: {'; '.join(missed)}" if missed else "met everywhere"
    print(
        f"\ntarget (Official <= {TARGET}x stock, evaluate <= {EVALUATE_TARGET}x; command line "
        f"<= {CLI_TIME_TARGET}x ir_measures' time, <= {CLI_MEMORY_TARGET}x its memory): {verdict}"
    )


if __name__ == "__main__":
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "scoring")
