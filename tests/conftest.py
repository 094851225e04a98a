"""Shared pytest fixtures: an isolated IR_DATASETS_HOME and a loopback hub."""

from __future__ import annotations

import pytest

from tests.fixtures import hubserver


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    """Every test gets its own IR_DATASETS_HOME and no real hub."""
    home = tmp_path / "ir_datasets_home"
    home.mkdir()
    monkeypatch.setenv("IR_DATASETS_HOME", str(home))
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # discard port: fails fast
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("IR_BRIGHT_VERIFY", raising=False)
    monkeypatch.delenv("IR_BRIGHT_REVISION", raising=False)
    monkeypatch.setenv("IR_BRIGHT_HTTP_BACKOFF", "0.001")  # retries without waiting
    monkeypatch.setenv("IR_BRIGHT_HTTP_TIMEOUT", "10")
    monkeypatch.delenv("IR_BRIGHT_HTTP_RETRIES", raising=False)
    return home


@pytest.fixture
def hub_root(tmp_path):
    """The folder a loopback hub serves: ``<owner>/<name>/<path in repo>``."""
    root = tmp_path / "hub"
    root.mkdir()
    return root


@pytest.fixture
def hub(hub_root, monkeypatch):
    """A running loopback hub over ``hub_root``, with HF_ENDPOINT pointing at it."""
    state, server = hubserver.start(hub_root)
    monkeypatch.setenv("HF_ENDPOINT", state.url)
    yield state
    server.shutdown()
    server.server_close()
