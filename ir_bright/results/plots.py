"""The charts of reports and comparisons, drawn with matplotlib (the ``plot`` extra) to PNG.

:func:`bar_chart` draws grouped bars (a report: one group per column, one bar per system);
:func:`delta_chart` draws each system's difference from a baseline with its interval (a
comparison: one panel per measure). Both check the target first (:func:`check_plot_path`).
"""

from __future__ import annotations

import io
import logging
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import IrBrightError, require
from ..outputs import Output
from .errors import ReportError


@dataclass(frozen=True)
class Bars:
    """One series of a bar chart: a name and a height per column (None: no bar)."""

    name: str
    heights: Sequence[float | None]
    reference: bool = False
    """A published row: hatched and lighter."""


def check_plot_path(path: str | Path, error: type[IrBrightError] = ReportError) -> Path:
    """``path`` as the target of a chart, or a one-line error saying why it cannot be: not
    named ``*.png``, a folder, under a file, or in a folder that cannot be written. Missing
    folders are fine (they are created)."""
    text = str(path)
    if not text.strip():
        raise error("--plot is empty: give the chart's file name, e.g. --plot bright.png")
    target = Path(text)
    if target.is_dir():
        raise error(f"--plot {target} is a folder: give a file name, e.g. {target / 'bright.png'}")
    if not target.name.lower().endswith(".png") or target.name.lower() == ".png":
        raise error(f"--plot {target}: the chart is a PNG, name it FILE.png")
    Output(target, "the plot", error=error, option="--plot")  # refuses the cache, a folder
    return target


def pyplot() -> Any:
    """matplotlib's pyplot on the file-only Agg backend (a one-line error if not installed)."""
    matplotlib = require("matplotlib", "plot")
    matplotlib.use("Agg", force=True)
    logging.getLogger("matplotlib").setLevel(logging.WARNING)  # its font-cache chatter
    import matplotlib.pyplot as plt

    return plt


def save_png(figure: Any, target: Path) -> Path:
    """Write ``figure``, laid out, to ``target`` as PNG (creating its folders), then close it."""
    import matplotlib.pyplot as plt

    png = io.BytesIO()
    try:
        figure.savefig(png, format="png", dpi=120)
    finally:
        plt.close(figure)
    Output(target, "the plot", error=ReportError, option="--plot").write_bytes(png.getvalue())
    return target


def bar_chart(
    path: str | Path, labels: Sequence[str], series: Sequence[Bars], title: str, ylabel: str
) -> Path:
    """Grouped bars: one group per label, one bar per series, to PNG at ``path``."""
    target = check_plot_path(path)
    return save_png(bar_figure(labels, series, title, ylabel), target)


def bar_figure(labels: Sequence[str], series: Sequence[Bars], title: str, ylabel: str) -> Any:
    """The figure of :func:`bar_chart`, laid out (its column labels never overlap)."""
    plt = pyplot()
    n_rows = max(len(series), 1)
    width = 0.8 / n_rows
    figure, axes = plt.subplots(figsize=(_chart_width(len(labels), n_rows), 4.5))
    for i, bars in enumerate(series):
        heights = [math.nan if v is None else v for v in bars.heights]
        positions = [x - 0.4 + width * (i + 0.5) for x in range(len(labels))]
        axes.bar(
            positions,
            heights,
            width,
            label=bars.name,
            hatch="//" if bars.reference else None,
            alpha=0.75 if bars.reference else 1.0,
        )
    _axis_labels(axes, labels)
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.legend(fontsize="small")
    axes.grid(axis="y", alpha=0.3)
    lay_out(figure)
    return figure


def _chart_width(n_columns: int, n_series: int = 1) -> float:
    """Inches: room for each column's bars (wider with more series), at least 8."""
    return max(8.0, 0.55 * n_columns * max(1.0, n_series / 2))


LABEL_LINE = 12
"""Characters per line of a column label: longer ones wrap at their '-', '_' or spaces."""


