import cabo_kit as ck


class Zero(ck.Bot):
    def choose(self, observation, legal_actions):
        return 0
