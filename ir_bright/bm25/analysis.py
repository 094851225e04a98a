"""Lucene's English analysis, exactly as Pyserini's default analyzer produces it, without Java.

Pyserini (Anserini's ``DefaultEnglishAnalyzer``, the BRIGHT paper's analyzer) runs Lucene's
``StandardTokenizer`` -> ``EnglishPossessiveFilter`` -> ``LowerCaseFilter`` -> ``StopFilter``
(33 English stop words) -> ``PorterStemFilter``. Each step here reproduces one of them:

- :func:`tokens` follows the JFlex grammar of ``StandardTokenizerImpl`` (UAX #29 word breaks
  at Unicode properties, read through the ``regex`` module): runs of letters and digits,
  joined by ``_``; ``.``, ``'``, ``‘``, ``’``, ``:`` and ``·`` join letter to letter; ``.``,
  ``,``, ``;`` and the quotes join digit to digit; format and combining characters (soft
  hyphen, U+FEFF) stay inside a word; emoji and the symbols © ® ™ ♂ ♀ are tokens of their
  own; each Han or Hiragana character is a token; Thai/Lao/Khmer/Myanmar runs are one token;
  everything else (punctuation, lone ``_``, superscript and subscript digits) separates
  tokens. A token longer than 255 UTF-16 units is cut into pieces of at most 255, all kept.
- Lower case is Java's per-character ``Character.toLowerCase`` (``İ`` -> ``i``, ``Σ`` -> ``σ``
  even at the end of a word), and a trailing ``'s``/``’s``/``＇s`` is dropped.
- :func:`stem` is Lucene's ``PorterStemmer``: Porter's own C implementation, which departs
  from the 1980 paper in two rules (``logi`` -> ``log``; ``bli`` -> ``ble`` instead of
  ``abli`` -> ``able``) and leaves words of one or two characters alone (:mod:`.porter`). It
  is pure Python (about 9 µs a word), so words that cannot meet a rule where the two part (see
  :data:`_SNOWBALL_DEPARTS`) go through Snowball's C ``porter`` (PyStemmer) instead, which
  stems them alike. Both paths are tested against Lucene's own stems (``tests/data/lucene/``).

Stemming is cached per distinct word, so its cost is paid once per vocabulary entry.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

import numpy as np

from ..errors import require
from . import porter

ANALYSIS = "lucene-en-v2"
"""Names the analysis; part of the BM25 index cache key, so a change of analysis re-indexes."""

MAX_TOKEN_LENGTH = 255
"""``StandardTokenizer``'s default maximum token length, in UTF-16 code units."""

STOP_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with".split()
)
"""Lucene's ``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET`` (33 words)."""

# Text that is all ASCII (most documents) needs only letters, digits, "_" and the joiners;
# lookarounds say "between two letters" / "between two digits" where ASCII has no combining
# characters that could sit in between. The general pattern below accepts the same tokens.
_ASCII_TOKEN = re.compile(
    r"_*[a-z0-9](?:[a-z0-9_]|(?<=[a-z])[.':](?=[a-z])|(?<=[0-9])[.',;](?=[0-9]))*"
)


