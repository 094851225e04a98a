"""Lucene's English analysis without Java: tokens, terms and stems equal Lucene's own output.

The expected values in ``tests/data/lucene/analysis.json`` were produced by Lucene itself
(Pyserini 1.6.0's default analyzer on a JDK); ``tests/data/lucene/README.md`` has the command.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("Stemmer")  # the bm25 extra
pytest.importorskip("regex")

from ir_bright.bm25 import analysis  # noqa: E402

DATA = Path(__file__).parent / "data" / "lucene"
LUCENE = json.loads((DATA / "analysis.json").read_text("utf-8"))
CASES = LUCENE["texts"]


@pytest.mark.parametrize("case", CASES, ids=[f"text{i}" for i in range(len(CASES))])
def test_tokens_and_terms_equal_lucene_s_on_texts_covering_every_rule(case):
    assert analysis.tokens(case["text"]) == case["tokens"]
    assert analysis.analyze(case["text"]) == case["terms"]


def test_stems_equal_lucene_s_porter_stemmer_on_thousands_of_words():
    wrong = {w: (analysis.stem(w), s) for w, s in LUCENE["stems"].items() if analysis.stem(w) != s}
    assert not wrong
    assert len(LUCENE["stems"]) > 10_000


STEMS = [line.split("\t") for line in (DATA / "porter_stems.tsv").read_text("utf-8").splitlines()]


def test_stems_equal_lucene_s_on_words_of_both_stemming_paths():
    wrong = {
        word: (got, lucene)
        for word, lucene in STEMS
        if (got := [analysis.stem(t) for t in analysis.tokens(word)]) != [lucene]
    }
    assert not wrong
    snowball = [w for w, _ in STEMS if len(w) > 2 and analysis._SNOWBALL_DEPARTS.search(w) is None]
    assert len(snowball) > 10_000 and len(STEMS) - len(snowball) > 5_000  # both paths tested
    doubled = {m[1] for w in snowball for m in re.finditer(r"([a-z])\1(?:ed|ing)", w)}
    assert set("bdfglmnprstz") <= doubled  # those that Snowball undoubles (or keeps) as Lucene


@pytest.mark.parametrize(
    ("word", "lucene"),
    [
        ("technology", "technolog"),  # LOGI -> LOG (Porter's C code; not in the 1980 paper)
        ("psychology", "psycholog"),
        ("possibly", "possibl"),  # BLI -> BLE, then -IBLE dropped
        ("incredibly", "incred"),
        ("responsibly", "respons"),
        ("assembly", "assembl"),
        ("grokked", "grok"),  # any double consonant but l, s, z is undoubled
        ("revving", "rev"),  # (Snowball's porter: only bb dd ff gg mm nn pp rr tt)
        ("yakking", "yak"),
        ("as", "as"),  # one or two characters: left alone
    ],
)
def test_lucene_porter_departures_from_the_published_algorithm(word, lucene):
    assert analysis.stem(word) == lucene
    assert LUCENE["stems"].get(word, lucene) == lucene


def test_lone_underscores_are_no_tokens_but_underscores_inside_words_stay():
    assert analysis.tokens("_et al._ __init__ _ __ a_b") == ["_et", "al", "__init__", "a_b"]


def test_superscripts_are_dropped_and_symbols_are_tokens():
    assert analysis.tokens("m³ x₂ ® © ™ ♂ ♀") == ["m", "x", "®", "©", "™", "♂", "♀"]


def test_soft_hyphen_bom_and_middle_dots_stay_inside_a_word():
    text = "soft\u00adhyphen a\ufeffb it\u2018s a\u00b7b"
    assert analysis.tokens(text) == ["soft\u00adhyphen", "a\ufeffb", "it\u2018s", "a\u00b7b"]


def test_tokens_longer_than_255_are_cut_into_pieces_all_kept():
    assert analysis.tokens("x" * 600) == ["x" * 255, "x" * 255, "x" * 90]


def test_lower_case_is_java_s_per_character_mapping():
    assert analysis.tokens("İstanbul ΣΟΦΟΣ") == ["istanbul", "σοφοσ"]


def test_possessives_and_the_33_stop_words_are_dropped():
    assert analysis.analyze("The dog's bone and John’s JAMES'S cat＇s it's") == [
        "dog",
        "bone",
        "john",
        "jame",
        "cat",
    ]
    assert len(analysis.STOP_WORDS) == 33


# -- BM25 on real text against Pyserini and the paper's gensim code ----------------------------


def _lee_index(lucene_norms: bool):
    import pyarrow as pa

    from ir_bright import bm25

    docs = [json.loads(line) for line in (DATA / "corpus.jsonl").read_text("utf-8").splitlines()]
    batch = pa.record_batch(
        [pa.array([d["id"] for d in docs]), pa.array([d["contents"] for d in docs])],
        names=["doc_id", "text"],
    )
    return bm25.BM25Index.build([batch], bm25.BM25Params(lucene_norms=lucene_norms), progress=False)


QUERIES = [json.loads(line) for line in (DATA / "queries.jsonl").read_text("utf-8").splitlines()]
EXPECTED = json.loads((DATA / "scores.json").read_text("utf-8"))


def test_lucene_norms_give_pyserini_s_rankings_and_scores_on_real_text():
    pytest.importorskip("Stemmer")  # the bm25 extra
    index = _lee_index(lucene_norms=True)
    for query in QUERIES:
        want = EXPECTED["pyserini"][query["id"]]
        got = index.search(query["text"], 100)
        assert [doc for doc, _ in got] == [doc for doc, _ in want], query["id"]
        # Pyserini prints scores rounded to 1e-4, less 1e-6 per tie above
        assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1.1e-4)


def test_query_side_gives_the_paper_s_gensim_rankings_and_scores_on_real_text():
    pytest.importorskip("Stemmer")  # the bm25 extra
    index = _lee_index(lucene_norms=False)
    for query in QUERIES:
        want = EXPECTED["gensim"][query["id"]]
        got = index.search(query["text"], 100, query_side=True)
        assert [doc for doc, _ in got] == [doc for doc, _ in want], query["id"]
        assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-5, abs=1e-6)


def test_lucene_norm_bytes_are_smallfloat_int_to_byte4():
    import numpy as np

    from ir_bright.bm25.lucene import lucene_norm_bytes, lucene_norm_lengths

    lengths = np.array([0, 1, 23, 24, 25, 40, 716, 1000, 2**31 - 1])
    decoded = lucene_norm_lengths()[lucene_norm_bytes(lengths)]
    assert decoded.tolist() == [0, 1, 23, 24, 25, 40, 664, 984, 2013265944]


def test_letters_of_a_newer_unicode_than_lucene_s_separate_words_as_in_lucene():
    # Lucene's tokens (Pyserini 1.6.0) for both texts; in the first the cedilla ends the word
    assert analysis.tokens("Arnawutluá¸³ - Brill") == ["arnawutluá", "brill"]
    assert analysis.tokens("it’s “quoted” café–bar ½ x²") == ["it", "quoted", "café", "bar", "x"]
