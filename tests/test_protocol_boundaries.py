"""The official protocol pinned from both sides: the 1,000 cut, the exclusion step and the
tie order each fail a test here when moved by one in either direction.

The protocol (xlang-ai/BRIGHT ``retrievers.py`` ``get_scores``, commit 5ec4cb3): a query's
excluded ids are removed from its ranking, then the 1,000 best by score are kept; pytrec_eval
then ranks what is left by score descending, ties by doc id descending. Every expected value
below is worked out by hand from the constructed ranking (a gold document's rank is known by
construction), or by pytrec_eval itself on a ranking the test filtered and cut by hand;
never by ir_bright.
"""

from __future__ import annotations

import ir_datasets
import ir_measures
import pytest
import pytrec_eval
from ir_measures import AP, RR, Qrel, R, ScoredDoc, nDCG

import ir_bright  # noqa: F401 - registers Official with ir_measures
from ir_bright.measures import Official
from ir_bright.scoring import Scorer
from tests import protocol
from tests.helpers import write_run

TEST_ID = "ir-bright-test/boundaries"
DEEP = [Official(RR), Official(R @ 2000), Official(AP)]  # measures that read past rank 1,000


def ranked(count: int, prefix: str = "d") -> dict[str, float]:
    """``count`` docs with distinct scores: ``d0001`` is rank 1, ``d0002`` rank 2, ..."""
    return {f"{prefix}{rank:04d}": float(10_000 - rank) for rank in range(1, count + 1)}


