"""ir_datasets' own BRIGHT loader (``ir_datasets/datasets/bright.py``) serves ``bright/*`` in a
process that did not import ir_bright, and reads whatever lies at its cache paths: ir_bright
keeps its copies elsewhere, so that loader downloads its own instead of silently reading them
through its defective qrels. Copies already at the core's paths stay usable in place."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import ir_datasets
import pytest

import ir_bright  # noqa: F401 - registers bright/*: these tests use ir_bright's datasets
from tests.fixtures.bright_hub import REPO, repo_path
from tests.helpers import cached

IDS = ["bright/biology", "bright/biology-long", "bright/aops", "bright/biology/gpt4-reason"]


def core_cache_paths(home: Path) -> list[Path]:
    """Every path the core's BRIGHT module reads its files from, as its download configuration
    names them (``$IR_DATASETS_HOME/bright/<cache_path>``)."""
    config = ir_datasets.util.DownloadConfig.context("bright", home / "bright")
    return [Path(config[key].path(force=False)) for key in config.contents()]


def fetch_everything(dataset_ids):
    for dataset_id in dataset_ids:
        for file in ir_datasets.load(dataset_id).hub_files():
            file.fetch()


def test_none_of_ir_brights_files_is_where_the_core_loader_reads(bright, isolated_home):
    fetch_everything(IDS)
    core = core_cache_paths(isolated_home)
    assert len(core) == 92  # the core pins BRIGHT's 92 files
    assert [path for path in core if path.exists()] == []
    assert cached(isolated_home, "bright", "biology.long-docs.parquet").is_file()


@pytest.mark.slow  # a fresh interpreter that never imports ir_bright
def test_without_the_import_the_core_loader_does_not_read_ir_brights_files(bright):
    fetch_everything(["bright/biology-long"])
    # the core reads bright/biology-long's SHORT gold ids as its qrels: had it read the files
    # ir_bright cached, it would yield them; it must try to download its own instead (here
    # through a proxy that refuses, so nothing is fetched from the real hub)
    script = (
        "import ir_datasets\n"
        "qrels = ir_datasets.load('bright/biology-long').qrels_iter()\n"
        "try:\n"
        "    print(sorted({q.doc_id for q in qrels}))\n"
        "except OSError as error:  # requests' errors are OSErrors\n"
        "    print('no qrels: its download failed,', type(error).__name__)\n"
    )
    env = {**os.environ, "HTTPS_PROXY": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("no qrels: its download failed"), done.stdout


def test_a_copy_at_the_core_loaders_path_is_used_where_it_is(bright, isolated_home):
    # the core (or ir_bright before it kept its own folder) cached biology's two files there
    for config, name in (("examples", "queries"), ("documents", "docs")):
        source = bright.root / REPO / repo_path(config, "biology")
        target = isolated_home / "bright" / f"biology.{name}.parquet"
        target.parent.mkdir(exist_ok=True)
        target.write_bytes(source.read_bytes())
    dataset = ir_datasets.load("bright/biology")
    doc_ids = [d.doc_id for d in dataset.docs_iter()]
    assert dataset.docs_store().get(doc_ids[3]).doc_id == doc_ids[3]
    assert len(list(dataset.qrels_iter())) == 3
    assert bright.requests == []
    # derived files (the random-access store, counts) go beside the copy that is read
    assert dataset.docs_path(force=False) == isolated_home / "bright" / "biology.docs.parquet"
    assert not cached(isolated_home, "bright", "biology.docs.parquet").parent.exists()


@pytest.mark.parametrize(
    "dataset_id, warned",
    [
        ("bright/biology", True),
        ("bright/pony-long", True),
        ("bright/biology/gpt4-reason", False),  # the core has no such id
        ("mm-bright/academia/task1", False),
    ],
)
def test_info_says_when_the_core_serves_the_id_without_the_import(cli, dataset_id, warned):
    status, out, _ = cli("info", dataset_id)
    assert status == 0
    assert ("note: without `import ir_bright`, ir_datasets" in out) is warned
