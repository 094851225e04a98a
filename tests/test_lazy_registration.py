"""Registration is lazy: ``import ir_bright`` registers every id from the data files alone,
and a collection's datasets are built, once, when one of them is first used."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
import threading
from functools import cache, partial

import ir_datasets
import pytest
from ir_datasets.datasets.base import Dataset

from ir_bright import registry
from ir_bright.families import components, families, family

# The id counts from the benchmarks' own descriptions (docs/reference.md gives each source):
# BRIGHT has 12 domains, 8 with long documents, and five LLMs' reasoning as queries, and each
# short-document domain has adjusted qrels; MM-BRIGHT has 29 domains, a text corpus and five
# task ids each (Task 4 under two key rules); BRIGHT-Pro has 7 domains, each with its agentic
# subset; R2MED has 8 tasks, each with 20 LLM query-expansion sets; TEMPO has 13 domains and
# four LLMs' reasoning as queries; BrowseComp-Plus has its evidence and its gold qrels; RAR-b
# has 17 tasks. Each family adds its bare id.
EXPECTED_IDS = {
    "bright": 1 + 12 * (1 + 1 + 5) + 8 * (1 + 5),
    "mm-bright": 1 + 29 * (1 + 5),
    "bright-pro": 1 + 7 * 2,
    "r2med": 1 + 8 * (1 + 20),
    "tempo": 1 + 13 * (1 + 4),
    "browsecomp-plus": 1 + 2,
    "rar-b": 1 + 17,
}


@pytest.mark.parametrize("name", [declared.name for declared in families()])
def test_each_family_builds_exactly_the_ids_it_declares_in_their_order(name):
    declared = family(name)
    assert len(declared.dataset_ids()) == EXPECTED_IDS[name]
    assert list(declared.datasets()) == declared.dataset_ids()


def test_a_registered_dataset_is_a_dataset_built_on_first_use():
    entry = ir_datasets.registry._registered["bright-pro/robotics"]
    assert isinstance(entry, registry.LazyDataset) and isinstance(entry, Dataset)
    assert ir_datasets.load("bright-pro/robotics") is entry
    assert entry.dataset_id() == "bright-pro/robotics"
    assert entry.has_docs() and entry.has_queries() and entry.has_qrels()
    assert "aspects_iter" in dir(entry)


@pytest.mark.parametrize(
    "dataset_id", ["bright/biology", "mm-bright/academia/task4", "bright-pro/biology"]
)
def test_a_registered_dataset_pickles_and_copies_as_itself(dataset_id):
    entry = ir_datasets.load(dataset_id)
    for copied in (pickle.loads(pickle.dumps(entry)), copy.copy(entry), copy.deepcopy(entry)):
        assert copied is entry  # the process's registered dataset of that id


def test_a_registered_dataset_pickles_as_its_id():
    entry = ir_datasets.load("mm-bright/academia/task4")
    assert pickle.loads(pickle.dumps(entry)) is entry
    code = "import pickle, sys; print(pickle.load(sys.stdin.buffer).dataset_id())"
    proc = subprocess.run(
        [sys.executable, "-c", code], input=pickle.dumps(entry), capture_output=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode().strip() == "mm-bright/academia/task4"


def test_threads_using_one_collection_at_once_build_it_once(monkeypatch):
    builds = []

    @cache
    def counting(name):
        builds.append(name)
        return family(name).datasets()

    monkeypatch.setattr(registry, "_built_collection", counting)
    ids = family("bright-pro").dataset_ids()
    fresh = [
        registry.LazyDataset(i, partial(registry._built_dataset, "bright-pro", i)) for i in ids
    ]
    start = threading.Barrier(len(fresh))

    def use(dataset):
        start.wait()
        dataset.dataset_id()

    threads = [threading.Thread(target=use, args=(d,)) for d in fresh]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert builds == ["bright-pro"]
    assert [d.dataset_id() for d in fresh] == ids


def test_an_id_its_collection_does_not_build_is_a_clear_error():
    with pytest.raises(RuntimeError, match="bright/no-such-domain"):
        registry._built_dataset("bright", "bright/no-such-domain")


def test_a_lazy_dataset_is_built_by_the_first_attribute_read_and_only_once():
    builds = []

    def build():
        builds.append("built")
        return components.dataset(
            "x/y", components.Documentation({"pretty_name": "Y"}), metadata={}
        )

    lazy = registry.LazyDataset("x/y", build)
    pickle.dumps(lazy)  # pickles as its id: nothing to build
    assert isinstance(lazy, Dataset) and builds == []
    assert lazy.dataset_id() == "x/y" and lazy.documentation() == {"pretty_name": "Y"}
    assert not lazy.has_docs() and "documentation" in dir(lazy)
    assert builds == ["built"]


def test_forgotten_datasets_are_built_again_on_their_next_use(bright):
    """A dataset is built once per process, for the IR_DATASETS_HOME of that moment (its
    store maps that home's files); ``forget_built`` makes the next use build it again."""
    dataset = ir_datasets.load("bright/biology")
    assert dataset.docs_store().get("insects_light/Phototaxis_3.txt")
    built = dataset._on_first_use._built
    assert built is not None and dataset._on_first_use._built is built  # kept
    registry.forget_built()
    assert dataset._on_first_use._built is None
    assert dataset.docs_store().get("insects_light/Phototaxis_3.txt")
    assert dataset._on_first_use._built not in (None, built)
