"""A well-behaved bot: plays a random legal action drawn from self.random, uses every hook."""

import cabo_kit as ck


class GoodBot(ck.Bot):
    def on_game_start(self, seat, n_players, rules):
        self.seat = seat
        self.rounds = 0

    def on_round_start(self, observation):
        self.rounds += 1

    def choose(self, observation, legal_actions):
        return legal_actions[self.random.randrange(len(legal_actions))]
