"""Finds the private names a module of ir_bright uses that belong to another module: of
another package (``tests/test_private_names.py`` allows those in ``ir_bright/upstream.py``
only) or of another module of ir_bright (allowed nowhere).

The check reads every module's syntax tree and follows the names it binds to other modules
(imports, ``lazy.module("numpy")``, ``require("pyterrier", ...)``, assignments, loop
variables and parameters annotated with such names). It reports, with file and line:

- an import of a private name (``from a import _b``) and, from another package, of a private
  module (``from a._b import c``, ``import a._b``; ir_bright's own private modules, such as
  ``_version``, are the package's to share);
- a private attribute read or written on another module's object, however reached
  (``ir_datasets.registry._registered``, ``pipeline._x`` after ``pipeline = ...``,
  ``getattr(module, "_x")``);
- a private member of another module's class defined or used by a subclass (a method,
  class attribute or ``self._x``) unless it is one of :data:`EXTENSION_POINTS`.

A private name is one with a leading underscore that is not a dunder; the few underscored
names other packages document as public are in :data:`PUBLIC_UNDERSCORED`.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

PACKAGE = Path(__file__).resolve().parent.parent / "ir_bright"
EXEMPT = PACKAGE / "upstream.py"

EXTENSION_POINTS = {
    # the abstract hooks (``raise NotImplementedError()`` in the base) that every provider
    # and evaluator of ir_measures implements; the public evaluator()/iter_calc() call them
    ("ir_measures.providers.base.Provider", "_evaluator"),
    ("ir_measures.providers.base.Evaluator", "_iter_calc"),
    # the documented hook for the set operators' result type (collections.abc's docs)
    ("collections.abc.Set", "_from_iterable"),
}
"""``(upstream class, member)`` pairs a subclass may define: each is the extension point its
package documents or declares abstract for subclasses (tests/test_private_names.py checks
they still are)."""

PUBLIC_UNDERSCORED = {
    # namedtuple's public API (the underscore avoids clashes with field names)
    "_asdict",
    "_field_defaults",
    "_fields",
    "_make",
    "_replace",
    # the documented way for a forked child to end at once
    "os._exit",
}
"""Underscored names (or ``module.name`` paths) the packages that define them document as
public."""

MODULE_FACTORIES = {"module", "require", "import_module"}
"""Calls that return the module their first argument names (``lazy.module``,
``errors.require``, ``importlib.import_module``)."""

_BINDERS = (
    ast.Import, ast.ImportFrom, ast.ClassDef, ast.Assign, ast.AnnAssign, ast.AugAssign,
    ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension, ast.withitem,
)  # fmt: skip
_UNKNOWN = "?"  # another package's object whose dotted path is not known


@dataclass(frozen=True)
class Origin:
    """Where a bound name comes from: a dotted path (``_UNKNOWN`` when not known) and the
    module that defines it."""

    path: str
    module: str

    @property
    def upstream(self) -> bool:
        """Whether it comes from another package."""
        return is_upstream_module(self.module)

    def attribute(self, name: str) -> Origin:
        path = _UNKNOWN if self.path == _UNKNOWN else f"{self.path}.{name}"
        return Origin(path, self.module)

    def result(self) -> Origin:
        return Origin(_UNKNOWN, self.module)


@dataclass(frozen=True)
class Finding:
    """A private name of another module used at ``label:line``; ``upstream``: of another
    package (else of another module of ir_bright)."""

    label: str
    line: int
    what: str
    upstream: bool

    def __str__(self) -> str:
        return f"{self.label}:{self.line}: {self.what}"


Bindings = dict[str, Origin]
"""Names (and ``self.x`` of a method) bound to where their value comes from."""


def is_private(name: str) -> bool:
    """A leading underscore, not a dunder, and not a documented public name."""
    dunder = name.startswith("__") and name.endswith("__")
    return name.startswith("_") and not dunder and name not in PUBLIC_UNDERSCORED


def is_upstream_module(module: str) -> bool:
    return module.split(".")[0] != "ir_bright"


class Checker:
    """The private names of other modules one module's source uses."""

    def __init__(self, source: str, label: str, module: str, package: bool = False):
        self.label, self.module, self.package = label, module, package
        self.tree = ast.parse(source)
        self.found: list[Finding] = []
        self.classes: dict[str, list[type]] = {}  # this module's classes: their MRO

    def run(self) -> list[Finding]:
        self._scope(self.tree, {}, {})
        return self.found

    def _report(self, node: ast.AST, what: str, module: str) -> None:
        line = getattr(node, "lineno", 0)
        self.found.append(Finding(self.label, line, what, is_upstream_module(module)))

    def _foreign(self, origin: Origin | None) -> bool:
        """Whether ``origin`` is another module's (another package's, or ir_bright's)."""
        return origin is not None and origin.module != self.module

    # scopes: bindings are collected per function (flow-insensitive), then checked

    def _scope(self, owner: ast.AST, outer: dict[str, Origin], instance: Bindings) -> None:
        """Check ``owner``'s scope and those nested in it; ``instance`` holds the attributes a
        class's methods set on ``self`` from another package's objects."""
        nodes, nested, bindings = self._bindings(owner, outer)
        me = _first_parameter(owner)
        if me is not None:
            bindings.update({f"{me}.{name}": origin for name, origin in instance.items()})
        for node in nodes:
            self._check(node, bindings)
        for child in sorted(nested, key=lambda n: n.lineno):  # a base before its subclasses
            if isinstance(child, ast.ClassDef):
                self._check_class(child, bindings)
                self._scope(child, bindings, self._instance_attributes(child, bindings))
            else:
                self._scope(child, bindings, instance if isinstance(owner, ast.ClassDef) else {})

    def _bindings(
        self, owner: ast.AST, outer: Bindings
    ) -> tuple[list[ast.AST], list[ast.AST], Bindings]:
        """``owner``'s own nodes, the scopes nested in it, and the names it binds (added to
        ``outer``; flow-insensitive)."""
        nodes, nested = _own_nodes(owner)
        bindings = dict(outer)
        if isinstance(owner, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            self._bind_parameters(owner.args, bindings)
        binders = [n for n in nodes if isinstance(n, _BINDERS)]
        for _ in range(4):  # until no assignment adds an origin (chains are short)
            before = dict(bindings)
            for node in binders:
                self._bind(node, bindings)
            if bindings == before:
                break
        return nodes, nested, bindings

    def _instance_attributes(self, node: ast.ClassDef, outer: Bindings) -> Bindings:
        """``{name: origin}`` of the ``self.name = ...`` its methods set to another package's
        objects."""
        found: Bindings = {}
        for method in node.body:
            me = _first_parameter(method)
            if me is None:
                continue
            nodes, _, bindings = self._bindings(method, outer)
            for child in nodes:
                for target, value in _assignments(child):
                    on_self = isinstance(target, ast.Attribute) and _is_name(target.value, me)
                    origin = self._origin(value, bindings) if on_self else None
                    if self._foreign(origin):
                        found[target.attr] = origin  # type: ignore[assignment,attr-defined]
        return found

    def _bind_parameters(self, args: ast.arguments, bindings: dict[str, Origin]) -> None:
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
            annotation = arg.annotation
            if annotation is None:
                continue
            for name in ast.walk(annotation):
                origin = self._origin(name, bindings)
                if origin and self._foreign(origin) and not _is_typing(origin.path):
                    bindings[arg.arg] = origin.result()

    def _bind(self, node: ast.AST, bindings: dict[str, Origin]) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bindings[alias.asname] = _module_origin(alias.name)
                else:
                    top = alias.name.split(".")[0]
                    bindings[top] = _module_origin(top)
        elif isinstance(node, ast.ImportFrom):
            base = self._absolute(node)
            for alias in node.names:
                path = f"{base}.{alias.name}"
                bindings[alias.asname or alias.name] = Origin(path, _defining_module(base, path))
        elif isinstance(node, ast.ClassDef):
            bindings[node.name] = Origin(f"{self.module}.{node.name}", self.module)
        else:
            for target, value in _assignments(node):
                origin = self._origin(value, bindings)
                if origin and self._foreign(origin):
                    for name in _target_names(target):
                        bindings[name.id] = origin if target is name else origin.result()

    def _absolute(self, node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = self.module.split(".")
        parts = parts[: len(parts) - node.level + self.package]
        return ".".join(parts + ([node.module] if node.module else []))

    def _origin(self, node: ast.AST, bindings: dict[str, Origin]) -> Origin | None:
        if isinstance(node, ast.Name):
            return bindings.get(node.id)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and f"{node.value.id}.{node.attr}" in bindings:
                return bindings[f"{node.value.id}.{node.attr}"]  # self.x, set in a method
            origin = self._origin(node.value, bindings)
            return origin.attribute(node.attr) if origin else None
        if isinstance(node, ast.Call):
            named = _factory_module(node)
            if named is not None:
                return _module_origin(named)
            origin = self._origin(node.func, bindings)
            return origin.result() if origin and self._foreign(origin) else None
        if isinstance(node, ast.Subscript | ast.Starred | ast.Await):
            origin = self._origin(node.value, bindings)
            return origin.result() if origin and self._foreign(origin) else None
        return None

    # the checks

    def _check(self, node: ast.AST, bindings: dict[str, Origin]) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if is_upstream_module(alias.name) and _private_part(alias.name):
                    self._report(node, f"imports the private module {alias.name}", alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = self._absolute(node)
            if is_upstream_module(base) and _private_part(base):
                self._report(node, f"imports from the private module {base}", base)
            for alias in node.names:
                if is_private(alias.name):
                    self._report(node, f"imports the private name {base}.{alias.name}", base)
        elif isinstance(node, ast.Attribute) and is_private(node.attr):
            origin = self._origin(node.value, bindings)
            if (
                origin
                and self._foreign(origin)
                and origin.attribute(node.attr).path not in PUBLIC_UNDERSCORED
            ):
                what = f"uses {node.attr} of {_describe(node.value, origin)}"
                self._report(node, what, origin.module)
        elif isinstance(node, ast.Call) and _reflective_private(node):
            origin = self._origin(node.args[0], bindings)
            if origin and self._foreign(origin):
                name = node.args[1].value  # type: ignore[attr-defined]
                what = f"uses {name} of {_describe(node.args[0], origin)}"
                self._report(node, what, origin.module)

    def _check_class(self, node: ast.ClassDef, bindings: dict[str, Origin]) -> None:
        mro = [cls for base in node.bases for cls in self._classes_of(base, bindings)]
        self.classes[node.name] = mro
        foreign = [c for c in mro if c.__module__ != self.module and c is not object]
        private = {name: cls for cls in reversed(foreign) for name in _private_members(cls)}
        for member, where in _members(node):
            owner = private.get(member)
            if owner is None:
                continue
            qualified = f"{owner.__module__}.{owner.__qualname__}"
            if (qualified, member) not in EXTENSION_POINTS:
                what = f"{node.name} uses {member}, a private member of {qualified}"
                self._report(where, what, owner.__module__)

    def _classes_of(self, base: ast.expr, bindings: dict[str, Origin]) -> list[type]:
        """The classes a base class expression brings in (its MRO)."""
        if isinstance(base, ast.Subscript):  # Generic[T], AbstractSet[str]
            return self._classes_of(base.value, bindings)
        if isinstance(base, ast.Name) and base.id in self.classes:
            return self.classes[base.id]
        factory = isinstance(base, ast.Call) and not base.args  # irds_dataset_class()
        origin = self._origin(base.func if factory else base, bindings)  # type: ignore[attr-defined]
        if origin is not None and origin.path != _UNKNOWN:
            found = import_path(origin.path)
            return _mro(found() if factory else found)
        if isinstance(base, ast.Name) and hasattr(builtins, base.id):
            return _mro(getattr(builtins, base.id))
        raise AssertionError(f"{self.label}:{base.lineno}: cannot resolve the base class")


def _first_parameter(node: ast.AST) -> str | None:
    """A method's ``self`` (or ``cls``): its first parameter."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    parameters = node.args.posonlyargs + node.args.args
    return parameters[0].arg if parameters else None


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _own_nodes(owner: ast.AST) -> tuple[list[ast.AST], list[ast.AST]]:
    """The nodes of ``owner``'s scope and the scopes nested in it (functions, classes)."""
    nodes: list[ast.AST] = []
    nested: list[ast.AST] = []
    scoped = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    stack = list(ast.iter_child_nodes(owner))
    while stack:
        node = stack.pop()
        nodes.append(node)
        if isinstance(node, scoped):
            nested.append(node)
            # decorators, defaults, bases and annotations belong to the enclosing scope
            stack.extend(_outer_parts(node))
            continue
        stack.extend(ast.iter_child_nodes(node))
    return nodes, nested


def _outer_parts(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *node.keywords]
    if isinstance(node, ast.Lambda):
        return [*node.args.defaults, *node.args.kw_defaults]  # type: ignore[list-item]
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    defaults = [d for d in [*node.args.defaults, *node.args.kw_defaults] if d is not None]
    return [*node.decorator_list, *defaults]


def _assignments(node: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
    """``(target, value)`` of each binding ``node`` makes from an expression."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield target, node.value
    elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and node.value:
        yield node.target, node.value
    elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
        yield node.target, node.iter
    elif isinstance(node, ast.withitem) and node.optional_vars is not None:
        yield node.optional_vars, node.context_expr


def _target_names(target: ast.AST) -> Iterator[ast.Name]:
    """The names an assignment target binds (not ``self`` in ``self.x = ...``)."""
    if isinstance(target, ast.Name):
        yield target
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _target_names(element)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)


def _module_origin(path: str) -> Origin:
    return Origin(path, path)


def _defining_module(base: str, path: str) -> str:
    """The module defining what ``from base import name`` binds (``path``): that module
    itself when it is a module of ir_bright, else ``base``."""
    if is_upstream_module(base):
        return base
    place = PACKAGE.parent.joinpath(*path.split("."))
    return path if place.with_suffix(".py").is_file() or place.is_dir() else base


def _factory_module(node: ast.Call) -> str | None:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name not in MODULE_FACTORIES or not node.args:
        return None
    first = node.args[0]
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None


def _reflective_private(node: ast.Call) -> bool:
    """``getattr(x, "_y")`` and its kin."""
    name = getattr(node.func, "id", None)
    if name not in {"getattr", "setattr", "hasattr", "delattr"} or len(node.args) < 2:
        return False
    key = node.args[1]
    return isinstance(key, ast.Constant) and isinstance(key.value, str) and is_private(key.value)


def _private_part(module: str) -> bool:
    return any(is_private(part) for part in module.split("."))


def _is_typing(path: str) -> bool:
    return path.split(".")[0] in {"typing", "typing_extensions", "collections", "types"}


def _describe(node: ast.AST, origin: Origin) -> str:
    shown = ast.unparse(node)
    return shown if origin.path in (_UNKNOWN, shown) else f"{shown} ({origin.path})"


def import_path(path: str) -> Any:
    """The object a dotted path names (a module, or an attribute of one)."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name)
        return found
    raise ImportError(path)


def _mro(base: Any) -> list[type]:
    if not isinstance(base, type) and hasattr(base, "__mro_entries__"):  # typing.NamedTuple
        return [c for b in base.__mro_entries__((base,)) for c in b.__mro__]
    return list(base.__mro__)


_SELF_ATTRIBUTE = re.compile(r"\bself\.(_[A-Za-z]\w*)")


@cache
def _private_members(cls: type) -> set[str]:
    """The private names ``cls`` defines or sets on its instances (``self._x`` in its source)."""
    names = {n for n in vars(cls) if is_private(n)}
    names |= {n for n in getattr(cls, "__slots__", ()) if is_private(n)}
    try:
        source = inspect.getsource(cls)
    except (OSError, TypeError):  # a class written in C
        return names
    return names | {n for n in _SELF_ATTRIBUTE.findall(source) if is_private(n)}


def _members(node: ast.ClassDef) -> Iterator[tuple[str, ast.AST]]:
    """The names a class body defines and the ``self.x`` / ``super().x`` its methods use."""
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            yield item.name, item
            me = _first_parameter(item)
            for child in ast.walk(item):
                if not isinstance(child, ast.Attribute):
                    continue
                value = child.value
                on_self = me is not None and _is_name(value, me)
                on_super = isinstance(value, ast.Call) and getattr(value.func, "id", "") == "super"
                if on_self or on_super:
                    yield child.attr, child
        for target, _ in _assignments(item):
            if isinstance(target, ast.Name):
                yield target.id, item


def package_findings() -> list[Finding]:
    """Every private name of another module that a module of the package uses."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE.parent)
        module = ".".join(relative.with_suffix("").parts).removesuffix(".__init__")
        source = path.read_text(encoding="utf-8")
        found += Checker(source, str(relative), module, path.name == "__init__.py").run()
    return found


def upstream_findings() -> list[str]:
    """Every private name of another package the package uses outside ``upstream.py``."""
    exempt = str(EXEMPT.relative_to(PACKAGE.parent))
    return [str(f) for f in package_findings() if f.upstream and f.label != exempt]


def own_findings() -> list[str]:
    """Every private name of one module of ir_bright that another module of it uses."""
    return [str(f) for f in package_findings() if not f.upstream]
