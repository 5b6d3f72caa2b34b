"""A Gymnasium env for one seat against cabo-kit bots, with ``action_masks()`` for sb3-contrib's MaskablePPO.

Each ``step`` is one decision of your seat; the bots at the other seats play between your
decisions (:meth:`cabo_kit.Stepper.next_decision`: the engine's own loop, the bots' hooks
called as a Stepper calls them, so the very game a Stepper plays). The
observation is :func:`~cabo_kit.rl.encode` of your seat's :class:`~cabo_kit.Observation`, the
action a number of the :class:`~cabo_kit.rl.ActionIndex`; ``action_masks()`` says which are legal.

Rewards (``reward=``): ``"game"`` (default), +1 if your seat wins the game (ties included) and
-1 if not, when it ends; ``"round"``, at each round's end, (the mean round score of the other
seats - yours) / 10. An action that is not legal now ends the episode (``terminated``) with
reward -1 and ``info["illegal"]`` saying what was played (``illegal="raise"`` raises
:class:`~cabo_kit.IllegalActionError` instead); nothing is replaced silently. The final info
holds the game's ``totals`` and ``winners``.

>>> from cabo_kit.rl import SeatEnv
>>> env = SeatEnv("deluxe", opponents=[1], seed=3)      # you at seat 0, a RandomBot at seat 1
>>> obs, info = env.reset(seed=3)
>>> obs.shape, int(env.action_masks().sum())           # the set-up look: six choices
((558,), 6)
>>> while True:
...     action = int(env.action_masks().nonzero()[0][0])  # always the first legal action
...     obs, reward, terminated, truncated, info = env.step(action)
...     if terminated:
...         break
>>> reward in (1.0, -1.0), sorted(info)
(True, ['totals', 'winners'])
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as exc:  # pragma: no cover - without the rl extra
    from . import missing_extra

    raise missing_extra("gymnasium") from exc

from ..actions import Action, IllegalActionError
from ..bot import Bot
from ..bots.levels import by_level
from ..game import Game
from ..observation import Observation
from ..play import Stepper
from ..rules import Rules
from .encoding import action_index, encoder
from .rewards import check_reward, game_reward, round_reward

__all__ = ["SeatEnv", "ENV_ID"]

#: The id :class:`SeatEnv` is registered under: ``gymnasium.make("cabo_kit/SeatEnv-v0", opponents=[1, 2])``.
ENV_ID = "cabo_kit/SeatEnv-v0"


def _bot(spec: Any, i: int) -> Bot:
    if isinstance(spec, Bot):
        return spec
    if isinstance(spec, type) and issubclass(spec, Bot):
        return spec()
    if isinstance(spec, (int, str)) and not isinstance(spec, bool):
        return by_level(spec)
    raise TypeError(f"opponents[{i}]={spec!r}: give a level (1 to 4), a cabo_kit.Bot instance or a Bot class")


class SeatEnv(gymnasium.Env):
    """One seat (``seat``; ``None``: a random seat each episode) against ``opponents`` (module docstring).

    ``opponents`` fill the other seats in seat order: levels (1 random .. 4 search, see
    :func:`cabo_kit.bots.by_level`), Bot instances or Bot classes; the table has
    ``len(opponents) + 1`` seats. ``seed`` seeds the series of games ``reset()`` deals.
    """

    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}

    def __init__(
        self,
        rules: Rules | str = "deluxe",
        opponents: Sequence[Any] = (2, 3, 3),
        seat: int | None = 0,
        seed: int | None = None,
        memory: str = "engine",
        reward: str = "game",
        illegal: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        self.rules = Rules.preset(rules) if isinstance(rules, str) else rules
        if isinstance(opponents, (str, int, Bot)) or (isinstance(opponents, type)):
            raise TypeError("opponents must be a list, e.g. [2, 3, 3] or [ck.bots.GreedyBot()]")
        self.opponents = [_bot(spec, i) for i, spec in enumerate(opponents)]
        n = len(self.opponents) + 1
        self.rules.check_players(n)
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < n):
            raise ValueError(f"seat={seat!r} is not a seat of this {n}-player table (0..{n - 1}, or None: random)")
        if memory not in ("engine", "none"):
            raise ValueError(f"memory={memory!r}: choose 'engine' or 'none'")
        check_reward(reward)
        if illegal not in ("lose", "raise"):
            raise ValueError(f"illegal={illegal!r}: choose 'lose' (the episode ends, reward -1) or 'raise'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode={render_mode!r}: choose None, 'ansi' or 'human'")
        self.n_players = n
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.memory = memory
        self.reward_at = reward
        self.illegal = illegal
        self.render_mode = render_mode
        self.index = action_index(self.rules, n)
        self.encoder = encoder(self.rules, n)
        self.observation_space = spaces.Box(-1.0, 1.0, (self.encoder.size,), np.float32)
        self.action_space = spaces.Discrete(self.index.size)
        self._series = seed
        self.game: Game | None = None
        self.stepper: Stepper | None = None
        self._obs: Observation | None = None  # your observation now (the one the engine's loop made)
        self._actions: Sequence[Action] = ()  # the index's actions for your seat

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """A new game (its seed drawn from the env's generator, which ``seed`` reseeds); your first observation."""
        if seed is None and self._series is not None and self._np_random is None:
            seed = self._series
        super().reset(seed=seed)
        rng = self.np_random
        game_seed = int(rng.integers(2**62))
        if self.fixed_seat is None:
            self.seat = int(rng.integers(self.n_players))
        bots: dict[int, Bot] = {}
        others = [s for s in range(self.n_players) if s != self.seat]
        for s, bot in zip(others, self.opponents):
            bots[s] = bot
        self.game = Game(self.rules, game_seed, self.n_players, memory=self.memory)
        # The Stepper calls the bots' hooks (game, round start and end) and lets them play in the engine's loop.
        self.stepper = Stepper(self.game, bots, viewer=self.seat, game_hooks=True)
        self._results_seen = 0
        self._actions = self.index.actions(self.seat)
        self._obs = self.stepper.next_decision()
        return self._observe(), {}

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Play ``action`` (a number of the index) for your seat, then let the bots play until you decide again."""
        game, stepper = self.game, self.stepper
        if game is None or stepper is None:
            raise RuntimeError("call reset() before step()")
        if game.is_over:
            raise RuntimeError("the game is over: call reset() to start another")
        seat = self.seat
        assert self._obs is not None
        legal = self._obs.legal_actions
        actions = self._actions
        # A plain number of a legal action among the engine's listed ones (a tuple): found at once; anything else
        # (a numpy number, a multi-exchange, a mistake) goes through ActionIndex.action, which checks and explains.
        chosen = actions[action] if type(action) is int and 0 <= action < len(actions) else None
        if chosen is None or not (type(legal) is tuple and chosen in legal):
            try:
                chosen = self.index.action(action, seat, legal)
            except (IllegalActionError, ValueError) as exc:
                if self.illegal == "raise":
                    raise IllegalActionError(str(exc)) from exc
                return self._observe(), -1.0, True, False, {"illegal": str(exc)}
        game.apply_unchecked(chosen, seat)  # checked above against the legal actions
        obs = self._obs = stepper.next_decision()  # your seat's, or None: the game is over
        reward = 0.0
        if self.reward_at == "round" and len(game.results) != self._results_seen:
            for result in game.results[self._results_seen:]:
                reward += round_reward(result.scores, seat)
            self._results_seen = len(game.results)
        info: dict[str, Any] = {}
        terminated = obs is None and game.is_over
        if terminated:
            winners = game.winners
            if self.reward_at == "game":
                reward = game_reward(winners, seat)
            info = {"totals": tuple(game.totals), "winners": tuple(winners)}
        if self.render_mode == "human":
            self.render()
        return self.encoder.encode(obs) if obs is not None else self._observe(), reward, terminated, False, info

    def action_masks(self) -> "np.ndarray[Any, np.dtype[np.bool_]]":
        """Which actions of the index are legal for your seat now (a fresh bool array), as MaskablePPO asks."""
        if self.game is None:
            raise RuntimeError("call reset() before action_masks()")
        legal = self._obs.legal_actions if self._obs is not None else self.game.legal_actions(self.seat)
        return self.index.mask(legal, self.seat)

    def _observe(self) -> Any:
        assert self.game is not None
        return self.encoder.encode(self._obs if self._obs is not None else self.game.observation(self.seat))

    def render(self) -> str | None:
        """Your seat's view in a few lines (``Observation.describe()``): returned for ``"ansi"``, printed for ``"human"``."""
        if self.render_mode is None or self.game is None:
            return None
        text = self.game.observation(self.seat).describe()
        if self.render_mode == "human":
            print(text)
            return None
        return text


if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point="cabo_kit.rl.gymnasium_env:SeatEnv", nondeterministic=False)
