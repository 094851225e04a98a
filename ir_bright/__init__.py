"""ir_bright: BRIGHT and MM-BRIGHT in ir_datasets, scored by the official protocol.

``import ir_bright`` registers every ``bright/...`` and ``mm-bright/...`` dataset with
ir_datasets (replacing the core's defective ``bright/*`` entries) and the ``Official(...)``
measure with ir_measures.
"""

import logging

__version__ = "0.1.0"

logging.getLogger(__name__).addHandler(logging.NullHandler())

from .measures import Official  # noqa: E402
from .registry import register  # noqa: E402
from .scoring import drop_excluded, evaluate  # noqa: E402

__all__ = ["Official", "drop_excluded", "evaluate", "register", "__version__"]

register()
