"""Damaged derived files (Arrow store, decodability verdicts, BM25 index): rebuilt with one
warning and a result equal to a clean run's, or named in a one-line error; never a crash. The
Arrow store's id index on disk: opening reads no id, lookups compare the id stored in the row
(colliding keys, repeated ids), a store of the older format is rebuilt once."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

import pyarrow as pa
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytest

from ir_bright.store import ArrowStore, arrow_mapped, derived, id_index

ROWS = 3000


@pytest.fixture
def corpus(tmp_path):
    ids = [f"domain/doc_{i}.txt" for i in range(ROWS)]
    texts = [f"text number {i} " * (i % 5 + 1) for i in range(ROWS)]
    path = tmp_path / "docs.parquet"
    pq.write_table(pa.table({"id": ids, "content": texts}), path, row_group_size=500)
    return path, ids, texts


def new_store(path):
    return ArrowStore(lambda: path, "id", ["id", "content"])


def buffer_positions(store_path, column: str, chunk: int = 1) -> tuple[int, int]:
    """File positions of a column chunk's offsets buffer and values buffer."""
    source = pa.memory_map(str(store_path))
    whole = source.read_buffer()
    table = ipc.open_file(pa.BufferReader(whole)).read_all()
    chunks = table.column(column).chunks
    buffers = chunks[min(chunk, len(chunks) - 1)].buffers()
    return buffers[1].address - whole.address, buffers[2].address - whole.address


def overwrite(path, position: int, data: bytes, keep_mtime: bool = True) -> None:
    stat = os.stat(path)
    with open(path, "r+b") as file:
        file.seek(position)
        file.write(data)
    if keep_mtime:  # the sneakiest damage: size and time unchanged
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def alter_offsets(store_path, manifest):
    offsets, _ = buffer_positions(store_path, "content")
    overwrite(store_path, offsets + 4, (10**9).to_bytes(4, "little"))


def alter_text(store_path, manifest):
    _, values = buffer_positions(store_path, "content")
    overwrite(store_path, values + 5, b"X")


def alter_ids(store_path, manifest):
    _, values = buffer_positions(store_path, "id", chunk=0)
    overwrite(store_path, values, b"Z")


