"""The BM25 baseline: analysis, fidelity to a reference BM25 written here, index cache, runs."""

from __future__ import annotations

import math
from collections import Counter

import pyarrow as pa
import pytest

from ir_bright import bm25
from ir_bright.bm25 import analysis, topk

pytest.importorskip("Stemmer")  # the bm25 extra

SENTENCES = [
    "Moths are attracted to artificial lights at night because they navigate by the moon.",
    "Many insects orient themselves using a light source kept at a constant angle.",
    "Birds sing at dawn to defend their territory and to attract mates.",
    "The dawn chorus is loudest in spring when males compete for females.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "Plants grow towards light, a response called phototropism.",
    "The heart pumps blood through arteries, veins and capillaries.",
    "Red blood cells carry oxygen from the lungs to the tissues of the body.",
    "Earthquakes happen when stress in the crust is released along faults.",
    "Volcanoes form where magma rises through cracks in the crust of the earth.",
    "Inflation measures how quickly the prices of goods and services rise.",
    "Central banks raise interest rates to slow inflation and cool demand.",
    "Robots use sensors such as cameras and lidar to map their surroundings.",
    "A PID controller corrects the error between a measured value and a setpoint.",
    "Recycling paper saves trees, water and the energy needed to make new paper.",
    "Composting food waste returns nutrients to the soil and reduces landfill gas.",
    "Sleep deprivation impairs memory, attention and the regulation of mood.",
    "Cognitive behavioural therapy helps people change patterns of negative thinking.",
    "Binary search finds an item in a sorted array by halving the interval each step.",
    "Dynamic programming stores the results of subproblems to avoid recomputing them.",
    "A triangle's angles always add up to one hundred and eighty degrees.",
    "The law of cosines relates the lengths of the sides of a triangle to one angle.",
    "Prime numbers have exactly two divisors, one and the number itself.",
    "The pigeonhole principle says some box holds two pigeons if pigeons outnumber boxes.",
    "Light travels faster than sound, so we see lightning before we hear thunder.",
    "Bats navigate in the dark by listening to the echoes of their own calls.",
    "Moths fly in spirals around street lights until they are exhausted.",
    "Songbirds learn their songs from adult tutors during a sensitive period.",
    "Insects such as bees see ultraviolet light that humans cannot see.",
    "Glucose is broken down in cells to release energy during respiration.",
    "Faults in the crust of the earth slip during an earthquake, releasing energy.",
    "Interest rates affect the prices of houses, bonds and shares.",
]
QUERIES = [
    "Why are moths and other insects attracted to light at night?",
    "Why do birds sing at dawn? birds birds",
    "How do plants turn light into energy?",
    "earthquake crust faults energy",
    "What does the law of cosines say about a triangle?",
    "inflation interest rates prices",
    "zebra unicorn",  # no known term: nothing matches
]

# The analysis is Lucene's (tested against Lucene's own output in test_analysis.py); the
# reference below checks the scoring on top of it.
STOP = set(
    "a an and are as at be but by for if in into is it no not of on or such that the "
    "their then there these they this to was will with".split()
)
assert len(STOP) == 33


def reference_terms(text: str) -> list[str]:
    return analysis.analyze(text)


