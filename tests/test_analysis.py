"""Lucene's English analysis without Java: tokens, terms and stems equal Lucene's own output.

The expected values in ``tests/data/lucene/analysis.json`` were produced by Lucene itself
(Pyserini 1.6.0's default analyzer on a JDK); ``tests/data/lucene/README.md`` has the command.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("nltk")
pytest.importorskip("regex")

from ir_bright import analysis  # noqa: E402

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
