"""A fuzz of crafted parquet files: every read ends in a result or a one-line error.

Seeded: 160 files of documents or examples with wrong types (int, float, binary, struct,
list, all-null columns), nulls, repeated ids, ids with white space, invalid UTF-8, huge values,
no rows, truncation, flipped bytes and plain garbage. Each file goes through every reader a
command uses (docs iteration, slicing, lookups, Arrow batches whole and sharded, counts,
queries and judgements of BRIGHT and MM-BRIGHT). Each step must return, or raise an
:class:`~ir_bright.errors.IrBrightError` of one line; any other exception fails the test,
naming the case to replay.
"""

from __future__ import annotations

import random
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ir_bright.errors import IrBrightError
from ir_bright.families.bright.collection import EXAMPLES_SPEC
from ir_bright.families.mmbright.source import QUERY_SPEC
from ir_bright.store import ParquetDocs
from ir_bright.store.schema import checked_columns

CASES = 160
SEED = 20
HUGE = "x" * (1 << 20)


class CachedFile:
    """A hub file already in the cache at ``path`` (what ParquetDocs asks of one)."""

    def __init__(self, path: Path):
        self.path = str(path)
        self.local_path = path
        self.twin = None

    def fetch(self) -> Path:
        return self.local_path

    def cached_path(self) -> Path:
        return self.local_path

    def shared(self) -> CachedFile:
        return self


def _ids(rng: random.Random, rows: int) -> pa.Array:
    kind = rng.choice(["text"] * 4 + ["int", "float", "binary", "struct", "list", "null"])
    if kind == "int":
        return pa.array([rng.choice([i, 2**63 - 1, -1]) for i in range(rows)], pa.int64())
    if kind == "float":
        return pa.array([i + 0.5 for i in range(rows)])
    if kind == "binary":
        return pa.array([f"d{i}".encode() for i in range(rows)], pa.binary())
    if kind == "struct":
        return pa.array([{"id": f"d{i}"} for i in range(rows)])
    if kind == "list":
        return pa.array([[f"d{i}"] for i in range(rows)])
    if kind == "null":
        return pa.nulls(rows)
    values = [f"d{i}" for i in range(rows)]
    for _ in range(rng.randint(0, 2)):
        if rows:
            at = rng.randrange(rows)
            values[at] = rng.choice([None, "", "a b", "a\nb", "\t", values[rng.randrange(rows)]])
    return pa.array(values, pa.string())


def _texts(rng: random.Random, rows: int) -> pa.Array:
    kind = rng.choice(["text"] * 4 + ["binary", "struct", "int", "null", "utf8", "huge"])
    if kind == "binary":
        return pa.array([b"\xff" * i for i in range(rows)], pa.binary())
    if kind == "struct":
        return pa.array([{"t": "x"} for _ in range(rows)])
    if kind == "int":
        return pa.array(list(range(rows)), pa.int64())
    if kind == "null":
        return pa.nulls(rows, pa.string())
    if kind == "utf8":
        raw = [b"ok", b"caf\xc3", b"\xed\xa0\x80"] * rows
        return pa.array(raw[:rows], pa.binary()).view(pa.string())
    if kind == "huge":
        return pa.array([HUGE if i == 0 else "t" for i in range(rows)])
    return pa.array([rng.choice(["moths", "light", None, ""]) for _ in range(rows)])


def _id_lists(rng: random.Random, rows: int) -> pa.Array:
    kind = rng.choice(["text"] * 3 + ["ints", "string", "null"])
    if kind == "ints":
        return pa.array([[1, 2] for _ in range(rows)])
    if kind == "string":
        return pa.array(["d1" for _ in range(rows)])
    if kind == "null":
        return pa.nulls(rows)
    return pa.array([rng.choice([["d1", "d1"], ["N/A"], [], None, [None]]) for _ in range(rows)])


def crafted(rng: random.Random, folder: Path, number: int) -> tuple[str, Path]:
    """One crafted file: ``("docs" | "examples", its path)``."""
    rows = rng.choice([0, 1, 3, 8])
    kind = rng.choice(["docs", "examples"])
    if kind == "docs":
        columns = {"id": _ids(rng, rows), "content": _texts(rng, rows)}
    else:
        columns = {
            "id": _ids(rng, rows),
            "query": _texts(rng, rows),
            "gold_ids": _id_lists(rng, rows),
            "excluded_ids": _id_lists(rng, rows),
            "negative_ids": _id_lists(rng, rows),
        }
    if rng.random() < 0.1:
        columns.pop(rng.choice(list(columns)))
    path = folder / f"case{number}.parquet"
    pq.write_table(pa.table(columns), path, row_group_size=rng.choice([1, 2, 1000]))
    damage = rng.random()
    data = path.read_bytes()
    if damage < 0.15:
        path.write_bytes(data[: rng.randrange(len(data))])
    elif damage < 0.25:
        spoiled = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            spoiled[rng.randrange(len(spoiled))] ^= 0xFF
        path.write_bytes(bytes(spoiled))
    elif damage < 0.3:
        path.write_bytes(rng.randbytes(rng.randint(0, 64)))
    return kind, path


def docs_steps(path: Path):
    docs = ParquetDocs(CachedFile(path), "fuzz")
    yield "docs_iter", lambda: list(docs.docs_iter())
    yield "docs_arrow", lambda: list(docs.docs_arrow())
    yield "docs_arrow shard", lambda: list(docs.docs_arrow(shard=1, num_shards=2))
    yield "docs_store", lambda: list(docs.docs_store().get_many_iter(["d0", "d1"]))
    yield "docs_iter slice", lambda: list(docs.docs_iter()[1:3])
    yield "docs_iter index", lambda: docs.docs_iter()[0]
    yield "docs_count", docs.docs_count
    yield "docs_arrow from the store", lambda: list(docs.docs_arrow())


def examples_steps(path: Path):
    bright = ["id", "query", "gold_ids", "excluded_ids"]
    yield "bright examples", lambda: checked_columns(path, EXAMPLES_SPEC, bright)
    yield "mm-bright examples", lambda: checked_columns(path, QUERY_SPEC, list(QUERY_SPEC))


@pytest.mark.slow
def test_every_step_over_crafted_parquet_ends_in_a_result_or_one_line(tmp_path):
    rng = random.Random(SEED)
    outcomes = {"result": 0, "refused": 0}
    for number in range(CASES):
        kind, path = crafted(rng, tmp_path, number)
        steps = docs_steps(path) if kind == "docs" else examples_steps(path)
        for name, step in steps:
            try:
                step()
                outcomes["result"] += 1
            except IndexError:
                outcomes["result"] += 1  # docs_iter()[0] of an empty corpus
            except IrBrightError as exc:
                message = str(exc)
                assert message and "\n" not in message, (number, name, message)
                assert str(path) in message, (number, name, message)
                outcomes["refused"] += 1
            except Exception as exc:  # noqa: BLE001 - the point: nothing else may escape
                pytest.fail(f"case {number} ({kind}), step {name}: {type(exc).__name__}: {exc}")
    assert outcomes["result"] > 50 and outcomes["refused"] > 50, outcomes
