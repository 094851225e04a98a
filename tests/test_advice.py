"""Every command the package prints as advice runs as printed.

The commands are collected where a user reads them: the examples of every command's
``--help`` epilogue, and, for every declared family, the backquoted ``ir-bright ...`` commands
of ``info`` (text and json) on the family's id and on one of its datasets, and of the errors
its family id gets from the commands that take a dataset. Each runs in bash, as a user pastes
it, on the fixture hubs, in a fresh folder where its input files exist: a run file named in
it holds a run of the dataset the command names (every judged document of each query), a
folder of runs one such run per dataset of the benchmark, ``RUN`` and ``RUNS`` standing for
those. An epilogue's examples run in order in one folder (the later ones may use what the
earlier made, as a reader following them would)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import ir_datasets
import pytest

import ir_bright  # noqa: F401
from ir_bright.cli import SUBCOMMANDS
from ir_bright.families import families
from ir_bright.families.advice import RUN, RUNS
from tests.fixtures import bright_hub
from tests.fixtures.hubs import WRITERS

pytestmark = pytest.mark.slow

BRIGHT_SPLITS = (
    "biology earth_science economics psychology robotics stackoverflow sustainable_living "
    "leetcode pony aops theoremqa_questions theoremqa_theorems"
).split()
HUBS = {
    **WRITERS,
    # every BRIGHT domain shaped as the fixture's biology, so the examples' ids all exist
    "bright": lambda root: bright_hub.write_bright(
        root, dict.fromkeys(BRIGHT_SPLITS, bright_hub.biology)
    ),
}
"""The fixture hub of each declared family (a new family adds its own to ``WRITERS``)."""

RUN_SUFFIXES = (".run", ".trec", ".txt", ".gz", ".res")
OUTPUT_OPTIONS = {"-o", "--output", "--plot", ">"}
SEGMENT_SEPARATORS = re.compile(r"\|\||&&|[|;]")
QUOTED_COMMAND = re.compile(r"`(ir-bright [^`]*)`")


@pytest.fixture
def hubs(hub, hub_root, monkeypatch):
    """Every family's fixture hub on one loopback hub, checksums off."""
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    missing = [found.name for found in families() if found.name not in HUBS]
    assert not missing, f"add the fixture hub of {missing} to HUBS"
    for write in HUBS.values():
        write(hub_root)
    return hub


def test_every_family_has_a_fixture_hub_here():
    assert {found.name for found in families()} <= set(HUBS)


# --- what a command needs ---------------------------------------------------------------


def registered_ids() -> set[str]:
    from ir_bright import registry

    registry.register()
    return set(registry.our_ids())


def judged_run(dataset_id: str) -> str:
    """TREC lines ranking every document judged relevant for each query of the dataset (one
    line of nothing for an id without qrels)."""
    dataset = ir_datasets.load(dataset_id)
    if not dataset.has_qrels():
        return "0 Q0 nothing 1 1 advice\n"
    lines, ranks = [], {}
    for qrel in dataset.qrels_iter():
        if qrel.relevance > 0:
            rank = ranks[qrel.query_id] = ranks.get(qrel.query_id, 0) + 1
            lines.append(f"{qrel.query_id} Q0 {qrel.doc_id} {rank} {100 - rank} advice\n")
    return "".join(lines)


def benchmark_named(tokens: list[str]):
    """The benchmark a report or compare command names (-b), or the one holding its
    --reference / --check row, or BRIGHT's."""
    from ir_bright.results.benchmarks import benchmark

    for option in ("-b", "--benchmark"):
        if option in tokens:
            return benchmark(tokens[tokens.index(option) + 1])
    rows = [tokens[i + 1] for i, t in enumerate(tokens[:-1]) if t in ("--reference", "--check")]
    wanted = {name for value in rows for name in value.split(",")}
    for found in families():
        for name, published in found.references().items():
            if wanted & set(published):
                return benchmark(name)
    return benchmark("bright")


def write_system(folder: Path, bench, variant: int) -> None:
    """One run per dataset of ``bench`` that the fixture hubs serve, named as report wants."""
    from ir_bright.results.benchmarks import filename_for

    folder.mkdir(parents=True, exist_ok=True)
    for dataset_id in bench.run_ids:
        scored_on = {bench.dataset_of(c) for c in bench.ids if bench.run_of(c) == dataset_id}
        try:
            texts = [judged_run(scored) for scored in sorted(scored_on)]
        except Exception:  # noqa: BLE001 - a dataset the fixture hubs do not serve
            continue
        pairs = {tuple(line.split()[:3:2]): line for t in texts for line in t.splitlines(True)}
        lines = list(pairs.values())
        if variant % 2:  # another system: the first query's documents in reverse order
            lines = lines[::-1]
        (folder / filename_for(dataset_id)).write_text("".join(lines), encoding="utf-8")


