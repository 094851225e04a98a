"""The BM25 analysis: ir_bright's Lucene English analysis vs PyStemmer alone and Pyserini.

Exactness is counted against Lucene's own output (``tests/data/lucene``: Pyserini's analyzer
run once on 415 texts and on 12,922 + 20,000 words chosen to reach every Porter rule). Speed is
the analysis of the 80 news articles there, 20 times over, in a fresh interpreter each time
(no stem cached yet), median of ``--repeats``. Weight is what each way adds to an ir_bright install
(``weight.py``). Pyserini is measured when ``--pyserini-python`` names an interpreter that
has it (a JDK under ``JAVA_HOME``).

    python benchmarks/bench_analysis.py [--pyserini-python PY --java-home DIR] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT / "tests" / "data" / "lucene"

# name -> how it turns a text into terms and a word into a stem (run in a fresh interpreter)
WAYS = {
    "ir_bright": "ir_bright's analysis (Lucene's tokenizer and Porter, in Python)",
    "pystemmer-porter": "ir_bright's tokenizer, then PyStemmer's `porter` alone",
    "pystemmer-english": "ir_bright's tokenizer, then PyStemmer's `english` (Porter2)",
    "plain": "`\\w+`, lower case, Lucene's stop words, PyStemmer's `porter`",
    "pyserini": "Pyserini's default analyzer (Lucene itself, through Java)",
}

PASSES = 20
"""The speed corpus is analysed this many times over (a corpus repeats its words)."""

_CHILD = (
    f"PASSES = {PASSES}\n"
    + r"""
import json, re, sys, time
way, data = sys.argv[1], sys.argv[2]
started = time.perf_counter()
if way == "pyserini":
    from pyserini.analysis import Analyzer, get_lucene_analyzer
    full = Analyzer(get_lucene_analyzer())
    nostop = Analyzer(get_lucene_analyzer(stopwords=False))
    analyze = full.analyze
    def stems(words):
        got = []
        for i in range(0, len(words), 2000):
            got += nostop.analyze(" ".join(words[i : i + 2000]))
        return got
else:
    import Stemmer
    from ir_bright.bm25 import analysis
    if way == "ir_bright":
        analyze, stem = analysis.analyze, analysis.stem
    else:
        stemmer = Stemmer.Stemmer("english" if way == "pystemmer-english" else "porter")
        stem = stemmer.stemWord
        split = analysis.tokens
        if way == "plain":
            split = lambda text: re.findall(r"\w+", (text or "").lower())
        stop = analysis.STOP_WORDS
        analyze = lambda text: [stem(t) for t in split(text) if t not in stop]
    stems = lambda words: [stem(w) for w in words]
analyze("warm up")
ready = time.perf_counter() - started
job = json.loads(open(data, encoding="utf-8").read())
start = time.perf_counter()
terms = sum(len(analyze(text)) for _ in range(PASSES) for text in job["corpus"])
seconds = time.perf_counter() - start
print(json.dumps({
    "ready_s": ready, "seconds": seconds, "terms": terms,
    "texts": [analyze(t) for t in job["texts"]], "stems": stems(job["words"]),
    "corpus": [analyze(t) for t in job["corpus"]],
}))
"""
)


def load_job() -> dict:
    """The texts and words Lucene analysed, Lucene's answers, and the speed corpus."""
    analysis = json.loads((DATA / "analysis.json").read_text("utf-8"))
    from ir_bright.bm25.analysis import tokens

    lines = (DATA / "porter_stems.tsv").read_text("utf-8").splitlines()
    words = dict(analysis["stems"])
    words.update(line.split("\t") for line in lines)
    # a word the tokenizer changes (a trailing ', a possessive) did not reach the stemmer as is
    words = {word: stem for word, stem in words.items() if tokens(word) == [word]}
    corpus = [
        json.loads(line)["contents"]
        for line in (DATA / "corpus.jsonl").read_text("utf-8").split("\n")
        if line
    ]
    return {
        "texts": [case["text"] for case in analysis["texts"]],
        "terms": [case["terms"] for case in analysis["texts"]],
        "words": list(words),
        "stems": list(words.values()),
        "corpus": corpus,
    }


