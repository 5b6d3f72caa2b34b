import cabo_kit as ck


class KeepTrue(ck.SimpleBot):
    def keep(self, obs, card):
        return True
