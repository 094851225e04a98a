"""Lucene's Porter stemmer, written here, on every word of both stemming paths: Lucene's stems.

The expected stems were produced by Lucene itself (``tests/data/lucene/README.md``); here every
word goes through :func:`ir_bright.bm25.porter.stem`, also those the analysis sends to
Snowball's C stemmer, so the whole algorithm is checked, not only its departures.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ir_bright.bm25 import porter

DATA = Path(__file__).parent / "data" / "lucene"


def lucene_stems() -> dict[str, str]:
    stems = json.loads((DATA / "analysis.json").read_text("utf-8"))["stems"]
    for line in (DATA / "porter_stems.tsv").read_text("utf-8").splitlines():
        word, stem = line.split("\t")
        stems[word] = stem
    return stems


def test_stems_equal_lucene_s_on_every_test_word():
    # words the tokenizer would change (a trailing ' or 's) were not given to Lucene's stemmer
    # as they are written; a plain lower-case word of the BMP was
    stems = {w: s for w, s in lucene_stems().items() if w.isalpha() and w == w.lower()}
    assert len(stems) > 25_000
    wrong = {
        word: (porter.stem(word), stem) for word, stem in stems.items() if porter.stem(word) != stem
    }
    assert not wrong


@pytest.mark.parametrize(
    ("word", "lucene"),
    [
        ("hopping", "hop"),  # step 1b: a double consonant left by -ing is undoubled ...
        ("falling", "fall"),  # ... but l, s and z
        ("hissing", "hiss"),
        ("fizzed", "fizz"),
        ("agreed", "agre"),  # -eed only where the measure is above 0, then a final e dropped
        ("feed", "feed"),
        ("happy", "happi"),  # step 1c
        ("sky", "sky"),
        ("ox", "ox"),  # two characters: left alone
        ("generalization", "gener"),  # steps 2 to 4 in turn
        ("controlling", "control"),  # step 5: a final double l
    ],
)
def test_the_rules_of_each_step(word, lucene):
    assert porter.stem(word) == lucene
