"""A cache that cannot be written, or a damaged one, is told the same way wherever it is met:
one helper makes the "set IR_DATASETS_HOME" message, one error class names a damaged file."""

from __future__ import annotations

import errno
import re
from pathlib import Path

import pytest

from ir_bright.errors import CacheError, DamagedError, unwritable_cache

ROOT = Path(__file__).resolve().parent.parent


def test_an_unwritable_cache_names_the_path_the_reason_and_a_writable_folder():
    error = unwritable_cache("/c/x.arrow", PermissionError(errno.EACCES, "Permission denied"))
    assert isinstance(error, CacheError)
    assert str(error) == (
        "cannot write /c/x.arrow (Permission denied): set IR_DATASETS_HOME to a writable folder"
    )


def test_a_full_disk_asks_for_room_not_for_another_folder():
    error = unwritable_cache(
        Path("/c/i"), OSError(errno.ENOSPC, "No space left on device"), "the BM25 index"
    )
    assert str(error) == (
        "cannot write the BM25 index /c/i (No space left on device): free some space, or set "
        "IR_DATASETS_HOME to a disk with room"
    )


def test_no_module_writes_the_unwritable_cache_message_by_hand():
    """The fix is worded once, in ir_bright/errors.py; every other module calls the helper."""
    by_hand = re.compile(r"IR_DATASETS_HOME\s+(?:\"\s*\")?to\s+(?:\"\s*\")?a\s")
    found = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "ir_bright").rglob("*.py")
        if path.name != "errors.py" and by_hand.search(path.read_text("utf-8"))
    ]
    assert found == []


def test_a_damaged_cache_file_names_itself_and_the_fix():
    error = DamagedError(Path("/c/listing.json"), "not a readable listing")
    assert isinstance(error, CacheError) and error.path == Path("/c/listing.json")
    assert str(error) == (
        "/c/listing.json is damaged (not a readable listing): delete it; it is made again from "
        "its source on next use"
    )


@pytest.mark.parametrize("module", ["ir_bright.store.derived", "ir_bright.errors"])
def test_there_is_one_damaged_error_class(module):
    import importlib

    assert importlib.import_module(module).DamagedError is DamagedError
