"""Files of a shared cache created exclusively, never through a symbolic link.

Every file ir_bright writes into its cache is created with ``O_CREAT | O_EXCL | O_NOFOLLOW``
under a temporary name and renamed into place (:func:`replaced_atomically`), and a cache entry
that is a symbolic link is refused (:func:`refuse_symlink`): a shared or world-writable cache
folder cannot be used to make ir_bright overwrite or read a file outside it, and a reader never
sees a half-written file under its final name.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from ..errors import CacheError

__all__ = ["create_exclusive", "refuse_symlink", "replaced_atomically"]

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


@contextlib.contextmanager
def replaced_atomically(target: Path):
    """Yield ``<target>.part``, created exclusively without following links, for the caller to
    write; once the block ends without error, rename it onto ``target``; on any error remove
    it. The caller holds ``target``'s lock; a reader never sees a partial ``target``."""
    partial = target.with_name(target.name + ".part")
    try:
        with create_exclusive(partial) as out:
            yield out
        os.replace(partial, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise
