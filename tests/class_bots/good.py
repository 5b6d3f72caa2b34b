"""A decent heuristic: an unseen card counts 6.5, low cards are kept, Cabo is called late."""

import cabo_kit as ck

UNKNOWN = 6.5


class Good(ck.SimpleBot):
    def value(self, card):
        return UNKNOWN if card.value is None else card.value

    def worst_position(self, obs):
        hand = obs.my_hand
        if not hand:
            return None
        return max(range(len(hand)), key=lambda p: self.value(hand[p]))

    def total(self, obs):
        return sum(self.value(c) for c in obs.my_hand)

    def draw(self, obs):
        if obs.caller is None and obs.rules.cabo_timing == "instead" and self.call_cabo(obs):
            return "cabo"
        top, worst = obs.top, self.worst_position(obs)
        if top is not None and top.value is not None and worst is not None:
            if top.value <= 4 and top.value < self.value(obs.my_hand[worst]) - 1:
                return "discard"
        return "deck"

    def keep(self, obs, card):
        worst = self.worst_position(obs)
        if worst is None:
            return None
        must = obs.drawn_from == "discard" and not obs.rules.discard_draw_may_discard
        if must or card.value < self.value(obs.my_hand[worst]) - 0.5:
            return worst
        return None

    def swap(self, obs):
        worst = self.worst_position(obs)
        if worst is None:
            return None
        mine = self.value(obs.my_hand[worst])
        targets = [obs.target] if obs.target is not None else [
            (s, p) for s in obs.opponents for p in range(len(obs.hands[s]))]
        best = None
        for s, p in targets:
            v = obs.hands[s][p].value
            if v is not None and v + 2 <= mine and (best is None or v < best[0]):
                best = (v, s, p)
        return None if best is None else (worst, best[1], best[2])

    def spy(self, obs):
        # watch the opponent who looks lowest: the one most likely to call Cabo
        rivals = sorted(obs.opponents, key=lambda s: sum(self.value(c) for c in obs.hands[s]))
        for s in rivals:
            for p, c in enumerate(obs.hands[s]):
                if c.value is None and not obs.face_up[s][p]:
                    return (s, p)
        return None

    def give(self, obs):
        return self.worst_position(obs)

    def call_cabo(self, obs):
        unknown = sum(1 for c in obs.my_hand if c.value is None)
        return unknown == 0 and self.total(obs) <= 6 or self.total(obs) <= 4
