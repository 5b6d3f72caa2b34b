"""Counting-bot players inside the simulator: how the search bot imagines a round going on.

:class:`Player` plays the counting bot's rules (``counting.py``) on a simulated
:class:`~cabo_kit.bots.simulator.Round`, seeing only what its seat has seen there: an unknown
card is worth the average of the cards that seat has not seen. With the counting bot's
numbers it makes the counting bot's choices (``tests/test_bots.py`` checks that on real game
states), so when the search bot plays against counting bots its rollouts model them well, and
against people they model a sensible player.

Two options make it the search bot's own model of itself: ``known_shift`` (an opponent's card
they have seen is probably low, so it counts that much under the average) and a higher
``improve_rate`` and ``info_bonus`` (see ``SearchBot.adapt``).

>>> import cabo_kit as ck
>>> from cabo_kit.bots.simulator import Round
>>> r = Round(ck.Rules.preset("deluxe"), value=[1, 2, 3, 13, 9, 0, 4, 4, 12, 11], hands=[[0, 1], [2, 3]],
...           pile=[4], deck=[9, 8, 7, 6, 5], current=0, scores=[0, 0], know=[[0, 1], [2]])
>>> Player().decide(r, 0)     # 1 + 2 is low and below the rival's 3 + 6.5 by the margin: Cabo
(2,)
"""

from __future__ import annotations

from .simulator import (
    ACT_CABO, ACT_DECK, ACT_DISCARD, ACT_PASS, ACT_TAKE, EXCHANGE, GIVE, PEEK, PLACE, SPY, SWAP, Round,
)

__all__ = ["Player", "play_out", "matching", "SPECIAL"]

SPECIAL = (12, 12, 13, 13)  # deluxe Kamikaze; traveller Royal Roulette
NO_POSITIONS: list[int] = []


