"""Moved to :mod:`cabo_kit.results.outcomes` (ratings and outcomes are computed from the stored results, below the
tournament that writes them). This old path keeps working: it is the very same module object, so
``from cabo_kit.tournament.outcomes import ...`` and a test's ``monkeypatch`` of it reach the one in ``results``
(``tests/test_layers.py`` checks it; the root ``conftest.py`` skips collecting this file).
"""

import sys

from ..results import outcomes as _moved
from ..results.outcomes import *  # noqa: F401,F403 - the names, for type checkers

sys.modules[__name__] = _moved
