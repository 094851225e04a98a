"""Hub files that are not what their config declares: refused in one line, never trusted.

Each case plants one defect (ids of the wrong type, null or holding white space, texts that
are binary, structs or invalid UTF-8, a missing column) in the fixture hub's pony domain and
runs the commands that read that file: each exits 2 with one line naming the file, the column
and the row, and nothing is left in the cache marked as checked. Repeated ids are used (first
copy wins) with one warning, and no command emits a (query, doc) pair twice.
"""

from __future__ import annotations

import re

import ir_datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ir_bright.cli import main
from ir_bright.store.schema import InvalidFileError
from tests.fixtures import brightpro_hub, hostile_hub, mmbright_hub

pytest.importorskip("Stemmer")  # the bm25 extra

CACHED = {"documents": "pony.docs.parquet", "examples": "pony.queries.parquet"}
EXPECTED = {
    "int64 doc ids": "column id holds int64, not text",
    "null doc id": "column id, row 1: null",
    "doc id with a space": "column id, row 0: the id 'Pony/a b.txt' is empty or holds white",
    "doc id with a newline": "column id, row 0: the id 'Pony/a\\n.txt' is empty or holds white",
    "binary text": "column content holds binary, not text",
    "struct text": "column content holds struct<t: string>, not text",
    "no content column": "has no column content (it has id, text)",
    "null query id": "column id, row 1: null, an id is never null",
    "query id with a tab": "column id, row 1: the id '1\\t2' is empty or holds white space",
    "invalid UTF-8 query": "column query, row 0: not valid UTF-8 text",
    "float query ids": "column id holds double, not text or an integer",
}
COMMANDS = {
    "documents": [["bm25", "bright/pony"], ["export", "bright/pony", "docs"]],
    "examples": [
        ["bm25", "bright/pony"],
        ["export", "bright/pony", "queries"],
        ["export", "bright/pony", "qrels"],
        ["evaluate", "bright/pony", "RUN"],
    ],
}


@pytest.fixture
def pony_hub(hub, hub_root, monkeypatch):
    """The loopback hub, checksums off (the fixture files match no pin)."""
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    return hub


@pytest.fixture
def run_file(tmp_path):
    """A valid run for bright/pony."""
    path = tmp_path / "run.trec"
    path.write_text("0 Q0 Pony/builtin-String_0.txt 1 1.0 t\n1 Q0 Pony/actors_0.txt 1 1.0 t\n")
    return path


def cli(capsys, argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def error_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if ": error: " in line or "internal" in line]


def trusted(home) -> list[str]:
    """Cache files that mark a file as checked or a store as built."""
    return sorted(
        p.name
        for p in home.rglob("*")
        if p.name.endswith((".checked.json", ".arrow.manifest.json"))
    )


@pytest.mark.parametrize("case", list(hostile_hub.CASES))
def test_a_hostile_file_is_refused_in_one_line_naming_file_column_and_row(
    case, pony_hub, hub_root, capsys, isolated_home, run_file
):
    config = hostile_hub.write_hostile(hub_root, case)
    for argv in COMMANDS[config] * 2:  # twice: a refused file is refused again
        argv = [str(run_file) if a == "RUN" else a for a in argv]
        status, out, err = cli(capsys, argv)
        assert status == 2, (argv, err)
        lines = error_lines(err)
        assert len(lines) == 1, err
        assert lines[0].startswith(f"ir-bright {argv[0]}: error: "), lines[0]
        assert CACHED[config] in lines[0] and EXPECTED[case] in lines[0], lines[0]
        assert "Traceback" not in err and out == ""
    assert not [name for name in trusted(isolated_home) if name.startswith(CACHED[config])]


def test_repeated_ids_keep_the_first_copy_and_no_pair_is_emitted_twice(
    pony_hub, hub_root, capsys, caplog, tmp_path
):
    hostile_hub.write_repeated(hub_root)
    run = tmp_path / "run.trec"
    status, _, err = cli(capsys, ["bm25", "bright/pony", "-o", str(run)])
    assert status == 0, err
    warnings = [r.getMessage() for r in caplog.records if "repeat an id" in r.getMessage()]
    assert len(warnings) == 2, warnings  # one per file: documents and examples
    assert any("pony.docs.parquet: 1 rows repeat" in line for line in warnings)
    assert any("pony.queries.parquet: 1 rows repeat" in line for line in warnings)
    pairs = [(line.split()[0], line.split()[2]) for line in run.read_text().splitlines()]
    assert len(pairs) == len(set(pairs)) == 2 * 3  # 2 queries x 3 distinct documents

    status, out, err = cli(capsys, ["evaluate", "bright/pony", str(run), "--format", "json"])
    assert status == 0, err

    status, out, _ = cli(capsys, ["export", "bright/pony", "docs", "--format", "jsonl"])
    assert status == 0
    assert out.count(hostile_hub.FIRST_DOC) == 1
    assert "the second copy" not in out and hostile_hub.REPEATED_DOCS["contents"][0] in out

    status, out, _ = cli(
        capsys, ["export", "bright/pony", "queries", "--fields", "query_id", "text"]
    )
    assert status == 0
    assert out.splitlines() == [
        "0\tHow do I concatenate two String values in Pony?",
        "1\tappend an element to a List",
    ]
    status, out, _ = cli(capsys, ["export", "bright/pony", "qrels"])
    qrels = [tuple(line.split()[:3:2]) for line in out.splitlines()]
    assert sorted(qrels) == [
        ("0", "Pony/builtin-String_0.txt"),
        ("1", "Pony/collections-List_0.txt"),
    ]


