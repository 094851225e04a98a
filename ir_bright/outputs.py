"""Checks on files the package writes for the user (runs, plots), made before any work."""

from __future__ import annotations

import os
from pathlib import Path

from .errors import IrBrightError

__all__ = ["check_writable"]


def check_writable(target: Path, what: str, error: type[IrBrightError] = IrBrightError) -> Path:
    """Return ``target`` if it can be created: its nearest existing parent is a folder the
    process may write (missing folders below it are created later). Otherwise raise
    ``error`` naming ``what`` (``the run``, ``the plot``), the file and the culprit folder."""
    for folder in target.parents:
        if folder.exists():
            if not folder.is_dir():
                raise error(f"cannot write {what} {target}: {folder} is a file")
            if not os.access(folder, os.W_OK):
                raise error(
                    f"cannot write {what} {target}: {folder} is not writable (permission "
                    "denied or a read-only disk)"
                )
            break
    return target
