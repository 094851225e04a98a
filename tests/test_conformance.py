"""ir_bright against the contracts of the tools around it, read from those tools' own behaviour.

- ir_datasets' exporter (``python -m ir_datasets export``, every format it offers) on every id
  family and entity type: non-empty rows holding every text field, equal to ``ir-bright export``.
- ir_datasets' metadata contract: every entity type an id provides has a ``count``.
- ir_measures with ``import ir_bright`` behaves as without it (compared with a subprocess that
  never imports ir_bright), and ``Official`` registry entries behave as stock ones.
- ``ir-bright evaluate --stock`` gives plain ir_measures' values.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import subprocess
import sys
from contextlib import redirect_stdout

import ir_datasets
import pytest
from ir_datasets.commands import export as irds_export

from ir_bright.cli import main
from ir_bright.families import family
from tests.fixtures import bright_hub, browsecomp_hub, mmbright_hub, rarb_hub
from tests.helpers import write_run

pytest.importorskip("PIL")

# Record fields that hold encoded images: no text format carries them (ir_datasets' exporter
# skips bytes); every other field must be exported.
BINARY_FIELDS = {"image", "images"}
FORMATS = {"docs": ("tsv", "jsonl"), "queries": ("tsv", "jsonl"), "qrels": ("trec", "tsv", "jsonl")}
# One id of every family, with the entity types it provides.
FAMILIES = {
    "bright/biology": ("docs", "queries", "qrels"),
    "bright/biology-long": ("docs", "queries", "qrels"),
    "bright/aops/gpt4-reason": ("docs", "queries", "qrels"),
    "bright/biology-long/claude-3-opus-reason": ("docs", "queries", "qrels"),
    "mm-bright/academia": ("docs",),
    "mm-bright/academia/task1": ("docs", "queries", "qrels"),
    "mm-bright/academia/task2": ("docs", "queries", "qrels"),
    "mm-bright/academia/task3": ("docs", "queries", "qrels"),
    "mm-bright/academia/task4": ("docs", "queries", "qrels"),
    "mm-bright/academia/task4-legacy": ("docs", "queries", "qrels"),
    "browsecomp-plus": ("docs", "queries"),
    "browsecomp-plus/evidence": ("docs", "queries", "qrels"),
    "rar-b/winogrande": ("docs", "queries", "qrels"),
}
CASES = [
    (dataset_id, entity, fmt)
    for dataset_id, entities in FAMILIES.items()
    for entity in entities
    for fmt in FORMATS[entity]
]


@pytest.fixture
def both(bright, hub_root):
    """The fixture BRIGHT, MM-BRIGHT, BrowseComp-Plus and RAR-b on one loopback hub."""
    mmbright_hub.write_mmbright(hub_root)
    browsecomp_hub.write_browsecomp(hub_root)
    rarb_hub.write_rarb(hub_root)
    return bright


def irds_export_output(*argv: str) -> str:
    """What ir_datasets' own ``export`` command writes for ``argv``, in this process."""
    out = io.StringIO()
    with redirect_stdout(out):
        irds_export.main(list(argv))
    return out.getvalue()


def expected_json(record) -> dict:
    """A record as one JSON row: every field but encoded images; tuples as lists."""
    return {
        name: list(value) if isinstance(value, tuple) else value
        for name, value in zip(record._fields, record)
        if name not in BINARY_FIELDS
    }


