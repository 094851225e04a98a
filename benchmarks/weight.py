"""What a dependency would add to an ir_bright install: its distributions and their size.

The one way the decisions benchmarks weigh a library. :func:`added` asks an interpreter (this
one, or another environment's) for the installed closure of the library's requirements (extras
left out, markers evaluated), removes the closure of ir_bright's own requirements, and sums
the sizes of the remaining distributions' installed files.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

__all__ = ["Weight", "added"]

_CLOSURE = r"""
import importlib.metadata as md, json, re, sys
try:
    from packaging.requirements import Requirement
except ImportError:
    from pip._vendor.packaging.requirements import Requirement

def canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()

def closure(names, follow=True):
    found = {}
    stack = list(names)
    while stack:
        name = canonical(stack.pop())
        if name in found:
            continue
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        found[name] = sum(f.size or 0 for f in dist.files or [])
        for text in dist.requires or [] if follow else []:
            req = Requirement(text)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                stack.append(req.name)
    return found

base = closure(["ir_bright"])
follow = sys.argv[1] == "follow"
extra = {n: s for n, s in closure(sys.argv[2:], follow).items() if n not in base}
print(json.dumps(extra))
"""


@dataclass
class Weight:
    """Distributions a library adds beyond ir_bright's own, and their installed megabytes."""

    names: list[str]
    megabytes: float

    def __str__(self) -> str:
        return (
            f"{self.megabytes:.0f} MB in {len(self.names)} distributions ({', '.join(self.names)})"
        )


def added(*libraries: str, python: str = sys.executable, follow: bool = True) -> Weight:
    """What installing ``libraries`` adds to ir_bright in ``python``'s environment (where
    they must be installed); ``follow=False``: those distributions alone, not what they
    require."""
    argv = [python, "-c", _CLOSURE, "follow" if follow else "alone", *libraries]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    sizes = json.loads(done.stdout)
    return Weight(sorted(sizes), sum(sizes.values()) / 1e6)
