"""Official(measure) inside ir_measures, checked against the reference in tests/protocol.py."""

from __future__ import annotations

import random

import ir_measures
import pandas as pd
import pytest
from ir_measures import AP, MRR, RR, P, Qrel, R, ScoredDoc, Success, nDCG

import ir_bright  # noqa: F401  (registers Official with ir_measures)
from ir_bright.measures import Official
from ir_bright.scoring import provider as measures
from tests import protocol

NAMES = [
    "nDCG@1",
    "nDCG@10",
    "nDCG@100",
    "nDCG@1000",
    "R@1",
    "R@10",
    "R@1000",
    "R@2000",
    "P@1",
    "P@10",
    "AP@10",
    "AP@100",
    "RR",
    "Success@5",
]
TOLERANCE = 1e-12


def as_qrels(rows):
    return [Qrel(q, d, r) for q, d, r in rows]


def as_run(rows):
    return [ScoredDoc(q, d, s) for q, d, s in rows]


def official(names=NAMES):
    return [Official(ir_measures.parse_measure(n)) for n in names]


def assert_matches_reference(values, qrels, run, names=NAMES):
    for name in names:
        expected = protocol.mean(name, qrels, run)
        assert values[Official(ir_measures.parse_measure(name))] == pytest.approx(
            expected, abs=TOLERANCE
        ), name


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(8))
def test_calc_aggregate_equals_reference_on_random_realistic_runs(seed):
    qrels, run = protocol.random_case(random.Random(seed), graded=seed % 2 == 1)
    values = ir_measures.calc_aggregate(official(), as_qrels(qrels), as_run(run))
    assert_matches_reference(values, qrels, run)


@pytest.mark.parametrize("seed", range(3))
def test_iter_calc_per_query_equals_reference(seed):
    qrels, run = protocol.random_case(random.Random(100 + seed), graded=True)
    got = {}
    for metric in ir_measures.iter_calc(official(), as_qrels(qrels), as_run(run)):
        got[(str(metric.measure.inner), metric.query_id)] = metric.value
    for name in NAMES:
        for query_id, expected in protocol.per_query(name, qrels, run).items():
            assert got.pop((name, query_id)) == pytest.approx(expected, abs=TOLERANCE)
    assert not got, "metrics for queries the reference does not score"


def test_dataframe_and_dict_inputs_give_the_same_values():
    qrels, run = protocol.random_case(random.Random(7), graded=True)
    qrels_frame = pd.DataFrame(qrels, columns=["query_id", "doc_id", "relevance"])
    run_frame = pd.DataFrame(run, columns=["query_id", "doc_id", "score"])
    run_dict = {}
    for q, d, s in run:
        run_dict.setdefault(q, {})[d] = s
    for qrels_in, run_in in [(qrels_frame, run_frame), (as_qrels(qrels), run_dict)]:
        values = ir_measures.calc_aggregate(official(), qrels_in, run_in)
        assert_matches_reference(values, qrels, run)


def test_run_dict_given_by_the_caller_is_left_untouched():
    run = {"q": {"a": 1.0, "x": 2.0}}
    ir_measures.calc_aggregate(
        [Official(nDCG @ 10)], [Qrel("q", "a", 1), Qrel("q", "x", -100)], run
    )
    assert run == {"q": {"a": 1.0, "x": 2.0}}


def test_stock_ndcg_is_lower_where_excluded_docs_are_ranked_first():
    qrels = as_qrels([("q", "own-problem", -100), ("q", "gold", 1)])
    run = as_run([("q", "own-problem", 2.0), ("q", "gold", 1.0)])
    values = ir_measures.calc_aggregate([nDCG @ 10, Official(nDCG @ 10)], qrels, run)
    assert values[Official(nDCG @ 10)] == 1.0
    assert values[nDCG @ 10] == pytest.approx(1 / 1.5849625007211563)


