"""Contract tests of the upstream internals ir_bright relies on (ir_bright/upstream.py).

Each test states what ir_bright assumes of another package's internals; when an upstream
release moves one, the test here fails and names it, instead of a failure somewhere deep in
scoring or registration.
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading

import ir_datasets
import ir_measures
import pytest
from ir_measures import ScoredDoc, nDCG

import ir_bright
from ir_bright import upstream
from ir_bright.measures import Official


def test_ir_datasets_registry_is_a_dict_and_refuses_to_replace_through_its_public_api():
    table = upstream.dataset_table()
    assert isinstance(table, dict)
    assert table["bright/biology"] is ir_datasets.registry["bright/biology"]
    # the reason for reaching in: the public register() will not replace the core's entries
    with pytest.raises(RuntimeError, match="already exists"):
        ir_datasets.registry.register("bright/biology", table["bright/biology"])


def test_ir_measures_stock_parser_cannot_read_official_but_the_installed_one_does():
    with pytest.raises(Exception):  # noqa: B017 - whatever the stock parser raises
        upstream.stock_parser()("Official(nDCG@10)")
    assert ir_measures.parse_measure("Official(nDCG@10)") == Official(nDCG @ 10)
    assert ir_measures.util.parse_measure is ir_measures.parse_measure
    assert upstream.stock_parser()("nDCG@10") == nDCG @ 10


def test_the_official_provider_is_asked_first_by_the_default_pipeline():
    providers = ir_measures.DefaultPipeline.providers
    assert isinstance(providers, list)
    assert providers[0].NAME == "ir_bright"
    assert ir_measures.providers.registry["ir_bright"] is providers[0]


def test_an_evaluators_inner_metrics_are_its_per_query_metrics_without_filling_in():
    qrels = [ir_measures.Qrel("1", "a", 1), ir_measures.Qrel("2", "b", 1)]
    run = [ScoredDoc("1", "a", 1.0), ScoredDoc("1", "x", 0.5)]
    evaluator = ir_measures.evaluator([nDCG @ 10], qrels)
    inner = list(upstream.inner_metrics(evaluator, {"1": {"a": 1.0, "x": 0.5}}))
    public = list(evaluator.iter_calc(run))
    assert [(m.query_id, m.value) for m in inner] == [("1", 1.0)]
    assert {(m.query_id, m.value) for m in public} == {("1", 1.0), ("2", 0.0)}


def test_a_logger_given_another_class_follows_its_computed_level():
    class Fixed(logging.Logger):
        @property
        def level(self) -> int:  # type: ignore[override]
            return self.__dict__.get("_own", logging.ERROR)

        @level.setter
        def level(self, value: int) -> None:
            if value:
                self.__dict__["_own"] = value

    logger = logging.getLogger("ir_bright.test-upstream-logger")
    assert logger.isEnabledFor(logging.WARNING)  # answer cached by logging
    upstream.follow_levels(logger, Fixed)
    assert type(logger) is Fixed
    assert not logger.isEnabledFor(logging.WARNING)  # the cached answer was dropped
    logger.setLevel(logging.DEBUG)
    assert logger.isEnabledFor(logging.DEBUG)


def test_pyterrier_keeps_its_ir_datasets_adapter_where_ir_bright_subclasses_it():
    pytest.importorskip("pyterrier")
    cls = upstream.irds_dataset_class()
    assert callable(getattr(cls, "irds_ref", None))
    assert callable(getattr(cls, "get_topics", None))


def test_ir_datasets_export_writers_are_found_by_entity_and_format():
    assert {"tsv", "jsonl"} <= set(upstream.irds_exporters("docs"))
    assert {"trec", "tsv", "jsonl"} <= set(upstream.irds_exporters("qrels"))
    assert ir_bright.register() == []  # already registered: nothing added twice


def test_interpreter_flags_name_this_interpreters_settings_for_a_new_one():
    done = subprocess.run(
        [
            sys.executable,
            "-s",
            "-W",
            "error::UserWarning",
            "-c",
            "from ir_bright.upstream import interpreter_flags; print(interpreter_flags())",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    flags = done.stdout
    assert "'-s'" in flags and "'-Werror::UserWarning'" in flags


def test_a_module_another_thread_imports_is_seen_being_imported_until_it_is_done(
    tmp_path, monkeypatch
):
    (tmp_path / "slow_to_import.py").write_text(
        "import threading\nSTARTED, GO = threading.Event(), threading.Event()\n"
    )
    (tmp_path / "waits_while_imported.py").write_text(
        "import slow_to_import\nslow_to_import.STARTED.set()\nslow_to_import.GO.wait(30)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    import slow_to_import

    importer = threading.Thread(target=__import__, args=("waits_while_imported",))
    importer.start()
    try:
        assert slow_to_import.STARTED.wait(30)
        assert "waits_while_imported" in upstream.modules_being_imported()
    finally:
        slow_to_import.GO.set()
        importer.join()
    assert "waits_while_imported" not in upstream.modules_being_imported()
