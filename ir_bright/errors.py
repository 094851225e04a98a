"""The one exception family ir_bright raises for problems a user can fix.

Every message is a single line that names the thing at fault and the fix; the command line
prints it and exits with status 2 instead of showing a traceback.
"""

__all__ = [
    "CacheError",
    "ChecksumError",
    "DatasetNotFoundError",
    "DownloadError",
    "IrBrightError",
    "MeasureError",
    "MissingDependencyError",
    "NotOnHubError",
    "OfflineError",
    "RunFormatError",
    "UnreadableFileError",
]


class IrBrightError(Exception):
    """Base of all user-facing errors: bad input, missing data, failed downloads."""


class DownloadError(IrBrightError, OSError):
    """A hub file could not be fetched: network, HTTP status, or a transfer cut short.

    An ``OSError``, as core ir_datasets' download failures are, so ``except OSError`` handlers
    written for those keep working."""


class OfflineError(DownloadError):
    """A hub file is not cached and the hub cannot (or may not) be reached."""


class NotOnHubError(DownloadError):
    """The hub has no such file at the revision asked for (HTTP 404): a wrong revision or
    endpoint, or a dataset that did not exist yet (or any more) at that revision."""


class ChecksumError(DownloadError):
    """A downloaded file does not match its pinned size or checksum; nothing was cached."""


class CacheError(IrBrightError):
    """The cache folder cannot be written, or a cached file cannot be read."""


class UnreadableFileError(IrBrightError, ValueError):
    """A file ir_bright reads itself (a sidecar, a manifest, ``system.json``) is not a regular
    file, or not JSON within bounds (:mod:`ir_bright.reading`). A cache file or a sidecar is
    then recomputed; a file the user wrote is refused."""


class DatasetNotFoundError(IrBrightError, KeyError):
    """An id that neither ir_bright nor ir_datasets knows."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class RunFormatError(IrBrightError, ValueError):
    """A run (file, DataFrame or records) that cannot be read as a ranking."""


class MeasureError(IrBrightError, ValueError):
    """A measure that cannot be parsed or that no installed provider computes."""


class MissingDependencyError(IrBrightError, ImportError):
    """An optional dependency (Pillow, PyStemmer, matplotlib, PyTerrier) is not installed."""


def require(module: str, extra: str):
    """Import and return ``module``, or raise a one-line error naming the extra to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{module} is needed here but not installed: pip install 'ir_bright[{extra}]'"
        ) from exc
