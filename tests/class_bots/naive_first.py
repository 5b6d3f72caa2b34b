import cabo_kit


class FirstChoice(cabo_kit.Bot):
    def choose(self, observation, legal_actions):
        return legal_actions[0]
