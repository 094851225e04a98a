"""The package's long description: the README, with its relative links made to work off the
repository. Everything else about the package is in setup.cfg.

An index page renders the README away from the repository, where a relative link such as
``docs/scoring.md`` leads nowhere. A link to a page under ``docs/`` becomes a link into the
documentation site when setup.cfg's ``project_urls`` names one (``Documentation``):
``docs/scoring.md`` becomes ``<site>/scoring/``, as mkdocs lays the pages out. Every other
relative link, and every one of them while no site is named, becomes its text alone.
"""

from __future__ import annotations

import configparser
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
LINK = re.compile(r"\[([^\]\n]+)\]\(([^)\s]+)\)")
ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:|#")  # a scheme (https:, mailto:) or an anchor


def documentation_url(config: Path = HERE / "setup.cfg") -> str | None:
    """The ``Documentation`` entry of setup.cfg's ``project_urls``, if there is one."""
    parser = configparser.ConfigParser()
    parser.read(config, encoding="utf-8")
    for line in parser.get("metadata", "project_urls", fallback="").splitlines():
        name, _, url = line.partition("=")
        if name.strip() == "Documentation" and url.strip():
            return url.strip().rstrip("/")
    return None


def long_description(readme: str, site: str | None) -> str:
    """``readme`` with each relative link made absolute under ``site`` (pages of ``docs/``)
    or replaced by its text."""

    def rewritten(link: re.Match[str]) -> str:
        text, target = link.groups()
        if ABSOLUTE.match(target):
            return link.group(0)
        page, hash_, anchor = target.partition("#")
        if site is None or not (page.startswith("docs/") and page.endswith(".md")):
            return text
        name = page[len("docs/") : -len(".md")]
        path = "" if name == "index" else f"{name}/"
        return f"[{text}]({site}/{path}{hash_}{anchor})"

    return LINK.sub(rewritten, readme)


if __name__ == "__main__":  # run so by pip, build and setuptools
    from setuptools import setup

    readme = (HERE / "README.md").read_text(encoding="utf-8")
    setup(long_description=long_description(readme, documentation_url()))
