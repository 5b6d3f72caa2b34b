"""A PettingZoo ``AECEnv`` of Cabo: one agent per seat, deciding in the engine's order.

One seat decides at a time, as :class:`cabo_kit.Stepper` has them: several decisions in a row
for one seat where a Cabo turn has them (draw, then discard or exchange, then a power), and
every seat in seat order where all decide at once (the deluxe set-up look, a snap window).

An agent's observation is a dict: ``"observation"``, the float32 :func:`~cabo_kit.rl.encode`
of its seat's :class:`~cabo_kit.Observation`, and ``"action_mask"``, an int8 array over the
:class:`~cabo_kit.rl.ActionIndex` (1: legal now). Actions are numbers of that index; one that
is not legal raises :class:`~cabo_kit.IllegalActionError` (nothing is replaced silently).

Rewards (``reward=``): ``"game"`` (default) gives, when the game ends, +1 to each winner and -1
to every other seat; ``"round"`` gives, when each round ends, (the mean round score of the
other seats - the seat's own round score) / 10, which sums to 0 over the table (lower scores
win in Cabo). ``infos[agent]`` is ``{}`` until the game ends, then ``{"totals": ..., "winners":
...}`` (seats absolute, public). The game always ends: ``Rules.max_turns`` and ``max_rounds``
bound it, so nothing is truncated.

>>> from cabo_kit.rl import aec_env
>>> env = aec_env("deluxe", n_players=2, seed=1)
>>> env.reset()
>>> env.agent_selection, env.unwrapped.game.phase                 # the set-up look, seat 0 first
('player_0', <Phase.LOOK: 'look'>)
>>> obs, reward, terminated, truncated, info = env.last()
>>> obs["observation"].shape, int(obs["action_mask"].sum())
((558,), 6)
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as exc:  # pragma: no cover - without the rl extra
    from . import missing_extra

    raise missing_extra("pettingzoo and gymnasium") from exc

from ..game import Game
from ..rules import Rules
from .encoding import action_index, encoder
from .rewards import check_reward, game_reward, round_reward

__all__ = ["aec_env", "CaboAEC"]



def _rules(rules: Rules | str) -> Rules:
    return Rules.preset(rules) if isinstance(rules, str) else rules


class CaboAEC(AECEnv):
    """The AEC environment (what :func:`aec_env` returns); see the module docstring.

    :meth:`reset_to` starts an episode from a game you made (``Game.from_layout``, a stacked deck).
    """

    metadata: dict[str, Any] = {"name": "cabo_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(
        self,
        rules: Rules | str = "deluxe",
        n_players: int = 4,
        memory: str = "engine",
        seed: int | None = None,
        reward: str = "game",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.rules = _rules(rules)
        self.rules.check_players(n_players)
        if memory not in ("engine", "none"):
            raise ValueError(f"memory={memory!r}: choose 'engine' or 'none'")
        check_reward(reward)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r}: choose None, 'ansi' or 'human'")
        self.n_players = n_players
        self.memory = memory
        self.reward_at = reward
        self.render_mode = render_mode
        self.index = action_index(self.rules, n_players)
        self.encoder = encoder(self.rules, n_players)
        self.possible_agents = [f"player_{s}" for s in range(n_players)]
        self._seat = {a: s for s, a in enumerate(self.possible_agents)}
        box = spaces.Box(-1.0, 1.0, (self.encoder.size,), np.float32)
        self.observation_spaces = {
            a: spaces.Dict({"observation": box, "action_mask": spaces.Box(0, 1, (self.index.size,), np.int8)})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.index.size) for a in self.possible_agents}
        self._base_seed = seed
        self._episode = 0
        self.game: Game | None = None
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    # ---------------------------------------------------------------- episodes

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: with ``seed``, the game that seed deals; without, the next of the env's seeded series."""
        if seed is not None:
            self._base_seed = seed
            self._episode = 0
            game_seed: int | str = seed
        elif self._base_seed is None:
            game_seed = int(np.random.SeedSequence().generate_state(1)[0])
        else:
            self._episode += 1
            game_seed = f"{self._base_seed}:{self._episode}"
        self.reset_to(Game(self.rules, game_seed, self.n_players, memory=self.memory))

    def reset_to(self, game: Game) -> None:
        """Start an episode from ``game`` as it stands (it must have these rules, table size and memory).

        >>> import cabo_kit as ck
        >>> env = CaboAEC("deluxe", n_players=2)
        >>> env.reset_to(ck.Game.from_layout(env.rules, hands=[[1, 2, 3, 4], [5, 6, 7, 8]], discard=[9], current=1))
        >>> env.agent_selection
        'player_1'
        """
        if game.rules != self.rules or game.n != self.n_players or game.memory != self.memory:
            raise ValueError(
                f"this env plays {self.rules.name} with {self.n_players} players, memory={self.memory!r}; the game is "
                f"{game.rules.name} with {game.n}, memory={game.memory!r}")
        if game.is_over:
            raise ValueError("the game is over: give a game that still has decisions to make")
        self.game = game
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._results_seen = len(game.results)
        self._rewarded = False
        self.agent_selection = self.possible_agents[game.to_move[0]]

    def observe(self, agent: str) -> dict[str, Any]:
        """``agent``'s observation now: its encoding and its action mask (all zeros when it need not decide)."""
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before observe()")
        seat = self._seat[agent]
        obs = game.observation(seat)
        mask = self.index.mask(obs.legal_actions, seat).view(np.int8)
        return {"observation": self.encoder.encode(obs), "action_mask": mask}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """:attr:`agent_selection`'s observation (``None`` with ``observe=False``), accumulated reward, termination,
        truncation and info, as PettingZoo's ``last`` gives them."""
        if self.game is None:
            raise RuntimeError("call reset() before last()")
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def step(self, action: Any) -> None:
        """Carry out ``action`` (a number of the action index) for :attr:`agent_selection`."""
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        agent = self.agent_selection
        if agent not in self.terminations:
            raise RuntimeError(f"{agent} has left the game: call reset() to start another")
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        assert game is not None
        seat = self._seat[agent]
        legal = game.legal_actions(seat)
        game.apply_unchecked(self.index.action(action, seat, legal), seat)
        self._cumulative_rewards[agent] = 0.0
        if self._rewarded:
            self._clear_rewards()
            self._rewarded = False
        if len(game.results) != self._results_seen:
            self._round_ends(game)
        if game.is_over:
            self._game_ends(game)
        else:
            self.agent_selection = self.possible_agents[game.to_move[0]]
        if self._rewarded:
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _round_ends(self, game: Game) -> None:
        if self.reward_at == "round":
            for result in game.results[self._results_seen:]:
                for s, agent in enumerate(self.possible_agents):
                    self.rewards[agent] += round_reward(result.scores, s)
            self._rewarded = True
        self._results_seen = len(game.results)

    def _game_ends(self, game: Game) -> None:
        winners = game.winners
        totals = game.totals
        for s, agent in enumerate(self.possible_agents):
            if self.reward_at == "game":
                self.rewards[agent] += game_reward(winners, s)
            self.terminations[agent] = True
            self.infos[agent] = {"totals": tuple(totals), "winners": tuple(winners)}
        self._rewarded = True

    def render(self) -> str | None:
        """The table as the agent to move sees it (``describe()``), text for ``"ansi"``; printed for ``"human"``."""
        if self.render_mode is None:
            import warnings

            warnings.warn("render() needs a render_mode: aec_env(..., render_mode='ansi')", stacklevel=2)
            return None
        text = "" if self.game is None else self.game.observation(self._seat[self.agent_selection]).describe()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def aec_env(
    rules: Rules | str = "deluxe",
    n_players: int = 4,
    memory: str = "engine",
    seed: int | None = None,
    **options: Any,
) -> CaboAEC:
    """A PettingZoo AEC environment of Cabo (see the module docstring).

    ``rules`` is a preset's name or a :class:`~cabo_kit.Rules`; ``memory`` is the engine's
    (``"engine"``: observations keep what a seat has seen; ``"none"``: only what lies face up);
    ``seed`` seeds the series of games that ``reset()`` deals (``reset(seed=s)`` deals game ``s``).
    ``options``: ``reward="game"`` or ``"round"``, ``render_mode=None``, ``"ansi"`` or ``"human"``.
    The env is the :class:`CaboAEC` itself (its ``game``, ``index`` and ``encoder``), which refuses
    a step before ``reset()`` on its own: PettingZoo's ``OrderEnforcingWrapper`` would add a third
    to each step's time (``pettingzoo.utils.wrappers.OrderEnforcingWrapper(env)`` if you want it).

    >>> env = aec_env("rush", n_players=3, seed=5)
    >>> env.reset()
    >>> for agent in env.agent_iter(max_iter=40):
    ...     obs, reward, terminated, truncated, info = env.last()
    ...     env.step(None if terminated else int(obs["action_mask"].nonzero()[0][0]))
    >>> env.unwrapped.game.round >= 0
    True
    """
    return CaboAEC(rules, n_players, memory, seed, **options)
