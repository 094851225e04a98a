"""The family declarations (``ir_bright/families/*.json``): each one consistent in itself, and
the only place in the package that lists the families."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ir_bright
from ir_bright.families import families, family, family_of

PACKAGE = Path(ir_bright.__file__).parent
NAMES = [declared.name for declared in families()]


def test_the_families_are_the_declared_files_in_their_order():
    files = sorted(p.stem for p in (PACKAGE / "families").glob("*.json"))
    assert sorted(NAMES) == files
    assert [f.order for f in families()] == sorted(f.order for f in families())
    assert NAMES[:3] == ["bright", "mm-bright", "bright-pro"]


def test_no_two_families_share_a_namespace_or_an_id():
    namespaces = [f.namespace for f in families()]
    assert len(set(namespaces)) == len(namespaces)
    ids = [i for f in families() for i in f.dataset_ids()]
    assert len(set(ids)) == len(ids)
    assert all(family_of(i).owns(i) for i in ids)


@pytest.mark.parametrize("name", NAMES)
def test_every_restriction_names_a_declared_domain_or_document_set(name):
    declared = family(name)
    for document_set in declared.document_sets.values():
        assert set(document_set.domains or ()) <= set(declared.domains)
    for query_set in declared.query_sets.values():
        assert set(query_set.domains or ()) <= set(declared.domains)
        assert set(query_set.document_sets or ()) <= set(declared.document_sets)
    columns = declared.columns()
    assert sorted(columns) == sorted(declared.domains)


@pytest.mark.parametrize("name", NAMES)
def test_every_benchmark_has_a_column_per_domain_and_known_group_labels(name):
    declared = family(name)
    for bench in declared.benchmarks().values():
        assert bench.ids and len(bench.ids) == len(set(bench.ids)) == len(bench.labels)
        assert all(declared.owns(bench.dataset_of(i)) for i in bench.ids)
        assert all(declared.owns(i) for i in bench.run_ids)
        for group in bench.groups:
            assert group.ids and set(group.ids) <= set(bench.ids)


@pytest.mark.parametrize("name", NAMES)
def test_published_rows_name_a_benchmark_and_its_column_labels(name):
    declared = family(name)
    benchmarks = declared.benchmarks()
    for bench, rows in declared.references().items():
        assert bench in benchmarks
        labels = set(benchmarks[bench].labels)
        for row in rows.values():
            assert set(row.get("values") or {}) <= labels, row["label"]
            assert row.get("source"), row["label"]


def test_bright_long_documents_are_the_domains_that_have_them():
    # BRIGHT's paper: 8 of the 12 domains have long documents (all but the coding and theorem
    # domains except Pony); the long document set must be declared for exactly those
    bright = family("bright")
    long = set(bright.document_sets["long"].domains or ())
    with_long_docs = {k for k, d in bright.domains.items() if d.counts["long/docs"]}
    assert long == with_long_docs and len(long) == 8


def test_protocols_state_the_official_depth_exclusions_and_headline():
    bright = family("bright").protocol
    assert (bright.exclusions, bright.depth, bright.measure) == ("excluded_ids", 1000, "nDCG@10")
    assert family("mm-bright").protocol.exclusions == "negative_ids"
    assert family("bright-pro").protocol.measure == "wAlpha_nDCG@25"


def test_a_declaration_without_a_depth_gets_the_official_thousand():
    import json

    from ir_bright.families import Family, run_depth

    data = json.loads((PACKAGE / "families" / "bright.json").read_text("utf-8"))
    assert "depth" not in data["protocol"]  # the default is not spelt a second time
    assert (
        Family.read(data, "bright.json").protocol.depth == 1000
    )  # BRIGHT's get_scores keeps the best 1,000
    data["protocol"]["depth"] = 100
    assert Family.read(data, "bright.json").protocol.depth == 100
    assert run_depth("bright/biology") == 1000 and run_depth("r2med/biology") == 100
    assert run_depth("not-a-family/x") == run_depth(None) == 1000


@pytest.mark.parametrize("name", NAMES)
def test_no_declaration_spells_the_default_depth(name):
    import json

    from ir_bright.families import OFFICIAL_DEPTH

    data = json.loads((PACKAGE / "families" / f"{name}.json").read_text("utf-8"))
    assert data["protocol"].get("depth") != OFFICIAL_DEPTH


def _literal_collections(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            yield node.elts
        elif isinstance(node, ast.Dict):
            yield [k for k in node.keys if k is not None]


def test_no_module_but_the_declarations_lists_the_families():
    namespaces = {f.namespace for f in families()} | set(NAMES)
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if "families" in path.relative_to(PACKAGE).parts:
            continue
        for elements in _literal_collections(ast.parse(path.read_text())):
            named = set()
            for element in elements:
                if isinstance(element, ast.Constant) and isinstance(element.value, str):
                    head = element.value.split("/")[0].split(":")[0]
                    named |= {head} & namespaces
            if len(named) > 1:
                offenders.append(f"{path.relative_to(PACKAGE)}:{elements[0].lineno}")
    assert offenders == []
