"""A fault: raises on its 3rd decision of a game."""

import cabo_kit as ck


class RaisesLate(ck.Bot):
    def on_game_start(self, seat, n_players, rules):
        self.count = 0

    def choose(self, observation, legal_actions):
        self.count += 1
        if self.count == 3:
            raise ZeroDivisionError("planned failure in choose")
        return legal_actions[-1] if len(legal_actions) < 3 else self.random.choice(list(legal_actions))
