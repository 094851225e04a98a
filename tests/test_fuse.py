"""Run fusion: RRF, CombSUM, CombMNZ and weighted sum, against formulas computed here and
against ranx's ``fuse`` where ranx installs."""

from __future__ import annotations

import io
import math
import random

import pytest

from ir_bright.cli import main
from ir_bright.errors import RunFormatError
from ir_bright.pipelines import FusionError, fuse, normalise
from ir_bright.runs.write import RankedDoc, write_trec


def random_runs(count=3, queries=20, docs=60, seed=7):
    """``count`` runs over the same queries, distinct scores (no ties), overlapping docs."""
    rng = random.Random(seed)
    runs = []
    for _ in range(count):
        run = {}
        for q in range(queries):
            chosen = rng.sample(range(docs * 2), docs)
            run[f"q{q}"] = {f"d{d}": rng.uniform(-5, 30) for d in chosen}
        runs.append(run)
    return runs


def expected_rrf(runs, k=60):
    """RRF by its definition (Cormack et al., SIGIR 2009): sum over runs of 1 / (k + rank)."""
    fused = {}
    for query_id in runs[0]:
        scores = {}
        for run in runs:
            ordered = sorted(run.get(query_id, {}).items(), key=lambda kv: -kv[1])
            for rank, (doc_id, _) in enumerate(ordered, 1):
                scores[doc_id] = scores.get(doc_id, 0.0) + 1 / (k + rank)
        fused[query_id] = scores
    return fused


def expected_wsum_min_max(runs, weights):
    fused = {}
    for query_id in runs[0]:
        scores = {}
        for weight, run in zip(weights, runs):
            ranking = run.get(query_id, {})
            low, high = min(ranking.values()), max(ranking.values())
            for doc_id, score in ranking.items():
                scores[doc_id] = scores.get(doc_id, 0.0) + weight * (score - low) / (high - low)
        fused[query_id] = scores
    return fused


def top(scores, n=10):
    """The ``n`` best ids in trec_eval's order: score descending, ties by doc id descending."""
    return [d for d, _ in sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:n]]


def assert_same_run(got, expected, tolerance=1e-6):
    assert list(got) == list(expected)
    for query_id, scores in expected.items():
        assert set(got[query_id]) == set(scores)
        for doc_id, score in scores.items():
            assert got[query_id][doc_id] == pytest.approx(score, abs=tolerance)
        assert top(got[query_id]) == top(scores)


def test_rrf_with_k_60_sums_reciprocal_ranks():
    runs = random_runs()
    assert_same_run(fuse(runs, "rrf", depth=None), expected_rrf(runs, 60))


def test_rrf_k_is_a_parameter():
    runs = random_runs(2)
    assert_same_run(fuse(runs, "rrf", rrf_k=1, depth=None), expected_rrf(runs, 1))
    assert fuse(runs, "rrf", rrf_k=1, depth=None) != fuse(runs, "rrf", rrf_k=60, depth=None)


def test_weighted_sum_of_min_max_normalised_scores():
    runs = random_runs()
    weights = [0.5, 0.3, 0.2]
    got = fuse(runs, "wsum", "min-max", weights, depth=None)
    assert_same_run(got, expected_wsum_min_max(runs, weights))


def test_combmnz_multiplies_the_sum_by_the_number_of_runs_ranking_the_doc():
    runs = [{"q": {"a": 4.0, "b": 2.0, "c": 0.0}}, {"q": {"a": 1.0, "d": 3.0}}]
    # min-max: run 1 a=1, b=0.5, c=0; run 2 a=0, d=1
    got = fuse(runs, "combmnz", depth=None)
    assert got == {"q": {"a": pytest.approx(2.0), "d": 1.0, "b": 0.5, "c": 0.0}}
    assert fuse(runs, "combsum", depth=None)["q"]["a"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    "norm, expected",
    [
        ("min-max", {"a": 1.0, "b": 0.25, "c": 0.0}),
        ("max", {"a": 1.0, "b": 0.4, "c": 0.2}),
        ("sum", {"a": 0.8, "b": 0.2, "c": 0.0}),
        # mean 8/3, population standard deviation sqrt(26/9)
        ("zmuv", {"a": 1.3728129, "b": -0.3922323, "c": -0.9805807}),
        ("none", {"a": 5.0, "b": 2.0, "c": 1.0}),
    ],
)
def test_normalisations_follow_their_formulas(norm, expected):
    got = normalise({"a": 5.0, "b": 2.0, "c": 1.0}, norm)
    assert got == {d: pytest.approx(v, abs=1e-6) for d, v in expected.items()}


