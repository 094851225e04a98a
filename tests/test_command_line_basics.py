"""The command line's basics: ``--version``, shell completion and help for every choice."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

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


IMPORT_SPY = """
import runpy, sys

class Spy:  # notes every import of ir_datasets in a file, and lets it happen
    def find_spec(self, name, path=None, target=None):
        if name == "ir_datasets":
            open(sys.argv[1], "w").close()

sys.meta_path.insert(0, Spy())
runpy.run_module("ir_bright", run_name="__main__", alter_sys=True)
"""


def completions(line: str, tmp_path, spy: Path | None = None) -> list[str]:
    """What the shell offers for ``line`` (argcomplete's protocol, as its shell hook runs it);
    with ``spy``, the command runs under an import hook that creates that file if anything
    imports ir_datasets."""
    answer = tmp_path / "completions"
    env = {
        **os.environ,
        "_ARGCOMPLETE": "1",
        "_ARGCOMPLETE_IFS": "\n",
        "_ARGCOMPLETE_STDOUT_FILENAME": str(answer),
        "COMP_LINE": line,
        "COMP_POINT": str(len(line)),
    }
    command = ["-c", IMPORT_SPY, str(spy)] if spy else ["-m", "ir_bright"]
    proc = subprocess.run([sys.executable, *command], env=env, capture_output=True, text=True)
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


BIOLOGY_IDS = [
    "bright/biology",
    "bright/biology/adjusted",
    "bright/biology/gpt4-reason",
    "bright/biology-long",
]


@pytest.mark.slow
@pytest.mark.parametrize(
    "line, offered, not_offered",
    [
        ("ir-bright evaluate bright/bio", BIOLOGY_IDS, ["bright/aops", "bright"]),
        ("ir-bright bm25 r2med/", ["r2med/biology", "r2med/pmc-clinical"], ["bright/biology"]),
        ("ir-bright fuse bright/ao", ["bright/aops", "bright/aops/adjusted"], ["bright/biology"]),
        ("ir-bright compare tempo/law", ["tempo/law"], ["tempo/quant"]),
        ("ir-bright download r2med/medqa-d", ["r2med/medqa-diag"], ["r2med/biology"]),
        ("ir-bright info bright-p", ["bright-pro"], ["bright/biology"]),
    ],
)
def test_the_shell_completes_dataset_ids_without_importing_ir_datasets(
    line, offered, not_offered, tmp_path
):
    pytest.importorskip("argcomplete")
    spy = tmp_path / "ir_datasets-imported"
    got = completions(line, tmp_path, spy)
    assert set(offered) <= set(got) and not set(not_offered) & set(got), got
    assert not spy.exists(), "completing imported ir_datasets"


def test_the_dataset_completer_reads_no_dataset_library():
    script = (
        "import sys\n"
        "from ir_bright.cli.dataset_args import dataset_ids\n"
        "assert dataset_ids('bright/bio') and dataset_ids('r2med/')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'ir_datasets'))\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "[]\n"


def test_the_dataset_completer_offers_exactly_the_ids_ir_datasets_registers():
    import ir_datasets

    import ir_bright  # noqa: F401 - registers the ids
    from ir_bright.cli.dataset_args import dataset_ids
    from ir_bright.families import families

    namespaces = {family.namespace for family in families()}
    registered = {  # not the ids pinned to a revision (ID@REV), registered when first used
        i
        for i in ir_datasets.registry._registered
        if i.split("/")[0] in namespaces and "@" not in i
    }
    assert set(dataset_ids()) == registered
    assert set(dataset_ids("r2med/")) == {i for i in registered if i.startswith("r2med/")}
