"""My greedy player: replace the highest card I know of, call Cabo when I am low."""

import cabo_kit as ck


class Greedo(ck.SimpleBot):
    def guess(self, card):
        return 7 if card.value is None else card.value

    def highest(self, obs):
        cards = obs.my_hand
        best, where = -100, None
        for i, c in enumerate(cards):
            if self.guess(c) > best:
                best, where = self.guess(c), i
        return where

    def draw(self, obs):
        top = obs.top
        if obs.caller is None and obs.rules.cabo_timing == "instead" and self.call_cabo(obs):
            return "cabo"
        h = self.highest(obs)
        if top is not None and top.value is not None and h is not None and top.value <= 2:
            return "discard"
        return "deck"

    def keep(self, obs, card):
        h = self.highest(obs)
        if h is None:
            return None
        if obs.drawn_from == "discard" and not obs.rules.discard_draw_may_discard:
            return h
        return h if card.value < self.guess(obs.my_hand[h]) else None

    def call_cabo(self, obs):
        return sum(self.guess(c) for c in obs.my_hand) <= 8
