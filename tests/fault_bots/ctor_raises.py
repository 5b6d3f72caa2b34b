import cabo_kit as ck


class Fragile(ck.Bot):
    def __init__(self):
        super().__init__()
        self.table = {}["missing key"]

    def choose(self, observation, legal_actions):
        return legal_actions[0]
