"""RandomBot, as a one-file submission: Level 1 (easy). Plays a random legal action of a random kind; calls Cabo, multi-exchanges and snaps only rarely.

This file is exactly what a learner submits to a tournament: one module that imports
``cabo_kit`` and defines one Bot class of its own. The whole strategy is a short, readable
lesson in ``cabo_kit/bots/random_bot.py`` (or run ``import inspect, cabo_kit as ck;
print(inspect.getsource(ck.bots.RandomBot))``). To make it yours, copy that class here, rename
it and change ``choose``, its one method.
"""

import cabo_kit


class RandomBot(cabo_kit.bots.RandomBot):
    """The reference RandomBot, unchanged (see the module docstring for where its code is)."""
