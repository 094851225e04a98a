"""Files of a shared cache created exclusively, never through a symbolic link.

A download's ``.part`` file is created with ``O_CREAT | O_EXCL | O_NOFOLLOW``
(:func:`create_exclusive`; every other file is written by :mod:`ir_bright.atomic`), and a cache
entry that is a symbolic link is refused (:func:`refuse_symlink`): a shared or world-writable
cache folder cannot be used to make ir_bright overwrite or read a file outside it.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ..errors import CacheError

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def refuse_symlink(path: Path) -> None:
    """Raise a one-line :class:`CacheError` when ``path`` is a symbolic link."""
    if os.path.islink(path):
        raise CacheError(
            f"{path} is a symbolic link: ir_bright never follows links inside its cache; "
            "remove it (and put the real file there, if it was one)"
        )


def create_exclusive(path: Path):
    """A new file opened for binary writing, created exclusively without following links.

    A leftover at ``path`` (a killed process's temporary file; the caller holds the lock) is
    unlinked first: unlinking removes a symbolic link itself, never its target.
    """
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    return os.fdopen(os.open(path, flags, 0o644), "wb")
