"""Griffe extension: the docstrings' reST roles as Markdown code on the API page.

The package's docstrings name other objects the way Sphinx does (``:func:`~.read.read_run```,
``:mod:`ir_bright.runs```); mkdocstrings renders Markdown, where a role would show as raw
text. Each role becomes a code span of the name it cites (its last part when written with
``~``, as Sphinx shows it); the docstrings themselves stay as they are.
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension, Object

ROLE = re.compile(r":(?:py:)?(?:mod|func|class|meth|attr|data|exc|obj):`(~?)\.*([^`]+)`")


def markdown(text: str) -> str:
    """``text`` with every role written as a code span."""

    def code(match: re.Match[str]) -> str:
        name = match.group(2)
        return f"`{name.rsplit('.', 1)[-1] if match.group(1) else name}`"

    return ROLE.sub(code, text)


class RestRoles(Extension):
    """Rewrites the roles of every docstring Griffe loads."""

    def on_instance(self, *, obj: Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = markdown(obj.docstring.value)
