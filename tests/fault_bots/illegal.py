"""Answers an action that parses but is not legal."""

import cabo_kit as ck


class Cheater(ck.Bot):
    def choose(self, observation, legal_actions):
        return ck.Swap(0, 9, 9)