@pytest.mark.slow
@pytest.mark.parametrize("dataset_id,entity,fmt", CASES)
def test_ir_datasets_export_equals_ir_bright_export_and_is_not_empty(
    both, capsys, dataset_id, entity, fmt
):
    import ir_bright  # noqa: F401 - registers the ids, as a user's import does

    theirs = irds_export_output(dataset_id, entity, "--format", fmt)
    capsys.readouterr()
    assert main(["export", dataset_id, entity, "--format", fmt]) == 0
    ours = capsys.readouterr().out
    assert theirs == ours
    records = list(getattr(ir_datasets.load(dataset_id), f"{entity}_iter")())
    lines = theirs.splitlines()
    assert records and len(lines) == len(records)
    if fmt == "jsonl":
        assert [json.loads(line) for line in lines] == [expected_json(r) for r in records]
    elif fmt == "trec":
        assert lines == [f"{q.query_id} 0 {q.doc_id} {q.relevance}" for q in records]
    else:  # tsv: at least the id and, where there is one, the text
        for line, record in zip(lines, records):
            columns = line.split("\t")
            assert columns[0] == record[0]
            if "text" in record._fields:
                assert " ".join(record.text.split()) in " ".join(columns)


@pytest.mark.slow
def test_python_m_ir_datasets_export_with_ir_bright_imported_prints_full_rows(both):
    """The command line itself: ``python -m ir_datasets export`` in a process that imported
    ir_bright (ir_datasets has no plugin discovery, so the import is the user's)."""
    code = "import ir_bright, runpy; runpy.run_module('ir_datasets', run_name='__main__')"
    argv = ["export", "bright/biology", "queries", "--format", "jsonl"]
    proc = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, env=os.environ
    )
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    fixture = bright_hub.biology()["examples"]
    assert [(r["query_id"], r["text"], r["gpt4_reason"]) for r in rows] == [
        (e["id"], e["query"], bright_hub.llm_text("gpt4", e["id"])) for e in fixture
    ]


def record_types():
    """Every record type an ir_bright id declares (docs, queries, qrels), each once."""
    import ir_bright.registry as registry

    registry.register()
    found = {}
    for dataset_id in registry.our_ids():
        dataset = ir_datasets.load(dataset_id)
        for entity in ("docs", "queries", "qrels"):
            if getattr(dataset, f"has_{entity}")():
                cls = getattr(dataset, f"{entity}_cls")()
                found[cls.__name__] = cls
    return found


def test_record_annotations_are_runtime_types_that_build_an_instance():
    """ir_datasets' documentation and tests read ``__annotations__`` as types (field type
    listings, instances built field by field from them); strings would break both."""
    import typing

    for name, cls in record_types().items():
        annotations = cls.__annotations__
        assert list(annotations) == list(cls._fields), name
        values = []
        for field, kind in annotations.items():
            assert not isinstance(kind, str), f"{name}.{field} is annotated by a string"
            if typing.get_origin(kind) is tuple:
                values.append(tuple(typing.get_args(kind)[0]() for _ in range(2)))
            else:
                values.append(kind())
        instance = cls(*values)
        if hasattr(instance, "default_text"):
            assert isinstance(instance.default_text(), str), name


# --- ir_measures: stock behaviour with and without ``import ir_bright`` ------------------------