def test_a_constant_ranking_normalises_without_dividing_by_zero():
    assert normalise({"a": 3.0, "b": 3.0}, "min-max") == {"a": 0.0, "b": 0.0}


HUGE = {"a": 1.5e308, "b": -1.5e308, "c": 0.0}  # finite: every run reader accepts them


@pytest.mark.parametrize(
    "norm, expected",
    [
        ("min-max", {"a": 1.0, "b": 0.0, "c": 0.5}),
        ("max", {"a": 1.0, "b": -1.0, "c": 0.0}),
        ("sum", {"a": 2 / 3, "b": 0.0, "c": 1 / 3}),  # s - min: 3e308, 0, 1.5e308
        ("zmuv", {"a": math.sqrt(1.5), "b": -math.sqrt(1.5), "c": 0.0}),  # mean 0
    ],
)
def test_scores_near_the_float_range_normalise_by_their_formulas(norm, expected):
    got = normalise(HUGE, norm)
    assert got == {d: pytest.approx(v, abs=1e-12) for d, v in expected.items()}


def plain_formula(ranking, norm):
    """The normalisations written as their formulas, unscaled (ranx's, with its guard)."""
    scores = list(ranking.values())
    low, high, n = min(scores), max(scores), len(scores)
    if norm == "min-max":
        offset, scale = low, max(high - low, 1e-9)
    elif norm == "max":
        offset, scale = 0.0, max(high, 1e-9)
    elif norm == "sum":
        offset, scale = low, max(math.fsum(scores) - low * n, 1e-9)
    else:
        mean = math.fsum(scores) / n
        offset = mean
        scale = max(math.sqrt(math.fsum((s - mean) ** 2 for s in scores) / n), 1e-9)
    return {d: (s - offset) / scale for d, s in ranking.items()}


@pytest.mark.parametrize("norm", ["min-max", "max", "sum", "zmuv"])
def test_scaling_before_subtracting_leaves_ordinary_scores_exact(norm):
    for query in random_runs(1, queries=20)[0].values():
        assert normalise(query, norm) == plain_formula(query, norm)  # to the last bit
    assert normalise({"a": 2.0, "b": 2.0 + 1e-12}, norm) == plain_formula(
        {"a": 2.0, "b": 2.0 + 1e-12}, norm
    )  # the 1e-9 guard applies as in the formula


def huge_runs():
    """Two runs whose scores reach 1.5e308 in magnitude, as a file can hold them."""
    rng = random.Random(11)
    return [
        {f"q{q}": {f"d{d}": rng.uniform(-1.5, 1.5) * 1e308 for d in range(30)} for q in range(3)}
        for _ in range(2)
    ]


def scaled_down(run):
    """``run`` with every score divided by 2**1000 (exactly): normalised, it is the same run."""
    return {q: {d: math.ldexp(s, -1000) for d, s in docs.items()} for q, docs in run.items()}


@pytest.mark.slow  # numba compiles ranx's functions on first use
@pytest.mark.parametrize("norm", ["min-max", "sum", "zmuv"])
def test_huge_scores_fuse_as_ranx_fuses_the_same_runs_scaled_down(norm):
    ranx = pytest.importorskip("ranx")
    runs = huge_runs()
    theirs = ranx.fuse([ranx.Run(scaled_down(run)) for run in runs], norm=norm, method="sum")
    ours = fuse(runs, "combsum", norm, depth=None)
    assert_same_run(ours, {q: theirs.to_dict()[q] for q in runs[0]}, tolerance=1e-9)


