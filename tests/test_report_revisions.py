"""``report --check`` knows revisions: a published row made at another revision of the hub data
than the user's runs gets a warning saying by how much the diff of the two revisions moves the
user's score (tests/fixtures/revisions_hub.py serves BRIGHT at the two commits)."""

from __future__ import annotations

import logging
import re

from tests import protocol
from tests.fixtures.revisions_hub import NEW, OLD
from tests.helpers import write_run

RUNS = {
    "biology": {
        "0": ["insects_light/Phototaxis_3.txt", "insects_light/Phototaxis_4.txt"],
        "1": ["bird_song/Birdsong_2.txt"],
        "2": ["insects_light/Phototaxis_6.txt"],
        "3": ["bird_song/Birdsong_3.txt"],
    },
    "aops": {
        "aops_2019_AMC_12A_Problems/Problem_1": ["camel_1"],
        "aops_2019_AMC_12A_Problems/Problem_2": ["camel_6", "camel_3"],
    },
}


def _runs(folder):
    for split, ranking in RUNS.items():
        write_run(folder / f"bright__{split}.trec", ranking)
    return folder


def _points(rows_by_commit, split):
    """(new - old) x100 of the run's nDCG@10, each from the reference on that commit's rows."""
    run = [
        (q, d, float(len(docs) - i)) for q, docs in RUNS[split].items() for i, d in enumerate(docs)
    ]
    means = []
    for commit in (OLD, NEW):
        qrels = []
        for row in rows_by_commit[commit][split]["examples"]:
            qrels += [(row["id"], d, 1) for d in row["gold_ids"] if d != "N/A"]
            qrels += [(row["id"], d, -100) for d in row["excluded_ids"] if d != "N/A"]
        means.append(protocol.mean("nDCG@10", qrels, run))
    return (means[1] - means[0]) * 100


def test_check_warns_when_the_row_was_made_at_another_revision(
    bright_revisions, cli, caplog, tmp_path
):
    runs = _runs(tmp_path / "mine")
    with caplog.at_level(logging.WARNING, logger="ir_bright"):
        status, out, err = cli("report", runs, "-b", "bright", "--check", "paper-bm25")
    assert status == 1  # 10 domains have no run: the check fails, as any check would
    warning = next(r.getMessage() for r in caplog.records if "was made at" in r.getMessage())
    assert warning.startswith(
        "paper-bm25 was made at a75a0eb (mteb-v1: MTEB BRIGHT (first task)); mine's runs were "
        "scored at 3066d29 (mteb-v1.1: MTEB BRIGHT(v1.1))"
    )
    moves = {name: value for value, name in re.findall(r"([+-]\d+\.\d\d) on (bright/\w+)", warning)}
    assert float(moves["bright/biology"]) == round(_points(bright_revisions, "biology"), 2)
    assert float(moves["bright/aops"]) == round(_points(bright_revisions, "aops"), 2)
    assert round(_points(bright_revisions, "aops"), 2) != 0  # the planted exclusion moved it
    assert "on bright/biology (3 queries judged differently)" in warning  # 0; 2 added; 3 removed
    assert "on bright/aops (1 query judged differently)" in warning
    assert warning in out  # also under the table


def test_no_warning_when_the_runs_were_scored_at_the_rows_revision(
    bright_revisions, cli, caplog, tmp_path, monkeypatch
):
    monkeypatch.setenv("IR_BRIGHT_REVISION", OLD)
    runs = _runs(tmp_path / "mine")
    with caplog.at_level(logging.WARNING, logger="ir_bright"):
        status, out, err = cli("report", runs, "-b", "bright", "--check", "paper-bm25")
    assert status == 1
    assert "was made at" not in caplog.text and "was made at" not in out


def test_rows_without_a_stated_revision_get_no_warning(bright_revisions, cli, caplog, tmp_path):
    runs = _runs(tmp_path / "mine")
    with caplog.at_level(logging.WARNING, logger="ir_bright"):
        cli("report", runs, "-b", "bright", "--check", "pyserini-bm25-query-side")
    assert "was made at" not in caplog.text


def test_the_listing_names_each_paper_rows_revision(cli):
    status, out, err = cli("references", "-b", "bright", "--format", "json")
    assert status == 0, err
    import json

    rows = {r["name"]: r for r in json.loads(out)}
    assert rows["paper-bm25"]["revision"] == OLD
    assert "release" in rows["paper-bm25"]["revision_source"]
    assert "revision" not in rows["pyserini-bm25-query-side"]


def test_a_row_revision_the_hub_lacks_is_said_not_measured(
    bright_revisions, cli, caplog, tmp_path, hub
):
    hub.revisions = {"main": NEW, NEW: NEW}  # the hub no longer serves the paper's commit
    runs = _runs(tmp_path / "mine")
    with caplog.at_level(logging.WARNING, logger="ir_bright"):
        status, out, err = cli("report", runs, "-b", "bright", "--check", "paper-bm25")
    assert status == 1
    warning = next(r.getMessage() for r in caplog.records if "was made at" in r.getMessage())
    assert "not measured: bright/biology (" in warning and "bright/aops (" in warning
    assert " on bright/" not in warning  # no move claimed
