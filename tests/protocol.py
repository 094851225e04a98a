"""An independent, pure-Python reference of the official BRIGHT / MM-BRIGHT scoring protocol.

Written from the protocol's description, not from ir_bright, ir_measures or pytrec_eval:

1. qrels below 0 mark excluded documents, removed from that query's ranking;
2. the ranking is sorted by score descending, ties by doc id descending (trec_eval's order),
   and cut to its 1,000 best;
3. the measures are computed on the cut ranking against the judgements of 0 and above:
   nDCG@k with linear gains (gain = label) and the ideal DCG from the qrels' positive labels,
   R@k, P@k, AP@k, RR and Success@k with "relevant" meaning a label of 1 or more;
4. a query is scored if it has a judgement of 0 or more; a scored query without a ranking
   scores 0; the figure is the mean over the scored queries (``trec_eval -c``).

:func:`shared_mean` is BEIR's figure instead (RAR-b's protocol): the mean over the scored
queries the run ranks (pytrec_eval scores only those; BEIR divides by their number).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

DEPTH = 1000


def split(qrels: Iterable[tuple[str, str, int]]):
    """``(judged, excluded)``: ``{q: {doc: label >= 0}}`` and ``{q: {docs labelled < 0}}``."""
    judged: dict[str, dict[str, int]] = {}
    excluded: dict[str, set[str]] = {}
    for query_id, doc_id, label in qrels:
        if label < 0:
            excluded.setdefault(query_id, set()).add(doc_id)
        else:
            judged.setdefault(query_id, {})[doc_id] = label
    return judged, excluded


def ranking(scores: dict[str, float], excluded: set[str], depth: int = DEPTH) -> list[str]:
    """Doc ids of one query: excluded ones removed, best first, ties by doc id descending."""
    kept = [(score, doc_id) for doc_id, score in scores.items() if doc_id not in excluded]
    kept.sort(reverse=True)
    return [doc_id for _, doc_id in kept[:depth]]


def ndcg(ranked: list[str], labels: dict[str, int], k: int) -> float:
    """nDCG@k, gain = label, discount log2(rank + 1)."""
    dcg = sum(max(labels.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted((g for g in labels.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def _relevant(labels: dict[str, int]) -> set[str]:
    return {d for d, g in labels.items() if g >= 1}


def recall(ranked: list[str], labels: dict[str, int], k: int) -> float:
    """R@k: share of the relevant docs found in the top k."""
    relevant = _relevant(labels)
    return len(relevant.intersection(ranked[:k])) / len(relevant) if relevant else 0.0


def precision(ranked: list[str], labels: dict[str, int], k: int) -> float:
    """P@k: relevant docs in the top k over k (even if fewer are ranked)."""
    return len(_relevant(labels).intersection(ranked[:k])) / k


def average_precision(ranked: list[str], labels: dict[str, int], k: int) -> float:
    """AP@k: sum of precision at each relevant rank up to k, over all relevant docs."""
    relevant = _relevant(labels)
    hits, total = 0, 0.0
    for i, doc_id in enumerate(ranked[:k]):
        if doc_id in relevant:
            hits += 1
            total += hits / (i + 1)
    return total / len(relevant) if relevant else 0.0


def reciprocal_rank(ranked: list[str], labels: dict[str, int]) -> float:
    """RR: 1 / rank of the first relevant doc, 0 if none."""
    relevant = _relevant(labels)
    return next((1 / (i + 1) for i, d in enumerate(ranked) if d in relevant), 0.0)


def success(ranked: list[str], labels: dict[str, int], k: int) -> float:
    """Success@k: 1 if a relevant doc is in the top k."""
    return 1.0 if _relevant(labels).intersection(ranked[:k]) else 0.0


MEASURES = {
    "nDCG": ndcg,
    "R": recall,
    "P": precision,
    "AP": average_precision,
    "Success": success,
}


def value(name: str, ranked: list[str], labels: dict[str, int]) -> float:
    """One measure named like ``"nDCG@10"`` or ``"RR"`` on one query."""
    if name == "RR":
        return reciprocal_rank(ranked, labels)
    measure, k = name.split("@")
    return MEASURES[measure](ranked, labels, int(k))


def per_query(
    name: str, qrels: Iterable[tuple[str, str, int]], run: Iterable[tuple[str, str, float]]
) -> dict[str, float]:
    """``{query_id: value}`` for every scored query."""
    judged, excluded = split(qrels)
    scores: dict[str, dict[str, float]] = {}
    for query_id, doc_id, score in run:
        scores.setdefault(query_id, {})[doc_id] = score
    return {
        q: value(name, ranking(scores.get(q, {}), excluded.get(q, set())), labels)
        for q, labels in judged.items()
    }


def mean(
    name: str, qrels: Iterable[tuple[str, str, int]], run: Iterable[tuple[str, str, float]]
) -> float:
    """The mean of one measure over the scored queries."""
    values = per_query(name, list(qrels), list(run))
    return sum(values.values()) / len(values) if values else float("nan")


def shared_mean(
    name: str, qrels: Iterable[tuple[str, str, int]], run: Iterable[tuple[str, str, float]]
) -> float:
    """The mean of one measure over the scored queries the run has (BEIR's evaluator)."""
    run = list(run)
    ranked = {query_id for query_id, _, _ in run}
    values = per_query(name, list(qrels), run)
    shared = [value for query_id, value in values.items() if query_id in ranked]
    return sum(shared) / len(shared) if shared else float("nan")


# --- realistic random shapes the tests compare ir_bright with the reference on ---------------


def random_case(
    rng,
    queries: int = 6,
    excluded: int = 3000,
    run_length: int = 1400,
    graded: bool = False,
    tie_at_cut: bool = True,
) -> tuple[list[tuple[str, str, int]], list[tuple[str, str, float]]]:
    """``(qrels, run)`` shaped like BRIGHT's worst domains.

    Per query: a few relevant docs (labels 1, or 1 and 2 if ``graded``), up to ``excluded``
    excluded docs (-100), a run of up to ``run_length`` docs where excluded docs are often
    ranked first, scores drawn from few values (ties), optionally a block of equal scores
    straddling rank 1,000 after exclusion; some queries have no ranking, the run has a query
    the qrels do not know, and one query is judged only by exclusions.
    """
    qrels: list[tuple[str, str, int]] = []
    run: list[tuple[str, str, float]] = []
    for q in range(queries):
        query_id = f"q{q}"
        pool = [f"doc/{q}/{i}.txt" for i in range(run_length + excluded + 50)]
        rng.shuffle(pool)
        gold = pool[: rng.randint(1, 6)]
        gone = pool[len(gold) : len(gold) + rng.randint(0, excluded)]
        qrels += [(query_id, d, rng.choice([1, 2]) if graded else 1) for d in gold]
        qrels += [(query_id, d, 0) for d in pool[-3:]]
        qrels += [(query_id, d, -100) for d in gone]
        if q % 5 == 4:
            continue  # a query missing from the run
        run += _ranking(rng, query_id, pool, gone, run_length, tie_at_cut)
    qrels += [("only-excluded", "doc/x.txt", -100)]
    run += [("not-in-qrels", "doc/y.txt", 1.0), ("only-excluded", "doc/z.txt", 2.0)]
    return qrels, run


def _ranking(rng, query_id, pool, gone, run_length, tie_at_cut):
    docs = rng.sample(pool, min(len(pool), rng.randint(run_length // 2, run_length)))
    scores = {d: float(rng.randint(0, 400)) / 4 for d in docs}
    for d in gone[: rng.randint(0, 30)]:
        scores[d] = 1000.0 + rng.random()  # excluded docs ranked first
    if tie_at_cut:
        kept = ranking(scores, set(gone), depth=len(scores))
        for d in kept[980:1020]:
            scores[d] = -1.0
        for d in kept[1020:]:
            scores[d] = -2.0
    return [(query_id, d, s) for d, s in scores.items()]


def tiny_dataset(qrels, official=("nDCG@10",), dataset_id: str | None = None):
    """An ir_datasets Dataset with these qrels and documentation naming ``official``."""
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrel

    class Qrels:
        def qrels_iter(self):
            return (TrecQrel(q, d, r, "0") for q, d, r in qrels)

        def qrels_cls(self):
            return TrecQrel

        def qrels_defs(self):
            return {1: "relevant", -100: "excluded"}

        def qrels_handler(self):
            return self

    class Documentation:
        def documentation(self):
            return {"official_measures": list(official)} if official is not None else {}

    class Identity:
        def dataset_id(self):
            return dataset_id

    return Dataset(Qrels(), Documentation(), Identity() if dataset_id else None)