def values(qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], measures=DEEP):
    """The measures through ir_measures, the same whether qrels and run are given as records
    (read column-wise) or as dicts of dicts (read without a copy)."""
    records = [Qrel(q, d, label) for q, docs in qrels.items() for d, label in docs.items()]
    scored = [ScoredDoc(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    got = ir_measures.calc_aggregate(measures, records, scored)
    assert ir_measures.calc_aggregate(measures, qrels, run) == got
    return got


def scorer_values(tmp_path, monkeypatch, qrels, run, names=("RR", "R@2000")):
    """The same through ``Scorer`` reading a run file (read and scored in parts)."""
    rows = [(q, d, label) for q, docs in qrels.items() for d, label in docs.items()]
    monkeypatch.setitem(
        ir_datasets.registry._registered, TEST_ID, protocol.tiny_dataset(rows, names, TEST_ID)
    )
    triples = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return Scorer(TEST_ID, list(names)).evaluate(write_run(tmp_path / "run.trec", triples))


# -- the depth cut: rank 1,000 counts, rank 1,001 does not ------------------------------------


@pytest.mark.parametrize("rank", [999, 1000, 1001, 1002])
def test_a_gold_document_counts_up_to_rank_1000_and_not_after(rank, tmp_path, monkeypatch):
    gold = f"d{rank:04d}"
    qrels = {"q": {gold: 1}}
    run = {"q": ranked(1500)}
    got = values(qrels, run)
    kept = rank <= 1000
    assert got[Official(RR)] == pytest.approx(1 / rank if kept else 0.0, abs=1e-12)
    assert got[Official(R @ 2000)] == (1.0 if kept else 0.0)
    assert got[Official(AP)] == pytest.approx(1 / rank if kept else 0.0, abs=1e-12)
    assert values(qrels, run, [RR])[RR] == pytest.approx(1 / rank)  # stock: never cut
    scored = scorer_values(tmp_path, monkeypatch, qrels, run)
    assert scored == pytest.approx({"RR": 1 / rank if kept else 0.0, "R@2000": float(kept)})


def test_the_cut_run_equals_pytrec_eval_on_the_hand_cut_ranking():
    qrels = {"q": {"d0010": 2, "d0500": 1, "d1000": 1, "d1001": 1, "d1400": 1}}
    run = {"q": ranked(1500)}
    by_hand = {"q": {d: s for d, s in run["q"].items() if int(d[1:]) <= 1000}}
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg", "recip_rank", "map"})
    expected = reference.evaluate(by_hand)["q"]
    got = values(qrels, run, [Official(nDCG), Official(RR), Official(AP)])
    assert got[Official(nDCG)] == pytest.approx(expected["ndcg"], abs=1e-12)
    assert got[Official(AP)] == pytest.approx(expected["map"], abs=1e-12)
    assert got[Official(RR)] == pytest.approx(expected["recip_rank"], abs=1e-12)
    uncut = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg"}).evaluate(run)["q"]["ndcg"]
    assert got[Official(nDCG)] != pytest.approx(uncut)  # the cut matters here


# -- the exclusion step: before the cut, exactly the labels below 0 ---------------------------


@pytest.mark.parametrize("excluded_above", [0, 1, 2])
def test_each_excluded_document_above_frees_one_rank(excluded_above):
    """Gold at raw rank 1,001: it counts only once an excluded doc above it is removed (then at
    rank 1,000); with two removed it is at rank 999."""
    qrels = {"q": {"d1001": 1, **{f"d{r:04d}": -100 for r in range(1, excluded_above + 1)}}}
    got = values(qrels, {"q": ranked(1500)})
    rank = 1001 - excluded_above
    assert got[Official(RR)] == pytest.approx(1 / rank if rank <= 1000 else 0.0, abs=1e-12)


@pytest.mark.parametrize("another", [False, True], ids=["alone", "beside an exclusion"])
@pytest.mark.parametrize(("label", "removed"), [(-101, True), (-2, True), (-1, True), (0, False)])
def test_labels_below_0_are_removed_and_0_stays_in_the_ranking(label, removed, another):
    """A doc ranked just above the gold doc with ``label``: removed (the gold doc moves up one
    rank) exactly when its label is below 0; judged 0 it keeps its rank. ``another``: an
    excluded doc at rank 1 as well, removed in any case."""
    qrels = {"q": {"d0002": label, "d0003": 1, "d0001": -100 if another else 0}}
    got = values(qrels, {"q": ranked(5)})
    rank = 3 - removed - another
    assert got[Official(RR)] == 1 / rank


def test_exclusion_happens_before_the_cut_not_after():
    """Ten excluded docs at the top: removed first, the 1,000 kept reach raw rank 1,010."""
    qrels = {"q": {"d1010": 1, "d1011": 1, **{f"d{r:04d}": -100 for r in range(1, 11)}}}
    got = values(qrels, {"q": ranked(1500)})
    assert got[Official(R @ 2000)] == 0.5  # d1010 at rank 1,000 kept, d1011 at 1,001 cut
    assert got[Official(RR)] == pytest.approx(1 / 1000, abs=1e-12)


# -- the tie order: score descending, then doc id descending ----------------------------------


@pytest.mark.parametrize(("gold", "rank"), [("b", 1), ("a", 2), ("c", 1)])
def test_tied_documents_rank_by_doc_id_descending(gold, rank):
    run = {"q": {"a": 1.0, "b": 1.0}} if gold != "c" else {"q": {"b": 1.0, "c": 1.0}}
    got = values({"q": {gold: 1}}, run, [Official(RR), Official(nDCG @ 1)])
    assert got[Official(RR)] == 1 / rank
    assert got[Official(nDCG @ 1)] == (1.0 if rank == 1 else 0.0)


@pytest.mark.parametrize("tied", [1001, 10_001])  # 10,001: the long-ranking path of the cut
@pytest.mark.parametrize(("offset", "kept"), [(0, True), (1, False)])
def test_a_tie_across_the_cut_keeps_the_largest_doc_ids(tied, offset, kept):
    """999 docs above, then ``tied`` docs of one score: the cut keeps the tied doc with the
    largest id (at rank 1,000) and drops the next one down."""
    run = {"q": {**ranked(999, "a"), **{f"t{i:05d}": 1.0 for i in range(tied)}}}
    gold = f"t{tied - 1 - offset:05d}"
    got = values({"q": {gold: 1}}, run, [Official(RR), Official(R @ 2000)])
    assert got[Official(RR)] == pytest.approx(1 / 1000 if kept else 0.0, abs=1e-12)
    assert got[Official(R @ 2000)] == (1.0 if kept else 0.0)


@pytest.mark.parametrize(("offset", "kept"), [(0, True), (1, False)])
def test_a_tie_across_a_short_cut_keeps_the_largest_doc_ids(offset, kept):
    """nDCG@10 alone reads each ranking's 10 best: the same tie rule at rank 10."""
    run = {"q": {**ranked(9, "a"), **{f"t{i:03d}": 1.0 for i in range(200)}}}
    gold = f"t{199 - offset:03d}"
    got = values({"q": {gold: 1}}, run, [Official(nDCG @ 10)])
    expected = 1 / 3.4594316186372973 if kept else 0.0  # 1 / log2(11)
    assert got[Official(nDCG @ 10)] == pytest.approx(expected, abs=1e-12)
