"""Every environment variable the hub client reads is validated at first use: one line naming
the variable, the value and what is accepted; exit 2 from the command line."""

from __future__ import annotations

import pytest

from ir_bright.cli import main
from ir_bright.errors import DownloadError
from ir_bright.hub.config import HttpPatience, http_patience
from tests.fixtures import mmbright_hub
from tests.test_hub import hub_file, put

BAD = [
    ("IR_BRIGHT_HTTP_RETRIES", "nan", "a number at least 0 and at most 100"),
    ("IR_BRIGHT_HTTP_RETRIES", "inf", "at most 100"),
    ("IR_BRIGHT_HTTP_RETRIES", "1e400", "at most 100"),
    ("IR_BRIGHT_HTTP_RETRIES", "-1", "at least 0"),
    ("IR_BRIGHT_HTTP_RETRIES", "101", "at most 100"),
    ("IR_BRIGHT_HTTP_RETRIES", "2.5", "a whole number from 0 to 100"),
    ("IR_BRIGHT_HTTP_RETRIES", "six", "a number"),
    ("IR_BRIGHT_HTTP_TIMEOUT", "nan", "a number more than 0 and at most 86400"),
    ("IR_BRIGHT_HTTP_TIMEOUT", "inf", "more than 0"),
    ("IR_BRIGHT_HTTP_TIMEOUT", "0", "more than 0"),
    ("IR_BRIGHT_HTTP_TIMEOUT", "-5", "more than 0"),
    ("IR_BRIGHT_HTTP_TIMEOUT", "1e400", "at most 86400"),
    ("IR_BRIGHT_HTTP_BACKOFF", "nan", "a number at least 0 and at most 60"),
    ("IR_BRIGHT_HTTP_BACKOFF", "inf", "at most 60"),
    ("IR_BRIGHT_HTTP_BACKOFF", "-1", "at least 0"),
    ("IR_BRIGHT_HTTP_BACKOFF", "61", "at most 60"),
    ("IR_BRIGHT_VERIFY", "maybe", "1 (pins), hub or 0"),
    ("HF_HUB_OFFLINE", "perhaps", "1, true, yes, on, 0, false, no or off"),
    ("IR_BRIGHT_REVISION", "owner/data@", "<owner>/<name>@<rev>"),
    ("IR_BRIGHT_REVISION", "a,b", "<owner>/<name>@<rev>"),
    ("HF_ENDPOINT", "ftp://mirror.example", "not a URL ir_bright can fetch"),
    ("HF_ENDPOINT", "http://:80", "not a URL ir_bright can fetch"),
    ("HF_ENDPOINT", "http://host:99999", "not a URL ir_bright can fetch"),
]


@pytest.mark.parametrize("name, value, accepted", BAD)
def test_a_bad_value_is_one_line_naming_variable_value_and_what_is_accepted(
    hub, hub_root, monkeypatch, name, value, accepted
):
    put(hub_root, "config/split.parquet")
    monkeypatch.setenv(name, value)
    with pytest.raises(DownloadError) as error:
        hub_file().fetch()
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"{name}={value!r}") and accepted in message
    assert hub.requests == []  # refused before any network call


@pytest.mark.parametrize(
    "token, says",
    [
        ("hf_caf\u00e9\u2603", "not Latin-1"),
        ("hf_\u202eabc", "control character"),
        ("hf_a\x01b", "control character"),
        ("hf_ab\x7f", "control character"),
        ("hf_ab\n", "line break"),
    ],
)
def test_a_token_an_http_header_cannot_carry_is_a_clear_error(
    hub, hub_root, monkeypatch, token, says
):
    put(hub_root, "config/split.parquet")
    monkeypatch.setenv("HF_TOKEN", token)
    with pytest.raises(DownloadError, match=says) as error:
        hub_file().fetch()
    assert token.strip() not in str(error.value)  # a token is never printed
    assert hub.requests == []


@pytest.mark.parametrize("name, value, accepted", BAD[::3] + [BAD[-3]])
def test_through_the_cli_a_bad_value_exits_2_with_one_line(
    hub, hub_root, monkeypatch, capsys, name, value, accepted
):
    mmbright_hub.write_mmbright(hub_root)
    monkeypatch.setenv(name, value)
    status = main(["download", "mm-bright/academia/task1"])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert status == 2 and out == "" and len(lines) == 1, err
    assert lines[0].startswith("ir-bright download: error: ") and name in lines[0]
    assert accepted in lines[0]


def test_the_cli_refuses_a_non_latin1_token_with_exit_2(hub, hub_root, monkeypatch, capsys):
    mmbright_hub.write_mmbright(hub_root)
    monkeypatch.setenv("HF_TOKEN", "hf_\u2603")
    assert main(["download", "mm-bright/academia/task1"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "HF_TOKEN" in err and "internal" not in err


def test_good_values_are_read_as_given(monkeypatch):
    for name in ("IR_BRIGHT_HTTP_RETRIES", "IR_BRIGHT_HTTP_BACKOFF", "IR_BRIGHT_HTTP_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    assert http_patience() == HttpPatience(retries=6, backoff=2.0, timeout=60.0)
    monkeypatch.setenv("IR_BRIGHT_HTTP_RETRIES", " 0 ")
    monkeypatch.setenv("IR_BRIGHT_HTTP_BACKOFF", "0")
    monkeypatch.setenv("IR_BRIGHT_HTTP_TIMEOUT", "0.5")
    assert http_patience() == HttpPatience(retries=0, backoff=0.0, timeout=0.5)
    monkeypatch.setenv("IR_BRIGHT_HTTP_RETRIES", "3.0")
    assert http_patience().retries == 3


@pytest.mark.parametrize(
    "name", ["IR_BRIGHT_HTTP_RETRIES", "IR_BRIGHT_HTTP_BACKOFF", "IR_BRIGHT_HTTP_TIMEOUT"]
)
def test_a_number_of_5000_digits_is_a_short_one_line_error_naming_the_variable(
    hub, hub_root, monkeypatch, name
):
    put(hub_root, "config/split.parquet")
    monkeypatch.setenv(name, "9" * 5000)
    with pytest.raises(DownloadError) as error:
        hub_file().fetch()
    message = str(error.value)
    assert message.startswith(f"{name}=") and "\n" not in message and len(message) < 300


@pytest.mark.parametrize(
    "revision", ["..", ".", "../..", "../../elsewhere", "a/../../b", "/abs", "%2E%2E", "main"]
)
def test_no_revision_leads_out_of_its_familys_cache_folder(monkeypatch, isolated_home, revision):
    from ir_bright import hub
    from ir_bright.families.brightpro import source

    monkeypatch.setenv("IR_BRIGHT_REVISION", revision)
    family_folder = (hub.cache_home() / source.NAMESPACE).resolve()
    listing = source.Split("examples", "biology").listing_path()
    folder = listing.parent.parent
    assert folder.resolve().parent == family_folder, folder
    assert listing.resolve().is_relative_to(family_folder)


def test_revision_folders_are_distinct_for_distinct_revisions():
    from ir_bright.hub.config import revision_folder

    revisions = ["..", ".", "%2E%2E", "%2E.", "a/b", "a%2Fb", "main", ".hidden", "v1.0"]
    assert len({revision_folder(r) for r in revisions}) == len(revisions)
