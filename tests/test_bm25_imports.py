"""What the BM25 baseline imports: no BM25 package, and nothing heavy it does not use."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("Stemmer")  # the bm25 extra


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300
    )


def test_an_index_is_built_saved_loaded_and_searched_without_bm25s(tmp_path):
    proc = run_python(
        f"""
        import sys
        sys.modules["bm25s"] = None  # any import of it fails
        import pyarrow as pa
        from pathlib import Path
        from ir_bright import bm25

        texts = ["moths fly to the light", "birds sing at dawn", "light and moths"]
        batch = pa.record_batch([pa.array(["a", "b", "c"]), pa.array(texts)], ["doc_id", "text"])
        index = bm25.BM25Index.build([batch], progress=False)
        index.save(Path({str(tmp_path / "ix")!r}))
        loaded = bm25.BM25Index.load(Path({str(tmp_path / "ix")!r}))
        print([doc for doc, _ in loaded.search("moths light", 3)])
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "['c', 'a', 'b']"  # c: both terms in fewer words


@pytest.fixture
def bright(hub, hub_root, monkeypatch):
    from tests.fixtures import bright_hub

    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    hub.rows = bright_hub.write_bright(hub_root)
    return hub


def run_bm25(output):
    """``ir-bright bm25 bright/biology -o output`` in a fresh process; print its status and
    which of the heavy modules it imported."""
    return run_python(
        f"""
        import sys
        from ir_bright.cli import main

        status = main(["-q", "bm25", "bright/biology", "-o", {str(output)!r}])
        print(status, sorted(m for m in ("nltk", "scipy", "bm25s") if m in sys.modules))
        """
    )


def test_a_run_with_the_index_cached_imports_no_nltk_scipy_or_bm25s(bright, tmp_path, monkeypatch):
    cold = run_bm25(tmp_path / "cold.trec")
    assert cold.returncode == 0, cold.stderr
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # everything it needs is cached
    proc = run_bm25(tmp_path / "warm.trec")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0 []"
    assert (tmp_path / "warm.trec").read_text() == (tmp_path / "cold.trec").read_text()
