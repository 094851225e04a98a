"""Results: paper-style reports, published reference rows and paired comparisons.

Modules, each one concern: :mod:`.suites` (the benchmark catalogue and the run-file naming
rule), :mod:`.systems` (finding systems and their runs), :mod:`.scores` (the scored table),
:mod:`.references` (published rows and checks), :mod:`.report` (``ir-bright report``),
:mod:`.stats` (tests, intervals, corrections), :mod:`.pairs` (the runs a comparison pairs),
:mod:`.comparison` (``ir_bright.compare``), :mod:`.comparison_output` (its tables and chart),
:mod:`.tables` (the one table renderer) and :mod:`.plots` (the charts).
"""
