import cabo_kit as ck


class BlindSwapper(ck.SimpleBot):
    """Swaps a high card of its own for the next player's last card, blindly.

    The bug: "the last card" is written as position 3, which is illegal when that player holds
    fewer than four cards (after a multi-exchange or a snap), so now and then it answers an
    illegal action.
    """

    def choose(self, observation, legal_actions):
        obs = observation
        if obs.phase in ("power", "swap") and obs.power in ("swap", "peek_swap", "spy_swap") and obs.target is None:
            hand = obs.my_hand
            high = [p for p, c in enumerate(hand) if c.value is not None and c.value >= 12]
            if high:
                return ck.Swap(high[0], obs.opponents[0], 3)
        return super().choose(obs, legal_actions)

    def keep(self, obs, card):
        hand = obs.my_hand
        if not hand:
            return None
        worst = max(range(len(hand)), key=lambda p: 6.5 if hand[p].value is None else hand[p].value)
        must = obs.drawn_from == "discard" and not obs.rules.discard_draw_may_discard
        value = 6.5 if hand[worst].value is None else hand[worst].value
        return worst if must or card.value < value else None
