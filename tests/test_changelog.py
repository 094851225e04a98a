"""The changelog's cache-format table names each cache file's current kind and version: a
format bumped without a changelog line (or a line without the bump) fails here."""

from __future__ import annotations

import re
from pathlib import Path

from ir_bright.bm25 import index
from ir_bright.families.bright import adjusted
from ir_bright.families.mmbright import images
from ir_bright.store import counts, json_rows, schema
from ir_bright.store.arrow_file import StoreFile

CHANGELOG = Path(__file__).resolve().parent.parent / "CHANGELOG.md"


def cache_formats() -> dict[str, int]:
    """The table's ``{kind: version}`` rows."""
    rows = re.findall(r"^\| [^|]+ \| `?([^|`]+?)`? \| (\d+) \|$", CHANGELOG.read_text(), re.M)
    return {kind: int(version) for kind, version in rows}


def test_the_changelog_table_gives_every_cache_format_its_current_version():
    assert cache_formats() == {
        StoreFile.KIND: StoreFile.VERSION,
        schema.KIND: schema.VERSION,
        images.VERDICT_KIND: images.VERDICT_VERSION,
        index.INDEX_KIND: index.INDEX_VERSION,
        adjusted.KIND: adjusted.VERSION,
        counts.KIND: counts.VERSION,
        json_rows.REWRITTEN_KIND: json_rows.REWRITTEN_VERSION,
    }
