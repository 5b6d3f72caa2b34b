import cabo_kit as ck


class First(ck.Bot):
    def choose(self, observation, legal_actions):
        return legal_actions[0]


class Second(ck.Bot):
    def choose(self, observation, legal_actions):
        return legal_actions[-1]