class Player:
    """A counting-bot-like player of a simulated round (the counting bot's numbers by default)."""

    __slots__ = ("cabo_cap", "margin", "margin_per_penalty", "info_bonus", "take_gain", "improve_rate", "known_shift")

    def __init__(self, *, cabo_cap: float = 10.0, margin: float = 1.0, margin_per_penalty: float = 0.3,
                 info_bonus: float = 3.0, take_gain: float = 3.0, improve_rate: float = 0.25,
                 known_shift: float | None = None) -> None:
        self.cabo_cap = cabo_cap
        self.margin = margin
        self.margin_per_penalty = margin_per_penalty
        self.info_bonus = info_bonus
        self.take_gain = take_gain
        self.improve_rate = improve_rate
        self.known_shift = known_shift  # None: the counting bot's guess for rivals' unseen cards

    # ---- what this seat sees -------------------------------------------------------------

    @staticmethod
    def mine(r: Round, me: int, unknown: float) -> list[float]:
        k, value = r.know[me], r.value
        return [value[c] if k[c] else unknown for c in r.hands[me]]

    def threat(self, r: Round, me: int, seat: int, e: float) -> float:
        """``seat``'s total as ``me`` estimates it."""
        k, value = r.know[me], r.value
        shift = self.known_shift
        if shift is None:
            guess = max(e - self.improve_rate * (r.turn // r.n), 3.0)
            return sum(value[c] if k[c] else guess for c in r.hands[seat])
        theirs = r.know[seat]
        return sum(value[c] if k[c] else (e - shift if theirs[c] else e) for c in r.hands[seat])

    def guess_of(self, r: Round, me: int, seat: int, c: int, e: float) -> float:
        """One card of ``seat`` as ``me`` estimates it (for a swap)."""
        if r.know[me][c]:
            return r.value[c]
        if self.known_shift is not None and r.know[seat][c]:
            return e - self.known_shift
        return e

    @staticmethod
    def special_keep(r: Round, me: int) -> list[int]:
        """Positions holding a special-hand card worth keeping (empty unless three are in hand)."""
        hand = r.hands[me]
        if not r.specials or len(hand) != 4:
            return NO_POSITIONS
        k, value = r.know[me], r.value
        need, keep = list(SPECIAL), []
        for p, c in enumerate(hand):
            if k[c] and value[c] in need:
                need.remove(value[c])
                keep.append(p)
        return keep if len(keep) >= 3 else []

    # ---- decisions -------------------------------------------------------------------------

    def decide(self, r: Round, me: int, late: bool = False) -> tuple:
        """This player's action in the current phase (not a snap window: :meth:`claim`).

        ``late``: the rollout has run long; call Cabo at the first chance (a bounded cost).
        """
        phase = r.phase
        if phase == "choose":
            if r.cabo_instead and r.caller is None and r.empty_left is None and not r.empty_flag and (
                    late or self.call_cabo(r, me)):
                return ACT_CABO
            pile = r.pile
            if pile and r.value[pile[-1]] <= 5 and r.hands[me]:  # take a low top card that gains enough
                top = pile[-1]
                pos, points, _ = self.place_for(r, me, top, r.mean_unseen(me))
                if pos is not None and points - r.value[top] >= self.take_gain + (2 if r.snapping else 0):
                    return ACT_TAKE
            if r.can_draw():
                return ACT_DECK
            return ACT_TAKE
        if phase == "drawn":
            c = r.drawn
            assert c is not None
            pos = self.keep(r, me, c, r.mean_unseen(me), forced=False) if r.hands[me] else None
            if pos is None:
                return ACT_DISCARD
            return (EXCHANGE, pos if isinstance(pos, tuple) else (pos,))
        if phase == "power":
            power = r.power
            if power == "peek" or power == "peek_swap":
                k, up = r.know[me], r.up
                for p, c in enumerate(r.hands[me]):
                    if not k[c] and not up[c]:
                        return (PEEK, p)
                return ACT_PASS
            if power == "spy" or power == "spy_swap":
                return self.spy(r, me)
            return self.swap(r, me)
        if phase == "swap":
            return self.swap(r, me)
        if phase == "give":
            return self.give(r, me)
        if phase == "place":
            return (PLACE, r.picked[0] if r.place_stage == "success" else 0)
        if phase == "end_turn":
            return ACT_CABO if late or self.call_cabo(r, me) else ACT_PASS
        raise ValueError(f"no decision in phase {phase!r}")  # pragma: no cover

    def place_for(self, r: Round, me: int, card: int, e: float) -> tuple[int | tuple[int, ...] | None, float, bool]:
        """Where ``card`` would go: the position (or known equal positions) worth most, what they are
        worth (an unknown card counts the average plus the value of knowing it), and whether it
        completes a special hand (then it goes there whatever the points)."""
        hand = r.hands[me]
        value, k, v = r.value, r.know[me], r.value[card]
        unknown = e + self.info_bonus
        mine: list[float] = []
        known = 0
        high = 0  # known cards of 12 or more: three of them may be a special hand
        for c in hand:
            if k[c]:
                x = float(value[c])
                mine.append(x)
                known += 1
                if x >= 12:
                    high += 1
            else:
                mine.append(unknown)
        special = self.special_keep(r, me) if high >= 3 and r.specials and len(hand) == 4 else NO_POSITIONS
        if special:
            free = [p for p in range(4) if p not in special]
            if len(special) == 3 and v in SPECIAL and free:
                need = list(SPECIAL)
                for c in hand:
                    if k[c] and value[c] in need:
                        need.remove(value[c])
                if v in need:
                    return free[0], mine[free[0]], True
        best: int | tuple[int, ...] | None = None
        points = 0.0
        for p, x in enumerate(mine):
            if (best is None or x > points) and p not in special:
                best, points = p, x
        if known >= 2 and r.rules.multi_exchange and not special:
            groups: dict[int, list[int]] = {}
            for p, c in enumerate(hand):
                if k[c]:
                    groups.setdefault(value[c], []).append(p)
            if len(groups) < known:  # two known cards of one value: a multi-exchange
                for ps in groups.values():
                    if len(ps) >= 2:
                        g = sum(mine[p] for p in ps)
                        if best is None or g > points:
                            best, points = tuple(ps), g
        return best, points, False

    def keep(self, r: Round, me: int, card: int, e: float, forced: bool) -> int | tuple[int, ...] | None:
        """The counting bot's keep: where the card gains most, if it gains enough; else ``None`` (discard)."""
        if not r.hands[me]:
            return None
        best, points, sure = self.place_for(r, me, card, e)
        if best is None or sure:
            return best
        v = r.value[card]
        must = forced or (r.drawn_from == "discard" and not r.may_rediscard)
        has_power = r.drawn_from == "deck" and v >= 0 and r.power_table[v] is not None
        if must or points - v > (1.5 if has_power else 0.0):
            return best
        return None

    def spy(self, r: Round, me: int) -> tuple:
        e = r.mean_unseen(me)
        k, up = r.know[me], r.up
        for s in sorted(r.others(me), key=lambda s: self.threat(r, me, s, e)):
            for p, c in enumerate(r.hands[s]):
                if not k[c] and not up[c]:
                    return (SPY, s, p)
        return ACT_PASS

    def swap(self, r: Round, me: int) -> tuple:
        e = r.mean_unseen(me)
        mine = self.mine(r, me, e)
        special = self.special_keep(r, me)
        if r.target is not None:
            targets = [r.target]
        else:
            targets = [(s, p) for s in r.others(me) for p in range(len(r.hands[s]))]
        guesses = [self.guess_of(r, me, s, r.hands[s][p], e) for s, p in targets]
        best: tuple = ACT_PASS
        best_gain = 1.5
        for own in range(len(mine)):
            if own in special:
                continue
            for (s, p), theirs in zip(targets, guesses):
                g = mine[own] - theirs
                if g > best_gain:
                    best, best_gain = (SWAP, own, s, p), g
        return best

    def claim(self, r: Round, me: int, matches: list[tuple[int, int, int]]) -> tuple[int, int] | None:
        """The snap this player claims: a card it knows matches the top, or ``None``.

        ``matches`` lists the face-down cards that match, as ``(seat, position, card)``: the
        counting bot's rule prefers its own (the card leaves), else the other player's card
        with our worst card to give, the first such card on a tie.
        """
        k = r.know[me]
        best: tuple[int, int] | None = None
        best_gain = 0.0
        worst = -1.0
        for s, p, c in matches:
            if k[c]:
                if s == me:
                    g = float(r.value[c])
                else:
                    if worst < 0:
                        worst = max(self.mine(r, me, r.mean_unseen(me)), default=0.0)
                    g = worst
                if best is None or g > best_gain:
                    best, best_gain = (s, p), g
        return best

    def give(self, r: Round, me: int) -> tuple:
        mine = self.mine(r, me, r.mean_unseen(me))
        special = self.special_keep(r, me)
        choices = [p for p in range(len(mine)) if p not in special] or list(range(len(mine)))
        if not choices:
            return ACT_PASS
        worst = max(choices, key=mine.__getitem__)
        if r.rules.snap_give == "optional" and mine[worst] <= 0:
            return ACT_PASS
        return (GIVE, worst)

    def call_cabo(self, r: Round, me: int) -> bool:
        hand = r.hands[me]
        e = r.mean_unseen(me)
        k, value = r.know[me], r.value
        total = 0.0
        high = 0  # known cards of 12 or more: four of them may be a special hand
        for c in hand:
            if k[c]:
                total += value[c]
                high += value[c] >= 12
            else:
                total += e
        if high == 4 and r.specials and len(hand) == 4 and len(self.special_keep(r, me)) == 4:
            return True
        if total > self.cabo_cap:
            return False
        rivals = min((self.threat(r, me, s, e) for s in r.others(me)), default=99.0)
        margin = self.margin + self.margin_per_penalty * r.rules.caller_loss_penalty
        return total + margin <= rivals


def matching(r: Round) -> list[tuple[int, int, int]]:
    """The face-down cards that match the pile's top, as ``(seat, position, card)`` in table order."""
    value, up = r.value, r.up
    top = value[r.pile[-1]]
    return [(s, p, c) for s, hand in enumerate(r.hands) for p, c in enumerate(hand) if value[c] == top and not up[c]]


def play_out(r: Round, players: list[Player], late_after: int = 10**9) -> int:
    """Play the round to its end, each seat by its player; ``late_after`` turns on, everyone calls.

    Returns the number of decisions made (the budget is counted in them).
    """
    decisions = 0
    late_turn = r.turn + late_after
    n = r.n
    nobody = [None] * n
    while r.phase != "over":
        if r.phase == "snap":
            matches = matching(r)
            r.snap([players[s].claim(r, s, matches) for s in range(n)] if matches else nobody)
            decisions += 1
            continue
        seat = r.snapper if r.phase == "give" else r.current
        r.apply(players[seat].decide(r, seat, r.turn >= late_turn))
        decisions += 1
    return decisions
