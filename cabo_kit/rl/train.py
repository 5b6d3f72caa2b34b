"""A small policy-gradient trainer in numpy (REINFORCE with Adam), and win rates with Wilson intervals.

What ``notebooks/07_rl.ipynb`` and ``benchmarks/rl_training.py`` use: :func:`reinforce` plays
games in a :class:`~cabo_kit.rl.SeatEnv`, samples each decision from an
:class:`~cabo_kit.rl.MLPPolicy` among the legal actions, and after each batch of games moves the
weights towards the actions that were followed by better returns than the batch's average
(advantages normalised per batch; an entropy bonus keeps it exploring). :func:`win_rate` plays
the greedy policy against a bot in whole games, the seats alternating; :func:`wilson` gives the
95% interval of a win rate.

>>> import cabo_kit as ck
>>> from cabo_kit.rl import MLPPolicy, SeatEnv
>>> policy = MLPPolicy.new(ck.Rules.preset("deluxe"), 2, hidden=(16,), seed=0)
>>> history = reinforce(policy, SeatEnv("deluxe", opponents=[1], seat=None, seed=0), games=4, batch=2)
>>> len(history), sorted(history[0])
(2, ['games', 'mean_return', 'steps'])
>>> wins, games, ties = win_rate(policy, ck.bots.RandomBot, games=4, seed=1)
>>> games, 0 <= wins <= 4
(4, True)
>>> [round(x, 3) for x in wilson(650, 1000)]
[0.62, 0.679]
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from ..actions import Action
from ..bot import Bot
from ..observation import Observation
from ..play import play_game
from .policy import MLPPolicy

__all__ = ["reinforce", "win_rate", "wilson", "PolicyPlayer"]


class _Adam:
    def __init__(self, params: list[Any], lr: float) -> None:
        self.lr = lr
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, params: list[Any], grads: list[Any]) -> None:
        self.t += 1
        b1, b2 = 0.9, 0.999
        for p, g, m, v in zip(params, grads, self.m, self.v):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p -= self.lr * (m / (1 - b1**self.t)) / (np.sqrt(v / (1 - b2**self.t)) + 1e-8)


def reinforce(
    policy: MLPPolicy,
    env: Any,
    games: int,
    batch: int = 16,
    lr: float = 3e-3,
    entropy: float = 0.01,
    seed: int = 0,
    progress: Callable[[dict[str, float]], None] | None = None,
    credit: str | None = None,
) -> list[dict[str, float]]:
    """Train ``policy`` in place on ``games`` games of ``env`` (a SeatEnv), ``batch`` games per update.

    ``credit`` says which rewards a decision is credited with: ``"round"``, those of its own round only (a
    round's cards are dealt afresh, so later rounds add noise, not signal); ``"game"``, every reward to the
    game's end. By default it follows the env's ``reward``: ``"round"`` with ``reward="round"``, ``"game"``
    with ``reward="game"`` (whose one reward comes at the game's end: crediting by round would give it to the
    last round's decisions only, so that pairing warns).

    Returns one record per update: games played so far, the batch's mean return and its decisions.
    ``progress`` is called with each record.
    """
    reward = getattr(env, "reward_at", None)
    if credit is None:
        credit = "round" if reward == "round" else "game"
    elif credit not in ("round", "game"):
        raise ValueError(f"credit={credit!r}: choose 'round' or 'game' (or leave it out: it follows the env's reward)")
    elif credit == "round" and reward == "game":
        warnings.warn("reinforce(credit='round') with SeatEnv(reward='game'): the game's one reward comes at its end, "
                      "so only the last round's decisions get credit; use reward='round' or credit='game'", stacklevel=2)
    rng = np.random.default_rng(seed)
    flat = [a for W, b in policy.params for a in (W, b)]
    adam = _Adam(flat, lr)
    history: list[dict[str, float]] = []
    played = 0
    episode_seed = int(rng.integers(2**31))
    while played < games:
        xs: list[Any] = []
        masks: list[Any] = []
        actions: list[int] = []
        returns: list[float] = []
        totals: list[float] = []
        for _ in range(min(batch, games - played)):
            obs, _ = env.reset(seed=episode_seed + played)
            played += 1
            rewards: list[float] = []
            rounds: list[int] = []
            while True:
                rounds.append(env.game.round)
                mask = env.action_masks()
                p = policy.probabilities(obs, mask)
                a = int(rng.choice(len(p), p=p))
                xs.append(obs)
                masks.append(mask)
                actions.append(a)
                obs, reward, terminated, truncated, _ = env.step(a)
                rewards.append(float(reward))
                if terminated or truncated:
                    break
            returns.extend(_returns(rewards, rounds if credit == "round" else [0] * len(rounds)))
            totals.append(sum(rewards))
        _update(policy, adam, np.array(xs), np.array(masks), np.array(actions), np.array(returns), entropy)
        record = {"games": float(played), "mean_return": float(np.mean(totals)), "steps": float(len(xs))}
        history.append(record)
        if progress is not None:
            progress(record)
    return history


def _returns(rewards: list[float], rounds: list[int]) -> list[float]:
    """Each decision's return: the rewards from it on, within its round (``rounds``: each decision's round)."""
    out = [0.0] * len(rewards)
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        if t + 1 < len(rewards) and rounds[t + 1] != rounds[t]:
            running = 0.0
        running += rewards[t]
        out[t] = running
    return out


def _update(policy: MLPPolicy, adam: _Adam, X: Any, M: Any, A: Any, G: Any, entropy: float) -> None:
    adv = G - G.mean()
    std = adv.std()
    if std > 1e-8:
        adv = adv / std
    logits, hidden = policy.forward(X)
    logits = np.where(M, logits, -np.inf)
    logits = logits - logits.max(axis=1, keepdims=True)
    P = np.exp(logits)
    P /= P.sum(axis=1, keepdims=True)
    T = len(A)
    onehot = np.zeros_like(P)
    onehot[np.arange(T), A] = 1.0
    # Loss: -(advantage * log p(a)) - entropy * H, averaged; its gradient with respect to the logits:
    dz = -(adv[:, None] * (onehot - P))
    if entropy:
        logp = np.where(M, np.log(np.where(M, P, 1.0)), 0.0)
        H = -(P * logp).sum(axis=1, keepdims=True)
        dz += entropy * P * (logp + H)
    dz /= T
    grads: list[Any] = []
    inputs = [X] + hidden
    d = dz
    for layer in range(len(policy.params) - 1, -1, -1):
        W, _ = policy.params[layer]
        h_in = inputs[layer]
        grads = [h_in.T @ d, d.sum(axis=0)] + grads
        if layer:
            d = (d @ W.T) * (1 - h_in**2)
    adam.step([a for W, b in policy.params for a in (W, b)], grads)


class PolicyPlayer(Bot):
    """A policy as an in-process bot (greedy), for :func:`win_rate` and quick games; a file for tournaments:
    :func:`~cabo_kit.rl.policy_bot`."""

    name = "PolicyPlayer"

    def __init__(self, policy: MLPPolicy) -> None:
        super().__init__()
        self.policy = policy

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        return self.policy.choose(observation)


def win_rate(policy: MLPPolicy, opponent: Callable[[], Bot], games: int = 1000, seed: int = 0) -> tuple[int, int, int]:
    """Play ``games`` games of the greedy policy against ``opponent()`` bots (the policy's seat alternating).

    Returns ``(wins, games, ties)``: a win is a game the policy wins alone; a shared win is a tie
    (counted as no win).
    """
    n = policy.n_players
    wins = ties = 0
    for g in range(games):
        seat = g % n
        bots: list[Bot] = [opponent() for _ in range(n)]
        bots[seat] = PolicyPlayer(policy)
        record = play_game(bots, policy.rules, seed=f"win-rate:{seed}:{g}")
        if seat in record.winners:
            if len(record.winners) == 1:
                wins += 1
            else:
                ties += 1
    return wins, games, ties


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (95% by default)."""
    if games <= 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)
