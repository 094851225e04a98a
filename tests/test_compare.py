"""``ir-bright compare`` and ``ir_bright.compare``: p-values, intervals and corrections checked
against scipy on per-query scores computed independently (tests/protocol.py)."""

from __future__ import annotations

import csv
import io
import json
import math
import random

import numpy as np
import pytest
from scipy import stats

import ir_bright
from ir_bright.cli import main
from ir_bright.results.paired import RECORD_KEYS
from ir_bright.results.paired_tables import format_comparison
from ir_bright.results.stats import adjust, bootstrap_interval, paired_tests
from tests import protocol
from tests.fixtures import bright_hub

SPLITS = ("biology", "aops", "pony")
QUERIES = 24


def many_queries(split, seed):
    """A domain of QUERIES queries: a few gold docs each; aops-like queries exclude their own
    problem and a neighbour (the official protocol removes them before the cut)."""

    def build():
        rng = random.Random(seed)
        docs = {f"{split}/doc_{i}.txt": f"{split} text {i}" for i in range(60)}
        ids = list(docs)
        examples = []
        for q in range(QUERIES):
            gold = rng.sample(ids, rng.randint(1, 3))
            excluded = [i for i in rng.sample(ids, 2) if i not in gold] if q % 2 else ["N/A"]
            examples.append(bright_hub.example(f"q{q}", f"query {q}", gold, excluded=excluded))
        return {"documents": docs, "examples": examples}

    return build


DOMAINS = {s: many_queries(s, i) for i, s in enumerate(SPLITS)}


@pytest.fixture
def bright(bright_hub):
    return bright_hub(DOMAINS)


def official_qrels(rows):
    """The qrels written from the fixture's rows: gold 1 (as xlang-ai/BRIGHT run.py at commit
    a93c5ff builds them), excluded -100 (ir_bright's mark for the ids run.py removes)."""
    qrels = set()
    for row in rows["examples"]:
        qrels |= {(row["id"], d, 1) for d in row["gold_ids"]}
        qrels |= {(row["id"], d, -100) for d in row["excluded_ids"] if d != "N/A"}
    return sorted(qrels)


def random_run(rows, seed, skill, skip=()):
    """A run ranking 40 docs per query; gold docs get a head start of ``skill``; the excluded
    ones are often ranked first; queries in ``skip`` are left out."""
    rng = random.Random(seed)
    ids = list(rows["documents"])
    run = []
    for row in rows["examples"]:
        if row["id"] in skip:
            continue
        for doc in rng.sample(ids, 40) + row["gold_ids"]:
            score = rng.random() + (skill if doc in row["gold_ids"] else 0)
            if doc in row["excluded_ids"]:
                score += 5
            run.append((row["id"], doc, round(score, 3)))
    return list({(q, d): (q, d, s) for q, d, s in run}.values())


def write(path, run):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{q} Q0 {d} {i} {s} t\n" for i, (q, d, s) in enumerate(run)))
    return path


def dataset_id(split):
    return f"bright/{split}"


@pytest.fixture
def runs(bright, tmp_path):
    """Folders base/, mine/ and other/ of runs for the three domains (mine misses a query of
    biology), and the independent per-query nDCG@10 of each: ``{system: {split: {q: v}}}``."""
    scores = {}
    for n, (system, skill) in enumerate([("base", 0.3), ("mine", 0.6), ("other", 0.35)]):
        for i, split in enumerate(SPLITS):
            rows = bright.rows[split]
            skip = {"q3"} if (system, split) == ("mine", "biology") else set()
            run = random_run(rows, 100 * n + i, skill, skip)
            write(tmp_path / system / f"bright__{split}.trec", run)
            values = protocol.per_query("nDCG@10", official_qrels(rows), run)
            scores.setdefault(system, {})[split] = values
    return tmp_path, scores


def arrays(scores, system, baseline, splits=SPLITS):
    # the queries in the order ir_bright resamples them: natural order of the ids (q2 < q10)
    natural = [f"q{i}" for i in range(QUERIES)]
    queries = [(s, q) for s in splits for q in natural]
    ours = np.array([scores[system][s][q] for s, q in queries])
    theirs = np.array([scores[baseline][s][q] for s, q in queries])
    return ours, theirs


