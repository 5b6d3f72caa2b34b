"""The environments' rewards, in one place (PettingZoo's ``aec_env`` and Gymnasium's ``SeatEnv`` give the same).

- ``"game"``: when the game ends, +1 to each winner (ties included) and -1 to every other seat;
- ``"round"``: at each round's end, (the mean round score of the other seats - the seat's own) / 10
  (lower is better in Cabo, so beating the table is positive).

>>> round_reward((10, 4, 7), seat=1), game_reward((1,), seat=0)
(0.45, -1.0)
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["REWARDS", "check_reward", "round_reward", "game_reward"]

REWARDS = ("game", "round")


def check_reward(reward: str) -> str:
    """``reward`` if it is one of :data:`REWARDS`, else a ValueError naming them."""
    if reward not in REWARDS:
        raise ValueError(f"reward={reward!r}: choose 'game' (+1/-1 at the game's end) or 'round' (at each round's end)")
    return reward


def round_reward(scores: Sequence[int], seat: int) -> float:
    """A round's reward for ``seat`` from the round's ``scores`` (by seat)."""
    return ((sum(scores) - scores[seat]) / (len(scores) - 1) - scores[seat]) / 10


def game_reward(winners: Sequence[int], seat: int) -> float:
    """The game's reward for ``seat``: +1 if it is one of ``winners``, else -1."""
    return 1.0 if seat in winners else -1.0
