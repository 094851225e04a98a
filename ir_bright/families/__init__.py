"""The benchmark families ir_bright serves, each declared in one data file of this folder.

``<name>.json`` declares a family (:mod:`.declaration` describes its keys); the module or
package it names builds the family's datasets. :func:`families` lists them all, in order.
"""

from .declaration import (
    OFFICIAL_DEPTH,
    Benchmark,
    Entry,
    Family,
    Group,
    Protocol,
    families,
    family,
    family_of,
    protocol_of,
    run_depth,
)
from .typed import DeclarationError

__all__ = [
    "OFFICIAL_DEPTH",
    "Benchmark",
    "DeclarationError",
    "Entry",
    "Family",
    "Group",
    "Protocol",
    "families",
    "family",
    "family_of",
    "protocol_of",
    "run_depth",
]