@pytest.mark.parametrize(
    ("config", "table", "argv", "expected"),
    [
        (
            "documents",
            {"id": ["academia/a_1.txt", None], "content": ["a", "b"]},
            ["export", "mm-bright/academia", "docs"],
            "column id, row 1: null, an id is never null",
        ),
        (
            "document_images",
            {"path": ["academia/academia_a7_0001/image 1.png"], "bytes": [b"x"]},
            ["export", "mm-bright/academia/task3", "docs"],
            "the id 'academia/academia_a7_0001/image 1.png' is empty or holds white space",
        ),
    ],
)
def test_mm_bright_files_are_checked_as_well(hub, hub_root, capsys, config, table, argv, expected):
    pytest.importorskip("PIL")
    mmbright_hub.write_mmbright(hub_root, {"academia": mmbright_hub.academia})
    types = {"path": pa.string(), "bytes": pa.binary(), "id": pa.string(), "content": pa.string()}
    schema = pa.schema([(name, types[name]) for name in table])
    target = hub_root / mmbright_hub.REPO / mmbright_hub.repo_path(config, "academia")
    pq.write_table(pa.table(table, schema=schema), target)
    status, out, err = cli(capsys, argv)
    assert status == 2 and out == "", err
    lines = error_lines(err)
    assert len(lines) == 1 and f"{config}" in lines[0] and expected in lines[0], err


NESTED_TEXT_CASES = {
    # MM-BRIGHT columns of any shape (lists of paths, answers as text or lists, structs)
    "mm image_paths": ("mm-bright/academia/task2", "examples_multimodal", "image_paths"),
    "mm gold_answers": ("mm-bright/academia/task2", "examples_multimodal", "gold_answers"),
    "mm positive_images": ("mm-bright/academia/task2", "examples_multimodal", "positive_images"),
    # BRIGHT-Pro's examples and aspects, read whole
    "pro query": ("bright-pro/biology", "examples", "query"),
    "pro reference_answer": ("bright-pro/biology", "examples", "reference_answer"),
    "pro gold_ids": ("bright-pro/biology", "examples", "gold_ids"),
    "pro aspect content": ("bright-pro/biology", "aspects", "content"),
}


def spoiled_hub(hub_root, dataset_id, config, column):
    """The fixture hub of ``dataset_id`` with ``column`` of ``config`` holding invalid UTF-8;
    returns the cached file's name."""
    if dataset_id.startswith("mm-bright"):
        mmbright_hub.write_mmbright(hub_root, {"academia": mmbright_hub.academia})
        path = hub_root / mmbright_hub.REPO / mmbright_hub.repo_path(config, "academia")
        cached = f"academia/ir_bright/{config}.parquet"
        cached = cached if config != "examples" else "academia/ir_bright/queries"
    else:
        brightpro_hub.write_brightpro(hub_root)
        path = hub_root / brightpro_hub.REPO / config / "biology-00000-of-00001.parquet"
        cached = f"{config}/ir_bright/biology-00000-of-00001.parquet"
    hostile_hub.with_invalid_utf8(path, column)
    return cached


@pytest.mark.parametrize("case", list(NESTED_TEXT_CASES))
def test_invalid_utf8_in_any_text_read_is_the_file_s_one_line_error(
    case, pony_hub, hub_root, capsys, run_file
):
    pytest.importorskip("PIL")
    dataset_id, config, column = NESTED_TEXT_CASES[case]
    cached = spoiled_hub(hub_root, dataset_id, config, column)
    expected = f"column {column}, row 0: not valid UTF-8 text: not the hub's file? delete it"
    queries = config != "aspects"  # aspects are read with the qrels, not the queries
    commands = [["export", dataset_id, "qrels"], ["evaluate", dataset_id, str(run_file)]]
    commands += [["export", dataset_id, "queries"]] if queries else []
    for argv in commands:
        status, out, err = cli(capsys, argv)
        lines = error_lines(err)
        assert status == 2 and out == "" and len(lines) == 1, (argv, err)
        assert cached in lines[0] and expected in lines[0], lines[0]
    dataset = ir_datasets.load(dataset_id)
    for read in (dataset.qrels_iter, *([dataset.queries_iter] if queries else [])):
        with pytest.raises(InvalidFileError, match=re.escape(expected)):
            list(read())
