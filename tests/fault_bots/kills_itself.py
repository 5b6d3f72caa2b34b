"""Ends its own process in the middle of a decision."""

import os

import cabo_kit as ck


class Quitter(ck.Bot):
    def choose(self, observation, legal_actions):
        os._exit(3)
