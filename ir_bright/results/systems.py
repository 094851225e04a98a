"""Finding the systems and their runs from command-line arguments (:func:`collect`).

Each argument is one of

- ``ID=PATH``: the run of dataset ``ID``;
- a run file: its dataset is read from its name (the naming rule of :mod:`.benchmarks`);
- a folder holding run files named after datasets: one system, named after the folder (or
  the ``label`` of its ``system.json``, which also gives its setting: :mod:`.system_info`);
- a folder of such folders: one system per sub-folder.

Loose files and ``ID=PATH`` arguments form one system named ``name`` (default ``run``).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..families import Benchmark
from .benchmarks import (
    benchmark,
    benchmarks_of,
    check_query_set_name,
    column_of,
    dataset_from_filename,
    filename_for,
)
from .errors import ReportError
from .system_info import SystemInfo, read_system_json

logger = logging.getLogger(__name__)

DEFAULT_SYSTEM = "run"


@dataclass
class System:
    """One row: a name, a run path per dataset id (a column's), the query set's dataset each
    run is of where it is not the column's own, and what its ``system.json`` says."""

    name: str
    runs: dict[str, Path] = field(default_factory=dict)
    info: SystemInfo | None = None
    datasets: dict[str, str] = field(default_factory=dict)

    def dataset_of(self, run_id: str) -> str:
        """The dataset the run of column ``run_id`` is scored on."""
        return self.datasets.get(run_id, run_id)


def infer_benchmark(arguments: Sequence[str]) -> Benchmark:
    """The one benchmark the run files among ``arguments`` (scanned as :func:`collect` scans
    them) belong to; a one-line error when they name none or several."""
    found: dict[str, int] = {}
    for dataset_id in _named_datasets(arguments):
        for name in benchmarks_of(dataset_id):
            found[name] = found.get(name, 0) + 1
    if len(found) == 1:
        return benchmark(next(iter(found)))
    if not found:
        raise ReportError(
            "no run file named after a dataset of any benchmark: name runs like "
            f"{filename_for(_example_id())} or pass --benchmark and ID=PATH"
        )
    listed = ", ".join(f"{name} ({count} runs)" for name, count in found.items())
    raise ReportError(f"the runs belong to several benchmarks: {listed}; pick one with --benchmark")


def _example_id() -> str:
    """A dataset id to show in messages: the first declared family's first dataset."""
    from ..families import families

    return families()[0].entries[0].id


def is_id_path(argument: str) -> bool:
    """Whether a run argument is ``ID=PATH`` (a file of that name that exists is a path)."""
    return "=" in argument and not Path(argument).exists()


def _named_datasets(arguments: Sequence[str]) -> Iterable[str]:
    for argument in arguments:
        path = Path(argument)
        if is_id_path(argument):
            yield argument.partition("=")[0]
        elif path.is_file():
            yield dataset_from_filename(path.name)
        elif path.is_dir():
            for inner in sorted(path.iterdir()):
                files = sorted(inner.iterdir()) if inner.is_dir() else [inner]
                yield from (dataset_from_filename(f.name) for f in files if f.is_file())


def collect(arguments: Sequence[str], bench: Benchmark, name: str = DEFAULT_SYSTEM) -> list[System]:
    """The systems and their runs found from the command line's arguments (module docstring)."""
    loose = System(name)
    systems: list[System] = []
    for argument in arguments:
        path = Path(argument)
        if is_id_path(argument):
            _add(loose, *_id_path(argument, bench), bench)
        elif path.is_file():
            _add(loose, _file_dataset(path, bench), path, bench)
        elif path.is_dir():
            systems += _folder_systems(path, bench)
        else:
            raise ReportError(f"{argument}: no such file or folder")
    if loose.runs:
        systems.insert(0, loose)
    names = [s.name for s in systems]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ReportError(
            f"two systems are called {duplicates[0]!r}: give the folders distinct names"
        )
    if not systems:
        raise ReportError("no runs given: pass a folder of runs, run files or ID=PATH")
    return systems


def _id_path(argument: str, bench: Benchmark) -> tuple[str, Path]:
    dataset_id, _, text = argument.partition("=")
    path = Path(text)
    if column_of(dataset_id, bench) is None:
        raise ReportError(
            f"{argument}: {dataset_id!r} is not a dataset of benchmark {bench.name} "
            f"(its ids: {bench.run_ids[0]} ... {bench.run_ids[-1]})"
        )
    if not text.strip():
        raise ReportError(f"{argument}: no path after '=': write ID=PATH")
    if path.is_dir():
        raise ReportError(f"{argument}: {path} is a folder, not a run file")
    if not path.is_file():
        raise ReportError(f"{argument}: no run file {path}")
    return dataset_id, path


def _file_dataset(path: Path, bench: Benchmark) -> str:
    dataset_id = dataset_from_filename(path.name)
    if column_of(dataset_id, bench) is not None:
        return dataset_id
    check_query_set_name(path.name, bench)
    others = benchmarks_of(dataset_id)
    if others:
        raise ReportError(
            f"{path}: the file name names no dataset of {bench.name} but "
            f"{dataset_id}, of {' and '.join(others)}: pass --benchmark {others[0]}"
        )
    raise ReportError(
        f"{path}: the file name names no dataset of {bench.name}: name runs "
        f"{filename_for(bench.run_ids[0])} (the id, / written __) or pass ID=PATH"
    )


def _folder_systems(path: Path, bench: Benchmark) -> list[System]:
    """The folder as one system, or its sub-folders as one system each."""
    found = _folder_system(path, bench)
    if found.runs:
        return [found]
    subsystems = [_folder_system(sub, bench) for sub in sorted(path.iterdir()) if sub.is_dir()]
    subsystems = [s for s in subsystems if s.runs]
    if not subsystems:
        raise ReportError(
            f"{path}: no run file named after a dataset of {bench.name} in it or its "
            f"sub-folders: name them like {filename_for(bench.run_ids[0])}"
        )
    return subsystems


def _folder_system(folder: Path, bench: Benchmark) -> System:
    """The runs of ``bench`` in ``folder`` (and, when there are some, its system.json)."""
    system = System(folder.resolve().name)
    elsewhere: dict[str, int] = {}
    for path in sorted(folder.iterdir()):
        if not path.is_file():
            continue
        dataset_id = dataset_from_filename(path.name)
        if column_of(dataset_id, bench) is not None:
            _add(system, dataset_id, path, bench)
            continue
        check_query_set_name(path.name, bench)
        for name in benchmarks_of(dataset_id):
            elsewhere[name] = elsewhere.get(name, 0) + 1
    if elsewhere:
        logger.warning(
            "%s: skipping runs of other benchmarks (%s): report them with --benchmark",
            folder,
            ", ".join(f"{name}: {count}" for name, count in elsewhere.items()),
        )
    if system.runs:
        system.info = read_system_json(folder)
        system.name = (system.info and system.info.label) or system.name
    return system


def _add(system: System, dataset_id: str, path: Path, bench: Benchmark) -> None:
    """Add the run of ``dataset_id`` (a column's, or a query set's of it) at ``path``."""
    column = column_of(dataset_id, bench) or dataset_id
    if column in system.runs and system.runs[column] != path:
        raise ReportError(
            f"two runs for {column} in {system.name!r}: {system.runs[column]} and {path}"
        )
    system.runs[column] = path
    if dataset_id != column:
        system.datasets[column] = dataset_id
