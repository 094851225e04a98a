"""JSON read into typed objects: a declaration's keys checked against the NamedTuples that say
what each holds, so that a wrong or unknown key, a missing one or a value of the wrong type is
an error naming the file and the key, when the file is read rather than when a dataset uses it.

The types a field may have: ``str``, ``int``, ``float``, ``bool``, ``Any`` (free-form JSON,
checked by its reader), a ``Literal`` of strings, a ``NamedTuple`` (a JSON object with its
fields as keys), ``tuple[X, ...]`` (a JSON array), ``Mapping[str, X]`` (a JSON object whose keys
are names, in the file's order), and unions of those (``X | None``). A field with a default may
be left out. Standard library only: the declarations are read when ``ir_bright`` is imported.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, TypeVar, cast

T = TypeVar("T")


class DeclarationError(ValueError):
    """A declaration that does not have the shape its schema says: the message names the file
    and the key."""


Where = Any
"""Where a value is: the file's name, or ``(where its parent is, its key or index)``, made
into text (:func:`_text`) only for an error message."""
Convert = Callable[[Any, Where], Any]
"""Checks a JSON value against one type and returns it as that type (``where`` names it)."""


def read(kind: type[T], value: Any, where: str) -> T:
    """``value`` (parsed JSON) as an instance of the NamedTuple ``kind``; ``where`` names it in
    errors (``bright.json: hub``). Raises :class:`DeclarationError`."""
    convert: Convert = _converter(cast(Any, kind))
    result: T = convert(value, where)
    return result


@cache
def _converter(hint: Any) -> Convert:
    """The converter of ``hint``, made once per type (reading a declaration is on the import
    path: each value then costs one call, not a walk of its type)."""
    if hint is Any:
        return lambda value, where: value
    if isinstance(hint, type) and issubclass(hint, tuple) and hasattr(hint, "_fields"):
        return _object_converter(hint)
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return _union_converter(hint)
    if origin is typing.Literal:
        return _literal_converter(typing.get_args(hint))
    if origin is tuple:
        return _tuple_converter(_converter(typing.get_args(hint)[0]))
    if origin in (Mapping, dict, typing.Mapping):
        return _mapping_converter(_converter(typing.get_args(hint)[1]))
    return _scalar_converter(hint)


def _object_converter(kind: Any) -> Convert:
    """A NamedTuple's converter: a JSON object with its fields as keys."""
    fields = set(kind._fields)
    required = [name for name in kind._fields if name not in kind._field_defaults]
    hints = kind.__annotations__  # evaluated already: the schema module defers none
    known = ", ".join(kind._fields)
    checked = callable(getattr(kind, "check", None))

    def convert(value: Any, where: Where) -> Any:
        if not isinstance(value, Mapping):
            raise DeclarationError(f"{_text(where)}: expected an object, got {_name_of(value)}")
        for key in value:
            if key not in fields:
                raise DeclarationError(f"{_text((where, key))}: unknown key (the keys are {known})")
        for name in required:
            if name not in value:
                raise DeclarationError(f"{_text((where, name))}: missing")
        given = {key: _converter(hints[key])(v, (where, key)) for key, v in value.items()}
        made = kind(**given)
        if checked:
            try:
                made.check()
            except ValueError as exc:  # a block's own check of its keys together
                raise DeclarationError(f"{_text(where)}: {exc}") from None
        return made

    return convert


def _union_converter(hint: Any) -> Convert:
    options = [option for option in typing.get_args(hint) if option is not type(None)]
    nullable = len(options) < len(typing.get_args(hint))
    converters = [(_json_types(option), _converter(option)) for option in options]

    def convert(value: Any, where: Where) -> Any:
        if value is None:
            if nullable:
                return None
            raise DeclarationError(f"{_text(where)}: null where a value is needed")
        fitting = [option for kinds, option in converters if isinstance(value, kinds)]
        if len(converters) == 1 or len(fitting) == 1:  # that option says what is wrong
            fitting = fitting or [converters[0][1]]
            return fitting[0](value, where)
        for option in fitting:
            try:
                return option(value, where)
            except DeclarationError:
                continue
        raise DeclarationError(f"{_text(where)}: {_name_of(value)} fits none of {_describe(hint)}")

    return convert


def _json_types(hint: Any) -> tuple[type, ...]:
    """The Python types of the JSON values ``hint`` may be read from."""
    origin = typing.get_origin(hint)
    if hint is Any or origin is typing.Literal:
        return (object,)
    if origin is tuple:
        return (list,)
    if (
        origin in (Mapping, dict, typing.Mapping)
        or isinstance(hint, type)
        and issubclass(hint, tuple)
    ):
        return (Mapping,)
    if hint is float:
        return (int, float)
    if origin in (typing.Union, types.UnionType):
        return tuple(t for option in typing.get_args(hint) for t in _json_types(option))
    return (hint,)


def _literal_converter(choices: tuple[Any, ...]) -> Convert:
    def convert(value: Any, where: Where) -> Any:
        if value not in choices:
            listed = ", ".join(map(repr, choices))
            raise DeclarationError(f"{_text(where)}: {value!r} is not one of {listed}")
        return value

    return convert


def _tuple_converter(item: Convert) -> Convert:
    def convert(value: Any, where: Where) -> Any:
        if not isinstance(value, list):
            raise DeclarationError(f"{_text(where)}: expected an array, got {_name_of(value)}")
        return tuple(item(v, (where, i)) for i, v in enumerate(value))

    return convert


def _mapping_converter(item: Convert) -> Convert:
    def convert(value: Any, where: Where) -> Any:
        if not isinstance(value, Mapping):
            raise DeclarationError(f"{_text(where)}: expected an object, got {_name_of(value)}")
        return {key: item(v, (where, key)) for key, v in value.items()}

    return convert


def _scalar_converter(hint: Any) -> Convert:
    if hint not in (str, int, float, bool):
        raise TypeError(f"the schema uses a type this reader does not know: {hint!r}")

    def convert(value: Any, where: Where) -> Any:
        if hint is float and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, hint) and (hint is bool or not isinstance(value, bool)):
            return value
        raise DeclarationError(f"{_text(where)}: expected {hint.__name__}, got {_name_of(value)}")

    return convert


def _text(where: Where) -> str:
    """``bright.json.hub.files['documents/aops'].size``: where a value is, as text."""
    if isinstance(where, str):
        return where
    parent, key = where
    if isinstance(key, int):
        return f"{_text(parent)}[{key}]"
    return f"{_text(parent)}.{key}" if key.isidentifier() else f"{_text(parent)}[{key!r}]"


def _name_of(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), f"a number ({value!r})")


def _describe(hint: Any) -> str:
    return " | ".join(getattr(option, "__name__", str(option)) for option in typing.get_args(hint))
