"""ir_bright: BRIGHT and the reasoning-intensive retrieval benchmarks beside it in ir_datasets,
scored by the official protocol.

``import ir_bright`` registers the datasets of every benchmark family it declares
(:mod:`ir_bright.families`: ``bright/...``, ``mm-bright/...``, ``r2med/...``, ...) with
ir_datasets (replacing the core's defective ``bright/*`` entries: one INFO record of the
``ir_bright.registry`` logger says so, shown where the user configured logging) and the
``Official(...)`` measure with ir_measures: at once when either is imported already, else right
after the first of them is imported (:mod:`ir_bright.when_imported`), in every process alike.
Whatever the registration meets, the host's import succeeds: an error is logged once and
raised when one of the package's public names is next used, and the registration retried.
So a process that imports neither, as ``ir-bright --help``, does not pay for them. It loads
nothing heavy and builds no dataset: the ids come from the data files, a family's datasets
are built when one is first used (:mod:`ir_bright.registry`), and pyarrow, NumPy, pandas and
the plotting and statistics libraries are imported by the calls that use them.
"""

from . import lazy as _lazy
from ._version import __version__
from .log import install as _install_logging
from .when_imported import ensure as _ensure_registered
from .when_imported import when_imported as _when_imported

__all__ = [
    "Official",
    "candidates",
    "compare",
    "drop_excluded",
    "evaluate",
    "fuse",
    "load",
    "per_query_frame",
    "register",
    "with_queries",
    "__version__",
]

_EXPORTS = {
    "compare": "results.paired",  # ir_bright.compare: the function
    "per_query_frame": "results.paired",
    "drop_excluded": "scoring.scorer",
    "evaluate": "scoring.scorer",
    "Official": "scoring.official",
    "candidates": "pipelines.reranking",
    "fuse": "pipelines.fusion",
    "with_queries": "pipelines.queries",
    "register": "registry",
    "load": "registry",
}
"""Where each public name lives; imported on first use."""

_HOSTS = ("ir_datasets", "ir_measures")
"""The packages ir_bright registers with: the first of them imported triggers the registration."""


def _register() -> None:
    """Register the datasets and measures; the one INFO line saying which core entries were
    replaced reaches only logging the user configured, never a notebook's or script's stderr."""
    from .log import console_muted
    from .registry import register

    with console_muted():
        register()


_exported = _lazy.exports(__name__, _EXPORTS)


def __getattr__(name: str) -> object:
    """A public name, from its module; first the registration is made sure of, so that an
    error it met at import (where it is never raised into the host's import) is raised here,
    where the user uses what it registers."""
    value = _exported(name)
    if name != "register":
        _ensure_registered(__name__)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


_install_logging()  # levels follow ir_datasets' logger; [INFO] lines and bars as its own
_when_imported(_HOSTS, _register, __name__)
