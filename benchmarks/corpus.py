"""Generated corpora of a real domain's size, in the hub's parquet layout, for benchmarks."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

LEETCODE_DOCS = 413_932
BRIGHT_REPO = "xlangai/BRIGHT"
_VOCAB = np.array(
    [f"w{i:x}" for i in range(30_000)] + ["the", "of", "int", "return", "for", "if", "=", "("]
)


def write_corpus(
    path: Path,
    n_docs: int = LEETCODE_DOCS,
    words_per_doc: int = 245,
    id_prefix: str = "leetcode/leetcode_",
    seed: int = 0,
    row_group_size: int | None = None,
) -> Path:
    """Write ``n_docs`` documents (columns id, content) of random Zipf-ish words to ``path``.

    With the defaults the file is about the size of BRIGHT's leetcode corpus (210 MB). The
    row groups hold ``row_group_size`` rows (at most 50,000: one per generated chunk). The file
    is written under a temporary name and renamed when complete, so a benchmark that reuses
    an existing corpus never meets a half-written one.
    """
    rng = np.random.default_rng(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    schema = pa.schema([("id", pa.string()), ("content", pa.string())])
    chunk = 50_000
    partial = path.with_name(path.name + ".part")
    with pq.ParquetWriter(partial, schema) as writer:
        for start in range(0, n_docs, chunk):
            count = min(chunk, n_docs - start)
            ids = [f"{id_prefix}{i}.txt" for i in range(start, start + count)]
            lengths = rng.integers(words_per_doc // 2, words_per_doc * 3 // 2, count)
            words = _VOCAB[np.minimum(rng.zipf(1.15, lengths.sum()), len(_VOCAB)) - 1]
            bounds = np.concatenate([[0], np.cumsum(lengths)])
            texts = [" ".join(words[bounds[i] : bounds[i + 1]]) for i in range(count)]
            table = pa.table({"id": ids, "content": texts}, schema=schema)
            writer.write_table(table, row_group_size=row_group_size or n_docs)
    partial.replace(path)
    return path


def write_domain(root: Path, split: str, docs: int, queries: int, words: int) -> list[str]:
    """A BRIGHT domain's generated documents and ``examples`` (each query with one gold
    document and two excluded ones) in the hub's layout under ``root``; returns the doc ids."""
    corpus = root / BRIGHT_REPO / "documents" / f"{split}-00000-of-00001.parquet"
    write_corpus(corpus, docs, words_per_doc=words, id_prefix=f"{split}/doc_", seed=docs)
    ids = [f"{split}/doc_{i}.txt" for i in range(docs)]
    rng = random.Random(docs)
    rows = [
        {
            "query": f"query {q} of {split}",
            "reasoning": "N/A",
            "id": str(q),
            "excluded_ids": rng.sample(ids, 2),
            "gold_ids_long": ["N/A"],
            "gold_ids": [rng.choice(ids)],
            "gold_answer": "N/A",
        }
        for q in range(queries)
    ]
    examples = root / BRIGHT_REPO / "examples" / f"{split}-00000-of-00001.parquet"
    examples.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), examples)
    return ids
