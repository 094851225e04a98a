"""A run none of whose ranked documents is judged or excluded for its query is not scored:
exit 2, one line naming the dataset of the family it fits best (by documents, judgements,
id shapes, then query ids), whether the given dataset's corpus is cached or not; ``--force``
scores it. Query ids collide across BRIGHT's domains and R2MED's tasks ("0", "1", ...), so the
query ids alone cannot tell."""

from __future__ import annotations

import ir_datasets
import pytest

import ir_bright  # noqa: F401
from tests.fixtures import bright_hub as fixtures
from tests.helpers import json_scores, write_run


def pony():
    """A domain sharing biology's query ids 0 and 1, with documents of its own."""
    docs = {f"Pony/doc_{i}.txt": f"pony text {i}" for i in range(6)}
    examples = [
        fixtures.example("0", "pony?", ["Pony/doc_1.txt"]),
        fixtures.example("1", "pony again?", ["Pony/doc_2.txt"]),
    ]
    return {"documents": docs, "examples": examples}


def cache_as_bm25_does(dataset_id: str) -> None:
    """Fetch only what `ir-bright bm25` reads: the corpus, the queries and the qrels (not the
    other query sets' files)."""
    dataset = ir_datasets.load(dataset_id)
    kinds = ("docs", "queries", "qrels")
    for file in [f for kind in kinds for f in getattr(dataset, f"{kind}_hub_files")()]:
        file.fetch()


@pytest.fixture
def biology_and_pony(bright_hub):
    bright_hub({"biology": fixtures.biology, "pony": pony})


# ranks pony documents that pony does not judge for these queries (a weak run, as BM25's is)
WEAK_PONY_RUN = [
    ("0", "Pony/doc_4.txt", 2.0),
    ("0", "Pony/doc_5.txt", 1.0),
    ("1", "Pony/doc_3.txt", 1.0),
]


@pytest.mark.parametrize("biology_corpus_cached", [False, True])
@pytest.mark.parametrize("pony_cached", [False, True])
def test_a_weak_pony_run_against_biology_exits_2_naming_pony(
    biology_and_pony, cli, tmp_path, biology_corpus_cached, pony_cached
):
    """Named by pony's cached corpus, or by the id shape (``Pony/...``) when nothing of pony
    is cached."""
    if biology_corpus_cached:
        cache_as_bm25_does("bright/biology")
    if pony_cached:
        cache_as_bm25_does("bright/pony")
    run = write_run(tmp_path / "pony.run", WEAK_PONY_RUN)
    status, out, err = cli("evaluate", "bright/biology", run)
    assert status == 2 and out == "", err
    (line,) = err.splitlines()
    assert line.startswith("ir-bright evaluate: error: ")
    assert "so it is not scored" in line
    assert "the run seems to be for bright/pony (" in line
    if pony_cached:
        assert "of 3 sampled documents are in its corpus" in line
    else:
        assert "3 of 3 document ids have its shape" in line


def test_forced_the_run_scores_zero_with_a_warning(biology_and_pony, cli, tmp_path, caplog):
    run = write_run(tmp_path / "pony.run", WEAK_PONY_RUN)
    status, out, _ = cli("evaluate", "bright/biology", run, "--force", "--format", "json")
    assert status == 0
    assert json_scores(out)[str(run)]["nDCG@10"] == 0.0
    assert "scored all the same, as forced" in caplog.text
    assert "bright/pony" in caplog.text


def test_one_judged_document_is_enough_to_score_as_before(biology_and_pony, cli, tmp_path):
    """The gold document of biology's query 0 at rank 2: nDCG@10 = (1/log2(3)) / 1."""
    gold = fixtures.biology()["examples"][0]["gold_ids"][0]
    run = write_run(tmp_path / "mixed.run", [("0", "Pony/doc_4.txt", 2.0), ("0", gold, 1.0)])
    status, out, err = cli("evaluate", "bright/biology", run, "--format", "json", "-m", "R@10")
    assert status == 0, err
    assert json_scores(out)[str(run)]["R@10"] > 0


@pytest.mark.parametrize("clinical_cached", [False, True])
def test_a_pmc_treatment_run_against_pmc_clinical_exits_2_naming_pmc_treatment(
    r2med, cli, tmp_path, clinical_cached
):
    """R2MED's tasks number their queries 0, 1, ... each: the documents tell."""
    cache_as_bm25_does("r2med/pmc-treatment")
    if clinical_cached:
        cache_as_bm25_does("r2med/pmc-clinical")
    run = write_run(tmp_path / "treatment.run", [("0", "6142395-2", 1.0), ("1", "6142395-1", 1.0)])
    status, out, err = cli("evaluate", "r2med/pmc-clinical", run)
    assert status == 2 and out == "", err
    (line,) = err.splitlines()
    assert "the run seems to be for r2med/pmc-treatment (" in line
