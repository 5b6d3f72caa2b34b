"""The card table: play Cabo in a notebook against bots, watch bots play, replay any game.

Needs the ``notebook`` extra (``pip install "cabo-kit[notebook]"``: ipywidgets and anywidget).
Hooks for tests and styling, and how a game is played by clicking: ``docs/table.md``.

The modules, one job each: :mod:`~cabo_kit.table.clicks` (what a click means: it is looked up among the
engine's legal actions), :mod:`~cabo_kit.table.picture` (what is shown: the picture of one moment, built in one
place from a game and a seat, and its words), :mod:`~cabo_kit.table.draw` (how the picture is drawn as HTML) and
:mod:`~cabo_kit.table.widget` (the notebook widgets that hold the view state and move pictures and clicks).

>>> from cabo_kit.table import CardTable
>>> table = CardTable("rush", opponents=[2, "hard"], seed=1, pace=0)    # you, a level-2 bot, a level-4 bot
>>> table.names, table.labels[2]
(['You', 'Bea', 'Cy'], 'level 4, hard')
"""

from __future__ import annotations

try:
    from .widget import CardTable, Replay
except ModuleNotFoundError as exc:  # pragma: no cover - depends on the installed extras
    if exc.name in ("anywidget", "ipywidgets", "traitlets"):
        raise ModuleNotFoundError(
            f"the card table needs {exc.name}: pip install \"cabo-kit[notebook]\" (or make lab)", name=exc.name
        ) from exc
    raise

__all__ = ["CardTable", "Replay"]
