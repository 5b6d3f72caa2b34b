"""A fault: sleeps far past the decision limit once the game is under way."""

import time

import cabo_kit as ck


class Dozes(ck.Bot):
    def choose(self, observation, legal_actions):
        if observation.turn >= 4:
            time.sleep(60)
        return self.random.choice(list(legal_actions))
