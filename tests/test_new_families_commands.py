"""Every command of the command line works on the R2MED and TEMPO ids as on BRIGHT's: list,
info, download, export, bm25, evaluate, candidates, fuse, compare and report, each a thin layer
over the library; the expectations are the fixture rows (tests/fixtures/r2med_hub.py,
tests/fixtures/tempo_hub.py)."""

from __future__ import annotations

import json

import pytest

CASES = [  # id, then where its judgements are in the fixture rows
    ("r2med/medqa-diag", ("r2med", "MedQA-Diag", "qrels")),
    ("r2med/biology/hyde/gpt4", ("r2med", "Biology", "qrels")),
    ("tempo/economics", ("tempo", "economics", "examples")),
    ("tempo/cardano/gpt4o-reason", ("tempo", "cardano", "gpt4o_reason")),
]


@pytest.fixture
def both(r2med, tempo):
    return {"r2med": r2med, "tempo": tempo}


@pytest.mark.slow
@pytest.mark.parametrize("dataset_id, rows", CASES, ids=[c[0] for c in CASES])
def test_every_command_works_on_the_new_families(both, cli, tmp_path, dataset_id, rows):
    status, out, _ = cli("list", dataset_id, "--format", "json")
    assert status == 0 and dataset_id in [row["id"] for row in json.loads(out)]
    status, out, _ = cli("download", dataset_id)
    assert status == 0
    status, out, _ = cli("info", dataset_id, "--format", "json")
    info = json.loads(out)
    assert all(f["cached"] for f in info["files"]) and info["protocol"]["measure"] == "nDCG@10"
    status, out, _ = cli("export", dataset_id, "qrels")
    judged = {tuple(line.split()[::2]) for line in out.splitlines()}
    family, domain, config = rows
    written = both[family][domain][config]
    if family == "r2med":
        assert judged == {(r["q_id"], r["p_id"]) for r in written}
    else:  # gold ids 1 and negative ids -100, each from the set's own rows
        negatives = {(r["id"], n) for r in written for n in r["negative_ids"] if n != "N/A"}
        assert judged == {(r["id"], g) for r in written for g in r["gold_ids"]} | negatives
    first = tmp_path / "first.trec"
    second = tmp_path / "second.trec"
    assert cli("bm25", dataset_id, "-o", str(first))[0] == 0
    assert cli("bm25", dataset_id, "--no-query-side", "-o", str(second))[0] == 0
    status, out, err = cli("evaluate", dataset_id, str(first), "--format", "json")
    assert status == 0, err
    status, out, err = cli("candidates", dataset_id, str(first), "--depth", "3")
    assert status == 0, err
    candidates = [json.loads(line) for line in out.splitlines()]
    assert candidates and all(1 <= c["rank"] <= 3 and c["text"] for c in candidates)
    fused = tmp_path / "fused.trec"
    status, _, err = cli("fuse", dataset_id, str(first), str(second), "-o", str(fused))
    assert status == 0, err
    status, out, err = cli("compare", dataset_id, str(first), str(fused))
    assert status == 0, err
