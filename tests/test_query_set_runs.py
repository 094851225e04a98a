"""Runs of a query set, named ``<namespace>__<domain>__<query set, / written __>.trec``
(``r2med__biology__hyde__gpt4.trec``, ``tempo__cardano__gpt4o-reason.trec``), are read by
``report`` and ``compare --benchmark`` in their domain's column, scored on the query set's own
dataset, and checked against the published row made with that query set; a name for a query
set nobody declares is refused. Expectations: tests/protocol.py on the fixture rows."""

from __future__ import annotations

import json

import pytest

from ir_bright.families import family
from ir_bright.results import benchmarks, scores, systems
from tests import protocol
from tests.fixtures import r2med_hub, tempo_hub
from tests.helpers import write_run

HYDE_ROW = "paper-hyde-gpt4-bm25"


def r2med_qrels(rows: dict, task: str) -> list[tuple[str, str, int]]:
    return [(r["q_id"], r["p_id"], int(r["score"])) for r in rows[task]["qrels"]]


def r2med_run(rows: dict, task: str) -> list[tuple[str, str, float]]:
    """Per query: a judged document, then unjudged ones, then the rest of its judged ones, so
    nDCG@10 is neither 0 nor 1."""
    corpus = list(dict.fromkeys(r["id"] for r in rows[task]["corpus"]))
    run = []
    for number, query in enumerate(dict.fromkeys(q for q, _, _ in r2med_qrels(rows, task))):
        judged = [d for q, d, _ in r2med_qrels(rows, task) if q == query]
        others = [d for d in corpus if d not in judged][: 3 + number % 4]
        ranked = [*judged[-1:], *others, *judged[:-1]]
        run += [(query, doc, float(100 - rank)) for rank, doc in enumerate(ranked)]
    return run


def write_hyde_runs(rows: dict, folder) -> dict[str, float]:
    """A HyDE (GPT-4) run per task in ``folder``; the nDCG@10 each must score, by column id."""
    r2med = family("r2med")
    expected = {}
    for task in r2med_hub.TASKS:
        column = f"r2med/{r2med.domain_id(task)}"
        run = r2med_run(rows, task)
        write_run(folder / f"r2med__{r2med.domain_id(task)}__hyde__gpt4.trec", run)
        expected[column] = protocol.mean("nDCG@10", r2med_qrels(rows, task), run)
    return expected


def test_r2med_hyde_runs_are_reported_and_checked_against_the_hyde_row(r2med, cli, tmp_path):
    expected = write_hyde_runs(r2med, tmp_path / "hyde")
    argv = ["report", tmp_path / "hyde", "--check", HYDE_ROW, "--format", "json"]
    status, out, err = cli(*argv)
    assert status in (0, 1), err  # 1: the fixture's scores are not the paper's
    table = json.loads(out)
    assert table["benchmark"] == "r2med"  # read from the runs' names
    (ours,) = table["rows"]
    assert ours["values"] == pytest.approx(expected)
    published = json.loads(cli("references", "-b", "r2med", "--format", "json").out)
    (hyde,) = [row for row in published if row["name"] == HYDE_ROW]
    checked = ours["check"]
    assert set(checked) >= set(expected)
    for task, value in hyde["values"].items():
        column = f"r2med/{family('r2med').domain_id(task)}"
        assert checked[column]["published"] == pytest.approx(value)
        assert checked[column]["value"] == pytest.approx(expected[column] * 100)


def tempo_case(rows: dict, config: str) -> tuple[list, list]:
    """cardano's qrels in ``config`` (gold 1, negatives -100 but "N/A") and a run that ranks
    the document GPT-4o's set adds as gold for query 0 first."""
    written = rows["cardano"][config]
    qrels = [(r["id"], g, 1) for r in written for g in r["gold_ids"]]
    qrels += [(r["id"], n, -100) for r in written for n in r["negative_ids"] if n != "N/A"]
    first = written[0]["id"]
    added = tempo_hub.doc_id("cardano", 1, 0)
    original = rows["cardano"]["examples"][0]["gold_ids"]
    run = [(first, added, 3.0)]
    run += [(first, doc, 2.0 - i / 10) for i, doc in enumerate(original)]
    return qrels, run


