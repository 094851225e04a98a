"""evaluate / per_query / drop_excluded / read_run, against the reference in tests/protocol.py."""

from __future__ import annotations

import logging
import random
from fractions import Fraction

import ir_datasets
import ir_measures
import pandas as pd
import pytest
from ir_measures import ScoredDoc, nDCG

import ir_bright  # noqa: F401
from ir_bright.errors import DatasetNotFoundError, MeasureError, RunFormatError
from ir_bright.measures import Official
from ir_bright.runs import read_run
from ir_bright.scoring import Scorer, drop_excluded, evaluate, per_query
from tests import protocol
from tests.helpers import write_run

TOLERANCE = 1e-12
TEST_ID = "ir-bright-test/tiny"


def small_case():
    """Two queries, each with its excluded docs ranked first."""
    qrels = [("1", "gold-a", 1), ("1", "own", -100), ("2", "gold-b", 2), ("2", "gold-c", 1)]
    qrels += [("2", f"twin{i}", -100) for i in range(3)]
    run = [("1", "own", 9.0), ("1", "x", 5.0), ("1", "gold-a", 4.0)]
    run += [("2", f"twin{i}", 8.0) for i in range(3)] + [("2", "gold-c", 3.0), ("2", "y", 1.0)]
    return qrels, run


@pytest.fixture
def registered(monkeypatch):
    """Register a tiny dataset under TEST_ID; return a function registering others."""

    def add(qrels, official=("nDCG@10",), dataset_id=TEST_ID):
        dataset = protocol.tiny_dataset(qrels, official, dataset_id)
        monkeypatch.setitem(ir_datasets.registry._registered, dataset_id, dataset)
        return dataset

    return add


@pytest.mark.parametrize("seed", range(4))
def test_evaluate_run_file_equals_reference(tmp_path, seed):
    qrels, run = protocol.random_case(random.Random(seed), graded=seed % 2 == 0)
    names = ["nDCG@10", "R@1", "R@100", "P@10", "AP@100", "RR"]
    got = evaluate(write_run(tmp_path / "run.txt", run), protocol.tiny_dataset(qrels), names)
    assert list(got) == names
    for name in names:
        assert got[name] == pytest.approx(protocol.mean(name, qrels, run), abs=TOLERANCE)


def test_default_measures_are_the_datasets_official_ones(tmp_path):
    qrels, run = small_case()
    dataset = protocol.tiny_dataset(qrels, official=["nDCG@10", "R@1"])
    got = evaluate(write_run(tmp_path / "run", run), dataset)
    assert got == pytest.approx(
        {n: protocol.mean(n, qrels, run) for n in ["nDCG@10", "R@1"]}, abs=TOLERANCE
    )


def test_evaluate_accepts_a_dataset_id(registered, tmp_path):
    qrels, run = small_case()
    registered(qrels)
    got = evaluate(write_run(tmp_path / "run", run), TEST_ID)
    assert got["nDCG@10"] == pytest.approx(protocol.mean("nDCG@10", qrels, run), abs=TOLERANCE)


def test_every_run_shape_gives_the_same_scores(tmp_path):
    qrels, run = small_case()
    dataset = protocol.tiny_dataset(qrels)
    expected = evaluate(write_run(tmp_path / "run", run), dataset)
    shapes = [
        write_run(tmp_path / "run.gz", run, compress=True),
        str(tmp_path / "run"),
        pd.DataFrame(run, columns=["query_id", "doc_id", "score"]),
        pd.DataFrame(run, columns=["qid", "docno", "score"]).assign(rank=0, query="x"),
        [ScoredDoc(*row) for row in run],
        {q: {d: s for qq, d, s in run if qq == q} for q in {"1", "2"}},
    ]
    for shape in shapes:
        assert evaluate(shape, dataset) == expected


