"""What the round's events say about the cards we cannot see, read as counting players' choices.

An opponent's choices leave traces. The events never show the faces they saw, but they show
*what they did*, and a player who keeps cards by their points does it for reasons:

- **Kept a drawn card** in place of a card worth ``x`` (shown as it left; about the average
  plus what knowing a card is worth, if they had not seen it): the new card is below ``x``,
  and every other card they knew was worth at most ``x`` (they replace their worst).
- **Discarded the drawn card**, worth ``v``: every card they knew was worth at most ``v``
  (1.5 more when the card had a power they wanted).
- **Drew from the deck rather than take a low top card** ``t`` (5 or less): every card they
  knew was below ``t`` plus what taking it would have had to gain.
- **Did not call Cabo**: their own estimate of their hand (known cards, plus the average for
  each unseen one) was above their calling line (10, or their rivals' estimate minus a
  margin). **Called**: it was at or below it.

:func:`read_events` follows every card through the round (swaps, gives, snaps,
multi-exchanges) and turns those traces into :class:`Evidence`: a value each unseen card
is below, and sums that the cards a player knew must stay above or below. The search bot
deals its guesses to agree with them (``search.WorldDealer``). The numbers are the counting bot's
(level 3): against it they are exact; against a person they are a sensible reading.

>>> import cabo_kit as ck
>>> game = ck.Game(ck.Rules.preset("deluxe"), seed=7, n_players=2, start_player=0, deck="3 5 9 12  1 1 4 6  7  2")
>>> _ = game.apply("look 0,1", seat=0); _ = game.apply("look 2,3", seat=1)
>>> _ = game.apply("deck"); _ = game.apply("exchange 1")        # seat 0 keeps the 2 in place of its 5
>>> evidence = read_events(game.observation(1))
>>> [evidence.limit.get(c) for c in evidence.cards[0]]        # the new card is below 5; the 3 at most 5
[6.0, 5.0, None, None]
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ..observation import Event, EventKind, Observation, Phase
from .counting import CountingBot

__all__ = ["Evidence", "SumRule", "read_events"]


class SumRule(NamedTuple):
    """Cards ``cards`` (plus ``unknown`` cards counted at ``mean``, plus ``fixed`` points) add up to more than
    ``line`` (``above``) or to at most ``line`` (not ``above``)."""

    cards: tuple[int, ...]
    fixed: float
    line: float
    above: bool


class Evidence(NamedTuple):
    """What the events say: card numbers by place, the faces we know, value limits, sum rules, values ruled out,
    and how the round will end.

    ``cards[s][p]`` numbers the card at seat ``s``, position ``p``; ``face[c]`` is its value if
    we have seen it; ``limit[c]`` a value card ``c`` is below; ``sums`` the :class:`SumRule` s;
    ``not_values[c]`` the values card ``c`` cannot have (with snapping), as bits: bit ``v + 1``.
    ``last_turn``: a draw this turn found nothing to draw, the round ends with this turn;
    ``final_turns``: a hand went empty (``empty_hand="final_turns"``), this many turns are
    left, this one included (``Game.from_layout`` takes both).
    """

    cards: list[list[int]]
    face: dict[int, int]
    limit: dict[int, float]
    sums: list[SumRule]
    not_values: dict[int, int]
    last_turn: bool = False
    final_turns: int | None = None


# The counting bot's numbers (counting.py): an unseen card of one's own counts the average plus
# info_bonus; it takes a top card of 5 or less gaining take_gain (2 more with snapping); it calls
# at an estimate of cabo_cap or less, margin (+ margin_per_penalty per penalty point) under its rivals,
# whose unseen cards it counts as the average minus improve_rate per round of turns (at least 3).
INFO_BONUS, TAKE_GAIN, CABO_CAP, MARGIN, MARGIN_PER_PENALTY, IMPROVE_RATE = (
    CountingBot.info_bonus, CountingBot.take_gain, CountingBot.cabo_cap, CountingBot.margin,
    CountingBot.margin_per_penalty, CountingBot.improve_rate)
SLACK = 1.0  # each player's own average differs a little from the one we can compute: lines are this much looser


def read_events(obs: Observation) -> Evidence | None:
    """Follow every card through the round's events and collect what they say (``None`` without whole events)."""
    events = obs.events  # made from the observation's chain ends each time it is read
    if not events or events[0].kind != EventKind.ROUND:
        return None  # not the whole round (no memory)
    if obs.rules.initial_peeks and not any(event.kind == EventKind.LOOK for event in events):
        return None  # a game built from a layout: who knows what is not in the events
    reader = Reader(obs)
    try:
        for event in events:
            reader.read(event)
    except (IndexError, TypeError, ValueError, KeyError):
        return None
    if [len(h) for h in reader.hands] != [len(h) for h in obs.hands]:
        return None
    face = dict(reader.face)
    for s, hand in enumerate(obs.hands):
        for p, card in enumerate(hand):
            if card.value is not None:
                face[reader.hands[s][p]] = card.value
    if obs.phase != Phase.SNAP:
        reader.close_window()
    if reader.give_pending and obs.phase != Phase.GIVE:
        reader.check_empty()
    limit = {c: v for c, v in reader.limit.items() if c not in face}
    not_values = {c: bits for c, bits in reader.not_values.items() if c not in face}
    last_turn = reader.last_turn or (reader.owed > 0 and obs.phase != Phase.PLACE)  # a penalty card owed, none drawn
    final_turns = None
    if reader.emptied is not None:  # the turn it went empty in: n + 1 turns from then, that one included
        final_turns = max(obs.n_players + 1 - (obs.turn - max(reader.emptied - 1, 0)), 1)
    return Evidence([list(h) for h in reader.hands], face, limit, reader.sums, not_values, last_turn, final_turns)


