"""BRIGHT-Pro's aspect measures against a from-scratch reference of the official scripts.

The reference below works as the official scripts do (yale-nlp/Bright-Pro,
``retrieval/evaluation/alpha-ndcg-evaluation.py`` and ``weighted_aspect_recall.py``): from the
raw ``examples`` and ``aspects`` rows and a score.json-like ``{qid: {doc: score}}``. The
measures under test only see ``pro_qrels`` (the datasets' qrels) and the run.
"""

from __future__ import annotations

import math
import random
import re

import ir_measures
import pytest
from ir_measures import ScoredDoc

import ir_bright  # noqa: F401 - registers the measures
from ir_bright import Official
from ir_bright.families.brightpro.aspects import Aspects, parse_aspects, pro_qrels
from ir_bright.families.brightpro.records import BrightProQrel
from ir_bright.measures import A_Recall, wAlpha_nDCG

# --- the reference ------------------------------------------------------------------------------


def reference_maps(aspect_rows):
    doc_to_aspect, raw, stem_of, totals = {}, {}, {}, {}
    for row in aspect_rows:
        for doc in row["supporting_docs"]:
            doc_to_aspect[str(doc)] = str(row["id"])
        stem = re.sub(r"-(?:a\d+|aspect-\d+)$", "", str(row["id"]))
        stem_of[str(row["id"])] = stem
        raw[str(row["id"])] = float(row["weight"])
        totals[stem] = totals.get(stem, 0.0) + float(row["weight"])
    weights = {
        a: (w / totals[stem_of[a]] if totals[stem_of[a]] > 0 else 0.0) for a, w in raw.items()
    }
    return doc_to_aspect, weights


def reference_ranking(entry):
    return [d for d, _ in sorted(entry.items(), key=lambda item: item[1], reverse=True)]


def reference_alpha_ndcg(scores, examples, aspect_rows, alpha, k):
    doc_to_aspect, weights = reference_maps(aspect_rows)
    values = []
    for example in examples:
        qid = str(example["id"])
        if qid not in scores or not example["gold_ids"]:
            continue
        gold = [str(g) for g in example["gold_ids"]]
        dcg, seen = 0.0, {}
        for i, doc in enumerate(reference_ranking(scores[qid])[:k], start=1):
            if doc in gold and doc in doc_to_aspect:
                a = doc_to_aspect[doc]
                dcg += weights[a] * (1 - alpha) ** seen.get(a, 0) / math.log2(i + 1)
                seen[a] = seen.get(a, 0) + 1
        remaining = {}
        for doc in gold:
            if doc in doc_to_aspect:
                remaining[doc_to_aspect[doc]] = remaining.get(doc_to_aspect[doc], 0) + 1
        used = {a: 0 for a in remaining}
        idcg = 0.0
        for i in range(1, k + 1):
            pick, gain = None, 0.0
            for a in remaining:
                if remaining[a] > 0:
                    g = weights[a] * (1 - alpha) ** used[a] / math.log2(i + 1)
                    if g > gain:
                        pick, gain = a, g
            if pick is None:
                break
            idcg += gain
            remaining[pick] -= 1
            used[pick] += 1
        if idcg > 0:
            values.append(dcg / idcg)
    return sum(values) / len(values) if values else 0.0


def reference_a_recall(scores, examples, aspect_rows, k):
    doc_to_aspect, weights = reference_maps(aspect_rows)
    values = []
    for example in examples:
        qid = str(example["id"])
        if qid not in scores or not example["gold_ids"]:
            continue
        wanted = {doc_to_aspect[str(g)] for g in example["gold_ids"] if str(g) in doc_to_aspect}
        found = {doc_to_aspect.get(d) for d in reference_ranking(scores[qid])[:k]} & wanted
        values.append(sum(weights[a] for a in found) if wanted else 0.0)
    return sum(values) / len(values) if values else 0.0


# --- random BRIGHT-Pro-like domains ---------------------------------------------------------------


