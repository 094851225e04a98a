"""Results: paper-style reports, published reference rows and paired comparisons.

Modules, each one concern: :mod:`.benchmarks` (the benchmarks a report tabulates and the
run-file naming rule), :mod:`.system_info` (what a system's ``system.json`` says: its
setting), :mod:`.systems` (finding systems and their runs), :mod:`.scores` (the scored table),
:mod:`.references` (published rows and checks), :mod:`.report` (``ir-bright report``),
:mod:`.stats` (tests, intervals, corrections), :mod:`.paired_runs` (the runs a comparison
pairs), :mod:`.paired` (the paired comparison, ``ir_bright.compare``), :mod:`.paired_tables`
(its tables and chart), :mod:`.tables` (the one table renderer) and :mod:`.plots` (the charts).
"""