QRELS = "q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 0\nq1 0 d9 -100\nq2 0 d4 1\nq2 0 d5 1\nq3 0 d6 1\n"
RUN = "".join(
    f"{q} Q0 {d} {rank} {score} run\n"
    for q, docs in {"q1": "d9 d3 d1 d7 d2", "q2": "d5 d8 d4", "q4": "d1"}.items()
    for rank, (d, score) in enumerate(zip(docs.split(), [9.0, 8.5, 8.0, 7.25, 7.0]))
)
STOCK_MEASURES = "nDCG@10 P@5 R@3 AP RR Rprec Success@1 NumRet NumRel Judged@5 SetP Bpref"
# What a user of ir_measures sees, printed; run once in a process that imports ir_bright first.
PROBE = (
    r"""
import sys
import ir_measures
stock_measures = set(ir_measures.measures.registry)
stock_providers = set(ir_measures.providers.registry)
if sys.argv[1] == "with":
    import ir_bright  # noqa - adds entries of its own, which are not printed

def show(label, fn):
    try:
        print(label, "->", fn())
    except Exception as exc:
        print(label, "raises", type(exc).__name__, exc)

qrels, run = list(ir_measures.read_trec_qrels(QRELS)), list(ir_measures.read_trec_run(RUN))
for name, measure in ir_measures.measures.registry.items():
    if name in stock_measures:
        agg = measure.aggregator()
        agg.add(0.5)
        print(name, str(measure), repr(measure), type(agg).__name__, agg.result(), measure.DEFAULT)
texts = ["nDCG@10", "P(rel=2)@5", "nDCG(dcg='exp-log2')@20", "R@1000", "MRR", "NumRelRet",
         "foo", "nDCG@x", "nDCG(", "", "nDCG@10@5", "official(nDCG@10)", "nDCG(x=1)"]
for text in texts:
    show(f"parse_measure {text!r}", lambda: repr(ir_measures.parse_measure(text)))
    show(f"util.parse_measure {text!r}", lambda: repr(ir_measures.util.parse_measure(text)))
for text in ["ndcg_cut.10", "ndcg_cut_10", "P.5", "map", "recall.100", "bad.x", "ndcg"]:
    show(f"parse_trec_measure {text!r}", lambda: ir_measures.parse_trec_measure(text))
measures = [ir_measures.parse_measure(m) for m in STOCK_MEASURES.split()]
pipeline = ir_measures.DefaultPipeline
show("calc_aggregate", lambda: sorted((str(m), v) for m, v in
                                      pipeline.calc_aggregate(measures, qrels, run).items()))
show("iter_calc", lambda: sorted(map(str, pipeline.iter_calc(measures, qrels, run))))
show("supports", lambda: [pipeline.supports(m) for m in measures])
show("run_inputs", lambda: sorted(pipeline.run_inputs(measures)))
show("qrel_inputs", lambda: sorted(pipeline.qrel_inputs(measures)))
show("unsupported", lambda: pipeline.calc_aggregate([ir_measures.RBP(p=0.5)], qrels, run))
show("evaluator", lambda: sorted(map(str, pipeline.evaluator(measures, qrels).iter_calc(run))))
for name, provider in ir_measures.providers.registry.items():
    if name in stock_providers:
        print(name, [provider.supports(m) for m in measures])
""".replace("QRELS", repr(QRELS))
    .replace("RUN", repr(RUN))
    .replace("STOCK_MEASURES", repr(STOCK_MEASURES))
)


def probe(mode: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True
    )
    return proc.stdout


@pytest.mark.slow
def test_stock_ir_measures_behaves_the_same_with_ir_bright_imported():
    without, with_import = probe("without"), probe("with")
    assert "nDCG@10" in without and "raises NameError" in without  # the probe probes
    assert with_import == without


@pytest.mark.slow
@pytest.mark.parametrize(
    "options",
    [[], ["-q"], ["-q", "-n"], ["-o", "jsonl"], ["-p", "6"], ["--provider", "pytrec_eval"]],
)
def test_python_m_ir_measures_prints_the_same_with_ir_bright_imported(tmp_path, options):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    argv = [str(tmp_path / "qrels"), str(tmp_path / "run"), "nDCG@10 P@5 R@3 AP RR", *options]
    outputs = []
    for prefix in ("", "import ir_bright; "):
        code = f"{prefix}import runpy; runpy.run_module('ir_measures', run_name='__main__')"
        proc = subprocess.run(
            [sys.executable, "-c", code, *argv], capture_output=True, text=True, check=True
        )
        outputs.append((proc.stdout, proc.stderr))
    assert outputs[0][0].strip() and outputs[1] == outputs[0]


