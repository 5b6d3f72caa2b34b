"""Plays like a careful greedy player, except for a rare branch with a bug.

Its "special move" runs when a checksum of what it sees hits a rare value (about one keep
decision in 1,000, so about 3% of games): deterministic, so a game replays to the same crash.
"""

import zlib

import cabo_kit as ck


class Lucky(ck.SimpleBot):
    def estimate(self, card):
        return 6 if card.value is None else card.value

    def keep(self, obs, card):
        seen = f"{obs.round}|{obs.turn}|{' '.join(map(str, obs.my_hand))}|{obs.top}|{card}"
        if zlib.crc32(seen.encode()) % 1000 == 0:
            return self.special_move(obs, card)
        hand = obs.my_hand
        worst = max(range(len(hand)), key=lambda p: self.estimate(hand[p]))
        must = obs.drawn_from == "discard" and not obs.rules.discard_draw_may_discard
        if must or card.value < self.estimate(hand[worst]):
            return worst
        return None

    def special_move(self, obs, card):
        known = [c.value for c in obs.my_hand if c.value is not None and c.value > 100]
        return known.index(max(known))  # the bug: max() of an empty list raises ValueError
