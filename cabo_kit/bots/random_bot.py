"""RandomBot: the bottom rung of the ladder and the rating anchor."""

from __future__ import annotations

from typing import Sequence

from ..actions import Action, CallCabo, Exchange, LegalActions
from ..bot import Bot
from ..observation import Observation

__all__ = ["RandomBot"]


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
        rng = self.random
        phase = observation.phase
        # int(rng.random() * n) is a uniform integer in 0..n-1: one C-level call, much faster than randrange.
        # Legal actions come in a fixed order (docs/engine.md), which lets this stay fast:
        # Pass first in snap windows and powers, CallCabo last when it is allowed.
        if phase == "snap":
            n = len(legal_actions)
            if n > 1 and rng.random() < self.snap_probability:
                return legal_actions[1 + int(rng.random() * (n - 1))]
            return legal_actions[0]
        if phase == "choose" or phase == "end_turn":
            last = legal_actions[-1]
            if type(last) is CallCabo:
                if rng.random() < self.cabo_probability or len(legal_actions) == 1:
                    return last
                return legal_actions[int(rng.random() * (len(legal_actions) - 1))]
            return legal_actions[int(rng.random() * len(legal_actions))]
        if phase == "drawn":
            # A LegalActions is a tuple of the ordinary actions followed by the lazy multi-exchanges:
            # tuple.__len__ and tuple.__getitem__ see only the ordinary ones.
            fixed: tuple[Action, ...]
            if isinstance(legal_actions, tuple):
                fixed = legal_actions
                n_fixed = tuple.__len__(legal_actions)
                first = tuple.__getitem__(legal_actions, 0)
            else:
                fixed = tuple(legal_actions)
                n_fixed = len(fixed)
                first = fixed[0]
            if isinstance(legal_actions, LegalActions) and rng.random() < self.multi_exchange_probability:
                n_all = len(legal_actions)
                if n_all > n_fixed:
                    return legal_actions[n_fixed + int(rng.random() * (n_all - n_fixed))]
            discards = 0 if type(first) is Exchange else 1
            singles = n_fixed - discards
            if discards and (not singles or rng.random() < 0.5):
                return first
            return tuple.__getitem__(fixed, discards + int(rng.random() * singles))
        if phase == "look":  # one kind only (InitialPeek): the same two draws as the general way below
            rng.random()
            return legal_actions[int(rng.random() * len(legal_actions))]
        kinds_by: dict[type, list[Action]] = {}
        for a in legal_actions:
            kinds_by.setdefault(type(a), []).append(a)
        groups = list(kinds_by.values())
        group = groups[int(rng.random() * len(groups))]
        return group[int(rng.random() * len(group))]
