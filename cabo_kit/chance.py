"""Fixing a game's random events: each card dealt or drawn, the start player, each snap race, each reshuffle.

A :class:`~cabo_kit.game.Game` draws every random outcome from its seed. Give it a
:class:`Chance` (``Game(..., chance=...)``) and the engine asks it first at each random
event; an answer of ``None`` leaves that event to the seed, exactly as without a
``Chance``, so ``Game(rules, seed, n, chance=Chance())`` plays the very game
``Game(rules, seed, n)`` plays. :class:`FixedChance` fixes events from lists, in order;
subclass :class:`Chance` to decide them any other way (``cabo_kit.rl.openspiel`` makes
each one an OpenSpiel chance node).

The events, in the order a game meets them:

- ``start_player``: the first round's start player (later rounds' start players follow
  from the scores: no chance there). Not asked when ``Game(start_player=...)`` is given.
- ``card``: each card that leaves the deck: dealt (seat 0's positions 0, 1, ..., then seat
  1's, ...), turned up as the first discard, drawn, or taken as a penalty card.
- ``snap_race``: which of several seats that claimed a card in one snap window wins.
- ``reshuffle``: the order of a new deck made from the discard pile (deck-out rule
  ``"reshuffle"``).

>>> import cabo_kit as ck
>>> chance = ck.FixedChance(start_player=1, cards="1 2 3 4  5 6 7 8  9  10")
>>> game = ck.Game(ck.Rules.preset("deluxe"), seed=5, n_players=2, chance=chance)
>>> game.start_player, game.open_hands()[0], game.open_hands()[1][:2]
(1, (Card('1'), Card('2'), Card('3'), Card('4')), (Card('5'), Card('6')))
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Iterable, Sequence, TypeVar

from .cards import Card

if TYPE_CHECKING:  # pragma: no cover
    from .game import Game

__all__ = ["Chance", "FixedChance"]

T = TypeVar("T")


class Chance:
    """Decides a game's random events; every method answers ``None`` ("the seed decides"), the default.

    Override the events you want to decide. Each method gets the game (read it, never change
    it: during a deal or a reshuffle it is part way through) and the choices; the engine
    checks the answer and raises a ``ValueError`` naming the event if it is not one of them.
    A game's :meth:`~cabo_kit.game.Game.clone` gets ``chance.copy()`` (a shallow copy), so a
    Chance that keeps a position in a list stays in step with each copy of the game.

    >>> import cabo_kit as ck
    >>> class LowCards(ck.Chance):               # every card comes out as low as the deck allows
    ...     def card(self, game, deck):
    ...         return min(deck, key=lambda c: c.value)
    >>> game = ck.Game(ck.Rules.preset("deluxe"), seed=1, n_players=2, chance=LowCards())
    >>> [c.text for c in game.open_hands()[0]]
    ['0', '0', '1', '1']
    """

    def start_player(self, game: Game, n_players: int) -> int | None:
        """The first round's start player (a seat below ``n_players``), or ``None``."""
        return None

    def card(self, game: Game, deck: tuple[Card, ...]) -> Card | str | None:
        """The card that leaves the deck now: one of ``deck`` (the deck's cards, top first), or ``None`` (the top)."""
        return None

    def snap_race(self, game: Game, claimers: tuple[int, ...]) -> int | None:
        """The winner among ``claimers`` (the seats that claimed a card in this window, in seat order), or ``None``."""
        return None

    def reshuffle(self, game: Game, cards: tuple[Card, ...]) -> Sequence[Card | str] | None:
        """The new deck made of ``cards`` (the discard pile below its top), top first, or ``None``."""
        return None

    def copy(self) -> Chance:
        """The Chance a clone of the game gets: a shallow copy."""
        return copy.copy(self)


class FixedChance(Chance):
    """Fixes random events from lists, in the order the game meets them; where a list runs out, the seed decides.

    Args:
        start_player: the first round's start player.
        cards: each card dealt or drawn, in order, across rounds: per round the deal (seat 0's
            positions first), the first discard, then the draws and penalty cards. Card texts
            (``"5 7 QD"``) or Cards. A listed card must still be in the deck when its turn comes.
        snap_races: the winner of each snap race (a window where several seats claimed), in order.
        reshuffles: the order of each reshuffled deck, top first (each a list of the pile's cards).

    >>> import cabo_kit as ck
    >>> game = ck.Game(ck.Rules.preset("rush"), seed=2, n_players=2,
    ...                chance=ck.FixedChance(start_player=0, cards="2S 3S 4S 5S  2H 3H 4H 5H  9D  KD"))
    >>> for seat in (0, 1):
    ...     _ = game.apply(ck.Pass(), seat=seat)       # nobody snaps the first discard
    >>> game.apply(ck.DrawDeck())[0].cards
    (Card('KD'),)
    >>> game.stacked_deck is None                      # unlike deck=, it goes on past the first round
    True
    """

    def __init__(
        self,
        start_player: int | None = None,
        cards: Iterable[Card | str] | str = (),
        snap_races: Iterable[int] = (),
        reshuffles: Iterable[Sequence[Card | str] | str] = (),
    ) -> None:
        self.first = start_player
        self.cards = tuple(Card.parse(c) for c in (cards.split() if isinstance(cards, str) else cards))
        self.snap_races = tuple(snap_races)
        self.reshuffles = tuple(r.split() if isinstance(r, str) else tuple(r) for r in reshuffles)
        #: How many cards, snap races and reshuffles have been answered so far.
        self.used = [0, 0, 0]

    def copy(self) -> FixedChance:
        new = copy.copy(self)
        new.used = list(self.used)
        return new

    def start_player(self, game: Game, n_players: int) -> int | None:
        return self.first

    def card(self, game: Game, deck: tuple[Card, ...]) -> Card | str | None:
        return self._next(0, self.cards)

    def snap_race(self, game: Game, claimers: tuple[int, ...]) -> int | None:
        return self._next(1, self.snap_races)

    def reshuffle(self, game: Game, cards: tuple[Card, ...]) -> Sequence[Card | str] | None:
        return self._next(2, self.reshuffles)

    def _next(self, kind: int, items: Sequence[T]) -> T | None:
        i = self.used[kind]
        if i >= len(items):
            return None
        self.used[kind] = i + 1
        return items[i]

    def __repr__(self) -> str:
        return (
            f"FixedChance(start_player={self.first}, {len(self.cards)} cards, {len(self.snap_races)} snap races, "
            f"{len(self.reshuffles)} reshuffles; used {self.used})"
        )
