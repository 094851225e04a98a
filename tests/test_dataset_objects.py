"""Every entry point that takes a dataset takes what the user has: an id, an ir_datasets
dataset, ir_bright's own (``with_queries``) or PyTerrier's ``pt.get_dataset(...)``, through
``irds:`` or the ``bright:`` provider; anything else is a one-line error naming it. PyTerrier's
empty validation frame costs no work and no warning.

The expectations are the fixture's aops rows (tests/fixtures/bright_hub.py): query
``Problem_1`` has gold ``camel_1``, ``camel_2`` and excludes ``Problem_1`` and ``camel_7``;
query ``Problem_2`` has gold ``camel_3`` and excludes ``Problem_2``.
"""

from __future__ import annotations

import logging
import subprocess
import sys

import pandas as pd
import pytest

import ir_bright
from ir_bright.errors import DatasetNotFoundError
from ir_bright.pipelines import candidates, fuse, with_queries
from ir_bright.scoring import excluded_docs

pt = pytest.importorskip("pyterrier")

Q1, Q2 = "aops_2019_AMC_12A_Problems/Problem_1", "aops_2019_AMC_12A_Problems/Problem_2"
RUN = {  # each query's own problem first: excluded, so the official ranking is all gold
    Q1: {Q1: 3.0, "camel_1": 2.0, "camel_2": 1.0},
    Q2: {Q2: 2.0, "camel_3": 1.0},
}
WITHOUT_EXCLUDED = {Q1: {"camel_1": 2.0, "camel_2": 1.0}, Q2: {"camel_3": 1.0}}
FORMS = ["id", "ir_datasets", "pt irds:", "pt bright:", "with_queries"]


def given(form: str):
    """bright/aops as the user may have it."""
    import ir_datasets

    return {
        "id": lambda: "bright/aops",
        "ir_datasets": lambda: ir_datasets.load("bright/aops"),
        "pt irds:": lambda: pt.get_dataset("irds:bright/aops"),
        "pt bright:": lambda: pt.get_dataset("bright:aops"),
        "with_queries": lambda: with_queries("bright/aops", {Q1: "angle", Q2: "lattice"}),
    }[form]()


def frame(run):
    """A PyTerrier result frame of a dict-of-dicts run."""
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return pd.DataFrame(rows, columns=["qid", "docno", "score"])


@pytest.mark.parametrize("form", FORMS)
def test_evaluate_scores_the_dataset_by_its_official_measure(bright, form):
    assert ir_bright.evaluate(RUN, given(form)) == {"nDCG@10": 1.0}


@pytest.mark.parametrize("form", FORMS)
def test_drop_excluded_and_fusion_read_the_datasets_exclusions(bright, form):
    dataset = given(form)
    assert ir_bright.drop_excluded(RUN, dataset) == WITHOUT_EXCLUDED
    assert excluded_docs(dataset) == {Q1: {Q1, "camel_7"}, Q2: {Q2}}
    fused = fuse([RUN, RUN], "combsum", excluded=excluded_docs(dataset))
    assert {q: set(docs) for q, docs in fused.items()} == {
        Q1: {"camel_1", "camel_2"},
        Q2: {"camel_3"},
    }


@pytest.mark.parametrize("form", FORMS)
def test_candidates_are_taken_after_the_exclusions(bright, form):
    found = [(c.query_id, c.doc_id, c.rank) for c in candidates(given(form), RUN, depth=1)]
    assert found == [(Q1, "camel_1", 1), (Q2, "camel_3", 1)]


@pytest.mark.parametrize("form", FORMS)
def test_with_queries_replaces_the_query_texts(bright, form):
    mine = with_queries(given(form), {Q1: "first", Q2: "second"})
    assert list(mine.query_texts()) == [(Q1, "first"), (Q2, "second")]
    assert mine.dataset_id() == "bright/aops"


@pytest.mark.parametrize("form", FORMS)
def test_compare_labels_the_records_with_the_dataset_id(bright, form):
    pytest.importorskip("scipy")
    table = ir_bright.compare(RUN, {"same": WITHOUT_EXCLUDED}, given(form), seed=0, samples=50)
    assert list(table["dataset"]) == ["bright/aops"]
    assert list(table["delta"]) == [0.0] and list(table["mean"]) == [1.0]


@pytest.mark.parametrize("form", FORMS)
def test_the_drop_excluded_transformer_takes_every_form(bright, form):
    from ir_bright.pyterrier import drop_excluded_transformer

    out = drop_excluded_transformer(given(form)).transform(frame(RUN))
    assert sorted(zip(out.qid, out.docno)) == [(Q1, "camel_1"), (Q1, "camel_2"), (Q2, "camel_3")]


