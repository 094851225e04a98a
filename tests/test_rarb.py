"""RAR-b: BEIR's protocol (the mean over the queries the run and the qrels share), and the 17
tasks through ir_datasets, the command line and PyTerrier, against the fixture hub
(tests/fixtures/rarb_hub.py) and the independent reference of the protocol (tests/protocol.py)."""

from __future__ import annotations

import random

import pytest
from ir_measures import Qrel

from ir_bright.scoring.evaluator import OfficialEvaluator
from ir_bright.scoring.official import Official
from ir_bright.scoring.parsing import parse_measures
from tests import protocol

MEASURES = ["nDCG@10", "R@100", "P@5", "RR", "AP@1000"]


@pytest.mark.parametrize("seed", range(4))
def test_a_shared_average_is_beirs_mean_over_the_queries_the_run_ranks(seed):
    qrels, run = protocol.random_case(random.Random(seed), excluded=0, run_length=1200)
    measures = [Official(m) for m in parse_measures(MEASURES)]
    judged = [Qrel(*row) for row in qrels]
    ranked: dict[str, dict[str, float]] = {}
    for query_id, doc_id, score in run:
        ranked.setdefault(query_id, {})[doc_id] = score
    shared = OfficialEvaluator(measures, judged, "shared").calc_aggregate(ranked)
    every = OfficialEvaluator(measures, judged).calc_aggregate(ranked)
    for measure in measures:
        name = str(measure.inner)
        assert shared[measure] == pytest.approx(protocol.shared_mean(name, qrels, run), abs=1e-12)
        assert every[measure] == pytest.approx(protocol.mean(name, qrels, run), abs=1e-12)
        assert shared[measure] >= every[measure]  # the case misses queries: 0s left out
    assert {q for q, _, _ in qrels} - set(ranked)  # so the two means are over other queries
