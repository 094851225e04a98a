"""Downloads against a misbehaving hub: retried, resumed, bounded in time, never cached wrong."""

from __future__ import annotations

import gzip
import hashlib
import os
import time

import pytest

from ir_bright.errors import CacheError, ChecksumError, DownloadError
from ir_bright.hub import HubFile
from ir_bright.hub import http as hub_http
from ir_bright.hub import transfer as hub_module
from tests.fixtures import hubserver
from tests.test_hub import BODY, REPO, hub_file, put

PATH = "config/split.parquet"


def unpinned() -> HubFile:
    return hub_file(md5=None, size=None)


def cached_files(home) -> list[str]:
    """Every file under the cache except lock files and provenance records."""
    return sorted(
        str(p.relative_to(home))
        for p in home.rglob("*")
        if p.is_file() and p.suffix != ".lock" and not p.name.endswith(".provenance.json")
    )


@pytest.fixture
def waits(monkeypatch):
    """The back-off waits, recorded instead of slept."""
    recorded: list[float] = []
    monkeypatch.setattr(hub_http, "_sleep", recorded.append)
    return recorded


# -- retries --------------------------------------------------------------------------------


@pytest.mark.parametrize("code", [429, 500, 502, 503, 504])
def test_a_transient_status_once_is_retried_and_the_file_cached(hub, hub_root, waits, code):
    put(hub_root, PATH)
    hub.status[PATH] = [(code, None)]
    assert hub_file().fetch().read_bytes() == BODY
    assert hub.requests == [PATH, PATH]
    assert len(waits) == 1


def test_retry_after_is_honoured(hub, hub_root, waits):
    put(hub_root, PATH)
    hub.status[PATH] = [(429, 7)]
    assert hub_file().fetch().read_bytes() == BODY
    assert waits[0] >= 7