def test_ties_at_the_cut_keep_the_larger_doc_ids_like_trec_eval():
    qrels = as_qrels([("q", "d0000", 1), ("q", "d1000", 1)])
    run = as_run([("q", f"d{i:04d}", 0.5) for i in range(1001)])
    values = ir_measures.calc_aggregate([Official(R @ 1000), R @ 1001], qrels, run)
    assert values[Official(R @ 1000)] == 0.5  # d0000 is the 1,001st: cut off
    assert values[R @ 1001] == 1.0


CUT_ONLY = ["nDCG@10", "P@5", "R@10", "AP@10", "Success@3", "nDCG@20"]


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_measures_of_the_top_k_alone_equal_the_reference_with_ties_at_k(seed):
    # alone (or with other top-k measures) they read only each ranking's best k; scores come
    # from few values, so ties straddle every cutoff
    qrels, run = protocol.random_case(random.Random(seed), graded=seed % 2 == 0)
    for name in CUT_ONLY:
        values = ir_measures.calc_aggregate(official([name]), as_qrels(qrels), as_run(run))
        assert_matches_reference(values, qrels, run, [name])
    values = ir_measures.calc_aggregate(official(CUT_ONLY), as_qrels(qrels), as_run(run))
    assert_matches_reference(values, qrels, run, CUT_ONLY)


def test_ties_at_a_short_cut_keep_the_larger_doc_ids_like_trec_eval():
    qrels = as_qrels([("q", "d0000", 0), ("q", "d0099", 1)])
    run = as_run([("q", f"d{i:04d}", 0.5) for i in range(100)] + [("q", "top", 0.9)])
    values = ir_measures.calc_aggregate([Official(nDCG @ 10), Official(P @ 2)], qrels, run)
    assert values[Official(P @ 2)] == 0.5  # top, then d0099; d0000 comes last
    assert values[Official(nDCG @ 10)] == pytest.approx(1 / 1.5849625007211563)  # 1 / log2(3)


def test_measures_whose_provider_breaks_ties_otherwise_see_the_whole_ranking():
    # ir_measures computes RR@10 itself (msmarco provider), ties by ascending doc id: given
    # trec_eval's 10 best (d0099 ... d0091), it would put d0099 10th, not 2nd
    qrels = as_qrels([("q", "d0000", 1), ("q", "d0099", 1)])
    run = as_run([("q", f"d{i:04d}", 0.5) for i in range(100)] + [("q", "top", 0.9)])
    stock = ir_measures.calc_aggregate([RR @ 10], qrels, run)[RR @ 10]
    values = ir_measures.calc_aggregate([Official(RR @ 10), Official(P @ 2)], qrels, run)
    assert values[Official(RR @ 10)] == stock == 0.5


def test_runs_longer_than_1000_are_cut_before_scoring():
    qrels = as_qrels([("q", "deep", 1)])
    run = as_run([("q", f"d{i}", 10.0 - i / 1000) for i in range(1500)] + [("q", "deep", 0.0)])
    values = ir_measures.calc_aggregate([Official(R @ 2000), R @ 2000], qrels, run)
    assert values[Official(R @ 2000)] == 0.0
    assert values[R @ 2000] == 1.0


def test_excluded_docs_do_not_count_toward_the_1000():
    qrels = as_qrels([("q", "gold", 1)] + [("q", f"x{i}", -100) for i in range(50)])
    run = as_run(
        [("q", f"x{i}", 5.0) for i in range(50)]
        + [("q", f"d{i}", 3.0 - i / 1000) for i in range(999)]
        + [("q", "gold", 0.0)]
    )
    assert ir_measures.calc_aggregate([Official(R @ 1000)], qrels, run)[Official(R @ 1000)] == 1.0