@cache
def _token_pattern(longest: bool = False):
    """The ``StandardTokenizerImpl.jflex`` rules as one ``regex`` pattern. JFlex takes the
    longest match; ``regex`` the first, which is the longest except around Hebrew quotes and
    emoji sequences, so text with those (see :func:`_needs_longest`) uses POSIX matching
    (``longest``), which is exact but much slower."""
    regex = require("regex", "bm25")

    ext = r"[\p{WB=Format}\p{WB=Extend}\p{WB=ZWJ}]"
    ext_sans_vs = r"[[\p{WB=Format}\p{WB=Extend}\p{WB=ZWJ}]--[\uFE0E\uFE0F]]"
    ahletter = rf"(?:[\p{{WB=ALetter}}\p{{WB=Hebrew_Letter}}]{ext}*)"
    numeric = rf"(?:[\p{{WB=Numeric}}[\p{{Block=Halfwidth_And_Fullwidth_Forms}}&&\p{{Nd}}]]{ext}*)"
    katakana = rf"(?:\p{{WB=Katakana}}{ext}*)"
    mid_letter = rf"(?:[\p{{WB=MidLetter}}\p{{WB=MidNumLet}}\p{{WB=Single_Quote}}]{ext}*)"
    mid_num = rf"(?:[\p{{WB=MidNum}}\p{{WB=MidNumLet}}\p{{WB=Single_Quote}}]{ext}*)"
    extend_num_let = rf"(?:\p{{WB=ExtendNumLet}}{ext}*)"
    hebrew = rf"(?:\p{{WB=Hebrew_Letter}}{ext}*)"
    single_quote = rf"(?:\p{{WB=Single_Quote}}{ext}*)"
    double_quote = rf"(?:\p{{WB=Double_Quote}}{ext}*)"
    unit = (
        f"(?:{katakana}(?:{extend_num_let}*{katakana})*"
        f"|(?:{hebrew}(?:{single_quote}|{double_quote}{hebrew})"
        f"|{numeric}(?:(?:{extend_num_let}*|{mid_num}){numeric})*"
        f"|{ahletter}(?:(?:{extend_num_let}*|{mid_letter}){ahletter})*)+)"
    )
    word = f"{extend_num_let}*{unit}(?:{extend_num_let}+{unit})*{extend_num_let}*"
    # Emoji (UTS #51 sequences, as the grammar spells them, with Lucene's emoji properties)
    emoji_sets = _emoji_sets()
    regional = r"\p{WB=Regional_Indicator}"
    emoji_char = (
        f"[{emoji_sets['Extended_Pictographic']}[{emoji_sets['Emoji']}--[{regional}0-9#*"
        rf"\u00A9\u00AE\u2122\u3030\u303D{emoji_sets['Emoji_Modifier']}]]]"
    )
    modifier = f"(?:[{emoji_sets['Emoji_Modifier']}]{ext_sans_vs}*)"
    char_or_sequence = (
        rf"(?:(?:\p{{WB=ZWJ}}*[{emoji_sets['Emoji_Modifier_Base']}]{ext_sans_vs}*)?{modifier}"
        rf"|\p{{WB=ZWJ}}*{emoji_char}{ext_sans_vs}*\uFE0F?)"
    )
    emoji = (
        rf"{char_or_sequence}(?:[\U000E0020-\U000E007E]+\U000E007F"
        rf"|(?:\p{{WB=ZWJ}}{char_or_sequence})*)"
        rf"|[0-9#*]{ext_sans_vs}*\uFE0F?\u20E3{ext_sans_vs}*"
        rf"|{regional}{ext}*{regional}{ext}*"
    )
    complex_context = rf"(?:\p{{Line_Break=Complex_Context}}{ext}*)+"
    single = rf"[\p{{Script=Han}}\p{{Script=Hiragana}}]{ext}*"
    flags = regex.V1 | (regex.POSIX if longest else 0)
    return regex.compile(f"{word}|{emoji}|{complex_context}|{single}", flags)


@cache
def _needs_longest():
    """Characters around which the first match of :func:`_token_pattern` may be shorter
    than JFlex's longest: Hebrew letters, emoji, ZWJ and the presentation selectors."""
    regex = require("regex", "bm25")

    sets = _emoji_sets()
    return regex.compile(
        rf"[\p{{WB=Hebrew_Letter}}\p{{WB=ZWJ}}\p{{WB=Regional_Indicator}}\uFE0E\uFE0F\u20E3"
        rf"{sets['Extended_Pictographic']}{sets['Emoji_Modifier']}[{sets['Emoji']}--[0-9#*]]]",
        regex.V1,
    )


def _emoji_sets() -> dict[str, str]:
    """Lucene's emoji properties (``lucene_emoji.json`` beside this module) as ``regex`` set
    contents: the ``regex`` module's own are of a newer Unicode (``★`` is no longer
    pictographic there)."""
    import json
    from importlib import resources

    text = resources.files(__package__).joinpath("lucene_emoji.json").read_text("utf-8")
    return {
        name: "".join(f"\\U{int(a, 16):08X}-\\U{int(b, 16):08X}" for a, b in ranges)
        for name, ranges in json.loads(text).items()
        if name != "source"
    }