@pytest.mark.parametrize("named", [(), ("-b", "tempo-gpt4o-reason")])
def test_a_tempo_reasoning_run_name_is_read_into_its_benchmark(tempo, cli, tmp_path, named):
    qrels, run = tempo_case(tempo, "gpt4o_reason")
    write_run(tmp_path / "gpt4o" / "tempo__cardano__gpt4o-reason.trec", run)
    status, out, err = cli("report", tmp_path / "gpt4o", *named, "--format", "json")
    assert status == 0, err
    (ours,) = json.loads(out)["rows"]
    assert ours["values"]["tempo/cardano/gpt4o-reason"] == pytest.approx(
        protocol.mean("nDCG@10", qrels, run)
    )
    # the set has a benchmark of its own: the original queries' table does not take it
    loose = tmp_path / "gpt4o" / "tempo__cardano__gpt4o-reason.trec"
    status, out, err = cli("report", loose, "-b", "tempo")
    assert status == 2 and "--benchmark tempo-gpt4o-reason" in err


def test_a_column_run_of_a_query_set_is_scored_on_that_sets_own_qrels(tempo, tmp_path):
    qrels, run = tempo_case(tempo, "gpt4o_reason")
    original, _ = tempo_case(tempo, "examples")
    path = write_run(tmp_path / "run.trec", run)
    system = systems.System("gpt4o", {"tempo/cardano": path})
    system.datasets["tempo/cardano"] = "tempo/cardano/gpt4o-reason"
    bench = benchmarks.benchmark("tempo")
    (row,) = scores.score([system], bench, progress=False).rows
    assert row.values["tempo/cardano"] == pytest.approx(protocol.mean("nDCG@10", qrels, run))
    assert row.values["tempo/cardano"] != pytest.approx(protocol.mean("nDCG@10", original, run))


@pytest.mark.parametrize("loose", [False, True])
def test_a_run_named_for_an_undeclared_query_set_is_refused_naming_the_convention(
    cli, tmp_path, loose
):
    path = write_run(tmp_path / "mine" / "r2med__biology__hyde__gpt5.trec", [("1", "d", 1.0)])
    status, out, err = cli("report", path if loose else path.parent, "-b", "r2med")
    assert status == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert "'hyde/gpt5'" in line and "<namespace>__<domain>__<query set" in line
    assert "hyde/gpt4" in line  # the declared ones are named


def test_compare_takes_query_set_runs_by_the_same_names(r2med, cli, tmp_path):
    expected = write_hyde_runs(r2med, tmp_path / "base")
    write_hyde_runs(r2med, tmp_path / "mine")
    argv = ["compare", tmp_path / "base", tmp_path / "mine", "-b", "r2med", "--format", "json"]
    status, out, err = cli(*argv, "--samples", "200")
    assert status == 0, err
    records = {r["dataset"]: r for r in json.loads(out)}
    for column, value in expected.items():
        assert records[column]["baseline_mean"] == pytest.approx(value)
        assert records[column]["delta"] == pytest.approx(0.0)


def test_compare_refuses_pairing_runs_of_two_query_sets(r2med, cli, tmp_path):
    write_hyde_runs(r2med, tmp_path / "hyde")
    for task in r2med_hub.TASKS:
        domain = family("r2med").domain_id(task)
        write_run(tmp_path / "original" / f"r2med__{domain}.trec", r2med_run(r2med, task))
    argv = ["compare", tmp_path / "original", tmp_path / "hyde", "-b", "r2med"]
    status, out, err = cli(*argv)
    assert status == 2 and out == ""
    assert "same query set" in err.strip().splitlines()[-1]
