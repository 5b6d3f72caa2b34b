"""FuzzBot: a bot that tries every kind of action, so seeded games exercise every branch of the engine.

It draws from both piles, calls Cabo, discards, exchanges one card or several (right and
wrong), uses every power on every kind of target or skips it, snaps right and wrong on
its own and others' cards, gives or (where optional) passes, and picks every placement.
Its weights keep hands from ballooning: the larger its hand grows, the more it prefers
moves that shrink it (right snaps, equal multi-exchanges) and the less it risks wrong
snaps and failed multi-exchanges. All randomness comes from ``self.random``.

:class:`BlindFuzzBot` makes the same kinds of moves without reading any card it knows;
it is the variant for games played with ``memory="none"``.

>>> import cabo_kit as ck
>>> record = ck.play_game([FuzzBot(), FuzzBot(), BlindFuzzBot()], ck.Rules.preset("rush"), seed=1)
>>> record.game_over
True
"""

from __future__ import annotations

from itertools import combinations
from typing import Sequence

from cabo_kit import (
    Action, Bot, CallCabo, Discard, DrawDeck, DrawDiscard, Exchange, Give, Observation, Pass, Snap,
)

__all__ = ["FuzzBot", "BlindFuzzBot"]


class FuzzBot(Bot):
    """Random play over every kind of action, with weights that keep games finite and hands small.

    Args:
        cabo: chance to call Cabo whenever it is allowed (0 plays rounds out to the deck).
        take: chance to take the discard pile's top card instead of drawing from the deck.
        multi: chance to try a several-card exchange (deluxe) when keeping a drawn card.
        snap: chance to claim a card in a snap window (lowered as the hand grows).
        skip: chance to skip a power or a black-king swap.
        pass_give: chance to pass an optional give.
        uses_knowledge: whether it reads the cards it knows (right snaps, equal multi-exchanges).

    >>> bot = FuzzBot(cabo=0.0)
    >>> bot.cabo, bot.uses_knowledge
    (0.0, True)
    """

    def __init__(
        self,
        cabo: float = 0.04,
        take: float = 0.3,
        multi: float = 0.15,
        snap: float = 0.15,
        skip: float = 0.15,
        pass_give: float = 0.3,
        uses_knowledge: bool = True,
    ) -> None:
        super().__init__()
        self.cabo = cabo
        self.take = take
        self.multi = multi
        self.snap = snap
        self.skip = skip
        self.pass_give = pass_give
        self.uses_knowledge = uses_knowledge

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        phase = observation.phase
        if phase == "choose":
            return self._choose(observation, legal_actions)
        if phase == "drawn":
            return self._drawn(observation, legal_actions)
        if phase == "snap":
            return self._snap(observation, legal_actions)
        if phase in ("power", "swap"):
            others = [a for a in legal_actions if type(a) is not Pass]
            if not others or self.random.random() < self.skip:
                return Pass()
            return self.random.choice(others)
        if phase == "give":
            gives = [a for a in legal_actions if type(a) is Give]
            if Pass() in legal_actions and (not gives or self.random.random() < self.pass_give):
                return Pass()
            return self.random.choice(gives)
        if phase == "end_turn":
            return CallCabo() if self.random.random() < self.cabo else Pass()
        return legal_actions[self.random.randrange(len(legal_actions))]

    def _choose(self, obs: Observation, legal: Sequence[Action]) -> Action:
        rng = self.random
        if CallCabo() in legal and rng.random() < self.cabo:
            return CallCabo()
        if DrawDiscard() in legal and (DrawDeck() not in legal or rng.random() < self.take):
            return DrawDiscard()
        if DrawDeck() in legal:
            return DrawDeck()
        return legal[0]

    def _growth(self, obs: Observation) -> int:
        """How many cards the hand holds beyond the deal (0 when not grown)."""
        return max(0, len(obs.my_hand) - obs.rules.hand_size)

    def _drawn(self, obs: Observation, legal: Sequence[Action]) -> Action:
        rng = self.random
        hand = obs.my_hand
        fixed = [legal[i] for i in range(tuple.__len__(legal))] if isinstance(legal, tuple) else list(legal)
        multi_allowed = len(legal) > len(fixed)
        if multi_allowed and rng.random() < self.multi + 0.1 * self._growth(obs):
            equal = self._equal_groups(obs) if self.uses_knowledge else []
            # A failed try grows the hand, so a grown hand tries only known-equal groups.
            if equal and (rng.random() < 0.6 or self._growth(obs) >= 2):
                return Exchange(rng.choice(equal))
            if self._growth(obs) < 2:
                size = rng.choice((2, 2, 3, 4)) if len(hand) >= 4 else 2
                size = min(size, len(hand))
                positions = tuple(sorted(rng.sample(range(len(hand)), size)))
                action = Exchange(positions)
                if action in legal:
                    return action
        singles = [a for a in fixed if type(a) is Exchange]
        discards = [a for a in fixed if type(a) is Discard]
        if discards and (not singles or rng.random() < 0.5):
            return discards[0]
        return rng.choice(singles)

    @staticmethod
    def _equal_groups(obs: Observation) -> list[tuple[int, ...]]:
        """Sets of two or more own positions whose known cards have equal values."""
        by_value: dict[int, list[int]] = {}
        for p, c in enumerate(obs.my_hand):
            if c.value is not None:
                by_value.setdefault(c.value, []).append(p)
        groups: list[tuple[int, ...]] = []
        for positions in by_value.values():
            for k in range(2, len(positions) + 1):
                groups.extend(combinations(positions, k))
        return groups

    def _snap(self, obs: Observation, legal: Sequence[Action]) -> Action:
        rng = self.random
        claims = [a for a in legal if type(a) is Snap]
        if not claims:
            return Pass()
        top = obs.top
        right: list[Snap] = []
        if self.uses_knowledge and top is not None:
            right = [a for a in claims if obs.hands[a.seat][a.position].value == top.value]  # type: ignore[attr-defined]
        growth = self._growth(obs)
        if right and rng.random() < self.snap * 3:
            return rng.choice(right)
        # Wrong snaps cost penalty cards: risk them less as the hand grows.
        if rng.random() < self.snap / (1 + 2 * growth):
            own = [a for a in claims if a.seat == obs.seat]  # type: ignore[attr-defined]
            pool = own if own and rng.random() < 0.4 else claims
            return rng.choice(pool)
        return Pass()


class BlindFuzzBot(FuzzBot):
    """A :class:`FuzzBot` that never reads the cards it knows: for games with ``memory="none"``.

    >>> BlindFuzzBot().uses_knowledge
    False
    """

    def __init__(self, **kw: float) -> None:
        kw.setdefault("multi", 0.08)
        super().__init__(uses_knowledge=False, **kw)  # type: ignore[arg-type]