def random_domain(seed):
    """Examples, aspects and a run with ties: several aspects per query, aspects no ranked doc
    supports, queries without gold, docs gold for two queries (the last aspect listing wins),
    aspects listing a doc that is not gold, both aspect id forms, integer query ids."""
    rng = random.Random(seed)
    docs = [f"doc/{i}.txt" for i in range(60)]
    examples, aspect_rows = [], []
    for qid in range(14):
        if qid % 5 == 4:
            examples.append({"id": qid, "gold_ids": []})
            continue
        gold = rng.sample(docs, rng.randint(1, 9))
        examples.append({"id": qid, "gold_ids": gold})
        n_aspects = rng.randint(1, 4)
        form = "-a{}" if qid % 3 else "-aspect-{}"
        groups = [[] for _ in range(n_aspects)]
        for doc in gold:
            if rng.random() < 0.9:  # some gold docs have no aspect
                groups[rng.randrange(n_aspects)].append(doc)
        for k, group in enumerate(groups, start=1):
            if rng.random() < 0.2:
                group.append(rng.choice(docs))  # listed by the aspect, not gold here
            aspect_rows.append(
                {
                    "id": f"biology-{qid}" + form.format(k),
                    "content": f"aspect {k} of {qid}",
                    "weight": rng.choice([1, 2, 3]),
                    "supporting_docs": group,
                }
            )
    scores = {}
    for example in examples:
        if rng.random() < 0.15:
            continue  # a query absent from the run
        ranked = rng.sample(docs, rng.randint(1, 40))  # a run cannot list a query without docs
        scores[str(example["id"])] = {d: float(rng.randint(0, 6)) for d in ranked}
    return examples, aspect_rows, scores


def aspect_qrels(examples, aspect_rows):
    aspects = Aspects(parse_aspects(aspect_rows))
    return [
        qrel
        for example in examples
        for qrel in pro_qrels(str(example["id"]), example["gold_ids"], (), aspects)
    ]


def run_of(scores):
    return [ScoredDoc(q, d, s) for q, docs in scores.items() for d, s in docs.items()]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("k", [1, 5, 25])
def test_measures_equal_the_official_scripts_on_random_domains(seed, k):
    examples, aspect_rows, scores = random_domain(seed)
    qrels = aspect_qrels(examples, aspect_rows)
    measures = [
        wAlpha_nDCG @ k,
        wAlpha_nDCG(alpha=0.3) @ k,
        wAlpha_nDCG(alpha=1.0) @ k,
        A_Recall @ k,
    ]
    values = ir_measures.calc_aggregate(measures, qrels, run_of(scores))
    assert values[wAlpha_nDCG @ k] == pytest.approx(
        reference_alpha_ndcg(scores, examples, aspect_rows, 0.5, k), abs=1e-12
    )
    assert values[wAlpha_nDCG(alpha=0.3) @ k] == pytest.approx(
        reference_alpha_ndcg(scores, examples, aspect_rows, 0.3, k), abs=1e-12
    )
    assert values[wAlpha_nDCG(alpha=1.0) @ k] == pytest.approx(
        reference_alpha_ndcg(scores, examples, aspect_rows, 1.0, k), abs=1e-12
    )
    assert values[A_Recall @ k] == pytest.approx(
        reference_a_recall(scores, examples, aspect_rows, k), abs=1e-12
    )


@pytest.mark.parametrize("seed", range(4))
def test_official_wrapper_and_dataframes_give_the_same_values(seed):
    examples, aspect_rows, scores = random_domain(seed)
    qrels = aspect_qrels(examples, aspect_rows)
    expected = reference_alpha_ndcg(scores, examples, aspect_rows, 0.5, 25)
    recall = reference_a_recall(scores, examples, aspect_rows, 25)
    wrapped = ir_measures.calc_aggregate(
        [Official(wAlpha_nDCG @ 25), Official(A_Recall @ 25)], iter(qrels), run_of(scores)
    )
    assert wrapped[Official(wAlpha_nDCG @ 25)] == pytest.approx(expected, abs=1e-12)
    assert wrapped[Official(A_Recall @ 25)] == pytest.approx(recall, abs=1e-12)
    import pandas as pd

    frame = pd.DataFrame(qrels, columns=BrightProQrel._fields)
    run_frame = pd.DataFrame(run_of(scores))
    values = ir_measures.calc_aggregate([wAlpha_nDCG @ 25, A_Recall @ 25], frame, run_frame)
    assert values[wAlpha_nDCG @ 25] == pytest.approx(expected, abs=1e-12)
    assert values[A_Recall @ 25] == pytest.approx(recall, abs=1e-12)


