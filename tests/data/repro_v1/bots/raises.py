"""Raises an exception at its second decision."""

import cabo_kit as ck


class Raiser(ck.Bot):
    calls = 0

    def choose(self, observation, legal_actions):
        self.calls += 1
        if self.calls >= 2:
            return self.compute(observation)
        return legal_actions[0]

    def compute(self, observation):
        raise ValueError("boom: the bot's own bug")
