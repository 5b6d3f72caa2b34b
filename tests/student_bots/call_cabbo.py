import cabo_kit as ck


class Typo(ck.SimpleBot):
    def keep_low(self, obs, card):
        return 0 if card.value <= 4 else None

    def call_cabbo(self, obs):
        return True
