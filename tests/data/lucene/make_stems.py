"""Write Lucene's Porter stems of about 3 million words, and a sample of them for the tests.

Run once, with Pyserini and a JDK (never in CI; see README.md next to this file):

    JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 OPENAI_API_KEY=x \\
        "$REFENV"/bin/python tests/data/lucene/make_stems.py WORDS ALL > porter_stems.tsv

WORDS: a file of lower-case words, one a line. The words stemmed are WORDS, each with English
suffixes added (every suffix of Porter's rules, and doubled consonants before -ed / -ing),
random letter strings with and without such suffixes, words joined by digits and the
characters that join letters in a token, and every word of one to three letters. ALL gets
``word<TAB>Lucene's stem`` for each word that Lucene analyses as one token (compare with
``check_stems.py``); stdout a sample of 20,000 of them, stratified by how ir_bright stems
them (the committed ``porter_stems.tsv``).
"""

import random
import re
import string
import sys

from pyserini.analysis import Analyzer, get_lucene_analyzer

SUFFIXES = """s es ies ied ed ing ings ly edly ingly ity ities ness nesses ment ments ational
tional enci anci izer izers bli blis alli entli eli ousli ization izations ation ations ator
ators alism iveness fulness ousness aliti iviti biliti logi logies logy icate icates ative
alize alizes iciti ical ically ful al als ance ances ence ences er ers ic ics able ible ant
ants ement ements ent ents ion ions ou ism isms ate ates ated ating iti ous ive ives ize izes
ized izing e ll lls y eed eeds bly bled bling sses ss us is eer eing abli ably ibly ogi ogy
yed ying yly""".split()
SUFFIXES += [c * 2 + end for c in string.ascii_lowercase for end in ("ed", "ing", "eds", "ings")]
LETTERS, VOWELS = string.ascii_lowercase, "aeiouy"


def words_to_stem(base: list[str]) -> list[str]:
    rng = random.Random(5)
    out = set(base)
    for word in base:
        out.update(word + suffix for suffix in rng.sample(SUFFIXES, 6))
        if len(word) > 4:
            out.add(word[:-1] + rng.choice(SUFFIXES))
            out.add(word[:-2] + rng.choice(SUFFIXES))
    for _ in range(600_000):
        word = "".join(
            rng.choice(LETTERS) if rng.random() < 0.6 else rng.choice(VOWELS)
            for _ in range(rng.randint(1, 8))
        )
        word += rng.choice(SUFFIXES) if rng.random() < 0.8 else ""
        out.add(word + rng.choice(SUFFIXES) if rng.random() < 0.2 else word)
    for _ in range(100_000):  # a word, a joiner, then a word or a number
        number = str(rng.randint(0, 999))
        pick = rng.randrange(len(base) + 1)
        second = base[pick] if pick < len(base) else number
        out.add(rng.choice(base) + rng.choice(["'", ".", ":", "_", "", "1", "2x"]) + second)
    out.update(f"w{i:x}" for i in range(30_000))  # the benchmark corpus' words
    for a in LETTERS:
        for b in LETTERS + "'0":
            out.add(a + b)
            out.update(a + b + c for c in LETTERS)
    return sorted(out)


def main() -> None:
    base = [w.strip() for w in open(sys.argv[1], encoding="utf-8") if w.strip()]
    words = words_to_stem(base)
    analyzer = Analyzer(get_lucene_analyzer(stopwords=False))
    stems = {}
    simple = [w for w in words if re.fullmatch(r"[a-z0-9]+", w)]
    for i in range(0, len(simple), 2000):  # one token each: analysed 2,000 at a time
        chunk = simple[i : i + 2000]
        got = analyzer.analyze(" ".join(chunk))
        assert len(got) == len(chunk)
        stems.update(zip(chunk, got))
    for word in words:
        if word not in stems and len(got := analyzer.analyze(word)) == 1:
            stems[word] = got[0]
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        out.writelines(f"{w}\t{s}\n" for w, s in stems.items())
    departs = re.compile(r"bl|log|([chjkqvwxy])\1(?:ed|ing)")  # ir_bright's NLTK path
    rng = random.Random(11)
    slow = [w for w in stems if len(w) <= 2 or not w.isascii() or departs.search(w)]
    fast = sorted(set(stems).difference(slow))
    doubled = [w for w in fast if re.search(r"([a-z])\1(?:ed|ing)", w)]
    sample = set(rng.sample(slow, 8000) + rng.sample(fast, 8000) + rng.sample(doubled, 4000))
    sys.stdout.writelines(f"{w}\t{stems[w]}\n" for w in sorted(sample))


if __name__ == "__main__":
    main()
