"""Rejected: two Bot classes of its own."""

import cabo_kit as ck


class One(ck.Bot):
    def choose(self, observation, legal_actions):
        return legal_actions[0]


class Two(ck.Bot):
    def choose(self, observation, legal_actions):
        return legal_actions[0]