@pytest.mark.parametrize("seed", range(2))
def test_long_runs_in_memory_equal_the_reference_whatever_their_score_types(seed):
    """Runs of many slices (the scorer checks, filters and scores about a thousand entries at
    a time), given as dicts of floats, of exact fractions, of integers scaled from the floats
    (same order, same ties), as records and as a DataFrame: the reference's values."""
    qrels, run = protocol.random_case(random.Random(seed), queries=12)
    names = ["nDCG@10", "R@100", "AP@1000", "RR"]
    expected = {n: protocol.mean(n, qrels, run) for n in names}
    floats: dict[str, dict[str, float]] = {}
    for query_id, doc_id, score in run:
        floats.setdefault(query_id, {})[doc_id] = score
    shapes = [
        floats,
        {q: {d: Fraction(s) for d, s in docs.items()} for q, docs in floats.items()},
        {q: {d: int(s * 2**60) for d, s in docs.items()} for q, docs in floats.items()},
        [ScoredDoc(*row) for row in run],
        run_frame(run),
    ]
    scorer = Scorer(protocol.tiny_dataset(qrels), names)
    for shape in shapes:
        assert scorer.evaluate(shape) == pytest.approx(expected, abs=TOLERANCE)
    official = [Official(ir_measures.parse_measure(n)) for n in names]
    got = ir_measures.calc_aggregate(official, [ir_measures.Qrel(*q) for q in qrels], floats)
    assert {str(m.inner): v for m, v in got.items()} == pytest.approx(expected, abs=TOLERANCE)


def test_a_score_beyond_any_float_is_refused_in_one_line():
    qrels, _ = small_case()
    with pytest.raises(RunFormatError, match="'gold-a': score .* is not finite"):
        evaluate({"1": {"x": 1.0, "gold-a": 10**400}}, protocol.tiny_dataset(qrels))


def test_stock_ndcg_would_score_lower_than_evaluate(tmp_path):
    qrels, run = small_case()
    stock = ir_measures.calc_aggregate(
        [nDCG @ 10], [ir_measures.Qrel(*r) for r in qrels], [ScoredDoc(*r) for r in run]
    )[nDCG @ 10]
    assert evaluate(run_frame(run), protocol.tiny_dataset(qrels))["nDCG@10"] > stock + 0.1


def run_frame(run):
    return pd.DataFrame(run, columns=["query_id", "doc_id", "score"])


def test_measures_may_be_objects_names_or_already_official():
    qrels, run = small_case()
    dataset = protocol.tiny_dataset(qrels)
    got = evaluate(run_frame(run), dataset, [nDCG @ 10, "RR", Official(ir_measures.R @ 1)])
    assert list(got) == ["nDCG@10", "RR", "R@1"]
    assert evaluate(run_frame(run), dataset, "RR") == {"RR": got["RR"]}


def test_per_query_lists_every_scored_query_with_zero_for_missing_ones():
    qrels, run = small_case()
    qrels.append(("10", "gold-z", 1))
    got = per_query(run_frame(run), protocol.tiny_dataset(qrels), ["nDCG@10", "RR"])
    assert list(got) == ["1", "2", "10"]
    assert got["10"] == {"nDCG@10": 0.0, "RR": 0.0}
    expected = protocol.per_query("nDCG@10", qrels, run)["1"]
    assert got["1"]["nDCG@10"] == pytest.approx(expected, abs=TOLERANCE)


def test_scorer_reads_qrels_once_and_scores_many_runs(tmp_path):
    qrels, run = protocol.random_case(random.Random(9))
    _, other = protocol.random_case(random.Random(10))
    scorer = Scorer(protocol.tiny_dataset(qrels), ["nDCG@10"])
    for rows in [run, other]:
        got = scorer.evaluate(write_run(tmp_path / "r", rows))["nDCG@10"]
        assert got == pytest.approx(protocol.mean("nDCG@10", qrels, rows), abs=TOLERANCE)


@pytest.mark.parametrize(
    "line, message",
    [
        ("1 Q0 d 1 2.0", r"run\.txt line 2: expected 6 columns .* found 5"),
        ("1 Q0 d 1 high run", r"run\.txt line 2: score 'high' is not a number"),
        ("1 Q0 d 1 nan run", r"run\.txt line 2: score nan is not finite"),
        ("1 Q0 d 1 -inf run", r"run\.txt line 2: score -inf is not finite"),
        ("1 Q0 gold-a 7 1.0 run", r"run\.txt line 2: query '1' ranks doc 'gold-a' twice"),
    ],
)
def test_bad_run_lines_are_refused_with_file_and_line(tmp_path, line, message):
    path = tmp_path / "run.txt"
    path.write_text(f"1 Q0 gold-a 1 3.0 run\n{line}\n")
    with pytest.raises(RunFormatError, match=message) as caught:
        read_run(path)
    assert "\n" not in str(caught.value)


