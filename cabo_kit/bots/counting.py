"""CountingBot: counts the cards it has not seen and plays the expected value."""

from __future__ import annotations

import math
from functools import lru_cache
from operator import attrgetter
from typing import Any, Sequence

from ..actions import CallCabo
from ..bot import SimpleBot
from ..cards import Card
from ..observation import Observation
from ..rules import Rules

__all__ = ["CountingBot", "equal_groups", "unseen_cards"]

SPECIAL = (12, 12, 13, 13)  # deluxe Kamikaze; traveller Royal Roulette (13 is a black king there)
_CABO = CallCabo()
_VALUE = attrgetter("value")


@lru_cache(maxsize=None)
def _full_pool(rules: Rules, n_players: int) -> tuple[tuple[Card, int], ...]:
    pool: dict[Card, int] = {}
    for card in rules.full_deck(n_players):
        pool[card] = pool.get(card, 0) + 1
    return tuple(pool.items())


@lru_cache(maxsize=None)
def _pool_sum(rules: Rules, n_players: int) -> tuple[int, int]:
    """The full deck's points and its number of cards."""
    values = [c.value for c in rules.full_deck(n_players) if c.value is not None]
    return sum(values), len(values)


def unseen_cards(obs: Observation) -> tuple[list[Card], bool]:
    """The cards ``obs``'s seat has not seen, and whether every card it sees fits in one deck.

    The full deck less every card in sight: the known cards in the hands, the discard pile
    and a drawn card it knows (a card in sight that the deck does not hold is left out).

    >>> import cabo_kit as ck
    >>> obs = ck.Game(ck.Rules.preset("rush"), seed=1, n_players=2).observation(0)
    >>> cards, fits = unseen_cards(obs)
    >>> hidden = sum(not c.known for hand in obs.hands for c in hand)
    >>> fits, len(cards) == obs.deck_size + hidden   # the deck and every ``??``
    (True, True)
    """
    pool = dict(_full_pool(obs.rules, obs.n_players))
    seen = [c for hand in obs.hands for c in hand if c.known] + list(obs.discard)
    if obs.drawn is not None and obs.drawn.known:
        seen.append(obs.drawn)
    fits = True
    for card in seen:
        if pool.get(card, 0) > 0:
            pool[card] -= 1
        else:
            fits = False
    return [c for c, k in pool.items() for _ in range(k)], fits


def equal_groups(hand: Sequence[Card]) -> list[tuple[int, ...]]:
    """The positions of each value ``hand`` holds two or more known cards of (what a multi-exchange can give up).

    >>> from cabo_kit.cards import parse_cards
    >>> equal_groups(parse_cards([7, "??", 7, 2, 2, 5]))
    [(0, 2), (3, 4)]
    """
    known = [c.value for c in hand if c.value is not None]
    if len(set(known)) == len(known):
        return []
    groups: dict[int, list[int]] = {}
    for p, c in enumerate(hand):
        if c.value is not None:
            groups.setdefault(c.value, []).append(p)
    return [tuple(ps) for ps in groups.values() if len(ps) >= 2]