def test_alpha_ndcg_and_aspect_recall_equal_a_hand_computed_query():
    # aspects a1 (weight 2 -> 2/3: d1, d2) and a2 (weight 1 -> 1/3: d3); ranking d1, x, d2, d3
    rows = [
        {"id": "biology-0-a1", "content": "", "weight": 2, "supporting_docs": ["d1", "d2"]},
        {"id": "biology-0-a2", "content": "", "weight": 1, "supporting_docs": ["d3"]},
    ]
    qrels = list(pro_qrels("0", ["d1", "d2", "d3"], (), Aspects(parse_aspects(rows))))
    run = [ScoredDoc("0", d, s) for d, s in [("d1", 4), ("x", 3), ("d2", 2), ("d3", 1)]]
    dcg = 2 / 3 + (2 / 3) * 0.5 / math.log2(4) + (1 / 3) / math.log2(5)
    ideal = 2 / 3 + (1 / 3) / math.log2(3) + (1 / 3) / math.log2(4)
    values = ir_measures.calc_aggregate([wAlpha_nDCG @ 25, A_Recall @ 2, A_Recall @ 4], qrels, run)
    assert values[wAlpha_nDCG @ 25] == pytest.approx(dcg / ideal, abs=1e-12)
    assert values[A_Recall @ 2] == pytest.approx(2 / 3)
    assert values[A_Recall @ 4] == pytest.approx(1.0)


def test_skipped_queries_are_nan_per_query_and_left_out_of_the_mean():
    rows = [{"id": "x-1-a1", "content": "", "weight": 1, "supporting_docs": ["g"]}]
    aspects = Aspects(parse_aspects(rows))
    qrels = [*pro_qrels("1", ["g"], (), aspects), *pro_qrels("2", ["g"], (), aspects)]
    run = [ScoredDoc("1", "g", 1.0)]  # query 2 absent from the run: skipped, not 0
    per_query = {m.query_id: m.value for m in ir_measures.iter_calc([wAlpha_nDCG @ 25], qrels, run)}
    assert per_query["1"] == 1.0 and math.isnan(per_query["2"])
    assert ir_measures.calc_aggregate([wAlpha_nDCG @ 25, A_Recall @ 25], qrels, run) == {
        wAlpha_nDCG @ 25: 1.0,
        A_Recall @ 25: 1.0,
    }
    assert ir_measures.calc_aggregate([wAlpha_nDCG @ 25], qrels, []) == {wAlpha_nDCG @ 25: 0.0}


def test_ties_keep_the_run_order():
    rows = [{"id": "x-1-a1", "content": "", "weight": 1, "supporting_docs": ["g"]}]
    qrels = list(pro_qrels("1", ["g"], (), Aspects(parse_aspects(rows))))
    first = [ScoredDoc("1", "g", 1.0), ScoredDoc("1", "z", 1.0)]
    second = [ScoredDoc("1", "z", 1.0), ScoredDoc("1", "g", 1.0)]
    assert wAlpha_nDCG(cutoff=25).calc_aggregate(qrels, first) == 1.0
    assert wAlpha_nDCG(cutoff=25).calc_aggregate(qrels, second) == pytest.approx(1 / math.log2(3))


@pytest.mark.parametrize(
    "name", ["wAlpha_nDCG@25", "wAlpha_nDCG(alpha=0.3)@10", "A_Recall@25", "wAlpha_nDCG"]
)
def test_names_round_trip_through_parse_measure(name):
    measure = ir_measures.parse_measure(name)
    assert ir_measures.parse_measure(str(measure)) == measure
    assert ir_measures.parse_measure(f"Official({name})") == Official(measure)