@pytest.mark.parametrize("norm", ["min-max", "sum", "zmuv"])
def test_the_command_fuses_huge_scores_into_finite_ones(tmp_path, capsys, norm):
    runs = huge_runs()
    paths = [write_run(tmp_path / f"r{i}.trec", run) for i, run in enumerate(runs)]
    status = main(["fuse", *paths, "--method", "combsum", "--norm", norm])
    out, err = capsys.readouterr()
    assert status == 0, err
    parts = [{q: plain_formula(docs, norm) for q, docs in scaled_down(run).items()} for run in runs]
    lines = read_lines(out)
    assert len(lines) == 3 * 30 and all(math.isfinite(float(line[4])) for line in lines)
    for query_id, _, doc_id, _, score, _ in lines:
        expected = sum(part[query_id][doc_id] for part in parts)
        assert float(score) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    "method, norm, weights, runs",
    [
        ("combsum", "none", None, [{"q": HUGE}, {"q": HUGE}]),  # 1.5e308 + 1.5e308
        ("combsum", "max", None, [{"q": {"a": -1.5e308, "b": -1.0}}] * 2),  # over 1e-9
        ("wsum", "min-max", [1e308, 1e308], [{"q": HUGE}, {"q": HUGE}]),
    ],
)
def test_a_fused_score_beyond_a_float_is_a_one_line_error(method, norm, weights, runs):
    with pytest.raises(FusionError) as error:
        fuse(runs, method, norm, weights)
    message = str(error.value)
    assert "query 'q'" in message and "beyond what a float holds" in message
    assert "min-max or zmuv" in message and "\n" not in message


def test_a_run_writer_refuses_a_score_that_is_not_finite():
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(RunFormatError, match="not finite"):
            write_trec([RankedDoc("q", "d", 1, bad)], io.StringIO(), "t")


def test_the_first_runs_queries_are_kept():
    runs = [{"q1": {"a": 1.0}, "q2": {"b": 1.0}}, {"q1": {"a": 2.0}, "q3": {"c": 1.0}}]
    assert list(fuse(runs, "rrf")) == ["q1", "q2"]


def test_the_depth_cut_keeps_the_best_in_trec_order_after_exclusions():
    runs = [{"q": {"a": 3.0, "b": 2.0, "c": 1.0, "x": 9.0}}, {"q": {"a": 3.0, "x": 9.0}}]
    fused = fuse(runs, "combsum", depth=2, excluded={"q": {"x"}})
    assert list(fused["q"]) == ["a", "b"]  # x is dropped before the cut, not after
    ties = fuse([{"q": {"a": 1.0, "b": 1.0}}, {"q": {"a": 1.0, "b": 1.0}}], "rrf", depth=1)
    assert list(ties["q"]) == ["b"]  # equal scores: doc id descending, as trec_eval ranks


@pytest.mark.parametrize(
    "kwargs, mentions",
    [
        ({"method": "borda"}, "unknown fusion method"),
        ({"method": "wsum"}, "one weight per run"),
        ({"method": "wsum", "weights": [1.0]}, "one weight per run"),
        ({"method": "rrf", "weights": [1.0, 1.0]}, "weights go with"),
        ({"method": "wsum", "weights": [1.0, float("nan")]}, "finite"),
        ({"method": "combsum", "norm": "l2"}, "unknown normalisation"),
        # one name for each normalisation: zmuv is the z-score, min-max has its hyphen
        ({"method": "combsum", "norm": "z-score"}, "unknown normalisation 'z-score'.*zmuv"),
        ({"method": "combsum", "norm": "minmax"}, "unknown normalisation 'minmax'.*min-max"),
        ({"method": "rrf", "rrf_k": -1}, "RRF k"),
        ({"method": "rrf", "depth": 0}, "depth"),
    ],
)
def test_parameters_that_do_not_fit_are_refused(kwargs, mentions):
    with pytest.raises(FusionError, match=mentions):
        fuse(random_runs(2, queries=2, docs=3), **kwargs)


