"""Names that misled keep working with a DeprecationWarning, beside their clear new names:
``ir_bright.per_query`` (a DataFrame, while ``ir_bright.scoring.per_query`` gives a dict) is
``ir_bright.per_query_frame``; the module ``ir_bright.results.compare`` (named like the
function ``ir_bright.compare``) is ``ir_bright.results.comparison`` and its neighbours."""

from __future__ import annotations

import importlib
import sys
import types

import pytest

import ir_bright
from ir_bright import scoring
from ir_bright.results import comparison, comparison_output, stats
from tests.fixtures import bright_hub

GOLD = {"0": "insects_light/Phototaxis_0.txt", "1": "bird_song/Birdsong_2.txt"}  # the fixture's


@pytest.fixture
def biology(hub, hub_root, monkeypatch, tmp_path):
    """The fixture's biology domain and a run ranking query 0's first gold document first."""
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    bright_hub.write_bright(hub_root, {"biology": bright_hub.biology})
    run = tmp_path / "run.trec"
    run.write_text(f"0 Q0 {GOLD['0']} 1 2 t\n0 Q0 bird_song/Birdsong_0.txt 2 1 t\n")
    return run


def test_per_query_warns_and_gives_the_frame_of_per_query_frame(biology):
    with pytest.warns(DeprecationWarning, match="ir_bright.per_query_frame"):
        old = ir_bright.per_query(str(biology), "bright/biology", ["R@10"])
    new = ir_bright.per_query_frame(str(biology), "bright/biology", ["R@10"])
    assert old.equals(new)
    # query 0 has two gold documents, one retrieved; query 1 is not in the run: 0
    assert new["R@10"].to_dict() == {"0": 0.5, "1": 0.0}


def test_scoring_per_query_is_the_dict_of_the_same_numbers(biology):
    values = scoring.per_query(str(biology), "bright/biology", ["R@10"])
    assert values == {"0": {"R@10": 0.5}, "1": {"R@10": 0.0}}


def test_the_old_comparison_module_warns_and_serves_the_new_names():
    sys.modules.pop("ir_bright.results.compare", None)
    with pytest.warns(DeprecationWarning, match="ir_bright.results.comparison"):
        old = importlib.import_module("ir_bright.results.compare")
    assert old.compare is comparison.compare and old.adjust is stats.adjust
    assert old.format_comparison is comparison_output.format_comparison
    assert old.RECORD_KEYS == comparison.RECORD_KEYS


def test_the_function_and_its_module_have_distinct_names():
    assert ir_bright.compare is comparison.compare
    assert isinstance(importlib.import_module("ir_bright.results.comparison"), types.ModuleType)
    assert not hasattr(ir_bright, "comparison")


def records_frame():
    """One hand-made comparison record, as compare() returns them (no options in attrs)."""
    import pandas as pd

    record = dict.fromkeys(comparison.RECORD_KEYS)
    record |= {"dataset": "bright/pony", "measure": "nDCG@10", "system": "mine"}
    record |= {"baseline": "bm25", "mean": 0.3, "baseline_mean": 0.2, "delta": 0.1}
    record |= {"ci_low": 0.05, "ci_high": 0.15, "p_ttest": 0.2, "p_wilcoxon": 0.25}
    record |= {"p_adjusted": 0.2, "test": "paired t-test", "correction": "holm", "queries": 9}
    return pd.DataFrame([record], columns=list(comparison.RECORD_KEYS))


def test_format_comparison_takes_its_former_positional_settings_with_a_warning():
    with pytest.warns(DeprecationWarning, match="give them as keywords"):
        text = comparison_output.format_comparison(records_frame(), "markdown", {}, 0.5, 200, 7)
    assert "| +10.0 † |" in text and "p adjusted < 0.5:" in text
    assert "200 samples, seed 7" in text
    assert text == comparison_output.format_comparison(
        records_frame(), alpha=0.5, samples=200, seed=7
    )
