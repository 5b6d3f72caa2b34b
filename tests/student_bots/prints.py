import cabo_kit as ck


class Chatty(ck.SimpleBot):
    def draw(self, obs):
        print("my turn", obs.turn)
        return super().draw(obs)
