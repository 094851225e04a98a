"""The public names: each says what it gives, none is named like another thing, and the
misleading ones are gone (0.x removes rather than deprecates them; the changelog lists their
replacements)."""

from __future__ import annotations

import importlib
import types

import pytest

import ir_bright
from ir_bright import scoring
from ir_bright.results import paired, paired_tables
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


def test_per_query_frame_and_scoring_per_query_give_the_same_numbers(biology):
    frame = ir_bright.per_query_frame(str(biology), "bright/biology", ["R@10"])
    values = scoring.per_query(str(biology), "bright/biology", ["R@10"])
    # query 0 has two gold documents, one retrieved; query 1 is not in the run: 0
    assert frame["R@10"].to_dict() == {"0": 0.5, "1": 0.0}
    assert values == {"0": {"R@10": 0.5}, "1": {"R@10": 0.0}}


def test_the_removed_names_are_gone():
    assert "per_query" not in ir_bright.__all__
    with pytest.raises(AttributeError):
        ir_bright.per_query  # noqa: B018 - the attribute read is the test
    for module in ("ir_bright.results.compare", "ir_bright.results.comparison"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(module)


def test_the_function_compare_and_its_module_have_distinct_names():
    assert ir_bright.compare is paired.compare
    assert isinstance(importlib.import_module("ir_bright.results.paired"), types.ModuleType)
    assert not any(hasattr(ir_bright, name) for name in ("comparison", "paired"))


def records_frame():
    """One hand-made comparison record, as compare() returns them (no options in attrs)."""
    import pandas as pd

    record = dict.fromkeys(paired.RECORD_KEYS)
    record |= {"dataset": "bright/pony", "measure": "nDCG@10", "system": "mine"}
    record |= {"baseline": "bm25", "mean": 0.3, "baseline_mean": 0.2, "delta": 0.1}
    record |= {"ci_low": 0.05, "ci_high": 0.15, "p_ttest": 0.2, "p_wilcoxon": 0.25}
    record |= {"p_adjusted": 0.2, "test": "paired t-test", "correction": "holm", "queries": 9}
    return pd.DataFrame([record], columns=list(paired.RECORD_KEYS))


def test_format_comparison_takes_its_options_as_keywords_only():
    text = paired_tables.format_comparison(records_frame(), alpha=0.5, samples=200, seed=7)
    assert "| +10.0 † |" in text and "p adjusted < 0.5:" in text
    assert "200 samples, seed 7" in text
    with pytest.raises(TypeError):
        paired_tables.format_comparison(records_frame(), "markdown", {}, 0.5)  # type: ignore[misc]
