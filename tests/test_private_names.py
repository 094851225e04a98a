"""No module of ir_bright but ``upstream.py`` uses another package's private names, no module
of ir_bright uses another one's private names (``tests/private_names.py`` finds both), and the
subclass hooks it allows are still the ones their packages leave open."""

from __future__ import annotations

import textwrap

import pytest

from tests.private_names import (
    EXTENSION_POINTS,
    Checker,
    import_path,
    own_findings,
    upstream_findings,
)


def test_no_module_but_upstream_uses_another_packages_private_names():
    found = upstream_findings()
    assert not found, "private upstream names outside ir_bright/upstream.py:\n" + "\n".join(found)


def test_no_module_of_ir_bright_uses_another_ones_private_names():
    found = own_findings()
    assert not found, "private names of another ir_bright module:\n" + "\n".join(found)


def findings(source: str, upstream: bool = True) -> list[str]:
    found = Checker(textwrap.dedent(source), "m.py", "ir_bright.m").run()
    return [str(f) for f in found if f.upstream is upstream]


@pytest.mark.parametrize(
    "source",
    [
        "from ir_datasets.datasets._private import x",
        "import pyterrier.datasets._irds",
        "from ir_measures.measures import _nDCG",
        "import ir_datasets\nir_datasets.registry._registered['x'] = 1",
        "import ir_datasets as irds\ndef f():\n    return irds.registry._registered",
        "from . import lazy\nnp = lazy.module('numpy')\nnp._core",
        "from .errors import require\ndef f():\n    pt = require('pyterrier', 'x')\n    pt._x",
        "import ir_measures\nfor p in ir_measures.DefaultPipeline.providers:\n    p._x",
        "import logging\nlogger = logging.getLogger('x')\nlogger._cache.clear()",
        "import ir_measures\ngetattr(ir_measures.util, '_private')",
        "from ir_measures import Evaluator\ndef f(e: Evaluator):\n    e._iter_calc(1)",
        """
        from ir_datasets.datasets.base import Dataset
        class Lazy(Dataset):
            def __init__(self):
                self._beta_apis = {}
        """,
        """
        from ir_datasets.datasets.base import Dataset
        class Lazy(Dataset):
            @property
            def _constituents(self):
                return []
        """,
        """
        import ir_measures
        class Scorer:
            def __init__(self, measures):
                self.inner = ir_measures.evaluator(measures, [])
            def per_query(self, run):
                return list(self.inner._iter_calc(run))
        """,
        """
        import logging
        class Quiet(logging.Logger):
            def _log(self, *args):
                pass
        """,
        """
        from ir_measures.providers.base import Provider
        class Mine(Provider):
            def _check_available(self):
                pass
        """,
    ],
)
def test_each_kind_of_private_upstream_use_is_found(source):
    assert findings(source), source


@pytest.mark.parametrize(
    "source",
    [
        "from ir_measures.providers.base import Provider\n"
        "class P(Provider):\n    def _evaluator(self, m, q):\n        return None",
        "from ir_measures import Evaluator\n"
        "class E(Evaluator):\n    def _iter_calc(self, run):\n        yield from ()",
        "from collections.abc import Set\n"
        "class S(Set):\n    @classmethod\n    def _from_iterable(cls, it):\n        return set(it)",
        "from ir_datasets.formats import BaseDocs\n"
        "class D(BaseDocs):\n    def __init__(self):\n        self._mine = 1",
        "from .scoring import scorer\nscorer.drop",  # ir_bright's own, public
        "import collections\ncollections.namedtuple('T', 'a')(1)._replace(a=2)",
        "import os\nos.__file__",
    ],
)
def test_extension_points_own_names_and_public_underscored_names_pass(source):
    assert findings(source) == []


def test_the_allowed_extension_points_are_the_hooks_their_classes_leave_to_subclasses():
    from collections.abc import Set

    from ir_measures import Metric, P
    from ir_measures.providers.base import Evaluator, Provider

    assert {(p, m) for p, m in EXTENSION_POINTS} == {
        ("ir_measures.providers.base.Provider", "_evaluator"),
        ("ir_measures.providers.base.Evaluator", "_iter_calc"),
        ("collections.abc.Set", "_from_iterable"),
    }  # each one checked below
    for path, member in EXTENSION_POINTS:
        assert member in vars(import_path(path)), (path, member)
    with pytest.raises(NotImplementedError):  # abstract: left to every provider
        Provider()._evaluator([], [])
    with pytest.raises(NotImplementedError):  # abstract: left to every evaluator
        Evaluator([], [])._iter_calc({})

    class HookedProvider(Provider):
        NAME = "hooked"

        def _evaluator(self, measures, qrels):
            return "made by the hook"

    class HookedEvaluator(Evaluator):
        def _iter_calc(self, run):
            yield Metric("q", P @ 1, 0.25)

    # the public calls reach them
    assert HookedProvider().evaluator([], []) == "made by the hook"
    assert list(HookedEvaluator([], []).iter_calc({})) == [Metric("q", P @ 1, 0.25)]

    class Letters(Set):
        def __init__(self, letters):
            self.letters = set(letters)

        def __contains__(self, x):
            return x in self.letters

        def __iter__(self):
            return iter(self.letters)

        def __len__(self):
            return len(self.letters)

        @classmethod
        def _from_iterable(cls, iterable):
            return frozenset(iterable)

    assert Letters("ab") & Letters("bc") == frozenset("b")
    assert type(Letters("ab") & Letters("bc")) is frozenset  # the operators use the hook


@pytest.mark.parametrize(
    "source,found",
    [
        (
            "from .scoring.scorer import _drop",
            "m.py:1: imports the private name ir_bright.scoring.scorer._drop",
        ),
        (
            "from .scoring import scorer\nscorer._drop",
            "m.py:2: uses _drop of scorer (ir_bright.scoring.scorer)",
        ),
        ("from . import lazy\nlazy._Deferred", "m.py:2: uses _Deferred of lazy (ir_bright.lazy)"),
        (
            "from .hub import files\ngetattr(files, '_x')",
            "m.py:2: uses _x of files (ir_bright.hub.files)",
        ),
        (
            "from .hub.files import HubFile\ndef f(file: HubFile):\n    return file._url()",
            "m.py:3: uses _url of file",
        ),
        (
            "from . import registry\ndataset = registry.load('x')\ndataset._id",
            "m.py:3: uses _id of dataset",
        ),
        (
            "from .store.docs import ParquetDocs\n"
            "class Mine(ParquetDocs):\n    def path(self):\n        return self._hub_file",
            "m.py:4: Mine uses _hub_file, a private member of ir_bright.store.docs.ParquetDocs",
        ),
    ],
)
def test_each_kind_of_private_use_of_another_ir_bright_module_is_found(source, found):
    assert findings(source, upstream=False) == [found]


@pytest.mark.parametrize(
    "source",
    [
        "from ._version import __version__",  # the package's private module, not a module's name
        "from . import lazy as _lazy\n_lazy.module('numpy')",  # a private alias of one's own
        "class A:\n    def _x(self):\n        pass\n"
        "class B(A):\n    def f(self):\n        self._x()",
        "def _helper():\n    pass\n_helper()",
    ],
)
def test_a_modules_own_private_names_and_the_packages_private_modules_pass(source):
    assert findings(source, upstream=False) == []
