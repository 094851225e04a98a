"""Run an action right after the first of some modules is imported, without importing them.

``import ir_bright`` registers the package's datasets with ir_datasets and its measures with
ir_measures, yet a process that uses neither (``ir-bright --help``, a usage error) should not
pay for importing them. :func:`when_imported` runs the registration at once when one of them
is imported already, else right after the first of them is imported, whoever imports it: the
user's code, PyTerrier, or a module of the package. What happens depends on the order of the
imports only, never on how the process was started.

"Right after" means once that import, and every import of the package's own modules under way
in the same thread, is complete: a module of the package that imports ir_datasets at its top
is whole by the time the registration imports it.

The watch is a finder placed first on ``sys.meta_path`` that finds nothing by itself: it asks
the finders after it and hands the import system a loader that runs the module's own loader,
then notes that the module is imported. Before the module's code runs, its ``__loader__`` and
``__spec__.loader`` are set back to its own loader, so no module keeps a trace of the watch,
and the finder leaves ``sys.meta_path`` when the action runs.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # importlib.abc costs as much as the rest of the package's import
    from importlib.abc import Loader
    from importlib.machinery import ModuleSpec


def when_imported(hosts: Iterable[str], action: Callable[[], object], package: str) -> None:
    """Run ``action`` once: now if one of the modules ``hosts`` is imported already, else right
    after the first of them is, once no import of ``package``'s own modules is under way in
    that thread. An exception of ``action`` propagates from the import that ran it."""
    names = frozenset(hosts)
    if any(name in sys.modules for name in names):
        action()
        return
    if not any(isinstance(f, _Watch) and f.package == package for f in sys.meta_path):
        sys.meta_path.insert(0, _Watch(names, action, package))


class _Watch:
    """The finder that notes the imports of the hosts and of the package's modules."""

    def __init__(self, hosts: frozenset[str], action: Callable[[], object], package: str):
        self.package = package
        self._hosts = hosts
        self._action = action
        self._depth = threading.local()  # imports of watched modules under way, per thread
        self._lock = threading.Lock()
        self._host_imported = False
        self._done = False

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """The spec the other finders give, its loader noting the import, for a host or a
        module of the package; None for every other module (the next finder finds it)."""
        host = fullname in self._hosts
        own = fullname.startswith(self.package + ".") and not fullname.endswith(".__main__")
        if self._done or not (host or own):
            return None
        spec = self._spec_from_the_others(fullname, path, target)
        if spec is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = cast("Loader", _Noting(spec.loader, self, host))
        return spec

    def _spec_from_the_others(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None
    ) -> ModuleSpec | None:
        for finder in list(sys.meta_path):
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                return spec
        return None

    def entered(self) -> None:
        """A watched module's code starts running in this thread."""
        self._depth.count = getattr(self._depth, "count", 0) + 1

    def left(self, imported_host: bool) -> None:
        """A watched module's code finished (``imported_host``: it was a host's, and it
        succeeded); the action runs once a host is imported and this thread imports no
        module of the package any more."""
        self._depth.count -= 1
        if imported_host:
            self._host_imported = True
        if self._host_imported and self._depth.count == 0:
            self._run()

    def failed(self) -> None:
        """A watched module's code raised: no action here (it might need that module)."""
        self._depth.count -= 1

    def _run(self) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
            if self in sys.meta_path:
                sys.meta_path.remove(self)
        self._action()


class _Noting:
    """A module's own loader, with the watch told when the module's code starts and ends."""

    def __init__(self, loader: Any, watch: _Watch, host: bool):
        self._loader = loader
        self._watch = watch
        self._host = host

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        """The module the module's own loader creates (None: the default one)."""
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module: ModuleType) -> None:
        """Run the module's code with its own loader, back in place beforehand."""
        module.__loader__ = self._loader
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._watch.entered()
        try:
            self._loader.exec_module(module)
        except BaseException:
            self._watch.failed()
            raise
        self._watch.left(self._host)

    def __getattr__(self, name: str) -> Any:  # get_source, get_data, is_package, ...
        loader = self.__dict__.get("_loader")
        if loader is None:
            raise AttributeError(name)
        return getattr(loader, name)
