"""What is public is what is documented: ``__all__`` is declared only by the package's faces
(each package's ``__init__.py``) and by the modules the Python API page (``docs/api.md``)
renders whole, and every name of every ``__all__`` is on that page, under the name users
import it by."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from tests.private_names import import_path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "api.md"
DIRECTIVE = re.compile(r"^::: (\S+)\n((?:    .*\n)*)", re.MULTILINE)
"""A mkdocstrings block: ``::: dotted.path`` and its indented options."""


def modules_declaring_all() -> dict[str, Path]:
    """``{module: file}`` of every module of the package that assigns ``__all__``."""
    found = {}
    for path in sorted((ROOT / "ir_bright").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                parts = path.relative_to(ROOT).with_suffix("").parts
                found[".".join(parts).removesuffix(".__init__")] = path
    return found


def blocks(text: str) -> list[tuple[str, dict[str, str]]]:
    """Each ``:::`` block of ``text``: its target and its options (``key: value`` lines)."""
    result = []
    for target, body in DIRECTIVE.findall(text):
        options = dict(re.findall(r"^ {6}(\w+): (.*)$", body, re.MULTILINE))
        result.append((target, options))
    return result


def documented(text: str) -> tuple[set[tuple[str, str]], set[str]]:
    """The ``(module, name)`` pairs a page renders, and the modules it renders whole.

    A block with a ``heading`` renders one object under the name it gives, ``module.name``,
    which must be that object; a block of a module without ``members: false`` renders the
    module's ``__all__`` (the page renders only public names)."""
    names: set[tuple[str, str]] = set()
    whole: set[str] = set()
    for target, options in blocks(text):
        heading = options.get("heading")
        if heading is not None:
            module, _, name = heading.rpartition(".")
            shown = getattr(importlib.import_module(module), name)
            assert shown is import_path(target), f"{heading} is not {target}"
            names.add((module, name))
        elif options.get("members") != "false":
            module = importlib.import_module(target)
            whole.add(target)
            names |= {(target, name) for name in module.__all__}
    return names, whole


def test_only_package_faces_and_modules_the_api_page_renders_declare_all():
    _, whole = documented(PAGE.read_text(encoding="utf-8"))
    others = {
        module: str(path.relative_to(ROOT))
        for module, path in modules_declaring_all().items()
        if path.name != "__init__.py" and module not in whole
    }
    assert not others, f"__all__ outside the faces and the documented modules: {others}"


def test_every_name_of_every_all_is_on_the_api_page():
    names, _ = documented(PAGE.read_text(encoding="utf-8"))
    missing = [
        f"{module}.{name}"
        for module in modules_declaring_all()
        for name in importlib.import_module(module).__all__
        if (module, name) not in names
    ]
    assert not missing, f"public names the API page does not show: {missing}"


def test_the_page_shows_no_name_that_is_not_public():
    names, _ = documented(PAGE.read_text(encoding="utf-8"))
    hidden = [
        f"{module}.{name}"
        for module, name in names
        if name not in getattr(importlib.import_module(module), "__all__", ())
    ]
    assert not hidden, f"the API page shows names no __all__ lists: {hidden}"


def test_each_face_of_the_page_is_introduced_by_its_docstring():
    targets = {target for target, options in blocks(PAGE.read_text(encoding="utf-8"))}
    faces = {module for module, path in modules_declaring_all().items()}
    assert faces <= targets, f"faces without their own block: {faces - targets}"


def test_the_package_declares_few_public_names():
    total = sum(len(importlib.import_module(m).__all__) for m in modules_declaring_all())
    assert total <= 200, total


def test_the_page_reader_reads_headings_whole_modules_and_docstring_only_blocks():
    from ir_bright import errors

    heading = (
        "::: ir_bright.scoring.scorer.evaluate\n    options:\n      heading: ir_bright.evaluate\n"
    )
    assert documented(heading) == ({("ir_bright", "evaluate")}, set())
    assert documented("::: ir_bright.errors\n") == (
        {("ir_bright.errors", name) for name in errors.__all__},
        {"ir_bright.errors"},
    )
    assert documented("::: ir_bright.runs\n    options:\n      members: false\n") == (set(), set())


def test_a_heading_naming_another_object_is_refused():
    page = "::: ir_bright.scoring.scorer.evaluate\n    options:\n      heading: ir_bright.fuse\n"
    with pytest.raises(AssertionError, match="ir_bright.fuse is not"):
        documented(page)
