"""A family's tables as ``report`` and ``compare`` read them: :class:`Benchmark` (its columns,
labels, groups and measures) and :class:`Group`, made by :meth:`~.declaration.Family.benchmarks`
from the declaration's ``benchmarks`` block. Standard library only."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Group:
    """Domains of a benchmark averaged together: a label (the column's) and their dataset
    ids."""

    label: str
    ids: tuple[str, ...]


@dataclass(frozen=True)
class Benchmark:
    """One table of a family, as declared: its datasets are one column per domain, in the
    papers' order, with the labels the papers print; its groups are averaged beside them.

    A table may also set several measures of one run side by side (BrowseComp-Plus: recall at
    5, 100 and 1,000 and nDCG@10, on its evidence and its gold qrels): each column is then a
    dataset and a measure (``measures``), read from the run file of ``runs`` (a dataset id
    whose file name the runs have), and the row may have no average."""

    name: str
    title: str
    measure: str
    ids: tuple[str, ...]
    """The columns' keys: the dataset ids, or ``<dataset id> <measure>`` in a table of
    several measures."""
    labels: tuple[str, ...]
    groups: tuple[Group, ...] = ()
    datasets: tuple[str, ...] = ()
    """Each column's dataset (default: its key)."""
    measures: tuple[str, ...] = ()
    """Each column's measure (default: the table's, which ``--measure`` may change)."""
    runs: tuple[str, ...] = ()
    """Each column's run: the dataset id its run file is named after (default: its key)."""
    average: bool = True
    """Whether a row has the average of its columns."""

    def label(self, column: str) -> str:
        """The printed label of a dataset id (groups and Avg are their own label)."""
        return self.labels[self.ids.index(column)] if column in self.ids else column

    @property
    def columns(self) -> tuple[str, ...]:
        """The value columns of a row: the dataset ids, then the group labels."""
        return (*self.ids, *(g.label for g in self.groups))

    def dataset_of(self, column: str) -> str:
        """The dataset whose qrels score ``column``."""
        return self.datasets[self.ids.index(column)] if self.datasets else column

    def measure_of(self, column: str, measure: str) -> str:
        """The measure of ``column``: its own, or ``measure`` (the table's)."""
        return self.measures[self.ids.index(column)] if self.measures else measure

    def run_of(self, column: str) -> str:
        """The dataset id whose run file ``column`` is scored from."""
        return self.runs[self.ids.index(column)] if self.runs else column

    @property
    def run_ids(self) -> tuple[str, ...]:
        """The dataset ids the table's run files are named after, each once, in order."""
        return tuple(dict.fromkeys(self.run_of(column) for column in self.ids))

    @property
    def mixed(self) -> bool:
        """Whether its columns are several measures (so ``--measure`` cannot replace them)."""
        return bool(self.measures)
