"""Every place ir_bright reaches into another package's internals, each with its reason.

ir_bright fits into ir_datasets, ir_measures, PyTerrier and Python's logging through their
public APIs wherever one exists. Where none does, the reach is made here and nowhere else, so a
new release of an upstream package breaks one module, and ``tests/test_upstream.py`` says which
internal moved (each function below has a contract test there). Written against ir_datasets
0.6.3, ir_measures 0.4.3, PyTerrier 1.1.2 and CPython 3.10 to 3.13.

- :func:`dataset_table`: ir_datasets' registry dict. ``Registry.register`` refuses a name that
  exists, and ir_bright must *replace* the core's defective ``bright/*`` entries; it also asks
  each dataset for ``metadata``, which would build every lazily registered family at import;
  membership tests on the public ``Registry`` iterate every id (thousands) where a dict lookup
  is enough.
- :func:`install_measure_parser`: ``ir_measures.parse_measure`` evaluates a name against the
  measure registry and cannot read a measure nested in another's parentheses, which
  ``Official(nDCG@10)`` is; ir_bright wraps the stock parser (kept as :func:`stock_parser`).
- :func:`register_measure`: ir_measures' ``measures.register`` asserts that a name is new, so
  calling it again (``register()`` is idempotent) fails; the registry is looked at first. A
  name another package's measure holds is left to it, with a warning.
- :func:`put_provider_first`: ir_measures has no function that adds a provider to its default
  pipeline (``providers.register`` only names it), so the pipeline's ``providers`` list is
  rewritten in place: ``ir_measures.calc_aggregate`` and the rest are bound methods of that
  one pipeline. The pipeline gives each measure to the first provider that supports it.
  ir_bright's providers claim only measures of their own classes (``Official(...)``, the
  aspect measures), so where they stand changes nothing for any other measure; they stand
  first, so that no provider installed beside them can take ir_bright's measures by name.
- :func:`inner_metrics`: an ir_measures evaluator's ``_iter_calc`` (its per-query metrics without
  the missing-query pass). ``Official`` fills in missing queries once itself; the public
  ``iter_calc`` would do it a second time, hashing every metric's measure.
- :func:`follow_levels`: the ``ir_bright`` logger's class, so that its level follows
  ir_datasets' logger live (as ir_datasets' users expect ``-q`` and notebook defaults to act
  on both). Python offers ``logging.setLoggerClass`` only for loggers not yet created.
- :func:`irds_dataset_class`: PyTerrier's ir_datasets adapter lives in a private module
  (``pyterrier.datasets._irds``); ir_bright subclasses it for topics that read one file.
- :func:`irds_exporters`: ir_datasets' ``export`` command's writers, so that ``ir-bright
  export`` writes exactly what ``python -m ir_datasets export`` writes.
- :func:`interpreter_flags`: the command-line options that give a new interpreter this one's
  settings (``-I``, ``-E``, ``-s``, ``-O``, ``-W``, ``-X`` ...), as ``multiprocessing`` passes
  them to its children; the BM25 workers start the same way, so that they import the same
  packages and warn as the parent does. Python makes them in ``subprocess`` and documents no
  public function.
- :func:`modules_being_imported`: which modules other threads are importing right now (the
  owners of importlib's per-module import locks, ``importlib._bootstrap._module_locks``), so
  that a fork can wait for them: a child forked while another thread imports a module would
  wait for that module's lock for ever. Python offers no public way to ask.

Everywhere else ir_bright uses public names only (``tests/test_private_names.py`` reads every
module and fails on any private name of another package). Subclasses define only the private
hooks their packages leave to subclasses: ir_measures' ``Provider._evaluator`` and
``Evaluator._iter_calc`` (abstract in the base classes, implemented by every provider) and
``collections.abc.Set._from_iterable`` (documented as the set operators' hook). A lazily
registered dataset needs no reach: an ir_datasets ``Dataset`` asks its constituents for an
attribute only when it is read, so one constituent that builds the dataset then is enough.
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any


def dataset_table() -> dict[str, Any]:
    """ir_datasets' ``{dataset id: Dataset}`` dict (``ir_datasets.registry._registered``)."""
    import ir_datasets

    return ir_datasets.registry._registered


