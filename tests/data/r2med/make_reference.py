"""Write reference.json: the official R2MED BM25 code's output on the fixture hub.

Run once, with Pyserini, gensim, pytrec_eval and a JDK (never in CI; see README.md here):

    JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 OPENAI_API_KEY=x \\
        /tmp/refdata-official/bin/python tests/data/r2med/make_reference.py \\
        R2MED_CHECKOUT WORK tests/data/r2med/reference.json COMMIT

R2MED_CHECKOUT is a checkout of github.com/R2MED/R2MED at COMMIT (its ``src/`` is imported
as is); WORK is a scratch folder. The fixture (tests/fixtures/r2med_hub.py) is written to
``WORK/hub`` and linked as ``WORK/dataset/<Task>``, where the official code looks for it, and
``src/eval_BM25.py``'s ``eval_bm25(gar_method, gar_llm, task_names)`` is called from
``WORK/src`` for the original queries and for each of the 20 expansion sets, on all eight
tasks: what ``src/run.py --mode eval_retrieval --retriever_name bm25`` calls (run.py itself is
not used: its ``--gar_llm`` choices leave out qwen-3b-ins and qwen-7b-ins). ``eval_bm25`` keeps
its top-100 lists to itself, so its calls to ``load_retrieval_data`` and ``retrieval_bm25`` are
observed (arguments and results recorded, nothing changed), and its metrics are read back from
the results file it writes.
"""

import contextlib
import json
import os
import sys
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from tests.fixtures.r2med_hub import EXPANSIONS, OWNER, TASKS, write_r2med  # noqa: E402
from tests.fixtures.recorded import file_sha256, rows_digest, shortest_float32  # noqa: E402

OFFICIAL_FILES = ("src/eval_BM25.py", "src/base.py")


class Observer:
    """Records what eval_bm25 passes to and gets from the two functions it calls."""

    def __init__(self, module):
        self.module, self.calls = module, []
        self.load, self.retrieve = module.load_retrieval_data, module.retrieval_bm25
        module.load_retrieval_data, module.retrieval_bm25 = self.observed_load, self.observed_bm25

    def observed_load(self, *args, **kwargs):
        loaded = self.load(*args, **kwargs)
        _, _, queries, query_ids, _ = loaded
        self.calls.append({"queries": dict(zip(map(str, query_ids), queries))})
        return loaded

    def observed_bm25(self, *args, **kwargs):
        scores, results = self.retrieve(*args, **kwargs)
        self.calls[-1]["run"] = {
            qid: [[doc, shortest_float32(score)] for doc, score in ranked.items()]
            for qid, ranked in results.items()
        }
        return scores, results


def main() -> None:
    checkout, work, out = (Path(arg).resolve() for arg in sys.argv[1:4])
    commit = sys.argv[4]
    rows = write_r2med(work / "hub")
    (work / "dataset").mkdir(parents=True)
    for task in TASKS:
        (work / "dataset" / task).symlink_to(work / "hub" / OWNER / task)
    (work / "src").mkdir()
    os.chdir(work / "src")
    sys.path.insert(0, str(checkout / "src"))
    import eval_BM25

    observer = Observer(eval_BM25)
    sets = [("", "")] + [(m, llm) for m, llms in EXPANSIONS.items() for llm in llms]
    reference = {task: {} for task in TASKS}
    for method, llm in sets:
        start = len(observer.calls)
        with contextlib.redirect_stdout(sys.stderr):
            eval_BM25.eval_bm25(gar_method=method, gar_llm=llm, task_names=list(TASKS))
        name = f"{method}/{llm}" if method else "original"
        folder = f"gar/{method}/{llm}/bm25" if method else "base retriever/bm25"
        for task, call in zip(TASKS, observer.calls[start:]):
            saved = json.loads((work / "results" / folder / f"{task}.json").read_text())
            reference[task][name] = {**call, "metrics": saved["test"]}
    json.dump(
        {
            "_about": about(),
            "official": {
                "repository": "R2MED/R2MED",
                "commit": commit,
                "files": {f: file_sha256(checkout / f) for f in OFFICIAL_FILES},
            },
            "versions": {p: version(p) for p in ("pyserini", "gensim", "pytrec_eval-terrier")},
            "fixture": {task: rows_digest(rows[task]) for task in TASKS},
            "tasks": reference,
        },
        out.open("w", encoding="utf-8"),
        ensure_ascii=False,
        separators=(",", ":"),
    )


def about() -> str:
    return (
        "Output of the official R2MED BM25 code (R2MED/R2MED src/eval_BM25.py, eval_bm25) on the "
        "fixture of tests/fixtures/r2med_hub.py; see README.md beside this file. tasks -> set "
        "('original', or '<method>/<llm>') -> queries (query id -> the query text the code "
        "built), run (query id -> its top 100 [doc id, score], in the code's order; scores are "
        "float32 values in their shortest form), metrics (calculate_retrieval_metrics, as "
        "saved). fixture: sha256 of the canonical JSON of write_r2med's rows per task."
    )


if __name__ == "__main__":
    main()
