"""SearchBot, as a one-file submission: Level 4 (hard). The counting bot, plus a search of the Cabo call: it samples the hidden cards consistent with what it saw (opponents' unseen cards a little low), builds each guess with Game.from_layout, plays it to the end of the round with and without the call using a fast counting-like policy, and calls if that wins the game more often. With snapping (rush, traveller) it also searches what to do with a drawn card when another choice sets up a sure snap (discard a card it knows lies on the table, or free one of a known pair). A fixed rollout budget keeps it deterministic for a seed.

This file is exactly what a learner submits to a tournament: one module that imports
``cabo_kit`` and defines one Bot class of its own. The whole strategy is a short, readable
lesson in ``cabo_kit/bots/search.py`` (or run ``import inspect, cabo_kit as ck;
print(inspect.getsource(ck.bots.SearchBot))``). To make it yours, copy that class here, rename
it and change a method: every decision is one small method of a ``cabo_kit.SimpleBot``.
"""

import cabo_kit


class SearchBot(cabo_kit.bots.SearchBot):
    """The reference SearchBot, unchanged (see the module docstring for where its code is)."""