class CountingBot(SimpleBot):
    """Plays by expected values, computed from the cards it has not seen yet.

    The idea, in plain words:

    - **Count.** The whole deck is known from the rules. Take away every card you can
      see (your known cards, cards you spied, face-up cards, the discard pile, the card
      in your hand): what is left is somewhere unseen. An unknown card is worth the
      average of what is left, not a fixed 6.5: late in a round that matters.
    - **Keep by gain.** A drawn card ``v`` replacing a card worth ``x`` gains ``x - v``.
      Several known equal cards can go at once (deluxe), which gains even more. A high
      card with a power is discarded for the power instead.
    - **Powers for information or gain.** Peek at an unknown own card; spy on the
      opponent who looks most dangerous (lowest estimated total); swap a high card of
      yours for a known low card of theirs, or blindly for an average one.
    - **Snap only a sure thing**, and give away the worst card.
    - **Special hands.** Two 12s and two 13s score 0 for you and 50 for everyone
      else (deluxe Kamikaze), or -50 (traveller Royal Roulette). With three of them in
      hand, it keeps them and hunts the fourth.
    - **Cabo** when its estimated total is low and below every opponent's estimate by
      a margin that grows with the price of losing the call.

    >>> import cabo_kit as ck
    >>> rec = ck.play_game([CountingBot(), ck.bots.RandomBot()], ck.Rules.preset("rush"), seed=3)
    >>> rec.winners
    [0]
    """

    cabo_cap = 10.0  # never call above this estimated total
    margin = 1.0  # call only this far below every rival's estimate...
    margin_per_penalty = 0.3  # ...plus this much per point a lost call costs
    info_bonus = 3.0  # what knowing a card is worth, in points, when deciding what to replace
    take_gain = 3.0  # take the discard pile's top only for this gain (more with snapping: others know it)
    improve_rate = 0.25  # how fast a rival's unseen cards are assumed to get better, per round of turns

    def __init__(self) -> None:
        super().__init__()
        self._mean_for: Observation | None = None
        self._mean = 6.5
        self._pool_for: tuple[Rules, int] | None = None  # the deck's points and size, for these rules and players
        self._pool = (0, 0)
        self._pile_for: tuple[Card, ...] | None = None  # the discard pile's points (an engine shares the tuple)
        self._pile = 0

    def unseen(self, obs: Observation) -> list[int]:
        """The values of the cards this seat has not seen (the deck and every ``??``): :func:`unseen_cards`."""
        return [c.value for c in unseen_cards(obs)[0] if c.value is not None]

    def mean_unseen(self, obs: Observation) -> float:
        """The expected value of a card this seat has not seen (remembered for the current observation).

        The average of :meth:`unseen`, computed as the deck's points minus those of every card
        in sight (the search bot asks this at every move of its rollouts).
        """
        if self._mean_for is not obs:
            key = self._pool_for
            if key is None or key[0] is not obs.rules or key[1] != obs.n_players:
                self._pool_for, self._pool = (obs.rules, obs.n_players), _pool_sum(obs.rules, obs.n_players)
            total, count = self._pool
            discard = obs.discard
            if discard is not self._pile_for:
                self._pile_for, self._pile = discard, sum(map(_VALUE, discard))
            seen: list[int] = [c.value for hand in obs.hands for c in hand if c.known]  # type: ignore[misc]
            if obs.drawn is not None and obs.drawn.known:
                seen.append(obs.drawn.value)  # type: ignore[arg-type]
            left = count - len(seen) - len(discard)
            self._mean_for, self._mean = obs, ((total - sum(seen) - self._pile) / left if left > 0 else 6.5)
        return self._mean

    def values(self, obs: Observation, seat: int, unknown: float) -> list[float]:
        return [unknown if c.value is None else c.value for c in obs.hands[seat]]

    def special_keep(self, obs: Observation) -> list[int]:
        """Positions holding a special-hand card worth keeping (empty unless three are in hand)."""
        rules, hand = obs.rules, obs.my_hand
        if not (rules.kamikaze or rules.royal_roulette) or len(hand) != 4:
            return []
        need, keep = list(SPECIAL), []
        for p, c in enumerate(hand):
            if c.value in need:
                need.remove(c.value)
                keep.append(p)
        return keep if len(keep) >= 3 else []

    # ---- decisions ---------------------------------------------------------------

    def draw(self, obs: Observation) -> str:
        if _CABO in obs.legal_actions and self.call_cabo(obs):  # (not in the final turns after an emptied hand)
            return "cabo"
        top = obs.top
        if top is not None and obs.my_hand and top.value is not None and top.value <= 5:
            pos = self.keep(obs, top, forced=True)
            e = self.mean_unseen(obs)
            needed = self.take_gain + (2 if obs.rules.snapping else 0)
            if pos is not None and self.gain(obs, top, pos, e) >= needed:
                return "discard"
        return "deck"

    def gain(self, obs: Observation, card: Any, pos: int | tuple[int, ...], e: float) -> float:
        """Points saved by putting ``card`` in place of ``pos``; replacing an unknown card also buys knowledge."""
        mine = self.values(obs, obs.seat, e + self.info_bonus)
        picked = pos if isinstance(pos, tuple) else (pos,)
        return sum(mine[p] for p in picked) - card.value

    # SimpleBot.choose also accepts a tuple of positions here: a multi-exchange.
    def keep(self, obs: Observation, card: Any, forced: bool = False) -> int | tuple[int, ...] | None:  # type: ignore[override]
        hand = obs.my_hand
        if not hand:
            return None
        e = self.mean_unseen(obs)
        rules = obs.rules
        special = self.special_keep(obs)
        if special:
            free = [p for p in range(4) if p not in special]
            if len(special) == 3 and card.value in SPECIAL and free and card.value in self.missing(obs):
                return free[0]
        # The option of most gain as gain() counts it (the first on a tie), with the hand's values made once:
        # each position not kept for a special hand, then (deluxe) each group of known equal cards.
        mine = self.values(obs, obs.seat, e + self.info_bonus)
        v = card.value
        best: int | tuple[int, ...] | None = None
        g = -math.inf
        for p, x in enumerate(mine):
            if x - v > g and not (special and p in special):
                best, g = p, x - v
        if rules.multi_exchange and not special:
            for ps in equal_groups(hand):
                if sum(mine[p] for p in ps) - v > g:
                    best, g = ps, sum(mine[p] for p in ps) - v
        if best is None:
            return None
        must = forced or (obs.drawn_from == "discard" and not rules.discard_draw_may_discard)
        has_power = obs.drawn_from == "deck" and rules.power_of(card) is not None
        if must or g > (1.5 if has_power else 0.0):
            return best
        return None

    def missing(self, obs: Observation) -> list[int]:
        need = list(SPECIAL)
        for c in obs.my_hand:
            if c.value in need:
                need.remove(c.value)
        return need

    def estimates(self, obs: Observation, seat: int, e: float, ahead: bool = False) -> list[float]:
        """Our estimate of each of ``seat``'s cards: its value if we know it, else ``e`` (the unseen average).

        ``ahead``: by the round's end, where what they know of their own hand has improved as
        turns passed (an unknown card counts ``improve_rate`` less a round of turns, at least 3).
        """
        if ahead:
            e = max(e - self.improve_rate * (obs.turn // obs.n_players), 3.0)
        return self.values(obs, seat, e)

    def threat(self, obs: Observation, seat: int, e: float) -> float:
        """An opponent's estimated total by the round's end (:meth:`estimates` ahead)."""
        return sum(self.estimates(obs, seat, e, ahead=True))

    def spy(self, obs: Observation) -> tuple[int, int] | None:
        e = self.mean_unseen(obs)
        for s in sorted(obs.opponents, key=lambda s: self.threat(obs, s, e)):
            for p, c in enumerate(obs.hands[s]):
                if not c.known and not obs.face_up[s][p]:
                    return (s, p)
        return None

    def swap(self, obs: Observation) -> tuple[int, int, int] | None:
        e = self.mean_unseen(obs)
        mine = self.values(obs, obs.seat, e)
        special = self.special_keep(obs)
        targets = [obs.target] if obs.target is not None else [
            (s, p) for s in obs.opponents for p in range(len(obs.hands[s]))
        ]
        theirs = {s: self.estimates(obs, s, e) for s in {s for s, _ in targets}}
        best, best_gain = None, 1.5
        for own in range(len(mine)):
            if own in special:
                continue
            for s, p in targets:
                gain = mine[own] - theirs[s][p]
                if gain > best_gain:
                    best, best_gain = (own, s, p), gain
        return best

    def snap(self, obs: Observation) -> tuple[int, int] | None:
        top = obs.top
        if top is None:
            return None
        worst = max(self.values(obs, obs.seat, self.mean_unseen(obs)), default=0.0)
        best, best_gain = None, 0.0
        for s, hand in enumerate(obs.hands):
            for p, c in enumerate(hand):
                if c.value is not None and c.value == top.value and not obs.face_up[s][p]:
                    gain = float(c.value) if s == obs.seat else worst  # own: the card goes; other: our worst goes
                    if best is None or gain > best_gain:
                        best, best_gain = (s, p), gain
        return best

    def give(self, obs: Observation) -> int | None:
        mine = self.values(obs, obs.seat, self.mean_unseen(obs))
        special = self.special_keep(obs)
        choices = [p for p in range(len(mine)) if p not in special] or list(range(len(mine)))
        if not choices:
            return None
        worst = max(choices, key=lambda p: mine[p])
        if obs.rules.snap_give == "optional" and mine[worst] <= 0:
            return None
        return worst

    def call_cabo(self, obs: Observation) -> bool:
        e = self.mean_unseen(obs)
        mine = self.values(obs, obs.seat, e)
        if len(self.special_keep(obs)) == 4:
            return True
        total = sum(mine)
        if total > self.cabo_cap:
            return False
        rivals = min((self.threat(obs, s, e) for s in obs.opponents), default=99.0)
        margin = self.margin + self.margin_per_penalty * obs.rules.caller_loss_penalty
        return total <= self.cabo_cap and total + margin <= rivals
