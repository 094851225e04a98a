"""MM-BRIGHT through ir_datasets, served from a loopback hub in the real layout.

Expectations come from the fixture's plain values and from a small reference implementation
of the four tasks' official scoring written here (``ref_*``), never from the loader's output.
The official scoring is the benchmark's code (mm-bright/MM-BRIGHT, src/data.py and
src/eval_runner.py at commit b35eaeb; Abdallah et al. 2026, arXiv 2601.09562): every task ranks
the domain's whole corpus, removes the query's excluded ids, keeps the best 1,000.
"""

from __future__ import annotations

import io
import math
import random
import re
import sys

import ir_datasets
import ir_measures
import pytest

import ir_bright
from ir_bright import mmbright
from ir_bright.errors import MissingDependencyError
from ir_bright.mmbright import collection as mmbright_collection
from tests.fixtures import mmbright_hub
from tests.fixtures.mmbright_hub import repo_path
from tests.helpers import qrels_of

EXCLUDED = -100
IMAGE_CONFIGS = ("document_images", "examples_images")


@pytest.fixture
def mm(hub, hub_root):
    """The fixture MM-BRIGHT on the loopback hub, with sha256 ETags as the real hub sends."""
    hub.sha256_etag = True
    hub.domains = mmbright_hub.write_mmbright(hub_root)
    return hub


# --- reference implementation of the official scoring, independent of ir_bright ----------


def ref_image_key(path, domain):
    found = re.search(re.escape(domain) + r"_([0-9a-f]+)_[0-9]+", path)
    return found.group(1) if found else None


def ref_passage_key(passage_id, rule):
    pattern = r"/([0-9a-f]+)_[0-9]+\.txt$" if rule == "legacy" else r"/([0-9a-f]+)_"
    found = re.search(pattern, passage_id)
    return found.group(1) if found else passage_id


def paths(entries):
    return [e["image_path"].replace("\\", "/") for e in entries or []]


def real(ids):
    return [i for i in ids or [] if i != "N/A"]


def ref_decodable(domain):
    return [p for p, (_, fmt) in domain.doc_images.items() if fmt is not None]


def ref_pairs(domain, name, rule):
    images = ref_decodable(domain)
    pairs = []
    for pid in domain.passages:
        pairs.append(f"{pid}|||__NO_IMAGE__")
        for img in images:
            key = ref_image_key(img, name)
            if key is not None and key == ref_passage_key(pid, rule):
                pairs.append(f"{pid}|||{img}")
    return pairs


def ref_text_qrels(rows):
    out = {}
    for row in rows:
        qid = str(row["id"])
        for d in real(row["negative_ids"]):
            out[(qid, d)] = EXCLUDED
        for d in real(row["gold_ids"]):
            out[(qid, d)] = 1
    return out


def ref_task3_qrels(rows):
    return {(str(r["id"]), p): 1 for r in rows for p in paths(r["positive_images"])}


def ref_task4(domain, name, rule):
    """(qrels dict, orphan positives, undecodable positives)."""
    decodable = set(ref_decodable(domain))
    out, orphans, broken = {}, 0, 0
    for row in domain.multimodal:
        qid, gold = str(row["id"]), real(row["gold_ids"])
        positives = list(dict.fromkeys(paths(row["positive_images"])))
        for neg in paths(row["negative_images"]):
            if neg in positives:
                continue
            for pid in domain.passages:
                if ref_passage_key(pid, rule) == ref_image_key(neg, name):
                    out[(qid, f"{pid}|||{neg}")] = EXCLUDED
        for g in gold:
            out[(qid, f"{g}|||__NO_IMAGE__")] = 1
        for img in positives:
            matching = [g for g in gold if ref_passage_key(g, rule) == ref_image_key(img, name)]
            if not matching:
                orphans += 1
            elif img not in decodable:
                broken += 1
            else:
                for g in matching:
                    out[(qid, f"{g}|||{img}")] = 2
    return out, orphans, broken


