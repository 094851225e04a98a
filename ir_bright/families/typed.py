"""JSON read into typed objects: a declaration's keys checked against the dataclasses that say
what each holds, so that a wrong or unknown key, a missing one or a value of the wrong type is
an error naming the file and the key, when the file is read rather than when a dataset uses it.

The types a field may have: ``str``, ``int``, ``float``, ``bool``, ``Any`` (free-form JSON,
checked by its reader), a ``Literal`` of strings, a frozen dataclass (a JSON object with its
fields as keys), ``tuple[X, ...]`` (a JSON array), ``Mapping[str, X]`` (a JSON object whose keys
are names, in the file's order), and unions of those (``X | None``). A field with a default may
be left out. Standard library only: the declarations are read when ``ir_bright`` is imported.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from functools import cache
from typing import Any, TypeVar

T = TypeVar("T")


class DeclarationError(ValueError):
    """A declaration that does not have the shape its schema says: the message names the file
    and the key."""


def read(kind: type[T], value: Any, where: str) -> T:
    """``value`` (parsed JSON) as an instance of the dataclass ``kind``; ``where`` names it in
    errors (``bright.json: hub``). Raises :class:`DeclarationError`."""
    result: T = _convert(kind, value, where)
    return result


@cache
def _hints(kind: type) -> dict[str, Any]:
    return typing.get_type_hints(kind)


def _object(kind: type, value: Any, where: str) -> Any:
    if not isinstance(value, Mapping):
        raise DeclarationError(f"{where}: expected an object, got {_name_of(value)}")
    fields = {field.name: field for field in dataclasses.fields(kind) if field.init}
    unknown = [key for key in value if key not in fields]
    if unknown:
        known = ", ".join(fields)
        raise DeclarationError(f"{_at(where, unknown[0])}: unknown key (the keys are {known})")
    hints = _hints(kind)
    given = {}
    for name, field in fields.items():
        if name in value:
            given[name] = _convert(hints[name], value[name], _at(where, name))
        elif field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING:
            raise DeclarationError(f"{_at(where, name)}: missing")
    try:
        return kind(**given)
    except ValueError as exc:  # a block's own check of its keys together
        raise DeclarationError(f"{where}: {exc}") from None


def _convert(hint: Any, value: Any, where: str) -> Any:
    if hint is Any:
        return value
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return _object(hint, value, where)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return _union(hint, value, where)
    if origin is typing.Literal:
        if value not in typing.get_args(hint):
            choices = ", ".join(map(repr, typing.get_args(hint)))
            raise DeclarationError(f"{where}: {value!r} is not one of {choices}")
        return value
    if origin is tuple:
        item = typing.get_args(hint)[0]
        if not isinstance(value, list):
            raise DeclarationError(f"{where}: expected an array, got {_name_of(value)}")
        return tuple(_convert(item, v, f"{where}[{i}]") for i, v in enumerate(value))
    if origin in (Mapping, dict, typing.Mapping):
        item = typing.get_args(hint)[1]
        if not isinstance(value, Mapping):
            raise DeclarationError(f"{where}: expected an object, got {_name_of(value)}")
        return {key: _convert(item, v, _at(where, key)) for key, v in value.items()}
    return _scalar(hint, value, where)


def _union(hint: Any, value: Any, where: str) -> Any:
    options = typing.get_args(hint)
    if value is None:
        if type(None) in options:
            return None
        raise DeclarationError(f"{where}: null where a value is needed")
    problems = []
    for option in options:
        if option is type(None):
            continue
        try:
            return _convert(option, value, where)
        except DeclarationError as exc:
            problems.append(str(exc))
    raise DeclarationError(
        problems[-1]
        if len(problems) == 1
        else f"{where}: {_name_of(value)} fits none of {_describe(hint)}"
    )


def _scalar(hint: Any, value: Any, where: str) -> Any:
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if hint in (str, int, float, bool):
        if isinstance(value, hint) and (hint is bool or not isinstance(value, bool)):
            return value
        raise DeclarationError(f"{where}: expected {hint.__name__}, got {_name_of(value)}")
    raise TypeError(f"{where}: the schema uses a type this reader does not know: {hint!r}")


def _at(where: str, key: str) -> str:
    return f"{where}.{key}" if key.isidentifier() else f"{where}[{key!r}]"


def _name_of(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), f"a number ({value!r})")


def _describe(hint: Any) -> str:
    return " | ".join(getattr(option, "__name__", str(option)) for option in typing.get_args(hint))
