"""A fault: ends its own process in the middle of a game."""

import os

import cabo_kit as ck


class Vanishes(ck.Bot):
    def choose(self, observation, legal_actions):
        if observation.turn >= 3:
            os._exit(3)
        return self.random.choice(list(legal_actions))
