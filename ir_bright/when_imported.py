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

The action is a guest in the host's import, and a guest never breaks its host:

- **It never raises from the host's import.** An error of the action is logged once (a
  WARNING naming it) and raised by :func:`ensure`, which the package calls on first use (its
  public names), so the user meets it where they use what failed.
- **It never makes another thread's import fail.** The action imports modules of the package
  while the import that triggers it still holds its module's lock; were another thread
  importing one of those modules, and waiting for that lock, Python would detect the
  deadlock and fail one of the two imports (``_DeadlockError``). So while other threads
  import a host or a module of the package, the action runs in a thread of its own, holding
  no import lock, at once; the package's public names (:func:`ensure`) wait for it. A
  deadlock that still happens (a thread that started importing meanwhile) fails only the
  action's attempt, which is handed to such a thread.
- **It is retried until it succeeds, and only then marked done**: on the next import of a
  watched module that completes in any thread, and on first use (:func:`ensure`). The action
  must be idempotent (a retry redoes the part a failed attempt did).
- **One attempt at a time**; :func:`ensure` waits for another thread's attempt to end.
- **Reload-safe**: a watch is known by the package it serves, not by its class, so reloading
  this module (or the package) replaces the watch instead of adding a second one.

The watch is a finder placed first on ``sys.meta_path`` that finds nothing by itself: it asks
the finders after it and hands the import system a loader that runs the module's own loader,
then notes that the module is imported. Before the module's code runs, its ``__loader__`` and
``__spec__.loader`` are set back to its own loader, so no module keeps a trace of the watch,
and the finder leaves ``sys.meta_path`` once the action succeeded.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

from .upstream import modules_being_imported

if TYPE_CHECKING:  # importlib.abc costs as much as the rest of the package's import
    from importlib.abc import Loader
    from importlib.machinery import ModuleSpec

logger = logging.getLogger(__name__)

_RETRY_SECONDS = 0.05  # after a deadlock: time for the other thread's import to finish
_WAIT_SECONDS = 60.0  # the longest ensure() waits for another thread's attempt


def when_imported(hosts: Iterable[str], action: Callable[[], object], package: str) -> None:
    """Run ``action`` until it succeeds: now if one of the modules ``hosts`` is imported
    already, else right after the first of them is, once no import of ``package``'s own
    modules is under way in that thread. An error of ``action`` never propagates from an
    import: :func:`ensure` raises it. A second call for ``package`` (a reload) replaces the
    first's watch."""
    names = frozenset(hosts)
    for finder in list(sys.meta_path):
        if _watched_package(finder) == package:
            sys.meta_path.remove(finder)
    watch = _Watch(names, action, package)
    sys.meta_path.insert(0, watch)
    if any(name in sys.modules for name in names):
        watch.host_imported = True
        watch.run_soon()


def ensure(package: str) -> None:
    """Make sure ``package``'s action has run, once one of its hosts is imported: nothing when
    it succeeded; else wait for another thread's attempt, or attempt it here, and raise its
    error if it fails again."""
    for finder in list(sys.meta_path):
        if _watched_package(finder) == package and isinstance(finder, _Watch):
            if finder.host_imported:
                finder.attempt(raise_error=True)
            return


def _watched_package(finder: object) -> str | None:
    """The package a watch serves (a watch made by any copy of this module, as after a
    reload), or None for any other finder."""
    package = getattr(finder, "watched_package", None)
    return package if isinstance(package, str) else None


class _Watch:
    """The finder that notes the imports of the hosts and of the package's modules, and runs
    the action."""

    def __init__(self, hosts: frozenset[str], action: Callable[[], object], package: str):
        self.watched_package = package
        self.host_imported = False
        self._hosts = hosts
        self._action = action
        self._depth = threading.local()  # imports of watched modules under way, per thread
        self._state = threading.Condition(threading.Lock())
        self._running = False
        self._done = False
        self._reported: str | None = None  # the error logged last, not logged again

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """The spec the other finders give, its loader noting the import, for a host or a
        module of the package; None for every other module (the next finder finds it)."""
        host = fullname in self._hosts
        own = fullname.startswith(self.watched_package + ".")
        if self._done or not (host or own) or fullname.endswith(".__main__"):
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
            if _watched_package(finder) is not None or find is None:
                continue  # a watch (this one, or another's) finds nothing by itself
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
            self.host_imported = True
        if self.host_imported and self._depth.count == 0:
            self.run_soon()

    def failed(self) -> None:
        """A watched module's code raised: no action here (it might need that module)."""
        self._depth.count -= 1

    def run_soon(self) -> None:
        """Attempt the action here (an import is completing in this thread, which holds that
        module's import lock), unless other threads are importing a host or a module of the
        package: one of them may wait for the lock this thread holds while the action waits
        for theirs, and Python would then fail one of the two imports. The action then runs
        in a thread of its own, which holds no import lock, at once."""
        if self._done:
            return
        if any(self._watches(name) for name in modules_being_imported()):
            self._in_a_thread(0.0)
        else:
            self.attempt()

    def _watches(self, name: str) -> bool:
        top = name.partition(".")[0]
        return top in self._hosts or top == self.watched_package.partition(".")[0]

    def _in_a_thread(self, delay: float) -> None:
        with self._state:
            if self._done or self._running:
                return
        threading.Timer(delay, self.attempt).start()  # brief: the process waits for it

    def attempt(self, raise_error: bool = False) -> None:
        """Run the action unless it succeeded or another thread is running it (with
        ``raise_error``: wait for that thread, and raise the action's error)."""
        with self._state:
            if raise_error and self._running and getattr(self._depth, "count", 0) == 0:
                self._state.wait_for(lambda: not self._running, _WAIT_SECONDS)
            if self._done or self._running:
                return
            self._running = True
        try:
            self._action()
        except Exception as exc:  # noqa: BLE001 - never raised into the host's import
            self._finish(False)
            if raise_error:
                raise
            self._failed(exc)
            return
        except BaseException:  # Ctrl-C, SystemExit: not the action's failure
            self._finish(False)
            raise
        self._finish(True)
        if self in sys.meta_path:
            sys.meta_path.remove(self)

    def _finish(self, done: bool) -> None:
        with self._state:
            self._running = False
            self._done = done
            self._state.notify_all()

    def _failed(self, exc: Exception) -> None:
        """After an attempt that failed: a deadlock with another thread's import is retried
        from a thread of its own once the imports had time to finish; any other error is
        logged once, and retried on the next import or use."""
        if type(exc).__name__ == "_DeadlockError":  # importlib's, raised in this attempt
            self._in_a_thread(_RETRY_SECONDS)
            return
        text = f"{type(exc).__name__}: {exc}"
        if text != self._reported:
            self._reported = text
            logger.warning(
                "%s could not register with %s (%s); it is tried again when next used",
                self.watched_package,
                " and ".join(sorted(self._hosts)),
                text,
            )


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