def test_waits_grow_exponentially_with_jitter(hub, hub_root, waits, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_HTTP_BACKOFF", "1")
    put(hub_root, PATH)
    hub.status[PATH] = [(503, None)] * 4
    assert hub_file().fetch().read_bytes() == BODY
    assert len(waits) == 4
    for attempt, wait in enumerate(waits, start=1):
        assert 2 ** (attempt - 1) / 2 <= wait <= 2 ** (attempt - 1)


@pytest.mark.parametrize(
    "code, says", [(503, "the hub is busy"), (429, "the hub throttled the download")]
)
def test_a_status_that_persists_fails_after_bounded_attempts(
    hub, hub_root, isolated_home, waits, monkeypatch, code, says
):
    monkeypatch.setenv("IR_BRIGHT_HTTP_RETRIES", "3")
    put(hub_root, PATH)
    hub.status_always[PATH] = (code, None)
    with pytest.raises(DownloadError) as error:
        hub_file().fetch()
    message = str(error.value)
    assert says in message and "gave up after 4 attempt(s)" in message and "\n" not in message
    assert len(hub.requests) == 4
    assert cached_files(isolated_home) == []


def test_a_retry_after_beyond_a_minute_fails_at_once(hub, hub_root, waits):
    put(hub_root, PATH)
    hub.status_always[PATH] = (429, 3600)
    with pytest.raises(DownloadError, match="rate-limiting"):
        hub_file().fetch()
    assert len(hub.requests) == 1 and waits == []


# -- cut-off bodies ---------------------------------------------------------------------------


def test_a_cut_off_body_resumes_with_range(hub, hub_root, isolated_home, waits):
    put(hub_root, PATH)
    hub.ranges = True
    hub.cut_once[PATH] = 300_000
    assert hub_file().fetch().read_bytes() == BODY
    assert hub.headers[1]["Range"] == "bytes=300000-"
    assert cached_files(isolated_home) == ["ns/ir_bright/split.parquet"]


def test_a_resumed_body_is_still_verified_whole(hub, hub_root, isolated_home, waits):
    put(hub_root, PATH)
    hub.ranges = True
    hub.cut_once[PATH] = 300_000
    with pytest.raises(ChecksumError, match="md5"):
        hub_file(md5="0" * 32).fetch()
    assert len(hub.requests) == 2 and cached_files(isolated_home) == []


def test_a_cut_off_body_restarts_when_the_server_cannot_resume(hub, hub_root, waits):
    put(hub_root, PATH)
    hub.cut_once[PATH] = 300_000
    assert hub_file().fetch().read_bytes() == BODY
    assert "Range" not in hub.headers[1]


def test_a_body_always_cut_off_names_the_real_byte_count(
    hub, hub_root, isolated_home, waits, monkeypatch
):
    monkeypatch.setenv("IR_BRIGHT_HTTP_RETRIES", "1")
    put(hub_root, PATH)
    hub.cut_after[PATH] = 12_000
    with pytest.raises(DownloadError) as error:
        unpinned().fetch()
    assert f"cut off after 12000 of {len(BODY)} bytes" in str(error.value)
    assert cached_files(isolated_home) == []


# -- silence and slowness ---------------------------------------------------------------------


def test_a_stalled_body_fails_within_the_timeout(hub, hub_root, isolated_home, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_HTTP_TIMEOUT", "0.3")
    monkeypatch.setenv("IR_BRIGHT_HTTP_RETRIES", "0")
    put(hub_root, PATH)
    hub.stall = 3
    started = time.monotonic()
    with pytest.raises(DownloadError, match="nothing arrived for 0.3 s|did not answer"):
        hub_file().fetch()
    assert time.monotonic() - started < 2.5
    assert cached_files(isolated_home) == []


def test_a_trickling_body_fails_as_too_slow(hub, hub_root, isolated_home, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_HTTP_TIMEOUT", "0.5")
    monkeypatch.setenv("IR_BRIGHT_HTTP_RETRIES", "0")
    put(hub_root, PATH)
    hub.trickle = 0.02  # 50 bytes a second, never silent for long
    started = time.monotonic()
    with pytest.raises(DownloadError, match="too slow.*less than 1 KiB/s") as error:
        hub_file().fetch()
    assert time.monotonic() - started < 3
    assert "IR_BRIGHT_HTTP_TIMEOUT" in str(error.value)
    assert cached_files(isolated_home) == []


# -- bodies that are not the file ----------------------------------------------------------------


@pytest.mark.parametrize("verify", ["1", "0"])
def test_an_html_page_with_status_200_is_never_cached(
    hub, hub_root, isolated_home, monkeypatch, verify
):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", verify)
    put(hub_root, PATH)
    hub.html.add(PATH)
    with pytest.raises(ChecksumError, match="HTML page"):
        unpinned().fetch()
    assert cached_files(isolated_home) == []


def test_a_body_that_is_not_parquet_is_never_cached_even_unverified(
    hub, hub_root, isolated_home, monkeypatch
):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    put(hub_root, PATH, b"<error>gone</error>")
    with pytest.raises(ChecksumError, match="not a parquet file"):
        unpinned().fetch()
    assert cached_files(isolated_home) == []


def test_a_gzip_encoded_body_is_decoded_and_verified(hub, hub_root):
    put(hub_root, PATH)
    hub.gzip.add(PATH)
    assert hub_file().fetch().read_bytes() == BODY
    assert len(gzip.compress(BODY)) != len(BODY)  # the announced length was the gzip's


def test_an_encoding_we_cannot_decode_is_refused(hub, hub_root, isolated_home):
    put(hub_root, PATH)
    hub.brotli.add(PATH)
    with pytest.raises(DownloadError, match="Content-Encoding br"):
        hub_file().fetch()
    assert cached_files(isolated_home) == []


def test_a_body_without_content_length_is_accepted_when_it_verifies(hub, hub_root):
    put(hub_root, PATH)
    hub.no_length.add(PATH)
    assert hub_file().fetch().read_bytes() == BODY


def test_a_body_is_never_written_past_the_expected_size(hub, hub_root, isolated_home, monkeypatch):
    put(hub_root, PATH)
    hub.no_length.add(PATH)
    hub.extra[PATH] = b"x" * (4 << 20)
    written = []
    real_write = hub_module._Transfer._write

    def spy(self, chunk):
        real_write(self, chunk)
        written.append(self.received)

    monkeypatch.setattr(hub_module._Transfer, "_write", spy)
    with pytest.raises(ChecksumError, match=f"more than {len(BODY)} bytes"):
        hub_file().fetch()
    assert max(written) <= len(BODY)
    assert cached_files(isolated_home) == []


# -- bounds: the size ir_bright knows, in every verification mode ------------------------------

TEN_GB = 10 << 30
PAST_THE_FILE = 8 << 20  # a test stops a download that writes this far


@pytest.fixture
def written(monkeypatch):
    """The byte counts a download reached, chunk by chunk; one past :data:`PAST_THE_FILE`
    fails the test instead of filling the disk."""
    counts: list[int] = []
    real_write = hub_module._Transfer._write

    def spy(self, chunk):
        real_write(self, chunk)
        counts.append(self.received)
        assert self.received < PAST_THE_FILE, "written far past the file's size"

    monkeypatch.setattr(hub_module._Transfer, "_write", spy)
    return counts


def listed_file() -> HubFile:
    """A file named by a folder listing (as BRIGHT-Pro's are): the listing's size and sha256."""
    return hub_file(md5=None, sha256=hashlib.sha256(BODY).hexdigest())


@pytest.mark.parametrize(
    ("verify", "make", "listing", "stated"),
    [
        ("1", unpinned, True, "stated by the hub's listing"),  # MM-BRIGHT: no pins
        ("hub", hub_file, False, "the declared size"),
        ("hub", unpinned, True, "stated by the hub's listing"),
        ("hub", listed_file, False, "stated by the hub's listing"),
        ("0", unpinned, True, "stated by the hub's listing"),
        ("0", listed_file, False, "stated by the hub's listing"),
    ],
    ids=["pins-unpinned", "hub-declared", "hub-api", "hub-folder", "off", "off-folder"],
)
def test_an_endless_body_announced_as_10_gb_stops_at_the_first_byte_past_the_known_size(
    hub, hub_root, isolated_home, monkeypatch, written, verify, make, listing, stated
):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", verify)
    put(hub_root, PATH)
    hub.listing = listing
    hub.linked_size[PATH] = TEN_GB
    hub.endless.add(PATH)
    with pytest.raises(ChecksumError) as error:
        make().fetch()
    message = str(error.value)
    assert f"has more than {len(BODY)} bytes" in message and stated in message
    assert "\n" not in message
    assert max(written) <= len(BODY)
    assert cached_files(isolated_home) == []


def test_a_body_no_known_size_bounds_is_refused_before_it_is_written(
    hub, hub_root, isolated_home, monkeypatch, written
):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")  # the declared size is no bound here
    put(hub_root, PATH)
    hub.endless.add(PATH)
    with pytest.raises(DownloadError) as error:
        hub_file().fetch()
    message = str(error.value)
    assert "announced no size" in message and "cannot be bounded" in message
    assert "Content-Length or X-Linked-Size" in message and "\n" not in message
    assert written == [] and cached_files(isolated_home) == []


def test_a_file_that_changed_since_it_was_pinned_is_fetched_under_verify_hub(
    hub, hub_root, monkeypatch
):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "hub")
    put(hub_root, PATH)
    hub.listing = True  # the listing states the new size, past the declared size
    assert hub_file(size=len(BODY) - 100, md5="0" * 32).fetch().read_bytes() == BODY


def test_the_declared_size_under_verify_hub_is_a_ceiling_not_the_size(hub, hub_root, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "hub")
    put(hub_root, PATH)
    hub.no_length.add(PATH)  # nothing states the size: the declared one only bounds it
    assert hub_file(size=len(BODY) + 100, md5="0" * 32).fetch().read_bytes() == BODY
    (hub_root / REPO / PATH).write_bytes(BODY + b"PAR1" * 100)
    (hub_file().local_path).unlink()
    with pytest.raises(ChecksumError, match=f"has more than {len(BODY) + 100} bytes"):
        hub_file(size=len(BODY) + 100, md5="0" * 32).fetch()


# -- unpinned files: the hub's published size and sha256 --------------------------------------


def test_a_wrong_etag_keeps_nothing(hub, hub_root, isolated_home):
    put(hub_root, PATH)
    hub.wrong_etag.add(PATH)
    with pytest.raises(ChecksumError, match="sha256"):
        unpinned().fetch()
    assert cached_files(isolated_home) == []


def test_an_unpinned_file_without_a_published_checksum_is_refused(hub, hub_root, isolated_home):
    put(hub_root, PATH)
    hub.sha256_etag = False
    with pytest.raises(ChecksumError, match="cannot be verified"):
        unpinned().fetch()
    assert cached_files(isolated_home) == []


def test_the_listing_api_verifies_an_unpinned_file(hub, hub_root, isolated_home):
    put(hub_root, PATH)
    hub.sha256_etag = False
    hub.listing = True
    assert unpinned().fetch().read_bytes() == BODY
    hub.corrupt.add(PATH)
    (isolated_home / "ns" / "ir_bright" / "split.parquet").unlink()
    with pytest.raises(ChecksumError, match="sha256"):
        unpinned().fetch()
    assert cached_files(isolated_home) == []


def test_a_redirect_to_another_host_never_carries_the_token(
    hub, hub_root, isolated_home, monkeypatch
):
    put(hub_root, PATH)
    other, server = hubserver.start(hub_root)
    try:
        hub.redirect_to = other.url.replace("127.0.0.1", "localhost")
        other.sha256_etag = False  # what it serves is checked against the hub's headers
        hub.linked_headers = True  # the hub's 302 publishes size and sha256
        hub.token = "secret"
        monkeypatch.setenv("HF_TOKEN", "secret")
        assert unpinned().fetch().read_bytes() == BODY
        assert hub.headers[0]["Authorization"] == "Bearer secret"
        assert "Authorization" not in other.headers[0]
        other.corrupt.add(PATH)
        (isolated_home / "ns" / "ir_bright" / "split.parquet").unlink()
        with pytest.raises(ChecksumError, match="sha256"):
            unpinned().fetch()
    finally:
        server.shutdown()
        server.server_close()


# -- revision, pins and the hub's own checksums --------------------------------------------------


def test_the_revision_is_overridable(hub, hub_root, monkeypatch):
    put(hub_root, PATH)
    monkeypatch.setenv("IR_BRIGHT_REVISION", "abc123")
    assert "/resolve/abc123/" in hub_file().url
    monkeypatch.setenv("IR_BRIGHT_REVISION", f"other/repo@x,{REPO}@def456")
    assert "/resolve/def456/" in hub_file().url
    monkeypatch.setenv("IR_BRIGHT_REVISION", "other/repo@x")
    assert "/resolve/main/" in hub_file().url


def test_a_pin_mismatch_says_how_to_pin_or_override(hub, hub_root):
    put(hub_root, PATH)
    with pytest.raises(ChecksumError) as error:
        hub_file(md5="0" * 32).fetch()
    message = str(error.value)
    assert "may have changed" in message
    assert "IR_BRIGHT_REVISION" in message and "IR_BRIGHT_VERIFY=hub" in message


def test_verify_hub_ignores_pins_and_trusts_the_published_sha256(hub, hub_root, monkeypatch):
    put(hub_root, PATH)
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "hub")
    hub.sha256_etag = False
    with pytest.raises(ChecksumError, match="cannot be verified"):
        hub_file(md5="0" * 32).fetch()
    hub.sha256_etag = True
    assert hub_file(md5="0" * 32).fetch().read_bytes() == BODY


def test_ensure_counts_only_what_this_process_fetched(hub, hub_root):
    put(hub_root, PATH)
    assert hub_file().ensure()[1] == len(BODY)
    assert hub_file().ensure()[1] == 0


# -- no writes outside the cache, no secrets -----------------------------------------------------


def test_a_part_file_that_is_a_link_is_not_followed(hub, hub_root, isolated_home, tmp_path):
    put(hub_root, PATH)
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    own = isolated_home / "ns" / "ir_bright"  # where ir_bright caches ns's files
    own.mkdir(parents=True)
    os.symlink(outside, own / "split.parquet.part")
    assert hub_file().fetch().read_bytes() == BODY
    assert outside.read_text() == "keep me"
    assert not (own / "split.parquet").is_symlink()


@pytest.mark.parametrize("folder", ["ns/ir_bright", "ns"])  # its own place, or its name
def test_a_cache_entry_that_is_a_link_is_refused(hub, hub_root, isolated_home, tmp_path, folder):
    put(hub_root, PATH)
    outside = tmp_path / "elsewhere.parquet"
    outside.write_bytes(BODY)
    (isolated_home / folder).mkdir(parents=True)
    os.symlink(outside, isolated_home / folder / "split.parquet")
    with pytest.raises(CacheError, match="symbolic link"):
        hub_file().fetch()
    assert hub.requests == []


def test_a_lock_file_that_is_a_link_is_refused(hub, hub_root, isolated_home, tmp_path):
    put(hub_root, PATH)
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    (isolated_home / "ns" / "ir_bright").mkdir(parents=True)
    os.symlink(outside, isolated_home / "ns" / "ir_bright" / "split.parquet.lock")
    with pytest.raises(CacheError, match="symbolic link"):
        hub_file().fetch()
    assert outside.read_text() == "keep me"


def test_credentials_in_hf_endpoint_are_never_printed(hub, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", hub.url.replace("http://", "http://user:pa55word@"))
    with pytest.raises(DownloadError) as error:
        hub_file().fetch()  # 404: the file is not there
    assert "pa55word" not in str(error.value) and "***@" in str(error.value)
    assert "pa55word" not in hub_file().url


@pytest.mark.parametrize("token", ["secret\n", "sec ret", " secret"])
def test_a_token_with_whitespace_is_a_clear_error(hub, hub_root, monkeypatch, token):
    put(hub_root, PATH)
    monkeypatch.setenv("HF_TOKEN", token)
    with pytest.raises(DownloadError, match="HF_TOKEN holds whitespace") as error:
        hub_file().fetch()
    assert "secret" not in str(error.value)


def test_md5_of_body_is_what_the_fixture_says():  # guards the fixtures the tests above rest on
    assert hashlib.md5(BODY).hexdigest() == hub_file().md5


def test_the_download_command_fails_in_one_line_with_exit_2(hub, hub_root, isolated_home, capsys):
    from ir_bright.cli import main
    from tests.fixtures import mmbright_hub

    mmbright_hub.write_mmbright(hub_root)
    hub.html.add("examples/academia.parquet")
    status = main(["download", "mm-bright/academia/task1"])
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "HTML page" in err
    assert not any("examples" in name for name in cached_files(isolated_home))
    hub.html.clear()
    assert main(["download", "mm-bright/academia/task1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("fetched 1 file(s)") and "verified" in out and "NOT" not in out


DOWNLOAD_SCRIPT = """
import sys
from ir_bright.cli import main
sys.exit(main(["download", "mm-bright/academia/task1"]))
"""


@pytest.mark.slow
def test_concurrent_download_commands_count_only_their_own_fetches(hub, hub_root):
    import subprocess
    import sys

    from tests.fixtures import mmbright_hub

    mmbright_hub.write_mmbright(hub_root)
    hub.slow = 0.01
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", DOWNLOAD_SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=120) for p in processes]
    assert [p.returncode for p in processes] == [0, 0, 0], outputs
    counts = [int(out.decode().split()[1]) for out, _ in outputs]
    assert sum(counts) == len(hub.requests) == len(set(hub.requests))


def test_an_hf_endpoint_that_is_not_a_url_fails_at_once(hub, waits, monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "huggingface.co")
    with pytest.raises(DownloadError, match="not a URL"):
        hub_file().fetch()
    assert waits == []


def test_a_write_probe_that_is_a_link_is_not_followed(hub, hub_root, isolated_home, tmp_path):
    put(hub_root, PATH)
    outside = tmp_path / "not-created"
    (isolated_home / "ns" / "ir_bright").mkdir(parents=True)
    os.symlink(outside, isolated_home / "ns" / "ir_bright" / ".ir_bright_write_probe")
    assert hub_file().fetch().read_bytes() == BODY
    assert not outside.exists()