def truncate(store_path, manifest):
    with open(store_path, "r+b") as file:
        file.truncate(os.path.getsize(store_path) // 2)


def drop_manifest(store_path, manifest):
    manifest.unlink()


def old_version(store_path, manifest):
    data = json.loads(manifest.read_text())
    data["version"] = 1
    manifest.write_text(json.dumps(data))


def manifest_garbage(store_path, manifest):
    manifest.write_text("null")


def manifest_blocks_garbage(store_path, manifest):
    data = json.loads(manifest.read_text())
    data["blocks"] = [[0, "x"]]
    manifest.write_text(json.dumps(data))


def pages_path(store_path):
    return store_path.with_name(store_path.name + ".pages")


def alter_page_checksum(store_path, manifest):
    overwrite(pages_path(store_path), 0, b"\x00\x00\x00\x00")  # the store's first page


def truncate_pages(store_path, manifest):
    pages = pages_path(store_path)
    with open(pages, "r+b") as file:
        file.truncate(os.path.getsize(pages) - 4)


def manifest_files_garbage(store_path, manifest):
    data = json.loads(manifest.read_text())
    data["files"] = {"store": 7}
    manifest.write_text(json.dumps(data))


def index_path(store_path):
    return store_path.with_name(store_path.name + ".ids")


def alter_index_keys(store_path, manifest):
    index = index_path(store_path)
    overwrite(index, os.path.getsize(index) * 2 // 3, b"\xff\xfe")  # in its keys or rows


def alter_index_header(store_path, manifest):
    overwrite(index_path(store_path), 12, (30).to_bytes(4, "little"))  # its bucket bits


def truncate_index(store_path, manifest):
    index = index_path(store_path)
    with open(index, "r+b") as file:
        file.truncate(os.path.getsize(index) - 4)


def drop_index(store_path, manifest):
    index_path(store_path).unlink()


def alter_index_page_checksum(store_path, manifest):
    pages = pages_path(store_path)
    overwrite(pages, os.path.getsize(pages) - 4, b"\x01\x00\x00\x00")  # its last page


def drop_pages(store_path, manifest):
    pages_path(store_path).unlink()


def source_changed(store_path, manifest):
    parquet_path = store_path.with_name("docs.parquet")
    os.utime(parquet_path, ns=(1, 1))


DAMAGE = [
    alter_offsets,
    alter_text,
    alter_ids,
    truncate,
    drop_manifest,
    old_version,
    manifest_garbage,
    manifest_blocks_garbage,
    alter_page_checksum,
    truncate_pages,
    drop_pages,
    manifest_files_garbage,
    alter_index_keys,
    alter_index_header,
    truncate_index,
    drop_index,
    alter_index_page_checksum,
    source_changed,
]
INDEX_BYTES_DAMAGE = {alter_index_keys, alter_index_header, alter_index_page_checksum}
"""Damage to the id index's bytes, found by the page checks of the first lookup."""


@pytest.mark.slow
@pytest.mark.parametrize("damage", DAMAGE, ids=lambda f: f.__name__)
@pytest.mark.parametrize("use", ["scan", "lookups"])
def test_a_damaged_store_is_rebuilt_with_one_warning_and_the_same_result(
    corpus, caplog, damage, use
):
    path, ids, texts = corpus
    clean = new_store(path)
    expected = list(zip(ids, texts))
    assert [clean.row(i) for i in range(ROWS)] == expected  # builds it
    store_path = ArrowStore.path_for(path)
    damage(store_path, derived.manifest_path(store_path))
    store = new_store(path)
    caplog.set_level(logging.WARNING)
    if use == "scan":
        got = [
            row
            for batch in store.batches()
            for row in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist())
        ]
    else:
        got = [store.row(store.row_of()[doc_id]) for doc_id in ids]
    assert got == expected
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    if use == "scan" and damage in INDEX_BYTES_DAMAGE:
        assert warnings == []  # a scan reads no id index: found by the next lookup
        return
    assert len(warnings) == 1 and "rebuilding" in warnings[0].getMessage()
    assert str(store_path) in warnings[0].getMessage()
    assert [new_store(path).row(i) for i in (0, ROWS - 1)] == [expected[0], expected[-1]]
    assert [new_store(path).lookup(doc_id) for doc_id in ids] == expected


def test_the_manifest_read_on_open_holds_no_checksum_per_page(tmp_path):
    """Opening parses the store's manifest whole, so it must not grow with the store's bytes:
    a few numbers per record batch, the page checksums in a memory-mapped file of their own."""
    path = tmp_path / "docs.parquet"
    texts = [f"{i} " + "w" * 4096 for i in range(ROWS)]  # about one 4 KiB page a document
    pq.write_table(pa.table({"id": [str(i) for i in range(ROWS)], "content": texts}), path)
    store = new_store(path)
    assert store.lookup("1234") == ("1234", texts[1234])
    store_path = ArrowStore.path_for(path)
    pages = -(-os.path.getsize(store_path) // 4096)
    assert os.path.getsize(pages_path(store_path)) >= 4 * pages
    assert os.path.getsize(derived.manifest_path(store_path)) < pages // 2


def test_opening_a_store_and_looking_ids_up_reads_no_whole_column(corpus, monkeypatch):
    path, ids, texts = corpus
    new_store(path).table()  # built
    read_columns = []
    real = arrow_mapped.MappedTable.column_values

    def counted(self, name):
        read_columns.append(name)
        return real(self, name)

    monkeypatch.setattr(arrow_mapped.MappedTable, "column_values", counted)
    store = new_store(path)
    assert [store.lookup(ids[i]) for i in (7, ROWS - 1)] == [
        (ids[i], texts[i]) for i in (7, ROWS - 1)
    ]
    # the id column's pages checked (so read): none but those holding a batch's metadata
    # (checked on open) or an id looked up
    id_pages = set()
    for chunk in store.table().column("id").chunks:
        for buffer in chunk.buffers()[1:]:
            start = buffer.address - store._open()._base
            id_pages.update(range(start // 4096, -(-(start + buffer.size) // 4096)))
    unread = {page for page in id_pages if not store._pages._checked[page]}
    assert len(unread) > len(id_pages) // 2  # the pages of batch headers and two lookups
    assert store.row_of()[ids[17]] == 17 and ids[18] in store.row_of()
    assert store.lookup("domain/no_such_doc.txt") is None
    assert store.row_of().get("domain/no_such_doc.txt") is None
    assert read_columns == []


def test_every_id_is_found_when_keys_collide(corpus, monkeypatch):
    """Ids filed under a handful of keys: lookups compare the ids stored in the rows."""
    path, ids, texts = corpus
    monkeypatch.setattr(id_index, "key_of", lambda doc_id: len(doc_id) % 3)
    store = new_store(path)
    assert [store.lookup(doc_id) for doc_id in ids[::97]] == [
        (doc_id, text) for doc_id, text in zip(ids[::97], texts[::97])
    ]
    assert store.lookup("x" * 20) is None and store.row_of().get(ids[-1]) == ROWS - 1


def test_a_repeated_id_finds_its_first_row(tmp_path):
    path = tmp_path / "docs.parquet"
    ids = ["a", "b", "a", "c", "b"]
    pq.write_table(pa.table({"id": ids, "content": ["1", "2", "3", "4", "5"]}), path)
    store = new_store(path)
    assert [store.lookup(i) for i in "abc"] == [("a", "1"), ("b", "2"), ("c", "4")]
    assert [store.row_of()[i] for i in "abc"] == [0, 1, 3]


def test_an_empty_corpus_has_an_empty_index(tmp_path):
    path = tmp_path / "docs.parquet"
    schema = pa.schema([("id", pa.string()), ("content", pa.string())])
    pq.write_table(pa.Table.from_pylist([], schema=schema), path)
    store = new_store(path)
    assert len(store) == 0 and store.lookup("a") is None


def test_a_store_of_the_older_format_is_rebuilt_once(corpus, caplog):
    """A version 4 store (page checksums in its manifest, parsed whole on open) is rebuilt
    with one warning on its first use, and used as it is afterwards."""
    path, ids, texts = corpus
    new_store(path).table()
    store_path = ArrowStore.path_for(path)
    manifest_path = derived.manifest_path(store_path)
    data = json.loads(manifest_path.read_text())
    data["version"] = 4
    data["pages"] = data["id_pages"] = "AAAAAA=="
    data["files"].pop("pages")
    manifest_path.write_text(json.dumps(data))
    os.unlink(pages_path(store_path))
    caplog.set_level(logging.WARNING)
    assert new_store(path).lookup(ids[42]) == (ids[42], texts[42])
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and "v4, not ir_bright.arrow-store v5" in warnings[0]
    stamp = store_path.stat().st_mtime_ns
    assert new_store(path).lookup(ids[43]) == (ids[43], texts[43])
    assert store_path.stat().st_mtime_ns == stamp
    assert len([r for r in caplog.records if r.levelno >= logging.WARNING]) == 1


@pytest.mark.parametrize("use", ["scan", "lookups"])
def test_the_rebuild_warning_names_the_damage_found_not_the_manifest_it_discarded(
    corpus, caplog, use
):
    path, ids, texts = corpus
    assert new_store(path).row(0) == (ids[0], texts[0])  # builds it
    alter_text(ArrowStore.path_for(path), None)  # the manifest is left intact
    store = new_store(path)
    caplog.set_level(logging.WARNING)
    if use == "scan":
        assert sum(batch.num_rows for batch in store.batches()) == ROWS
    else:
        assert store.column_values("content") == texts
    [warning] = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert "does not match" in warning or "is damaged" in warning, warning
    assert "manifest" not in warning.split(": ", 1)[1], warning


def test_a_store_damaged_after_it_was_opened_is_caught_before_use(corpus, caplog):
    path, ids, texts = corpus
    store = new_store(path)
    assert store.row(0) == (ids[0], texts[0])  # opened and mapped
    store_path = ArrowStore.path_for(path)
    alter_text(store_path, None)  # same inode: the mapping sees the change
    assert [store.row(i) for i in range(ROWS)] == list(zip(ids, texts))
    assert sum(r.levelno >= logging.WARNING for r in caplog.records) == 1


def test_a_store_part_file_that_is_a_link_is_not_followed(corpus, tmp_path):
    path, ids, texts = corpus
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    os.symlink(outside, ArrowStore.path_for(path).with_name("docs.parquet.arrow.part"))
    assert new_store(path).row(3) == (ids[3], texts[3])
    assert outside.read_text() == "keep me"


# -- the BM25 index ---------------------------------------------------------------------------


def empty_vocab(folder):
    (folder / "vocab.json").write_text("{}")


def shifted_indices(folder):
    import numpy as np

    path = folder / "indices.npy"
    indices = np.load(path)
    np.save(path, np.roll(indices, 1))


def nan_scores(folder):
    import numpy as np

    path = folder / "data.npy"
    data = np.load(path)
    data[: max(1, len(data) // 2)] = np.nan
    np.save(path, data)


def no_stats(folder):
    (folder / "ir_bright.json").unlink()


def no_manifest(folder):
    derived.manifest_path(folder).unlink()


@pytest.mark.parametrize("damage", [empty_vocab, no_stats])
def test_a_damaged_bm25_index_read_directly_is_the_one_damaged_cache_error(tmp_path, damage):
    pytest.importorskip("Stemmer")  # the bm25 extra
    from ir_bright import bm25
    from ir_bright.errors import DamagedError

    folder = tmp_path / "ix"
    batch = pa.record_batch(
        [pa.array(["d1", "d2", "d3"]), pa.array(["a cat sat", "a dog ran", "cats"])],
        names=["doc_id", "text"],
    )
    bm25.BM25Index.build([batch], progress=False).save(folder)
    damage(folder)
    with pytest.raises(DamagedError, match=rf"^{folder} is damaged \(.*\): delete it") as raised:
        bm25.BM25Index.load(folder)
    assert raised.value.path == folder


@pytest.mark.slow
@pytest.mark.parametrize(
    "damage",
    [empty_vocab, shifted_indices, nan_scores, no_stats, no_manifest],
    ids=lambda f: f.__name__,
)
def test_a_damaged_bm25_index_is_rebuilt_and_the_run_equals_a_clean_one(bright, caplog, damage):
    pytest.importorskip("Stemmer")  # the bm25 extra
    import ir_datasets

    from ir_bright import bm25

    clean = list(bm25.retrieve("bright/biology", progress=False))
    folder = bm25.index_folder(ir_datasets.load("bright/biology"))
    damage(folder)
    caplog.set_level(logging.WARNING)
    assert list(bm25.retrieve("bright/biology", progress=False)) == clean
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and str(folder) in warnings[0]
    assert list(bm25.retrieve("bright/biology", progress=False)) == clean  # no third build


# -- the command line, in a fresh process ------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("damage", [alter_offsets, alter_text], ids=lambda f: f.__name__)
def test_commands_on_a_damaged_store_print_the_clean_output_and_one_warning(bright, cli, damage):
    import ir_datasets

    import ir_bright  # noqa: F401 - registers ir_bright's BRIGHT over the core's

    build = "import ir_bright, ir_datasets; ir_datasets.load('bright/biology').docs_store().build()"
    subprocess.run([sys.executable, "-c", build], check=True, timeout=120)  # a fresh process
    clean = cli.fresh("export", "bright/biology", "docs")
    assert clean.returncode == 0, clean.stderr
    parquet_path = ir_datasets.load("bright/biology").docs_path()
    store_path = ArrowStore.path_for(parquet_path)
    damage(store_path, derived.manifest_path(store_path))
    again = cli.fresh("export", "bright/biology", "docs")
    assert again.returncode == 0 and again.stdout == clean.stdout
    lines = [line for line in again.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "rebuilding" in lines[0] and "Traceback" not in again.stderr


def test_replaced_atomically_never_writes_through_a_planted_link(tmp_path):
    """Every cached JSON and parquet file ir_bright writes (listings, counts, adjusted qrels,
    verdicts, manifests, BRIGHT-Pro's corpus) goes through this: a ``.part`` that is a link to a
    file outside the cache must not be followed."""
    outside = tmp_path / "outside.txt"
    outside.write_text("precious")
    cache = tmp_path / "cache"
    cache.mkdir()
    target = cache / "listing.json"
    (cache / "listing.json.part").symlink_to(outside)
    with derived.replaced_atomically(target) as out:
        out.write(b"[]")
    assert outside.read_text() == "precious"
    assert target.read_bytes() == b"[]" and not target.is_symlink()
    assert not (cache / "listing.json.part").exists()


def test_replaced_atomically_keeps_the_old_file_when_the_write_fails(tmp_path):
    target = tmp_path / "counts.json"
    target.write_text("old")
    with pytest.raises(OSError), derived.replaced_atomically(target) as out:
        out.write(b"half")
        raise OSError(28, "No space left on device")
    assert target.read_text() == "old"
    assert not (tmp_path / "counts.json.part").exists()
