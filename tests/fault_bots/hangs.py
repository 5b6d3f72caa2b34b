"""Never answers: spins forever in choose()."""

import cabo_kit as ck


class Hanger(ck.Bot):
    def choose(self, observation, legal_actions):
        while True:
            pass
