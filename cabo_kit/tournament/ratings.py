"""Moved to :mod:`cabo_kit.results.ratings` (ratings and outcomes are computed from the stored results, below the
tournament that writes them). This old path keeps working: it is the very same module object, so
``from cabo_kit.tournament.ratings import ...`` and a test's ``monkeypatch`` of it reach the one in ``results``
(``tests/test_layers.py`` checks it; the root ``conftest.py`` skips collecting this file).
"""

import sys

from ..results import ratings as _moved
from ..results.ratings import *  # noqa: F401,F403 - the names, for type checkers
from ..results.ratings import _anchor_shift, _bradley_terry_batch, _ranks  # noqa: F401 - used by old callers

sys.modules[__name__] = _moved
