"""ir_datasets' own metadata rule holds for every registered id with ir_bright imported.

ir_datasets' suite (``test/metadata.py``, ``test_all_metadata_available``) loads every id of
its registry and requires, for each entity type the dataset has, a ``count`` in
``dataset.metadata()``. The rule is re-implemented here with the same logic, over the whole
registry (ir_bright's ids and the core's beside them), offline and with an empty cache: every
count must come from the declarations, not from downloaded files. A count published nowhere is
``None`` (ir_datasets' own word for an unknown count, which its rule accepts) only where the
declaration says why (``unknown_counts``), and the dataset counts it once its files are cached.
"""

from __future__ import annotations

import ir_datasets
import pytest

from ir_bright import registry
from ir_bright.families import families


def missing_counts(dataset_ids) -> list[str]:
    """``"<id> missing <entity> metadata"`` for each id and entity type the rule refuses, as
    ir_datasets' ``_test_ds`` words it."""
    problems = []
    for dataset_id in dataset_ids:
        dataset = ir_datasets.load(dataset_id)
        metadata = dataset.metadata()
        for entity in ir_datasets.EntityType:
            if dataset.has(entity):
                if "count" not in metadata.get(entity.value, {}):
                    problems.append(f"{dataset_id} missing {entity.value} metadata")
    return problems


@pytest.fixture
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def test_every_registered_id_has_a_count_for_each_of_its_entity_types(offline):
    registry.register()
    ours = registry.our_ids()
    assert len(ours) > 500 and set(ours) <= set(ir_datasets.registry._registered)
    assert missing_counts(list(ir_datasets.registry._registered)) == []


def test_a_count_is_unknown_only_where_the_declaration_says_why(offline):
    for found in families():
        unknown = found.declaration.unknown_counts
        assert all(reason.strip() for reason in unknown.values())
        for entry in found.entries:
            metadata = ir_datasets.load(entry.id).metadata()
            for entity, facts in metadata.items():
                if facts["count"] is None:
                    key = f"{entry.query_set}/{entity}"
                    assert key in unknown or entity in unknown, f"{entry.id} {entity}"
                else:
                    assert isinstance(facts["count"], int) and facts["count"] >= 0


def test_an_unknown_count_is_the_files_once_they_are_cached(tempo):
    dataset = ir_datasets.load("tempo/history/gpt4o-reason")
    assert dataset.metadata()["qrels"]["count"] is None
    judged = list(dataset.qrels_iter())
    assert judged and dataset.metadata()["qrels"]["count"] == len(judged)


def test_the_rule_refuses_a_dataset_without_a_count(offline, monkeypatch):
    from ir_bright.families import family
    from ir_bright.families.components import dataset as make_dataset

    tempo = family("tempo").datasets()["tempo/bitcoin"]
    planted = make_dataset(
        "planted/without-qrels-count",
        tempo.docs_handler(),
        tempo.queries_handler(),
        tempo.qrels_handler(),
        metadata={"docs": {"count": 1}, "queries": {"count": 1}},
    )
    monkeypatch.setitem(ir_datasets.registry._registered, "planted/without-qrels-count", planted)
    assert missing_counts(["planted/without-qrels-count"]) == [
        "planted/without-qrels-count missing qrels metadata"
    ]
