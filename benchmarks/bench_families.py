"""R2MED and TEMPO beside BRIGHT: loading and scoring one R2MED task and one TEMPO domain
against a BRIGHT domain of comparable size, through the same code paths.

Generates each dataset at its real size (the counts of its family's declaration) with
``benchmarks/corpus.py``'s texts, in its hub's layout: BRIGHT biology (parquet, with its five
LLM reasoning configs, which its queries read), R2MED MedQA-Diag (JSON Lines, with the rows that
repeat an earlier document id) and TEMPO economics (parquet), served by the loopback hub of the
tests (``IR_BRIGHT_VERIFY=0``: the generated files are not the pinned ones). The generated
parquet files have row groups of 1,000 rows, as the ``datasets`` library writes the hub's files,
since the row groups decide how ir_bright reads a file (R2MED's corpus is rewritten by ir_bright
in its own row groups). Every generated query has gold documents and, where its benchmark
excludes documents, excluded ones; its text is half of its first gold document and half random
words, so that BM25 ranks real lists. Each phase is a whole process
(``benchmarks/processes.py``: wall time and peak resident memory), the three datasets in turn,
each repeat in fresh caches:

- ``ir-bright download``: the files, from loopback;
- the first ``docs_iter()`` (for R2MED, the corpus's rewrite into parquet);
- ``docs_store()``: its build, then 1,000 random lookups;
- ``queries_iter()`` and ``qrels_iter()``;
- ``ir-bright bm25 ID -o RUN``, cold (index build and retrieval, each benchmark's official depth
  and exclusions), then warm (the index cached: retrieval alone);
- ``ir-bright evaluate ID RUN`` (Official nDCG@10) against ``python -m ir_measures QRELS RUN
  nDCG@10`` on the dataset's qrels (as ``ir-bright export`` writes them);

and, in this process, ``ir_measures.calc_aggregate([Official(nDCG@10)], qrels, run)`` against
stock nDCG@10 (as ``bench_scoring.py`` times it). Prints the medians of ``--repeats`` and the
ratios R2MED/BRIGHT and TEMPO/BRIGHT of each phase. TEMPO's economics is its median domain by
size, within 1.7x of biology's documents and queries; ``--tempo-domain`` takes another (hsm has
3.7x biology's documents).

    python benchmarks/bench_families.py [--repeats 7] [--words 95] [--tempo-domain economics]
        [--row-group-rows 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import corpus  # noqa: E402 - after the path is set
from benchmarks.processes import Finished, run_timed  # noqa: E402

LOOKUPS = 1000
MEASURE = "nDCG@10"
IR_BRIGHT = [sys.executable, "-m", "ir_bright", "-q"]
PHASES = {
    "download": "`ir-bright download` (loopback)",
    "iter": "first `docs_iter()`",
    "store": f"`docs_store()` build + {LOOKUPS:,} lookups",
    "topics": "`queries_iter()` + `qrels_iter()`",
    "bm25 cold": "`ir-bright bm25`: index build + retrieval",
    "bm25 warm": "`ir-bright bm25`: index cached",
    "evaluate": "`ir-bright evaluate` (Official)",
    "ir_measures": "`python -m ir_measures`",
}
IN_PROCESS = {
    "official": f"in process: `Official({MEASURE})`",
    "stock": f"in process: stock `{MEASURE}`",
}
PHASE = r"""
import json, sys
import ir_bright, ir_datasets
phase, dataset = sys.argv[1], ir_datasets.load(sys.argv[2])
if phase == "iter":
    found = {"docs": sum(1 for _ in dataset.docs_iter())}
elif phase == "store":
    store, ids = dataset.docs_store(), json.loads(sys.argv[3])
    found = {"lookups": sum(store.get(doc_id).doc_id == doc_id for doc_id in ids)}
else:
    queries, qrels = dataset.queries_iter(), dataset.qrels_iter()
    found = {"queries": sum(1 for _ in queries), "qrels": sum(1 for _ in qrels)}
print(json.dumps(found))
"""


@dataclass
class Subject:
    """One dataset measured: its family's name, its domain as declared, and what was seen."""

    family: str
    key: str
    about: Any  # the domain's declaration (ir_bright.families.spec.Domain)
    declared: Any  # the family's declaration (ir_bright.families.Family)
    docs: int
    rows: int
    seen: dict[str, Any] = field(default_factory=dict)

    @property
    def dataset(self) -> str:
        """The ir_datasets id."""
        return f"{self.declared.namespace}/{self.about.id or self.key}"

    @property
    def label(self) -> str:
        """The family and domain, as the tables name them."""
        return f"{self.family} {self.about.name or self.key}"

    @property
    def queries(self) -> int:
        """The declared number of queries."""
        return self.about.counts["queries"]

    @property
    def repo(self) -> str:
        """The hub repository the files are served from."""
        return self.declared.hub.repo.format(domain=self.key)


