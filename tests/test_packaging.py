"""What the package's metadata says off the repository: the README as an index page renders it
(setup.py's long description), and the files a wheel must carry. ``.ci/run`` builds the sdist
and the wheel and tries the installed wheel; these checks are the quick ones."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

import ir_bright

ROOT = Path(__file__).resolve().parent.parent
SETUP = runpy.run_path(str(ROOT / "setup.py"), run_name="setup")  # its functions, no build
RELATIVE_LINK = re.compile(r"\]\((?![A-Za-z][A-Za-z0-9+.-]*:|#)[^)]*\)")


def test_the_readme_off_the_repository_has_no_relative_link():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert RELATIVE_LINK.search(readme), "the README has relative links: the check must see some"
    site = SETUP["documentation_url"]()
    assert not RELATIVE_LINK.search(SETUP["long_description"](readme, site))


@pytest.mark.parametrize(
    "markdown, expected",
    [
        ("[Official scoring](docs/scoring.md)", "[Official scoring](https://site.test/x/scoring/)"),
        ("[the docs](docs/index.md)", "[the docs](https://site.test/x/)"),
        ("[flags](docs/cli.md#conventions)", "[flags](https://site.test/x/cli/#conventions)"),
        ("[Changelog](CHANGELOG.md), [LICENSE](LICENSE)", "Changelog, LICENSE"),
        ("[paper](https://arxiv.org/abs/2407.12883)", "[paper](https://arxiv.org/abs/2407.12883)"),
        ("[below](#citation)", "[below](#citation)"),
    ],
)
def test_docs_links_go_to_the_documentation_site_and_other_relative_links_become_text(
    markdown, expected
):
    assert SETUP["long_description"](markdown, "https://site.test/x") == expected


def test_without_a_documentation_site_every_relative_link_becomes_its_text():
    markdown = "see [Datasets](docs/datasets.md) and [`docs/`](docs/index.md)"
    assert SETUP["long_description"](markdown, None) == "see Datasets and `docs/`"


def test_the_documentation_url_is_read_from_project_urls(tmp_path):
    config = tmp_path / "setup.cfg"
    config.write_text(
        "[metadata]\nproject_urls =\n    Source = https://code.test/r\n"
        "    Documentation = https://site.test/x/\n"
    )
    assert SETUP["documentation_url"](config) == "https://site.test/x"
    config.write_text("[metadata]\nname = x\n")
    assert SETUP["documentation_url"](config) is None


def test_the_package_says_it_is_typed_and_ships_the_marker():
    marker = Path(ir_bright.__file__).with_name("py.typed")
    assert marker.is_file()
    assert "py.typed" in (ROOT / "setup.cfg").read_text()
