"""A good submission: GreedyBot's play under its own name."""

from cabo_kit.bots import GreedyBot


class Steady(GreedyBot):
    pass