def prepare_inputs(command: str, folder: Path) -> None:
    """Create in ``folder`` the input files and folders ``command`` names and lacks."""
    from ir_bright.results.benchmarks import dataset_from_filename

    known = registered_ids()
    for segment in SEGMENT_SEPARATORS.split(command):
        tokens = shlex.split(segment, comments=True)
        while tokens and (tokens[0] in ("do", "then") or re.match(r"^\w+=", tokens[0])):
            tokens = tokens[1:]
        if len(tokens) < 2 or tokens[0] != "ir-bright":
            continue
        dataset = next((t for t in tokens if t in known), None)
        systems = 0
        for i, token in enumerate(tokens[2:], start=2):
            if tokens[i - 1] in OUTPUT_OPTIONS or token.startswith("-"):
                continue
            if "=" in token and token.split("=", 1)[0] in known:
                token_id, token = token.split("=", 1)
                write_input(folder / token, judged_run(token_id))
            elif tokens[i - 1] == "--queries" and dataset:
                queries = ir_datasets.load(dataset).queries_iter()
                write_input(folder / token, "".join(f"{q.query_id}\t{q.text}\n" for q in queries))
            elif token == RUN or token.endswith(RUN_SUFFIXES):
                named = dataset_from_filename(Path(token).name)  # bright__biology.trec
                for_id = named if named in known else dataset or "bright/biology"
                write_input(folder / token, judged_run(for_id))
            elif token == RUNS or token.startswith("runs/"):
                path = folder / token
                if token.endswith("/") and tokens[1] in ("report", "compare"):
                    path = path / "bm25"  # a folder of systems
                if not path.exists():
                    write_system(path, benchmark_named(tokens), systems)
                systems += 1


def write_input(path: Path, text: str) -> None:
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def run_in_bash(command: str, folder: Path) -> subprocess.CompletedProcess:
    """``command`` as a user pastes it into bash, in ``folder``, with this environment's
    ``ir-bright`` first on the PATH."""
    prepare_inputs(command, folder)
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    return subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def failures(commands: list[str], folder: Path) -> list[str]:
    """Each command that did not exit 0, with its error, in order."""
    folder.mkdir(parents=True, exist_ok=True)
    failed = []
    for command in commands:
        done = run_in_bash(command, folder)
        # a reproduction check exits 1 when the fixture's cells miss the published ones
        if done.returncode != 0 and not (done.returncode == 1 and "--check" in command):
            failed.append(f"{command!r} -> {done.returncode}: {done.stderr.strip()[-400:]}")
    return failed


# --- where the advice is ----------------------------------------------------------------


def help_epilogue_examples(command: str) -> list[str]:
    """The example commands of ``ir-bright COMMAND --help``: the lines under ``examples:``,
    continuation lines joined, the description after three spaces left out."""
    from ir_bright.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main([command, "--help"])
    text = out.getvalue()
    if "examples:\n" not in text:
        return []
    examples, pending = [], ""
    for line in text.split("examples:\n", 1)[1].splitlines():
        if not line.startswith("  "):
            break
        line = re.split(r" {3,}", line.strip())[0]
        if line.endswith("\\"):  # continued on the next line
            pending += line[:-1]
        elif line.endswith((" do", "|")):  # a loop's or a pipe's body follows
            pending += line + "\n"
        else:
            examples.append(pending + line)
            pending = ""
    return examples


def quoted_commands(text: str) -> list[str]:
    """The backquoted ``ir-bright ...`` commands of a text (json strings included)."""
    return QUOTED_COMMAND.findall(text)


def one_dataset(family) -> str:
    """The family's first dataset of its headline benchmark (the fixture hubs serve it)."""
    bench = next(iter(family.benchmarks().values()))
    return bench.dataset_of(bench.ids[0])


def advice_of(cli, family) -> list[str]:
    """The commands ``info`` and the errors advise for the family's id and one dataset."""
    said = []
    for dataset_id in (family.namespace, one_dataset(family)):
        for options in ((), ("--format", "json")):
            status, out, err = cli("info", dataset_id, *options)
            assert status == 0, err
            said += quoted_commands(out)
            if options:  # the json carries them as plain strings too
                said += json.loads(out)["scored_by"]
    for argv in (
        ["evaluate", family.namespace, "any.run"],
        ["compare", family.namespace, "a.run", "b.run"],
        ["report", f"{family.namespace}=any.run"],
    ):
        status, _, err = cli(*argv)
        said += quoted_commands(err)
    return list(dict.fromkeys(said))


# --- the tests --------------------------------------------------------------------------


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_help_example_runs_as_printed(hubs, tmp_path, command):
    examples = help_epilogue_examples(command)
    assert failures(examples, tmp_path / command) == []


@pytest.mark.parametrize("name", [found.name for found in families()])
def test_every_command_info_and_the_errors_advise_for_a_family_runs(hubs, cli, tmp_path, name):
    (family,) = [found for found in families() if found.name == name]
    advised = advice_of(cli, family)
    assert any(c.startswith("ir-bright report ") for c in advised), advised
    assert any(c.startswith(f"ir-bright evaluate {one_dataset(family)} ") for c in advised)
    folders = [tmp_path / str(i) for i in range(len(advised))]  # each in a fresh folder
    assert [f for c, folder in zip(advised, folders) for f in failures([c], folder)] == []


def test_a_family_id_is_refused_with_the_commands_to_use(hubs, cli, tmp_path):
    run = tmp_path / "any.run"
    run.write_text(judged_run("r2med/biology"), encoding="utf-8")
    status, out, err = cli("evaluate", "r2med", run)
    assert status == 2 and out == ""
    (line,) = err.splitlines()
    assert "r2med is the R2MED family, not one dataset" in line
    assert quoted_commands(line) == [
        "ir-bright evaluate r2med/biology RUN",
        "ir-bright report RUNS --benchmark r2med",
    ]


@pytest.mark.parametrize(
    "planted",
    [
        "ir-bright evaluate r2med RUN",  # the hint info printed: a family id
        "ir-bright evaluate bright/biology",  # no run
        "ir-bright report RUNS --benchmark r2med --format yaml",
        "ir-bright bm25 bright/nowhere -o run.trec",
    ],
)
def test_a_planted_broken_hint_fails(hubs, tmp_path, planted):
    """The harness is not fooled: a broken command fails it."""
    assert failures([planted], tmp_path) != []
