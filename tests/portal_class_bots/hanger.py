"""Hostile: in the class's games, never answers once the game is under way."""

import time

import cabo_kit as ck


class Hanger(ck.Bot):
    rush = False

    def on_game_start(self, seat, n_players, rules):
        self.rush = in_games(rules)

    def choose(self, observation, legal_actions):
        while self.rush and observation.turn >= 1:
            time.sleep(1)
        return legal_actions[self.random.randrange(len(legal_actions))]
