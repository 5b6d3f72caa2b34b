"""Difficulty levels for people: ``by_level(1)`` (easy) to ``by_level(4)`` (hard)."""

from __future__ import annotations

from ..bot import Bot
from .counting import CountingBot
from .greedy import GreedyBot
from .random_bot import RandomBot
from .search import SearchBot

__all__ = ["by_level", "LEVELS"]

#: Level number -> (label for a card table, bot class). Strength is measured in docs/bots.md: each level beats
#: the one below in every preset (level 4 over level 3, 1,000 games per preset on deals fixed before looking:
#: deluxe 68.2%, rush 79.8%, traveller 67.6%).
LEVELS: dict[int, tuple[str, type[Bot]]] = {
    1: ("easy", RandomBot),
    2: ("medium", GreedyBot),
    3: ("tricky", CountingBot),
    4: ("hard", SearchBot),
}


def by_level(level: int | str) -> Bot:
    """A new bot of difficulty ``level``: 1 random, 2 greedy, 3 counting, 4 search; or the
    level's label, ``"easy"``, ``"medium"``, ``"tricky"`` or ``"hard"``.

    >>> by_level(1).name, by_level(4).name, by_level("medium").name
    ('RandomBot', 'SearchBot', 'GreedyBot')
    >>> by_level(5)
    Traceback (most recent call last):
    ...
    ValueError: no bot level 5: choose 1 (easy), 2 (medium), 3 (tricky) or 4 (hard)
    """
    if isinstance(level, str):
        for number, (label, _) in LEVELS.items():
            if level.strip().lower() in (label, str(number)):
                return LEVELS[number][1]()
    if isinstance(level, bool) or level not in LEVELS:
        raise ValueError(f"no bot level {level!r}: choose 1 (easy), 2 (medium), 3 (tricky) or 4 (hard)")
    return LEVELS[level][1]()
