"""The reference bots: opponents to beat, a ladder to climb, examples to read.

From weakest to strongest (measured in ``docs/bots.md``: each beats the one below in every preset):
:class:`RandomBot`, :class:`GreedyBot`, :class:`CountingBot`, :class:`SearchBot`.
:func:`by_level` gives them as difficulty levels 1 (easy) to 4 (hard).

Three places are named for bots, one job each: ``cabo_kit/bot.py`` holds the :class:`~cabo_kit.Bot` base class
a learner subclasses (``ck.Bot``, ``ck.SimpleBot``); this package, ``cabo_kit/bots/``, the reference bots
(``ck.bots.GreedyBot``); the repository's top-level ``bots/`` folder the same bots as one-file submissions, to
read, copy and enter in a tournament (``bots/README.md``).

>>> import cabo_kit as ck
>>> ck.bots.RandomBot().name, ck.bots.GreedyBot().name, ck.bots.by_level(3).name
('RandomBot', 'GreedyBot', 'CountingBot')
"""

from .counting import CountingBot
from .greedy import GreedyBot
from .levels import LEVELS, by_level
from .random_bot import RandomBot
from .search import SearchBot

__all__ = ["RandomBot", "GreedyBot", "CountingBot", "SearchBot", "by_level", "LEVELS"]
