import time

import cabo_kit as ck


class MonteCarlo(ck.bots.GreedyBot):
    """A student's simulation bot, as slow as one: 0.1 s of thinking before every decision."""

    def choose(self, observation, legal_actions):
        time.sleep(0.1)  # stands for a few thousand simulated games
        return super().choose(observation, legal_actions)
