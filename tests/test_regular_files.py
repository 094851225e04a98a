"""Every file ir_bright reads itself is a regular file or is refused at once (a FIFO never
blocks it, a device never feeds it for ever), and every JSON it reads is parsed within bounds
(nesting, digits, finite numbers): a failure is the file's one-line error, or a recompute
where the file is a cache or a sidecar, never an internal error."""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ir_bright.errors import DownloadError, UnreadableFileError
from ir_bright.reading import MAX_DEPTH, MAX_DIGITS, open_regular, parse_json, read_json
from ir_bright.store import derived

DEEP = "[" * 100_000 + "]" * 100_000
HOSTILE_JSON = [
    pytest.param(DEEP, id="nested-100000-deep"),
    pytest.param('{"size": ' + "7" * 5000 + "}", id="a-5000-digit-number"),
    pytest.param('{"size": 1e999}', id="an-infinite-number"),
]


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def finishes(call: Callable[[], Any], fifo: Path, seconds: float = 10) -> Any:
    """``call()``'s result; fails the test (after unblocking it) when ``call`` is still
    waiting on ``fifo`` after ``seconds``."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # lets the reader see an end
        thread.join(seconds)
        pytest.fail(f"blocked reading the FIFO {fifo}")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


# -- the parser's bounds -------------------------------------------------------------------


def test_nesting_up_to_the_bound_is_read_and_beyond_it_refused():
    assert parse_json(nested(MAX_DEPTH), "x") is not None
    with pytest.raises(UnreadableFileError, match=f"x is nested more than {MAX_DEPTH} levels"):
        parse_json(nested(MAX_DEPTH + 1), "x")


def test_numbers_up_to_the_bound_are_read_and_longer_ones_refused():
    assert parse_json("9" * MAX_DIGITS, "x") == int("9" * MAX_DIGITS)
    assert parse_json("0." + "5" * MAX_DIGITS, "x") == 0.5 + float("0." + "5" * MAX_DIGITS) - 0.5
    with pytest.raises(UnreadableFileError, match=f"more than {MAX_DIGITS} digits"):
        parse_json("9" * (MAX_DIGITS + 1), "x")


def test_brackets_and_digits_inside_strings_are_text():
    text = json.dumps({"a[": "[" * 500 + "1" * 500, "b": ['\\"{' * 100]})
    assert parse_json(text, "x") == json.loads(text)


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999", "-1e400"])
def test_numbers_that_are_not_finite_are_refused(literal):
    with pytest.raises(UnreadableFileError, match="x is not JSON ir_bright reads"):
        parse_json(f'{{"avgdl": {literal}}}', "x")


def test_bytes_that_are_not_utf8_are_refused_naming_the_byte():
    with pytest.raises(UnreadableFileError, match=r"x is not UTF-8 text \(byte 10\)"):
        parse_json(b'{"text": "\xff"}', "x")


def test_a_byte_order_mark_is_allowed():
    assert parse_json(b'\xef\xbb\xbf{"a": 1}', "x") == {"a": 1}
    assert parse_json('\ufeff{"a": 1}', "x") == {"a": 1}


def test_a_file_over_its_byte_bound_is_refused(tmp_path):
    path = tmp_path / "big.json"
    path.write_text(json.dumps(["x" * 100]))
    assert read_json(path, 1000) == ["x" * 100]
    with pytest.raises(UnreadableFileError, match="is over 10 bytes"):
        read_json(path, 10)


# -- regular files only --------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, make",
    [("a FIFO", os.mkfifo), ("a folder", os.mkdir)],
)
def test_a_file_that_is_not_regular_is_refused_at_once(tmp_path, kind, make):
    path = tmp_path / "x.json"
    make(path)
    with pytest.raises(UnreadableFileError, match=f"x.json is {kind}, not a regular file"):
        finishes(lambda: read_json(path), path)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_a_device_that_never_ends_is_refused():
    with pytest.raises(UnreadableFileError, match="/dev/zero is a device"):
        open_regular("/dev/zero")


def test_a_link_to_a_regular_file_is_read(tmp_path):
    (tmp_path / "real.json").write_text("[1]")
    (tmp_path / "link.json").symlink_to(tmp_path / "real.json")
    assert read_json(tmp_path / "link.json") == [1]


# -- every JSON ir_bright reads goes through them ------------------------------------------


def cached_hub_file(isolated_home: Path) -> Path:
    path = isolated_home / "bright" / "biology.queries.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"PAR1 some bytes PAR1")
    return path


def expected_facts(path: Path) -> tuple[str, int]:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_size


@pytest.mark.parametrize("text", HOSTILE_JSON)
def test_a_hostile_hub_provenance_sidecar_is_recomputed(isolated_home, text):
    from ir_bright.hub.fetch_records import file_provenance, sidecar

    path = cached_hub_file(isolated_home)
    sidecar(path).write_text(text)
    facts = file_provenance(path)
    assert (facts["sha256"], facts["size"]) == expected_facts(path)
    assert facts["commit"] == "unknown"
    assert json.loads(sidecar(path).read_text())["sha256"] == facts["sha256"]  # replaced


def test_a_fifo_in_place_of_a_hub_provenance_sidecar_is_replaced_without_waiting(
    isolated_home,
):
    from ir_bright.hub.fetch_records import file_provenance, sidecar

    path = cached_hub_file(isolated_home)
    os.mkfifo(sidecar(path))
    facts = finishes(lambda: file_provenance(path), sidecar(path))
    assert (facts["sha256"], facts["size"]) == expected_facts(path)
    assert sidecar(path).is_file()


@pytest.mark.parametrize("text", HOSTILE_JSON)
def test_a_hostile_manifest_is_as_none(tmp_path, text):
    from ir_bright.store import derived

    target = tmp_path / "store.arrow"
    derived.manifest_path(target).write_text(text)
    assert derived.read_manifest(target) is None


def test_a_fifo_in_place_of_a_manifest_or_a_checked_file_is_a_problem_not_a_wait(tmp_path):
    from ir_bright.store import derived

    target = tmp_path / "store.arrow"
    target.write_bytes(b"")
    derived.write_manifest(target, "kind", 1, None, {"data": target})
    target.unlink()
    os.mkfifo(target)  # of the recorded size, 0: only its kind tells
    manifest, problem = finishes(
        lambda: derived.check(target, "kind", 1, None, {"data": target}), target
    )
    assert manifest is None and problem == "data is a FIFO"
    os.unlink(derived.manifest_path(target))
    os.mkfifo(derived.manifest_path(target))
    assert finishes(lambda: derived.read_manifest(target), derived.manifest_path(target)) is None


@pytest.mark.parametrize("text", HOSTILE_JSON)
def test_a_hostile_adjusted_qrels_cache_is_damaged_not_an_internal_error(tmp_path, text):
    from ir_bright.families.bright.adjusted import KIND, VERSION, read_cache

    path = tmp_path / "adjusted.json"
    path.write_text(text)
    with pytest.raises(derived.DamagedError, match="no readable manifest"):
        read_cache(path)
    derived.write_manifest(path, KIND, VERSION, None, {path.name: path})  # as if ir_bright's
    with pytest.raises(derived.DamagedError, match="unreadable"):
        read_cache(path)


@pytest.mark.parametrize("text", HOSTILE_JSON)
def test_a_hostile_cached_count_is_recomputed(isolated_home, text):
    from ir_bright.store.counts import cached_count

    class Cached:
        def __init__(self, path):
            self.path = path

        def cached_path(self):
            return self.path

    path = cached_hub_file(isolated_home)
    path.with_name(path.name + ".counts.json").write_text(text)
    assert cached_count("rows", [Cached(path)], lambda: 7) == 7


@pytest.mark.parametrize("text", HOSTILE_JSON)
def test_a_hostile_cached_listing_is_the_one_damaged_cache_error(hub, isolated_home, text):
    from ir_bright.errors import DamagedError
    from ir_bright.hub import list_folder
    from tests.test_hub import REPO

    cache = isolated_home / "listing.json"
    cache.write_text(text)
    with pytest.raises(DamagedError, match=rf"{re.escape(str(cache))} is damaged .*delete it"):
        list_folder(REPO, "main", "docs", cache)


@pytest.mark.parametrize("text", HOSTILE_JSON)
def test_a_hostile_listing_page_is_a_one_line_download_error(hub, hub_root, isolated_home, text):
    from ir_bright.hub import list_folder
    from tests.test_hub import REPO, put

    put(hub_root, "docs/a.parquet", b"PAR1 body PAR1")
    hub.listing_body = text.encode()
    with pytest.raises(DownloadError, match="did not answer a JSON listing"):
        list_folder(REPO, "main", "docs", isolated_home / "listing.json")


# -- the commands that read a sidecar -----------------------------------------------------


@pytest.mark.parametrize("command", ["evaluate", "candidates"])
def test_a_fifo_in_place_of_a_provenance_sidecar_blocks_no_command(
    bright, cli, tmp_path, isolated_home, command
):
    run = tmp_path / "r.run"
    run.write_text("0 Q0 insects_light/Phototaxis_0.txt 1 3.0 t\n")
    assert cli("evaluate", "bright/biology", run, "--format", "json").status == 0  # cached
    (record,) = isolated_home.rglob("biology.queries.parquet.provenance.json")
    record.unlink()
    os.mkfifo(record)
    argv = ["evaluate", "bright/biology", run, "--format", "json"]
    if command == "candidates":
        argv = ["candidates", "bright/biology", run, "--depth", "1"]
    done = cli.fresh(*argv, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and done.stdout