def _lower(text: str) -> str:
    """Java's ``Character.toLowerCase`` of every character (Python's ``str.lower`` maps
    ``İ`` to two characters and a word-final ``Σ`` to ``ς``)."""
    if "\u0130" in text or "\u03a3" in text:
        text = text.replace("\u0130", "i").replace("\u03a3", "\u03c3")
    return text.lower()


def _utf16_len(token: str) -> int:
    return len(token) + sum(ord(c) > 0xFFFF for c in token)


def _split_long(text: str, pattern) -> list[str]:
    """The tokens of ``text`` when one is longer than the tokenizer's 255-unit buffer: the
    scanner then takes the longest token that fits from where the long one began."""
    found, pos = [], 0
    while (match := pattern.search(text, pos)) is not None:
        start, end = match.span()
        if _utf16_len(match.group()) > MAX_TOKEN_LENGTH:
            end, units = start, 0
            while units + (2 if ord(text[end]) > 0xFFFF else 1) <= MAX_TOKEN_LENGTH:
                units += 2 if ord(text[end]) > 0xFFFF else 1
                end += 1
            match = pattern.match(text, start, end)
            end = match.end() if match is not None else start + 1
        if end > start:
            found.append(text[start:end])
        pos = max(end, start + 1)
    return found


def tokens(text: str | None) -> list[str]:
    """The lower-cased tokens of ``text``, possessive ``'s`` dropped, before stop words and
    stemming (what Pyserini's analyzer gives without them)."""
    if not text:
        return []
    if text.isascii():  # lower case first: it changes no ASCII character's word-break class
        return _ascii_tokens(text.lower())
    text = text.translate(_separators())  # a separator is never part of a token
    if not _NOT_LATIN.search(text):  # English with typographic quotes, accents, symbols
        return _latin_tokens(_lower(text))
    else:  # Ⓜ is an emoji, its lower case ⓜ a letter: split first, as Lucene does
        pattern = _token_pattern(_needs_longest().search(text) is not None)
        found = pattern.findall(text)
        if any(_utf16_len(token) > MAX_TOKEN_LENGTH for token in found):
            found = _split_long(text, pattern)
        found = [_lower(token) for token in found]
    return [_drop_possessive(token) for token in found]


# Latin letters (all word-break ALetter) and the quotes that join words as "'" does: text
# made only of these and ASCII (once separators are spaces) needs no Unicode properties.
_LATIN = "a-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
_NOT_LATIN = re.compile("[^\x00-\x7f\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u2018\u2019]")
_LATIN_TOKEN = re.compile(
    rf"_*[{_LATIN}0-9](?:[{_LATIN}0-9_]|(?<=[{_LATIN}])[.':\u2018\u2019](?=[{_LATIN}])"
    r"|(?<=[0-9])[.',;\u2018\u2019](?=[0-9]))*"
)


@cache
def _separators() -> dict[int, str]:
    """``str.translate`` table: every non-ASCII BMP character that is never part of a token
    (word-break Other, no emoji, no Han/Hiragana/Thai-like script) -> a space."""
    regex = require("regex", "bm25")
    sets = _emoji_sets()
    part = regex.compile(
        r"[\p{WB=ALetter}\p{WB=Hebrew_Letter}\p{WB=Numeric}\p{WB=Katakana}"
        r"\p{WB=ExtendNumLet}\p{WB=MidLetter}\p{WB=MidNum}\p{WB=MidNumLet}\p{WB=Single_Quote}"
        r"\p{WB=Double_Quote}\p{WB=Format}\p{WB=Extend}\p{WB=ZWJ}\p{WB=Regional_Indicator}"
        r"\p{Line_Break=Complex_Context}\p{Script=Han}\p{Script=Hiragana}\p{Nd}\p{Cs}"
        rf"\u20E3\uFE0E\uFE0F{sets['Extended_Pictographic']}{sets['Emoji']}"
        rf"{sets['Emoji_Modifier']}{sets['Emoji_Modifier_Base']}]",
        regex.V1,
    )
    table = {c: " " for c in range(0x80, 0x10000) if not part.match(chr(c))}
    table[0xB8] = " "  # the cedilla: a letter to the regex module's newer Unicode, not to Lucene's
    return table


