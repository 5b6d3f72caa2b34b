"""FastRandomBot: ``cabo_kit.bots.RandomBot``'s moves, written for speed, for the engine benchmarks.

It makes exactly the moves of the reference RandomBot (the same draws from ``self.random``;
tests/test_bots.py plays both through many games and compares the records), with fewer
Python operations per decision, so that the engine benchmarks time the engine rather than
the bot. It is the RandomBot of cabo-kit before issue 12 made the reference one plain; it
uses only the public API, so the same file drives older versions of the engine too
(benchmarks/engine_compare.py).
"""

from __future__ import annotations

from typing import Sequence

import cabo_kit as ck
from cabo_kit.actions import Action, CallCabo, Exchange, LegalActions

__all__ = ["FastRandomBot"]


class FastRandomBot(ck.Bot):
    """RandomBot's moves at a fraction of its cost (see the module docstring)."""

    name = "RandomBot"
    cabo_probability = 0.05
    multi_exchange_probability = 0.05
    snap_probability = 0.02

    def choose(self, observation: ck.Observation, legal_actions: Sequence[Action]) -> Action:
        rng = self.random
        phase = observation.phase
        # int(rng.random() * n) is a uniform integer in 0..n-1: one C-level call, much faster than randrange.
        # Legal actions come in a fixed order (docs/engine.md): Pass first in snap windows and powers,
        # CallCabo last when it is allowed.
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
