"""Write scores.json: Pyserini's BM25 and the BRIGHT paper's gensim BM25 on corpus.jsonl.

Run once, with Pyserini, gensim and a JDK (never in CI; see README.md next to this file):

    JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 OPENAI_API_KEY=x \\
        "$REFENV"/bin/python tests/data/lucene/make_scores.py tests/data/lucene WORK

- ``pyserini``: ``python -m pyserini.index.lucene`` (JsonCollection, defaults) then
  Anserini's ``SimpleSearcher.search(query, 100)`` (what ``LuceneSearcher`` calls) with
  BM25 k1=0.9, b=0.4: (doc id, score) per query (scores as Pyserini prints them, to 1e-4).
- ``gensim``: the paper's code path (xlang-ai/BRIGHT ``retrievers.py``): Pyserini's analyzer,
  gensim ``Dictionary``, ``LuceneBM25Model(k1=0.9, b=0.4)``, ``SparseMatrixSimilarity``
  (unnormalised); the 100 best (doc id, score), ties in corpus order.
"""

import json
import subprocess
import sys
from pathlib import Path

from gensim.corpora import Dictionary
from gensim.models import LuceneBM25Model
from gensim.similarities import SparseMatrixSimilarity
from pyserini.analysis import Analyzer, get_lucene_analyzer
from pyserini.pyclass import autoclass  # pyserini.search imports torch; its Java class does not


def main() -> None:
    data, work = Path(sys.argv[1]), Path(sys.argv[2])
    (work / "input").mkdir(parents=True, exist_ok=True)
    docs = [json.loads(line) for line in open(data / "corpus.jsonl", encoding="utf-8")]
    queries = [json.loads(line) for line in open(data / "queries.jsonl", encoding="utf-8")]
    (work / "input" / "docs.jsonl").write_text(
        "".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8"
    )
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pyserini.index.lucene",
            "-collection",
            "JsonCollection",
            "-input",
            str(work / "input"),
            "-index",
            str(work / "index"),
            "-generator",
            "DefaultLuceneDocumentGenerator",
            "-threads",
            "1",
        ],
        check=True,
        stdout=sys.stderr,
    )
    searcher = autoclass("io.anserini.search.SimpleSearcher")(str(work / "index"))
    searcher.set_bm25(0.9, 0.4)
    pyserini = {
        q["id"]: [[hit.docid, hit.score] for hit in searcher.search(q["text"], 100)]
        for q in queries
    }
    analyzer = Analyzer(get_lucene_analyzer())
    corpus = [analyzer.analyze(d["contents"]) for d in docs]
    dictionary = Dictionary(corpus)
    model = LuceneBM25Model(dictionary=dictionary, k1=0.9, b=0.4)
    index = SparseMatrixSimilarity(
        model[[dictionary.doc2bow(d) for d in corpus]],
        num_docs=len(corpus),
        num_terms=len(dictionary),
        normalize_queries=False,
        normalize_documents=False,
    )
    gensim = {}
    for q in queries:
        scores = index[model[dictionary.doc2bow(analyzer.analyze(q["text"]))]].tolist()
        ranked = sorted(zip([d["id"] for d in docs], scores), key=lambda x: x[1], reverse=True)
        gensim[q["id"]] = [[doc, score] for doc, score in ranked[:100]]
    json.dump({"pyserini": pyserini, "gensim": gensim}, sys.stdout, indent=0)


if __name__ == "__main__":
    main()
