"""The listing API is bounded: no endless next links, no unbounded pages, no ill-typed entries."""

from __future__ import annotations

import hashlib
import json

import pytest

from ir_bright.errors import DownloadError
from ir_bright.hub import list_folder, listing
from tests.test_hub import REPO, put

FILES = ["docs/a.parquet", "docs/b.parquet", "docs/c.parquet"]


def one_line_error(isolated_home) -> str:
    cache = isolated_home / "listing.json"
    with pytest.raises(DownloadError) as error:
        list_folder(REPO, "main", "docs", cache)
    message = str(error.value)
    assert "\n" not in message
    assert not cache.exists()  # nothing cached from a refused listing
    return message


@pytest.fixture
def folder(hub_root):
    for path in FILES:
        put(hub_root, path, b"PAR1 body PAR1")


def test_a_next_link_to_the_page_itself_is_a_loop(hub, folder, isolated_home):
    hub.next_loop = True
    message = one_line_error(isolated_home)
    assert "links back to a page already read" in message
    assert hub.requests.count("api:docs") == 1


def test_a_next_link_cycle_is_a_loop(hub, folder, isolated_home, monkeypatch):
    hub.listing_page = 1  # three pages; the last links back to the first
    real = listing._listing_page

    def cycling(url, settings):
        page, next_url = real(url, settings)
        return page, next_url or f"{hub.url}/api/datasets/{REPO}/tree/main/docs"

    monkeypatch.setattr(listing, "_listing_page", cycling)
    assert "links back to a page already read" in one_line_error(isolated_home)
    assert hub.requests.count("api:docs") == 3


def test_pages_are_capped(hub, folder, isolated_home, monkeypatch):
    hub.listing_page = 1
    monkeypatch.setattr(listing, "MAX_PAGES", 2)
    assert "runs past 2 pages" in one_line_error(isolated_home)
    assert hub.requests.count("api:docs") == 2


def test_entries_are_capped(hub, folder, isolated_home, monkeypatch):
    monkeypatch.setattr(listing, "MAX_ENTRIES", 2)
    assert "more than 2 entries" in one_line_error(isolated_home)


def test_a_page_s_bytes_are_capped(hub, folder, isolated_home, monkeypatch):
    monkeypatch.setattr(listing, "MAX_PAGE_BYTES", 100)
    assert "over 100 bytes" in one_line_error(isolated_home)


def test_a_file_s_listing_answer_is_read_within_the_page_bound(hub, folder, monkeypatch):
    hub.listing = True
    body = b"PAR1 body PAR1"
    sha256 = hashlib.sha256(body).hexdigest()
    assert listing.paths_info(REPO, "main", FILES[0]) == (len(body), sha256, None)
    monkeypatch.setattr(listing, "MAX_PAGE_BYTES", 100)  # the answer is some 150 bytes
    assert listing.paths_info(REPO, "main", FILES[0]) == (None, None, None)


def test_the_limits_are_documented_constants():
    assert listing.MAX_PAGES >= 100 and listing.MAX_ENTRIES >= 10_000
    assert listing.MAX_PAGE_BYTES >= 1 << 20


GOOD = {"type": "file", "path": "docs/a.parquet", "size": 3, "lfs": {"oid": "a" * 64, "size": 3}}


@pytest.mark.parametrize(
    "change, named",
    [
        ({"lfs": "x"}, "docs/a.parquet with lfs 'x'"),
        ({"lfs": ["x"]}, "docs/a.parquet with lfs ['x']"),
        ({"size": "3"}, "docs/a.parquet with size '3'"),
        ({"size": -1}, "docs/a.parquet with size -1"),
        ({"size": True}, "docs/a.parquet with size True"),
        ({"size": 1.5}, "docs/a.parquet with size 1.5"),
        ({"path": 7}, "with a path 7"),
        ({"path": ["docs/a.parquet"]}, "with a path ['docs/a.parquet']"),
        ({"type": 1}, "docs/a.parquet with type 1"),
        ({"lfs": {"oid": 5}}, "docs/a.parquet with lfs.oid 5"),
        ({"lfs": {"oid": "a" * 64, "size": "3"}}, "docs/a.parquet with lfs.size '3'"),
    ],
)
def test_an_ill_typed_entry_is_a_one_line_error_naming_it(
    hub, folder, isolated_home, change, named
):
    hub.listing_body = json.dumps([{**GOOD, **change}]).encode()
    message = one_line_error(isolated_home)
    assert named in message and "check HF_ENDPOINT" in message


def test_a_well_typed_entry_is_listed(hub, folder, isolated_home):
    hub.listing_body = json.dumps([GOOD, {**GOOD, "path": "docs/b", "size": None}]).encode()
    entries = list_folder(REPO, "main", "docs", isolated_home / "listing.json")
    assert [(e.path, e.size, e.sha256) for e in entries] == [
        ("docs/a.parquet", 3, "a" * 64),
        ("docs/b", None, "a" * 64),
    ]