def subject(family: str, spelling: str, scale: float, repeated_rows: int = 0) -> Subject:
    """``family``'s domain spelled ``spelling`` in ids, at ``scale`` times its declared size."""
    from ir_bright.families import family as declaration

    declared = declaration(family.lower())
    for key, about in declared.domains.items():
        if (about.id or key) == spelling:
            docs = max(2 * LOOKUPS, round(about.counts["docs"] * scale))
            return Subject(family, key, about, declared, docs, docs + repeated_rows)
    known = ", ".join(about.id or key for key, about in declared.domains.items())
    raise SystemExit(f"bench_families: {family} has no domain {spelling!r}: one of {known}")


def generate(item: Subject, hub: Path, words: int, row_group_rows: int) -> list[str]:
    """Write ``item``'s generated files under ``hub`` (parquet in row groups of
    ``row_group_rows``); return its distinct doc ids."""
    size = item.docs, item.queries, words
    if item.family == "BRIGHT":
        return corpus.write_domain(hub, item.key, *size, row_group_rows)
    layout = item.declared.hub
    if item.family == "R2MED":
        files, extra = layout.paths, item.rows - item.docs
        return corpus.write_r2med_task(hub / item.repo, files, item.docs, extra, *size[1:])
    path = layout.path
    return corpus.write_tempo_domain(hub / item.repo, path, item.key, *size, row_group_rows)


def commands(item: Subject, folder: Path, lookups: list[str]) -> dict[str, list[str]]:
    """The command of each phase."""
    run, qrels = folder / f"{item.family}.trec", folder / f"{item.family}.qrels"
    python = sys.executable
    bm25 = [*IR_BRIGHT, "bm25", item.dataset, "-o", str(run)]
    evaluate = [*IR_BRIGHT, "evaluate", item.dataset, str(run), "-m", MEASURE]
    return {
        "download": [*IR_BRIGHT, "download", item.dataset],
        "iter": [python, "-c", PHASE, "iter", item.dataset],
        "store": [python, "-c", PHASE, "store", item.dataset, json.dumps(lookups)],
        "topics": [python, "-c", PHASE, "topics", item.dataset],
        "bm25 cold": bm25,
        "bm25 warm": bm25,
        "evaluate": [*evaluate, "--format", "json"],
        "ir_measures": [python, "-m", "ir_measures", str(qrels), str(run), MEASURE],
    }


def check(phase: str, item: Subject, done: Finished, run: Path) -> None:
    """Stop at a phase whose output is not what the generated data says (a broken case is no
    data); keep what the later tables show."""
    if phase == "topics":
        found = json.loads(done.stdout)
        if found["queries"] != item.queries or not found["qrels"]:
            raise SystemExit(f"{item.dataset}: {found}, expected {item.queries} queries")
        item.seen["qrels"] = found["qrels"]
    elif phase in ("iter", "store"):
        expected = {"docs": item.docs} if phase == "iter" else {"lookups": LOOKUPS}
        if json.loads(done.stdout) != expected:
            raise SystemExit(f"{item.dataset} {phase}: {done.stdout.strip()}, not {expected}")
    elif phase == "bm25 cold":
        lines = sum(1 for _ in run.open(encoding="utf-8"))
        if lines != item.queries * item.declared.protocol.depth:
            raise SystemExit(f"{item.dataset}: {lines:,} run lines, expected full depth")
        item.seen["run"] = lines
    elif phase == "evaluate":
        item.seen["official"] = json.loads(done.stdout)[str(run)][MEASURE]
    elif phase == "ir_measures":
        item.seen["stock"] = float(done.stdout.split()[-1])


def environment(home: Path, url: str) -> dict[str, str]:
    """The variables of every process: its own cache, the loopback hub, no checksums."""
    return {
        **os.environ,
        "IR_DATASETS_HOME": str(home),
        "HF_ENDPOINT": url,
        "IR_BRIGHT_VERIFY": "0",
    }