class ReferenceBM25:
    """Lucene's BM25, straight from the formula: idf = ln(1 + (N - df + 0.5)/(df + 0.5)),
    weight = idf * tf / (tf + k1 (1 - b + b dl / avgdl)), exact document lengths."""

    def __init__(self, docs: list[str], k1: float = 0.9, b: float = 0.4):
        self.k1, self.b = k1, b
        self.tfs = [Counter(reference_terms(d)) for d in docs]
        self.lengths = [sum(tf.values()) for tf in self.tfs]
        self.n = len(docs)
        self.avgdl = sum(self.lengths) / self.n
        df = Counter(t for tf in self.tfs for t in tf)
        self.idf = {t: math.log(1 + (self.n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def weight(self, term: str, tf: int, length: float) -> float:
        norm = self.k1 * (1 - self.b + self.b * length / self.avgdl)
        return self.idf[term] * tf / (tf + norm)

    def doc_weight(self, i: int, term: str) -> float:
        tf = self.tfs[i].get(term, 0)
        return self.weight(term, tf, self.lengths[i]) if tf else 0.0

    def scores(self, query: str, query_side: bool = False) -> list[float]:
        q = Counter(t for t in reference_terms(query) if t in self.idf)
        if query_side:  # gensim's LuceneBM25Model applied to the query's bag of words
            qlen = sum(q.values())
            qw = {t: self.weight(t, n, qlen) for t, n in q.items()}
        else:  # bag of words: each occurrence of a query term counts
            qw = dict(q)
        return [sum(w * self.doc_weight(i, t) for t, w in qw.items()) for i in range(self.n)]


def build_index(docs, params=bm25.DEFAULT_PARAMS, batch_rows=5):
    ids = [f"d{i:02d}" for i in range(len(docs))]
    batches = [
        pa.record_batch(
            [pa.array(ids[i : i + batch_rows]), pa.array(docs[i : i + batch_rows])],
            names=["doc_id", "text"],
        )
        for i in range(0, len(docs), batch_rows)
    ]
    return bm25.BM25Index.build(batches, params, progress=False)


def expected_ranking(scores, k, excluded=()):
    rows = [i for i in range(len(scores)) if i not in set(excluded)]
    matched = sorted((i for i in rows if scores[i] > 0), key=lambda i: (-scores[i], i))
    zero = [i for i in rows if scores[i] <= 0]
    return (matched + zero)[:k]


def test_analysis_lowercases_drops_stop_words_and_possessives_and_porter_stems():
    assert bm25.analyze("The Moth's wings are RUNNING into lights") == [
        "moth",
        "wing",
        "run",
        "light",
    ]


def test_analysis_keeps_numbers_abbreviations_and_contractions_whole_like_standardtokenizer():
    terms = bm25.analyze("U.S.A. grew 3.5% in 1,000 days; don't stop foo_bar std::vector")
    assert terms == [
        "u.s.a",
        "grew",
        "3.5",
        "1,000",
        "dai",
        "don't",
        "stop",
        "foo_bar",
        "std",
        "vector",
    ]


def test_analysis_leaves_words_of_two_letters_unstemmed_as_lucene_porter():
    assert bm25.analyze("us ox") == ["us", "ox"]


def test_lucene_stop_words_are_the_33_english_ones():
    assert analysis.STOP_WORDS == STOP


@pytest.mark.parametrize("query_side", [False, True], ids=["bag-of-words", "query-side"])
@pytest.mark.parametrize("params", [bm25.BM25Params(0.9, 0.4), bm25.BM25Params(1.2, 0.75)])
def test_scores_equal_a_reference_bm25_on_real_sentences(query_side, params):
    index = build_index(SENTENCES, params)
    reference = ReferenceBM25(SENTENCES, params.k1, params.b)
    assert index.avgdl == pytest.approx(reference.avgdl)
    for query in QUERIES:
        got = index.scores(bm25.analyze(query), query_side)
        want = reference.scores(query, query_side)
        assert got.tolist() == pytest.approx(want, rel=1e-6, abs=1e-7)


@pytest.mark.parametrize("query_side", [False, True], ids=["bag-of-words", "query-side"])
def test_rankings_equal_the_reference_with_exclusions_removed_before_the_cut(query_side):
    index = build_index(SENTENCES)
    reference = ReferenceBM25(SENTENCES)
    for query in QUERIES:
        want_scores = reference.scores(query, query_side)
        best = expected_ranking(want_scores, 3)
        excluded = best[:2]  # the two best are excluded: the third moves up
        for k in (1, 5, len(SENTENCES) + 3):
            got = index.search(query, k, index.rows_of([f"d{i:02d}" for i in excluded]), query_side)
            want = expected_ranking(want_scores, k, excluded)
            assert [doc for doc, _ in got] == [f"d{i:02d}" for i in want]
            assert [s for _, s in got] == pytest.approx([want_scores[i] for i in want], abs=1e-6)


@pytest.mark.parametrize("query_side", [False, True], ids=["bag-of-words", "query-side"])
def test_a_repeated_doc_id_counts_in_the_statistics_and_is_ranked_once_by_its_first_row(
    query_side,
):
    # the benchmarks' code indexes every row (R2MED's corpora repeat a few ids) and ranks an
    # id once; ir_bright's docs keep an id's first row, so the index ranks that row
    docs = [*SENTENCES, SENTENCES[0], SENTENCES[26]]
    ids = [f"d{i:02d}" for i in range(len(SENTENCES))] + ["d26", "d00"]
    batch = pa.record_batch([pa.array(ids), pa.array(docs)], names=["doc_id", "text"])
    index = bm25.BM25Index.build([batch], progress=False)
    reference = ReferenceBM25(docs)  # every row in N, df and the average length
    assert index.avgdl == pytest.approx(reference.avgdl)
    for query in QUERIES:
        want_scores = reference.scores(query, query_side)
        want = expected_ranking(
            want_scores, len(docs), excluded=[len(SENTENCES), len(SENTENCES) + 1]
        )
        got = index.search(query, len(docs), query_side=query_side)
        assert [doc for doc, _ in got] == [ids[i] for i in want]
        assert len({doc for doc, _ in got}) == len(got) == len(SENTENCES)
        assert [s for _, s in got] == pytest.approx([want_scores[i] for i in want], abs=1e-6)


def test_query_side_weighting_changes_the_order_where_repeated_terms_dominate():
    index = build_index(SENTENCES)
    query = "birds birds birds birds dawn prices"
    plain = index.search(query, 3)
    weighted = index.search(query, 3, query_side=True)
    assert plain != weighted


def test_top_rows_breaks_ties_by_corpus_order_and_fills_with_zero_scores():
    import numpy as np

    scores = np.array([0.0, 2.0, 1.0, 2.0, 0.0, 1.0, 0.0])
    assert topk.top_rows(scores, 3).tolist() == [1, 3, 2]
    assert topk.top_rows(scores, 6).tolist() == [1, 3, 2, 5, 0, 4]
    assert topk.top_rows(scores, 6, np.array([3, 0])).tolist() == [1, 2, 5, 4, 6]


def _full_sort_top_rows(scores, k, excluded, tiebreak, fill):
    """The definition of top_rows: a stable sort of every allowed row by score, then by
    tiebreak (or row); with ``fill``, zero-score rows after the matches, in row order."""
    dropped = set(excluded.tolist())
    allowed = [row for row in range(len(scores)) if row not in dropped]
    second = tiebreak if tiebreak is not None else range(len(scores))
    positive = [row for row in allowed if scores[row] > 0]
    rows = sorted(positive, key=lambda row: (-scores[row], second[row]))[:k]
    if fill:
        rows += [row for row in allowed if scores[row] <= 0][: k - len(rows)]
    return rows


def test_top_rows_equal_a_full_stable_sort_on_random_scores_with_ties():
    import numpy as np

    rng = np.random.default_rng(7)
    n = 20_000
    shapes = {
        "few distinct values": lambda: rng.integers(0, 6, n) * 0.25,
        "continuous": lambda: rng.random(n) * (rng.random(n) < 0.6),
        "rising with the row": lambda: np.arange(n) / n * (rng.random(n) < 0.5),
        "falling with the row": lambda: (n - np.arange(n)) / n,
        "high on every 64th row": lambda: (np.arange(n) % 64 == 0) + rng.random(n) / 2,
        "sparse": lambda: rng.integers(1, 4, n) * (rng.random(n) < 0.01),
        "all zero": lambda: np.zeros(n),
    }
    sampled = 0
    for name, make in shapes.items():
        for k in (1, 10, 300, 1000):
            scores = make().astype(np.float64)
            excluded = rng.integers(0, n, int(rng.integers(0, 600)))
            tiebreak = rng.permutation(n) if rng.random() < 0.5 else None
            for fill in (True, False):
                want = _full_sort_top_rows(scores, k, excluded, tiebreak, fill)
                got = topk.top_rows(scores, k, excluded, tiebreak=tiebreak, fill=fill)
                assert got.tolist() == want, (name, k, fill)
                got = topk.top_rows(scores.copy(), k, excluded, tiebreak, fill, overwrite=True)
                assert got.tolist() == want, (name, k, fill, "overwrite")
            sampled += topk._best_candidates(scores, k, excluded, len(excluded), False) is not None
    assert 0 < sampled < len(shapes) * 4  # both the sampled threshold and the full scan ran


def test_a_query_without_known_terms_ranks_zero_score_documents_in_corpus_order():
    index = build_index(SENTENCES)
    got = index.search("zebra unicorn", 4)
    assert got == [("d00", 0.0), ("d01", 0.0), ("d02", 0.0), ("d03", 0.0)]


def test_saved_index_loads_with_the_same_scores(tmp_path):
    index = build_index(SENTENCES)
    index.save(tmp_path / "ix")
    loaded = bm25.BM25Index.load(tmp_path / "ix")
    for query in QUERIES:
        assert loaded.search(query, 10, query_side=True) == index.search(query, 10, query_side=True)


def test_saved_index_is_plain_npy_arrays_holding_every_reference_weight(tmp_path):
    import json

    import numpy as np

    build_index(SENTENCES).save(tmp_path / "ix")
    data, indices, indptr = (np.load(tmp_path / "ix" / f"{name}.npy") for name in _CSC)
    vocab = json.loads((tmp_path / "ix" / "vocab.json").read_text("utf-8"))
    reference = ReferenceBM25(SENTENCES)
    got = {
        (int(row), term): float(weight)
        for term, t in vocab.items()
        for row, weight in zip(indices[indptr[t] : indptr[t + 1]], data[indptr[t] : indptr[t + 1]])
    }
    want = {
        (i, term): reference.doc_weight(i, term)
        for i, tf in enumerate(reference.tfs)
        for term in tf
    }
    assert got.keys() == want.keys()
    assert [got[key] for key in want] == pytest.approx(list(want.values()), rel=1e-6)


_CSC = ("data", "indices", "indptr")


# -- datasets through the loopback hub ---------------------------------------------------------


def run_of(dataset_id, **kwargs):
    return list(bm25.retrieve(dataset_id, progress=False, **kwargs))


@pytest.mark.slow
def test_retrieve_never_returns_a_query_s_excluded_documents(bright):
    ranked = run_of("bright/aops")
    rows = bright.rows["aops"]["examples"]
    excluded = {(r["id"], d) for r in rows for d in r["excluded_ids"]}
    assert ranked and not {(r.query_id, r.doc_id) for r in ranked} & excluded
    n_docs = len(bright.rows["aops"]["documents"])
    for row in rows:  # the whole corpus less the excluded documents, as k > corpus size
        got = [r.doc_id for r in ranked if r.query_id == row["id"]]
        assert len(got) == n_docs - len(set(row["excluded_ids"]))


@pytest.mark.slow
def test_retrieve_ranks_from_one_with_scores_descending(bright):
    ranked = run_of("bright/biology", depth=5)
    for query_id in {r.query_id for r in ranked}:
        mine = [r for r in ranked if r.query_id == query_id]
        assert [r.rank for r in mine] == list(range(1, 6))
        assert [r.score for r in mine] == sorted((r.score for r in mine), reverse=True)


@pytest.mark.slow
def test_second_run_reuses_the_cached_index(bright, monkeypatch):
    first = run_of("bright/biology")
    folder = bm25.index_folder(__import__("ir_datasets").load("bright/biology"))
    assert (folder / "ir_bright.json").is_file()

    def no_build(*args, **kwargs):
        raise AssertionError("indexed again")

    monkeypatch.setattr(bm25.BM25Index, "build", no_build)
    assert run_of("bright/biology") == first


@pytest.mark.slow
def test_aops_and_theoremqa_questions_share_one_index(bright, monkeypatch):
    import ir_datasets

    from ir_bright import hub
    from ir_bright.hub import transfer

    monkeypatch.delenv("IR_BRIGHT_VERIFY")  # the two corpora are one file only when verified
    monkeypatch.setattr(transfer, "verify", lambda *args: None)  # as if it matched the pins
    monkeypatch.setattr(hub.HubFile, "pins", lambda self: (None, None))

    aops = bm25.index_folder(ir_datasets.load("bright/aops"))
    questions = bm25.index_folder(ir_datasets.load("bright/theoremqa-questions"))
    assert aops == questions
    run_of("bright/aops")
    monkeypatch.setattr(bm25.BM25Index, "build", lambda *a, **k: pytest.fail("indexed again"))
    assert run_of("bright/theoremqa-questions")


def test_parameters_key_the_index_cache(bright):
    import ir_datasets

    dataset = ir_datasets.load("bright/biology")
    assert bm25.index_folder(dataset) != bm25.index_folder(dataset, bm25.BM25Params(1.2, 0.75))
    lucene = bm25.index_folder(dataset, bm25.BM25Params(lucene_norms=True))
    assert lucene != bm25.index_folder(dataset)
    assert analysis.ANALYSIS in lucene.name  # a new analysis re-indexes


@pytest.mark.slow
def test_reasoning_variant_searches_with_the_llm_text(bright):
    ranked = run_of("bright/biology/gpt4-reason", queries=None, depth=3)
    plain = run_of("bright/biology", depth=3)
    assert {r.query_id for r in ranked} == {"0", "1"}
    assert [r.doc_id for r in ranked] != [r.doc_id for r in plain]


@pytest.mark.slow
def test_trec_lines_have_six_columns_and_the_run_tag(bright, tmp_path):
    import io

    from ir_bright.runs import write_trec

    out = io.StringIO()
    n = write_trec(run_of("bright/biology", depth=2), out, "tag")
    lines = out.getvalue().splitlines()
    assert n == len(lines) == 4
    assert all(len(line.split()) == 6 and line.endswith(" tag") for line in lines)