def compare_json(capsys, *argv):
    status = main(["compare", *argv, "--format", "json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out), err


# -- the statistics against scipy on independent per-query scores -----------------------------


def test_p_values_equal_scipy_on_independently_computed_per_query_scores(runs, capsys, caplog):
    folder, scores = runs
    records, _ = compare_json(
        capsys,
        *(str(folder / s) for s in ("base", "mine", "other")),
        "-b",
        "bright",
        "--samples",
        "2000",
    )
    assert len(records) == 2 * (len(SPLITS) + 1)
    # mine misses q3 of biology: it counts 0, and a warning says so
    assert "no ranking for 1 of the 24 queries" in caplog.text
    for record in records:
        splits = SPLITS if record["dataset"] == "bright" else [record["dataset"].split("/")[1]]
        ours, theirs = arrays(scores, record["system"], "base", splits)
        assert record["queries"] == len(ours)
        expected_t = stats.ttest_rel(ours, theirs).pvalue
        expected_w = stats.wilcoxon(ours, theirs, zero_method="wilcox", method="auto").pvalue
        assert record["p_ttest"] == pytest.approx(expected_t, abs=1e-9, rel=1e-9)
        assert record["p_wilcoxon"] == pytest.approx(expected_w, abs=1e-9, rel=1e-9)
        means = [np.mean(list(scores[record["system"]][s].values())) for s in splits]
        base_means = [np.mean(list(scores["base"][s].values())) for s in splits]
        assert record["mean"] == pytest.approx(np.mean(means), abs=1e-12)
        assert record["baseline_mean"] == pytest.approx(np.mean(base_means), abs=1e-12)
        assert record["delta"] == pytest.approx(np.mean(means) - np.mean(base_means), abs=1e-12)
        assert record["ci_low"] <= record["delta"] <= record["ci_high"]
    assert {r["test"] for r in records if r["dataset"] == "bright"} == {
        "paired t-test, all queries pooled"
    }


def test_holm_adjusted_p_values_equal_a_hand_computation_over_the_table(runs, capsys):
    folder, _ = runs
    records, _ = compare_json(
        capsys, str(folder / "base"), str(folder / "mine"), str(folder / "other"), "-b", "bright"
    )
    raw = [r["p_ttest"] for r in records]
    expected = holm_by_hand(raw)
    assert [r["p_adjusted"] for r in records] == pytest.approx(expected, abs=1e-12)
    assert {r["correction"] for r in records} == {"holm"}


def holm_by_hand(pvalues):
    """Holm's step-down method as textbooks state it, one comparison at a time."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted, running = [0.0] * m, 0.0
    for step, i in enumerate(order):
        running = max(running, (m - step) * pvalues[i])
        adjusted[i] = min(1.0, running)
    return adjusted


def test_the_wilcoxon_test_can_be_the_one_corrected(runs, capsys):
    folder, _ = runs
    records, _ = compare_json(
        capsys,
        str(folder / "base"),
        str(folder / "mine"),
        "-b",
        "bright",
        "--test",
        "wilcoxon",
        "--correction",
        "bonferroni",
    )
    n = len(records)
    for record in records:
        assert record["p_adjusted"] == pytest.approx(min(1.0, record["p_wilcoxon"] * n))
        assert record["test"].startswith("Wilcoxon signed-rank")


def test_intervals_equal_scipys_paired_bootstrap_with_the_same_seed(runs, capsys):
    folder, scores = runs
    run_a = folder / "base" / "bright__aops.trec"
    run_b = folder / "mine" / "bright__aops.trec"
    argv = ["bright/aops", str(run_a), str(run_b), "--samples", "3000", "--seed", "11"]
    (record,), _ = compare_json(capsys, *argv)
    ours, theirs = arrays(scores, "mine", "base", ["aops"])
    expected = stats.bootstrap(
        (ours - theirs,),
        np.mean,
        n_resamples=3000,
        method="percentile",
        rng=np.random.default_rng(11),
    ).confidence_interval
    assert (record["ci_low"], record["ci_high"]) == pytest.approx(
        (expected.low, expected.high), abs=1e-12
    )
    assert record["system"] == str(run_b) and record["baseline"] == str(run_a)
    assert record["dataset"] == "bright/aops"


def test_the_whole_benchmark_interval_resamples_within_each_domain(runs):
    folder, scores = runs
    frame = ir_bright.compare(
        str(folder / "base"), [str(folder / "mine")], benchmark="bright", samples=1500, seed=3
    )
    row = frame[frame.dataset == "bright"].iloc[0]
    differences = [np.subtract(*arrays(scores, "mine", "base", [s])) for s in SPLITS]
    rng = np.random.default_rng(3)
    resampled = np.mean(
        [
            d[rng.integers(0, len(d), size=(1500, len(d)))].mean(axis=1)
            for d in differences  # the stratified bootstrap, written out
        ],
        axis=0,
    )
    low, high = np.percentile(resampled, [2.5, 97.5])
    width = high - low
    assert row.ci_low == pytest.approx(low, abs=0.1 * width)
    assert row.ci_high == pytest.approx(high, abs=0.1 * width)


def test_bootstrap_intervals_are_reproducible_with_a_seed(runs):
    folder, _ = runs
    args = (str(folder / "base"), [str(folder / "mine")])
    first = ir_bright.compare(*args, benchmark="bright", samples=500, seed=5)
    again = ir_bright.compare(*args, benchmark="bright", samples=500, seed=5)
    other = ir_bright.compare(*args, benchmark="bright", samples=500, seed=6)
    assert first.equals(again)
    assert not np.allclose(first.ci_low, other.ci_low)
    assert np.allclose(first.p_ttest, other.p_ttest)


# -- corrections against hand-computed examples -----------------------------------------------

P = [0.01, 0.04, 0.03, 0.005]


@pytest.mark.parametrize(
    "correction, expected",
    [
        # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 -> running max
        ("holm", [0.03, 0.06, 0.06, 0.02]),
        ("bonferroni", [0.04, 0.16, 0.12, 0.02]),
        # times 4/rank = 0.02, 0.02, 0.04, 0.04 -> running min from the largest
        ("bh", [0.02, 0.04, 0.04, 0.02]),
        ("none", P),
    ],
)
def test_corrections_equal_hand_computed_values(correction, expected):
    assert adjust(P, correction) == pytest.approx(expected, abs=1e-12)


def test_corrections_cap_at_1_and_leave_nan_out_of_the_family():
    adjusted = adjust([0.5, math.nan, 0.4], "holm")
    assert adjusted[0] == 0.8 and math.isnan(adjusted[1]) and adjusted[2] == 0.8
    assert adjust([0.6, 0.7], "bonferroni") == [1.0, 1.0]


def test_identical_systems_have_p_values_of_1():
    assert paired_tests([0.1, 0.5, 0.2], [0.1, 0.5, 0.2]) == (1.0, 1.0)


def test_one_query_has_no_t_test_and_no_interval(recwarn):
    p_t, p_w = paired_tests([0.5], [0.2])
    assert math.isnan(p_t) and p_w == stats.wilcoxon([0.5], [0.2]).pvalue
    assert all(math.isnan(v) for v in bootstrap_interval([[0.3]]))
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


# -- formats and the API ----------------------------------------------------------------------


def test_json_records_have_exactly_the_documented_keys(runs, capsys):
    folder, _ = runs
    base, mine = (str(folder / s / "bright__pony.trec") for s in ("base", "mine"))
    records, _ = compare_json(capsys, "bright/pony", base, mine, "--samples", "100")
    assert [list(r) for r in records] == [[*RECORD_KEYS, "provenance"]]
    assert list(RECORD_KEYS) == [
        "dataset", "measure", "system", "baseline", "mean", "baseline_mean", "delta", "ci_low",
        "ci_high", "p_ttest", "p_wilcoxon", "p_adjusted", "test", "correction", "queries",
        "setting",
    ]  # fmt: skip
    assert records[0]["measure"] == "nDCG@10" and records[0]["queries"] == QUERIES


def test_markdown_marks_significance_and_has_a_legend(runs, capsys):
    folder, _ = runs
    status = main(["compare", str(folder / "base"), str(folder / "mine"), "-b", "bright"])
    out, err = capsys.readouterr()
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("| dataset | system | baseline | mean | Δ | CI |")
    body = [line for line in lines[2:] if line.startswith("|")]
    assert [line.split("|")[1].strip() for line in body] == ["Bio", "Pony", "AoPS", "Avg"]
    frame = ir_bright.compare(str(folder / "base"), [str(folder / "mine")], benchmark="bright")
    for line, p in zip(body, frame.p_adjusted):
        assert ("†" in line) == (p < 0.05)
    assert any(line.startswith("† p adjusted < 0.05: paired t-test") for line in lines)
    assert "Holm over the table's 4 comparisons" in out and "pool the 72 queries" in out


def test_csv_has_the_record_columns_and_latex_is_a_tabular_with_the_dagger_note(runs, capsys):
    folder, _ = runs
    argv = ["compare", str(folder / "base"), str(folder / "mine"), "-b", "bright"]
    assert main([*argv, "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert len(rows) == 4 and list(rows[0]) == list(RECORD_KEYS)
    assert main([*argv, "--format", "latex"]) == 0
    out = capsys.readouterr().out
    assert "\\begin{tabular}{ll" in out and out.rstrip().endswith("\\end{tabular}")
    assert "% $^\\dagger$ p adjusted $<$ 0.05" in out


def test_plot_draws_a_png(runs, capsys, tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "out" / "deltas.png"
    folder, _ = runs
    argv = ["compare", str(folder / "base"), str(folder / "mine"), str(folder / "other")]
    assert main([*argv, "-b", "bright", "--plot", str(png), "--samples", "200"]) == 0
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_per_query_frame_means_equal_evaluate(runs):
    folder, scores = runs
    run = folder / "mine" / "bright__biology.trec"
    frame = ir_bright.per_query_frame(str(run), "bright/biology", ["nDCG@10", "R@10"])
    assert list(frame.columns) == ["nDCG@10", "R@10"] and frame.index.name == "query_id"
    assert frame.loc["q3", "nDCG@10"] == 0.0  # missing from the run
    assert frame["nDCG@10"].to_dict() == pytest.approx(scores["mine"]["biology"], abs=1e-12)
    expected = ir_bright.evaluate(str(run), "bright/biology", ["nDCG@10", "R@10"])
    assert frame.mean().to_dict() == pytest.approx(expected, abs=1e-12)


def test_api_takes_dataframes_and_named_systems(runs):
    import pandas as pd

    folder, _ = runs
    frames = {
        system: pd.read_csv(
            folder / system / "bright__aops.trec",
            sep=" ",
            names=["qid", "Q0", "docno", "rank", "score", "tag"],
            dtype={"qid": str, "docno": str},
        )
        for system in ("base", "mine", "other")
    }
    table = ir_bright.compare(
        frames["base"], {"mine": frames["mine"], "other": frames["other"]}, "bright/aops",
        names=["bm25"], samples=100,
    )  # fmt: skip
    assert list(table.system) == ["mine", "other"] and set(table.baseline) == {"bm25"}
    files = ir_bright.compare(
        str(folder / "base" / "bright__aops.trec"),
        [str(folder / s / "bright__aops.trec") for s in ("mine", "other")],
        "bright/aops",
        samples=100,
    )
    assert np.allclose(table.p_ttest, files.p_ttest) and np.allclose(table.delta, files.delta)


def test_api_takes_a_single_dict_run_as_the_system(runs):
    folder, scores = runs
    as_dict = {}
    for line in (folder / "mine" / "bright__aops.trec").read_text().splitlines():
        query_id, _, doc_id, _, score, _ = line.split()
        as_dict.setdefault(query_id, {})[doc_id] = float(score)
    base = str(folder / "base" / "bright__aops.trec")
    (record,) = ir_bright.compare(base, as_dict, "bright/aops", samples=100).to_dict("records")
    ours, theirs = arrays(scores, "mine", "base", ["aops"])
    assert record["mean"] == pytest.approx(ours.mean(), abs=1e-12)
    assert record["baseline_mean"] == pytest.approx(theirs.mean(), abs=1e-12)


@pytest.mark.parametrize(
    "argv, mentions",
    [
        (["{tmp}/base", "{tmp}/mine"], "give a DATASET first or --benchmark NAME"),
        (["{tmp}/base", "-b", "bright"], "required"),
        (["{tmp}/base/bright__aops.trec", "{tmp}/mine", "-b", "bright"], "each system is a folder"),
        (["{tmp}/base", "{tmp}/partial", "-b", "bright"], "partial has no run for bright/pony"),
        (["{tmp}/base", "{tmp}/mine", "-b", "bright", "--correction", "sidak"], "invalid choice"),
        (["{tmp}/base", "{tmp}/mine", "-b", "bright", "--plot", "{tmp}/x.jpg"], "FILE.png"),
        (["{tmp}/base", "{tmp}/mine", "-b", "bright", "--samples", "0"], "at least 1 sample"),
        (["{tmp}/base", "{tmp}/mine", "-b", "bright", "--alpha", "5"], "--alpha"),
        (["{tmp}/base", "{tmp}/base", "-b", "bright"], "two runs are called"),
        (["{tmp}/nothing", "{tmp}/mine", "-b", "bright"], "nothing"),
    ],
)
def test_compare_bad_input_is_a_one_line_error(runs, capsys, argv, mentions):
    folder, _ = runs
    write(folder / "partial" / "bright__biology.trec", [("q0", "biology/doc_0.txt", 1.0)])
    argv = [a.replace("{tmp}", str(folder)) for a in argv]
    try:
        status = main(["compare", *argv])
    except SystemExit as exc:
        status = exc.code
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip() and "WARNING" not in line]
    assert status == 2 and out == "" and len(lines) == 1, err
    assert mentions in lines[0]


def test_compare_has_help_with_examples(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["compare", "--help"])
    assert exc.value.code == 0
    assert "examples:" in capsys.readouterr().out


def test_several_measures_share_one_correction_family(runs):
    folder, _ = runs
    frame = ir_bright.compare(
        str(folder / "base"), [str(folder / "mine")], benchmark="bright",
        measures=["nDCG@10", "R@10"], correction="bonferroni", samples=100,
    )  # fmt: skip
    assert list(frame.measure) == ["nDCG@10"] * 4 + ["R@10"] * 4
    assert list(frame.p_adjusted) == pytest.approx([min(1, 8 * p) for p in frame.p_ttest])
    table = format_comparison(frame)
    assert "| dataset | system | measure |" in table and "nDCG@10, R@10 x100" in table


def test_the_dataset_first_scores_as_the_deprecated_flag_which_warns_once(runs, capsys, caplog):
    folder, scores = runs
    base, mine = (str(folder / system / "bright__aops.trec") for system in ("base", "mine"))
    (first,), _ = compare_json(capsys, "bright/aops", base, mine, "--samples", "100")
    assert "deprecated" not in caplog.text
    ours, theirs = arrays(scores, "mine", "base", ["aops"])
    assert (first["mean"], first["baseline_mean"]) == pytest.approx(
        (ours.mean(), theirs.mean()), abs=1e-12
    )
    for flag in ("--dataset", "-d"):
        caplog.clear()
        (old,), _ = compare_json(capsys, base, mine, flag, "bright/aops", "--samples", "100")
        assert old == first
        warnings = [r.getMessage() for r in caplog.records if "deprecated" in r.getMessage()]
        assert len(warnings) == 1 and "ir-bright compare DATASET BASELINE" in warnings[0]


@pytest.mark.parametrize(
    "argv, mentions",
    [
        (["bright/aops", "{aops}", "{aops}", "-d", "bright/aops"], "the dataset is given twice"),
        (["bright/aops", "{tmp}/base", "{tmp}/mine", "-b", "bright"], "(one of them)"),
        (["bright/aops", "{aops}"], "at least one SYSTEM"),
        (
            ["bright/aopz", "{aops}", "{tmp}/mine/bright__aops.trec"],
            "bright/aops",
        ),  # a mistyped id: the close match
    ],
)
def test_the_dataset_given_twice_or_alone_is_a_one_line_error(runs, capsys, argv, mentions):
    folder, _ = runs
    aops = str(folder / "base" / "bright__aops.trec")
    argv = [a.replace("{tmp}", str(folder)).replace("{aops}", aops) for a in argv]
    status = main(["compare", *argv])
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip()]
    assert status == 2 and out == "" and len(lines) == 1, err
    assert mentions in lines[0]
