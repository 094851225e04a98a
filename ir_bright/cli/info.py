"""``ir-bright info ID``: what a dataset is, its official measures, counts and cache paths."""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import sys
from typing import Any

from .. import hub
from . import add_subcommand

logger = logging.getLogger(__name__)

EPILOG = """examples:
  ir-bright info bright/biology
  ir-bright info bright/aops/gpt4-reason
  ir-bright info bright/pony-long --format json"""


def add_parser(subparsers) -> argparse.ArgumentParser:
    parser = add_subcommand(
        subparsers,
        run,
        "info",
        help="documentation, official measures, counts and cache paths of a dataset",
        description="Describe one dataset: documentation, official measures, counts, the hub "
        "files it reads and where they are cached, and its cached BM25 indexes.",
        epilog=EPILOG,
    )
    parser.add_argument("id", metavar="ID", help="a dataset id (see `ir-bright list`)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    return parser


def describe(dataset_id: str) -> dict[str, Any]:
    """Everything ``info`` prints, as a dict."""
    from .. import registry
    from .download import damage
    from .list import counts

    dataset = registry.load(dataset_id)
    try:
        doc = dict(dataset.documentation())
    except AttributeError:
        doc = {}
    files = []
    try:
        hub_files = list(dataset.hub_files())
    except AttributeError:
        hub_files = []
    for file in hub_files:
        cached = file.cached_path()
        files.append(
            {
                "path": file.path,
                "url": file.url,
                "size": file.size,
                "cached": cached is not None,
                "local_path": str(cached or file.shared().local_path),
                "damaged": damage(file) if cached is not None else None,
            }
        )
    info = {
        "id": dataset_id,
        "name": doc.get("pretty_name"),
        "description": doc.get("desc"),
        "official_measures": list(doc.get("official_measures") or []),
        "website": doc.get("website"),
        "counts": counts(dataset),
        "files": files,
        "bm25_indexes": _bm25_indexes(dataset),
    }
    summary = _summary(dataset_id, hub_files)
    if summary is not None:
        info["summary"] = summary
    adjusted = _adjusted_qrels(dataset)
    if adjusted is not None:
        info["adjusted_qrels"] = adjusted
    return info


def _adjusted_qrels(dataset: Any) -> dict[str, Any] | None:
    """The state of a ``bright/<domain>/adjusted`` dataset's added pairs (never computes)."""
    try:
        summary = dataset.qrels_handler().adjustment_summary
    except AttributeError:
        return None
    return summary()


def _bm25_indexes(dataset: Any) -> list[str]:
    try:
        from ..bm25 import index_folder

        root = index_folder(dataset).parent
    except Exception:  # noqa: BLE001 - no docs, or no docs file
        return []
    if not root.is_dir():
        return []
    return sorted(str(p) for p in root.iterdir() if (p / "ir_bright.json").is_file())


_SUMMARIES = {"mm-bright/": "ir_bright.mmbright", "bright-pro/": "ir_bright.brightpro"}


def _summary(dataset_id: str, hub_files: list[Any]) -> Any:
    """The collection's ``summary(id)`` (MM-BRIGHT, BRIGHT-Pro) once its files are cached."""
    module = next((m for prefix, m in _SUMMARIES.items() if dataset_id.startswith(prefix)), None)
    if module is None or not all(f.is_cached() for f in hub_files):
        return None
    try:
        summary = getattr(importlib.import_module(module), "summary", None)
    except ImportError:
        return None
    if summary is None:
        return None
    try:
        return summary(dataset_id)
    except Exception as exc:  # noqa: BLE001 - the summary is an optional extra
        logger.warning("no summary for %s: %s", dataset_id, exc)
        return None


def _adjusted_lines(adjusted: dict[str, Any]) -> list[str]:
    if adjusted["state"] != "computed":
        return [f"adjusted qrels: {adjusted['state']}; list of added pairs: {adjusted['list']}"]
    return [
        f"adjusted qrels: {adjusted['added']} (query, doc) pairs added to BRIGHT's qrels; "
        f"list: {adjusted['list']} (key {adjusted['key']})",
        f"  twins left excluded (the query excludes them): {adjusted['excluded_twins']}; "
        f"gold ids not in the corpus: {adjusted['gold_not_in_corpus']}",
    ]


def run(args: argparse.Namespace) -> int:
    info = describe(args.id)
    out = sys.stdout
    if args.format == "json":
        json.dump(info, out, indent=1, default=str)
        out.write("\n")
        return 0
    lines = [info["id"] + (f": {info['name']}" if info["name"] else "")]
    if info["description"]:
        lines += ["", info["description"].strip(), ""]
    if info["website"]:
        lines.append(f"website: {info['website']}")
    measures = ", ".join(info["official_measures"]) or "none named"
    lines.append(f"official measures: {measures} (scored by `ir-bright evaluate {info['id']} RUN`)")
    lines.append(
        "counts: " + ", ".join(f"{k} {'?' if v is None else v}" for k, v in info["counts"].items())
    )
    if info["files"]:
        lines.append("files:")
        for file in info["files"]:
            state = "cached" if file["cached"] else "not cached"
            if file["damaged"]:
                state = "cached but DAMAGED: delete it and run `ir-bright download` again"
            size = hub.human_size(file["size"])
            lines.append(f"  {file['path']} ({size}, {state}): {file['local_path']}")
    for folder in info["bm25_indexes"]:
        lines.append(f"bm25 index: {folder}")
    if "adjusted_qrels" in info:
        lines += _adjusted_lines(info["adjusted_qrels"])
    if "summary" in info:
        summary = info["summary"]
        lines.append("summary:")
        if isinstance(summary, dict):
            lines += [f"  {k}: {v}" for k, v in summary.items()]
        else:
            lines += ["  " + line for line in str(summary).splitlines()]
    out.write("\n".join(lines) + "\n")
    return 0
