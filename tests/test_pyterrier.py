"""PyTerrier: the bright: dataset provider, irds: ids, and the BM25 baseline in pt.Experiment."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys

import pytest

from tests.fixtures import bright_hub

pytestmark = pytest.mark.pyterrier
pt = pytest.importorskip("pyterrier")
pytest.importorskip("Stemmer")  # the bm25 extra


def test_bright_provider_topics_default_to_the_query_text(bright):
    dataset = pt.get_dataset("bright:biology")
    topics = dataset.get_topics()
    rows = bright.rows["biology"]["examples"]
    assert list(topics.columns) == ["qid", "query"]
    assert dict(zip(topics.qid, topics["query"])) == {r["id"]: r["query"] for r in rows}


def test_bright_provider_reasoning_variant_topics_are_the_llm_text(bright):
    topics = pt.get_dataset("bright:biology/gpt4-reason").get_topics()
    assert list(topics["query"]) == [bright_hub.llm_text("gpt4", q) for q in ("0", "1")]


def test_bright_provider_qrels_have_labels_with_excluded_at_minus_100(bright):
    qrels = pt.get_dataset("bright:aops").get_qrels()
    assert {"qid", "docno", "label"} <= set(qrels.columns)
    assert -100 in set(qrels.label)


def test_bright_provider_unknown_name_is_a_key_error():
    with pytest.raises(KeyError, match="not found"):
        pt.get_dataset("bright:biolgy")


def test_a_provider_dataset_pickles_copies_and_deep_copies(bright):
    dataset = pt.get_dataset("bright:biology")
    for copied in (pickle.loads(pickle.dumps(dataset)), copy.copy(dataset), copy.deepcopy(dataset)):
        assert type(copied) is type(dataset) and copied is not dataset
        assert repr(copied) == "BrightDataset('bright/biology')"
        assert copied.get_topics().equals(dataset.get_topics())
        assert copied.get_qrels().equals(dataset.get_qrels())


def test_irds_ids_resolve_to_ir_bright_datasets(bright):
    import ir_datasets

    import ir_bright

    dataset = pt.get_dataset("irds:bright/biology")
    assert ir_bright.registry.is_ours("bright/biology")
    assert dataset.irds_ref() is ir_datasets.registry._registered["bright/biology"]
    assert list(dataset.get_topics("text")["query"])[0] == "Why are insects attracted to light?"


@pytest.mark.slow
def test_entry_point_provider_works_without_importing_ir_bright(bright):
    code = (
        "import sys, pyterrier as pt\n"
        "assert 'ir_bright' not in sys.modules\n"
        "print(len(pt.get_dataset('bright:biology').get_topics()))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    if "not found due to missing provider" in proc.stderr:
        pytest.skip("ir_bright is not installed (pip install -e .): no entry points")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "2"


@pytest.mark.slow
def test_experiment_with_official_measure_and_the_bm25_transformer(bright):
    from ir_bright import bm25, evaluate
    from ir_bright.measures import Official
    from ir_bright.pyterrier import bm25_transformer

    dataset = pt.get_dataset("bright:aops")
    retriever = bm25_transformer("bright/aops")
    result = pt.Experiment(
        [retriever, bm25_transformer("bright/aops", query_side=False)],
        dataset.get_topics(),
        dataset.get_qrels(),
        eval_metrics=[Official("nDCG@10")],
        names=["bm25", "bm25-bow"],
    )
    run = retriever.transform(dataset.get_topics())
    assert set(run.qid) == {r["id"] for r in bright.rows["aops"]["examples"]}
    expected = evaluate(run, "bright/aops")["nDCG@10"]
    column = [c for c in result.columns if c != "name"][0]
    assert result[column].iloc[0] == pytest.approx(expected, abs=1e-12)
    # the same numbers as the command-line baseline's run
    cli_run = list(bm25.retrieve("bright/aops", progress=False))
    assert evaluate(cli_run, "bright/aops")["nDCG@10"] == pytest.approx(expected, abs=1e-12)


@pytest.mark.slow
def test_the_bm25_transformer_by_default_is_the_papers_query_side_bm25(bright):
    from ir_bright.pyterrier import bm25_transformer

    topics = pt.get_dataset("bright:aops").get_topics()
    default = bm25_transformer("bright/aops").transform(topics)
    paper = bm25_transformer("bright/aops", query_side=True, depth=1000).transform(topics)
    bag_of_words = bm25_transformer("bright/aops", query_side=False).transform(topics)
    assert default.equals(paper)
    assert not default["score"].equals(bag_of_words["score"])
