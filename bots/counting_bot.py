"""CountingBot, as a one-file submission: Level 3 (tricky). Tracks which cards are still unseen and values an unknown card at their average; keeps cards by their gain (valuing knowledge), multi-exchanges known equal cards, snaps only sure matches, hunts Kamikaze / Royal Roulette, and calls Cabo when it judges itself lowest by a margin.

This file is exactly what a learner submits to a tournament: one module that imports
``cabo_kit`` and defines one Bot class of its own. The whole strategy is a short, readable
lesson in ``cabo_kit/bots/counting.py`` (or run ``import inspect, cabo_kit as ck;
print(inspect.getsource(ck.bots.CountingBot))``). To make it yours, copy that class here, rename
it and change a method: every decision is one small method of a ``cabo_kit.SimpleBot``.
"""

import cabo_kit


class CountingBot(cabo_kit.bots.CountingBot):
    """The reference CountingBot, unchanged (see the module docstring for where its code is)."""
