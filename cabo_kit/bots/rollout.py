"""Rollouts: how the search bot imagines a round going on, played by the engine itself.

A *world* is one guess of the hidden cards, a :class:`~cabo_kit.Game` built by
``Game.from_layout(..., rollout=True)`` (``search.WorldDealer`` builds it from the bot's own
observation). :func:`roll_out` plays its round to the end: each seat decides from its own
observation of the world, as a bot does in a real game, so it sees only the cards the world
says it has seen, and the engine applies the rules (every variant of ``ck.Rules`` plays as in
a real game). The players are the counting bot (``counting.py``) and the search bot's
sharpened model of itself; nothing here decides anything.

>>> import cabo_kit as ck
>>> rules = ck.Rules.preset("deluxe").replace(max_rounds=1)
>>> world = ck.Game.from_layout(rules, [[0, 1, 2, 3], [13, 12, 11, 10]], discard=[5], current=0,
...                             known=[[(0, 0), (0, 1), (0, 2), (0, 3)], []], rollout=True)
>>> roll_out(world, [ck.bots.CountingBot(), ck.bots.CountingBot()])   # 6 points and a rival's 26 by guess: Cabo
3
>>> world.results[-1].ended_by, world.results[-1].caller, world.winners
('cabo', 0, [0])
"""

from __future__ import annotations

from typing import Sequence

from ..actions import CallCabo, Pass
from ..bot import Bot
from ..game import Game
from ..observation import Phase

__all__ = ["roll_out"]

_CABO = CallCabo()
_PASS = Pass()
_SNAP = Phase.SNAP


def roll_out(world: Game, players: Sequence[Bot], late_after: int = 10**9) -> int:
    """Play ``world``'s round to its end, each seat by its player; ``late_after`` turns on, everyone calls.

    Returns the number of decisions made, a snap window counting one (the budget is counted in them).
    In a snap window where no face-down card matches the pile's top, nobody can know a match:
    every seat passes without being asked (the counting bot would).
    """
    decisions = 0
    late_turn = world.turn + late_after
    know = world.know
    faces, up = know.faces, know.up  # (never replaced in a round; the pile is, by a reshuffle)
    while not world.is_over:
        movers = world.to_move
        if world.phase is _SNAP:
            decisions += 1
            top = faces[know.pile[-1]].value
            if any(faces[c].value == top and not up[c] for hand in know.hands for c in hand):
                for seat in movers:
                    obs = world.observation(seat)
                    world.apply_unchecked(players[seat].choose(obs, obs.legal_actions), seat)
            else:
                for seat in movers:
                    world.apply_unchecked(_PASS, seat)
            continue
        seat = movers[0]
        obs = world.observation(seat)
        legal = obs.legal_actions
        if world.turn >= late_turn and _CABO in legal:
            world.apply_unchecked(_CABO, seat)
        else:
            world.apply_unchecked(players[seat].choose(obs, legal), seat)
        decisions += 1
    return decisions
