"""ir_bright's measures for ir_measures: ``Official(measure)`` and BRIGHT-Pro's aspect measures."""

from ..scoring.aspect_measures import A_Recall, wAlpha_nDCG
from ..scoring.official import Official

__all__ = ["A_Recall", "Official", "wAlpha_nDCG"]
