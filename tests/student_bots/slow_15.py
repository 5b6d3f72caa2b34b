import time

import cabo_kit as ck


class Slower(ck.SimpleBot):
    def draw(self, obs):
        time.sleep(1.5)
        return super().draw(obs)
