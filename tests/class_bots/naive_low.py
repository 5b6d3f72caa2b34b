import cabo_kit as ck


class LowKeeper(ck.SimpleBot):
    # keep anything that is 4 or less, in place of my first card
    def keep(self, obs, card):
        if not obs.my_hand:
            return None
        if obs.drawn_from == "discard" and not obs.rules.discard_draw_may_discard:
            return 0
        if card.value <= 4:
            return 0
        return None
