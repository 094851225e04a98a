"""ir_bright: BRIGHT, MM-BRIGHT and BRIGHT-Pro in ir_datasets, scored by the official protocol.

``import ir_bright`` registers every ``bright/...``, ``mm-bright/...`` and ``bright-pro/...``
dataset with ir_datasets (replacing the core's defective ``bright/*`` entries: one INFO record
of the ``ir_bright.registry`` logger says so, shown where the user configured logging) and the
``Official(...)`` measure with ir_measures. It loads nothing heavy and builds no dataset: the
ids come from the data files, a collection's datasets are built when one is first used
(:mod:`ir_bright.registry`), and pyarrow, NumPy, pandas and the plotting and statistics
libraries are imported by the calls that use them.
"""

import os as _os
import sys as _sys
from importlib import import_module as _import_module

from ._version import __version__
from .log import install as _install_logging

__all__ = [
    "Official",
    "candidates",
    "compare",
    "drop_excluded",
    "evaluate",
    "fuse",
    "per_query",
    "per_query_frame",
    "register",
    "with_queries",
    "__version__",
]

_LAZY = {
    "compare": ".results.comparison",  # ir_bright.compare: the function
    "per_query": ".results.comparison",  # deprecated: per_query_frame
    "per_query_frame": ".results.comparison",
    "drop_excluded": ".scoring",
    "evaluate": ".scoring",
    "Official": ".scoring.official",
    "candidates": ".pipelines",
    "fuse": ".pipelines",
    "with_queries": ".pipelines",
    "register": ".registry",
}
"""Where each public name lives; imported on first use (:func:`__getattr__`)."""

_startup_error: str | None = None
"""Why the package could not set up, or None. ir_datasets creates folders in its home
(``IR_DATASETS_HOME``) when it is imported; when it cannot, the package still imports, so that
the command line can say so in one line, and every name of the package raises the error."""


def _setup() -> str | None:
    """Register the datasets and measures (idempotent); return why that failed, or None."""
    global _startup_error
    try:
        from .registry import register

        register()
    except OSError as exc:
        if exc.filename is None:
            raise
        home = _os.environ.get("IR_DATASETS_HOME") or "~/.ir_datasets"
        _startup_error = (
            f"cannot use {home} as the ir_datasets home: creating {exc.filename} failed "
            f"({exc.strerror or exc}); set IR_DATASETS_HOME to a folder you may write"
        )
    return _startup_error


_CONSOLE_SCRIPTS = ("ir-bright", "ir-bright.exe", "ir-bright-script.py")


def _command_line_starting() -> bool:
    """Whether this process is the ``ir-bright`` command starting (its console script, or
    ``python -m ir_bright``): the command then registers once its arguments are parsed, so that
    ``--help`` and a mistyped option need neither ir_datasets nor the collections."""
    argv0 = _sys.argv[0] if _sys.argv else ""
    if _os.path.basename(argv0) in _CONSOLE_SCRIPTS:
        return True
    if argv0 != "-m":  # set so while ``python -m`` imports its module's packages
        return False
    argv = list(getattr(_sys, "orig_argv", ()))
    for i, arg in enumerate(argv[1:], 1):
        if arg.startswith("-m"):
            target = arg[2:] or (argv[i + 1] if i + 1 < len(argv) else "")
            return target.split(".")[0] == __name__
    return False


def __getattr__(name: str):
    """The public names, imported on first use; each raises the set-up error, if any."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if _startup_error is not None:
        from .errors import CacheError

        raise CacheError(_startup_error)
    value = getattr(_import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


_install_logging(console=False)  # ir_bright's levels follow ir_datasets' logger
if not _command_line_starting():
    _setup()  # its INFO line reaches only logging the user configured: imports stay silent
_install_logging()  # [INFO] lines and bars as ir_datasets' from here on
