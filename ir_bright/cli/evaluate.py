"""``ir-bright evaluate DATASET RUN [RUN ...]``: official scores of TREC run files.

Every run is read and scored before anything is printed, so a bad run gives one error line
(exit status 2) and no partial table. Results go to stdout (or ``-o FILE``, written by
:class:`ir_bright.outputs.Output`: never one of the input runs or a file of the cache),
warnings to stderr. ``--stock`` adds, beside each official value, the value stock ir_measures
gives the same run and the dataset's qrels (excluded documents left in place), labelled
``stock:<measure>``.

``--format json`` writes ``{run path: scores, ..., "provenance": {...}}``: the run paths stay
the top-level keys they always were, beside one more key, ``provenance``
(:func:`ir_bright.provenance.provenance`: the ir_bright version, the protocol, the measures
as named in the output, ``stock:`` ones included, and the hub repository, commit and sha256
of each file the qrels were read from). A run given as ``provenance`` is refused there:
name it ``./provenance``.
"""

from __future__ import annotations

import argparse
import csv
import json
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from . import add_force_option, add_subcommand, output_format
from .dataset_args import add_dataset_argument

if TYPE_CHECKING:
    from ..scoring import Scorer
    from ..scoring.stock import StockScorer

FORMATS = ("table", "json", "csv")
Results = list[tuple[str, dict[str, Any]]]  # (run path, scores) in command-line order
MEAN_ROW = "all"
PROVENANCE = "provenance"  # the key of the json output beside the run paths

PROTOCOL_NOTE = (
    "Every measure is computed under the official protocol, so the numbers match each "
    "benchmark's own scripts (stock trec_eval scores lower wherever a run ranks excluded "
    "documents). {protocol} Queries missing from a run count as 0. A run file repeating a "
    "(query, doc) pair is refused, as trec_eval refuses it. A run that would score nothing, none "
    "of its queries being the dataset's or none of its ranked documents judged or excluded for "
    "its query, is refused with exit status 2, naming the dataset of the family it seems to be "
    "for (--force scores the latter anyway)."
)
EXAMPLES = """\
examples:
  ir-bright evaluate bright/aops bm25.run
  ir-bright evaluate bright/biology a.run b.run.gz -m nDCG@10 -m R@100 -m RR
  ir-bright evaluate bright/pony-long run.txt --per-query --format csv -o per_query.csv
  ir-bright evaluate bright/leetcode/gpt4-reason run.trec --format json
  ir-bright evaluate bright/aops bm25.run --stock     nDCG@10 and stock:nDCG@10 side by side
  ir-bright bm25 bright/pony | ir-bright evaluate bright/pony -
"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``evaluate`` subcommand."""
    from ..families.texts import protocol

    parser = add_subcommand(
        subparsers,
        run,
        "evaluate",
        help="score TREC run files under the official protocol",
        description="Score TREC run files on an ir_bright dataset under the\n"
        "official protocol: one row per run, one column per measure.",
        epilog=textwrap.fill(PROTOCOL_NOTE.format(protocol=protocol().replace("`", "")), 95)
        + "\n\n"
        + EXAMPLES,
    )
    add_dataset_argument(parser, "dataset", "DATASET", "dataset id, e.g. bright/aops")
    parser.add_argument(
        "runs",
        metavar="RUN",
        nargs="+",
        help="TREC run file (query Q0 doc rank score tag), plain or gzip; - reads stdin",
    )
    parser.add_argument(
        "-m",
        "--measure",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="measure in ir_measures syntax (nDCG@10, R@1, AP@100, RR, ...); repeatable; "
        "default: the dataset's official measures",
    )
    parser.add_argument(
        "--per-query",
        action="store_true",
        help=f"one row per run and query, then the run's mean as query '{MEAN_ROW}'",
    )
    parser.add_argument(
        "--stock",
        action="store_true",
        help="also score each measure as stock ir_measures / trec_eval do (excluded documents "
        "kept in the ranking), in a column stock:<measure> beside the official one",
    )
    add_force_option(parser)
    parser.add_argument("--format", **output_format(FORMATS, "table"))
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the results to FILE (replaced only once complete) instead of stdout",
    )
    return parser