def _latin_tokens(text: str) -> list[str]:
    """:func:`tokens` of lower-case text of ASCII, Latin letters and ‘ ’ only."""
    found = _LATIN_TOKEN.findall(text)
    if any(len(token) > MAX_TOKEN_LENGTH for token in found):
        found = _split_long(text, _LATIN_TOKEN)
    return [_drop_possessive(token) for token in found]


def _ascii_tokens(text: str) -> list[str]:
    """:func:`tokens` of lower-case ASCII text."""
    found = _ASCII_TOKEN.findall(text)
    if any(len(token) > MAX_TOKEN_LENGTH for token in found):
        found = _split_long(text, _ASCII_TOKEN)
    return [_drop_possessive(token) for token in found] if "'s" in text else found


def _drop_possessive(token: str) -> str:
    if len(token) >= 2 and token[-1] == "s" and token[-2] in "'\u2019\uff07":
        return token[:-2]
    return token


@cache
def _snowball():
    stemmer = require("Stemmer", "bm25")
    return stemmer.Stemmer("porter", 0)  # no cache of its own: the callers keep one


_SNOWBALL_DEPARTS = re.compile(r"bl|log|([chjkqvwxy])\1(?:ed|ing)")
"""Where Snowball's ``porter`` (Porter's 1980 paper) and Lucene's (Porter's C code) part:
``bli``/``logi`` in step 2 (``bly``, ``logy`` once step 1c has made ``y`` an ``i``), and
step 1b, where Lucene undoubles every double consonant but l, s and z left by ``-ed`` or
``-ing`` and Snowball only bb, dd, ff, gg, mm, nn, pp, rr and tt. Also, Lucene leaves words
of one or two characters alone. Words matching this (or that short) take :mod:`.porter`."""


def stem(word: str) -> str:
    """Lucene's Porter stem of a lower-case ``word``."""
    if len(word) > 2 and word.isascii() and _SNOWBALL_DEPARTS.search(word) is None:
        return _snowball().stemWord(word)
    if word.isascii() or all(ord(c) <= 0xFFFF for c in word):
        return porter.stem(word)
    # Java stems UTF-16 code units: a character beyond the BMP is two consonants to it
    units = "".join(
        chr(0xD800 + ((ord(c) - 0x10000) >> 10)) + chr(0xDC00 + ((ord(c) - 0x10000) & 0x3FF))
        if ord(c) > 0xFFFF
        else c
        for c in word
    )
    stemmed = porter.stem(units)
    return stemmed.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


class Analyzer:
    """Text -> index terms, with the term of every surface form seen so far cached."""

    def __init__(self) -> None:
        self._terms: dict[str, str | None] = {}

    def terms(self, forms: Iterable[str]) -> list[str]:
        """The index terms of tokens from :func:`tokens`: stop words removed, stemmed."""
        forms = list(forms)
        known = self._terms
        for form in set(forms).difference(known):
            known[form] = None if form in STOP_WORDS else stem(form)
        return [term for term in map(known.__getitem__, forms) if term is not None]

    def __call__(self, text: str | None) -> list[str]:
        return self.terms(tokens(text))


_analyzer = Analyzer()


def analyze(text: str | None) -> list[str]:
    """The index terms of ``text``: Pyserini's default (Lucene English) analysis."""
    return _analyzer(text)


# ASCII characters that can be part of a token; every other one separates tokens, so ASCII
# text is cut at them (one C call) and only the distinct pieces go through the tokenizer.
_KEEP = set("abcdefghijklmnopqrstuvwxyz0123456789_.':,;")
_ASCII_PIECES = str.maketrans({chr(c): " " for c in range(128) if chr(c) not in _KEEP})
_DOC_BREAK = "\x01"  # never in a piece: the table makes it a space
_TOKEN_MARK = "\x02"  # marks a finished token of non-ASCII text (never in an ASCII piece)


