"""Compare ir_bright's stems with Lucene's (ALL from ``make_stems.py``) and NLTK's.

    pip install nltk  # a maintainer's check only: ir_bright itself does not use NLTK
    python tests/data/lucene/check_stems.py ALL

Words that the tokenizer changes (a trailing ``'``, a possessive ``'s``) are left out: their
stem is not what Lucene's stemmer was given.
"""

import sys

from nltk.stem.porter import PorterStemmer

from ir_bright.bm25 import analysis

nltk = PorterStemmer(PorterStemmer.MARTIN_EXTENSIONS)
pairs = [line.rstrip("\n").split("\t") for line in open(sys.argv[1], encoding="utf-8")]
pairs = [(word, stem) for word, stem in pairs if analysis.tokens(word) == [word]]
fast = sum(
    len(w) > 2 and w.isascii() and analysis._SNOWBALL_DEPARTS.search(w) is None for w, _ in pairs
)
lucene = [w for w, s in pairs if analysis.stem(w) != s]
other = [w for w, _ in pairs if analysis.stem(w) != nltk.stem(w, to_lowercase=False)]
print(f"{len(pairs):,} words ({fast:,} through Snowball): {len(lucene)} stems differ from Lucene's")
print(f"{len(other)} from NLTK's (MARTIN_EXTENSIONS): {(lucene + other)[:20]}")