def export_qrels(items: list[Subject], folder: Path, url: str) -> None:
    """Each dataset's qrels as ``ir-bright export`` writes them (TREC), for ir_measures."""
    env = environment(folder / "home-export", url)
    for item in items:
        with open(folder / f"{item.family}.qrels", "w", encoding="utf-8") as out:
            export = [*IR_BRIGHT, "export", item.dataset, "qrels"]
            subprocess.run(export, env=env, stdout=out, check=True)
    shutil.rmtree(folder / "home-export")


def measure(
    items: list[Subject], folder: Path, url: str, lookups: dict[str, list[str]], repeats: int
) -> dict[str, dict[str, list[Finished]]]:
    """Every phase of every dataset, ``repeats`` times, the datasets in turn (the first one
    rotating), each repeat in fresh caches."""
    results: dict[str, dict[str, list[Finished]]] = {
        p: {i.family: [] for i in items} for p in PHASES
    }
    made = {item.family: commands(item, folder, lookups[item.family]) for item in items}
    for repeat in range(repeats):
        turn = items[repeat % len(items) :] + items[: repeat % len(items)]
        homes = {item.family: folder / f"home-{repeat}-{item.family}" for item in turn}
        for phase in PHASES:
            for item in turn:
                done = run_timed(made[item.family][phase], environment(homes[item.family], url))
                check(phase, item, done, folder / f"{item.family}.trec")
                results[phase][item.family].append(done)
        for home in homes.values():
            shutil.rmtree(home)
    return results


def in_process(item: Subject, folder: Path, repeats: int) -> dict[str, float]:
    """Median seconds of ``calc_aggregate`` with Official and with stock nDCG@10 on the
    dataset's qrels and its BM25 run, read once (their values checked against the commands')."""
    import ir_measures
    from bench_scoring import median_seconds  # benchmarks/, the script's folder

    from ir_bright.measures import Official

    qrels = list(ir_measures.read_trec_qrels(str(folder / f"{item.family}.qrels")))
    run = list(ir_measures.read_trec_run(str(folder / f"{item.family}.trec")))
    stock = ir_measures.parse_measure(MEASURE)
    official = Official(stock)
    values = (
        ir_measures.calc_aggregate([official], qrels, run)[official],
        ir_measures.calc_aggregate([stock], qrels, run)[stock],
    )
    for value, seen in zip(values, (item.seen["official"], item.seen["stock"])):
        if abs(value - seen) > 1e-4:  # ir_measures prints four decimals
            raise SystemExit(f"{item.dataset}: {value} in process, {seen} from the command")
    times = median_seconds(
        lambda: ir_measures.calc_aggregate([official], qrels, run),
        lambda: ir_measures.calc_aggregate([stock], qrels, run),
        repeats=repeats,
    )
    return dict(zip(IN_PROCESS, times))


def _ratios(values: list[float], digits: str) -> list[str]:
    """Each dataset's value, then each other's ratio to the first's."""
    shown = [format(value, digits) for value in values]
    return shown + [f"{value / values[0]:.2f}x" for value in values[1:]]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _header(first: str, labels: list[str]) -> None:
    print(_row([first, *labels]))
    print("|---" + "|---:" * len(labels) + "|")


def print_datasets(items: list[Subject], labels: list[str], folder: Path) -> None:
    """What was measured: ids, files, protocols, sizes (and their ratios), the values."""
    _header("", labels)
    blank = [""] * (len(items) - 1)
    print(_row(["dataset", *(f"`{item.dataset}`" for item in items), *blank]))
    files = []
    for item in items:
        paths = [p for p in (folder / "hub" / item.repo).rglob("*") if p.is_file()]
        kinds = sorted({p.suffix.lstrip(".") for p in paths})
        files.append(f"{sum(p.stat().st_size for p in paths) / 1e6:.1f} MB {', '.join(kinds)}")
    print(_row(["hub files", *files, *blank]))
    protocols = [item.declared.protocol for item in items]
    described = [f"depth {p.depth:,}, exclusions {p.exclusions or 'none'}" for p in protocols]
    print(_row(["official protocol", *described, *blank]))
    sizes = {
        "documents": [item.docs for item in items],
        "corpus rows": [item.rows for item in items],
        "queries": [item.queries for item in items],
        "judgements": [item.seen["qrels"] for item in items],
        "BM25 run lines": [item.seen["run"] for item in items],
    }
    for name, values in sizes.items():
        print(_row([name, *_ratios(values, ",")]))
    official = [f"{i.seen['official']:.4f} ({i.seen['stock']:.4f})" for i in items]
    print(_row([f"{MEASURE}: Official (stock)", *official, *blank]))


