"""A good submission: a random legal action, drawn from the bot's seeded random stream."""

import cabo_kit as ck


class Wanderer(ck.Bot):
    def choose(self, observation, legal_actions):
        return self.random.choice(list(legal_actions))
