"""Worker processes for the index build.

:meth:`Workers.ordered` maps a function over a stream in worker processes and yields the
results in input order, with at most two items per process in flight, so memory stays bounded
however long the stream. Leaving the ``with`` block by an exception terminates the workers
(``multiprocessing.Pool.terminate``) instead of waiting for their tasks.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

__all__ = ["Workers"]

T = TypeVar("T")


class Workers:
    """A pool of ``count`` spawned worker processes, as a context manager."""

    def __init__(self, count: int) -> None:
        self.count = count
        self._pool: Any = None

    def __enter__(self) -> Workers:
        import multiprocessing

        context = multiprocessing.get_context("spawn")  # no copy of the parent's threads/locks
        self._pool = context.Pool(self.count)
        return self

    def __exit__(self, kind: Any, error: Any, traceback: Any) -> None:
        if kind is None:
            self._pool.close()
            self._pool.join()
        else:  # an error, Ctrl-C or the consumer stopped early: no waiting
            self._pool.terminate()

    def ordered(
        self, func: Callable[[Any], Any], items: Iterable[T], arg: Callable[[T], Any]
    ) -> Iterator[tuple[T, Any]]:
        """``(item, func(arg(item)))`` for every item, in order, computed by the workers."""
        pending: deque = deque()
        for item in items:
            pending.append((item, self._pool.apply_async(func, (arg(item),))))
            if len(pending) >= 2 * self.count:
                item, result = pending.popleft()
                yield item, result.get()
        while pending:
            item, result = pending.popleft()
            yield item, result.get()
