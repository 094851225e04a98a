"""Lucene's ``PorterStemmer``: Martin Porter's algorithm as his own C implementation runs it.

Written here from the algorithm (M. F. Porter, "An algorithm for suffix stripping", Program
14(3), 1980) with the two departures of Porter's C code that Lucene keeps (step 2 rewrites
``bli`` to ``ble`` where the paper rewrites ``abli`` to ``able``, and adds ``logi`` -> ``log``),
and Lucene's guards: words of one or two characters are left alone, and step 1b undoubles every
double consonant but l, s and z left by ``-ed`` or ``-ing``. Tested against Lucene's own stems
(``tests/data/lucene``). Pure Python, about 20 µs a word: :func:`ir_bright.bm25.analysis.stem`
sends it only the words where Snowball's C ``porter`` would stem otherwise.
"""

from __future__ import annotations

_VOWELS = frozenset("aeiou")

# step 2 and step 3: (the letter before the last, or the last) -> (suffix, replacement), tried
# in order; the first suffix that ends the word is replaced when the measure allows it
_STEP2 = {
    "a": (("ational", "ate"), ("tional", "tion")),
    "c": (("enci", "ence"), ("anci", "ance")),
    "e": (("izer", "ize"),),
    "l": (("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous")),
    "o": (("ization", "ize"), ("ation", "ate"), ("ator", "ate")),
    "s": (("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous")),
    "t": (("aliti", "al"), ("iviti", "ive"), ("biliti", "ble")),
    "g": (("logi", "log"),),
}
_STEP3 = {
    "e": (("icate", "ic"), ("ative", ""), ("alize", "al")),
    "i": (("iciti", "ic"),),
    "l": (("ical", "ic"), ("ful", "")),
    "s": (("ness", ""),),
}
_STEP4 = {
    "a": ("al",),
    "c": ("ance", "ence"),
    "e": ("er",),
    "i": ("ic",),
    "l": ("able", "ible"),
    "n": ("ant", "ement", "ment", "ent"),
    "o": ("ion", "ou"),
    "s": ("ism",),
    "t": ("ate", "iti"),
    "u": ("ous",),
    "v": ("ive",),
    "z": ("ize",),
}


def _consonant(word: str, i: int) -> bool:
    if word[i] in _VOWELS:
        return False
    if word[i] == "y":
        return i == 0 or not _consonant(word, i - 1)
    return True


def _measure(stem: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in ``stem``."""
    kinds = [_consonant(stem, i) for i in range(len(stem))]
    return sum(1 for i in range(1, len(kinds)) if kinds[i] and not kinds[i - 1])


def _has_vowel(stem: str) -> bool:
    return any(not _consonant(stem, i) for i in range(len(stem)))


def _double(word: str) -> bool:
    return len(word) >= 2 and word[-1] == word[-2] and _consonant(word, len(word) - 1)


def _cvc(word: str) -> bool:
    """Consonant-vowel-consonant at the end, the last not w, x or y."""
    i = len(word) - 1
    if i < 2 or not _consonant(word, i) or _consonant(word, i - 1) or not _consonant(word, i - 2):
        return False
    return word[i] not in "wxy"


def _step1(word: str) -> str:
    """Plurals, then -eed, -ed and -ing."""
    if word.endswith("s"):
        if word.endswith("sses"):
            word = word[:-2]
        elif word.endswith("ies"):
            word = word[:-3] + "i"
        elif word[-2] != "s":
            word = word[:-1]
    if word.endswith("eed"):
        return word[:-1] if _measure(word[:-3]) > 0 else word
    for suffix in ("ed", "ing"):
        if word.endswith(suffix) and _has_vowel(word[: -len(suffix)]):
            break
    else:
        return word
    word = word[: -len(suffix)]
    for ending, replacement in (("at", "ate"), ("bl", "ble"), ("iz", "ize")):
        if word.endswith(ending):
            return word[: -len(ending)] + replacement
    if _double(word):
        return word if word[-1] in "lsz" else word[:-1]
    return word + "e" if _measure(word) == 1 and _cvc(word) else word


def _replace(word: str, rules: tuple[tuple[str, str], ...]) -> str:
    for suffix, replacement in rules:
        if word.endswith(suffix) and len(suffix) <= len(word):
            stem = word[: len(word) - len(suffix)]
            return stem + replacement if _measure(stem) > 0 else word
    return word


def _step4(word: str) -> str:
    """Drop a suffix where the measure of what is left is above 1."""
    if len(word) < 2:
        return word
    for suffix in _STEP4.get(word[-2], ()):
        if not word.endswith(suffix):
            continue
        stem = word[: len(word) - len(suffix)]
        if suffix == "ion" and not (stem and stem[-1] in "st"):
            continue
        return stem if _measure(stem) > 1 else word
    return word


def _step5(word: str) -> str:
    """A final -e, then a final double l."""
    measure = _measure(word)  # of the word as it enters the step, as Porter's C code
    if word.endswith("e") and (measure > 1 or (measure == 1 and not _cvc(word[:-1]))):
        word = word[:-1]
    if word.endswith("l") and _double(word) and measure > 1:
        word = word[:-1]
    return word


def stem(word: str) -> str:
    """Lucene's Porter stem of a lower-case word (UTF-16 code units, as Java sees them)."""
    if len(word) <= 2:
        return word
    word = _step1(word)
    if word.endswith("y") and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    if len(word) > 1:
        word = _replace(word, _STEP2.get(word[-2], ()))
    word = _replace(word, _STEP3.get(word[-1], ()))
    return _step5(_step4(word))
