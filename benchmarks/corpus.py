"""Generated corpora of a real domain's size, in the hubs' layouts, for benchmarks."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

LEETCODE_DOCS = 413_932
BRIGHT_REPO = "xlangai/BRIGHT"
CHUNK = 50_000
GOLD = 4  # gold documents a generated query has (BRIGHT biology: 3.6, R2MED MedQA-Diag: 4.4)
EXCLUDED = 2  # excluded documents a generated query has, where its benchmark has exclusions
REASONING_WORDS = 300  # words of a generated LLM reasoning (BRIGHT's reasoning configs)
_VOCAB = np.array(
    [f"w{i:x}" for i in range(30_000)] + ["the", "of", "int", "return", "for", "if", "=", "("]
)
_DOC_SCHEMA = pa.schema([("id", pa.string()), ("content", pa.string())])


def generated_texts(n_docs: int, words_per_doc: int, seed: int) -> Iterator[list[str]]:
    """``n_docs`` texts of random Zipf-ish words (``words_per_doc`` on average), in chunks of
    at most :data:`CHUNK`; the same arguments give the same texts."""
    rng = np.random.default_rng(seed)
    for start in range(0, n_docs, CHUNK):
        count = min(CHUNK, n_docs - start)
        lengths = rng.integers(words_per_doc // 2, words_per_doc * 3 // 2, count)
        words = _VOCAB[np.minimum(rng.zipf(1.15, lengths.sum()), len(_VOCAB)) - 1]
        bounds = np.concatenate([[0], np.cumsum(lengths)])
        yield [" ".join(words[bounds[i] : bounds[i + 1]]) for i in range(count)]


def write_docs(
    path: Path, ids: Sequence[str], chunks: Iterable[list[str]], row_group_size: int | None = None
) -> Path:
    """Write documents (columns id, content) to ``path``: ``ids`` and their texts, given in
    chunks, one row group per chunk (or of ``row_group_size`` rows, if smaller). The file is
    written under a temporary name and renamed when complete, so a benchmark that reuses an
    existing corpus never meets a half-written one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    start = 0
    with pq.ParquetWriter(partial, _DOC_SCHEMA) as writer:
        for texts in chunks:
            names = ids[start : start + len(texts)]
            table = pa.table({"id": names, "content": texts}, schema=_DOC_SCHEMA)
            writer.write_table(table, row_group_size=row_group_size or len(ids))
            start += len(texts)
    partial.replace(path)
    return path


def write_corpus(
    path: Path,
    n_docs: int = LEETCODE_DOCS,
    words_per_doc: int = 245,
    id_prefix: str = "leetcode/leetcode_",
    seed: int = 0,
    row_group_size: int | None = None,
) -> Path:
    """Write ``n_docs`` generated documents (ids ``<id_prefix><n>.txt``) to ``path``.

    With the defaults the file is about the size of BRIGHT's leetcode corpus (210 MB). The
    row groups hold ``row_group_size`` rows (at most :data:`CHUNK`).
    """
    ids = [f"{id_prefix}{i}.txt" for i in range(n_docs)]
    return write_docs(path, ids, generated_texts(n_docs, words_per_doc, seed), row_group_size)


@dataclass
class SampledQuery:
    """A generated query: its id, its text, its gold and excluded document ids."""

    id: str
    text: str
    gold: list[str]
    excluded: list[str]