def ref_official_ndcg10(qrels, run):
    """Official protocol: drop excluded, cut to 1,000 (score desc, doc id desc), linear-gain
    nDCG@10, mean over the queries that have judgements >= 0."""
    per_query = {}
    for (qid, doc), label in qrels.items():
        per_query.setdefault(qid, {})[doc] = label
    scores = []
    for qid, labels in per_query.items():
        gains = sorted((g for g in labels.values() if g >= 0), reverse=True)
        if not gains:
            continue
        ranked = sorted(run.get(qid, {}).items(), key=lambda item: (-item[1], _desc(item[0])))
        ranked = [d for d, _ in ranked if labels.get(d, 0) >= 0][:1000]
        dcg = sum(max(labels.get(d, 0), 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
        ideal = sum(g / math.log2(i + 2) for i, g in enumerate(gains[:10]))
        scores.append(dcg / ideal if ideal else 0.0)
    return sum(scores) / len(scores)


def _desc(doc_id):
    return tuple(-ord(c) for c in doc_id) + (1,)


# --- ids and records ------------------------------------------------------------------------


def test_every_domain_has_a_corpus_and_five_task_ids():
    ids = set(ir_datasets.registry)
    domains = mmbright_hub_domains_all()
    assert len(domains) == 29
    for d in domains:
        expected = {f"mm-bright/{d}"} | {
            f"mm-bright/{d}/{t}" for t in ("task1", "task2", "task3", "task4", "task4-legacy")
        }
        assert expected <= ids
    assert ir_bright.registry.is_ours("mm-bright/physics/task4-legacy")


def mmbright_hub_domains_all():
    return (
        "academia apple askubuntu aviation bioacoustics bioinformatics biology bitcoin chemistry "
        "christianity crypto earthscience economics gaming gis islam law math medicalsciences "
        "philosophy physics pm psychology quant quantumcomputing robotics salesforce "
        "sustainability travel"
    ).split()


def test_counts_and_documentation_are_known_without_downloading(mm):
    physics = ir_datasets.load("mm-bright/physics/task1")
    assert physics.docs_count() == 338_291 and physics.queries_count() == 100
    assert ir_datasets.load("mm-bright/physics/task3").docs_count() == 1_184
    assert ir_datasets.load("mm-bright/physics/task2").queries_count() == 81
    doc = ir_datasets.load("mm-bright/biology/task4").documentation()
    assert doc["official_measures"] == ["nDCG@10"] and "2601.09562" in doc["bibtex"]
    assert mm.requests == []


def test_text_corpus_is_the_documents_config(mm):
    domain = mm.domains["academia"]
    docs = list(ir_datasets.load("mm-bright/academia").docs_iter())
    assert [(d.doc_id, d.text) for d in docs] == list(domain.passages.items())


def test_task1_queries_keep_row_order_repeated_texts_and_string_ids(mm):
    rows = mm.domains["bioinformatics"].examples
    queries = list(ir_datasets.load("mm-bright/bioinformatics/task1").queries_iter())
    assert [q.query_id for q in queries] == [str(r["id"]) for r in rows]
    assert len({q.text for q in queries}) == 1 and len(queries) == 3
    assert queries[0].gold_answers == ("Use BWA.",)
    academia = list(ir_datasets.load("mm-bright/academia/task1").queries_iter())
    assert academia[1].gold_answers == ()


def test_multimodal_queries_carry_resolvable_images_in_row_order(mm):
    domain = mm.domains["academia"]
    queries = {q.query_id: q for q in ir_datasets.load("mm-bright/academia/task2").queries_iter()}
    assert queries["0"].image_ids == ("academia/query_0/image_1.png",)  # missing.png skipped
    assert queries["0"].images == (domain.query_images["academia/query_0/image_1.png"][0],)
    assert queries["1"].image_ids == ("academia/query_1/image_1.webp",)  # broken.png skipped
    assert queries["2"].image_ids == () and queries["2"].images == ()
    assert queries["0"].gold_answers == ("Ask the author.", "Cite the thesis.")


# --- qrels rules ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["academia", "biology", "bioinformatics"])
def test_task1_gold_is_one_and_negative_ids_are_excluded_without_na(mm, name):
    expected = ref_text_qrels(mm.domains[name].examples)
    assert qrels_of(f"mm-bright/{name}/task1") == expected
    assert ("0", "N/A") not in expected


@pytest.mark.parametrize("name", ["academia", "biology", "bioinformatics"])
def test_task2_qrels_come_from_the_multimodal_rows(mm, name):
    assert qrels_of(f"mm-bright/{name}/task2") == ref_text_qrels(mm.domains[name].multimodal)


def academia_with_gold_negatives():
    """Academia whose query 1 lists its gold passage among its negative ids too."""
    domain = mmbright_hub.academia()
    gold = "academia/b0000001_1.txt"
    domain.examples[1]["negative_ids"] = [gold, "academia/c0ffee00_7.txt"]
    domain.multimodal[1]["negative_ids"] = [gold]
    return domain


@pytest.mark.parametrize("task", ["task1", "task2"])
def test_a_gold_id_that_is_also_negative_is_relevant_and_removed_from_the_ranking(
    hub, hub_root, task
):
    # Official Tasks 1 and 2 (DataLoader.load_queries in src/data.py): each gold id is
    # relevant (1), the query's negative_ids except "N/A" are excluded, and excluded ids are
    # removed from the ranking, so a gold id listed as negative is both.
    from ir_bright.measures import Official

    mmbright_hub.write_mmbright(hub_root, {"academia": academia_with_gold_negatives})
    gold = "academia/b0000001_1.txt"
    qrels = list(ir_datasets.load(f"mm-bright/academia/{task}").qrels_iter())
    mine = {(q.doc_id, q.relevance) for q in qrels if q.query_id == "1"}
    assert (gold, 1) in mine and (gold, EXCLUDED) in mine
    run = {"1": {gold: 3.0, "academia/a7beca61_6123.txt": 2.0, "academia/README.txt": 1.0}}
    measure = Official(ir_measures.nDCG @ 10)
    only_query_1 = [q for q in qrels if q.query_id == "1"]
    # the gold passage cannot occupy a rank, yet still counts in the ideal ranking: 0
    assert ir_measures.calc_aggregate([measure], only_query_1, run)[measure] == 0.0
    summary = mmbright.summary(f"mm-bright/academia/{task}")
    rows = (
        academia_with_gold_negatives().examples
        if task == "task1"
        else academia_with_gold_negatives().multimodal
    )
    assert summary["qrels_1"] == sum(len(set(real(r["gold_ids"]))) for r in rows)
    assert summary["excluded"] == sum(len(set(real(r["negative_ids"]))) for r in rows)


def test_task3_positives_are_normalised_kept_when_absent_and_nothing_is_excluded(mm):
    qrels = qrels_of("mm-bright/academia/task3")
    assert qrels == ref_task3_qrels(mm.domains["academia"].multimodal)
    assert ("0", "academia/academia_a7beca61_0002/image_1.webp") in qrels  # was backslashed
    assert ("3", "academia/academia_a7beca61_0009/image_9.png") in qrels  # not in the corpus
    assert EXCLUDED not in qrels.values()
    assert "2" not in {q for q, _ in qrels}  # no positives, no qrels


@pytest.mark.parametrize("name", ["academia", "biology", "bioinformatics"])
@pytest.mark.parametrize("task,rule", [("task4", "paper"), ("task4-legacy", "legacy")])
def test_task4_qrels_follow_the_key_rule(mm, name, task, rule):
    expected, _, _ = ref_task4(mm.domains[name], name, rule)
    assert qrels_of(f"mm-bright/{name}/{task}") == expected


def test_task4_exclusions_spare_positive_negatives_and_text_negatives(mm):
    qrels = qrels_of("mm-bright/academia/task4")
    webp = "academia/academia_a7beca61_0002/image_1.webp"
    png = "academia/academia_a7beca61_0002/image_2.png"
    assert qrels[("0", f"academia/a7beca61_6123.txt|||{webp}")] == 2  # positive and negative
    assert qrels[("0", f"academia/a7beca61_6124.txt|||{webp}")] == 2
    assert qrels[("0", f"academia/a7beca61_6123.txt|||{png}")] == EXCLUDED  # gold included
    assert ("0", "academia/c0ffee00_7.txt|||__NO_IMAGE__") not in qrels  # text negative
    jpg = "academia/academia_b0000001_0001/image_1.jpg"
    assert qrels[("0", f"academia/b0000001_1.txt|||{jpg}")] == EXCLUDED
    assert qrels[("1", f"academia/b0000001_1.txt|||{jpg}")] == 2
    assert not any("image_2.svg" in d for _, d in qrels)  # undecodable positive skipped


def test_legacy_rule_never_pairs_chunked_biology_passages(mm):
    paper = qrels_of("mm-bright/biology/task4")
    legacy = qrels_of("mm-bright/biology/task4-legacy")
    assert sorted(paper.values()) == [EXCLUDED, EXCLUDED, 1, 1, 2, 2]
    assert sorted(legacy.values()) == [1, 1]
    ids = [d.doc_id for d in ir_datasets.load("mm-bright/biology/task4-legacy").docs_iter()]
    assert all(i.endswith("|||__NO_IMAGE__") for i in ids) and len(ids) == 4


# --- corpora --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["academia", "biology", "bioinformatics"])
@pytest.mark.parametrize("task,rule", [("task4", "paper"), ("task4-legacy", "legacy")])
def test_pair_corpus_has_the_reference_pair_ids(mm, name, task, rule):
    docs = list(ir_datasets.load(f"mm-bright/{name}/{task}").docs_iter())
    assert [d.doc_id for d in docs] == ref_pairs(mm.domains[name], name, rule)


def test_pair_docs_carry_text_and_image_bytes(mm):
    domain = mm.domains["academia"]
    docs = {d.doc_id: d for d in ir_datasets.load("mm-bright/academia/task4").docs_iter()}
    webp = "academia/academia_a7beca61_0002/image_1.webp"
    pair = docs[f"academia/a7beca61_6123.txt|||{webp}"]
    assert pair.passage_id == "academia/a7beca61_6123.txt" and pair.image_id == webp
    assert (
        pair.text == domain.passages[pair.passage_id] and pair.image == domain.doc_images[webp][0]
    )
    alone = docs["academia/README.txt|||__NO_IMAGE__"]
    assert alone.text == "" and alone.image_id is None and alone.image is None


def test_pair_ids_and_image_ids_are_looked_up_without_a_scan(mm):
    domain = mm.domains["academia"]
    store = ir_datasets.load("mm-bright/academia/task4").docs_store()
    jpg = "academia/academia_b0000001_0001/image_1.jpg"
    svg = "academia/academia_b0000001_0001/image_2.svg"
    found = store.get_many(
        [
            f"academia/b0000001_1.txt|||{jpg}",
            "academia/c0ffee00_7.txt|||__NO_IMAGE__",
            f"academia/b0000001_1.txt|||{svg}",  # undecodable: not a pair
            f"academia/c0ffee00_7.txt|||{jpg}",  # keys differ: not a pair
            "academia/nope.txt|||__NO_IMAGE__",
            "no separator",
        ]
    )
    assert set(found) == {
        f"academia/b0000001_1.txt|||{jpg}",
        "academia/c0ffee00_7.txt|||__NO_IMAGE__",
    }
    pair = store.get(f"academia/b0000001_1.txt|||{jpg}")
    assert pair.image == domain.doc_images[jpg][0] and pair.text == "Writing a rebuttal letter"
    images = ir_datasets.load("mm-bright/academia/task3").docs_store()
    assert images.get(jpg).image == domain.doc_images[jpg][0] and images.get(jpg).format == "jpeg"
    assert images.get_many([svg, "academia/none.png"]) == {}


def test_task3_corpus_is_the_decodable_images_with_their_format(mm):
    domain = mm.domains["academia"]
    docs = list(ir_datasets.load("mm-bright/academia/task3").docs_iter())
    assert [d.doc_id for d in docs] == ref_decodable(domain)
    assert {d.doc_id: d.format for d in docs} == {
        p: fmt for p, (_, fmt) in domain.doc_images.items() if fmt
    }
    assert all(d.image == domain.doc_images[d.doc_id][0] for d in docs)


def test_a_repeated_image_path_is_looked_up_as_it_is_iterated(hub, hub_root):
    # Official Task 3 (load_image_corpus_paths in src/data.py): the corpus is the images
    # that decode, doc id = the path. With a path repeated in document_images (first row
    # decodes, the later one does not), the image served by lookups, pairs and iteration must
    # be one and the same decodable file.
    import pyarrow as pa
    import pyarrow.parquet as pq

    domain = mmbright_hub.write_mmbright(hub_root, {"academia": mmbright_hub.academia})["academia"]
    webp = "academia/academia_a7beca61_0002/image_1.webp"
    good = domain.doc_images[webp][0]
    rows = [(p, data) for p, (data, _) in domain.doc_images.items()] + [
        (webp, mmbright_hub.CORRUPT)
    ]
    target = hub_root / mmbright_hub.REPO / repo_path("document_images", "academia")
    pq.write_table(pa.table({"path": [p for p, _ in rows], "bytes": [b for _, b in rows]}), target)
    iterated = {d.doc_id: d.image for d in ir_datasets.load("mm-bright/academia/task3").docs_iter()}
    assert iterated[webp] == good
    assert ir_datasets.load("mm-bright/academia/task3").docs_store().get(webp).image == good
    pairs = ir_datasets.load("mm-bright/academia/task4").docs_store()
    assert pairs.get(f"academia/a7beca61_6123.txt|||{webp}").image == good


def test_decodability_is_decided_once_and_cached_on_disk(mm, monkeypatch):
    from ir_bright.mmbright import images

    calls = []
    real_decode = images.decode_format
    monkeypatch.setattr(images, "decode_format", lambda data: calls.append(1) or real_decode(data))
    list(ir_datasets.load("mm-bright/academia/task3").docs_iter())
    assert len(calls) == len(mm.domains["academia"].doc_images)
    verdicts = list(ir_bright.hub.cache_home().rglob("*.decodable.json"))
    assert [v.name for v in verdicts] == ["document_images.parquet.decodable.json"]
    mmbright_collection._domain_at.cache_clear()  # as a new process would start
    list(ir_datasets.load("mm-bright/academia/task3").docs_iter())
    list(ir_datasets.load("mm-bright/academia/task4").docs_iter())
    assert len(calls) == len(mm.domains["academia"].doc_images)


@pytest.mark.parametrize(
    "damaged",
    [
        "{ cut short",
        "null",
        '{"version": 1}',
        '{"version": 1, "decodable": {}, "undecodable": []}',
        '{"version": 2, "decodable": [], "undecodable": {}}',
        None,  # the manifest removed
    ],
)
def test_a_damaged_decodability_verdict_is_rebuilt_with_one_warning(mm, caplog, damaged):
    import logging

    from ir_bright.store import derived

    clean = [d.doc_id for d in ir_datasets.load("mm-bright/academia/task3").docs_iter()]
    assert clean
    (verdict,) = ir_bright.hub.cache_home().rglob("*.decodable.json")
    if damaged is None:
        derived.manifest_path(verdict).unlink()
    else:
        verdict.write_text(damaged)
    mmbright_collection._domain_at.cache_clear()  # as a new process would start
    caplog.set_level(logging.WARNING)
    assert [d.doc_id for d in ir_datasets.load("mm-bright/academia/task3").docs_iter()] == clean
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and str(verdict) in warnings[0]


def test_a_verdict_that_cannot_be_rebuilt_is_a_one_line_error_naming_it(mm, monkeypatch):
    from ir_bright.store import exclusive

    list(ir_datasets.load("mm-bright/academia/task3").docs_iter())
    (verdict,) = ir_bright.hub.cache_home().rglob("*.decodable.json")
    verdict.write_text("null")
    mmbright_collection._domain_at.cache_clear()

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(exclusive, "create_exclusive", refuse)
    with pytest.raises(ir_bright.errors.CacheError) as error:
        list(ir_datasets.load("mm-bright/academia/task3").docs_iter())
    assert str(verdict) in str(error.value) and "\n" not in str(error.value)


def test_a_huge_image_is_judged_in_bounded_memory_without_printing_warnings(recwarn):
    import resource

    from PIL import Image

    from ir_bright.mmbright import images

    buffer = io.BytesIO()
    Image.new("L", (12000, 12000)).save(buffer, "PNG")  # 144 M pixels: a bomb warning
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with images.counted_warnings() as warned:
        assert images.decode_format(buffer.getvalue()) == "png"
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert warned[0] == 1 and len(recwarn) == 0
    assert grown_mb < 200


# --- downloads ------------------------------------------------------------------------------


def test_task1_never_downloads_images(mm):
    dataset = ir_datasets.load("mm-bright/academia/task1")
    list(dataset.queries_iter())
    list(dataset.qrels_iter())
    list(dataset.docs_iter()[:2])
    assert sorted(mm.requests) == [
        repo_path("documents", "academia"),
        repo_path("examples", "academia"),
    ]
    assert not any(config in r for r in mm.requests for config in IMAGE_CONFIGS)


def test_task3_downloads_only_what_it_reads(mm):
    list(ir_datasets.load("mm-bright/biology/task3").qrels_iter())
    assert mm.requests == [repo_path("examples_multimodal", "biology")]
    list(ir_datasets.load("mm-bright/biology/task3").docs_iter())
    assert "documents/biology.parquet" not in mm.requests


def test_a_corrupted_download_fails_the_sha256_check(mm):
    from ir_bright.errors import ChecksumError

    mm.corrupt.add(repo_path("examples", "academia"))
    with pytest.raises(ChecksumError, match="sha256"):
        list(ir_datasets.load("mm-bright/academia/task1").queries_iter())


# --- scoring --------------------------------------------------------------------------------


def test_task4_ndcg10_of_a_run_by_hand(mm):
    from ir_bright.measures import Official

    webp = "academia/academia_a7beca61_0002/image_1.webp"
    png = "academia/academia_a7beca61_0002/image_2.png"
    jpg = "academia/academia_b0000001_0001/image_1.jpg"
    run = {
        "0": {
            f"academia/a7beca61_6123.txt|||{png}": 6.0,  # excluded: dropped from the ranking
            f"academia/a7beca61_6123.txt|||{webp}": 5.0,  # 2
            "academia/c0ffee00_7.txt|||__NO_IMAGE__": 4.0,  # 0 (text negatives stay)
            "academia/a7beca61_6124.txt|||__NO_IMAGE__": 3.0,  # 1
            f"academia/b0000001_1.txt|||{jpg}": 2.0,  # excluded
            f"academia/a7beca61_6124.txt|||{webp}": 1.0,  # 2
        }
    }
    qrels = [
        q for q in ir_datasets.load("mm-bright/academia/task4").qrels_iter() if q.query_id == "0"
    ]
    dcg = 2 / math.log2(2) + 0 / math.log2(3) + 1 / math.log2(4) + 2 / math.log2(5)
    ideal = 2 / math.log2(2) + 2 / math.log2(3) + 1 / math.log2(4) + 1 / math.log2(5)
    # DCG 2 + 0 + 0.5 + 0.861353 = 3.361353; ideal 2 + 1.261860 + 0.5 + 0.430677 = 4.192537
    assert dcg / ideal == pytest.approx(3.361353 / 4.192537, abs=1e-6)
    score = ir_measures.calc_aggregate([Official(ir_measures.nDCG @ 10)], qrels, run)
    assert score[Official(ir_measures.nDCG @ 10)] == pytest.approx(dcg / ideal, abs=1e-12)


@pytest.mark.parametrize("name", ["academia", "biology"])
@pytest.mark.parametrize("task", ["task1", "task2", "task3", "task4", "task4-legacy"])
def test_official_ndcg10_of_random_runs_matches_the_reference(mm, name, task):
    from ir_bright.measures import Official

    domain = mm.domains[name]
    rule = "legacy" if task == "task4-legacy" else "paper"
    rows = domain.examples if task == "task1" else domain.multimodal
    if task in ("task1", "task2"):
        qrels, docs = ref_text_qrels(rows), list(domain.passages)
    elif task == "task3":
        qrels, docs = ref_task3_qrels(rows), ref_decodable(domain)
    else:
        qrels, docs = ref_task4(domain, name, rule)[0], ref_pairs(domain, name, rule)
    rng = random.Random(f"{name}/{task}")
    run = {
        str(r["id"]): {d: float(rng.randint(0, 5)) for d in rng.sample(docs, len(docs))}
        for r in rows
    }
    measure = Official(ir_measures.nDCG @ 10)
    dataset_qrels = list(ir_datasets.load(f"mm-bright/{name}/{task}").qrels_iter())
    got = ir_measures.calc_aggregate([measure], dataset_qrels, run)[measure]
    assert got == pytest.approx(ref_official_ndcg10(qrels, run), abs=1e-9)


# --- summary and dependencies ---------------------------------------------------------------


def test_summary_counts_of_every_task(mm):
    name, domain = "academia", mm.domains["academia"]
    decodable = ref_decodable(domain)
    qrels4, orphans, broken = ref_task4(domain, name, "paper")
    task4 = mmbright.summary("mm-bright/academia/task4")
    pairs = ref_pairs(domain, name, "paper")
    assert task4["docs"] == len(pairs) == 12
    assert task4["image_pairs"] == sum(not p.endswith("__NO_IMAGE__") for p in pairs)
    assert task4["queries"] == len(domain.multimodal) and task4["scored_queries"] == 4
    for label, key in ((2, "qrels_2"), (1, "qrels_1"), (EXCLUDED, "excluded")):
        assert task4[key] == sum(v == label for v in qrels4.values())
    assert (
        (task4["orphan_positives"], task4["undecodable_positives"]) == (orphans, broken) == (1, 2)
    )
    assert task4["decodable_images"] == len(decodable) and task4["undecodable_images"] == 2
    assert task4["unresolvable_query_images"] == 2
    assert task4["query_images_missing"] == 1 and task4["query_images_undecodable"] == 1
    task3 = mmbright.summary("mm-bright/academia/task3")
    qrels3 = ref_task3_qrels(domain.multimodal)
    assert task3["docs"] == len(decodable) and task3["qrels_1"] == len(qrels3)
    assert task3["scored_queries"] == len({q for q, _ in qrels3}) and task3["excluded"] == 0
    absent = [p for _, p in qrels3 if p not in domain.doc_images]
    broken3 = [p for _, p in qrels3 if p in domain.doc_images and p not in decodable]
    assert (task3["orphan_positives"], task3["undecodable_positives"]) == (
        len(absent),
        len(broken3),
    )
    task1 = mmbright.summary("mm-bright/academia/task1")
    qrels1 = ref_text_qrels(domain.examples)
    assert task1 == {
        "docs": len(domain.passages),
        "queries": 3,
        "scored_queries": 2,
        "qrels_1": sum(v == 1 for v in qrels1.values()),
        "excluded": sum(v == EXCLUDED for v in qrels1.values()),
    }
    assert mmbright.summary("mm-bright/academia") == {"docs": len(domain.passages)}
    assert all(isinstance(v, int) for v in task4.values())


def test_summary_refuses_other_ids():
    with pytest.raises(KeyError, match="not an MM-BRIGHT id"):
        mmbright.summary("mm-bright/nowhere/task1")


def test_missing_pillow_is_a_one_line_error(mm, monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL.Image", None)  # import fails as if not installed
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(MissingDependencyError) as info:
        list(ir_datasets.load("mm-bright/academia/task3").docs_iter())
    message = str(info.value)
    assert "\n" not in message and "pip install 'ir_bright[images]'" in message
    list(ir_datasets.load("mm-bright/academia/task1").queries_iter())  # task 1 needs no Pillow


def test_a_huge_jpeg_is_decoded_at_reduced_scale_and_a_broken_one_refused():
    from PIL import Image

    from ir_bright.mmbright import images

    buffer = io.BytesIO()
    Image.new("RGB", (9000, 5000), (10, 200, 30)).save(buffer, "JPEG", quality=20)
    data = buffer.getvalue()
    with images.counted_warnings():
        assert images.decode_format(data) == "jpeg"
        assert images.decode_format(data[: len(data) // 3]) is None  # cut short: no pixels
