"""The one table renderer of reports and comparisons: markdown, LaTeX, csv and json.

A :class:`Grid` is the table as text cells: a header, rows, how many leading columns are text
(left-aligned; the rest are numbers, right-aligned), a title and notes. :func:`render` writes it
in a format; csv and json may instead carry their own unrounded data (``records``,
``document``), as :mod:`.paired` does.

Any cell text is safe: markdown escapes ``\\`` and ``|`` and writes line breaks as ``<br>``;
LaTeX escapes its special characters (``& % $ # _ { } ~ ^ \\``), writes the few symbols the
tables use (``†``, ``Δ``, ``<``, ``>``) in math mode and line breaks as spaces (also in its
``%`` comments, where a line break would end the comment); csv quotes what needs quoting.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import IrBrightError

FORMATS = ("markdown", "csv", "latex", "json")
"""The formats :func:`render` writes."""

_BREAKS = re.compile(r"\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")  # str.splitlines' breaks
_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "†": r"$^\dagger$",
    "Δ": r"$\Delta$",
    "<": r"$<$",
    ">": r"$>$",
}
_LATEX_SPECIAL = re.compile("|".join(map(re.escape, _LATEX)))


@dataclass
class Grid:
    """A table as text: ``header`` and ``rows`` of cells; the first ``text_columns`` columns
    are text, the rest numbers. ``title`` heads the LaTeX output (a comment); ``notes`` follow
    the markdown table and are comments above the LaTeX tabular."""

    header: Sequence[str]
    rows: Sequence[Sequence[str]]
    text_columns: int = 1
    title: str | None = None
    notes: Sequence[str] = field(default_factory=list)


def markdown_text(text: str) -> str:
    """``text`` as the content of a markdown table cell."""
    text = text.replace("\\", "\\\\").replace("|", "\\|")
    return _BREAKS.sub("<br>", text)


def latex_text(text: str) -> str:
    """``text`` as LaTeX text (a cell or a comment), its special characters escaped."""
    return _LATEX_SPECIAL.sub(lambda m: _LATEX[m.group()], _BREAKS.sub(" ", text))


def render(
    grid: Grid,
    fmt: str = "markdown",
    *,
    records: Sequence[Sequence[Any]] | None = None,
    document: Any = None,
    error: type[IrBrightError] = IrBrightError,
) -> str:
    """``grid`` as markdown, LaTeX or csv text; json is ``document`` (NaN written as null).
    csv writes ``records`` (header first) when given, else the grid. An unknown ``fmt`` raises
    ``error`` naming the formats."""
    if fmt == "markdown":
        return _markdown(grid)
    if fmt == "latex":
        return _latex(grid)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerows(records if records is not None else [grid.header, *grid.rows])
        return buffer.getvalue()
    if fmt == "json":
        return json.dumps(_no_nan(document), indent=1, ensure_ascii=False) + "\n"
    raise error(f"unknown format {fmt!r}: choose {', '.join(FORMATS)}")


def _markdown(grid: Grid) -> str:
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(map(markdown_text, cells)) + " |"

    numbers = len(grid.header) - grid.text_columns
    rule = "|" + "---|" * grid.text_columns + "---:|" * numbers
    lines = [line(grid.header), rule, *map(line, grid.rows)]
    if grid.notes:
        lines += ["", *(_BREAKS.sub(" ", note) for note in grid.notes)]
    return "\n".join(lines) + "\n"


def _latex(grid: Grid) -> str:
    def line(cells: Sequence[str]) -> str:
        return " & ".join(map(latex_text, cells)) + " \\\\"

    spec = "l" * grid.text_columns + "r" * (len(grid.header) - grid.text_columns)
    comments = [*([grid.title] if grid.title else []), *grid.notes]
    lines = [f"% {latex_text(comment)}" for comment in comments]
    lines += [f"\\begin{{tabular}}{{{spec}}}", "\\toprule", line(grid.header), "\\midrule"]
    lines += [*map(line, grid.rows), "\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def _no_nan(value: Any) -> Any:
    """``value`` with NaN floats (and numpy scalars) made JSON's null and plain numbers."""
    if hasattr(value, "item") and not isinstance(value, list | dict | str):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _no_nan(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_no_nan(v) for v in value]
    return value
