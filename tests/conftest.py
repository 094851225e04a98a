"""Shared pytest fixtures: an isolated IR_DATASETS_HOME, a loopback hub serving the fixture
datasets, and the command line (plain helpers are in tests/helpers.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from tests.fixtures import bright_hub as bright_fixture
from tests.fixtures import (
    browsecomp_hub,
    builds,
    hubserver,
    r2med_hub,
    rarb_hub,
    revisions_hub,
    tempo_hub,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session", autouse=True)
def hub_builds(tmp_path_factory):
    """The fixture hubs' files, written once per test run and copied into each test's hub
    folder (tests/fixtures/builds.py)."""
    written = builds.Builds(tmp_path_factory.mktemp("hub-builds"))
    builds.activate(written)
    yield written
    builds.activate(None)


@pytest.fixture(autouse=True)
def fresh_datasets():
    """Every test builds the datasets it uses anew: a process builds a dataset once, for the
    IR_DATASETS_HOME of that moment, and each test has a home of its own."""
    yield
    from ir_bright import registry

    registry.forget_built()


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


@pytest.fixture
def bright_hub(hub, hub_root, monkeypatch):
    """``bright_hub(domains=...)``: those fixture BRIGHT domains (``{split: builder}``, see
    tests/fixtures/bright_hub.py) on the loopback hub, checksums off (the pins are the real
    files'); returns the hub, with the rows written as ``hub.rows``."""

    def serve(domains=bright_fixture.DOMAINS):
        monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
        hub.rows = bright_fixture.write_bright(hub_root, domains)
        return hub

    return serve


@pytest.fixture
def bright(bright_hub):
    """The fixture BRIGHT's four domains on the loopback hub (a test file may override this
    with other domains: ``return bright_hub(DOMAINS)``)."""
    return bright_hub()


@pytest.fixture
def bright_revisions(hub, hub_root, monkeypatch):
    """BRIGHT at two commits, mteb-v1 and mteb-v1.1 (= ``main``), with planted edits between
    them (tests/fixtures/revisions_hub.py), on the loopback hub with its listing API, each file
    verified by the hub's listing for its commit; returns the rows written, by commit."""
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "hub")
    hub.listing = True
    return revisions_hub.serve(hub, hub_root)


@pytest.fixture
def r2med(hub, hub_root):
    """The fixture R2MED's eight tasks on the loopback hub (tests/fixtures/r2med_hub.py),
    verified as the hub publishes them: the corpus by its LFS sha256, the small files (queries,
    qrels, expansion sets) by their git blob ids; returns the rows written, by task."""
    rows = r2med_hub.write_r2med(hub_root)
    small = {"query.jsonl", "qrels.jsonl"}
    small |= {
        r2med_hub.repo_path(m, llm) for m, llms in r2med_hub.EXPANSIONS.items() for llm in llms
    }
    hub.git_files |= small
    return rows


@pytest.fixture
def tempo(hub, hub_root, monkeypatch):
    """The fixture TEMPO's 13 domains on the loopback hub (tests/fixtures/tempo_hub.py),
    checksums off (the pins are the real files'); returns the rows written."""
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    return tempo_hub.write_tempo(hub_root)


@pytest.fixture
def browsecomp(hub, hub_root):
    """The fixture BrowseComp-Plus (tests/fixtures/browsecomp_hub.py) on the loopback hub, its
    query shards encrypted as the hub's are, verified by the hub's sha256; returns the
    plaintext rows written (``corpus``, ``queries``)."""
    return browsecomp_hub.write_browsecomp(hub_root)


@pytest.fixture
def rarb(hub, hub_root):
    """The fixture RAR-b's 17 task repositories on the loopback hub
    (tests/fixtures/rarb_hub.py), verified by the hub's checksums; returns the rows written,
    by repository name."""
    return rarb_hub.write_rarb(hub_root)


class Outcome(NamedTuple):
    """What an in-process run of the command line gave."""

    status: int | str | None  # as SystemExit.code
    out: str
    err: str


class CommandLine:
    """``ir-bright`` as a user runs it: ``cli(*argv)`` in this process, ``cli.fresh(*argv)``
    in a new interpreter. Arguments may be paths; they are passed as strings."""

    def __init__(self, capsys):
        self._capsys = capsys

    def __call__(self, *argv) -> Outcome:
        """Run ``main(argv)``; return its exit status and what it printed."""
        from ir_bright.cli import main

        try:
            status: int | str | None = main([str(a) for a in argv])
        except SystemExit as exc:  # argparse's own errors and --help
            status = exc.code
        out, err = self._capsys.readouterr()
        return Outcome(status, out, err)

    def fresh(self, *argv, script: str | None = None, **options) -> subprocess.CompletedProcess:
        """``python -m ir_bright *argv`` (or ``python -c script *argv``), from the repository
        root with text output captured; ``options`` go to :func:`subprocess.run`."""
        program = ["-c", script] if script else ["-m", "ir_bright"]
        options = {"capture_output": True, "text": True, "cwd": ROOT, "timeout": 120, **options}
        return subprocess.run([sys.executable, *program, *map(str, argv)], **options)


@pytest.fixture
def cli(capsys):
    """The command line, in process or in a fresh interpreter (see :class:`CommandLine`)."""
    return CommandLine(capsys)
