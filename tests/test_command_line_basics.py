"""The command line's basics: ``--version``, shell completion and help for every choice."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from importlib.metadata import version

import pytest

from ir_bright.cli import build_parser, main


def parsers() -> dict[str, argparse.ArgumentParser]:
    """The top-level parser and every subcommand's, by command line."""
    top = build_parser()
    found = {"ir-bright": top}
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            found.update({f"ir-bright {name}": sub for name, sub in action.choices.items()})
    return found


def test_version_prints_the_installed_distribution_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"ir-bright {version('ir_bright')}\n"


def test_version_in_a_fresh_process_needs_no_dataset_library():
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "ir_bright", "--version"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and proc.stdout == f"ir-bright {version('ir_bright')}\n"
    assert "ir_datasets" not in proc.stderr


@pytest.mark.parametrize("command, parser", parsers().items(), ids=list(parsers()))
def test_every_choice_of_every_option_is_explained_in_its_help(command, parser):
    for action in parser._actions:
        if not action.choices or isinstance(action, argparse._SubParsersAction):
            continue
        text = " ".join((action.help or "").split())
        listed = re.findall(r"[\w.-]+", text.split("one of ", 1)[1]) if "one of " in text else []
        for choice in action.choices:
            assert f"{choice}:" in text or choice in listed, (
                f"{command} {action.dest}: {choice!r} has no help"
            )


def completions(line: str, tmp_path) -> list[str]:
    """What the shell offers for ``line`` (argcomplete's protocol, as its shell hook runs it)."""
    answer = tmp_path / "completions"
    env = {
        **os.environ,
        "_ARGCOMPLETE": "1",
        "_ARGCOMPLETE_IFS": "\n",
        "_ARGCOMPLETE_STDOUT_FILENAME": str(answer),
        "COMP_LINE": line,
        "COMP_POINT": str(len(line)),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "ir_bright"], env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    return answer.read_text().split("\n")


@pytest.mark.parametrize(
    "line, offered",
    [
        ("ir-bright ev", ["evaluate "]),
        ("ir-bright list --format ", ["table", "tsv", "json"]),
        ("ir-bright compare --correction b", ["bonferroni", "bh"]),
        ("ir-bright report -b bright-l", ["bright-long", "bright-llama3-70b-reason"]),
    ],
)
def test_the_shell_completes_commands_options_and_choices(line, offered, tmp_path):
    pytest.importorskip("argcomplete")
    assert completions(line, tmp_path) == offered