@pytest.mark.parametrize("form", FORMS)
def test_the_bm25_transformer_takes_every_form(bright, form):
    pytest.importorskip("Stemmer")  # the bm25 extra
    from ir_bright.pyterrier import bm25_transformer

    topics = pd.DataFrame({"qid": [Q1, Q2], "query": ["triangle angle", "lattice points"]})
    out = bm25_transformer(given(form)).transform(topics)
    assert set(out.qid) == {Q1, Q2}
    assert not {(Q1, Q1), (Q1, "camel_7"), (Q2, Q2)} & set(zip(out.qid, out.docno))


@pytest.mark.parametrize(
    "thing, named",
    [
        (pd.DataFrame({"qid": ["1"]}), "DataFrame"),
        (42, "int 42"),
        (["bright/aops"], "list ['bright/aops']"),
    ],
)
def test_what_is_not_a_dataset_is_a_one_line_error_naming_it(thing, named):
    with pytest.raises(DatasetNotFoundError) as caught:
        ir_bright.evaluate(RUN, thing)
    message = str(caught.value)
    assert "\n" not in message and named in message
    assert "is not a dataset: give an id (bright/biology)" in message


def test_a_pyterrier_dataset_not_backed_by_ir_datasets_is_refused_by_name():
    class Remote(pt.datasets.Dataset):  # as pt.get_dataset("vaswani") is: topics, no ir_datasets
        def __repr__(self):
            return "RemoteDataset(vaswani)"

    from ir_bright.pyterrier import drop_excluded_transformer

    with pytest.raises(DatasetNotFoundError, match=r"^Remote RemoteDataset\(vaswani\) is not a"):
        drop_excluded_transformer(Remote())


@pytest.mark.slow  # a fresh interpreter: the core's dataset must be loaded before ir_bright
def test_the_cores_dataset_loaded_before_the_import_gives_way_to_ir_brights(bright):
    # the core reads bright/biology-long's SHORT gold ids as its qrels: this run, ranking the
    # long gold pages, scores 0 under the core's qrels and 1 under the benchmark's
    script = (
        "import ir_datasets, pyterrier as pt\n"
        "core = ir_datasets.load('bright/biology-long')\n"
        "via_pt = pt.get_dataset('irds:bright/biology-long')\n"
        "import ir_bright\n"
        "run = {'0': {'insects_light/Phototaxis.txt': 1.0}, '1': {'bird_song/Birdsong.txt': 1.0}}\n"
        "print(ir_bright.evaluate(run, core, ['R@1']), ir_bright.evaluate(run, via_pt, ['R@1']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["{'R@1':", "1.0}", "{'R@1':", "1.0}"]
    assert "ir_datasets' own, defective loader's" in done.stderr


def test_an_empty_validation_frame_costs_no_work_and_no_warning(bright, caplog, monkeypatch):
    pytest.importorskip("Stemmer")
    from ir_bright import bm25
    from ir_bright.pyterrier import bm25_transformer, drop_excluded_transformer

    def refuse(*args, **kwargs):
        raise AssertionError("work done for an empty frame")

    monkeypatch.setattr(bm25, "index_for", refuse)
    monkeypatch.setattr("ir_bright.scoring.scorer.judgements.split_qrels", refuse)
    topics = pd.DataFrame(columns=["qid", "query"])
    results = pd.DataFrame(columns=["qid", "docno", "score", "rank"])
    with caplog.at_level(logging.INFO):
        retrieved = bm25_transformer("bright/aops").transform(topics)
        dropped = drop_excluded_transformer("bright/aops").transform(results)
        made = list(candidates("bright/aops", results, depth=10))
    assert list(retrieved.columns) == ["qid", "query", "docno", "score", "rank"]
    assert len(retrieved) == 0 and len(dropped) == 0 and made == []
    assert list(dropped.columns) == ["qid", "docno", "score", "rank"]
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


@pytest.mark.slow  # PyTerrier's Experiment, with the docs' rerank transformer
def test_the_docs_rerank_recipe_logs_no_warning_in_an_experiment(bright, caplog):
    pytest.importorskip("Stemmer")
    from ir_bright import Official
    from ir_bright.pyterrier import bm25_transformer

    class Rerank(pt.Transformer):  # as docs/pipelines.md writes it
        def __init__(self, dataset, depth):
            self.dataset, self.depth = dataset, depth

        def transform(self, results):
            rows = [
                {"qid": c.query_id, "query": c.query, "docno": c.doc_id, "score": -c.rank}
                for c in candidates(self.dataset, results[["qid", "docno", "score"]], self.depth)
            ]
            frame = pd.DataFrame(rows, columns=["qid", "query", "docno", "score"])
            return pt.model.add_ranks(frame)

    dataset = pt.get_dataset("bright:aops")
    bm25 = bm25_transformer(dataset)
    with caplog.at_level(logging.INFO):
        result = pt.Experiment(
            [bm25 >> Rerank(dataset, 10)],
            dataset.get_topics(),
            dataset.get_qrels(),
            eval_metrics=[Official("nDCG@10")],
            names=["rerank"],
        )
    assert len(result) == 1
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert not [m for m in warned if "not in the run" in m], warned
