"""RandomBot: the bottom rung of the ladder and the rating anchor."""

from __future__ import annotations

from typing import Sequence, TypeVar

from ..actions import Action, CallCabo, Discard, Exchange, Pass, Snap
from ..bot import Bot
from ..observation import Observation, Phase

__all__ = ["RandomBot"]

T = TypeVar("T")

# Read once (reading Phase.SNAP costs ten times more than a module name; game.py does the same), and the actions
# exist once each (Discard() is Discard()): compared by identity.
_SNAP, _CHOOSE, _END_TURN, _DRAWN, _LOOK = Phase.SNAP, Phase.CHOOSE, Phase.END_TURN, Phase.DRAWN, Phase.LOOK
_CABO = CallCabo()
_DISCARD = Discard()
_ONE_EXCHANGES: dict[int, tuple[Exchange, ...]] = {}


def _one_exchanges(hand_size: int) -> tuple[Exchange, ...]:
    """The exchanges of the drawn card for one card of a hand of ``hand_size`` cards, made once per size."""
    found = _ONE_EXCHANGES.get(hand_size)
    if found is None:
        found = _ONE_EXCHANGES[hand_size] = tuple(Exchange((p,)) for p in range(hand_size))
    return found


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
        # The engine lists legal actions in a fixed order (Game.legal_actions): CallCabo last where it is
        # allowed; Discard, then one exchange per card, then the exchanges of several cards after a draw.
        phase = observation.phase
        if phase == _SNAP:
            claims = [a for a in legal_actions if isinstance(a, Snap)]
            if claims and self.chance(self.snap_probability):
                return self.pick(claims)
            return Pass()
        if phase == _CHOOSE or phase == _END_TURN:
            if legal_actions[-1] is not _CABO:
                return self.pick(legal_actions)
            others = legal_actions[:-1]
            if self.chance(self.cabo_probability) or not others:
                return _CABO
            return self.pick(others)
        if phase == _DRAWN:
            one = _one_exchanges(len(observation.my_hand))
            may_discard = _DISCARD in legal_actions
            if observation.rules.multi_exchange and len(one) >= 2 and self.chance(self.multi_exchange_probability):
                # The exchanges of several cards (deluxe), after the others: 2**hand size of them, so they are
                # counted, never listed.
                return legal_actions[self.pick(range(may_discard + len(one), len(legal_actions)))]
            if may_discard and (not one or self.chance(0.5)):
                return _DISCARD
            return self.pick(one)
        if phase == _LOOK:
            kinds: list[Sequence[Action]] = [legal_actions]  # one kind only: the looks (InitialPeek)
        else:
            by_kind: dict[type, list[Action]] = {}
            for action in legal_actions:
                by_kind.setdefault(type(action), []).append(action)
            kinds = list(by_kind.values())
        return self.pick(self.pick(kinds))

    def chance(self, probability: float) -> bool:
        """True with the given probability (one draw from ``self.random``)."""
        return self.random.random() < probability

    def pick(self, options: Sequence[T]) -> T:
        """One of ``options``, uniformly (one draw from ``self.random``)."""
        return options[int(self.random.random() * len(options))]