def test_graded_labels_are_linear_gains():
    qrels = as_qrels([("q", "two", 2), ("q", "one", 1)])
    run = as_run([("q", "one", 2.0), ("q", "two", 1.0)])
    value = ir_measures.calc_aggregate([Official(nDCG @ 10)], qrels, run)[Official(nDCG @ 10)]
    ideal = 2 + 1 / 1.5849625007211563
    assert value == pytest.approx((1 + 2 / 1.5849625007211563) / ideal, abs=TOLERANCE)


def test_queries_missing_from_the_run_count_as_zero_like_stock_measures():
    qrels = as_qrels([("a", "d", 1), ("b", "d", 1)])
    run = as_run([("a", "d", 1.0)])
    values = ir_measures.calc_aggregate([Official(P @ 1), P @ 1], qrels, run)
    assert values[Official(P @ 1)] == values[P @ 1] == 0.5


def test_queries_judged_only_by_exclusions_are_not_scored():
    qrels = as_qrels([("a", "d", 1), ("b", "x", -100)])
    metrics = list(ir_measures.iter_calc([Official(RR)], qrels, as_run([("b", "y", 1.0)])))
    assert [(m.query_id, m.value) for m in metrics] == [("a", 0.0)]


def test_empty_run_scores_zero_for_every_query():
    qrels = as_qrels([("a", "d", 1), ("b", "d", 2), ("b", "x", -100)])
    values = ir_measures.calc_aggregate([Official(nDCG @ 10), Official(RR)], qrels, [])
    assert values == {Official(nDCG @ 10): 0.0, Official(RR): 0.0}


def test_printed_name_parses_back():
    for measure in [nDCG @ 10, R @ 1, AP @ 100, RR, nDCG(judged_only=True) @ 5, P(rel=2) @ 10]:
        wrapped = Official(measure)
        assert str(wrapped) == f"Official({measure})"
        assert ir_measures.parse_measure(str(wrapped)) == wrapped
    assert ir_measures.util.parse_measure("Official(nDCG@10)") == Official(nDCG @ 10)
    assert ir_measures.parse_measure("nDCG@10") == nDCG @ 10


def test_official_never_equals_the_measure_it_wraps():
    assert Official(nDCG @ 10) != nDCG @ 10
    assert hash(Official(nDCG @ 10)) != hash(nDCG @ 10)
    assert Official(nDCG @ 10) == Official("nDCG@10") == Official(nDCG) @ 10
    assert Official(MRR) == Official(RR)


def test_wrapping_twice_or_wrapping_nothing_is_refused():
    with pytest.raises(ValueError, match="already official"):
        Official(Official(nDCG @ 10))
    with pytest.raises(ValueError, match="needs a measure"):
        ir_measures.parse_measure("Official")


def test_evaluator_built_once_scores_several_runs():
    qrels, run_a = protocol.random_case(random.Random(1))
    _, run_b = protocol.random_case(random.Random(2))
    evaluator = ir_measures.evaluator(official(), as_qrels(qrels))
    for run in [run_a, run_b, run_a]:
        assert_matches_reference(evaluator.calc_aggregate(as_run(run)), qrels, run)


def test_mixes_with_stock_measures_in_one_call():
    qrels, run = protocol.random_case(random.Random(3))
    # pytrec_eval crashes on a ranked query judged only below 0: stock measures need it gone
    qrels = [row for row in qrels if row[0] != "only-excluded"]
    stock = [nDCG @ 10, R @ 100, Success @ 1]
    together = ir_measures.calc_aggregate(stock + official(), as_qrels(qrels), as_run(run))
    alone = ir_measures.calc_aggregate(stock, as_qrels(qrels), as_run(run))
    assert {m: together[m] for m in stock} == alone
    assert_matches_reference(together, qrels, run)


def test_calc_gives_aggregates_and_per_query_metrics():
    qrels, run = protocol.random_case(random.Random(4))
    aggregated, per_query = ir_measures.calc([Official(nDCG @ 10)], as_qrels(qrels), as_run(run))
    expected = protocol.per_query("nDCG@10", qrels, run)
    assert {m.query_id: m.value for m in per_query} == pytest.approx(expected, abs=TOLERANCE)
    assert aggregated[Official(nDCG @ 10)] == pytest.approx(protocol.mean("nDCG@10", qrels, run))


