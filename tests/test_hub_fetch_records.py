"""Each cached hub file records where it came from: repository, revision, resolved commit,
checksums, size and time; files cached before that get their checksums once, commit unknown."""

from __future__ import annotations

import datetime
import hashlib
import json

import pytest

from ir_bright.errors import ChecksumError
from ir_bright.hub import HubFile
from ir_bright.hub.fetch_records import file_provenance
from tests.fixtures import hubserver
from tests.test_hub import BODY, REPO, hub_file, put

COMMIT = "3066d29c9651a576c8aba4832d249807b181ecae"
KEYS = {
    "repo",
    "revision",
    "commit",
    "path",
    "sha256",
    "md5",
    "size",
    "fetched_at",
    "alias",
    "pin",
}


def test_a_download_records_the_commit_the_hub_resolved(hub, hub_root, monkeypatch):
    put(hub_root, "config/split.parquet")
    hub.commit = COMMIT.upper()  # header values are case-insensitive hex
    monkeypatch.setenv("IR_BRIGHT_REVISION", "v1.1")
    before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    path = hub_file().fetch()
    facts = file_provenance(path)
    assert set(facts) == KEYS
    assert facts["repo"] == REPO and facts["path"] == "config/split.parquet"
    assert facts["revision"] == "v1.1" and facts["commit"] == COMMIT
    assert facts["alias"] is None  # a plain id, not one at a revision
    assert facts["pin"] == {"source": "declaration", "md5": hashlib.md5(BODY).hexdigest()}
    assert facts["sha256"] == hashlib.sha256(BODY).hexdigest()
    assert facts["md5"] == hashlib.md5(BODY).hexdigest() and facts["size"] == len(BODY)
    fetched = datetime.datetime.strptime(facts["fetched_at"], "%Y-%m-%dT%H:%M:%S%z")
    assert before <= fetched <= datetime.datetime.now(datetime.timezone.utc)
    assert hub_file().provenance() == facts
    assert len(hub.requests) == 1  # reading the provenance needs no network call


def test_the_commit_of_a_redirecting_hub_is_read_from_the_redirect(hub, hub_root):
    put(hub_root, "config/split.parquet")
    other, server = hubserver.start(hub_root)
    try:
        hub.redirect_to, hub.commit = other.url, COMMIT  # the CDN says nothing of commits
        assert file_provenance(hub_file().fetch())["commit"] == COMMIT
    finally:
        server.shutdown()
        server.server_close()


def test_a_hub_that_names_no_commit_gives_unknown(hub, hub_root):
    put(hub_root, "config/split.parquet")
    hub.commit = None
    assert file_provenance(hub_file().fetch())["commit"] == "unknown"


def test_a_malformed_commit_header_is_not_recorded(hub, hub_root):
    put(hub_root, "config/split.parquet")
    hub.commit = "main; rm -rf"
    assert file_provenance(hub_file().fetch())["commit"] == "unknown"


def test_a_file_cached_before_gets_its_checksums_once_and_no_invented_commit(
    isolated_home, monkeypatch
):
    path = isolated_home / "ns" / "split.parquet"
    path.parent.mkdir()
    path.write_bytes(BODY)  # as an older ir_bright or ir_datasets itself left it
    file = HubFile(repo=REPO, path="config/split.parquet", namespace="ns", cache_path=path.name)
    facts = file.provenance()
    assert facts == {
        "repo": REPO,
        "revision": "main",
        "commit": "unknown",
        "path": "config/split.parquet",
        "sha256": hashlib.sha256(BODY).hexdigest(),
        "md5": hashlib.md5(BODY).hexdigest(),
        "size": len(BODY),
        "fetched_at": None,
        "alias": None,
        "pin": None,  # computed from the bytes, verified against nothing
    }
    from ir_bright.hub import fetch_records

    def hashed_again(*args):
        raise AssertionError("hashed again")

    monkeypatch.setattr(fetch_records, "_computed", hashed_again)
    assert file.provenance() == facts  # recorded: not hashed again


def test_a_record_that_no_longer_describes_the_file_is_recomputed(hub, hub_root):
    put(hub_root, "config/split.parquet")
    hub.commit = COMMIT
    path = hub_file().fetch()
    path.write_bytes(BODY[::-1])  # replaced by hand since
    facts = file_provenance(path)
    assert facts["sha256"] == hashlib.sha256(BODY[::-1]).hexdigest()
    assert facts["commit"] == "unknown"


def test_no_file_no_provenance(isolated_home):
    assert file_provenance(isolated_home / "missing.parquet") is None
    assert hub_file().provenance() is None


def test_the_sidecar_is_json_beside_the_file(hub, hub_root):
    put(hub_root, "config/split.parquet")
    path = hub_file().fetch()
    stored = json.loads(path.with_name(path.name + ".provenance.json").read_text("utf-8"))
    assert KEYS <= set(stored)


def test_a_refused_download_records_nothing(hub, hub_root, isolated_home):
    put(hub_root, "config/split.parquet")
    hub.corrupt.add("config/split.parquet")
    with pytest.raises(ChecksumError):
        hub_file().fetch()
    assert not list(isolated_home.rglob("*.provenance.json"))
