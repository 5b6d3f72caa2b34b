"""A small simulator of one Cabo round over plain numbers: the search bot's fast rollouts.

The engine (:class:`cabo_kit.Game`) is the reference: it keeps events, observations and
checks for every move, which a person or a tournament needs and a rollout does not. A search
bot plays thousands of guessed rounds per decision, so it carries its own copy of the rules,
reduced to what changes the outcome: card values (a rush red king is a 0, a black king a 13),
who knows which card, and the turn order. ``tests/test_bots.py`` plays the same moves here and
in the engine, from many real game states, and checks that both agree on every legal move,
every player's knowledge and every round score: a wrong simulator would silently weaken the bot.

Cards are numbered; ``value[c]`` is card ``c``'s points. Actions are small tuples whose first
item is the kind (the constants below), e.g. ``(EXCHANGE, (2,))`` or ``(SWAP, 0, 3, 1)``;
:func:`to_action` and :func:`from_action` translate them to and from the engine's actions.

>>> import cabo_kit as ck
>>> r = Round(ck.Rules.preset("deluxe"), value=[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], hands=[[0, 1], [2, 3]],
...           pile=[4], deck=[9, 8, 7, 6, 5], current=0, scores=[0, 0])
>>> r.legal()
[(0,), (1,), (2,)]
>>> r.apply((DECK,)); r.drawn, r.phase     # the deck's top is its last card
(5, 'drawn')
>>> r.apply((EXCHANGE, (1,))); r.hands[0], r.pile, r.phase, r.current
([0, 5], [4, 1], 'choose', 1)
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Callable, Sequence

from ..actions import (
    Action, CallCabo, Discard, DrawDeck, DrawDiscard, Exchange, Give, Pass, Peek, Place, Snap, Spy, Swap,
)
from ..rules import Rules

__all__ = [
    "Round", "supported", "to_action", "from_action", "shuffled",
    "DECK", "TAKE", "CABO", "DISCARD", "EXCHANGE", "PEEK", "SPY", "SWAP", "PASS", "SNAP", "GIVE", "PLACE",
]

DECK, TAKE, CABO, DISCARD, EXCHANGE, PEEK, SPY, SWAP, PASS, SNAP, GIVE, PLACE = range(12)
ACT_DECK, ACT_TAKE, ACT_CABO, ACT_DISCARD, ACT_PASS = (DECK,), (TAKE,), (CABO,), (DISCARD,), (PASS,)


def supported(rules: Rules) -> bool:
    """Whether card values say everything these rules need (true of the three presets).

    A standard deck doubled would hold two black kings of one suit, and Royal Roulette names
    the suits; the French "second exact 100" option needs every earlier round. Those are left
    to the engine.
    """
    return not (rules.royal_roulette and rules.deck_size(rules.max_players) > 54) and not rules.second_exact_100_ends


def shuffled(items: list[int], rng: random.Random) -> list[int]:
    """A new list of ``items`` in random order (a reshuffled deck)."""
    out = list(items)
    rng.shuffle(out)
    return out


class Round:
    """One round in play, from a layout: the hands (card numbers by seat), the pile and the deck.

    ``know[s][c]`` says whether seat ``s`` has seen card ``c`` (face-up and discarded cards
    are seen by all); ``known_sum[s]`` and ``known_count[s]`` add up what it has seen, so a
    player's average unseen card is one division away. After the round ends (``phase ==
    "over"``), ``scores`` holds the round scores and ``totals`` the new game totals.
    """

    __slots__ = (
        "rules", "n", "value", "hands", "pile", "deck", "up", "know", "known_sum", "known_count", "all_sum",
        "all_count", "phase", "current", "turn", "caller", "call_turn", "final_left", "end_after_turn",
        "empty_flag", "empty_left", "drawn", "drawn_from", "power", "target", "picked", "place_stage",
        "give_to", "snapper", "after", "rng", "start_scores", "resets_used", "round_index", "scores", "totals",
        "ended_by", "game_over", "winners", "power_table", "snapping", "cabo_at_end", "cabo_instead",
        "reshuffles", "may_rediscard", "max_turns", "specials",
    )

    def __init__(
        self,
        rules: Rules,
        value: Sequence[int],
        hands: Sequence[Sequence[int]],
        pile: Sequence[int],
        deck: Sequence[int],
        *,
        current: int,
        scores: Sequence[int],
        turn: int = 0,
        caller: int | None = None,
        up: Sequence[int] | None = None,
        know: Sequence[Sequence[int]] | None = None,
        drawn: int | None = None,
        drawn_from: str | None = None,
        resets_used: Sequence[bool] | None = None,
        round_index: int = 0,
        rng: random.Random | None = None,
        phase: str | None = None,
        power: str | None = None,
        target: tuple[int, int] | None = None,
    ) -> None:
        n = len(hands)
        self.rules = rules
        self.n = n
        self.value = list(value)
        size = len(self.value)
        self.hands = [list(h) for h in hands]
        self.pile = list(pile)
        self.deck = list(deck)  # the top card is the last
        self.up = bytearray(size)
        if up is not None:
            for c in up:
                self.up[c] = 1
        self.know = [bytearray(size) for _ in range(n)]
        self.known_sum = [0] * n
        self.known_count = [0] * n
        self.all_sum = sum(self.value)
        self.all_count = size
        if know is not None:
            for s, cards in enumerate(know):
                for c in cards:
                    self.learn(s, c)
        for c in self.pile:
            self.up[c] = 1
        for c in range(size):
            if self.up[c]:
                self.reveal(c)
        self.current = current
        self.turn = turn
        self.caller = caller
        self.call_turn = -1
        self.final_left = (caller - current) % n if caller is not None else 0
        self.end_after_turn = False
        self.empty_flag = False
        self.empty_left: int | None = None
        self.drawn = drawn
        self.drawn_from = drawn_from
        if drawn is not None:
            if drawn_from == "discard":
                self.reveal(drawn)
            else:
                self.learn(current, drawn)
        self.power: str | None = None
        self.target: tuple[int, int] | None = None
        self.picked: tuple[int, ...] = ()
        self.place_stage = ""
        self.give_to: tuple[int, int] | None = None
        self.snapper = -1
        self.after = ""
        self.rng = rng if rng is not None else random.Random(0)
        self.start_scores = list(scores)
        self.resets_used = list(resets_used) if resets_used is not None else [False] * n
        self.round_index = round_index
        self.scores: list[int] = []
        self.totals: list[int] = []
        self.ended_by = ""
        self.game_over = False
        self.winners: list[int] = []
        table: list[str | None] = [None] * 14
        for v, p in rules.powers:
            table[v] = p
        self.power_table = table
        self.snapping = rules.snapping
        self.cabo_at_end = rules.cabo_timing == "end_of_turn"
        self.cabo_instead = rules.cabo_timing == "instead"
        self.reshuffles = rules.deck_out == "reshuffle"
        self.may_rediscard = rules.discard_draw_may_discard
        self.max_turns = rules.max_turns
        self.specials = rules.kamikaze or rules.royal_roulette
        if phase is not None:  # the middle of a turn: a power to use, or (traveller) the call at its end
            self.phase, self.power, self.target = phase, power, target
            self.end_after_turn = not self.deck and not self.reshuffles  # deluxe: the last card was drawn
        elif drawn is not None:
            self.phase = "drawn"
            self.end_after_turn = not self.deck and not self.reshuffles
        else:
            self.begin_turn()

    def copy(self, rng: random.Random) -> "Round":
        """An independent copy (the same cards in the same places), drawing its luck from ``rng``."""
        new = Round.__new__(Round)
        copy_slots(self, new)
        new.hands = [list(h) for h in self.hands]
        new.pile = list(self.pile)
        new.deck = list(self.deck)
        new.up = bytearray(self.up)
        new.know = [bytearray(k) for k in self.know]
        new.known_sum = list(self.known_sum)
        new.known_count = list(self.known_count)
        new.rng = rng
        return new

    # ---- knowledge -------------------------------------------------------------------

    def learn(self, seat: int, c: int) -> None:
        """Seat ``seat`` sees card ``c``."""
        k = self.know[seat]
        if not k[c]:
            k[c] = 1
            self.known_sum[seat] += self.value[c]
            self.known_count[seat] += 1

    def reveal(self, c: int) -> None:
        """Everybody sees card ``c``."""
        v = self.value[c]
        for s, k in enumerate(self.know):
            if not k[c]:
                k[c] = 1
                self.known_sum[s] += v
                self.known_count[s] += 1

    def mean_unseen(self, seat: int) -> float:
        """The average value of the cards ``seat`` has not seen (the counting bot's ``e``)."""
        left = self.all_count - self.known_count[seat]
        return (self.all_sum - self.known_sum[seat]) / left if left else 6.5

    def land(self, c: int) -> None:
        """Card ``c`` goes face up on the discard pile."""
        self.pile.append(c)
        self.up[c] = 1
        self.reveal(c)

    # ---- the deck --------------------------------------------------------------------

    def can_draw(self) -> bool:
        return bool(self.deck) or (self.reshuffles and len(self.pile) > 1)

    def draw_card(self) -> int | None:
        """The deck's top card (reshuffling the pile under its top when the rules say so), or ``None``."""
        deck = self.deck
        if not deck and self.reshuffles and len(self.pile) > 1:
            moved = self.pile[:-1]
            self.pile = self.pile[-1:]
            for c in moved:
                self.up[c] = 0
                v = self.value[c]
                for s, k in enumerate(self.know):
                    if k[c]:
                        k[c] = 0
                        self.known_sum[s] -= v
                        self.known_count[s] -= 1
            deck = self.deck = shuffled(moved, self.rng)
        if not deck:
            self.end_after_turn = True
            return None
        c = deck.pop()
        if not deck and not self.reshuffles:
            self.end_after_turn = True
        return c

    # ---- legal actions -----------------------------------------------------------------

    def movers(self) -> tuple[int, ...]:
        """The seats that decide now (all of them in a snap window)."""
        if self.phase == "snap":
            return tuple(range(self.n))
        if self.phase == "over":
            return ()
        return (self.snapper,) if self.phase == "give" else (self.current,)

    def legal(self, seat: int | None = None) -> list[tuple]:
        """The legal actions now, in the engine's order (a snap window: ``seat``'s)."""
        phase, me = self.phase, self.current
        hand = self.hands[me]
        up = self.up
        if phase == "choose":
            out: list[tuple] = []
            if self.can_draw():
                out.append(ACT_DECK)
            if self.pile and (hand or self.may_rediscard):
                out.append(ACT_TAKE)
            if self.may_call():
                out.append(ACT_CABO)
            return out
        if phase == "drawn":
            k = len(hand)
            out = [ACT_DISCARD] if self.drawn_from == "deck" or self.may_rediscard or not hand else []
            out += [(EXCHANGE, (p,)) for p in range(k)]
            if self.rules.multi_exchange:
                out += [(EXCHANGE, combo) for size in range(2, k + 1) for combo in combinations(range(k), size)]
            return out
        if phase == "power":
            if self.power in ("peek", "peek_swap"):
                return [ACT_PASS] + [(PEEK, p) for p, c in enumerate(hand) if not up[c]]
            if self.power in ("spy", "spy_swap"):
                return [ACT_PASS] + [(SPY, s, p) for s in self.others(me)
                                     for p, c in enumerate(self.hands[s]) if not up[c]]
            return self.swaps(None)
        if phase == "swap":
            return self.swaps(self.target)
        if phase == "place":
            if self.place_stage == "success":
                return [(PLACE, p) for p in self.picked]
            return [(PLACE, 0), (PLACE, len(hand))]
        if phase == "snap":
            return [ACT_PASS] + [(SNAP, s, p) for s, h in enumerate(self.hands) for p, c in enumerate(h) if not up[c]]
        if phase == "give":
            gives = [(GIVE, p) for p in range(len(self.hands[self.snapper]))]
            return gives + [ACT_PASS] if self.rules.snap_give == "optional" else gives
        if phase == "end_turn":
            return [ACT_PASS, ACT_CABO]
        return []

    def may_call(self) -> bool:
        return self.cabo_instead and self.caller is None and self.empty_left is None and not self.empty_flag

    def swaps(self, target: tuple[int, int] | None) -> list[tuple]:
        mine = range(len(self.hands[self.current]))
        if target is not None:
            return [ACT_PASS] + [(SWAP, o, target[0], target[1]) for o in mine]
        return [ACT_PASS] + [(SWAP, o, s, p) for s in self.others(self.current)
                             for p in range(len(self.hands[s])) for o in mine]

    def others(self, me: int) -> list[int]:
        """The other seats in play order, from ``me``'s left neighbour."""
        return [(me + i) % self.n for i in range(1, self.n)]

    # ---- moves -------------------------------------------------------------------------

    def apply(self, action: tuple) -> None:
        """Carry out the mover's ``action`` (not in a snap window: see :meth:`snap`). Unchecked."""
        kind = action[0]
        phase = self.phase
        me = self.current
        if phase == "choose":
            if kind == DECK:
                c = self.draw_card()
                assert c is not None
                self.drawn, self.drawn_from = c, "deck"
                self.learn(me, c)
                self.phase = "drawn"
            elif kind == TAKE:
                c = self.pile.pop()
                self.drawn, self.drawn_from = c, "discard"
                self.up[c] = 0
                self.phase = "drawn"
            else:
                self.call(me)
                self.finish_turn()
        elif phase == "drawn":
            if kind == DISCARD:
                self.discard(me)
            else:
                self.exchange(me, action[1])
        elif phase == "power" or phase == "swap":
            self.use_power(me, action)
        elif phase == "place":
            self.place(me, action[1])
        elif phase == "give":
            self.give(action)
        elif phase == "end_turn":
            if kind == CABO:
                self.call(me)
            self.finish_turn()

    def call(self, me: int) -> None:
        self.caller = me
        self.call_turn = self.turn
        self.final_left = self.n - 1

    def discard(self, me: int) -> None:
        c = self.drawn
        assert c is not None
        from_deck = self.drawn_from == "deck"
        self.drawn = self.drawn_from = None
        self.land(c)
        v = self.value[c]
        power = self.power_table[v] if from_deck and v >= 0 else None
        if power is None:
            self.open_window("end")
        elif self.rules.power_timing == "before_discard":
            self.start_power(power)
        else:
            self.power = power
            self.open_window("power")

    def start_power(self, power: str) -> None:
        self.power = power
        self.phase = "power"
        if power == "peek_swap" and all(self.up[c] for c in self.hands[self.current]):
            self.phase = "swap"

    def exchange(self, me: int, positions: tuple[int, ...]) -> None:
        c = self.drawn
        assert c is not None
        hand = self.hands[me]
        from_discard = self.drawn_from == "discard"
        if len(positions) == 1:
            p = positions[0]
            old = hand[p]
            hand[p] = c
            self.drawn = self.drawn_from = None
            if from_discard:
                self.up[c] = 1 if self.rules.discard_draw_face_up else 0
                self.reveal(c)
            else:
                self.up[c] = 0
                self.learn(me, c)
            self.land(old)
            self.open_window("end")
            return
        for p in positions:
            self.up[hand[p]] = 1
            self.reveal(hand[p])
        values = {self.value[hand[p]] for p in positions}
        self.picked = tuple(positions)
        self.place_stage = "success" if len(values) == 1 else "fail"
        self.phase = "place"

    def place(self, me: int, index: int) -> None:
        hand = self.hands[me]
        c = self.drawn
        assert c is not None
        self.drawn = None
        if self.place_stage == "penalty":
            self.drawn_from = None
            hand.insert(index, c)
            self.end_multi()
            return
        from_discard = self.drawn_from == "discard"
        self.drawn_from = None
        self.up[c] = 1 if from_discard and self.rules.discard_draw_face_up else 0
        if from_discard:
            self.reveal(c)
        else:
            self.learn(me, c)
        if self.place_stage == "success":
            picked = self.picked
            out = [x for p, x in enumerate(hand) if p in picked]
            self.hands[me] = [c if p == index else x for p, x in enumerate(hand) if p == index or p not in picked]
            for x in out:
                self.land(x)
            self.picked, self.place_stage = (), ""
            self.open_window("end")
            return
        hand.insert(index, c)
        if len(self.picked) >= self.rules.multi_exchange_penalty_at:
            penalty = self.draw_card()
            if penalty is not None:
                self.drawn, self.drawn_from, self.place_stage = penalty, "penalty", "penalty"
                return
        self.end_multi()

    def end_multi(self) -> None:
        self.picked, self.place_stage = (), ""
        self.end_turn()

    def use_power(self, me: int, action: tuple) -> None:
        kind = action[0]
        power = self.power
        if kind == PEEK:
            self.learn(me, self.hands[me][action[1]])
            if power == "peek_swap":
                self.phase = "swap"
                return
        elif kind == SPY:
            s, p = action[1], action[2]
            self.learn(me, self.hands[s][p])
            if power == "spy_swap":
                self.target = (s, p)
                self.phase = "swap"
                return
        elif kind == SWAP:
            o, s, p = action[1], action[2], action[3]
            mine, theirs = self.hands[me], self.hands[s]
            mine[o], theirs[p] = theirs[p], mine[o]
        self.power = None
        self.target = None
        if self.rules.power_timing == "before_discard":
            self.open_window("end")
        else:
            self.end_turn()

    # ---- snap windows ------------------------------------------------------------------

    def open_window(self, after: str) -> None:
        if self.snapping and any(not self.up[c] for h in self.hands for c in h):
            self.after = after
            self.phase = "snap"
            return
        if after == "end":
            self.end_turn()
        else:
            self.go_on(after)

    def go_on(self, after: str) -> None:
        if after == "start":
            self.begin_turn()
        elif after == "power" and self.power is not None:
            self.start_power(self.power)
        else:
            self.end_turn()

    def snap(self, claims: Sequence[tuple[int, int] | None]) -> None:
        """Close the snap window: ``claims[s]`` is seat ``s``'s claim ``(seat, position)`` or ``None``.

        One claim is carried out; where several seats claim, the winner is drawn at random.
        """
        after = self.after
        claimers = [s for s in range(self.n) if claims[s] is not None]
        if not claimers:
            self.go_on(after)
            return
        snapper = claimers[self.rng.randrange(len(claimers))] if len(claimers) > 1 else claimers[0]
        ts, tp = claims[snapper]  # type: ignore[misc]
        hand = self.hands[ts]
        c = hand[tp]
        self.reveal(c)
        if self.value[c] == self.value[self.pile[-1]]:
            del hand[tp]
            self.land(c)
            if ts != snapper and self.hands[snapper]:
                self.give_to, self.snapper, self.after = (ts, tp), snapper, after
                self.phase = "give"
                return
        else:
            count = self.rules.snap_penalty_own if ts == snapper else self.rules.snap_penalty_other
            for _ in range(count):
                penalty = self.draw_card()
                if penalty is None:
                    break
                self.hands[snapper].append(penalty)
        self.after_snap(after)

    def give(self, action: tuple) -> None:
        ts, tp = self.give_to  # type: ignore[misc]
        self.give_to = None
        if action[0] == GIVE:
            c = self.hands[self.snapper].pop(action[1])
            self.hands[ts].insert(tp, c)
            self.up[c] = 0  # moved face down; what was public stays known
        self.after_snap(self.after)

    def after_snap(self, after: str) -> None:
        if any(not h for h in self.hands):
            if self.rules.empty_hand == "end_now":
                self.end_round("empty_hand")
                return
            self.empty_flag = True
        self.go_on(after)

    # ---- turns -------------------------------------------------------------------------

    def begin_turn(self) -> None:
        self.phase = "choose"
        if not self.can_draw():
            self.end_after_turn = True
            if not self.legal():
                self.end_round("deck")

    def end_turn(self) -> None:
        if self.cabo_at_end and self.caller is None and self.empty_left is None and not self.empty_flag:
            self.phase = "end_turn"
            return
        self.finish_turn()

    def finish_turn(self) -> None:
        turn = self.turn
        self.turn = turn + 1
        caller = self.caller
        if caller is not None and self.call_turn != turn:
            self.final_left -= 1
        if self.empty_left is not None:
            self.empty_left -= 1
        elif self.empty_flag:
            self.empty_left = self.n
        if caller is not None and self.final_left <= 0 and self.call_turn != turn:
            self.end_round("cabo")
        elif self.end_after_turn:
            self.end_round("deck")
        elif self.empty_left is not None and self.empty_left <= 0 and caller is None:
            self.end_round("empty_hand")
        elif self.turn >= self.max_turns:
            self.end_round("turn_limit")
        else:
            self.current = (self.current + 1) % self.n
            self.begin_turn()

    # ---- scoring -------------------------------------------------------------------------

    def end_round(self, ended_by: str) -> None:
        """Score the round (RULES.md section 6) and write the game totals (reset at 100, game end)."""
        rules, n = self.rules, self.n
        self.phase = "over"
        self.ended_by = ended_by
        totals = [sum(self.value[c] for c in h) for h in self.hands]
        special = [s for s, h in enumerate(self.hands)
                   if len(h) == 4 and sorted(self.value[c] for c in h) == [12, 12, 13, 13]]
        if rules.kamikaze and special:
            scores = [0 if s in special else 50 for s in range(n)]
        else:
            scores = list(totals)
            caller = self.caller
            if caller is not None:
                own = totals[caller]
                lowest = min((t for s, t in enumerate(totals) if s != caller), default=own + 1)
                if own < lowest or (rules.ties_to_caller and own == lowest):
                    if ended_by == "empty_hand" and not rules.caller_bonus_on_empty_hand:
                        scores[caller] = own
                    else:
                        scores[caller] = (own if rules.caller_win_keeps_total else 0) + rules.caller_win_bonus
                else:
                    scores[caller] = own + rules.caller_loss_penalty
            if rules.royal_roulette:
                for s in special:
                    scores[s] = -50
        self.scores = scores
        new = [a + b for a, b in zip(self.start_scores, scores)]
        for s in range(n):
            if new[s] == 100:
                if rules.reset_at_100 and not self.resets_used[s]:
                    new[s] = 50
        self.totals = new
        over = any(t >= rules.end_score if rules.game_end == "reaches" else t > rules.end_score for t in new)
        self.game_over = over or self.round_index + 1 >= rules.max_rounds
        if self.game_over:
            low = min(new)
            tied = [s for s in range(n) if new[s] == low]
            if len(tied) > 1:
                best = min(scores[s] for s in tied)
                tied = [s for s in tied if scores[s] == best]
            self.winners = tied


def slot_copier(names: Sequence[str]) -> Callable[[object, object], None]:
    """A function ``copy(src, dst)`` that sets each named attribute of ``dst`` to ``src``'s, one plain
    assignment per slot written out once (several times faster than a loop of setattr)."""
    body = "\n".join(f"    dst.{name} = src.{name}" for name in names)
    namespace: dict = {}
    exec(f"def copy_slots(src, dst):\n{body}\n", namespace)
    return namespace["copy_slots"]


copy_slots = slot_copier(Round.__slots__)


# ---- translation to and from the engine's actions ------------------------------------------

def to_action(action: tuple) -> Action:
    """The engine's action for a simulator action.

    >>> to_action((SWAP, 0, 2, 1)), to_action((EXCHANGE, (0, 3)))
    (Swap(own=0, seat=2, position=1), Exchange(positions=(0, 3)))
    """
    kind = action[0]
    if kind == EXCHANGE:
        return Exchange(tuple(action[1]))
    simple = {DECK: DrawDeck, TAKE: DrawDiscard, CABO: CallCabo, DISCARD: Discard, PASS: Pass}
    if kind in simple:
        return simple[kind]()
    made = {PEEK: Peek, SPY: Spy, SWAP: Swap, SNAP: Snap, GIVE: Give, PLACE: Place}
    return made[kind](*action[1:])


def from_action(action: Action) -> tuple:
    """The simulator action for an engine action.

    >>> from_action(Spy(2, 1)) == (SPY, 2, 1)
    True
    """
    if isinstance(action, Exchange):
        return (EXCHANGE, tuple(action.positions))
    for kind, cls in ((DECK, DrawDeck), (TAKE, DrawDiscard), (CABO, CallCabo), (DISCARD, Discard), (PASS, Pass)):
        if isinstance(action, cls):
            return (kind,)
    if isinstance(action, Peek):
        return (PEEK, action.position)
    if isinstance(action, Spy):
        return (SPY, action.seat, action.position)
    if isinstance(action, Swap):
        return (SWAP, action.own, action.seat, action.position)
    if isinstance(action, Snap):
        return (SNAP, action.seat, action.position)
    if isinstance(action, Give):
        return (GIVE, action.position)
    if isinstance(action, Place):
        return (PLACE, action.index)
    raise ValueError(f"no simulator action for {action!r}")
