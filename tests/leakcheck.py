"""A leak checker independent of the engine's own knowledge tracking (RULES.md section 7).

It rebuilds what one seat may know from that seat's own events alone: its peeks and
spies, its own draws, the cards turned up for everybody (the first flip, discards,
exchanged-out cards, multi-exchange reveals, snapped cards) and the cards taken from the
discard pile. Knowledge follows a card as it moves (swaps, gives, exchanges, snaps,
penalties, placements); a reshuffle forgets the cards that go back into the deck; a
blind swap or a give never creates knowledge. Then it compares an observation against
that: every card the observation shows (not ``??``) in ``hands``, ``drawn`` and
``discard`` must be one the seat's events allow, and no event may show the seat a face
that only another seat saw.

>>> import cabo_kit as ck
>>> game = ck.Game(ck.Rules.preset("rush"), seed=3, n_players=3)
>>> leaks(game.observation(0))
[]
>>> obs = game.observation(0)
>>> planted = obs._replace(hands=(obs.hands[0], (ck.Card.parse("QH"),) + obs.hands[1][1:], obs.hands[2]))
>>> leaks(planted)
['seat 0 is shown seat 1 position 0 as QH, but its events allow only ??']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from cabo_kit import UNKNOWN, Card, Event, Observation

__all__ = ["Knowledge", "CheckerOutOfSync", "Watcher", "knowledge", "leaks", "gaps", "event_leaks"]

# Events whose faces only their actor sees (the others see ``??``).
_PRIVATE_KINDS = ("look", "peek", "spy", "draw")


class CheckerOutOfSync(AssertionError):
    """The events do not fit the checker's picture of the table (a bug in the engine's events or in the checker)."""


@dataclass
class Knowledge:
    """What one seat may know, rebuilt from its events: by seat and position, the pile, the drawn card.

    ``hands[s][p]`` is the card the seat may know at seat ``s`` position ``p``
    (:data:`~cabo_kit.UNKNOWN` if none); ``pile`` is the discard pile, bottom first (every
    card there lies face up); ``drawn`` is the drawn card as the seat may know it, or
    ``None`` when no card is in a drawer's hand; ``revealed`` turns true when the round's
    end shows every hand.

    >>> k = Knowledge(seat=0, n_players=2, hand_size=4)
    >>> k.apply(Event("look", 0, (2, 3), (Card.parse("5"), Card.parse("9"))))
    >>> k.apply(Event("swap", 1, (0, 0, 3)))       # seat 1 swaps its card 0 with my card 3
    >>> k.hands[1][0], k.hands[0][3]
    (Card('9'), Card('??'))
    """

    seat: int
    n_players: int
    hand_size: int
    hands: list[list[Card]] = field(default_factory=list)
    pile: list[Card] = field(default_factory=list)
    drawn: Card | None = None
    picked: tuple[int, ...] = ()
    multi_ok: bool | None = None
    revealed: bool = False
    flags: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.hands:
            self.hands = [[UNKNOWN] * self.hand_size for _ in range(self.n_players)]

    def _slot(self, s: int, p: int, what: Event) -> None:
        if not (0 <= s < self.n_players and 0 <= p < len(self.hands[s])):
            raise CheckerOutOfSync(f"{what} names seat {s} position {p}, which the checker does not have")

    def _known(self, cards: tuple[Card, ...], i: int = 0) -> Card:
        return cards[i] if len(cards) > i and cards[i].known else UNKNOWN

    def apply(self, e: Event) -> None:
        """Update the picture with one event as this seat saw it."""
        kind, s, t, cards, info = e
        if kind == "round":
            self.hands = [[UNKNOWN] * self.hand_size for _ in range(self.n_players)]
            self.pile, self.drawn, self.picked, self.multi_ok, self.revealed = [], None, (), None, False
        elif kind in ("look", "peek"):
            assert s is not None
            for i, p in enumerate(t):
                self._slot(s, p, e)
                if cards[i].known:
                    self.hands[s][p] = cards[i]
        elif kind == "spy":
            self._slot(t[0], t[1], e)
            if cards and cards[0].known:
                self.hands[t[0]][t[1]] = cards[0]
        elif kind in ("flip", "discard"):
            self._need_known(cards, e)
            self.pile.append(cards[0])
            if kind == "discard":
                self.drawn = None
        elif kind == "draw":
            self.drawn = self._known(cards)
        elif kind == "take":
            self._need_known(cards, e)
            if not self.pile or self.pile[-1] != cards[0]:
                raise CheckerOutOfSync(f"{e} takes {cards[0]}, but the checker's pile top is {self.pile[-1:]}")
            self.drawn = self.pile.pop()
        elif kind == "exchange":
            assert s is not None
            (p,) = t
            self._slot(s, p, e)
            old = cards[0]
            if not old.known:
                raise CheckerOutOfSync(f"{e}: the exchanged-out card must be shown to everybody")
            new = self._known(cards, 1)
            if new.known and s != self.seat and (self.drawn is None or not self.drawn.known):
                # Another seat kept a card this seat never saw drawn: the event must not show it.
                self.flags.append(f"seat {self.seat}'s events show the card seat {s} kept unseen: {new}")
            if new.known and self.drawn is not None and self.drawn.known and new != self.drawn:
                raise CheckerOutOfSync(f"{e}: the kept card differs from the drawn card {self.drawn}")
            self.hands[s][p] = new if new.known else (self.drawn or UNKNOWN)
            self.pile.append(old)
            self.drawn = None
        elif kind == "multi":
            assert s is not None
            for i, p in enumerate(t):
                self._slot(s, p, e)
                if not cards[i].known:
                    raise CheckerOutOfSync(f"{e}: multi-exchange cards are turned up for everybody")
                self.hands[s][p] = cards[i]
            self.picked, self.multi_ok = tuple(t), info == "ok"
        elif kind == "place":
            assert s is not None
            self._place(s, t[0], e)
        elif kind == "penalty":
            assert s is not None
            (p,) = t
            if not 0 <= p <= len(self.hands[s]):
                raise CheckerOutOfSync(f"{e}: index {p} is outside seat {s}'s hand of {len(self.hands[s])}")
            self.hands[s].insert(p, UNKNOWN)
        elif kind == "swap":
            assert s is not None
            o, ts, tp = t
            self._slot(s, o, e)
            self._slot(ts, tp, e)
            mine, theirs = self.hands[s], self.hands[ts]
            mine[o], theirs[tp] = theirs[tp], mine[o]
        elif kind == "snap":
            ts, tp = t
            self._slot(ts, tp, e)
            self._need_known(cards, e)
            if info == "match":
                del self.hands[ts][tp]
                self.pile.append(cards[0])
            else:
                self.hands[ts][tp] = cards[0]
        elif kind == "give":
            assert s is not None
            p, ts, tp = t
            self._slot(s, p, e)
            card = self.hands[s].pop(p)
            if not 0 <= tp <= len(self.hands[ts]):
                raise CheckerOutOfSync(f"{e}: position {tp} is outside seat {ts}'s hand")
            self.hands[ts].insert(tp, card)
        elif kind == "reshuffle":
            (count,) = t
            if count != len(self.pile) - 1:
                raise CheckerOutOfSync(f"{e}: the checker's pile holds {len(self.pile)} cards")
            self.pile = self.pile[-1:]
        elif kind == "end":
            self.revealed = True
            self.drawn = None
        elif kind not in ("cabo", "skip"):
            raise CheckerOutOfSync(f"unknown event kind {kind!r}: teach the leak checker about it")

    def _need_known(self, cards: tuple[Card, ...], e: Event) -> None:
        if not cards or not cards[0].known:
            raise CheckerOutOfSync(f"{e}: this card is turned up for everybody, yet the event hides it")

    def _place(self, s: int, index: int, e: Event) -> None:
        hand = self.hands[s]
        drawn = self.drawn if self.drawn is not None else UNKNOWN
        if self.multi_ok:
            if index not in self.picked:
                raise CheckerOutOfSync(f"{e}: a successful multi-exchange places at one of {self.picked}")
            picked = set(self.picked)
            kept: list[Card] = []
            for p, card in enumerate(hand):
                if p == index:
                    kept.append(drawn)
                    self.pile.append(card)
                elif p in picked:
                    self.pile.append(card)
                else:
                    kept.append(card)
            self.hands[s] = kept
        else:
            if index not in (0, len(hand)):
                raise CheckerOutOfSync(f"{e}: a failed multi-exchange places at an end of the hand")
            hand.insert(index, drawn)
        self.drawn = None
        self.picked, self.multi_ok = (), None


def knowledge(events: Iterable[Event], seat: int, n_players: int, hand_size: int) -> Knowledge:
    """The seat's knowledge after ``events`` (as that seat saw them; a ``round`` event starts afresh).

    >>> import cabo_kit as ck
    >>> obs = ck.Game(ck.Rules.preset("rush"), seed=3, n_players=3).observation(0)
    >>> k = knowledge(obs.events, 0, 3, 4)
    >>> [c.known for c in k.hands[0]], k.hands[0] == list(obs.my_hand)
    ([False, False, True, True], True)
    """
    k = Knowledge(seat, n_players, hand_size)
    for e in events:
        k.apply(e)
    return k


def event_leaks(events: Sequence[Event], seat: int) -> list[str]:
    """Events that show ``seat`` a face only another seat saw (a peek, a spy, a draw, an initial look).

    >>> from cabo_kit import Card
    >>> event_leaks([Event("peek", 1, (0,), (Card.parse("4"),))], seat=0)
    ["seat 0's events show seat 1's peek: 4"]
    """
    out: list[str] = []
    for e in events:
        if e.seat == seat or e.seat is None:
            continue
        shown = [c for c in e.cards if c.known]
        if e.kind in _PRIVATE_KINDS and shown:
            out.append(f"seat {seat}'s events show seat {e.seat}'s {e.kind}: {' '.join(map(str, shown))}")
        elif e.kind in ("penalty",) and shown:
            out.append(f"seat {seat}'s events show seat {e.seat}'s penalty card")
    return out


def _check_shape(obs: Observation, k: Knowledge) -> None:
    sizes = [len(h) for h in obs.hands]
    mine = [len(h) for h in k.hands]
    if sizes != mine:
        raise CheckerOutOfSync(f"seat {obs.seat}: observation hand sizes {sizes}, checker's {mine}")


def leaks(obs: Observation, known: Knowledge | None = None) -> list[str]:
    """Every card ``obs`` shows that its seat's own events do not allow (empty list: no leak).

    With ``memory="engine"`` the picture is rebuilt from ``obs.events`` (the round so
    far; pass ``known`` to reuse a picture already built, as :class:`Watcher` does). With
    ``memory="none"`` the observation may show only face-up cards in hands and the pile's top.
    """
    out = event_leaks(obs.events, obs.seat) if known is None else []
    seat = obs.seat
    if obs.memory == "none":
        for s, hand in enumerate(obs.hands):
            for p, c in enumerate(hand):
                if c.known and not obs.face_up[s][p]:
                    out.append(f"seat {seat} (memory none) is shown face-down seat {s} position {p} as {c}")
        if len(obs.discard) > 1:
            out.append(f"seat {seat} (memory none) is shown {len(obs.discard)} discard cards, not just the top")
        return out
    k = known if known is not None else knowledge(obs.events, seat, obs.n_players, obs.rules.hand_size)
    _check_shape(obs, k)
    out.extend(k.flags)
    if not k.revealed:
        for s, hand in enumerate(obs.hands):
            for p, c in enumerate(hand):
                if c.known and k.hands[s][p] != c:
                    allowed = k.hands[s][p]
                    out.append(f"seat {seat} is shown seat {s} position {p} as {c}, but its events allow only {allowed}")
    if tuple(obs.discard) != tuple(k.pile):
        out.append(
            f"seat {seat} is shown the discard pile {' '.join(map(str, obs.discard))}, "
            f"its events give {' '.join(map(str, k.pile))}"
        )
    if obs.drawn is not None and obs.drawn.known and obs.drawn != k.drawn:
        out.append(f"seat {seat} is shown the drawn card {obs.drawn}, but its events allow only {k.drawn or UNKNOWN}")
    return out


def gaps(obs: Observation, known: Knowledge | None = None) -> list[str]:
    """Cards the seat's events let it know that a ``memory="engine"`` observation shows as ``??``.

    The engine promises to show every card a seat has legitimately seen, so this is empty too.

    >>> import cabo_kit as ck
    >>> gaps(ck.Game(ck.Rules.preset("traveller"), seed=2, n_players=3).observation(1))
    []
    """
    if obs.memory != "engine":
        return []
    k = known if known is not None else knowledge(obs.events, obs.seat, obs.n_players, obs.rules.hand_size)
    _check_shape(obs, k)
    out: list[str] = []
    for s, hand in enumerate(obs.hands):
        for p, c in enumerate(hand):
            if not c.known and k.hands[s][p].known:
                out.append(f"seat {obs.seat} knows seat {s} position {p} is {k.hands[s][p]}, but is shown ??")
    if k.drawn is not None and k.drawn.known and (obs.drawn is None or not obs.drawn.known):
        out.append(f"seat {obs.seat} knows the drawn card {k.drawn}, but is shown {obs.drawn}")
    return out


class Watcher:
    """Checks one seat's observations step after step, feeding only the new events to its picture.

    Within a round a seat's events only grow; a shorter list, or one with another first
    event, is a new round and starts a fresh picture.

    >>> import cabo_kit as ck
    >>> game = ck.Game(ck.Rules.preset("rush"), seed=3, n_players=3)
    >>> watcher = Watcher(seat=2)
    >>> watcher.leaks(game.observation(2)), watcher.gaps(game.observation(2))
    ([], [])
    """

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.known: Knowledge | None = None
        self.seen: tuple[Event, ...] = ()
        self.problems: list[str] = []

    def _update(self, obs: Observation) -> Knowledge:
        events = obs.events
        seen = self.seen
        k = self.known
        fresh = k is None or len(events) < len(seen) or (seen and events[0] != seen[0]) or (
            seen and events[len(seen) - 1] != seen[-1]
        )
        if fresh:
            k = Knowledge(self.seat, obs.n_players, obs.rules.hand_size)
            seen = ()
        assert k is not None
        new = events[len(seen):]
        self.problems = event_leaks(new, self.seat)
        for e in new:
            k.apply(e)
        self.known = k
        self.seen = tuple(events)
        return k

    def leaks(self, obs: Observation) -> list[str]:
        """:func:`leaks` for this seat's next observation."""
        if obs.memory != "engine":
            return leaks(obs)
        k = self._update(obs)
        return self.problems + leaks(obs, k)

    def gaps(self, obs: Observation) -> list[str]:
        """:func:`gaps` for the observation last given to :meth:`leaks` (or a fresh one)."""
        if obs.memory != "engine":
            return []
        k = self.known if self.seen == tuple(obs.events) and self.known is not None else self._update(obs)
        return gaps(obs, k)
