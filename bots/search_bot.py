"""SearchBot, as a one-file submission: Level 4 (hard). The counting bot, sharpened, plus a search of every real decision (call, draw or take; the drawn card's fate; swaps; the end-of-turn call in traveller): it guesses the hidden cards many times, in deals that agree with what the opponents' choices say, plays each candidate to the end of the round with the engine itself (every player following the counting bot's rules with what they have seen), and overrules the counting bot only when another choice wins the game more often by two standard errors. The budget is counted in simulated decisions, so a seed gives the same game on any machine.

This file is exactly what a learner submits to a tournament: one module that imports
``cabo_kit`` and defines one Bot class of its own. The whole strategy is a short, readable
lesson in ``cabo_kit/bots/search.py`` (or run ``import inspect, cabo_kit as ck;
print(inspect.getsource(ck.bots.SearchBot))``). To make it yours, copy that class here, rename
it and change a method: every decision is one small method of a ``cabo_kit.SimpleBot``.
"""

import cabo_kit


class SearchBot(cabo_kit.bots.SearchBot):
    """The reference SearchBot, unchanged (see the module docstring for where its code is)."""
