"""What the command prints on stderr: ``-q`` / ``-v`` wherever they stand, each warning once,
progress bars cleared on a terminal and absent elsewhere."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios

import pytest

from tests.fixtures import bright_hub


@pytest.fixture
def bright(hub, hub_root, monkeypatch):
    monkeypatch.setenv("IR_BRIGHT_VERIFY", "0")
    bright_hub.write_bright(hub_root, {"biology": bright_hub.biology})
    return hub


def command(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ir_bright", *argv], capture_output=True, text=True, timeout=300
    )


def on_a_terminal(*argv: str) -> str:
    """Everything the command writes to stderr when stderr is a terminal."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # 100 columns
    proc = subprocess.Popen(
        [sys.executable, "-m", "ir_bright", *argv], stdout=subprocess.DEVNULL, stderr=follower
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the command ended and closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert proc.wait(timeout=300) == 0
    return b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.parametrize("where", ["before", "after"])
def test_quiet_is_accepted_before_and_after_the_command(bright, where):
    argv = ["download", "bright/biology"]
    done = command(*(["-q", *argv] if where == "before" else [*argv, "-q"]))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.startswith("fetched ")


def test_verbose_after_the_command_shows_more(bright):
    plain, verbose = command("list", "biology"), command("list", "biology", "--verbose")
    assert plain.returncode == verbose.returncode == 0
    assert "replaced" not in plain.stderr
    assert "INFO ir_bright.registry: replaced" in verbose.stderr


def test_each_warning_is_printed_once(bright, tmp_path):
    """The same run given twice: its warnings are the same, and printed once."""
    run = tmp_path / "other-corpus.trec"
    run.write_text("".join(f"{q} Q0 elsewhere_{q} 1 1.0 x\n" for q in ("0", "1", "2")))

    def warnings(*runs: str) -> list[str]:
        done = command("evaluate", "bright/biology", "--force", *runs)
        assert done.returncode == 0, done.stderr
        return [line for line in done.stderr.splitlines() if line.startswith("WARNING")]

    once = warnings(str(run))
    assert once and all(str(run) in line for line in once)
    assert warnings(str(run), str(run)) == once


def test_no_progress_bar_when_stderr_is_not_a_terminal(bright):
    done = command("download", "bright/biology")
    assert done.returncode == 0
    assert "\r" not in done.stderr and "%|" not in done.stderr, done.stderr


def test_progress_bars_are_cleared_on_a_terminal_and_lines_start_clean(bright):
    screen = on_a_terminal("download", "bright/biology")
    assert "%|" in screen  # a bar was drawn
    for line in ("INFO ir_bright.hub.transfer: downloading", "INFO ir_bright.hub.transfer: cached"):
        at = screen.find(line)
        assert at >= 0
        while at >= 0:
            assert at == 0 or screen[at - 1] in "\r\n", repr(screen[max(0, at - 60) : at + 10])
            at = screen.find(line, at + 1)
    shown = visible_lines(screen)
    assert shown[-1] == "", repr(screen[-400:])  # the cursor's line is blank: no bar left
    assert all("%|" not in line for line in shown), shown  # nor on any line above


def visible_lines(screen: str) -> list[str]:
    """What a terminal shows after ``screen``: a minimal one, knowing line feeds, carriage
    returns and the cursor-up sequence tqdm moves between stacked bars with."""
    rows: list[list[str]] = [[]]
    row = col = 0
    for token in re.split(r"(\x1b\[A|\r|\n)", screen):
        if token == "\n":
            row += 1
            rows += [[] for _ in range(row + 1 - len(rows))]
        elif token == "\r":
            col = 0
        elif token == "\x1b[A":
            row = max(row - 1, 0)
        else:
            line = rows[row] + [" "] * max(0, col + len(token) - len(rows[row]))
            line[col : col + len(token)] = token
            rows[row], col = line, col + len(token)
    return ["".join(line).strip() for line in rows]


@pytest.mark.parametrize("command_name", ["compare", "report"])
def test_help_lists_each_benchmark_once(capsys, command_name):
    from ir_bright.cli import main

    with pytest.raises(SystemExit):
        main([command_name, "--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps at hyphens
    for name in ("mm-bright-task4-legacy", "bright-claude-3-opus-reason", "bright-pro"):
        assert text.replace("- ", "-").count(name) == 1, text


def test_the_tools_description_names_the_three_benchmarks(capsys):
    from ir_bright.cli import main

    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert all(name in out for name in ("BRIGHT,", "MM-BRIGHT", "BRIGHT-Pro"))
