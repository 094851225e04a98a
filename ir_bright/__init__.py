"""ir_bright: BRIGHT and MM-BRIGHT in ir_datasets, scored by the official protocol.

``import ir_bright`` registers every ``bright/...`` and ``mm-bright/...`` dataset with
ir_datasets (replacing the core's defective ``bright/*`` entries) and the ``Official(...)``
measure with ir_measures.
"""

from ._version import __version__
from .log import install as _install_logging

_install_logging(console=False)  # [INFO] lines and bars as ir_datasets', quiet when it is

__all__ = [
    "Official",
    "compare",
    "drop_excluded",
    "evaluate",
    "per_query",
    "per_query_frame",
    "register",
    "__version__",
]

_startup_error: str | None = None
"""Why the package could not set up, or None. ir_datasets creates folders in its home
(``IR_DATASETS_HOME``) when it is imported; when it cannot, the package still imports, so that
the command line can say so in one line, and every name of the package raises the error."""

try:
    from .registry import register
    from .results.comparison import compare, per_query, per_query_frame
    from .scoring import drop_excluded, evaluate
    from .scoring.official import Official

    register()
except OSError as exc:
    if exc.filename is None:
        raise
    import os as _os

    _home = _os.environ.get("IR_DATASETS_HOME") or "~/.ir_datasets"
    _startup_error = (
        f"cannot use {_home} as the ir_datasets home: creating {exc.filename} failed "
        f"({exc.strerror or exc}); set IR_DATASETS_HOME to a folder you may write"
    )

    def __getattr__(name: str):
        """Every public name raises the set-up error."""
        if name in __all__:
            from .errors import CacheError

            raise CacheError(_startup_error)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_install_logging()  # the console, after the import-time registration line
