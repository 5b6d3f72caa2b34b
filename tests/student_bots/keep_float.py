import cabo_kit as ck


class KeepFloat(ck.SimpleBot):
    def keep(self, obs, card):
        return len(obs.my_hand) / 2
