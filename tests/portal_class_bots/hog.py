"""Hostile: in the class's games, asks for far more memory than its limit."""

import cabo_kit as ck


class Hog(ck.Bot):
    rush = False

    def on_game_start(self, seat, n_players, rules):
        self.rush = in_games(rules)

    def choose(self, observation, legal_actions):
        if self.rush and observation.turn >= 1:
            hoard = bytearray(4 * 1024**3)
            return legal_actions[len(hoard) % len(legal_actions)]
        return legal_actions[self.random.randrange(len(legal_actions))]
