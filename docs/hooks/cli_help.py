"""mkdocs hook: the command-line page shows the parsers' own ``--help``, run at build time.

``docs/cli.md`` holds the line ``<!-- ir-bright --help -->``; the hook replaces it with what
``ir-bright --help`` and ``ir-bright <command> --help`` print for every subcommand, so the page
cannot drift from the code. A command that fails to print its help fails the build.
"""

from __future__ import annotations

import contextlib
import io
import os

MARKER = "<!-- ir-bright --help -->"
WIDTH = "100"  # argparse wraps to $COLUMNS


def _help(*command: str) -> str:
    from ir_bright.cli import main

    out = io.StringIO()
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            main([*command, "--help"])
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous
    text = out.getvalue().rstrip()
    if not text.startswith("usage:"):
        raise RuntimeError(f"ir-bright {' '.join(command)} --help printed no help: {text!r}")
    return text


def render() -> str:
    """The markdown of every command's help, the top-level one first."""
    from ir_bright.cli import SUBCOMMANDS

    parts = ["## ir-bright", "", "```text", _help(), "```"]
    for name in SUBCOMMANDS:
        parts += ["", f"## ir-bright {name}", "", "```text", _help(name), "```"]
    return "\n".join(parts)


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Fill the marker of the command-line page with the generated help."""
    if MARKER not in markdown:
        return markdown
    return markdown.replace(MARKER, render())
