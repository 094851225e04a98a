"""No hand-written list of the families in the docs or in a command's help: lists go stale
the day a family is added, so they are made from the declarations (the generated regions of
the docs, ``docs/hooks/declared.py``; the help texts, :mod:`ir_bright.families.texts`).

The rule, for the docs outside their generated regions: no unit (a sentence, a list item, a
table row, a comment in a code block) names three families or more, nor two written as a list
(``A and B``, ``A, B``, ``A or B``, ``A/B``). A family is named by its pretty name
(``MM-BRIGHT``) or by one of its ids (``mm-bright/...``, ```mm-bright```). Two families in a
comparison (``R2MED's Biology is BRIGHT's biology``) are facts, not a list, and stay.

For the help texts, stricter: every family is renamed in its declaration, and then no unit of
any ``--help`` may name two families by their real names or ids: a list made from the
declarations follows the renaming, a hand-written one does not.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
from pathlib import Path

import pytest

from ir_bright.families import families

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def declared_hook():
    """docs/hooks/declared.py, the generated regions' writer."""
    spec = importlib.util.spec_from_file_location("declared", ROOT / "docs/hooks/declared.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ORIGINAL_NAMES = {f.name: f.collection.pretty_name for f in families()}
"""The families' real pretty names, read before any test renames them."""


def mentions(unit: str) -> list[tuple[int, int, str]]:
    """``(start, end, family)`` of each place ``unit`` names a family (by its real name, or
    an id), in order."""
    found = []
    for family in families():
        pretty = re.escape(ORIGINAL_NAMES[family.name])
        namespace = re.escape(family.namespace)
        pattern = rf"(?<![\w-]){pretty}(?![\w-])|(?<![\w/.-]){namespace}/|`{namespace}`"
        found += [(m.start(), m.end(), family.name) for m in re.finditer(pattern, unit)]
    return sorted(found)


GLUE = re.compile(r"[`'\s]*(?:,|,? and|,? or|/)[\s`]*")
TAIL = re.compile(r"\A(?:'s|`|/\S*|\*)*")  # what ends a name: a possessive, an id's rest


def listed(unit: str) -> set[str]:
    """The families ``unit`` names as a list: all of them if it names three or more, else
    the two it joins by a comma, ``and``, ``or`` or a slash, else none."""
    named = mentions(unit)
    families_named = {name for _, _, name in named}
    if len(families_named) >= 3:
        return families_named
    for (_, end, first), (start, _, second) in zip(named, named[1:]):
        between = unit[end:start]
        between = between[TAIL.match(between).end() :]
        if first != second and GLUE.fullmatch(between):
            return {first, second}
    return set()


def units(markdown: str) -> list[str]:
    """The units of a page: sentences of its paragraphs, list items, table rows, and the
    comments of its code blocks."""
    found, paragraph, fenced = [], [], False

    def close():
        text = " ".join(paragraph)
        found.extend(re.split(r"(?<=[.;:!?])\s+(?=[A-Z`(\[*])", text))
        paragraph.clear()

    for line in re.sub(r"<!--.*?-->", "", markdown, flags=re.DOTALL).splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            close()
            fenced = not fenced
        elif fenced:
            if "#" in line:
                found.append(line[line.index("#") :])
        elif not stripped or stripped.startswith("|") or stripped.startswith("#"):
            close()
            found.append(stripped)
        elif re.match(r"(?:[-*]|\d+\.) ", stripped):
            close()
            paragraph.append(stripped)
        else:
            paragraph.append(stripped)
    close()
    return [unit for unit in found if unit]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_page_lists_the_families_by_hand(page):
    hand_written = declared_hook().without_regions(page.read_text("utf-8"))
    # the sections benchmarks/docpage.py writes are a script's output, not prose
    hand_written = re.sub(
        r"<!-- section ([\w-]+) -->.*?<!-- end \1 -->", "", hand_written, flags=re.S
    )
    offenders = [" ".join(unit.split())[:120] for unit in units(hand_written) if listed(unit)]
    assert offenders == [], "make these from the declarations (docs/hooks/declared.py)"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_generated_region_of_the_page_is_as_the_declarations_make_it(page):
    text = page.read_text("utf-8")
    assert declared_hook().refreshed(text) == text, "run python docs/hooks/declared.py"


def help_texts() -> dict[str, str]:
    """What ``ir-bright --help`` and every ``ir-bright COMMAND --help`` print."""
    from ir_bright.cli import SUBCOMMANDS, main

    texts = {}
    for command in ["", *SUBCOMMANDS]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            main([command, "--help"] if command else ["--help"])
        texts[command or "ir-bright"] = out.getvalue()
    return texts


@pytest.fixture
def renamed_families(monkeypatch):
    """Every family's pretty name replaced by ``Renamed<order>`` in its declaration."""
    for family in families():
        collection = family.collection._replace(pretty_name=f"Renamed{family.order}")
        renamed = family.declaration._replace(collection=collection)
        monkeypatch.setattr(family, "declaration", renamed)


def test_no_help_text_lists_the_families_by_hand(renamed_families):
    offenders = []
    for command, text in help_texts().items():
        examples = re.findall(r"^ +ir-bright .*$", text, re.MULTILINE)  # one unit each
        prose = " ".join(re.sub(r"^ +ir-bright .*$", "", text, flags=re.MULTILINE).split())
        for unit in [*examples, *re.split(r"(?<=[.;:!?])\s+(?=[A-Z`(\[*])", prose)]:
            if len({name for _, _, name in mentions(unit)}) >= 2:
                offenders.append(f"{command}: {unit[:120]}")
    assert offenders == []


def test_the_help_follows_a_renamed_family(renamed_families):
    top = " ".join(help_texts()["ir-bright"].split())
    assert "Renamed1" in top and f"Renamed{families()[-1].order}" in top


@pytest.mark.parametrize(
    "unit, named",
    [
        ("BRIGHT, MM-BRIGHT and BRIGHT-Pro, the benchmarks", {"bright", "mm-bright", "bright-pro"}),
        ("# registers bright/*, mm-bright/* and Official(...)", {"bright", "mm-bright"}),
        ("`main` for BRIGHT and BRIGHT-Pro", {"bright", "bright-pro"}),
        ("R2MED's Biology is BRIGHT's biology, scored without exclusions", set()),
        ("BRIGHT's 12 domains", set()),
        ("on long documents, as the BRIGHT paper's code and MM-BRIGHT's do", set()),
    ],
)
def test_the_rule_tells_a_list_from_a_comparison(unit, named):
    assert listed(unit) == named