class Reader:
    """Reads one round's events in order, keeping card numbers, who saw each card, and the traces."""

    def __init__(self, obs: Observation) -> None:
        rules = obs.rules
        self.obs = obs
        self.n, self.me = obs.n_players, obs.seat
        self.everyone = (1 << self.n) - 1
        deck = [c.value for c in rules.full_deck(self.n) if c.value is not None]
        self.deck_sum, self.deck_count = sum(deck), len(deck)
        self.needed = TAKE_GAIN + (2 if rules.snapping else 0)
        self.margin = MARGIN + MARGIN_PER_PENALTY * rules.caller_loss_penalty
        self.calls_first = rules.cabo_timing == "instead"
        self.next_id = 0
        self.hands: list[list[int]] = []
        self.pile: list[int] = []
        self.face: dict[int, int] = {}  # values we have seen
        self.public: set[int] = set()  # cards everybody has seen (their faces are in self.face)
        self.seen: dict[int, int] = {}  # card -> bits of the seats that have seen it
        self.limit: dict[int, float] = {}
        self.sums: list[SumRule] = []
        self.drawn = -1
        self.drawn_from = ""
        self.picked: tuple[int, ...] = ()
        self.matched = False
        self.turn = 0
        self.caller: int | None = None
        self.last_mover: int | None = None
        self.snapping = rules.snapping
        self.window: int | None = None  # the value on the pile while a snap window is open
        self.window_after_power = False  # the window opens once the power is used (rush), not before (traveller)
        self.not_values: dict[int, int] = {}
        # How the round ends: the deck's size, whether a draw found nothing (the round ends with that turn),
        # penalty cards owed and not yet seen drawn, and the turn starts before a hand went empty.
        self.reshuffles = rules.deck_out == "reshuffle"
        self.deck = 0
        self.last_turn = False
        self.owed = 0
        self.emptied: int | None = None
        self.give_pending = False

    def new_card(self, value: int | None = None, seen: int = 0) -> int:
        c = self.next_id
        self.next_id += 1
        self.seen[c] = seen
        if value is not None:
            self.face[c] = value
        return c

    def show_all(self, c: int, value: int | None) -> None:
        self.seen[c] = self.everyone
        self.public.add(c)
        if value is not None:
            self.face[c] = value

    def knows(self, seat: int, c: int) -> bool:
        return bool(self.seen[c] >> seat & 1)

    def mean_unseen(self) -> float:
        """The average of the cards nobody has shown to all (a stand-in for each player's own average)."""
        shown = [self.face[c] for c in self.public if c in self.face]
        left = self.deck_count - len(shown)
        return (self.deck_sum - sum(shown)) / left if left > 0 else 6.5

    # ---- traces -------------------------------------------------------------------------

    def at_most(self, seat: int, worth: float) -> None:
        """Every card ``seat`` knows in its hand is worth at most ``worth``."""
        if seat == self.me:
            return
        below = float(math.floor(worth) + 1)
        for c in self.hands[seat]:
            if self.knows(seat, c):
                self.limit[c] = min(self.limit.get(c, below), below)

    def calling_rule(self, seat: int, called: bool) -> None:
        """``seat`` called Cabo (or chose not to): a sum rule on the cards it knows."""
        if seat == self.me or not self.hands[seat]:
            return
        e = self.mean_unseen()
        guess = max(e - IMPROVE_RATE * (self.turn // self.n), 3.0)
        rivals = min((sum(self.face[c] if self.knows(seat, c) and c in self.face else guess for c in hand)
                      for s, hand in enumerate(self.hands) if s != seat), default=99.0)
        line = min(CABO_CAP, rivals - self.margin) + (-SLACK if not called else SLACK)  # our averages are not theirs
        known = tuple(c for c in self.hands[seat] if self.knows(seat, c))
        fixed = e * (len(self.hands[seat]) - len(known))
        self.sums.append(SumRule(known, fixed, line, not called))

    # ---- events -------------------------------------------------------------------------

    def read(self, event: Event) -> None:
        kind, seat, target = event.kind, event.seat, event.target
        face = event.cards[0].value if event.cards else None
        if self.window is not None:
            if kind == EventKind.SNAP:
                self.window = None  # someone claimed: who else did is not shown
            elif not (self.window_after_power and kind in (EventKind.PEEK, EventKind.SPY, EventKind.SWAP, EventKind.SKIP)):
                self.close_window()
        if self.owed and kind not in (EventKind.PENALTY, EventKind.RESHUFFLE):
            self.last_turn, self.owed = True, 0  # a penalty card was owed and the deck had none
        if self.give_pending and kind != EventKind.GIVE:
            self.give_pending = False  # the give was skipped
            self.check_empty()
        if kind == EventKind.ROUND:
            self.hands = [[self.new_card() for _ in range(self.obs.rules.hand_size)] for _ in range(self.n)]
            self.pile = []
            self.turn = 0
            self.deck = len(self.obs.rules.full_deck(self.n)) - self.n * self.obs.rules.hand_size
            self.last_turn, self.owed, self.emptied = False, 0, None
            return
        if kind == EventKind.RESHUFFLE:
            self.deck += target[0] if target else 0
        elif kind in (EventKind.FLIP, EventKind.DRAW, EventKind.PENALTY):
            self.deck -= 1
            if kind == EventKind.PENALTY and self.owed:
                self.owed -= 1
            if self.deck <= 0 and not self.reshuffles:
                self.last_turn = True  # the deck's last card: the round ends with this turn
        if kind == EventKind.FLIP:
            c = self.new_card(face)
            self.show_all(c, face)
            self.pile.append(c)
            self.open_window(face, False)
            return
        if kind == EventKind.RESHUFFLE:
            self.pile = self.pile[-1:]
            return
        if seat is None:
            return
        if kind in (EventKind.DRAW, EventKind.TAKE) or (kind == EventKind.CABO and self.calls_first):
            if kind != EventKind.DRAW and self.deck <= 0 and (not self.reshuffles or len(self.pile) <= 1):
                self.last_turn = True  # nothing to draw at the start of this turn: it is the round's last
            self.start_turn(seat, kind)
        if kind == EventKind.LOOK:
            for p in target:
                c = self.hands[seat][p]
                self.seen[c] |= 1 << seat
            for p, card in zip(target, event.cards):
                if card.value is not None:
                    self.face[self.hands[seat][p]] = card.value
        elif kind == EventKind.DRAW:
            if self.pile and self.pile[-1] in self.face and self.face[self.pile[-1]] <= 5 and self.hands[seat]:
                self.at_most(seat, self.face[self.pile[-1]] + self.needed - 0.5)  # taking it would have gained enough
            self.drawn, self.drawn_from = self.new_card(face, 1 << seat), "deck"
        elif kind == EventKind.TAKE:
            self.drawn, self.drawn_from = self.pile.pop(), "discard"
        elif kind == EventKind.CABO:
            self.caller = seat
            self.calling_rule(seat, True)
        elif kind == EventKind.DISCARD:
            self.show_all(self.drawn, face)
            self.pile.append(self.drawn)
            power = self.drawn_from == "deck" and face is not None and self.obs.rules.power_of(event.cards[0]) is not None
            self.open_window(face, power and self.obs.rules.power_timing == "before_discard")
            if self.drawn_from == "deck" and face is not None:
                self.at_most(seat, face + (1.5 if self.obs.rules.power_of(event.cards[0]) is not None else 0.0))
        elif kind == EventKind.EXCHANGE:
            p = target[0]
            old, new = self.hands[seat][p], self.drawn
            out_value = event.cards[0].value
            worth = (float(out_value) if self.knows(seat, old) and out_value is not None
                     else self.mean_unseen() + INFO_BONUS + SLACK)
            self.at_most(seat, worth)  # it replaced its worst card
            if self.drawn_from == "deck":
                if seat != self.me:
                    self.limit[new] = min(self.limit.get(new, worth), worth)
            else:
                self.show_all(new, event.cards[-1].value)
            self.hands[seat][p] = new
            self.show_all(old, out_value)
            self.pile.append(old)
            self.open_window(out_value, False)
            if event.cards[-1].value is not None:
                self.face[new] = event.cards[-1].value
        elif kind == EventKind.PEEK:
            c = self.hands[seat][target[0]]
            self.seen[c] |= 1 << seat
            if face is not None:
                self.face[c] = face
        elif kind == EventKind.SPY:
            c = self.hands[target[0]][target[1]]
            self.seen[c] |= 1 << seat
            if face is not None:
                self.face[c] = face
        elif kind == EventKind.SWAP:
            own, other, p = target
            mine, theirs = self.hands[seat], self.hands[other]
            mine[own], theirs[p] = theirs[p], mine[own]
        elif kind == EventKind.MULTI:
            self.picked, self.matched = tuple(target), event.info == "ok"
            for p, card in zip(target, event.cards):
                self.show_all(self.hands[seat][p], card.value)
        elif kind == EventKind.PLACE:
            index, hand = target[0], self.hands[seat]
            if self.drawn_from == "discard":
                self.show_all(self.drawn, self.face.get(self.drawn))
            if self.matched and self.picked:  # the picked cards go to the pile, the drawn card takes one place
                out = [c for p, c in enumerate(hand) if p in self.picked]
                self.hands[seat] = [self.drawn if p == index else c for p, c in enumerate(hand)
                                    if p == index or p not in self.picked]
                self.pile += out
                self.open_window(self.face.get(out[-1]), False)
            else:
                hand.insert(index, self.drawn)
                if self.picked and len(self.picked) >= self.obs.rules.multi_exchange_penalty_at:
                    self.owed = 1  # a penalty card follows (placed by the next event), if the deck has one
            self.picked, self.matched = (), False
        elif kind == EventKind.PENALTY:
            self.hands[seat].insert(target[0], self.new_card())
        elif kind == EventKind.SNAP:
            other, p = target
            c = self.hands[other][p]
            self.show_all(c, face)
            if event.info == "match":
                self.hands[other].pop(p)
                self.pile.append(c)
                if other != seat and self.hands[seat]:
                    self.give_pending = True  # the snapper gives a card first (or may skip)
                else:
                    self.check_empty()
            else:
                rules = self.obs.rules
                self.owed = rules.snap_penalty_own if other == seat else rules.snap_penalty_other
        elif kind == EventKind.GIVE:
            own, other, p = target
            self.hands[other].insert(p, self.hands[seat].pop(own))
            self.give_pending = False
            self.check_empty()

    def check_empty(self) -> None:
        """A snap or a give may empty a hand: with final turns, note the turn it happened in."""
        if self.emptied is None and self.obs.rules.empty_hand == "final_turns" and any(not h for h in self.hands):
            self.emptied = self.turn

    def open_window(self, value: int | None, after_power: bool) -> None:
        if self.snapping and value is not None:
            self.window, self.window_after_power = value, after_power

    def close_window(self) -> None:
        """The snap window closed with no claim: nobody knew a face-down card of that value.

        (A counting player snaps every card it knows to match; losing claims are not shown, so a
        window where somebody snapped says nothing about the others.)
        """
        value = self.window
        self.window = None
        if value is None:
            return
        bit = 1 << (value + 1)
        for hand in self.hands:
            for c in hand:
                if self.seen[c] & ~(1 << self.me) and c not in self.public:
                    self.not_values[c] = self.not_values.get(c, 0) | bit

    def start_turn(self, seat: int, kind: str) -> None:
        """A turn begins: what the last player (traveller: at its turn's end) or this one chose about Cabo."""
        if self.caller is None:
            if self.calls_first and kind != EventKind.CABO:
                self.calling_rule(seat, False)
            elif not self.calls_first and self.last_mover is not None and self.last_mover != seat:
                self.calling_rule(self.last_mover, False)
        self.last_mover = seat
        self.turn += 1
