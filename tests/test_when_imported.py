"""``when_imported``: an action run once, right after the first of some modules is imported.

Each test writes a small host package and a small "own" package into a folder of its own,
puts it on ``sys.path`` and imports them in this process; the action records what it sees,
so the tests check when it ran and what was complete by then.
"""

from __future__ import annotations

import importlib.machinery
import subprocess
import sys
import textwrap

import pytest

from ir_bright.when_imported import ensure, when_imported

HOST, OTHER_HOST, OWN = "fakehost_wi", "fakeother_wi", "fakeown_wi"


@pytest.fixture
def modules(tmp_path, monkeypatch):
    """``write(name, code)`` writes a module (``a.b`` in package ``a``) importable at once;
    every module written, and the watch, are gone after the test."""
    monkeypatch.syspath_prepend(str(tmp_path))
    meta_path = list(sys.meta_path)

    def write(name: str, code: str = "") -> None:
        *packages, last = name.split(".")
        folder = tmp_path.joinpath(*packages)
        for depth in range(len(packages)):
            init = tmp_path.joinpath(*packages[: depth + 1], "__init__.py")
            init.parent.mkdir(parents=True, exist_ok=True)
            init.touch()
        (folder / f"{last}.py").write_text(textwrap.dedent(code))
        importlib.invalidate_caches()

    yield write
    sys.meta_path[:] = meta_path
    for name in [m for m in sys.modules if m.split(".")[0] in (HOST, OTHER_HOST, OWN)]:
        del sys.modules[name]


def recorder(seen: list[str]):
    """An action noting, each time it runs, whether the host and the own module are whole."""

    def action() -> None:
        host = sys.modules.get(HOST)
        own = sys.modules.get(f"{OWN}.user")
        seen.append(f"host {getattr(host, 'WHOLE', None)}, own {getattr(own, 'WHOLE', None)}")

    return action


def test_an_imported_host_runs_the_action_at_once(modules):
    modules(HOST, "WHOLE = True")
    __import__(HOST)
    seen: list[str] = []
    when_imported([HOST], recorder(seen), OWN)
    assert seen == ["host True, own None"]


def test_the_action_runs_once_after_the_first_host_is_whole(modules):
    modules(HOST, "WHOLE = 'yes'")
    modules(OTHER_HOST)
    seen: list[str] = []
    when_imported([HOST, OTHER_HOST], recorder(seen), OWN)
    assert seen == []
    __import__(HOST)
    assert seen == ["host yes, own None"]
    __import__(OTHER_HOST)
    assert seen == ["host yes, own None"]


def test_a_module_of_the_package_importing_a_host_is_whole_when_the_action_runs(modules):
    modules(HOST, "WHOLE = 'yes'")
    modules(f"{OWN}.user", f"import {HOST}\nWHOLE = 'at last'")
    seen: list[str] = []
    when_imported([HOST], recorder(seen), OWN)
    importlib.import_module(f"{OWN}.user")
    assert seen == ["host yes, own at last"]


def test_a_failing_host_import_runs_nothing_until_an_import_succeeds(modules, tmp_path):
    modules(HOST, "raise OSError('no home')")
    seen: list[str] = []
    when_imported([HOST], recorder(seen), OWN)
    with pytest.raises(OSError, match="no home"):
        __import__(HOST)
    assert seen == [] and HOST not in sys.modules
    modules(HOST, "WHOLE = 'second try'")
    __import__(HOST)
    assert seen == ["host second try, own None"]


def test_the_watch_leaves_no_trace_on_the_modules_or_the_finders(modules):
    modules(HOST, "import sys\nLOADER_DURING = type(__loader__)\nWHOLE = True")
    modules(f"{OWN}.user", "WHOLE = True")
    before = list(sys.meta_path)
    when_imported([HOST], lambda: None, OWN)
    assert len(sys.meta_path) == len(before) + 1
    own = importlib.import_module(f"{OWN}.user")
    host = importlib.import_module(HOST)
    assert sys.meta_path == before
    for module in (own, host):
        assert type(module.__loader__) is importlib.machinery.SourceFileLoader
        assert module.__spec__.loader is module.__loader__
    assert host.LOADER_DURING is importlib.machinery.SourceFileLoader


def test_an_error_of_the_action_never_breaks_the_host_import_and_is_raised_on_use(modules, caplog):
    modules(HOST, "WHOLE = True")

    def broken() -> None:
        raise RuntimeError("registration failed")

    when_imported([HOST], broken, OWN)
    host = importlib.import_module(HOST)  # the host's import succeeds whatever the guest meets
    assert host.WHOLE is True
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(warnings) == 1 and "RuntimeError: registration failed" in warnings[0]
    for _ in range(2):  # raised on each use, logged once
        with pytest.raises(RuntimeError, match="registration failed"):
            ensure(OWN)
    assert len([r for r in caplog.records if r.levelname == "WARNING"]) == 1


def test_a_failed_action_is_retried_and_marked_done_only_once_it_succeeds(modules):
    modules(HOST, "WHOLE = True")
    modules(f"{OWN}.later", "WHOLE = True")
    attempts: list[str] = []

    def flaky() -> None:
        attempts.append("try")
        if len(attempts) < 3:
            raise OSError("not yet")

    when_imported([HOST], flaky, OWN)
    importlib.import_module(HOST)  # first attempt fails
    importlib.import_module(f"{OWN}.later")  # a watched import completes: second attempt
    assert attempts == ["try", "try"]
    ensure(OWN)  # first use: the third attempt succeeds
    assert attempts == ["try"] * 3
    ensure(OWN)
    assert attempts == ["try"] * 3  # done: never run again
    assert not any(getattr(f, "watched_package", None) == OWN for f in sys.meta_path)


def test_a_second_watch_of_the_package_replaces_the_first(modules):
    """What a reload of the module (a new class) or of the package does: one watch is left,
    and an import meets no watch asking another for ever."""
    modules(HOST, "WHOLE = True")
    seen: list[str] = []

    class OldWatch:  # a watch made by an earlier copy of the module
        watched_package = OWN

        def find_spec(self, fullname, path, target=None):
            raise AssertionError("the replaced watch was asked")

    sys.meta_path.insert(0, OldWatch())
    when_imported([HOST], recorder(seen), OWN)
    assert [getattr(f, "watched_package", None) for f in sys.meta_path].count(OWN) == 1
    importlib.import_module(HOST)
    assert seen == ["host True, own None"]


def test_reloading_the_hook_and_the_package_leaves_imports_working():
    code = """
import importlib, sys
import ir_bright, ir_bright.when_imported
importlib.reload(ir_bright.when_imported)
importlib.reload(ir_bright)
import ir_measures, ir_datasets
ir_measures.parse_measure("Official(nDCG@10)")
assert "bright/biology" in ir_datasets.registry._registered
importlib.reload(ir_bright.when_imported)
importlib.reload(ir_bright)
from ir_bright import Official
print(repr(Official(ir_measures.nDCG @ 10)))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "Official(nDCG@10)"