class TermCounter:
    """Counts the index terms of batches of documents, fast: texts are cut into pieces at
    characters that never belong to a token, and each distinct piece is analysed once (its
    terms cached), so the work per occurrence is a split and a dictionary look-up.

    Term ids are this counter's own (first seen, first numbered); :meth:`count` returns the
    terms first seen in its batch so that a caller can map them to its own ids.
    """

    def __init__(self) -> None:
        self._pieces: dict[str, int] = {_DOC_BREAK: 0}
        self._piece_terms: list[list[int]] = [[]]
        self._stems: dict[str, int | None] = {}
        self._term_ids: dict[str, int] = {}
        self._new_terms: list[str] = []
        self._starts = self._counts = self._flat = np.zeros(0, dtype=np.int64)
        self._stale = True

    def count(self, texts: list[str | None]):
        """``(new terms, distinct terms per doc, term ids, term frequencies, doc lengths)``
        of a batch: the (doc, term) pairs are in document order, each document's by term id."""
        pieces = []
        for text in texts:
            if not text:
                pieces.append("")
            elif text.isascii():
                pieces.append(text.lower().translate(_ASCII_PIECES))
            else:
                pieces.append(" ".join(_TOKEN_MARK + token for token in tokens(text)))
        words = f" {_DOC_BREAK} ".join(pieces).split()
        del pieces
        try:
            ids = np.fromiter(map(self._pieces.__getitem__, words), np.int64, len(words))
        except KeyError:
            self._learn(set(words).difference(self._pieces))
            ids = np.fromiter(map(self._pieces.__getitem__, words), np.int64, len(words))
        del words
        if self._stale:
            self._rebuild()
        n_docs = len(texts)
        doc = np.cumsum(ids == 0)
        counts = self._counts[ids]
        total = int(counts.sum())
        ends = np.cumsum(counts)
        offsets = np.repeat(self._starts[ids] - (ends - counts), counts) + np.arange(total)
        terms = self._flat[offsets]
        del offsets, ends, ids
        # (doc, term) as one integer to sort; 32 bits when they fit (a faster sort)
        shift = max(int(len(self._term_ids)).bit_length(), 1)
        wide = (n_docs + 1) << shift >= 1 << 31
        key = np.repeat(doc if wide else doc.astype(np.int32), counts) << shift
        key |= terms if wide else terms.astype(np.int32)
        del terms, counts, doc
        key.sort()
        first = np.empty(len(key), dtype=bool)
        first[:1] = True
        np.not_equal(key[1:], key[:-1], out=first[1:])
        starts = np.flatnonzero(first)
        tf = np.diff(np.append(starts, len(key)))
        pairs = key[first]
        docs = pairs >> shift
        lengths = np.bincount(docs, weights=tf, minlength=n_docs).astype(np.int64)
        per_doc = np.bincount(docs, minlength=n_docs)
        new, self._new_terms = self._new_terms, []
        return new, per_doc, (pairs & ((1 << shift) - 1)).astype(np.int32), tf, lengths

    def _learn(self, pieces: Iterable[str]) -> None:
        for piece in pieces:
            if piece.startswith(_TOKEN_MARK):
                found = [piece[1:]]
            else:
                found = _ascii_tokens(piece)
            terms = [t for t in map(self._term_of, found) if t is not None]
            self._pieces[piece] = len(self._piece_terms)
            self._piece_terms.append(terms)
        self._stale = True

    def _term_of(self, token: str) -> int | None:
        if token in self._stems:
            return self._stems[token]
        term_id = None
        if token not in STOP_WORDS:
            term = stem(token)
            term_id = self._term_ids.get(term)
            if term_id is None:
                term_id = self._term_ids[term] = len(self._term_ids)
                self._new_terms.append(term)
        self._stems[token] = term_id
        return term_id

    def _rebuild(self) -> None:
        counts = np.fromiter(map(len, self._piece_terms), np.int64, len(self._piece_terms))
        self._counts = counts
        self._starts = np.cumsum(counts) - counts
        flat = [t for terms in self._piece_terms for t in terms]
        self._flat = np.array(flat, dtype=np.int64) if flat else np.zeros(1, dtype=np.int64)
        self._stale = False
