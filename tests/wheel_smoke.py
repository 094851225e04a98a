"""The installed wheel, used as a user uses it, away from the source tree (``.ci/run``).

    python wheel_smoke.py SOURCE_TREE

run by the interpreter of a fresh environment holding the wheel alone, from a folder outside
SOURCE_TREE, with ``HF_ENDPOINT`` at the fixture hub (``python -m tests.fixtures.serve``). It
checks that the package is the installed one and carries its data and ``py.typed``, loads
``bright/biology`` (documents, queries, qrels), scores a run ranking every query's gold
documents first (official nDCG@10 is then 1, through ir_measures and through ``ir-bright
evaluate``), does the same for ``browsecomp-plus/gold`` (its questions decrypted from the
fixture's encrypted shards, all four official measures 1), and runs ``ir-bright --version``
and ``ir-bright list``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import ir_datasets
import ir_measures
from ir_measures import nDCG

import ir_bright
from ir_bright import Official

DATASET = "bright/biology"
ENCRYPTED = "browsecomp-plus/gold"
"""A dataset of a family with a module of its own (BrowseComp-Plus's decryption)."""
Run = dict[str, dict[str, float]]


def check(holds: bool, failure: str) -> None:
    """End the smoke test with ``failure`` unless ``holds``."""
    if not holds:
        raise SystemExit(f"wheel smoke test failed: {failure}")


def command(*argv: str) -> str:
    """What the wheel's ``ir-bright`` console script prints for ``argv`` (it must succeed)."""
    script = Path(sys.executable).with_name("ir-bright")
    done = subprocess.run([str(script), *argv], capture_output=True, text=True, check=False)
    check(
        done.returncode == 0, f"ir-bright {' '.join(argv)} exited {done.returncode}: {done.stderr}"
    )
    return done.stdout


def installed_package(tree: Path) -> Path:
    """The imported package's folder: not the source tree's, with its data and py.typed."""
    package = Path(ir_bright.__file__).resolve().parent
    check(tree not in package.parents, f"ir_bright is imported from the source tree: {package}")
    check((package / "py.typed").is_file(), "the wheel has no py.typed")
    declared = {path.stem for path in (package / "families").glob("*.json")}
    expected = {"bright", "r2med", "tempo", "browsecomp-plus"}
    check(expected <= declared, f"the wheel declares families {declared}")
    check((package / "bm25" / "lucene_emoji.json").is_file(), "the wheel has no bm25/*.json")
    return package


def perfect_run(dataset_id: str = DATASET) -> Run:
    """A run of the dataset ranking each query's gold documents first, read from the dataset."""
    dataset = ir_datasets.load(dataset_id)
    check(ir_bright.registry.is_ours(dataset_id), f"{dataset_id} is ir_datasets' own")
    docs = {doc.doc_id for doc in dataset.docs_iter()}
    queries = {query.query_id for query in dataset.queries_iter()}
    gold: dict[str, list[str]] = {}
    for qrel in dataset.qrels_iter():
        if qrel.relevance > 0:
            gold.setdefault(qrel.query_id, []).append(qrel.doc_id)
    check(bool(docs and gold) and set(gold) <= queries, f"{len(docs)} docs, gold {gold}")
    check(all(d in docs for ranked in gold.values() for d in ranked), "gold outside the corpus")
    return {
        q: {d: float(len(ranked) - i) for i, d in enumerate(ranked)} for q, ranked in gold.items()
    }


def scored(run: Run) -> None:
    """Official nDCG@10 of ``run`` is 1, through ir_measures and through ``ir-bright evaluate``."""
    qrels = ir_datasets.load(DATASET).qrels_iter()
    value = ir_measures.calc_aggregate([Official(nDCG @ 10)], qrels, run)[Official(nDCG @ 10)]
    check(value == 1.0, f"ir_measures gives Official(nDCG@10) = {value}, not 1")
    path = Path("run.trec").resolve()
    lines = [
        f"{query} Q0 {doc} {rank} {score} smoke\n"
        for query, ranked in run.items()
        for rank, (doc, score) in enumerate(ranked.items(), 1)
    ]
    path.write_text("".join(lines), encoding="utf-8")
    printed = command("evaluate", DATASET, str(path), "-m", "nDCG@10", "--format", "json")
    value = json.loads(printed)[str(path)]["nDCG@10"]
    check(value == 1.0, f"ir-bright evaluate gives nDCG@10 = {value}, not 1")


def decrypted() -> None:
    """BrowseComp-Plus's questions read decrypted, and a perfect run scores 1 on its four
    official measures through ``ir-bright evaluate``."""
    questions = list(ir_datasets.load(ENCRYPTED).queries_iter())
    check(bool(questions) and all("?" in q.text for q in questions), f"questions {questions[:1]}")
    path = Path("bcp.trec").resolve()
    lines = [
        f"{query} Q0 {doc} {rank} {score} smoke\n"
        for query, ranked in perfect_run(ENCRYPTED).items()
        for rank, (doc, score) in enumerate(ranked.items(), 1)
    ]
    path.write_text("".join(lines), encoding="utf-8")
    values = json.loads(command("evaluate", ENCRYPTED, str(path), "--format", "json"))
    check(set(values[str(path)].values()) == {1.0}, f"a perfect run scores {values}")


def main(tree: Path) -> int:
    """Every check; the first failure ends the test with its message."""
    package = installed_package(tree)
    scored(perfect_run())
    decrypted()
    release = version("ir_bright")
    check(command("--version") == f"ir-bright {release}\n", "ir-bright --version")
    check(DATASET in command("list").split(), f"ir-bright list does not list {DATASET}")
    print(f"wheel smoke test passed: ir_bright {release} from {package}")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]).resolve()))
