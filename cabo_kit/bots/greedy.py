"""GreedyBot: keeps low cards, replaces its worst card, calls Cabo when its estimate is low."""

from __future__ import annotations

from typing import Any

from ..actions import CallCabo
from ..bot import SimpleBot
from ..observation import Observation

__all__ = ["GreedyBot"]

UNSEEN_ESTIMATE = 6.5  # the mean card value of every deck cabo-kit knows
_LOWEST = float("-inf")
_CABO = CallCabo()


class GreedyBot(SimpleBot):
    """A simple, readable heuristic player.

    - It counts every card it has not seen as 6.5 points, the deck's average.
    - It takes the discard pile's top card when that card is at most 4 and lower
      than its worst card; otherwise it draws from the deck.
    - It keeps a drawn card in place of its worst card (highest known, or an unseen
      one) when the drawn card is lower; otherwise it discards it.
    - Powers: it peeks at its unseen cards, spies on the next player, and swaps its
      worst known card for a lower card it knows in another hand.
    - It snaps only cards it knows to match, and gives away its worst card.
    - It calls Cabo when its estimated total is at most ``cabo_threshold``.

    ``worst()`` and ``estimated_total()`` share one pass over the hand, remembered for the hand
    tuple it was read from; override either freely (what it remembers is private to this class).

    >>> import cabo_kit as ck
    >>> rec = ck.play_game([GreedyBot(), ck.bots.RandomBot()], ck.Rules.preset("deluxe"), seed=3)
    >>> rec.totals[0] < rec.totals[1]
    True
    """

    cabo_threshold = 7.0

    # What it last worked out about its own hand, and for which hand: the engine's hands are immutable tuples,
    # and the draw and the keep of a turn read the same one, so its hand is read once a turn.
    # (Double underscores, i.e. _GreedyBot__hand...: a subclass's own self._hand or self._total stays apart.)
    __hand: Any = None
    __total = 0.0
    __worst: int | None = None

    @staticmethod
    def estimate(card: Any) -> float:
        return UNSEEN_ESTIMATE if card.value is None else card.value

    def __read(self, hand: Any) -> None:
        """Work out ``hand``'s estimated total and its worst position (the first one on ties) and remember them."""
        total, worst, worst_value = 0.0, None, _LOWEST
        p = 0  # (positions counted by hand here and in swap(): cheaper than enumerate's pairs)
        for card in hand:
            value: Any = card.value
            if value is None:
                value = UNSEEN_ESTIMATE
            total += value
            if value > worst_value:
                worst = p
                worst_value = value
            p += 1
        # (A hand given as a list could change in place: it is read again each time.)
        self.__hand, self.__total, self.__worst = hand if hand.__class__ is tuple else None, total, worst

    def worst(self, obs: Observation) -> int | None:
        """The position of the card it would most like to get rid of (the first one on ties)."""
        hand = obs.hands[obs.seat]
        if hand is not self.__hand:
            self.__read(hand)
        return self.__worst

    def estimated_total(self, obs: Observation) -> float:
        """Its hand's total, each unseen card counted as ``UNSEEN_ESTIMATE``."""
        hand = obs.hands[obs.seat]
        if hand is not self.__hand:
            self.__read(hand)
        return self.__total

    def call_cabo(self, obs: Observation) -> bool:
        return self.estimated_total(obs) <= self.cabo_threshold

    def draw(self, obs: Observation) -> str:
        # Cabo is legal here only with the rules' call "instead" of a turn, while nobody has called yet
        # and no hand has emptied.
        if _CABO in obs.legal_actions and self.call_cabo(obs):
            return "cabo"
        discard = obs.discard
        top_value = discard[-1].value if discard else None  # the value of obs.top
        if top_value is not None and top_value <= 4:
            worst = self.worst(obs)
            if worst is not None and top_value < self.estimate(obs.hands[obs.seat][worst]):
                return "discard"
        return "deck"

    def keep(self, obs: Observation, card: Any) -> int | None:
        worst = self.worst(obs)
        if worst is None:
            return None
        must_keep = obs.drawn_from == "discard" and not obs.rules.discard_draw_may_discard
        if must_keep or card.value < self.estimate(obs.hands[obs.seat][worst]):
            return worst
        return None

    def swap(self, obs: Observation) -> tuple[int, int, int] | None:
        worst = self.worst(obs)
        if worst is None:
            return None
        mine = self.estimate(obs.hands[obs.seat][worst])
        if obs.target is not None:  # the card to swap with is chosen already
            s, p = obs.target
            value = obs.hands[s][p].value
            return (worst, s, p) if value is not None and value < mine else None
        best, lowest = None, mine  # the first of the lowest known cards below ours
        for s in obs.opponents:
            p = 0
            for card in obs.hands[s]:
                if card.value is not None and card.value < lowest:
                    best, lowest = (worst, s, p), card.value
                p += 1
        return best

    def give(self, obs: Observation) -> int | None:
        return self.worst(obs)