def test_default_alpha_is_half():
    assert ir_measures.parse_measure("wAlpha_nDCG(alpha=0.5)@25") == wAlpha_nDCG @ 25
    assert str(wAlpha_nDCG @ 25) == "wAlpha_nDCG@25"


@pytest.mark.parametrize(
    "measure",
    ["wAlpha_nDCG(alpha=1.5)@25", wAlpha_nDCG(alpha=-0.5) @ 25, wAlpha_nDCG(alpha=math.nan)],
)
def test_alpha_outside_0_to_1_is_refused(measure):
    from ir_bright.errors import MeasureError
    from ir_bright.scoring import parse_measures

    with pytest.raises(MeasureError, match="invalid param alpha="):
        parse_measures([measure])


def test_alpha_of_integer_0_or_1_is_the_float_one():
    qrels = [BrightProQrel("1", d, 1, "0", a, 0.5) for d, a in [("a", "x"), ("b", "x"), ("c", "y")]]
    run = [ScoredDoc("1", "a", 3.0), ScoredDoc("1", "b", 2.0), ScoredDoc("1", "c", 1.0)]
    for alpha in (0, 1):
        integer = ir_measures.parse_measure(f"wAlpha_nDCG(alpha={alpha})@25")  # once invalid
        expected = ir_measures.calc_aggregate([wAlpha_nDCG(alpha=float(alpha)) @ 25], qrels, run)
        assert ir_measures.calc_aggregate([integer], qrels, run) == {integer: expected.popitem()[1]}


def test_qrels_without_aspects_are_refused():
    qrels = [ir_measures.Qrel("1", "g", 1)]
    with pytest.raises(ValueError, match="aspect_id"):
        ir_measures.calc_aggregate([A_Recall @ 25], qrels, [ScoredDoc("1", "g", 1.0)])


def test_exclusions_are_minus_100_without_aspect_and_na_is_skipped():
    rows = [{"id": "x-1-a1", "content": "", "weight": 1, "supporting_docs": ["g"]}]
    qrels = list(pro_qrels("1", ["g", "N/A"], ["N/A", "own"], Aspects(parse_aspects(rows))))
    assert qrels == [
        BrightProQrel("1", "g", 1, "0", "x-1-a1", 1.0),
        BrightProQrel("1", "own", -100, "0", "", 0.0),
    ]


@pytest.mark.parametrize("side", ["run", "qrels", "both"])
def test_integer_query_ids_score_as_their_text(side):
    """A DataFrame with integer query ids (as pandas reads ``0``) scores as Official does: as
    the text ids, never silently 0. Values computed by hand as in the query above."""
    import pandas as pd

    rows = [
        {"id": "biology-0-a1", "content": "", "weight": 2, "supporting_docs": ["d1", "d2"]},
        {"id": "biology-0-a2", "content": "", "weight": 1, "supporting_docs": ["d3"]},
    ]
    qrels = pd.DataFrame(
        list(pro_qrels("0", ["d1", "d2", "d3"], (), Aspects(parse_aspects(rows)))),
        columns=BrightProQrel._fields,
    )
    run = pd.DataFrame(
        {"query_id": ["0"] * 4, "doc_id": ["d1", "x", "d2", "d3"], "score": [4.0, 3, 2, 1]}
    )
    if side in ("run", "both"):
        run["query_id"] = run["query_id"].astype(int)
    if side in ("qrels", "both"):
        qrels["query_id"] = qrels["query_id"].astype(int)
    dcg = 2 / 3 + (2 / 3) * 0.5 / math.log2(4) + (1 / 3) / math.log2(5)
    ideal = 2 / 3 + (1 / 3) / math.log2(3) + (1 / 3) / math.log2(4)
    measures = [wAlpha_nDCG @ 25, A_Recall @ 2, Official(wAlpha_nDCG @ 25)]
    values = ir_measures.calc_aggregate(measures, qrels, run)
    assert values[wAlpha_nDCG @ 25] == pytest.approx(dcg / ideal, abs=1e-12)
    assert values[Official(wAlpha_nDCG @ 25)] == pytest.approx(dcg / ideal, abs=1e-12)
    assert values[A_Recall @ 2] == pytest.approx(2 / 3, abs=1e-12)