def run_way(way: str, job_path: Path, python: str, env: dict[str, str]) -> dict:
    """One analysis way in a fresh interpreter."""
    done = subprocess.run(
        [python, "-c", _CHILD, way, str(job_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    if done.returncode:
        raise SystemExit(f"{way} failed: {done.stderr[-800:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def tree_megabytes(folder: str) -> float:
    """The size of the files under ``folder``."""
    total = 0
    for base, _, files in os.walk(folder):
        total += sum(os.path.getsize(os.path.join(base, f)) for f in files)
    return total / 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pyserini-python", help="an interpreter with Pyserini installed")
    parser.add_argument("--java-home", default=os.environ.get("JAVA_HOME"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/ir_bright_bench"))
    args = parser.parse_args()
    job = load_job()
    args.workdir.mkdir(parents=True, exist_ok=True)
    job_path = args.workdir / "analysis_job.json"
    job_path.write_text(json.dumps(job), "utf-8")
    ways = [w for w in WAYS if w != "pyserini" or args.pyserini_python]
    env = dict(os.environ)
    if args.java_home:
        env.update(JAVA_HOME=args.java_home, OPENAI_API_KEY="unused")  # Pyserini's import asks
    words = PASSES * sum(len(re.findall(r"\S+", text)) for text in job["corpus"])
    print(
        f"Exactness against Lucene's own output: {len(job['texts'])} texts (every tokenizer "
        f"rule, {len(job['texts']) - 15} of them random mixes of tricky characters) and "
        f"{len(job['words']):,} words (every Porter rule). Speed: {len(job['corpus'])} news "
        f"articles {PASSES} times over ({words:,} words), a fresh interpreter each time, "
        f"median of "
        f"{args.repeats}.\n"
    )
    results = {}
    for way in ways:
        python = args.pyserini_python if way == "pyserini" else sys.executable
        results[way] = [run_way(way, job_path, python, env) for _ in range(args.repeats)]
    lucene = results.get("pyserini", [{}])[0].get("corpus")
    articles = " | articles as Lucene" if lucene else ""
    print(f"| analysis | texts as Lucene | stems as Lucene{articles} | words/s | start (s) |")
    print("|---|---:|---:|---:|---:|" + ("---:|" if lucene else ""))
    for way, runs in results.items():
        first = runs[0]
        texts = sum(got == want for got, want in zip(first["texts"], job["terms"]))
        stems = sum(got == want for got, want in zip(first["stems"], job["stems"]))
        same = sum(a == b for a, b in zip(first["corpus"], lucene)) if lucene else 0
        speed = words / statistics.median(r["seconds"] for r in runs)
        ready = statistics.median(r["ready_s"] for r in runs)
        print(
            f"| {WAYS[way]} | {texts} of {len(job['texts'])} | {stems:,} of "
            f"{len(job['words']):,}"
            + (f" | {same} of {len(lucene)}" if lucene else "")
            + f" | {speed:,.0f} | {ready:.2f} |"
        )
    print_weights(args)
    return 0


def print_weights(args: argparse.Namespace) -> None:
    """What the analysis's dependencies (and Pyserini's, when given) add to an install."""
    import weight

    print("\nWhat each adds to an ir_bright install:\n")
    print(f"- PyStemmer and regex (the `bm25` extra): {weight.added('PyStemmer', 'regex')}.")
    if args.pyserini_python:
        pyserini = weight.added("pyserini", "pyjnius", python=args.pyserini_python, follow=False)
        declared = subprocess.run(
            [
                args.pyserini_python,
                "-c",
                "import importlib.metadata as m; print(len([r for r in m.requires('pyserini')"
                " if 'extra' not in r]))",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        java = (
            f"; the JDK it runs on: {tree_megabytes(args.java_home):.0f} MB"
            if args.java_home
            else ""
        )
        print(
            f"- Pyserini: {pyserini.megabytes:.0f} MB for `pyserini` and `pyjnius` themselves "
            f"(installed without its {declared} declared requirements, among them torch, "
            f"transformers and onnxruntime){java}."
        )


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    import docpage  # benchmarks/, the script's folder

    docpage.run(main, "analysis")
