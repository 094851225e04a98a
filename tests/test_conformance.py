"""ir_bright against the contracts of the tools around it, read from those tools' own behaviour.

- ir_datasets' exporter (``python -m ir_datasets export``, every format it offers) on every id
  family and entity type: non-empty rows holding every text field, equal to ``ir-bright export``.
- ir_datasets' metadata contract: every entity type an id provides has a ``count``.
- ir_measures with ``import ir_bright`` behaves as without it (compared with a subprocess that
  never imports ir_bright), and ``Official`` registry entries behave as stock ones.
- ``ir-bright evaluate --stock`` gives plain ir_measures' values.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stdout

import ir_datasets
import pytest
from ir_datasets.commands import export as irds_export

from ir_bright.cli import main
from tests.fixtures import bright_hub, mmbright_hub

pytest.importorskip("PIL")

# Record fields that hold encoded images: no text format carries them (ir_datasets' exporter
# skips bytes); every other field must be exported.
BINARY_FIELDS = {"image", "images"}
FORMATS = {"docs": ("tsv", "jsonl"), "queries": ("tsv", "jsonl"), "qrels": ("trec", "tsv", "jsonl")}
# One id of every family, with the entity types it provides.
FAMILIES = {
    "bright/biology": ("docs", "queries", "qrels"),
    "bright/biology-long": ("docs", "queries", "qrels"),
    "bright/aops/gpt4-reason": ("docs", "queries", "qrels"),
    "bright/biology-long/claude-3-opus-reason": ("docs", "queries", "qrels"),
    "mm-bright/academia": ("docs",),
    "mm-bright/academia/task1": ("docs", "queries", "qrels"),
    "mm-bright/academia/task2": ("docs", "queries", "qrels"),
    "mm-bright/academia/task3": ("docs", "queries", "qrels"),
    "mm-bright/academia/task4": ("docs", "queries", "qrels"),
    "mm-bright/academia/task4-legacy": ("docs", "queries", "qrels"),
}
CASES = [
    (dataset_id, entity, fmt)
    for dataset_id, entities in FAMILIES.items()
    for entity in entities
    for fmt in FORMATS[entity]
]


@pytest.fixture
def both(hub, hub_root, monkeypatch):
    """The fixture BRIGHT and MM-BRIGHT on one loopback hub."""
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    bright_hub.write_bright(hub_root)
    mmbright_hub.write_mmbright(hub_root)
    return hub


def irds_export_output(*argv: str) -> str:
    """What ir_datasets' own ``export`` command writes for ``argv``, in this process."""
    out = io.StringIO()
    with redirect_stdout(out):
        irds_export.main(list(argv))
    return out.getvalue()


def expected_json(record) -> dict:
    """A record as one JSON row: every field but encoded images; tuples as lists."""
    return {
        name: list(value) if isinstance(value, tuple) else value
        for name, value in zip(record._fields, record)
        if name not in BINARY_FIELDS
    }


@pytest.mark.parametrize("dataset_id,entity,fmt", CASES)
def test_ir_datasets_export_equals_ir_bright_export_and_is_not_empty(
    both, capsys, dataset_id, entity, fmt
):
    import ir_bright  # noqa: F401 - registers the ids, as a user's import does

    theirs = irds_export_output(dataset_id, entity, "--format", fmt)
    capsys.readouterr()
    assert main(["export", dataset_id, entity, "--format", fmt]) == 0
    ours = capsys.readouterr().out
    assert theirs == ours
    records = list(getattr(ir_datasets.load(dataset_id), f"{entity}_iter")())
    lines = theirs.splitlines()
    assert records and len(lines) == len(records)
    if fmt == "jsonl":
        assert [json.loads(line) for line in lines] == [expected_json(r) for r in records]
    elif fmt == "trec":
        assert lines == [f"{q.query_id} 0 {q.doc_id} {q.relevance}" for q in records]
    else:  # tsv: at least the id and, where there is one, the text
        for line, record in zip(lines, records):
            columns = line.split("\t")
            assert columns[0] == record[0]
            if "text" in record._fields:
                assert " ".join(record.text.split()) in " ".join(columns)


def test_python_m_ir_datasets_export_with_ir_bright_imported_prints_full_rows(both):
    """The command line itself: ``python -m ir_datasets export`` in a process that imported
    ir_bright (ir_datasets has no plugin discovery, so the import is the user's)."""
    code = "import ir_bright, runpy; runpy.run_module('ir_datasets', run_name='__main__')"
    argv = ["export", "bright/biology", "queries", "--format", "jsonl"]
    proc = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, env=os.environ
    )
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    fixture = bright_hub.biology()["examples"]
    assert [(r["query_id"], r["text"], r["gpt4_reason"]) for r in rows] == [
        (e["id"], e["query"], bright_hub.llm_text("gpt4", e["id"])) for e in fixture
    ]


def record_types():
    """Every record type an ir_bright id declares (docs, queries, qrels), each once."""
    import ir_bright.registry as registry

    registry.register()
    found = {}
    for dataset_id in registry.our_ids():
        dataset = ir_datasets.load(dataset_id)
        for entity in ("docs", "queries", "qrels"):
            if getattr(dataset, f"has_{entity}")():
                cls = getattr(dataset, f"{entity}_cls")()
                found[cls.__name__] = cls
    return found


def test_record_annotations_are_runtime_types_that_build_an_instance():
    """ir_datasets' documentation and tests read ``__annotations__`` as types (field type
    listings, instances built field by field from them); strings would break both."""
    import typing

    for name, cls in record_types().items():
        annotations = cls.__annotations__
        assert list(annotations) == list(cls._fields), name
        values = []
        for field, kind in annotations.items():
            assert not isinstance(kind, str), f"{name}.{field} is annotated by a string"
            if typing.get_origin(kind) is tuple:
                values.append(tuple(typing.get_args(kind)[0]() for _ in range(2)))
            else:
                values.append(kind())
        instance = cls(*values)
        if hasattr(instance, "default_text"):
            assert isinstance(instance.default_text(), str), name
