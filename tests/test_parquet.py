"""Batched parquet reading and the memory-mapped store, on both row-group layouts."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ir_datasets.formats import GenericDoc

from ir_bright import atomic
from ir_bright.errors import CacheError
from ir_bright.store import ArrowStore, parquet

ROWS = 5000


@pytest.fixture
def corpus(tmp_path):
    """A corpus of ROWS docs written in row groups of 100 rows; returns (path, ids, texts)."""
    ids = [f"domain/doc_{i}.txt" for i in range(ROWS)]
    texts = [f"text number {i} " * (i % 7 + 1) for i in range(ROWS)]
    path = tmp_path / "docs.parquet"
    pq.write_table(pa.table({"id": ids, "content": texts}), path, row_group_size=100)
    return path, ids, texts


@pytest.mark.parametrize("parallel_limit", [parquet.PARALLEL_ROW_GROUP_BYTES, 0])
def test_records_come_in_file_order_on_either_reading_path(corpus, monkeypatch, parallel_limit):
    path, ids, texts = corpus
    monkeypatch.setattr(parquet, "PARALLEL_ROW_GROUP_BYTES", parallel_limit)
    columns = ["id", "content"]
    docs = list(parquet.iter_records(parquet.read_batches(path, columns, 333), GenericDoc, columns))
    assert docs == [GenericDoc(i, t) for i, t in zip(ids, texts)]


def test_abandoning_a_scan_midway_stops_the_reader(corpus, monkeypatch):
    path, ids, _ = corpus
    monkeypatch.setattr(parquet, "PARALLEL_ROW_GROUP_BYTES", 0)
    batches = parquet.read_batches(path, ["id"], 100)
    assert next(batches).column(0).to_pylist() == ids[:100]
    batches.close()  # joins the background thread; must not hang


def test_store_answers_random_rows_and_is_built_once(corpus):
    path, ids, texts = corpus
    store = ArrowStore(lambda: path, "id", ["id", "content"])
    assert not store.built()
    assert store.row(4321) == (ids[4321], texts[4321])
    assert store.row_of()[ids[17]] == 17 and len(store) == ROWS
    built = ArrowStore.path_for(path)
    stamp = built.stat().st_mtime_ns
    again = ArrowStore(lambda: path, "id", ["id", "content"])
    assert again.row(0) == (ids[0], texts[0]) and built.stat().st_mtime_ns == stamp


def test_a_store_that_cannot_be_rebuilt_is_a_one_line_error_naming_it(corpus, monkeypatch):
    path, _, _ = corpus
    ArrowStore.path_for(path).write_bytes(b"ARROW1 cut short")
    store = ArrowStore(lambda: path, "id", ["id", "content"])

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(atomic, "Pending", refuse)
    for use in (store.table, lambda: next(store.batches())):
        with pytest.raises(CacheError) as error:
            use()
        message = str(error.value)
        assert str(ArrowStore.path_for(path)) in message and "IR_DATASETS_HOME" in message
        assert "\n" not in message


def with_non_utf8_column_name(path) -> None:
    """Rewrite ``path``'s footer so that one column's name is not UTF-8 (same length)."""
    data = path.read_bytes()
    name = b"zz\xc3\xa9"  # "zzé"
    assert name in data
    path.write_bytes(data.replace(name, b"zz\xff\xfe"))


def test_a_footer_with_a_name_that_is_not_utf8_is_the_one_line_damaged_file_error(tmp_path):
    path = tmp_path / "examples.parquet"
    pq.write_table(pa.table({"id": ["1"], "zzé": ["x"]}), path)
    with_non_utf8_column_name(path)
    for read in (
        lambda: parquet.open_parquet(path),
        lambda: parquet.read_columns(path, ["id"]),
        lambda: list(parquet.read_batches(path, ["id"])),
    ):
        with pytest.raises(CacheError, match=r"cannot read .*examples.parquet as parquet .*delete"):
            read()


def test_a_hub_file_whose_footer_is_not_utf8_fails_commands_in_one_line(bright, hub_root, cli):
    (examples,) = hub_root.rglob("examples/biology-*.parquet")
    table = pq.read_table(examples)
    pq.write_table(table.append_column("zzé", pa.array(["x"] * len(table))), examples)
    with_non_utf8_column_name(examples)
    for argv in (["export", "bright/biology", "queries"], ["bm25", "bright/biology"]):
        outcome = cli(*argv)
        line = outcome.err.strip().splitlines()[-1]
        assert outcome.status == 2 and "internal error" not in outcome.err, outcome.err
        assert "biology.queries.parquet as parquet" in line and "UnicodeDecodeError" not in line