def _wrapped(label: str) -> str:
    """``label`` on lines of about :data:`LABEL_LINE` characters, broken after a separator."""
    lines: list[str] = []
    for word in re.findall(r"[^-_ ]+[-_ ]*", label) or [label]:
        if lines and len(lines[-1]) + len(word.rstrip()) <= LABEL_LINE:
            lines[-1] += word
        else:
            lines.append(word)
    return "\n".join(line.rstrip() for line in lines)


def _axis_labels(axes: Any, labels: Sequence[str]) -> None:
    axes.set_xticks(range(len(labels)))
    axes.set_xticklabels([_wrapped(label) for label in labels], fontsize="small")


def lay_out(figure: Any) -> None:
    """Fit the figure's parts in it; where an axes' column labels, level, would touch, turn
    them upright (a rotated label's box is its line height wide), then fit again."""
    figure.tight_layout()
    renderer = figure.canvas.get_renderer()
    turned = False
    for axes in figure.axes:
        ticks = axes.get_xticklabels()
        if label_overlaps(ticks, renderer, pad=4.0):
            for tick in ticks:
                tick.set_rotation(90)
            turned = True
    if turned:
        figure.tight_layout()


def label_overlaps(texts: Sequence[Any], renderer: Any, pad: float = 0.0) -> list[tuple[str, str]]:
    """The pairs of ``texts`` whose drawn boxes, ``pad`` pixels apart or closer, overlap."""
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts if t.get_text()]
    return [
        (a, b)
        for i, (a, one) in enumerate(boxes)
        for b, other in boxes[i + 1 :]
        if one.x0 < other.x1 + pad and other.x0 < one.x1 + pad
        and one.y0 < other.y1 + pad and other.y0 < one.y1 + pad
    ]  # fmt: skip


def delta_chart(frame: Any, path: str | Path, labels: Mapping[str, str], alpha: float) -> Path:
    """Each system's difference from the baseline with its interval, per dataset, to PNG
    (filled markers where the corrected p-value is below ``alpha``); one panel per measure.
    ``frame`` holds :func:`~ir_bright.results.paired.compare`'s records."""
    target = check_plot_path(path)
    plt = pyplot()
    measures = list(dict.fromkeys(frame["measure"]))
    datasets = list(dict.fromkeys(frame["dataset"]))
    figure, panels = plt.subplots(
        len(measures), 1, figsize=(_chart_width(len(datasets)), 4.2 * len(measures)),
        squeeze=False,
    )  # fmt: skip
    for axes, measure in zip(panels[:, 0], measures):
        _delta_panel(axes, frame[frame["measure"] == measure], datasets, alpha)
        axes.axhline(0, color="grey", linewidth=0.8)
        _axis_labels(axes, [labels.get(d, d) for d in datasets])
        axes.set_ylabel(f"Δ {measure} x100")
        axes.set_title(
            f"{measure}: difference from {frame['baseline'].iloc[0]} (filled: significant)"
        )
        axes.legend(fontsize="small")
        axes.grid(axis="y", alpha=0.3)
    lay_out(figure)
    return save_png(figure, target)


def _delta_panel(axes: Any, frame: Any, datasets: list[str], alpha: float) -> None:
    systems = list(dict.fromkeys(frame["system"]))
    step = 0.8 / max(len(systems), 1)
    for i, system in enumerate(systems):
        rows = frame[frame["system"] == system]
        x = np.array([datasets.index(d) for d in rows["dataset"]]) - 0.4 + step * (i + 0.5)
        delta = rows["delta"].to_numpy() * 100
        below = np.nan_to_num(delta - rows["ci_low"].to_numpy() * 100)
        above = np.nan_to_num(rows["ci_high"].to_numpy() * 100 - delta)
        line = axes.errorbar(
            x, delta, yerr=[below, above], fmt="o", capsize=3, label=system, mfc="white"
        )
        significant = (rows["p_adjusted"] < alpha).to_numpy()
        axes.plot(x[significant], delta[significant], "o", color=line[0].get_color(), zorder=3)
