"""GreedyBot, as a one-file submission: Level 2 (medium). Keeps low cards, replaces its highest known card, peeks, spies and swaps simply, and calls Cabo when its estimated total (unknown cards at 6.5) is at most 7.

This file is exactly what a learner submits to a tournament: one module that imports
``cabo_kit`` and defines one Bot class of its own. The whole strategy is a short, readable
lesson in ``cabo_kit/bots/greedy.py`` (or run ``import inspect, cabo_kit as ck;
print(inspect.getsource(ck.bots.GreedyBot))``). To make it yours, copy that class here, rename
it and change a method: every decision is one small method of a ``cabo_kit.SimpleBot``.
"""

import cabo_kit


class GreedyBot(cabo_kit.bots.GreedyBot):
    """The reference GreedyBot, unchanged (see the module docstring for where its code is)."""
