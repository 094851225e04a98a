"""A network that cannot heal fails fast; one that may heal keeps the patient back-off.

No DNS query leaves the machine: the unresolvable host's lookup is answered by a stand-in
``getaddrinfo`` raising what the resolver raises for a name that does not exist.
"""

from __future__ import annotations

import errno
import socket
import time

import pytest

from ir_bright.cli import main
from ir_bright.errors import DownloadError, OfflineError
from ir_bright.hub import http as hub_http
from tests.test_hub import hub_file, put

UNRESOLVABLE = "nonexistent.invalid"


@pytest.fixture
def defaults(monkeypatch):
    """The HTTP patience a user gets (the suite's conftest shortens the back-off)."""
    for name in ("IR_BRIGHT_HTTP_BACKOFF", "IR_BRIGHT_HTTP_RETRIES", "IR_BRIGHT_HTTP_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def no_such_host(monkeypatch):
    real = socket.getaddrinfo

    def getaddrinfo(host, *args, **kwargs):
        if host == UNRESOLVABLE:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setenv("HF_ENDPOINT", f"http://{UNRESOLVABLE}")


@pytest.fixture
def refused_port(monkeypatch):
    """HF_ENDPOINT on a loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")


def download_pony(capsys) -> tuple[int, list[str], float]:
    started = time.monotonic()
    status = main(["download", "bright/pony"])
    seconds = time.monotonic() - started
    out, err = capsys.readouterr()
    assert out == ""
    return status, err.strip().splitlines(), seconds


def test_an_unresolvable_host_fails_at_once_in_one_line(defaults, no_such_host, capsys):
    status, lines, seconds = download_pony(capsys)
    assert status == 2 and len(lines) == 1, lines
    assert "does not resolve" in lines[0] and "after 1 attempt(s)" in lines[0]
    assert seconds < 10


def test_a_refused_port_fails_after_a_few_short_retries(defaults, refused_port, capsys):
    status, lines, seconds = download_pony(capsys)
    assert status == 2 and len(lines) == 1, lines
    assert "refused the connection" in lines[0] and "after 4 attempt(s)" in lines[0]
    assert seconds < 40  # under 30 by design: waits of at most 1, 2 and 4 s


def test_the_refused_port_s_waits_are_short(defaults, refused_port, monkeypatch):
    waits: list[float] = []
    monkeypatch.setattr(hub_http, "_sleep", waits.append)
    with pytest.raises(OfflineError, match="refused"):
        hub_file().fetch()
    assert len(waits) == 3 and all(w <= hub_http.SHORT_WAIT_S for w in waits) and sum(waits) < 30


def test_no_route_fails_at_once(defaults, monkeypatch):
    import urllib3.util.connection

    def unreachable(*args, **kwargs):
        raise OSError(errno.ENETUNREACH, "Network is unreachable")

    monkeypatch.setattr(urllib3.util.connection, "create_connection", unreachable)
    monkeypatch.setenv("HF_ENDPOINT", "http://hub.example")
    waits: list[float] = []
    monkeypatch.setattr(hub_http, "_sleep", waits.append)
    with pytest.raises(OfflineError, match="no route"):
        hub_file().fetch()
    assert waits == []


def test_a_busy_hub_keeps_the_patient_back_off(defaults, hub, hub_root, monkeypatch):
    put(hub_root, "config/split.parquet")
    hub.status_always["config/split.parquet"] = (503, None)
    waits: list[float] = []
    monkeypatch.setattr(hub_http, "_sleep", waits.append)
    with pytest.raises(DownloadError, match="busy"):
        hub_file().fetch()
    assert len(waits) == 6 and len(hub.requests) == 7
    assert sum(waits) > 60  # about two minutes: doubling from 2 s


def test_download_failures_are_os_errors(refused_port):
    with pytest.raises(OSError):  # as core ir_datasets' failures are
        hub_file().fetch()
    assert issubclass(DownloadError, OSError) and issubclass(OfflineError, OSError)


def test_offline_still_fails_at_once_naming_the_file(defaults, no_such_host, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    started = time.monotonic()
    with pytest.raises(OfflineError, match="HF_HUB_OFFLINE is set"):
        hub_file().fetch()
    assert time.monotonic() - started < 2


def test_an_unanswered_connection_is_tried_twice(defaults, monkeypatch):
    import urllib3.util.connection

    attempts = []

    def silent(*args, **kwargs):
        attempts.append(1)
        raise TimeoutError("timed out")  # what a connect to a black hole ends in

    monkeypatch.setattr(urllib3.util.connection, "create_connection", silent)
    monkeypatch.setenv("HF_ENDPOINT", "http://hub.example")
    waits: list[float] = []
    monkeypatch.setattr(hub_http, "_sleep", waits.append)
    with pytest.raises(OfflineError, match="did not accept a connection within 10 s"):
        hub_file().fetch()
    assert len(attempts) == 2 and len(waits) == 1 and waits[0] <= 1
