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
from ir_datasets.datasets.base import Dataset
from ir_measures import P, ScoredDoc, nDCG

import ir_bright
from ir_bright import upstream
from ir_bright.measures import Official
from ir_bright.scoring import aspect_measures, provider


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


def test_ir_brights_providers_are_asked_before_every_stock_provider():
    providers = ir_measures.DefaultPipeline.providers
    assert isinstance(providers, list)
    assert {p.NAME for p in providers[:2]} == {"ir_bright", "ir_bright_aspects"}
    assert all(ir_measures.providers.registry[p.NAME] is p for p in providers[:2])
    assert [p.NAME for p in providers].count("ir_bright_aspects") == 1


class _Probe(ir_measures.providers.Provider):
    """A provider claiming P@1, which it computes as 0.5 for every query."""

    NAME = "ir_bright_test_probe"

    def supports(self, measure):
        return measure == P @ 1

    def _evaluator(self, measures, qrels):
        return _ProbeEvaluator(measures, {q.query_id for q in qrels})


class _ProbeEvaluator(ir_measures.providers.Evaluator):
    def _iter_calc(self, run):
        for query_id in sorted(self.qrel_qids):
            yield ir_measures.Metric(query_id, P @ 1, 0.5)


@pytest.fixture
def measure_registry(monkeypatch):
    """A copy of ir_measures' measure registry in place of it, for this test."""
    copy = dict(ir_measures.measures.registry)
    monkeypatch.setattr(ir_measures.measures, "registry", copy)
    monkeypatch.setattr(ir_measures.measures.base, "registry", copy)  # what register() writes
    return copy


@pytest.fixture
def provider_pipeline(monkeypatch):
    """Copies of ir_measures' provider registry and default pipeline, for this test."""
    copy = dict(ir_measures.providers.registry)
    monkeypatch.setattr(ir_measures.providers, "registry", copy)
    monkeypatch.setattr(ir_measures.providers.base, "registry", copy)  # what register() writes
    monkeypatch.setattr(ir_measures.DefaultPipeline, "providers", list(_pipeline()))
    return copy


def test_the_default_pipeline_behind_calc_aggregate_gives_a_measure_to_its_first_provider(
    provider_pipeline,
):
    # put_provider_first rewrites DefaultPipeline.providers in place: it must be the list the
    # module-level functions consult, in order
    assert ir_measures.calc_aggregate.__self__ is ir_measures.DefaultPipeline
    qrels, run = [ir_measures.Qrel("1", "a", 1)], [ScoredDoc("1", "a", 1.0)]
    assert ir_measures.calc_aggregate([P @ 1], qrels, run) == {P @ 1: 1.0}  # pytrec_eval's
    upstream.put_provider_first(_Probe())
    upstream.put_provider_first(_Probe())
    assert ir_measures.providers.registry[_Probe.NAME] is ir_measures.DefaultPipeline.providers[0]
    assert [p.NAME for p in _pipeline()].count(_Probe.NAME) == 1
    assert ir_measures.calc_aggregate([P @ 1, nDCG @ 10], qrels, run) == {
        P @ 1: 0.5,
        nDCG @ 10: 1.0,
    }


def _pipeline():
    return ir_measures.DefaultPipeline.providers


class _Named(ir_measures.Measure):
    """A measure of another package that takes one of ir_bright's names (or a stock one)."""

    SUPPORTED_PARAMS = {"cutoff": ir_measures.ParamInfo(dtype=int)}

    def __init__(self, name="A_Recall", **params):
        super().__init__(**params)
        self.NAME = self.__name__ = name

    def __call__(self, **kwargs):
        return type(self)(self.NAME, **{**self.params, **kwargs})


def test_ir_measures_register_refuses_a_name_it_has_which_register_measure_checks_first(
    measure_registry,
):
    with pytest.raises(AssertionError):
        ir_measures.measures.register(nDCG, name="nDCG")
    probe = _Named("IrBrightProbe")
    upstream.register_measure(probe)
    upstream.register_measure(probe)  # idempotent
    assert upstream.stock_parser()("IrBrightProbe@5") == _Named("IrBrightProbe", cutoff=5)


def test_a_measure_name_another_package_holds_is_left_to_it_with_a_warning(
    measure_registry, provider_pipeline
):
    theirs = measure_registry["A_Recall"] = _Named("A_Recall")
    with pytest.warns(RuntimeWarning, match="already has a measure named A_Recall"):
        aspect_measures.register()
    assert measure_registry["A_Recall"] is theirs
    assert ir_measures.parse_measure("A_Recall@25") == _Named("A_Recall", cutoff=25)
    assert measure_registry["wAlpha_nDCG"] is aspect_measures.wAlpha_nDCG


@pytest.mark.parametrize("name", ["A_Recall", "wAlpha_nDCG", "Official", "nDCG"])
def test_ir_brights_providers_claim_only_measures_of_their_own_classes(name):
    # so standing first in the pipeline takes no measure of another package, same-named or not
    foreign = _Named(name, cutoff=10)
    assert not provider.PROVIDER.supports(foreign)
    assert not aspect_measures.PROVIDER.supports(foreign)
    assert aspect_measures.PROVIDER.supports(aspect_measures.A_Recall @ 10)
    assert provider.PROVIDER.supports(Official(nDCG @ 10))


def test_an_ir_datasets_dataset_asks_its_constituents_nothing_until_an_attribute_is_read():
    # LazyDataset builds its family on first use through this public behaviour alone
    asked = []

    class Constituent:
        def __getattr__(self, name):
            asked.append(name)
            if name == "docs_handler":
                return lambda: self
            raise AttributeError(name)

        def __dir__(self):
            return ["docs_iter"]

    dataset = Dataset(Constituent())
    assert asked == []
    assert dataset.has_docs() and asked and set(asked) == {"docs_handler"}
    assert "docs_iter" in dir(dataset)
    with pytest.raises(AttributeError):
        dataset.no_such_thing  # noqa: B018 - a missing attribute is missing


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
