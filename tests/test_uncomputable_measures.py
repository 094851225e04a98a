"""A measure string that parses but cannot be computed is a one-line error naming the
measure (exit 2 from ``ir-bright evaluate -m``), never an internal error mid-scoring."""

from __future__ import annotations

import ir_datasets
import pytest

import ir_bright  # noqa: F401
from ir_bright.cli import main
from ir_bright.errors import MeasureError
from ir_bright.scoring import parse_measures
from tests import protocol

TEST_ID = "ir-bright-test/uncomputable"
UNCOMPUTABLE = {
    "R@999999999999999999999": "at most 2,147,483,647",
    "P@2147483648": "at most 2,147,483,647",
    "nDCG(gains={0:1e308,1:1e308})@10": "cannot be computed by pytrec_eval",
    "nDCG(gains={0:0,1:2.5})@10": "cannot be computed by pytrec_eval",
}


@pytest.mark.parametrize("name", list(UNCOMPUTABLE))
def test_parsing_refuses_it_naming_the_measure(name):
    with pytest.raises(MeasureError) as refused:
        parse_measures([name])
    assert str(refused.value).startswith(f"measure {name!r}")
    assert UNCOMPUTABLE[name] in str(refused.value)


@pytest.mark.parametrize("name", ["R@2147483647", "nDCG(gains={0:0,1:3})@10", "wAlpha_nDCG@25"])
def test_computable_neighbours_still_parse(name):
    assert len(parse_measures([name])) == 1


@pytest.mark.parametrize("name", list(UNCOMPUTABLE))
def test_evaluate_exits_2_with_one_line(name, tmp_path, monkeypatch, capsys):
    tiny = protocol.tiny_dataset([("1", "a", 1)], ("nDCG@10",), TEST_ID)
    monkeypatch.setitem(ir_datasets.registry._registered, TEST_ID, tiny)
    run = tmp_path / "r.run"
    run.write_text("1 Q0 a 1 1.0 t\n")
    status = main(["evaluate", TEST_ID, str(run), "--measure", name])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert f"error: measure {name!r}" in err and "internal error" not in err
