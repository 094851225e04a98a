"""Heavy libraries (pyarrow, NumPy) imported when first used, not when ``import ir_bright``
registers the datasets: registration builds the dataset objects, whose modules name pyarrow
throughout, yet reads no file.

A module writes ``pa = lazy.module("pyarrow")`` (with the real import under
``TYPE_CHECKING`` for the type checker); the first attribute read imports the library. This
is the one way ir_bright defers an import at module level (``importlib.util.LazyLoader``
would put a half-made module into ``sys.modules`` for every other importer to meet).

A package face that hands on its modules' names without importing them writes
``__getattr__ = lazy.exports(__name__, {"name": "module", ...})`` (PEP 562).

Deferred imports happen wherever the first use is, in any thread, and a process may fork at
that moment (``multiprocessing``'s fork start method, ``os.fork``). A forked child holds
only the forking thread, so a module another thread was importing stays locked in the child
for ever, and the child's first use of it hangs. Before every fork, the forking thread waits
(at most :data:`FORK_WAIT_SECONDS`) until no other thread is importing a module.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

from .upstream import modules_being_imported

FORK_WAIT_SECONDS = 10.0


class _Deferred:
    """Stands for a module until an attribute of it is read."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str):
        self._name = name
        self._module: Any = None

    def __getattr__(self, attribute: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attribute)

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported yet"
        return f"<deferred module {self._name!r} ({state})>"


def module(name: str) -> Any:
    """``name`` (e.g. ``"pyarrow.parquet"``), imported when an attribute is first read."""
    return _Deferred(name)


def exports(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``package`` serving each of ``names`` (``{name: module}``)
    from its module, imported on the first use of one of its names."""

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    return __getattr__


def _finish_imports() -> None:
    """Before a fork: wait until the imports other threads run are done (or failed), so that
    the child finds no module locked; give up after :data:`FORK_WAIT_SECONDS` rather than hold
    the fork back for ever."""
    deadline = time.monotonic() + FORK_WAIT_SECONDS
    while modules_being_imported() and time.monotonic() < deadline:
        time.sleep(0.001)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_finish_imports)