def run(args: argparse.Namespace) -> int:
    """Score every run and print the results; errors propagate as IrBrightError."""
    from ..errors import IrBrightError
    from ..outputs import Output
    from ..provenance import provenance
    from ..scoring import Scorer
    from ..scoring.stock import STOCK, StockScorer

    if args.format == "json" and PROVENANCE in args.runs:
        raise IrBrightError(
            f"a run named {PROVENANCE!r} would clash with the json output's {PROVENANCE!r} "
            f"key: give it as ./{PROVENANCE}"
        )
    output = Output(args.output, "the results", inputs=args.runs)
    scorer = Scorer(args.dataset, args.measures, force=args.force)
    stock = StockScorer(scorer) if args.stock else None
    results = [(path, _score(scorer, stock, path, args.per_query)) for path in args.runs]
    names = scorer.names
    if stock is not None:
        names = [name for official in names for name in (official, STOCK + official)]
    if args.format == "json":  # after scoring: the files read are cached by now
        about = provenance([args.dataset], "official", names)
        results = [*results, (PROVENANCE, about)]
    write = {"table": _write_table, "json": _write_json, "csv": _write_csv}[args.format]
    with output.open(newline="") as out:
        write(out, results, names, args.per_query)
    return 0


def _score(scorer: Scorer, stock: StockScorer | None, path: str, per_query: bool) -> dict:
    run = path if path == "-" else Path(path)  # a str with a line break would be run text
    if stock is None:  # the scorer reads the file itself, a part at a time
        if not per_query:
            return scorer.evaluate(run, path)
        rows = scorer.per_query(run, path)
        rows[MEAN_ROW] = _means(rows, scorer)
        return rows
    from ..runs import read_run

    ranked = read_run(run, path)  # read once for both scorers: stdin works
    if not per_query:
        return {**scorer.evaluate(ranked, path), **stock.evaluate(ranked)}
    rows = scorer.per_query(ranked, path)
    rows[MEAN_ROW] = _means(rows, scorer)
    if stock is not None:
        stock_rows = stock.per_query(ranked)
        stock_rows[MEAN_ROW] = stock.evaluate(ranked)
        rows = {query_id: {**values, **stock_rows[query_id]} for query_id, values in rows.items()}
    return rows


def _means(rows: dict[str, dict[str, float]], scorer: Scorer) -> dict[str, float]:
    aggregators = {m: m.aggregator() for m in scorer.measures}
    for values in rows.values():
        for measure, aggregator in aggregators.items():
            aggregator.add(values[str(measure.inner)])
    return {str(m.inner): float(a.result()) for m, a in aggregators.items()}


def _rows(results: Results, names: Sequence[str], per_query: bool) -> list[list[Any]]:
    if not per_query:
        return [[path] + [values[n] for n in names] for path, values in results]
    return [
        [path, query_id] + [values[n] for n in names]
        for path, queries in results
        for query_id, values in queries.items()
    ]


def _header(names: Sequence[str], per_query: bool) -> list[str]:
    return ["run", "query"] + list(names) if per_query else ["run"] + list(names)


def _write_table(out: IO[str], results: Results, names: Sequence[str], per_query: bool) -> None:
    header = _header(names, per_query)
    keys = 2 if per_query else 1
    rows = [
        row[:keys] + [f"{v:.4f}" for v in row[keys:]] for row in _rows(results, names, per_query)
    ]
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [
            str(c).ljust(w) if i < keys else str(c).rjust(w)
            for i, (c, w) in enumerate(zip(row, widths))
        ]
        print("  ".join(cells).rstrip(), file=out)


def _write_json(out: IO[str], results: Results, names: Sequence[str], per_query: bool) -> None:
    json.dump(dict(results), out, indent=2)
    print(file=out)


def _write_csv(out: IO[str], results: Results, names: Sequence[str], per_query: bool) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_header(names, per_query))
    keys = 2 if per_query else 1
    writer.writerows(
        row[:keys] + [repr(v) for v in row[keys:]] for row in _rows(results, names, per_query)
    )
