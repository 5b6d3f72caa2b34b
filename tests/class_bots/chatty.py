import cabo_kit as ck


class Chatty(ck.SimpleBot):
    """Takes the pile's top when it is a 2 or less, keeps cards under 5, and says why at every draw."""

    def draw(self, obs):
        top = obs.top
        choice = "discard" if top is not None and top.value is not None and top.value <= 2 else "deck"
        print(f"round {obs.round} turn {obs.turn}: hand {' '.join(map(str, obs.my_hand))}, top {top}, I draw from the {choice}")
        return choice

    def keep(self, obs, card):
        hand = obs.my_hand
        unknown = [p for p, c in enumerate(hand) if c.value is None]
        high = max(range(len(hand)), key=lambda p: -1 if hand[p].value is None else hand[p].value)
        must = obs.drawn_from == "discard" and not obs.rules.discard_draw_may_discard
        if card.value < 5 or must:
            if hand[high].value is not None and hand[high].value > card.value:
                return high
            return unknown[0] if unknown else high
        return None
