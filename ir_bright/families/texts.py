"""Texts that name the families or describe their protocols, made from the declarations.

A sentence listing the benchmarks ir_bright serves goes stale the day a family is added; the
help texts and the generated regions of the docs (``<!-- declared NAME -->``, refreshed by
``python docs/hooks/declared.py``) take such lists from here instead, so a new declaration
reaches them all. Standard library only, as :mod:`.declaration`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .declaration import OFFICIAL_DEPTH, Benchmark, Family, families


def joined(items: Sequence[str], last: str = "and") -> str:
    """``a, b and c`` (``last`` the final conjunction)."""
    items = list(items)
    if len(items) < 2:
        return "".join(items)
    return f"{', '.join(items[:-1])} {last} {items[-1]}"


def pretty_name(family: Family) -> str:
    """The family's name as its papers write it (``BRIGHT-Pro``)."""
    return family.collection.pretty_name


def family_names() -> str:
    """Every family's name, in the declared order: ``BRIGHT, MM-BRIGHT, ... and TEMPO``."""
    return joined([pretty_name(found) for found in families()])


def id_patterns() -> str:
    """Every family's ids as patterns: ```bright/*`, ... and `tempo/*```."""
    return joined([f"`{found.namespace}/*`" for found in families()])


def exclusions() -> str:
    """Which documents each family's official protocol removes from a query's ranking:
    ``BRIGHT's `excluded_ids`, ...; BRIGHT-Pro and R2MED exclude none``."""
    removing = [f for f in families() if f.protocol.exclusions]
    text = joined([f"{pretty_name(f)}'s `{f.protocol.exclusions}`" for f in removing])
    others = [pretty_name(f) for f in families() if not f.protocol.exclusions]
    if others:
        text += f"; {joined(others)} exclude{'s' if len(others) == 1 else ''} none"
    return text


def protocol() -> str:
    """The official protocol in one sentence, from the declarations."""
    return (
        f"Each query's excluded documents ({exclusions()}) are removed from its ranking and "
        f"the ranking is cut to its {OFFICIAL_DEPTH:,} best before scoring."
    )


def benchmarks() -> str:
    """The benchmarks ``report`` makes tables of, by family: their names, columns and
    measures, benchmarks of the same shape together."""
    parts = []
    for found in families():
        shapes: dict[str, list[str]] = {}
        for name, table in found.benchmarks().items():
            shapes.setdefault(_shape(table), []).append(f"`{name}`")
        described = [f"{joined(names)} ({shape})" for shape, names in shapes.items()]
        parts.append(f"{pretty_name(found)}: {'; '.join(described)}")
    return ". ".join(parts) + "."


def _shape(table: Benchmark) -> str:
    """``12 domains, nDCG@10``, or, for a table of several measures of one run, ``one run:
    R@5 and nDCG@10 on 2 qrels``."""
    if not table.mixed:
        return f"{len(table.ids)} domains, {table.measure}"
    measures = joined(list(dict.fromkeys(table.measures)))
    return f"one run: {measures} on {len(set(table.datasets))} qrels"


def references() -> str:
    """The published rows ir_bright holds, by family: how many, for which benchmarks."""
    parts = []
    for found in families():
        held = {name: len(rows) for name, rows in found.references().items() if rows}
        if held:
            names = joined([f"`{name}`" for name in held])
            count = sum(held.values())
            rows = "row" if count == 1 else "rows"
            parts.append(f"{pretty_name(found)}: {count} {rows} for {names}")
        else:
            parts.append(f"{pretty_name(found)}: none yet")
    return ". ".join(parts) + "."


def citations() -> str:
    """Every family's BibTeX entries, in the declared order, as one ``bibtex`` block."""
    entries = [found.collection.bibtex.strip() for found in families()]
    return "```bibtex\n" + "\n\n".join(entries) + "\n```"


DECLARED: dict[str, Callable[[], str]] = {
    "families": family_names,
    "id-patterns": id_patterns,
    "exclusions": exclusions,
    "protocol": protocol,
    "benchmarks": benchmarks,
    "references": references,
    "citations": citations,
}
"""The texts a docs page may hold as a generated region, by name."""