def test_official_registry_entry_behaves_like_a_stock_entry():
    import ir_measures

    import ir_bright  # noqa: F401

    entry = ir_measures.measures.registry["Official"]
    stock = ir_measures.measures.registry["nDCG"]
    assert (str(entry), repr(entry)) == ("Official", "Official")  # as ("nDCG", "nDCG")
    assert type(entry.aggregator()) is type(stock.aggregator())
    aggregator = entry.aggregator()
    for value in (0.25, 0.75):
        aggregator.add(value)
    assert aggregator.result() == 0.5
    wrapped = ir_measures.parse_measure("Official(nDCG@10)")
    assert str(wrapped) == repr(wrapped) == "Official(nDCG@10)"
    assert type(wrapped.aggregator()) is type((ir_measures.nDCG @ 10).aggregator())
    # parse errors: the stock kinds, which ir_measures' command reports as such
    with pytest.raises(NameError):  # "unknown measure", as for a stock name
        ir_measures.parse_measure("Official(foo)")
    for text in ("Official(nDCG@x)", "Official(nDCG(", "Official"):
        with pytest.raises(ValueError):  # "syntax error"
            ir_measures.parse_measure(text)


@pytest.mark.slow
def test_python_m_ir_measures_scores_official_measures_per_query_with_summary(tmp_path):
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "run").write_text(RUN)
    code = "import ir_bright, runpy; runpy.run_module('ir_measures', run_name='__main__')"
    argv = [str(tmp_path / "qrels"), str(tmp_path / "run"), "Official(nDCG@10) Official(RR)", "-q"]
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = {
        tuple(line.split("\t")[:2]): float(line.split("\t")[2])
        for line in proc.stdout.split("\n")
        if line
    }
    # q1 without the excluded d9: d3 (0), d1 (1), d7, d2 (2) -> RR 1/2; q2: d5 first -> RR 1
    assert rows[("q1", "Official(RR)")] == 0.5 and rows[("q2", "Official(RR)")] == 1.0
    assert rows[("q3", "Official(RR)")] == 0.0
    assert rows[("all", "Official(RR)")] == pytest.approx(0.5, abs=1e-4)


# --- ir-bright evaluate --stock -----------------------------------------------------------------

STOCK_TEST_ID = "ir-bright-test/stock"


def stock_reference(name, qrels, run):
    """Stock trec_eval semantics, written out: nothing removed from the ranking, nothing cut,
    a negative label is a gain of 0; the mean over every query of the qrels."""
    from tests import protocol

    labels: dict[str, dict[str, int]] = {}
    for query_id, doc_id, label in qrels:
        labels.setdefault(query_id, {})[doc_id] = max(label, 0)
    scores: dict[str, dict[str, float]] = {}
    for query_id, doc_id, score in run:
        scores.setdefault(query_id, {})[doc_id] = score
    values = [
        protocol.value(name, protocol.ranking(scores.get(q, {}), set(), 10**9), judged)
        for q, judged in labels.items()
    ]
    return sum(values) / len(values)


@pytest.fixture
def tiny(monkeypatch):
    from tests import protocol

    def add(qrels):
        monkeypatch.setitem(
            ir_datasets.registry._registered,
            STOCK_TEST_ID,
            protocol.tiny_dataset(qrels, ("nDCG@10",), STOCK_TEST_ID),
        )

    return add


def test_stock_values_equal_plain_ir_measures_and_a_reference_beside_official_ones(
    tiny, tmp_path, capsys
):
    import random

    import ir_measures

    from tests import protocol

    qrels, run = protocol.random_case(random.Random(4), graded=True)
    assert any(q == "only-excluded" for q, _, _ in run)  # ranked, judged only below 0
    tiny(qrels)
    path = str(write_run(tmp_path / "r.run", run))
    names = ["nDCG@1000", "R@100", "RR", "P@1000", "AP@1000"]
    argv = ["evaluate", STOCK_TEST_ID, path, "--stock", "--format", "json"]
    assert main([*argv, *(a for n in names for a in ("-m", n))]) == 0
    got = json.loads(capsys.readouterr().out)[path]
    assert list(got) == names + [f"stock:{n}" for n in names]
    plain_qrels = [ir_measures.Qrel(q, d, r) for q, d, r in qrels]
    plain_run = [ir_measures.ScoredDoc(q, d, s) for q, d, s in run if q != "only-excluded"]
    plain = ir_measures.calc_aggregate(
        [ir_measures.parse_measure(n) for n in names], plain_qrels, plain_run
    )
    for name in names:
        assert got[name] == pytest.approx(protocol.mean(name, qrels, run), abs=1e-12)
        assert got[f"stock:{name}"] == plain[ir_measures.parse_measure(name)]
        assert got[f"stock:{name}"] == pytest.approx(stock_reference(name, qrels, run), abs=1e-9)
    assert all(got[f"stock:{n}"] < got[n] for n in names)  # excluded documents ranked


