"""Each command downloads only the files its output reads (a mirror may lack the rest)."""

from __future__ import annotations

import pytest

from ir_bright.cli import main
from tests.fixtures import bright_hub

pytest.importorskip("Stemmer")  # the bm25 extra

REASON_CONFIGS = set(bright_hub.REASON_CONFIGS.values())


def pony():
    """A small pony domain: two queries over seven documents."""
    docs = {f"Pony/{i}_control-structures_{i}.txt": f"pony actor behaviour {i}" for i in range(5)}
    docs["Pony/builtin-String_0.txt"] = "a String in Pony holds bytes; concatenate with add"
    docs["Pony/collections-List_0.txt"] = "a List is a sequence; push appends an element"
    examples = [
        bright_hub.example("0", "concatenate two String values", ["Pony/builtin-String_0.txt"]),
        bright_hub.example("1", "append an element to a List", ["Pony/collections-List_0.txt"]),
    ]
    return {"documents": docs, "examples": examples}


@pytest.fixture
def mirror_without_reasoning(hub, hub_root, monkeypatch):
    """A mirror of pony and aops that has no ``*_reason`` files."""
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    bright_hub.write_bright(hub_root, {"pony": pony, "aops": bright_hub.aops})
    for config in REASON_CONFIGS:
        for path in (hub_root / bright_hub.REPO / config).glob("*.parquet"):
            path.unlink()
    return hub


def configs(hub) -> set[str]:
    return {path.split("/")[0] for path in hub.requests}


@pytest.mark.slow
@pytest.mark.parametrize("domain", ["pony", "aops"])
def test_bm25_then_evaluate_fetch_only_examples_and_documents(
    mirror_without_reasoning, tmp_path, capsys, domain
):
    run = tmp_path / "run.trec"
    assert main(["bm25", f"bright/{domain}", "-o", str(run)]) == 0
    assert configs(mirror_without_reasoning) == {"examples", "documents"}
    assert main(["evaluate", f"bright/{domain}", str(run), "--format", "json"]) == 0
    assert '"nDCG@10"' in capsys.readouterr().out
    assert configs(mirror_without_reasoning) == {"examples", "documents"}


def test_evaluate_alone_fetches_only_examples(mirror_without_reasoning, tmp_path, capsys):
    run = tmp_path / "run.trec"
    run.write_text("0 Q0 Pony/builtin-String_0.txt 1 2.0 t\n")
    assert main(["evaluate", "bright/pony", str(run)]) == 0
    assert configs(mirror_without_reasoning) == {"examples"}


def test_pyterrier_topics_of_a_base_id_fetch_only_examples(mirror_without_reasoning):
    pt = pytest.importorskip("pyterrier")
    topics = pt.get_dataset("bright:pony").get_topics()
    assert list(topics.columns) == ["qid", "query"]
    assert list(topics["query"]) == [e["query"] for e in pony()["examples"]]
    assert configs(mirror_without_reasoning) == {"examples"}
