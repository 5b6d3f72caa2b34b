"""Call Cabo as soon as possible: the others will not have had time to get low."""

import cabo_kit as ck


class QuickCabo(ck.SimpleBot):
    def call_cabo(self, obs):
        return True

    def draw(self, obs):
        if obs.caller is None and obs.rules.cabo_timing == "instead":
            return "cabo"
        return super().draw(obs)
