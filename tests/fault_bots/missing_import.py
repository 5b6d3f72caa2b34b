import cabo_kit as ck
import numpyy_does_not_exist  # noqa: F401


class Lost(ck.Bot):
    def choose(self, observation, legal_actions):
        return legal_actions[0]
