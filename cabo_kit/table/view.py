"""The card table's old single module, now split by job: what a click means (:mod:`cabo_kit.table.clicks`), what
is shown (:mod:`cabo_kit.table.picture`) and how it is drawn (:mod:`cabo_kit.table.draw`).

Every name it had is still here, so ``from cabo_kit.table.view import Chooser, render_table`` keeps working, and
``view.RULES_URL = None`` still sets where the table's "Rules" link points (it sets
:data:`cabo_kit.table.draw.RULES_URL`, which the drawing reads); ``del view.RULES_URL`` puts draw's default back,
which is also where ``mock.patch("cabo_kit.table.view.RULES_URL", ...)`` leaves it when it ends (pytest's
``monkeypatch`` puts back the value it found).

>>> from cabo_kit.table import draw, view
>>> view.RULES_URL = "https://example.org/rules"
>>> draw.rules_link()
'https://example.org/rules#the-three-presets-at-a-glance'
>>> del view.RULES_URL
>>> draw.rules_link()
'../docs/rules.md#the-three-presets-at-a-glance'
"""

from __future__ import annotations

import sys
import types
from . import draw
from .clicks import BUTTONS, Chooser, card_target, targets_of
from .draw import Frame, layout_slots, legend_html, render_table, round_summary_html, rules_link, scores_html
from .picture import NAMES, TableState, button_label, describe, seat_names, status_text

__all__ = [
    "NAMES", "RULES_URL", "Chooser", "Frame", "TableState", "button_label", "describe", "layout_slots", "legend_html",
    "render_table", "round_summary_html", "rules_link", "scores_html", "seat_names", "status_text",
    "targets_of",
]
_ = (BUTTONS, card_target)  # also importable from here, as before

RULES_URL: str | None  # lives in draw: reading or setting it here reaches draw's


class _OldPlace(types.ModuleType):
    """This module, with ``RULES_URL`` read from and written to :mod:`cabo_kit.table.draw`."""

    @property
    def RULES_URL(self) -> str | None:  # noqa: N802 - the setting's old name
        return draw.RULES_URL

    @RULES_URL.setter
    def RULES_URL(self, value: str | None) -> None:  # noqa: N802
        draw.RULES_URL = value

    @RULES_URL.deleter
    def RULES_URL(self) -> None:  # noqa: N802 - unittest.mock.patch deletes what it patched when it ends
        draw.RULES_URL = draw.DEFAULT_RULES_URL


sys.modules[__name__].__class__ = _OldPlace