def test_one_run_is_refused():
    with pytest.raises(FusionError, match="at least two runs"):
        fuse(random_runs(1), "rrf")


RANX_CASES = [
    ("rrf", None, None, {}),
    ("combsum", "min-max", None, {}),
    ("combsum", "max", None, {}),
    ("combsum", "sum", None, {}),
    ("combsum", "zmuv", None, {}),
    ("combmnz", "min-max", None, {}),
    ("wsum", "min-max", [0.5, 0.3, 0.2], {}),
    ("wsum", "zmuv", [0.2, 0.2, 0.6], {}),
]


@pytest.mark.slow  # numba compiles ranx's functions on first use
@pytest.mark.parametrize("method, norm, weights, _", RANX_CASES)
def test_equals_ranx_fuse(method, norm, weights, _):
    ranx = pytest.importorskip("ranx")
    runs = random_runs()
    params = {"weights": weights} if weights else {"k": 60} if method == "rrf" else {}
    ranx_method = {"combsum": "sum", "combmnz": "mnz"}.get(method, method)
    theirs = ranx.fuse(
        [ranx.Run(run) for run in runs], norm=norm, method=ranx_method, params=params
    ).to_dict()
    ours = fuse(runs, method, norm, weights, depth=None)
    assert_same_run(ours, {q: theirs[q] for q in runs[0]}, tolerance=1e-9)


def write_run(path, run, tag="t"):
    with open(path, "w", encoding="utf-8") as out:
        for query_id, docs in run.items():
            ordered = sorted(docs.items(), key=lambda kv: -kv[1])
            for rank, (doc_id, score) in enumerate(ordered, 1):
                out.write(f"{query_id} Q0 {doc_id} {rank} {score} {tag}\n")
    return str(path)


def read_lines(text):
    return [line.split() for line in text.splitlines()]


def test_the_command_writes_a_sorted_trec_run(tmp_path, capsys):
    runs = random_runs(3, queries=4, docs=30)
    paths = [write_run(tmp_path / f"r{i}.trec", run) for i, run in enumerate(runs)]
    assert main(["fuse", *paths, "--method", "wsum", "--weights", "0.5,0.3,0.2"]) == 0
    lines = read_lines(capsys.readouterr().out)
    expected = expected_wsum_min_max(runs, [0.5, 0.3, 0.2])
    for query_id, scores in expected.items():
        mine = [line for line in lines if line[0] == query_id]
        assert [line[2] for line in mine] == top(scores, len(scores))
        assert [int(line[3]) for line in mine] == list(range(1, len(scores) + 1))
        for line in mine:
            assert float(line[4]) == pytest.approx(scores[line[2]], abs=1e-9)
            assert line[5] == "ir_bright-fuse-wsum"


def test_the_command_writes_the_output_file(tmp_path, capsys):
    runs = random_runs(2, queries=2, docs=5)
    paths = [write_run(tmp_path / f"r{i}.trec", run) for i, run in enumerate(runs)]
    out = tmp_path / "fused.trec"
    assert main(["fuse", *paths, "-o", str(out), "--depth", "3"]) == 0
    assert capsys.readouterr().out == ""
    lines = read_lines(out.read_text())
    assert len(lines) == 2 * 3
    assert {line[5] for line in lines} == {"ir_bright-fuse-rrf"}


@pytest.mark.parametrize(
    "extra, mentions",
    [
        (["--weights", "0.5,x"], "--weights"),
        (["--method", "wsum", "--weights", "1"], "one weight per run"),
        (["--depth", "0"], "depth"),
        (["--tag", "a b"], "white space"),
    ],
)
def test_bad_fusion_arguments_are_one_line_errors(tmp_path, capsys, extra, mentions):
    runs = random_runs(2, queries=2, docs=5)
    paths = [write_run(tmp_path / f"r{i}.trec", run) for i, run in enumerate(runs)]
    assert main(["fuse", *paths, *extra]) == 2
    err = capsys.readouterr().err
    assert mentions in err and len(err.strip().splitlines()) == 1


