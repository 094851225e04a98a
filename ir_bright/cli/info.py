"""``ir-bright info ID``: what a dataset is, its official measures, counts and cache paths."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from . import add_subcommand, output_format
from .dataset_args import add_dataset_argument

EPILOG = """examples:
  ir-bright info bright/biology
  ir-bright info bright/aops/gpt4-reason
  ir-bright info bright/pony-long --format json"""


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``info`` subcommand."""
    parser = add_subcommand(
        subparsers,
        run,
        "info",
        help="documentation, official measures, counts and cache paths of a dataset",
        description="Describe one dataset: documentation, official measures, counts, the hub "
        "files it reads and where they are cached, and its cached BM25 indexes.",
        epilog=EPILOG,
    )
    add_dataset_argument(parser, "id", "ID", "a dataset id (see `ir-bright list`)")
    parser.add_argument("--format", **output_format(("text", "json"), "text"))
    return parser


def _adjusted_lines(adjusted: dict[str, Any]) -> list[str]:
    if adjusted["state"] != "computed":
        return [f"adjusted qrels: {adjusted['state']}; list of added pairs: {adjusted['list']}"]
    return [
        f"adjusted qrels: {adjusted['added']} (query, doc) pairs added to BRIGHT's qrels; "
        f"list: {adjusted['list']} (key {adjusted['key']})",
        f"  twins left excluded (the query excludes them): {adjusted['excluded_twins']}; "
        f"gold ids not in the corpus: {adjusted['gold_not_in_corpus']}",
    ]


def _provenance_lines(facts: dict[str, Any] | None) -> list[str]:
    """Where a cached file came from: repository, commit, sha256, fetch time."""
    if not facts:
        return []
    fetched = facts["fetched_at"] or "unknown (cached before ir_bright recorded it)"
    alias = f" ({facts['alias']})" if facts.get("alias") else ""
    pin = facts.get("pin")
    checked = f", verified by the {pin['source']}" if pin else ""
    return [
        f"    from {facts['repo']} at commit {facts['commit']}{alias}, fetched {fetched}",
        f"    sha256 {facts['sha256']}{checked}",
    ]


def _revision_lines(revision: dict[str, Any] | None) -> list[str]:
    """The revision read, and the family's known revisions with their aliases (the ``@`` an
    id takes)."""
    if not revision:
        return []
    alias = f" ({revision['alias']})" if revision.get("alias") else ""
    lines = [f"revision: {revision['commit']}{alias}"]
    known = [r for r in revision["known"] if r.get("alias")]
    if known:
        lines.append("known revisions (read one as ID@ALIAS, or ID@COMMIT):")
        lines += [f"  {r['alias']}: {r['commit']}, {r['known_as']}" for r in known]
    return lines


def _protocol_line(protocol: dict[str, Any], dataset_id: str) -> str:
    """The family's protocol in one line: exclusions, run depth, official BM25 (the command
    that makes it for ``dataset_id``)."""
    from ..families.advice import bm25_command

    excluded = protocol["exclusions"]
    exclusions = f"each query's {excluded} removed" if excluded else "no exclusions"
    weighting = "query-side" if protocol["query_side"] else "bag of words"
    averaged = (
        "means over the queries the run and the qrels share"
        if protocol.get("average") == "shared"
        else "a query the run misses counts 0"
    )
    return (
        f"protocol: {exclusions}; official runs {protocol['depth']} deep; headline "
        f"{protocol['measure']}; {averaged}; `{bm25_command(dataset_id)}` makes the official "
        f"BM25 run ({weighting})"
    )


CORE_LOADER = (
    "without `import ir_bright`, ir_datasets (and `python -m ir_datasets`) serve this id with "
    "their own, defective loader (the datasets page lists its defects): import ir_bright first"
)


def run(args: argparse.Namespace) -> int:
    """Print the dataset's description (text or JSON)."""
    from .. import inventory, registry

    info = inventory.describe(args.id)
    if args.format == "json":
        json.dump(info, sys.stdout, indent=1, default=str)
        sys.stdout.write("\n")
    else:
        lines = _text(info)
        if registry.replaces_core(info["id"]):
            lines.append(f"note: {CORE_LOADER}")
        sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _text(info: dict[str, Any]) -> list[str]:
    """The lines of the text format."""
    from ..hub import human_size

    lines = [info["id"] + (f": {info['name']}" if info["name"] else "")]
    if info["description"]:
        lines += ["", info["description"].strip(), ""]
    if info["website"]:
        lines.append(f"website: {info['website']}")
    measures = ", ".join(info["official_measures"]) or "none named"
    scored_by = "; ".join(f"`{command}`" for command in info["scored_by"])
    lines.append(
        f"official measures: {measures}" + (f" (scored by {scored_by})" if scored_by else "")
    )
    if info["protocol"] is not None:
        lines.append(_protocol_line(info["protocol"], info["id"]))
    lines.append(
        "counts: " + ", ".join(f"{k} {'?' if v is None else v}" for k, v in info["counts"].items())
    )
    lines += _revision_lines(info.get("revision"))
    if info["files"]:
        lines.append("files:")
        for file in info["files"]:
            state = "cached" if file["cached"] else "not cached"
            if file["damaged"]:
                state = "cached but DAMAGED: delete it and run `ir-bright download` again"
            size = human_size(file["size"])
            lines.append(f"  {file['path']} ({size}, {state}): {file['local_path']}")
            lines += _provenance_lines(file.get("provenance"))
    for folder in info["bm25_indexes"]:
        lines.append(f"bm25 index: {folder}")
    if "adjusted_qrels" in info:
        lines += _adjusted_lines(info["adjusted_qrels"])
    if info.get("bibtex"):
        lines += ["cite as:", *("  " + line for line in info["bibtex"].strip().splitlines())]
    if "summary" in info:
        summary = info["summary"]
        lines.append("summary:")
        if isinstance(summary, dict):
            lines += [f"  {k}: {v}" for k, v in summary.items()]
        else:
            lines += ["  " + line for line in str(summary).splitlines()]
    return lines
