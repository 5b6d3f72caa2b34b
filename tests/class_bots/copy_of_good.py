# my bot - Cabo assignment
import cabo_kit


GUESS = 6.5   # average card


class TheBestBot(cabo_kit.SimpleBot):

    def value(self, c):
        if c.value is None:
            return GUESS
        return c.value

    def worst_position(self, o):
        h = o.my_hand
        if not h:
            return None
        return max(range(len(h)), key=lambda i: self.value(h[i]))

    def total(self, o):
        return sum(self.value(c) for c in o.my_hand)

    # which pile
    def draw(self, o):
        if o.caller is None and o.rules.cabo_timing == "instead" and self.call_cabo(o):
            return "cabo"
        t = o.top
        w = self.worst_position(o)
        if t is not None and t.value is not None and w is not None:
            if t.value <= 4 and t.value < self.value(o.my_hand[w]) - 1:
                return "discard"
        return "deck"

    # keep the card?
    def keep(self, o, card):
        w = self.worst_position(o)
        if w is None:
            return None
        must_keep = o.drawn_from == "discard" and not o.rules.discard_draw_may_discard
        if must_keep or card.value < self.value(o.my_hand[w]) - 0.5:
            return w
        return None

    def swap(self, o):
        w = self.worst_position(o)
        if w is None:
            return None
        my_value = self.value(o.my_hand[w])
        if o.target is not None:
            places = [o.target]
        else:
            places = [(s, p) for s in o.opponents for p in range(len(o.hands[s]))]
        best = None
        for s, p in places:
            v = o.hands[s][p].value
            if v is not None and v + 2 <= my_value and (best is None or v < best[0]):
                best = (v, s, p)
        if best is None:
            return None
        return (w, best[1], best[2])

    def spy(self, o):
        order = sorted(o.opponents, key=lambda seat: sum(self.value(c) for c in o.hands[seat]))
        for seat in order:
            for i, c in enumerate(o.hands[seat]):
                if c.value is None and not o.face_up[seat][i]:
                    return (seat, i)
        return None

    def give(self, o):
        return self.worst_position(o)

    def call_cabo(self, o):
        unknown = sum(1 for c in o.my_hand if c.value is None)
        return unknown == 0 and self.total(o) <= 6 or self.total(o) <= 4
