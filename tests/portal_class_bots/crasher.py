"""Hostile: in the class's games, raises once the game is under way."""

import cabo_kit as ck


class Crasher(ck.Bot):
    rush = False

    def on_game_start(self, seat, n_players, rules):
        self.rush = in_games(rules)

    def choose(self, observation, legal_actions):
        if self.rush and observation.turn >= 1:
            raise RuntimeError("<script>alert('crasher')</script>")
        return legal_actions[self.random.randrange(len(legal_actions))]
