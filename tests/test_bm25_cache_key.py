"""The BM25 index cache is keyed by the exact parameters: nearby values never share an index."""

from __future__ import annotations

import json
import math
import shutil

import pytest

from tests.fixtures import bright_hub

pytest.importorskip("Stemmer")  # the bm25 extra


@pytest.fixture
def bright(hub, hub_root, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    hub.rows = bright_hub.write_bright(hub_root)
    return hub


def run_of(params):
    from ir_bright import bm25

    return list(bm25.retrieve("bright/biology", params, query_side=True, progress=False))


@pytest.mark.parametrize(
    "first, second, scores_differ",
    [
        ((0.9, 0.4), (0.9000001, 0.4), True),  # the 7th digit (printed with 6 digits: shared)
        ((0.9, 0.4), (0.9, 0.4000001), True),
        ((0.9, 0.4), (0.9000000000000001, 0.4), False),  # the last bit of a float
        ((0.9, 0.4), (0.9, 0.4000000000000001), False),
    ],
    ids=["k1", "b", "k1-last-bit", "b-last-bit"],
)
def test_parameters_differing_in_the_last_digit_build_two_indexes(
    bright, first, second, scores_differ
):
    import ir_datasets

    from ir_bright import bm25

    params = [bm25.BM25Params(*first), bm25.BM25Params(*second)]
    assert params[0] != params[1] and all(math.isfinite(v) for p in params for v in p[:2])
    runs = [run_of(p) for p in params]  # the second after the first, with its index cached
    dataset = ir_datasets.load("bright/biology")
    folders = [bm25.index_folder(dataset, p) for p in params]
    assert folders[0] != folders[1]
    for p, folder in zip(params, folders):
        stats = json.loads((folder / "ir_bright.json").read_text("utf-8"))
        assert (stats["k1"], stats["b"]) == (p.k1, p.b)  # each index built with its own values
    if scores_differ:  # so a shared index would show in the second run
        assert runs[0] != runs[1]
    for p, run in zip(params, runs):
        shutil.rmtree(folders[0].parent)  # no cached index at all: a fresh build
        assert run_of(p) == run
