"""The download machinery: verified, atomic, lock-protected, offline-aware."""

from __future__ import annotations

import hashlib
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ir_bright.errors import CacheError, ChecksumError, DownloadError, OfflineError
from ir_bright.hub import HubFile

REPO = "owner/data"
BODY = b"PAR1" + bytes(range(256)) * 4096 + b"PAR1"  # 1 MiB framed as parquet is


def put(hub_root: Path, path: str, body: bytes = BODY) -> bytes:
    target = hub_root / REPO / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(body)
    return body


def hub_file(path="config/split.parquet", body=BODY, **pins) -> HubFile:
    defaults = {"size": len(body), "md5": hashlib.md5(body).hexdigest()}
    defaults.update(pins)
    return HubFile(repo=REPO, path=path, namespace="ns", cache_path="split.parquet", **defaults)


def leftovers(home: Path) -> list[str]:
    folder = home / "ns" / "ir_bright"  # where ir_bright caches the files of namespace ns
    return (
        sorted(p.name for p in folder.iterdir() if not p.name.endswith(".lock"))
        if folder.exists()
        else []
    )


def test_fetch_downloads_verifies_and_caches(hub, hub_root, isolated_home):
    put(hub_root, "config/split.parquet")
    path = hub_file().fetch()
    assert path == isolated_home / "ns" / "ir_bright" / "split.parquet"
    assert path.read_bytes() == BODY
    assert hub_file().fetch() == path
    assert hub.requests == ["config/split.parquet"]


def test_checksum_mismatch_names_file_url_and_both_hashes_and_keeps_nothing(
    hub, hub_root, isolated_home
):
    put(hub_root, "config/split.parquet")
    wrong = "0" * 32
    with pytest.raises(ChecksumError) as error:
        hub_file(md5=wrong).fetch()
    message = str(error.value)
    assert "config/split.parquet" in message and hub.url in message
    assert wrong in message and hashlib.md5(BODY).hexdigest() in message
    assert "\n" not in message
    assert leftovers(isolated_home) == []


def test_size_mismatch_is_refused(hub, hub_root, isolated_home):
    put(hub_root, "config/split.parquet")
    with pytest.raises(ChecksumError, match="expected 12"):
        hub_file(size=12).fetch()
    assert leftovers(isolated_home) == []


def test_corrupted_body_is_refused(hub, hub_root, isolated_home):
    put(hub_root, "config/split.parquet")
    hub.corrupt.add("config/split.parquet")
    with pytest.raises(ChecksumError):
        hub_file().fetch()
    assert leftovers(isolated_home) == []


def test_verification_can_be_turned_off(hub, hub_root, monkeypatch):
    put(hub_root, "config/split.parquet")
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    assert hub_file(md5="0" * 32, size=1).fetch().read_bytes() == BODY


def test_sha256_etag_is_verified(hub, hub_root, isolated_home):
    put(hub_root, "config/split.parquet")
    hub.sha256_etag = True
    hub.corrupt.add("config/split.parquet")
    with pytest.raises(ChecksumError, match="sha256"):
        hub_file(md5=None, size=None).fetch()
    hub.corrupt.clear()
    assert hub_file(md5=None, size=None).fetch().read_bytes() == BODY


@pytest.mark.parametrize("listing", [False, True], ids=["etag", "listing"])
def test_a_file_the_hub_keeps_in_git_is_verified_by_its_git_blob_id(
    hub, hub_root, isolated_home, listing
):
    # small files (R2MED's query and qrels files) are not in LFS: the hub publishes no sha256
    # for them, only their git object id, sha1(b"blob <size>\0" + bytes), as ETag and oid
    body = put(hub_root, "qrels.jsonl", b'{"q_id": "0", "p_id": "d", "score": 1}\n')
    hub.git_files.add("qrels.jsonl")
    hub.listing = listing
    git_id = hashlib.sha1(b"blob %d\0" % len(body) + body).hexdigest()
    assert (
        git_id
        == subprocess.run(
            ["git", "hash-object", "--stdin"], input=body, capture_output=True, check=True
        )
        .stdout.decode()
        .strip()
    )  # git's own
    hub.corrupt.add("qrels.jsonl")
    with pytest.raises(ChecksumError, match=f"git blob id .* publishes {git_id}"):
        hub_file("qrels.jsonl", body, md5=None, size=None).fetch()
    assert leftovers(isolated_home) == []
    hub.corrupt.clear()
    assert hub_file("qrels.jsonl", body, md5=None, size=None).fetch().read_bytes() == body


def test_download_cut_off_midway_leaves_nothing_and_a_retry_works(hub, hub_root, isolated_home):
    put(hub_root, "config/split.parquet")
    hub.cut_after["config/split.parquet"] = len(BODY) // 3
    with pytest.raises(DownloadError) as error:
        hub_file(md5=None, size=None).fetch()
    assert "nothing was cached" in str(error.value)
    assert leftovers(isolated_home) == []
    del hub.cut_after["config/split.parquet"]
    assert hub_file().fetch().read_bytes() == BODY


FETCH_SCRIPT = """
import sys
from ir_bright.hub import HubFile
f = HubFile(repo={repo!r}, path="config/split.parquet", namespace="ns", cache_path="split.parquet",
            size={size}, md5={md5!r})
print(f.fetch())
"""


