"""The reference bots: opponents to beat, a ladder to climb, examples to read.

>>> import cabo_kit as ck
>>> ck.bots.RandomBot().name, ck.bots.GreedyBot().name
('RandomBot', 'GreedyBot')
"""

from .greedy import GreedyBot
from .random_bot import RandomBot

__all__ = ["RandomBot", "GreedyBot"]