R2MED_RUN_DEPTH = 100
"""R2MED's official runs keep each query's best 100 documents (R2MED/R2MED, src/eval_BM25.py
at commit 62b7074: the BM25 scores are sorted and cut to 100)."""


def test_fuse_with_a_dataset_cuts_at_its_familys_run_depth_as_bm25_does(r2med, tmp_path, capsys):
    from ir_bright.bm25.params import official_mode

    runs = random_runs(2, queries=2, docs=R2MED_RUN_DEPTH + 30)
    paths = [write_run(tmp_path / f"r{i}.trec", run) for i, run in enumerate(runs)]
    assert main(["fuse", "r2med/biology", *paths]) == 0
    lines = read_lines(capsys.readouterr().out)
    assert len(lines) == 2 * R2MED_RUN_DEPTH
    assert official_mode("r2med/biology", None, None).depth == R2MED_RUN_DEPTH
    assert main(["fuse", "r2med/biology", *paths, "--depth", "7"]) == 0
    assert len(read_lines(capsys.readouterr().out)) == 2 * 7  # an explicit depth wins


def test_fuse_without_a_dataset_keeps_the_official_thousand(tmp_path, capsys):
    runs = random_runs(2, queries=1, docs=1100)
    paths = [write_run(tmp_path / f"r{i}.trec", run) for i, run in enumerate(runs)]
    assert main(["fuse", *paths]) == 0
    assert len(read_lines(capsys.readouterr().out)) == 1000  # BRIGHT's get_scores keeps 1,000


def test_the_dataset_first_fuses_as_the_deprecated_flag_which_warns_once(
    r2med, tmp_path, capsys, caplog
):
    runs = random_runs(2, queries=2, docs=R2MED_RUN_DEPTH + 30)
    paths = [write_run(tmp_path / f"r{i}.trec", run) for i, run in enumerate(runs)]
    assert main(["fuse", "r2med/biology", *paths]) == 0
    first = capsys.readouterr().out
    assert "deprecated" not in caplog.text and len(read_lines(first)) == 2 * R2MED_RUN_DEPTH
    assert main(["fuse", *paths, "--dataset", "r2med/biology"]) == 0
    assert capsys.readouterr().out == first
    warnings = [r.getMessage() for r in caplog.records if "deprecated" in r.getMessage()]
    assert len(warnings) == 1 and "ir-bright fuse DATASET RUN RUN" in warnings[0]


def test_a_run_file_named_like_a_dataset_id_is_read_as_written_with_a_dot(
    tmp_path, capsys, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    runs = random_runs(2, queries=2, docs=5)
    (tmp_path / "bright").mkdir()
    named = write_run(tmp_path / "bright" / "aops", runs[0])
    other = write_run(tmp_path / "other.trec", runs[1])
    assert main(["fuse", "./bright/aops", other]) == 0
    dotted = capsys.readouterr().out
    assert main(["fuse", named, other]) == 0
    assert capsys.readouterr().out == dotted and {line[0] for line in read_lines(dotted)} == {
        "q0",
        "q1",
    }


@pytest.mark.parametrize(
    "argv, mentions",
    [
        (["r2med/biology", "{run}", "--dataset", "r2med/biology"], "the dataset is given twice"),
        (["r2med/biology"], "give the runs after the dataset"),
    ],
)
def test_the_fused_dataset_given_twice_or_alone_is_a_one_line_error(
    tmp_path, capsys, argv, mentions
):
    run = write_run(tmp_path / "a.trec", random_runs(1, queries=1, docs=3)[0])
    status = main(["fuse", *[a.replace("{run}", run) for a in argv]])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert mentions in err