def sampled_domain(
    ids: Sequence[str], queries: int, words: int, seed: int
) -> tuple[list[str], list[SampledQuery]]:
    """One text per id (``words`` words on average), and ``queries`` queries, each with
    :data:`GOLD` gold and :data:`EXCLUDED` excluded documents and, as text, half the words of
    its first gold document and as many random ones (so BM25 finds some of its gold)."""
    texts = [text for chunk in generated_texts(len(ids), words, seed) for text in chunk]
    noise = [text for chunk in generated_texts(queries, words // 2, seed + 1) for text in chunk]
    rng = random.Random(seed)
    sampled = []
    for q in range(queries):
        picked = rng.sample(range(len(ids)), GOLD + EXCLUDED)
        own = texts[picked[0]].split()
        text = " ".join(own[: len(own) // 2]) + " " + noise[q]
        gold, excluded = [ids[i] for i in picked[:GOLD]], [ids[i] for i in picked[GOLD:]]
        sampled.append(SampledQuery(str(q), text, gold, excluded))
    return texts, sampled


def _chunked(texts: list[str]) -> Iterator[list[str]]:
    for start in range(0, len(texts), CHUNK):
        yield texts[start : start + CHUNK]


def write_domain(
    root: Path,
    split: str,
    docs: int,
    queries: int,
    words: int,
    row_group_size: int | None = None,
) -> list[str]:
    """A BRIGHT domain's generated documents (in row groups of ``row_group_size`` rows, at
    most :data:`CHUNK`), ``examples`` (see :func:`sampled_domain`) and LLM reasoning configs
    (each query's reasoning: :data:`REASONING_WORDS` random words) in the hub's layout under
    ``root``; returns the doc ids."""
    from ir_bright.families import family

    ids = [f"{split}/doc_{i}.txt" for i in range(docs)]
    texts, sampled = sampled_domain(ids, queries, words, seed=docs)
    documents = root / BRIGHT_REPO / "documents" / f"{split}-00000-of-00001.parquet"
    write_docs(documents, ids, _chunked(texts), row_group_size)
    rows = [
        {
            "query": q.text,
            "reasoning": "N/A",
            "id": q.id,
            "excluded_ids": q.excluded,
            "gold_ids_long": ["N/A"],
            "gold_ids": q.gold,
            "gold_answer": "N/A",
        }
        for q in sampled
    ]
    configs = [
        about["config"] for about in family("bright").query_sets.values() if "config" in about
    ]
    for seed, config in enumerate(["examples", *configs], start=docs + 1):
        if config != "examples":
            reasons = next(generated_texts(queries, REASONING_WORDS, seed))
            rows = [dict(row, query=reason) for row, reason in zip(rows, reasons)]
        target = root / BRIGHT_REPO / config / f"{split}-00000-of-00001.parquet"
        target.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.Table.from_pylist(rows), target)
    return ids


def write_r2med_task(
    folder: Path, files: Mapping[str, str], docs: int, repeats: int, queries: int, words: int
) -> list[str]:
    """An R2MED task's generated JSON Lines files in its hub repository's ``folder``, named as
    ``files`` (the family's declared ``corpus``, ``queries`` and ``qrels`` paths): ``docs``
    distinct document ids in ``docs + repeats`` rows (each repeat at a random place, of an id
    met before it), and queries with gold documents and no exclusions; returns the distinct
    doc ids."""
    rng = random.Random(docs)
    rows = list(range(docs))
    for _ in range(repeats):
        at = rng.randrange(1, len(rows))
        rows.insert(at, rows[rng.randrange(at)])
    ids = [f"doc_{i}" for i in rows]
    texts, sampled = sampled_domain(ids, queries, words, seed=docs)
    _write_jsonl(folder / files["corpus"], ({"id": i, "text": t} for i, t in zip(ids, texts)))
    query_rows = (
        {"id": q.id, "text": q.text, "doc_id": q.gold, "answer": "", "body_system": ""}
        for q in sampled
    )
    _write_jsonl(folder / files["queries"], query_rows)
    qrels = ({"q_id": q.id, "p_id": gold, "score": 1} for q in sampled for gold in q.gold)
    _write_jsonl(folder / files["qrels"], qrels)
    return [f"doc_{i}" for i in range(docs)]


def write_tempo_domain(
    root: Path,
    path: str,
    domain: str,
    docs: int,
    queries: int,
    words: int,
    row_group_size: int | None = None,
) -> list[str]:
    """A TEMPO domain's generated ``documents`` (row groups as :func:`write_domain`'s) and
    ``examples`` under ``root`` (the hub repository's folder), at ``path`` (the family's
    declared ``{config}/{domain}.parquet``); each query's excluded documents are its
    ``negative_ids``, with an ``"N/A"``; returns the doc ids."""
    ids = [f"{domain}/doc_{i}.txt" for i in range(docs)]
    texts, sampled = sampled_domain(ids, queries, words, seed=docs)
    documents = root / path.format(config="documents", domain=domain)
    write_docs(documents, ids, _chunked(texts), row_group_size)
    rows = [
        {
            "id": f"{100_000 + int(q.id)}_0",
            "query": q.text,
            "gold_ids": q.gold,
            "negative_ids": [*q.excluded, "N/A"],
            "gold_answers": [f"<p>The answer to question {q.id}.</p>"],
        }
        for q in sampled
    ]
    examples = root / path.format(config="examples", domain=domain)
    examples.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), examples)
    return ids


def _write_jsonl(path: Path, rows: Iterable[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