def fetch_in_subprocess(size: int, md5: str) -> subprocess.Popen:
    code = FETCH_SCRIPT.format(repo=REPO, size=size, md5=md5)
    return subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


@pytest.mark.slow
def test_killed_download_leaves_no_file_under_the_final_name(hub, hub_root, isolated_home):
    put(hub_root, "config/split.parquet")
    hub.slow = 0.05  # 16 chunks: about 0.8 s
    process = fetch_in_subprocess(len(BODY), hashlib.md5(BODY).hexdigest())
    deadline = time.time() + 10
    target = isolated_home / "ns" / "ir_bright" / "split.parquet"
    while not target.with_name("split.parquet.part").exists() and time.time() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert not target.exists()
    hub.slow = 0
    assert hub_file().fetch().read_bytes() == BODY


def test_many_fetchers_probing_one_cache_folder_at_once_never_fail(tmp_path):
    # Every fetch first checks the folder is writable; the probes of concurrent processes
    # must not collide (a shared probe name failed one of two processes now and then).
    from concurrent.futures import ThreadPoolExecutor

    from ir_bright.hub.config import make_folder

    def probe_repeatedly(_):
        for _ in range(300):
            make_folder(tmp_path / "ns")

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(probe_repeatedly, range(8)))
    assert list((tmp_path / "ns").iterdir()) == []


@pytest.mark.slow
def test_two_processes_fetching_at_once_both_succeed(hub, hub_root, isolated_home):
    put(hub_root, "config/split.parquet")
    hub.slow = 0.01
    processes = [fetch_in_subprocess(len(BODY), hashlib.md5(BODY).hexdigest()) for _ in range(2)]
    outputs = [p.communicate(timeout=60) for p in processes]
    assert [p.returncode for p in processes] == [0, 0], outputs
    target = isolated_home / "ns" / "ir_bright" / "split.parquet"
    assert {out.decode().strip() for out, _ in outputs} == {str(target)}
    assert target.read_bytes() == BODY
    assert len(hub.requests) == 1  # the second waited for the lock and found the file


def test_token_is_sent_when_set(hub, hub_root, monkeypatch):
    put(hub_root, "config/split.parquet")
    hub.token = "secret"
    with pytest.raises(DownloadError, match="HF_TOKEN"):
        hub_file().fetch()
    monkeypatch.setenv("HF_TOKEN", "secret")
    assert hub_file().fetch().read_bytes() == BODY


def test_missing_file_on_the_hub_is_a_clear_error(hub):
    with pytest.raises(DownloadError, match="404"):
        hub_file().fetch()


def test_read_only_cache_is_a_clear_error(hub, hub_root, isolated_home, monkeypatch):
    put(hub_root, "config/split.parquet")

    def refuse(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(
        "ir_bright.hub.transfer.create_exclusive", refuse
    )  # a read-only file system
    with pytest.raises(CacheError, match="IR_DATASETS_HOME") as error:
        hub_file().fetch()
    assert str(isolated_home / "ns") in str(error.value)


def test_cache_folder_that_is_a_file_is_a_clear_error(hub, hub_root, isolated_home):
    put(hub_root, "config/split.parquet")
    (isolated_home / "ns").write_text("not a folder")
    with pytest.raises(CacheError, match="IR_DATASETS_HOME"):
        hub_file().fetch()


def test_offline_flag_forbids_the_network(hub, hub_root, monkeypatch):
    put(hub_root, "config/split.parquet")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OfflineError, match="split.parquet"):
        hub_file().fetch()
    assert hub.requests == []


def test_alias_of_identical_bytes_avoids_a_download(hub, isolated_home):
    (isolated_home / "ns").mkdir()
    (isolated_home / "ns" / "twin.parquet").write_bytes(BODY)
    twin = HubFile(
        repo=REPO, path="x", namespace="ns", cache_path="split.parquet", aliases=("twin.parquet",)
    )
    assert twin.fetch() == isolated_home / "ns" / "twin.parquet"
    assert hub.requests == []


def twins():
    canonical = hub_file("config/a.parquet")
    twin = HubFile(
        repo=REPO,
        path="config/b.parquet",
        namespace="ns",
        cache_path="b.parquet",
        size=len(BODY),
        md5=hashlib.md5(BODY).hexdigest(),
        twin=canonical,
    )
    return canonical, twin


def test_twin_files_are_fetched_once_while_verification_is_on(hub, hub_root):
    put(hub_root, "config/a.parquet")
    put(hub_root, "config/b.parquet")
    canonical, twin = twins()
    assert twin.fetch() == canonical.fetch() == canonical.local_path
    assert hub.requests == ["config/a.parquet"]


def test_twin_files_are_fetched_apart_from_an_unverified_mirror(hub, hub_root, monkeypatch):
    put(hub_root, "config/a.parquet")
    put(hub_root, "config/b.parquet", b"PAR1 a mirror's own bytes PAR1")
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    canonical, twin = twins()
    assert twin.fetch().read_bytes() == b"PAR1 a mirror's own bytes PAR1"
    assert canonical.fetch().read_bytes() == BODY


def test_a_full_disk_is_a_cache_error_and_leaves_no_part_file(
    hub, hub_root, isolated_home, monkeypatch
):
    put(hub_root, "config/split.parquet")

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("ir_bright.hub.transfer.os.fsync", disk_full)
    with pytest.raises(CacheError, match="No space left on device"):
        hub_file().fetch()
    assert leftovers(isolated_home) == []