def print_phases(items: list[Subject], labels: list[str], results: dict, scored: dict) -> None:
    """Each phase's median wall time and peak memory, and their ratios to the first dataset's."""
    median = statistics.median
    print("\nWall seconds (medians):\n")
    _header("phase", labels)
    for phase, name in PHASES.items():
        walls = [median(done.wall for done in results[phase][i.family]) for i in items]
        print(_row([name, *_ratios(walls, ".2f")]))
    for key, name in IN_PROCESS.items():
        print(_row([name, *_ratios([scored[i.family][key] for i in items], ".3f")]))
    print("\nPeak resident memory, MiB (medians):\n")
    _header("phase", labels)
    for phase, name in PHASES.items():
        peaks = [median(done.peak for done in results[phase][i.family]) for i in items]
        print(_row([name, *_ratios(peaks, ",.0f")]))


def print_scoring(items: list[Subject], results: dict, scored: dict) -> None:
    """Within each dataset: the command against ir_measures', Official against stock."""
    median = statistics.median
    print("\nScoring within each dataset (ratios of the medians):\n")
    print("| dataset | evaluate / ir_measures, time | memory | Official / stock, in process |")
    print("|---|---:|---:|---:|")
    for item in items:
        ours, stock = results["evaluate"][item.family], results["ir_measures"][item.family]
        time = median(d.wall for d in ours) / median(d.wall for d in stock)
        memory = median(d.peak for d in ours) / median(d.peak for d in stock)
        inside = scored[item.family]["official"] / scored[item.family]["stock"]
        print(f"| {item.label} | {time:.2f}x | {memory:.2f}x | {inside:.2f}x |")


def arguments() -> argparse.Namespace:
    """The command line's options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument(
        "--words",
        type=int,
        default=95,
        help="words per generated document, on average (95: biology's 329 characters)",
    )
    parser.add_argument("--bright-domain", default="biology")
    parser.add_argument("--r2med-task", default="medqa-diag")
    parser.add_argument(
        "--repeated-rows",
        type=int,
        default=56,
        help="rows of corpus.jsonl repeating an earlier id (MedQA-Diag: 56,250 rows, 56,194 ids)",
    )
    parser.add_argument("--tempo-domain", default="economics")
    parser.add_argument(
        "--row-group-rows",
        type=int,
        default=1000,
        help="rows per row group of the generated parquet files (1,000: as the `datasets` "
        "library writes the hub's files)",
    )
    parser.add_argument("--scale", type=float, default=1.0, help="of the real sizes (quick runs)")
    return parser.parse_args()


def main() -> int:
    """Generate, serve, time the phases; print the tables."""
    args = arguments()
    from tests.fixtures import hubserver

    items = [
        subject("BRIGHT", args.bright_domain, args.scale),
        subject("R2MED", args.r2med_task, args.scale, args.repeated_rows),
        subject("TEMPO", args.tempo_domain, args.scale),
    ]
    folder = Path(tempfile.mkdtemp(prefix="bench_families_"))
    try:
        rng = random.Random(0)
        lookups = {
            item.family: rng.sample(
                generate(item, folder / "hub", args.words, args.row_group_rows), LOOKUPS
            )
            for item in items
        }
        state, server = hubserver.start(folder / "hub")
        try:
            export_qrels(items, folder, state.url)
            results = measure(items, folder, state.url, lookups, args.repeats)
        finally:
            server.shutdown()
        scored = {item.family: in_process(item, folder, args.repeats) for item in items}
        scale = "" if args.scale == 1 else f" times {args.scale}"
        print(
            f"Generated datasets of their real sizes{scale}, documents of about {args.words} "
            f"words, parquet in row groups of {args.row_group_rows:,} rows, served on loopback; "
            "each phase a whole process, the three datasets in turn, each repeat in fresh "
            f"caches; medians of {args.repeats} repeats.\n"
        )
        labels = [item.label for item in items]
        labels += [f"{item.family} / {items[0].family}" for item in items[1:]]
        print_datasets(items, labels, folder)
        print_phases(items, labels, results, scored)
        print_scoring(items, results, scored)
    finally:
        shutil.rmtree(folder)
    if hasattr(os, "getloadavg"):
        print(f"\nLoad average {os.getloadavg()[0]:.1f} at the end.")
    return 0


if __name__ == "__main__":
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "families")