def stock_parser() -> Callable[[Any], Any]:
    """ir_measures' own ``parse_measure``, even after :func:`install_measure_parser`."""
    import ir_measures

    current = ir_measures.util.parse_measure
    return getattr(current, "stock", current)


def install_measure_parser(parse: Callable[[Any], Any]) -> None:
    """Make ``parse`` ir_measures' ``parse_measure`` (module and ``ir_measures.util``); the
    stock parser stays reachable as ``parse.stock`` (idempotent, survives reloads)."""
    import ir_measures

    parse.stock = stock_parser()  # type: ignore[attr-defined]
    ir_measures.parse_measure = ir_measures.util.parse_measure = parse  # type: ignore[assignment]


def register_measure(measure: Any) -> None:
    """Register ``measure`` with ir_measures under its ``NAME`` (idempotent), so that
    ``parse_measure`` reads the name; a name another measure class holds is left to it, with
    a warning."""
    import ir_measures

    name = measure.NAME
    current = ir_measures.measures.registry.get(name)
    if current is None:
        ir_measures.measures.register(measure, name=name)
    elif type(current) is not type(measure):
        held = f"{type(current).__module__}.{type(current).__qualname__}"
        warnings.warn(
            f"ir_measures already has a measure named {name} ({held}); ir_bright leaves it, "
            f"so {name!r} in a measure string means that one",
            RuntimeWarning,
            stacklevel=2,
        )


def put_provider_first(provider: Any) -> None:
    """Register ``provider`` with ir_measures and ask it first in the default pipeline
    (idempotent: a provider of the same name is replaced)."""
    import ir_measures

    ir_measures.providers.register(provider)
    pipeline = ir_measures.DefaultPipeline.providers
    pipeline[:] = [provider] + [p for p in pipeline if p.NAME != provider.NAME]


def inner_metrics(evaluator: Any, run: Any) -> Iterator[Any]:
    """The per-query metrics of an ir_measures evaluator, without its missing-query pass."""
    return evaluator._iter_calc(run)


def follow_levels(logger: logging.Logger, logger_class: type[logging.Logger]) -> None:
    """Give an existing ``logger`` the class ``logger_class`` (a subclass of ``Logger`` whose
    ``level`` is computed), keeping a level set on it, and drop the cached level checks."""
    if isinstance(logger, logger_class):
        return
    own = logger.__dict__.pop("level", logging.NOTSET)
    logger.__class__ = logger_class
    logger.setLevel(own)  # public, and it clears every logger's cached isEnabledFor answers


def irds_dataset_class() -> type:
    """PyTerrier's ir_datasets-backed dataset class."""
    from pyterrier.datasets._irds import IRDSDataset

    return IRDSDataset


def irds_exporters(entity: str) -> dict[str, Any]:
    """ir_datasets' export writers for ``entity`` (``docs``, ``queries`` or ``qrels``), by
    format name."""
    from ir_datasets.commands import export

    return export.QRELS_EXPORTERS if entity == "qrels" else export.DEFAULT_EXPORTERS


def interpreter_flags() -> list[str]:
    """This interpreter's settings as command-line options for a new one
    (``subprocess._args_from_interpreter_flags``)."""
    import subprocess

    return list(subprocess._args_from_interpreter_flags())  # type: ignore[attr-defined]


def modules_being_imported() -> set[str]:
    """The names of the modules other threads hold the import lock of (finding or running
    them)."""
    from importlib import _bootstrap

    me = threading.get_ident()
    importing = set()
    for name, ref in list(_bootstrap._module_locks.items()):  # type: ignore[attr-defined]
        lock = ref()
        if lock is not None and lock.owner not in (None, me):
            importing.add(name)
    return importing
