"""The docs' generated regions: texts that name the families, made from the declarations.

A page holds ``<!-- declared NAME -->...<!-- end declared NAME -->`` where it lists the
families (their names, id patterns, benchmarks, published rows, citations);
``ir_bright.families.texts.DECLARED`` makes each NAME's text. ``python docs/hooks/declared.py``
rewrites every region of README.md and docs/*.md; the test suite fails while one is stale
(tests/test_family_lists.py). A region whose text starts on a new line holds a block (the
citations), one that does not holds words inside a sentence.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
REGION = re.compile(
    r"(?P<start><!-- declared (?P<name>[\w-]+) -->)(?P<body>.*?)"
    r"(?P<end><!-- end declared (?P=name) -->)",
    re.DOTALL,
)


def refreshed(text: str) -> str:
    """``text`` with every generated region holding its text as the declarations make it."""
    from ir_bright.families.texts import DECLARED

    def fill(match: re.Match) -> str:
        name = match.group("name")
        if name not in DECLARED:
            raise KeyError(f"no declared text {name!r}: one of {', '.join(DECLARED)}")
        made = DECLARED[name]()
        body = f"\n{made}\n" if match.group("body").startswith("\n") else made
        return f"{match.group('start')}{body}{match.group('end')}"

    return REGION.sub(fill, text)


def without_regions(text: str) -> str:
    """``text`` with the generated regions left out (what is written by hand)."""
    return REGION.sub("", text)


def main() -> int:
    """Rewrite the stale regions of every page; print the pages changed."""
    sys.path.insert(0, str(ROOT))
    for page in PAGES:
        text = page.read_text("utf-8")
        new = refreshed(text)
        if new != text:
            page.write_text(new, "utf-8")
            print(page.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
