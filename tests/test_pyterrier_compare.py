"""PyTerrier's pt.Experiment with Official measures, a baseline and a test gives the p-values
of ir_bright.compare for the same runs: test="t" is compare's p_ttest, test="wilcoxon" its
p_wilcoxon, and correction="holm" its Holm-adjusted p_ttest when the table is one dataset and
one measure (the same family of comparisons)."""

from __future__ import annotations

import pytest

import ir_bright
from ir_bright import Official
from tests.test_compare import bright, runs  # noqa: F401 - fixtures

pytestmark = pytest.mark.pyterrier
pt = pytest.importorskip("pyterrier")

SYSTEMS = ("base", "mine", "other")


def frames(folder, split):
    return [pt.io.read_results(str(folder / s / f"bright__{split}.trec")) for s in SYSTEMS]


def experiment(split, results, **options):
    """pt.Experiment of the results with SYSTEMS[0] as the baseline, Official(nDCG@10)."""
    dataset = pt.get_dataset(f"bright:{split}")
    return pt.Experiment(
        results,
        dataset.get_topics(),
        dataset.get_qrels(),
        eval_metrics=[Official("nDCG@10")],
        names=list(SYSTEMS),
        baseline=0,
        **options,
    )


@pytest.mark.parametrize("split", ["biology", "aops"])
@pytest.mark.parametrize("test, column", [("t", "p_ttest"), ("wilcoxon", "p_wilcoxon")])
def test_experiment_p_values_equal_compare(runs, split, test, column):  # noqa: F811
    folder, _ = runs
    results = frames(folder, split)
    table = experiment(split, results, test=test)
    ours = ir_bright.compare(results[0], results[1:], f"bright/{split}", names=list(SYSTEMS))
    p_column = next(c for c in table.columns if c.endswith("p-value"))
    assert list(table[p_column][1:]) == pytest.approx(list(ours[column]), abs=1e-12, rel=1e-12)
    means = [c for c in table.columns if c.endswith("nDCG@10)")][0]
    assert list(table[means][1:]) == pytest.approx(list(ours["mean"]), abs=1e-12)


def test_experiment_holm_correction_equals_compare(runs):  # noqa: F811
    pytest.importorskip("statsmodels")  # PyTerrier's corrections need it; ir_bright does not
    folder, _ = runs
    results = frames(folder, "pony")
    table = experiment("pony", results, correction="holm")
    ours = ir_bright.compare(results[0], results[1:], "bright/pony", correction="holm")
    corrected = next(c for c in table.columns if c.endswith("p-value corrected"))
    assert list(table[corrected][1:]) == pytest.approx(list(ours.p_adjusted), abs=1e-12)
