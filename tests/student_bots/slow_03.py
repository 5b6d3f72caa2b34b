import time

import cabo_kit as ck


class Slow(ck.SimpleBot):
    def draw(self, obs):
        time.sleep(0.3)
        return super().draw(obs)
