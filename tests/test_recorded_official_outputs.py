"""The official outputs recorded in tests/data/r2med/ and tests/data/tempo/ belong to the
fixture hubs as they are now: a change to a fixture without recording again fails here, not as
a puzzling mismatch in a scoring test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixtures.r2med_hub import EXPANSIONS, TASKS, write_r2med
from tests.fixtures.recorded import rows_digest
from tests.fixtures.tempo_hub import DOMAINS, REASONING_MODELS, write_tempo

DATA = Path(__file__).parent / "data"


def recorded(family: str) -> dict:
    return json.loads((DATA / family / "reference.json").read_text(encoding="utf-8"))


def test_r2med_outputs_were_recorded_on_the_current_fixture(tmp_path):
    rows = write_r2med(tmp_path)
    reference = recorded("r2med")
    assert reference["fixture"] == {task: rows_digest(rows[task]) for task in TASKS}


def test_tempo_outputs_were_recorded_on_the_current_fixture(tmp_path):
    rows = write_tempo(tmp_path)
    reference = recorded("tempo")
    assert reference["fixture"] == {domain: rows_digest(rows[domain]) for domain in DOMAINS}


@pytest.mark.parametrize("task", TASKS)
def test_r2med_outputs_cover_every_query_set_and_query(tmp_path, task):
    rows = write_r2med(tmp_path)[task]
    sets = recorded("r2med")["tasks"][task]
    names = ["original"] + [f"{m}/{llm}" for m, llms in EXPANSIONS.items() for llm in llms]
    assert list(sets) == names
    query_ids = [q["id"] for q in rows["query"]]
    distinct_docs = len({d["id"] for d in rows["corpus"]})
    for output in sets.values():
        assert list(output["queries"]) == query_ids
        assert [len(output["run"][q]) for q in query_ids] == [min(100, distinct_docs)] * len(
            query_ids
        )


def test_tempo_outputs_cover_every_query_set_and_domain():
    sets = recorded("tempo")["sets"]
    assert list(sets) == ["examples"] + [f"{m}_reason" for m in REASONING_MODELS]
    assert all(list(output["domains"]) == list(DOMAINS) for output in sets.values())
