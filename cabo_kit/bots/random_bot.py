"""RandomBot: the bottom rung of the ladder and the rating anchor."""

from __future__ import annotations

from typing import Sequence, TypeVar

from ..actions import Action, CallCabo, Discard, Exchange, Pass, Snap
from ..bot import Bot
from ..observation import Observation, Phase

__all__ = ["RandomBot"]

T = TypeVar("T")


class RandomBot(Bot):
    """Plays at random, but not absurdly, so that games stay short and hands stay small.

    At each decision it sorts the legal actions into kinds (draw from the deck, take
    from the discard pile, discard, exchange one card, peek, spy, swap, give, pass...),
    picks a kind uniformly, then one action of that kind uniformly. Three kinds are
    risky enough to make random games silly if picked as often as the others, so they
    get fixed small probabilities instead:

    - calling Cabo: 5% whenever it is allowed;
    - exchanging several cards at once (deluxe): 5% when the drawn card is kept;
    - snapping: 2% in each snap window.

    All its randomness comes from ``self.random``, which the game seeds.

    >>> import cabo_kit as ck
    >>> record = ck.play_game([ck.bots.RandomBot(), ck.bots.RandomBot()], ck.Rules.preset("deluxe"), seed=5)
    >>> record.winners in ([0], [1], [0, 1])
    True
    """

    cabo_probability = 0.05
    multi_exchange_probability = 0.05
    snap_probability = 0.02

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        phase = observation.phase
        if phase == Phase.SNAP:
            claims = [a for a in legal_actions if isinstance(a, Snap)]
            if claims and self.chance(self.snap_probability):
                return self.pick(claims)
            return Pass()
        if phase == Phase.CHOOSE or phase == Phase.END_TURN:
            others = [a for a in legal_actions if not isinstance(a, CallCabo)]
            if len(others) < len(legal_actions) and (self.chance(self.cabo_probability) or not others):
                return CallCabo()
            return self.pick(others)
        if phase == Phase.DRAWN:
            # Discard (if allowed), one exchange per card in hand, then the exchanges of several cards
            # (deluxe): there are 2**hand size of those, so they are counted, never listed.
            one = [Exchange((p,)) for p in range(len(observation.my_hand))]
            may_discard = Discard() in legal_actions
            several = range(may_discard + len(one), len(legal_actions))  # their places in legal_actions
            if several and self.chance(self.multi_exchange_probability):
                return legal_actions[self.pick(several)]
            if may_discard and (not one or self.chance(0.5)):
                return Discard()
            return self.pick(one)
        kinds: dict[type, list[Action]] = {}
        for action in legal_actions:
            kinds.setdefault(type(action), []).append(action)
        return self.pick(self.pick(list(kinds.values())))

    def chance(self, probability: float) -> bool:
        """True with the given probability (one draw from ``self.random``)."""
        return self.random.random() < probability

    def pick(self, options: Sequence[T]) -> T:
        """One of ``options``, uniformly (one draw from ``self.random``)."""
        return options[int(self.random.random() * len(options))]
