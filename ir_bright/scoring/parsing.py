"""Measure names (ir_measures syntax) parsed into measures the scorer can compute, or a
one-line error naming the culprit and a likely fix."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

import ir_measures
from ir_measures import Measure

from ..errors import MeasureError
from ..records import BrightProQrel
from .official import Official
from .protocol import provider_name
from .provider import PROVIDER

MAX_CUTOFF = 2**31 - 1
"""The largest cutoff trec_eval (a C int) computes; a larger one is refused when parsed."""


def parse_measures(names: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Parse measure names (ir_measures syntax) into the measures they wrap, checking that
    each can be computed; raises :class:`MeasureError` naming the culprit."""
    if isinstance(names, str | Measure):
        names = [names]
    result = []
    for name in names:
        measure = _parse_one(name)
        if measure not in result:
            result.append(measure)
    if not result:
        raise MeasureError("no measures given: name at least one, e.g. nDCG@10")
    return result


def _parse_one(name: str | Measure) -> Measure:
    try:
        measure = name if isinstance(name, Measure) else ir_measures.parse_measure(name)
        measure.validate_params()
    except (ValueError, NameError, SyntaxError, AssertionError, TypeError) as exc:
        raise MeasureError(f"cannot read measure {name!r}: {_one_line(exc)}{_hint(name)}") from None
    inner = measure.inner if isinstance(measure, Official) else measure
    cutoff = inner.params.get("cutoff")
    # trec_eval aborts the process on a cutoff of 0 and misnames one beyond a C int
    if cutoff is not None and not 1 <= cutoff <= MAX_CUTOFF:
        raise MeasureError(
            f"measure {name!r}: the cutoff must be at least 1 and at most {MAX_CUTOFF:,}, "
            f"not {cutoff} (e.g. {inner.NAME}@10)"
        )
    if not PROVIDER.supports(Official(inner)):
        raise MeasureError(f"no installed ir_measures provider computes {inner}")
    _trial(name, inner)
    return inner


_TRIAL_QRELS = [
    BrightProQrel("q", "gold", 1, "0", "a", 1.0),
    BrightProQrel("q", "other", 0, "0", "", 0.0),
    BrightProQrel("q", "gone", -100, "0", "", 0.0),
]
_TRIAL_RUN = {"q": {"gold": 2.0, "other": 1.0, "gone": 3.0}}


def _trial(name: str | Measure, inner: Measure) -> None:
    """Compute ``inner`` once on a query of three documents: a measure that parses but that
    its provider cannot compute (gains pytrec_eval refuses as not integer, say) fails here,
    in one line naming it, rather than part way through scoring."""
    try:
        ir_measures.calc_aggregate([Official(inner)], _TRIAL_QRELS, _TRIAL_RUN)
    except Exception as exc:  # noqa: BLE001 - whatever the provider raises, it is this measure
        raise MeasureError(
            f"measure {name!r} cannot be computed by {provider_name(inner) or 'ir_measures'}: "
            f"{type(exc).__name__}: {_one_line(exc)}"
        ) from None


_EXAMPLES = " (e.g. nDCG@10, R@1, AP@100, RR)"


def _hint(name: Any) -> str:
    text = str(name).strip()
    if "," in text or len(text.split()) > 1:
        return " (give one measure per -m, e.g. -m nDCG@10 -m R@100)"
    try:  # a trec_eval name, e.g. ndcg_cut_10 or recall.1000
        translated = ir_measures.parse_trec_measure(text)
    except Exception:  # noqa: BLE001 - not one either
        translated = []
    if translated:
        names = ", ".join(map(str, translated))
        return f" (did you mean {names}? {text} is trec_eval's name)"
    head = text.split("@")[0].split("(")[0].strip()
    known: dict[str, str] = {}
    for measure_name in ir_measures.measures.registry:  # the canonical name comes first
        known.setdefault(measure_name.lower(), measure_name)
    if head in known.values():  # the name is right, its parameters or cutoff are not
        params = getattr(ir_measures.measures.registry[head], "SUPPORTED_PARAMS", {})
        forms = [f"{head}@10" if "cutoff" in params else head]
        if "rel" in params:
            forms.append(f"{head}(rel=2)@10" if "cutoff" in params else f"{head}(rel=2)")
        return f" (write it like {' or '.join(forms)})"
    close = difflib.get_close_matches(head.lower(), list(known), n=3, cutoff=0.6)
    close = [known[c] for c in close if known[c] != head]
    return f" (did you mean {', '.join(close)}?)" if close else _EXAMPLES


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
