"""HF_TOKEN goes to the hub's own origin only: never along a next link or a redirect elsewhere."""

from __future__ import annotations

import pytest

from ir_bright.hub import list_folder
from ir_bright.hub.http import for_the_hub
from tests.fixtures import hubserver
from tests.test_hub import BODY, REPO, hub_file, put

FOLDER_FILES = ["docs/a.parquet", "docs/b.parquet", "docs/c.parquet"]


@pytest.fixture
def other(hub_root):
    """A second loopback hub over the same files, on another port of the same host."""
    state, server = hubserver.start(hub_root)
    yield state
    server.shutdown()
    server.server_close()


@pytest.fixture
def with_token(hub, monkeypatch):
    hub.token = "secret"
    monkeypatch.setenv("HF_TOKEN", "secret")


def test_a_next_link_to_another_port_never_carries_the_token(
    hub, hub_root, other, with_token, isolated_home
):
    for path in FOLDER_FILES:
        put(hub_root, path)
    hub.listing_page = other.listing_page = 1
    hub.next_base = other.url  # the hub's first page sends the client to the other server
    entries = list_folder(REPO, "main", "docs", isolated_home / "listing.json")
    assert [e.path for e in entries] == FOLDER_FILES  # followed, page by page
    assert hub.listing_headers[0]["Authorization"] == "Bearer secret"
    assert len(other.listing_headers) == 2
    assert not any("Authorization" in headers for headers in other.listing_headers)


def test_a_redirect_to_another_port_never_carries_the_token(hub, hub_root, other, with_token):
    put(hub_root, "config/split.parquet")
    hub.redirect_to = other.url  # same host, another port
    assert hub_file().fetch().read_bytes() == BODY
    assert hub.headers[0]["Authorization"] == "Bearer secret"
    assert "Authorization" not in other.headers[0]


@pytest.mark.parametrize(
    "url, same",
    [
        ("https://hub.example/api/x", True),
        ("https://HUB.example:443/api/x", True),
        ("http://hub.example/api/x", False),  # scheme
        ("https://hub.example:8443/api/x", False),  # port
        ("https://cdn.hub.example/api/x", False),  # host
        ("https://hub.example.evil/api/x", False),
        ("https://hub.example@evil.example/x", False),  # user info is not the host
    ],
)
def test_the_token_s_origin_is_scheme_host_and_port(monkeypatch, url, same):
    monkeypatch.setenv("HF_ENDPOINT", "https://hub.example")
    assert for_the_hub(url) is same
