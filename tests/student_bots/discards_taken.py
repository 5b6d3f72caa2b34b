import cabo_kit as ck


class Taker(ck.Bot):
    def choose(self, observation, legal_actions):
        if observation.phase == "choose" and ck.DrawDiscard() in legal_actions:
            return "take"
        if observation.phase == "drawn":
            return "discard"
        return legal_actions[0]
