"""Write analysis.json: Lucene's own tokens and terms for texts that cover every analysis rule.

Run once, with Pyserini and a JDK (never in CI; see README.md next to this file):

    JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 OPENAI_API_KEY=x \
        "$REFENV"/bin/python tests/data/lucene/make_analysis.py WORDS FUZZ > analysis.json

WORDS: a file of lower-case words, one a line (their stems are recorded); FUZZ: a file of
JSON strings, one a line (random mixes of tricky characters).
"""

import json
import random
import sys

from pyserini.analysis import Analyzer, get_lucene_analyzer

TEXTS = [
    "technology psychology terminology analogy possibly incredibly responsibly assembly",
    "Technological psychologists: archaeology, geology, theology; ably, nobly, humbly, "
    "bubbly, doubly, visibly, audibly, sensibly, probabilistic, biology, logic, logy",
    "grokked agreed feed hopping hoped falling fizzed tanned bly blies logies",
    "Smith et al. _et al._ showed __init__ and _private_ vars; a_b __ _ ___ x_1 _1_",
    "m³ x₂ H₂O CO₂ 10⁻³ km² ½ ¾ Ⅻ ⓜ ① ❶",
    "® © ™ ♂ ♀ ★ ✓ ❤ ☺ 👍 👍🏽 👨‍👩‍👧 🇺🇸 🇬 1️⃣ #⃣ ☺️ ♀️",
    "soft\u00adhyphen co\u00adoperate a\ufeffb \ufeffleading zero\u200bwidth join\u200dwords",
    "it‘s rock’n’roll a·b l·l ca·ta·là dog’s JOHN'S John's James' it＇s ’s 's",
    "U.S.A. e.g. i.e., 3.5% 1,000,000 12:30 3;4 don't std::vector a:b:c a.b.c. v1.2.3 "
    "192.168.0.1 x'y' 'quoted' \"quoted\"",
    "İstanbul ΣΟΦΟΣ ΌΣΟΣ straße STRASSE Ǆemal ǅ ß ﬁne ǰ",
    "漢字かなカタカナ ひらがな 한국어 ไทยภาษา ພາສາລາວ ខ្មែរ မြန်မာ हिन्दी عربي ٣٤ עברית א\"ב א'",
    "ｆｕｌｌ ｗｉｄｔｈ １２３ ０．５ half-width ｶﾀｶﾅ",
    "x" * 300 + " " + "y" * 255 + " " + "z" * 256 + " " + "ab." * 120 + "c " + "1," * 200,
    "e\u0301te\u0301 cafe\u0301 n\u0303 a\u0308b",
    "The quick brown fox isn't at the door; they're not there. Such is it.",
]


def main() -> None:
    full = Analyzer(get_lucene_analyzer())
    raw = Analyzer(get_lucene_analyzer(stemming=False, stopwords=False))
    words = [w.strip() for w in open(sys.argv[1], encoding="utf-8") if w.strip()]
    fuzz = [json.loads(line) for line in open(sys.argv[2], encoding="utf-8")]
    rng = random.Random(11)
    texts = TEXTS + rng.sample(fuzz, 400)
    departures = {w for w in words if "bl" in w or ("log" in w and len(w) < 12)}
    stem_words = sorted(set(rng.sample(words, 4000)) | departures)
    cases = [{"text": t, "tokens": raw.analyze(t), "terms": full.analyze(t)} for t in texts]
    stems = {}
    nostop = Analyzer(get_lucene_analyzer(stopwords=False))
    for i in range(0, len(stem_words), 2000):
        chunk = stem_words[i : i + 2000]
        got = nostop.analyze(" ".join(chunk))
        assert len(got) == len(chunk)
        stems.update(zip(chunk, got))
    json.dump({"texts": cases, "stems": stems}, sys.stdout, ensure_ascii=False, indent=0)


if __name__ == "__main__":
    main()