def test_an_official_measure_s_own_calc_methods_drop_excluded_documents():
    qrels = as_qrels([("q", "x", -100), ("q", "a", 1)])
    run = as_run([("q", "x", 2.0), ("q", "a", 1.0)])
    assert Official(P @ 1).calc_aggregate(qrels, run) == 1.0
    assert [m.value for m in Official(P @ 1).iter_calc(qrels, run)] == [1.0]


def test_register_is_idempotent():
    measures.register()
    measures.register()
    names = [p.NAME for p in ir_measures.DefaultPipeline.providers]
    assert names.count("ir_bright") == 1
    assert ir_measures.providers.registry["ir_bright"] is measures.PROVIDER
    assert ir_measures.parse_measure("Official(RR)") == Official(RR)


def test_unsupported_inner_measure_is_reported_by_ir_measures():
    with pytest.raises(ValueError, match="Unsupported"):
        ir_measures.calc_aggregate([Official(nDCG(dcg="exp-log2", judged_only=True) @ 3)], [], [])


def excluded_first_case(queries=4):
    """Each query ranks 3 excluded docs, then noise, then its gold doc at rank 3 + q."""
    qrels, run = [], []
    for q in range(queries):
        qid = f"q{q}"
        qrels += [(qid, "gold", 1)] + [(qid, f"x{i}", -100) for i in range(3)]
        run += [(qid, f"x{i}", 100.0 - i) for i in range(3)]
        run += [(qid, f"n{i}", 50.0 - i) for i in range(q)] + [(qid, "gold", 10.0)]
    return qrels, run


@pytest.mark.pyterrier
def test_pyterrier_experiment_reports_official_values():
    pt = pytest.importorskip("pyterrier")
    qrels, run = excluded_first_case()
    topics = pd.DataFrame({"qid": sorted({q for q, _, _ in run}), "query": "x"})
    results = pd.DataFrame(run, columns=["qid", "docno", "score"])
    qrels_frame = pd.DataFrame(qrels, columns=["qid", "docno", "label"])
    table = pt.Experiment(
        [results], topics, qrels_frame, [Official(nDCG @ 10), nDCG @ 10], names=["run"]
    )
    row = table.iloc[0]
    assert row["Official(nDCG@10)"] == pytest.approx(protocol.mean("nDCG@10", qrels, run))
    assert row["nDCG@10"] < row["Official(nDCG@10)"]
    scores = pt.Evaluate(results, qrels_frame, metrics=[Official(RR)])
    assert scores["Official(RR)"] == pytest.approx(protocol.mean("RR", qrels, run))


class _Unused(ir_measures.providers.Provider):
    """A provider that supports no measure and records whether it was asked to start."""

    NAME = "unused-probe"
    asked = False

    def supports(self, measure):
        return False

    def is_available(self):
        type(self).asked = True
        return True


def test_scoring_starts_no_provider_that_supports_none_of_the_measures(monkeypatch):
    """ir_measures' own qrel_inputs asks every provider whether it is available, which imports
    it (ranx, where installed, took 2.8 s of every evaluate): the official evaluator asks only
    the providers that compute one of its measures."""
    pipeline = ir_measures.DefaultPipeline.providers
    monkeypatch.setattr(ir_measures.DefaultPipeline, "providers", [*pipeline, _Unused()])
    qrels = [Qrel("q", "a", 1), Qrel("q", "b", -100)]
    run = [ScoredDoc("q", "b", 2.0), ScoredDoc("q", "a", 1.0)]
    result = ir_measures.calc_aggregate([Official(nDCG @ 10)], qrels, run)
    assert result[Official(nDCG @ 10)] == 1.0  # b is excluded, so a is ranked first
    assert not _Unused.asked