def test_stock_columns_sit_beside_official_ones_in_csv_and_per_query(tiny, tmp_path, capsys):
    import ir_measures

    qrels = [("1", "gold-a", 1), ("1", "own", -100), ("2", "gold-b", 1)]
    run = [("1", "own", 9.0), ("1", "gold-a", 4.0), ("2", "x", 3.0), ("2", "gold-b", 2.0)]
    tiny(qrels)
    path = str(write_run(tmp_path / "r.run", run))
    assert main(["evaluate", STOCK_TEST_ID, path, "--stock", "--per-query", "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    assert rows[0] == ["run", "query", "nDCG@10", "stock:nDCG@10"]
    values = {row[1]: (float(row[2]), float(row[3])) for row in rows[1:]}
    stock = {
        m.query_id: m.value
        for m in ir_measures.iter_calc(
            [ir_measures.nDCG @ 10],
            [ir_measures.Qrel(*q) for q in qrels],
            [ir_measures.ScoredDoc(*r) for r in run],
        )
    }
    assert values["1"] == (1.0, stock["1"]) and stock["1"] == pytest.approx(1 / math.log2(3))
    assert values["2"] == (pytest.approx(1 / math.log2(3)), stock["2"])
    assert values["all"][1] == pytest.approx((stock["1"] + stock["2"]) / 2)
    assert main(["evaluate", STOCK_TEST_ID, path]) == 0  # bare measures stay official alone
    assert capsys.readouterr().out.splitlines()[0].split() == ["run", "nDCG@10"]


def test_stock_on_the_fixture_hub_reads_stdin_once(both, tmp_path, capsys, monkeypatch):
    import ir_measures

    import ir_bright  # noqa: F401

    examples = bright_hub.aops()["examples"]
    run = [(e["id"], e["id"], 10.0) for e in examples]  # each query's own problem first
    run += [(e["id"], g, 5.0 - i) for e in examples for i, g in enumerate(e["gold_ids"])]
    text = "".join(f"{q} Q0 {d} {i} {s} t\n" for i, (q, d, s) in enumerate(run))
    monkeypatch.setattr(
        sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(text.encode())))
    )
    assert main(["evaluate", "bright/aops", "-", "--stock", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["-"]
    plain = ir_measures.calc_aggregate(
        [ir_measures.nDCG @ 10],
        ir_datasets.load("bright/aops").qrels_iter(),
        list(ir_measures.read_trec_run(text)),
    )
    assert got["nDCG@10"] == 1.0
    assert got["stock:nDCG@10"] == plain[ir_measures.nDCG @ 10] < 1.0


# --- ir_datasets' metadata contract ------------------------------------------------------------

# Counts that need the real files (README, "Counts known only after download").
DEFERRED = {
    "task1": {"qrels"},
    "task2": {"qrels"},
    "task3": {"qrels"},
    "task4": {"docs", "qrels"},
    "task4-legacy": {"docs", "qrels"},
}


def provided(dataset):
    return [e.value for e in ir_datasets.EntityType if dataset.has(e)]


def test_every_count_is_declared_except_those_that_need_the_real_files():
    from ir_bright import registry

    registry.register()
    missing = {}
    for dataset_id in registry.our_ids():
        if not dataset_id.startswith(("bright/", "mm-bright/")):
            continue  # BRIGHT-Pro finds its files through the hub's listing
        metadata = ir_datasets.load(dataset_id).metadata()
        for entity in provided(ir_datasets.load(dataset_id)):
            assert "count" in metadata[entity], (dataset_id, entity)  # ir_datasets' rule
            if metadata[entity]["count"] is None:  # ir_datasets' word for an unknown count
                missing.setdefault(dataset_id, set()).add(entity)
    expected = {
        f"mm-bright/{domain}/{task}": entities
        for domain in family("mm-bright").domains
        for task, entities in DEFERRED.items()
    }
    assert missing == expected


def fixture_ids():
    bright = [f"bright/{d.replace('_', '-')}" for d in bright_hub.DOMAINS]
    mm = [f"mm-bright/{d}" for d in mmbright_hub.DOMAINS]
    return bright + mm + [f"{base}/{task}" for base in mm for task in DEFERRED]


def test_metadata_has_a_count_for_every_entity_once_the_fixture_files_are_cached(both, capsys):
    assert main(["download", *fixture_ids()]) == 0
    capsys.readouterr()
    for dataset_id in fixture_ids():
        dataset = ir_datasets.load(dataset_id)
        metadata = dataset.metadata()
        for entity in provided(dataset):
            assert "count" in metadata[entity], (dataset_id, entity)
            count = getattr(dataset, f"{entity}_count")()
            if entity in DEFERRED.get(dataset_id.rsplit("/", 1)[-1], ()):
                records = sum(1 for _ in getattr(dataset, f"{entity}_iter")())
                assert metadata[entity]["count"] == count == records > 0, (dataset_id, entity)


def test_a_count_needing_the_files_is_computed_once_then_served_from_the_cache(
    both, capsys, monkeypatch
):
    from ir_bright.families.mmbright import pairs, tasks

    ids = ["mm-bright/academia/task1", "mm-bright/academia/task4"]
    assert ir_datasets.load(ids[0]).metadata()["qrels"] == {"count": None}  # nothing cached
    assert main(["download", *ids]) == 0
    capsys.readouterr()
    first = [ir_datasets.load(i).metadata() for i in ids]

    def fail(*args, **kwargs):
        raise AssertionError("recomputed")

    monkeypatch.setattr(tasks.TextQrels, "qrels_iter", fail)
    monkeypatch.setattr(tasks, "task4_judgements", fail)
    monkeypatch.setattr(pairs.PairCorpus, "pair_ids", fail)
    assert [ir_datasets.load(i).metadata() for i in ids] == first
    assert ir_datasets.load(ids[1]).docs_count() == first[1]["docs"]["count"]
    # a changed input file invalidates the stored count
    examples = ir_datasets.load(ids[0]).hub_files()[1].cached_path()
    os.utime(examples, ns=(examples.stat().st_atime_ns, examples.stat().st_mtime_ns + 10**9))
    with pytest.raises(AssertionError, match="recomputed"):
        ir_datasets.load(ids[0]).metadata()


# --- PyTerrier's irds: provider -----------------------------------------------------------------


@pytest.mark.pyterrier
@pytest.mark.parametrize("dataset_id", [i for i, e in FAMILIES.items() if "qrels" in e])
def test_pyterrier_irds_provider_gives_topics_qrels_and_corpus_of_every_family(both, dataset_id):
    pt = pytest.importorskip("pyterrier")
    import ir_bright  # noqa: F401

    dataset = ir_datasets.load(dataset_id)
    irds = pt.get_dataset(f"irds:{dataset_id}")
    topics = irds.get_topics("text")
    assert list(topics.columns) == ["qid", "query"]
    assert list(zip(topics["qid"], topics["query"])) == [
        (q.query_id, q.text) for q in dataset.queries_iter()
    ]
    qrels = irds.get_qrels()
    assert {"qid", "docno", "label"} <= set(qrels.columns)
    assert len(qrels) == sum(1 for _ in dataset.qrels_iter())
    first = next(iter(irds.get_corpus_iter(verbose=False)))
    assert first["docno"] == next(iter(dataset.docs_iter())).doc_id
