"""The errors of reports and comparisons: runs or options that do not make a table."""

from __future__ import annotations

from ..errors import IrBrightError


class ReportError(IrBrightError, ValueError):
    """Runs or options that do not make a report."""


class CompareError(IrBrightError, ValueError):
    """Runs or options that do not make a comparison."""
