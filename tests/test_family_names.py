"""The rest of the house follows the declarations: no module outside ``ir_bright/families/``
names a family, so that adding one is adding its declaration (and at most its module).

A module names a family when its code (docstrings and comments aside: prose may give an
example) has an identifier that is a family's name or namespace (``tempo``, ``r2med``,
``mm_bright``, ``brightpro``: an import of a family's module too), or a string literal that
is one, or a dataset id of one (``"bright/biology"``, ``"bright/"``). Messages and help texts
that show an example id inside a sentence are prose; the texts listing families are checked
by their own tests.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import ir_bright
from ir_bright.families import families
from ir_bright.families.records import record_types

PACKAGE = Path(ir_bright.__file__).parent
NAMES = {spelling for f in families() for spelling in (f.name, f.namespace)}
IDENTIFIERS = {n.replace("-", sep).lower() for n in NAMES for sep in ("_", "")}
LITERAL = re.compile(rf"(?:{'|'.join(map(re.escape, sorted(NAMES)))})(?:/.*)?", re.DOTALL)


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that stand alone as statements (docstrings)."""
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        for statement in body if isinstance(body, list) else ():
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                found.add(id(statement.value))
    return found


def _identifiers(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.ImportFrom):
        return (node.module or "").split(".")
    if isinstance(node, ast.alias):
        return [*node.name.split("."), *([node.asname] if node.asname else [])]
    return []


def family_names_in(source: str) -> list[tuple[int, str]]:
    """``(line, what)`` of each place ``source`` names a family."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings and LITERAL.fullmatch(node.value):
                found.append((node.lineno, repr(node.value)))
        for name in _identifiers(node):
            if name.lower() in IDENTIFIERS:
                found.append((getattr(node, "lineno", 0), name))
    return found


def modules_outside_families() -> list[Path]:
    """Every module of the package but those of ``ir_bright/families/``."""
    return [
        path
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.relative_to(PACKAGE).parts[0] != "families"
    ]


@pytest.mark.parametrize(
    "path", modules_outside_families(), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_no_module_outside_the_families_names_a_family(path):
    found = family_names_in(path.read_text(encoding="utf-8"))
    assert not found, f"{path.relative_to(PACKAGE)} names a family: {found}"


@pytest.mark.parametrize(
    "source",
    [
        'PREFIX = "bright/"',
        'def f():\n    return load("r2med/biology")',
        'if family.name == "tempo":\n    pass',
        "from ir_bright.families.brightpro.records import BrightProQrel",
        "from ..families import mmbright",
        "tempo = 1",
        "x.bright_pro",
        'x = {"mm-bright": 1}',
    ],
)
def test_the_check_finds_a_planted_family_name(source):
    assert family_names_in(source)


@pytest.mark.parametrize(
    "source",
    [
        '"""A docstring may say bright/biology and TEMPO."""',
        'raise ValueError("give an id, e.g. bright/biology")',
        "namespace = families()[0].namespace",
        'ir_bright = "ir_bright"',
    ],
)
def test_prose_and_the_house_name_are_not_a_family_name(source):
    assert not family_names_in(source)


def test_tempo_is_its_declaration_alone():
    # a family in a known layout is data only: TEMPO has no module, and its records are declared
    tempo = ir_bright.families.family("tempo")
    assert tempo.declaration.module is None and tempo.layout == "bright-parquet"
    assert not (PACKAGE / "families" / "tempo.py").exists()
    assert set(record_types(tempo)) == {"TempoQuery"}
