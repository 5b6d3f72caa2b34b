"""A fault: answers an action that parses but is never legal."""

import cabo_kit as ck


class IllegalMove(ck.Bot):
    def choose(self, observation, legal_actions):
        if observation.turn >= 2:
            return ck.Peek(40)
        return self.random.choice(list(legal_actions))
