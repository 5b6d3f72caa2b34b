"""Rejected: a syntax error."""

import cabo_kit as ck


class Broken(ck.Bot):
    def choose(self, observation, legal_actions)
        return legal_actions[0]
