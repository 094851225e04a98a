"""``docs_arrow(batch_size, shard=i, num_shards=n)``: disjoint shards covering the corpus in
order, each read from its own row groups (or pages of the built store) only."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ir_bright.store import ParquetDocs, read_row_range, shard_rows


class LocalFile:
    """A stand-in for a cached hub file."""

    def __init__(self, path):
        self.path = self.local_path = path

    def fetch(self):
        return self.path

    def cached_path(self):
        return self.path

    def shared(self):
        return self


def corpus(tmp_path, rows=50, row_group=7):
    ids = [f"doc/{i:03d}.txt" for i in range(rows)]
    path = tmp_path / "docs.parquet"
    table = pa.table({"id": ids, "content": [f"text of {i}" for i in ids]})
    pq.write_table(table, path, row_group_size=row_group)
    return ParquetDocs(LocalFile(path), "test"), ids


def shard_ids(docs, shard, num_shards, batch_size=4):
    batches = list(docs.docs_arrow(batch_size, shard=shard, num_shards=num_shards))
    assert all(b.schema.names == ["doc_id", "text"] and b.num_rows <= batch_size for b in batches)
    return [i for b in batches for i in b.column("doc_id").to_pylist()]


@pytest.mark.parametrize("built", [False, True])
@pytest.mark.parametrize("num_shards", [1, 2, 3, 7, 49, 50, 64])
def test_shards_are_disjoint_and_cover_the_corpus_in_order(tmp_path, built, num_shards):
    docs, ids = corpus(tmp_path)
    if built:
        docs.docs_store().build()
    shards = [shard_ids(docs, i, num_shards) for i in range(num_shards)]
    assert [i for shard in shards for i in shard] == ids
    sizes = [len(s) for s in shards]
    assert max(sizes) - min(sizes) <= 1


def test_a_shard_reads_only_the_row_groups_that_hold_it(tmp_path, monkeypatch):
    docs, ids = corpus(tmp_path, rows=70, row_group=10)
    asked = []
    original = pq.ParquetFile.iter_batches

    def spy(self, *args, **kwargs):
        asked.append(list(kwargs["row_groups"]))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", spy)
    assert shard_ids(docs, 3, 7) == ids[30:40]  # exactly row group 3
    assert shard_ids(docs, 1, 2) == ids[35:70]  # rows 35-69: row groups 3 to 6
    assert asked == [[3], [3, 4, 5, 6]]


def test_row_ranges_cut_inside_row_groups(tmp_path):
    docs, ids = corpus(tmp_path, rows=30, row_group=8)
    got = [
        i
        for b in read_row_range(docs.docs_path(), ["id"], 5, 19, batch_size=3)
        for i in b.column(0).to_pylist()
    ]
    assert got == ids[5:19]
    assert list(read_row_range(docs.docs_path(), ["id"], 30, 30)) == []


def test_shard_rows_of_an_empty_corpus_and_of_more_shards_than_rows():
    assert [shard_rows(0, i, 3) for i in range(3)] == [(0, 0)] * 3
    assert [shard_rows(2, i, 4) for i in range(4)] == [(0, 0), (0, 1), (1, 1), (1, 2)]
    assert shard_rows(10, None, None) == (0, 10)


@pytest.mark.parametrize(
    "shard,num_shards", [(0, None), (None, 2), (2, 2), (-1, 2), (0, 0), (True, 2), (0.5, 2)]
)
def test_invalid_shard_arguments_are_refused(tmp_path, shard, num_shards):
    docs, _ = corpus(tmp_path)
    with pytest.raises(ValueError):
        list(docs.docs_arrow(4, shard=shard, num_shards=num_shards))


def test_docs_dataframes_pass_the_shard_on(tmp_path):
    docs, ids = corpus(tmp_path)
    frames = list(docs.docs_dataframes(8, shard=1, num_shards=2))
    assert [i for f in frames for i in f["doc_id"]] == ids[25:]


@pytest.mark.slow
def test_ray_data_reads_a_dataset_shard_per_task_as_the_readme_shows(hub, hub_root, monkeypatch):
    """The README's recipe: one Ray task per shard, each loading the dataset by id."""
    ray = pytest.importorskip("ray")
    from ir_bright import registry
    from tests.fixtures import bright_hub

    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    bright_hub.write_bright(hub_root, {"biology": bright_hub.biology})
    expected = list(bright_hub.biology()["documents"])
    registry.load("bright/biology").docs_path()  # fetched once, before the workers start
    num_shards = 3

    def read_shard(batch):
        import ir_datasets

        import ir_bright  # noqa: F401 - registers the ids in the worker

        dataset = ir_datasets.load("bright/biology")
        for shard in batch["id"]:
            for part in dataset.docs_arrow(1024, shard=int(shard), num_shards=num_shards):
                yield pa.Table.from_batches([part])

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        docs = ray.data.range(num_shards).map_batches(read_shard, batch_size=1)
        rows = docs.take_all()
    finally:
        ray.shutdown()
    assert sorted(row["doc_id"] for row in rows) == sorted(expected)
    assert len(rows) == len(expected)
