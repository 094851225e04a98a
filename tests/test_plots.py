"""The ``--plot`` charts: every declared benchmark's column labels stay apart and in the figure."""

from __future__ import annotations

from typing import Any

import pytest

from ir_bright.families import families
from ir_bright.results import plots
from ir_bright.results.report import column_labels

matplotlib = pytest.importorskip("matplotlib")

SMALL_DPI = 40
"""Fast to draw: sizes are in inches and points, so the boxes scale together with the dpi."""

DECLARED = [
    pytest.param(bench, id=name)
    for family in families()
    for name, bench in family.benchmarks().items()
]


def series(n_columns: int) -> list[plots.Bars]:
    """Two made-up systems and a published row, with a missing cell."""
    heights: list[float | None] = [10.0 + 3 * i for i in range(n_columns)]
    return [
        plots.Bars("bm25", heights),
        plots.Bars("a much longer system name", [h and h / 2 for h in heights]),
        plots.Bars("published", [None, *heights[1:]], reference=True),
    ]


def label_faults(figure: Any) -> list[str]:
    """Each pair of tick labels that overlap and each label outside the figure, drawn."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    whole = figure.bbox
    faults = []
    for axes in figure.axes:
        ticks = axes.get_xticklabels()
        faults += [f"{a!r} overlaps {b!r}" for a, b in plots.label_overlaps(ticks, renderer)]
        for tick in ticks:
            box = tick.get_window_extent(renderer)
            if box.x0 < whole.x0 or box.x1 > whole.x1 or box.y0 < whole.y0 or box.y1 > whole.y1:
                faults.append(f"{tick.get_text()!r} is outside the figure")
    return faults


@pytest.mark.parametrize("bench", DECLARED)
def test_report_chart_labels_of_every_declared_benchmark_neither_overlap_nor_leave_the_figure(
    bench,
):
    labels = column_labels(bench)
    with matplotlib.rc_context({"figure.dpi": SMALL_DPI}):
        figure = plots.bar_figure(labels, series(len(labels)), bench.title, "nDCG@10 x100")
    try:
        assert label_faults(figure) == []
        drawn = [t.get_text().split() for t in figure.axes[0].get_xticklabels()]
        assert ["".join(words) for words in drawn] == [label.replace(" ", "") for label in labels]
    finally:
        import matplotlib.pyplot as plt

        plt.close(figure)


def test_the_label_check_finds_r2meds_overlap_in_the_old_level_unwrapped_layout():
    r2med = next(f for f in families() if f.name == "r2med").benchmarks()["r2med"]
    labels = column_labels(r2med)
    plt = plots.pyplot()
    figure, axes = plt.subplots(figsize=(max(8.0, 0.55 * len(labels) * 1.5), 4.5), dpi=SMALL_DPI)
    axes.bar(range(len(labels)), [1.0] * len(labels))
    axes.set_xticks(range(len(labels)))
    axes.set_xticklabels(labels)  # the layout before: level, whole, 8 inches wide
    figure.tight_layout()
    try:
        assert any("overlaps" in fault for fault in label_faults(figure))
    finally:
        plt.close(figure)
