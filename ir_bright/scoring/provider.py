"""The ir_measures provider of :class:`~ir_bright.scoring.official.Official` measures, and their
registration with ir_measures; the evaluator it hands out is :mod:`.evaluator`'s, imported
when a run is first scored."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import ir_measures
from ir_measures.measures.base import Measure
from ir_measures.providers.base import Provider

from ..upstream import install_measure_parser, put_provider_first, register_measure
from .official import Official, parse_measure

if TYPE_CHECKING:
    from .evaluator import OfficialEvaluator


class OfficialProvider(Provider):
    """
    The benchmarks' official protocol

    Provides :class:`Official` measures by delegating the inner measure to the other providers
    of ir_measures' default pipeline, after dropping excluded documents and cutting to 1,000.
    """

    NAME = "ir_bright"

    def supports(self, measure: Measure) -> bool:
        """Whether ``measure`` is ``Official(m)`` with an ``m`` some other provider supports."""
        if not isinstance(measure, Official) or "measure" not in measure.params:
            return False
        return ir_measures.DefaultPipeline.supports(measure.inner)

    def _evaluator(self, measures: Iterable[Measure], qrels: Any) -> OfficialEvaluator:
        from .evaluator import OfficialEvaluator

        return OfficialEvaluator([m for m in measures if isinstance(m, Official)], qrels)


PROVIDER = OfficialProvider()


def register() -> None:
    """Hook :class:`Official` into ir_measures (idempotent).

    Registers the measure name and :data:`PROVIDER` with ir_measures, puts the provider ahead
    of the stock ones in ``ir_measures.DefaultPipeline`` (it only claims ``Official``
    measures), and makes ``ir_measures.parse_measure`` read ``Official(...)``.
    """
    register_measure(Official())
    put_provider_first(PROVIDER)
    install_measure_parser(parse_measure)
