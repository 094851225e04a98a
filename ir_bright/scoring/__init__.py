"""Scoring under the official protocol: ``Official(...)`` through ir_measures, ``evaluate``,
``per_query`` and ``drop_excluded``, and BRIGHT-Pro's aspect measures.

The names below are imported on first use: ``import ir_bright`` registers the measures
(:mod:`.provider`, :mod:`.aspect_measures`) without loading the scorer and the run readers."""

from .. import lazy

__all__ = [
    "Scorer",
    "drop_excluded",
    "evaluate",
    "excluded_docs",
    "parse_measures",
    "per_query",
]

__getattr__ = lazy.exports(
    __name__, {name: "parsing" if name == "parse_measures" else "scorer" for name in __all__}
)