def test_run_text_is_read_like_a_file():
    assert read_run("1 Q0 a 1 3.0 run\n1 Q0 b 2 2.0 run\n") == {"1": {"a": 3.0, "b": 2.0}}
    with pytest.raises(RunFormatError, match="run text line 2: score 'x' is not a number"):
        read_run("1 Q0 a 1 3.0 run\n1 Q0 b 2 x run\n")


def test_blank_lines_are_skipped(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text("\n1 Q0 a 1 3.0 run\n   \n1 Q0 b 2 2.0 run\n")
    assert read_run(path) == {"1": {"a": 3.0, "b": 2.0}}


def test_missing_or_binary_run_files_are_refused(tmp_path):
    with pytest.raises(RunFormatError, match="no such run file"):
        read_run(tmp_path / "absent.run")
    (tmp_path / "bin.run").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(RunFormatError, match="not a text or gzip run file"):
        read_run(tmp_path / "bin.run")


def test_bad_dataframes_and_records_are_refused():
    with pytest.raises(RunFormatError, match="row 1: score nan is not finite"):
        read_run(run_frame([("1", "a", 1.0), ("1", "b", float("nan"))]))
    with pytest.raises(RunFormatError, match="row 1: query '1' ranks doc 'a' twice"):
        read_run(run_frame([("1", "a", 1.0), ("1", "a", 2.0)]))
    with pytest.raises(RunFormatError, match="needs columns query_id, doc_id, score"):
        read_run(pd.DataFrame({"q": ["1"], "d": ["a"], "s": [1.0]}))
    with pytest.raises(RunFormatError, match="record 2: score inf is not finite"):
        read_run([ScoredDoc("1", "a", 1.0), ScoredDoc("1", "b", float("inf"))])
    with pytest.raises(RunFormatError, match="record 1: expected a ScoredDoc"):
        read_run([("1", "a", 1.0)])
    with pytest.raises(RunFormatError, match="query '1' doc 'a': score nan"):
        read_run({"1": {"a": float("nan")}})


def test_a_bad_record_deep_in_a_generator_is_named_by_its_number():
    """Records are read a few thousand at a time: the number is the run's, not the chunk's."""
    records = [ScoredDoc(str(i // 1000), f"d{i}", 1.0) for i in range(9000)]
    records[8765] = ScoredDoc("8", "d8765", float("inf"))
    with pytest.raises(RunFormatError, match="record 8766: score inf is not finite"):
        read_run(iter(records))
    records[8765] = ScoredDoc("8", "d8765", 1.0)
    records[8192] = ScoredDoc("8", "d8191", 1.0)  # the record before it, in the chunk before
    with pytest.raises(RunFormatError, match="record 8193: query '8' ranks doc 'd8191' twice"):
        read_run(iter(records))


def test_a_run_mostly_for_other_queries_is_refused_as_the_wrong_dataset():
    qrels, _ = small_case()
    run = [("1", "gold-a", 1.0), ("77", "d", 1.0), ("78", "d", 1.0)]
    with pytest.raises(RunFormatError, match="2 of its 3 queries .* wrong dataset"):
        evaluate(run_frame(run), protocol.tiny_dataset(qrels, dataset_id="x/y"))


def test_a_run_missing_queries_is_scored_with_a_warning(caplog):
    qrels, run = small_case()
    run = [row for row in run if row[0] == "1"]
    with caplog.at_level(logging.WARNING, logger="ir_bright"):
        got = evaluate(run_frame(run), protocol.tiny_dataset(qrels))
    assert "no ranking for 1 of the 2 queries" in caplog.text and "they count as 0" in caplog.text
    assert got["nDCG@10"] == pytest.approx(protocol.mean("nDCG@10", qrels, run), abs=TOLERANCE)


def test_empty_run_scores_zero():
    qrels, _ = small_case()
    assert evaluate([], protocol.tiny_dataset(qrels), ["nDCG@10", "RR"]) == {
        "nDCG@10": 0.0,
        "RR": 0.0,
    }


@pytest.mark.parametrize(
    "measure, message",
    [
        ("ndcg@10", "cannot read measure 'ndcg@10'.*did you mean nDCG"),
        ("nDCG@", "cannot read measure 'nDCG@'"),
        ("nDCG(foo=1)@10", "cannot read measure"),
        ("alpha_nDCG@10", "no installed ir_measures provider computes alpha_nDCG@10"),
    ],
)
def test_bad_measures_are_refused_in_one_line(measure, message):
    qrels, run = small_case()
    with pytest.raises(MeasureError, match=message) as caught:
        evaluate(run_frame(run), protocol.tiny_dataset(qrels), [measure])
    assert "\n" not in str(caught.value)


def test_an_empty_measure_list_is_refused():
    qrels, run = small_case()
    with pytest.raises(MeasureError, match="no measures given"):
        evaluate(run_frame(run), protocol.tiny_dataset(qrels), [])


def test_a_dataset_without_official_measures_needs_measures():
    qrels, run = small_case()
    with pytest.raises(MeasureError, match="names no official measures"):
        evaluate(run_frame(run), protocol.tiny_dataset(qrels, official=None))


def test_unknown_dataset_ids_name_close_matches(registered):
    registered(small_case()[0])
    with pytest.raises(DatasetNotFoundError, match=f"did you mean {TEST_ID}"):
        evaluate([], TEST_ID + "y")


def test_drop_excluded_keeps_the_dataframe_shape():
    qrels, run = small_case()
    frame = pd.DataFrame(run, columns=["qid", "docno", "score"]).assign(rank=range(len(run)))
    frame.index = [f"i{i}" for i in range(len(run))]
    kept = drop_excluded(frame, protocol.tiny_dataset(qrels))
    assert list(kept.columns) == list(frame.columns)
    assert list(kept.index) == ["i1", "i2", "i6", "i7"]
    assert list(kept.docno) == ["x", "gold-a", "gold-c", "y"]


def test_drop_excluded_keeps_other_run_shapes(tmp_path):
    qrels, run = small_case()
    dataset = protocol.tiny_dataset(qrels)
    expected = [ScoredDoc(*r) for r in run if r[1] in {"x", "gold-a", "gold-c", "y"}]
    assert drop_excluded([ScoredDoc(*r) for r in run], dataset) == expected
    assert drop_excluded(write_run(tmp_path / "r", run), dataset) == expected
    assert drop_excluded(write_run(tmp_path / "r", run).read_text(), dataset) == expected
    as_dict = {"1": {"own": 9.0, "x": 5.0}, "3": {"own": 1.0}}
    assert drop_excluded(as_dict, dataset) == {"1": {"x": 5.0}, "3": {"own": 1.0}}
    empty = run_frame([])
    assert drop_excluded(empty, dataset).empty


def test_stock_measures_on_a_dropped_run_match_official_ones():
    qrels, run = protocol.random_case(random.Random(11), run_length=900, tie_at_cut=False)
    qrels = [row for row in qrels if row[0] != "only-excluded"]
    dataset = protocol.tiny_dataset(qrels)
    clean = drop_excluded(run_frame(run), dataset)
    positive = [ir_measures.Qrel(*r) for r in qrels if r[2] >= 0]
    stock = ir_measures.calc_aggregate([nDCG @ 10], positive, clean)[nDCG @ 10]
    assert evaluate(run_frame(run), dataset)["nDCG@10"] == pytest.approx(stock, abs=TOLERANCE)


@pytest.mark.pyterrier
def test_pyterrier_transformer_drops_excluded_rows_and_reranks():
    pytest.importorskip("pyterrier")
    from ir_bright.pyterrier import drop_excluded_transformer

    qrels, run = small_case()
    frame = pd.DataFrame(run, columns=["qid", "docno", "score"]).assign(
        rank=[0, 1, 2, 0, 1, 2, 3, 4]
    )
    transformer = drop_excluded_transformer(protocol.tiny_dataset(qrels))
    out = transformer(frame)
    assert list(out.columns) == list(frame.columns)
    assert list(zip(out.qid, out.docno, out["rank"])) == [
        ("1", "x", 0),
        ("1", "gold-a", 1),
        ("2", "gold-c", 0),
        ("2", "y", 1),
    ]
