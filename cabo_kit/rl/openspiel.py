"""Cabo as an OpenSpiel game: ``python_cabo``, registered by :func:`register_openspiel`.

The only module of cabo-kit that imports ``pyspiel`` (the ``rl`` extra's open-spiel; tested
with 2.0.2). Parameters: ``players`` (2..6, default 2), ``preset`` (``"deluxe"``, ``"rush"``,
``"traveller"``; default ``"deluxe"``) and ``memory`` (``"engine"`` or ``"none"``, as
:class:`~cabo_kit.Game` has it).

**Chance.** Every random event of the engine is a chance node (the engine asks a
:class:`~cabo_kit.Chance` at each one, and this game answers with the outcome OpenSpiel
chose), with its true probabilities:

- the first round's start player: outcome = the seat, each ``1/players``;
- each card dealt (seat 0's positions first, then seat 1's, ...), turned up as the first
  discard, drawn, or taken as a penalty card: outcome = the card's number in
  :attr:`CaboGame.faces` (the distinct cards of the preset's deck), probability = its copies
  left in the deck / the cards left in the deck;
- each snap race (several seats claimed in one window): outcome = the winning seat, each
  ``1/claimers``;
- a reshuffle has no node of its own: the pile becomes the deck, and each card then drawn from
  it is a chance node as above, which is the reshuffle's order revealed card by card.

No outcome is a "seed", so ``state.history()`` replays a game exactly
(``game.new_initial_state()`` then ``apply_action`` of each).

**Turns.** OpenSpiel's turns are sequential; the engine's simultaneous decisions are taken in
its own order, as :class:`~cabo_kit.Stepper` takes them: the deluxe set-up look and each snap
window ask every seat in seat order (seat 0 first), and an answer is seen by nobody until the
window closes (only the winning claim is shown), so a later seat decides without knowing the
earlier answers: a simultaneous move written as sequential moves with hidden information.
Several decisions in a row for one seat (draw, then discard or exchange, then a power ...)
are several turns of that player.

**Actions** are the numbers of :class:`~cabo_kit.rl.ActionIndex` for ``(rules, players)``
(seats as offsets from the deciding seat); ``legal_actions()`` lists the indexed legal actions
(a legal action outside the index is left out; there is always one inside).

**What a player sees.** Information states and observations of player ``p`` come from
``game.observation(p)`` alone (a :class:`~cabo_kit.Observation`): the tensors are
:func:`cabo_kit.rl.encode` of it, the observation string its ``describe()``, the information
state string its JSON (``to_dict()`` without the rules), events of this round included, after
the events of each earlier round as seat ``p`` saw them (its own view of the game's log: the
engine's observation forgets earlier rounds), so two histories that differ in an earlier round
in what ``p`` saw give different information states. Within a round, ``memory="none"`` keeps
only what lies face up and this turn's events (the engine's rule), so it is perfect recall across
rounds, not within one. At a chance node every player sees the table as it was before the
action that led there.

**Returns** at the game's end: +1 for each winner, -1 for every other seat (as
``aec_env``'s default reward). ``max_game_length`` (player decisions) follows from the rules'
``max_rounds`` and ``max_turns``: per round the set-up looks, then per turn at most seven
decisions of the current player and two snap windows of ``players`` answers and a give.

>>> import pyspiel
>>> from cabo_kit.rl import register_openspiel
>>> register_openspiel()
>>> game = pyspiel.load_game("python_cabo", {"players": 3, "preset": "rush"})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), state.chance_outcomes()[:1]      # the start player
(True, [(0, 0.3333333333333333)])
>>> state.apply_action(1)
>>> state.action_to_string(pyspiel.PlayerId.CHANCE, state.chance_outcomes()[0][0])   # the first card dealt: a red king?
'card KD (p=0.01923)'
"""

from __future__ import annotations

import copy
import json
from typing import Any

import numpy as np
import pyspiel

from ..actions import Action
from ..cards import Card
from ..chance import Chance
from ..game import Game
from ..observation import EventKind
from ..rules import PRESETS, Rules
from .encoding import action_index, encoder

__all__ = ["register_openspiel", "CaboGame", "CaboState", "CaboObserver", "GAME_NAME"]

#: The short name the game is registered under.
GAME_NAME = "python_cabo"
_PARAMS = {"players": 2, "preset": "deluxe", "memory": "engine"}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Cabo (cabo-kit)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_PARAMS,
)


def register_openspiel() -> None:
    """Register ``python_cabo`` with pyspiel (once; calling again does nothing).

    >>> import pyspiel
    >>> register_openspiel(); register_openspiel()
    >>> pyspiel.load_game("python_cabo", {"players": 4}).num_players()
    4
    """
    if GAME_NAME not in pyspiel.registered_names():
        pyspiel.register_game(_GAME_TYPE, CaboGame)


def max_decisions(rules: Rules, n: int) -> int:
    """An upper bound on the player decisions of a game (OpenSpiel's ``max_game_length``).

    >>> import cabo_kit as ck
    >>> max_decisions(ck.Rules.preset("deluxe"), 2)
    234120
    """
    looks = n if rules.peek_choice and rules.initial_peeks else 0
    per_turn = 7 + 2 * (n + 1)
    return rules.max_rounds * (looks + rules.max_turns * per_turn)


class CaboGame(pyspiel.Game):
    """The OpenSpiel game: one table size and preset (the parameters ``players``, ``preset``, ``memory``)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = dict(_PARAMS, **(params or {}))
        preset, n, memory = str(merged["preset"]), int(merged["players"]), str(merged["memory"])
        if preset not in PRESETS:
            raise ValueError(f"python_cabo: preset={preset!r}: choose one of {', '.join(sorted(PRESETS))}")
        if memory not in ("engine", "none"):
            raise ValueError(f"python_cabo: memory={memory!r}: choose 'engine' or 'none'")
        rules = Rules.preset(preset)
        rules.check_players(n)
        self.rules, self.n, self.memory = rules, n, memory
        self.index = action_index(rules, n)
        self.encoder = encoder(rules, n)
        #: The chance outcomes of a card: the distinct cards of the deck, by value then text.
        self.faces: tuple[Card, ...] = tuple(sorted(set(rules.full_deck(n)), key=lambda c: (c.value, c.text)))
        self.face_at = {c: i for i, c in enumerate(self.faces)}
        info = pyspiel.GameInfo(
            num_distinct_actions=self.index.size,
            max_chance_outcomes=max(len(self.faces), n),
            num_players=n,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=max_decisions(rules, n),
        )
        super().__init__(_GAME_TYPE, info, merged)

    def new_initial_state(self) -> "CaboState":
        """The game before its first chance node (the start player)."""
        return CaboState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> "CaboObserver":
        """The observer of information states (``perfect_recall``) and observations."""
        if params:
            raise ValueError(f"python_cabo's observer takes no parameters; got {params}")
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return CaboObserver(self, perfect_recall)


class _NeedChance(Exception):
    """Raised by :class:`_Tape` when the engine asks a random event no outcome was given for yet."""

    def __init__(self, kind: str, outcomes: list[tuple[int, float]]) -> None:
        super().__init__(kind)
        self.kind = kind
        self.outcomes = outcomes


class _Tape(Chance):
    """Answers the engine's random events with the outcomes given so far; past their end, asks (raises)."""

    def __init__(self, spiel: CaboGame, answers: list[int]) -> None:
        self.spiel = spiel
        self.answers = answers
        self.used = 0
        self.kinds: list[str] = []  # the kind of each answer given

    def _next(self, kind: str, outcomes: Any) -> int:
        if self.used < len(self.answers):
            self.used += 1
            self.kinds.append(kind)
            return self.answers[self.used - 1]
        raise _NeedChance(kind, outcomes())

    def start_player(self, game: Game, n_players: int) -> int:
        return self._next("start", lambda: [(s, 1.0 / n_players) for s in range(n_players)])

    def card(self, game: Game, deck: tuple[Card, ...]) -> Card:
        at = self.spiel.face_at

        def outcomes() -> list[tuple[int, float]]:
            counts: dict[int, int] = {}
            for c in deck:
                counts[at[c]] = counts.get(at[c], 0) + 1
            return [(i, counts[i] / len(deck)) for i in sorted(counts)]

        return self.spiel.faces[self._next("card", outcomes)]

    def snap_race(self, game: Game, claimers: tuple[int, ...]) -> int:
        return self._next("race", lambda: [(s, 1.0 / len(claimers)) for s in claimers])

    def copy(self) -> "_Tape":
        new = copy.copy(self)
        new.answers = list(self.answers)
        new.kinds = list(self.kinds)
        return new


class _Play:
    """A state's engine side (no pyspiel): the engine game, and the step under way while chance decides.

    A step (the deal, or a player's action) runs on a copy of the game with a :class:`_Tape` of the
    chance outcomes given so far; when the engine asks one more, the step stops (the copy is
    dropped) and the state is a chance node; each outcome reruns the step with one more answer.
    """

    def __init__(self, spiel: CaboGame) -> None:
        self.spiel = spiel
        self.game: Game | None = None  # None until the first deal is done
        self.step: tuple[int, Action] | None = None  # the player's action under way (None: the deal)
        self.answers: list[int] = []
        self.need: _NeedChance | None = None
        self.kinds: list[str] = []  # the kind of each answer of the step under way
        self.history: list[int] = []
        # (seat, round) -> the events of rounds before it, as that seat saw them (JSON): the same for every
        # later state of this history, so made once
        self.earlier: dict[tuple[int, int], str] = {}
        self._run()

    def _run(self) -> None:
        spiel = self.spiel
        tape = _Tape(spiel, self.answers)
        try:
            if self.game is None:
                game = Game(spiel.rules, seed=0, n_players=spiel.n, memory=spiel.memory, chance=tape)
            else:
                game = self.game.clone()
                game.chance = tape
                seat, action = self.step  # type: ignore[misc]
                game.apply_unchecked(action, seat)
        except _NeedChance as need:
            self.need, self.kinds = need, tape.kinds
            return
        self.game, self.step, self.answers, self.need = game, None, [], None

    def apply(self, action: int) -> None:
        if self.need is not None:
            if action not in dict(self.need.outcomes):
                raise ValueError(f"python_cabo: {action} is not an outcome of this chance node ({self.need.kind})")
            self.answers.append(action)
        else:
            game = self.game
            assert game is not None
            if game.is_over:
                raise ValueError("python_cabo: the game is over")
            seat = game.to_move[0]
            self.step = (seat, self.spiel.index.action(action, seat, game.legal_actions(seat)))
            self.answers = []
        self.history.append(action)
        self._run()

    def __deepcopy__(self, memo: dict[int, Any]) -> "_Play":
        new = _Play.__new__(_Play)
        new.__dict__.update(self.__dict__)
        new.game = None if self.game is None else self.game.clone()
        new.answers = list(self.answers)
        new.kinds = list(self.kinds)
        new.history = list(self.history)
        new.earlier = dict(self.earlier)
        return new

    def __getstate__(self) -> dict[str, Any]:
        # Serialized as what made it (the game's parameters and its history): replayed on loading.
        return {"params": self.spiel.get_parameters(), "history": self.history}

    def earlier_rounds(self, seat: int) -> str:
        """The events of the rounds before this one as ``seat`` saw them (JSON, one list per round)."""
        game = self.game
        assert game is not None
        key = (seat, game.round)
        text = self.earlier.get(key)
        if text is None:
            rounds: list[list[Any]] = []
            for event in game.events_seen(seat):
                if event.kind == EventKind.ROUND or not rounds:
                    rounds.append([])
                rounds[-1].append(event.to_list())
            text = self.earlier[key] = json.dumps(rounds[:-1], separators=(",", ":"))
        return text

    def chosen(self) -> str:
        """The chance outcomes chosen so far in the step under way, in words."""
        words = {"card": lambda a: self.spiel.faces[a].text, "start": lambda a: f"seat {a} starts",
                 "race": lambda a: f"seat {a} wins the race"}
        return ", ".join(words[kind](a) for kind, a in zip(self.kinds, self.answers))

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(CaboGame(state["params"]))  # type: ignore[misc]
        for action in state["history"]:
            self.apply(action)


class CaboState(pyspiel.State):
    """A state of ``python_cabo``: the engine's game between two steps, or a chance node within one.

    ``state.play.game`` is the engine's :class:`~cabo_kit.Game` (every face: for tests, replays and
    spectators, never for a player), ``state.play.need.kind`` at a chance node says which event it
    is (``"start"``, ``"card"``, ``"race"``), and :meth:`observation_of` gives a seat's observation.
    """

    def __init__(self, game: CaboGame) -> None:
        super().__init__(game)
        self.play = _Play(game)

    def current_player(self) -> int:
        play = self.play
        if play.need is not None:
            return int(pyspiel.PlayerId.CHANCE)
        assert play.game is not None
        if play.game.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        return play.game.to_move[0]

    def _legal_actions(self, player: int) -> list[int]:
        game = self.play.game
        if self.play.need is not None or game is None or game.is_over or game.to_move[0] != player:
            return []
        return self.play.spiel.index.legal_indices(game.legal_actions(player), player).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        need = self.play.need
        return [] if need is None else list(need.outcomes)

    def _apply_action(self, action: int) -> None:
        self.play.apply(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        spiel = self.play.spiel
        if player == pyspiel.PlayerId.CHANCE:
            kind = self.play.need.kind if self.play.need is not None else "chance"
            if kind == "card":
                probability = dict(self.chance_outcomes()).get(action, 0.0)
                return f"card {spiel.faces[action].text} (p={probability:.4g})"
            if kind == "start":
                return f"seat {action} starts"
            if kind == "race":
                return f"seat {action} wins the snap race"
            return f"chance outcome {action}"
        return str(spiel.index.action(action, player))

    def is_terminal(self) -> bool:
        game = self.play.game
        return self.play.need is None and game is not None and game.is_over

    def returns(self) -> list[float]:
        game = self.play.game
        if not self.is_terminal():
            return [0.0] * self.play.spiel.n
        assert game is not None
        winners = game.winners
        return [1.0 if s in winners else -1.0 for s in range(self.play.spiel.n)]

    def observation_of(self, player: int) -> Any:
        """Seat ``player``'s :class:`~cabo_kit.Observation` now (before the deal: ``None``)."""
        game = self.play.game
        return None if game is None else game.observation(player)

    def __str__(self) -> str:
        play = self.play
        game = play.game
        if game is None:
            return f"dealing (chance: {len(play.answers)} outcomes so far: {play.chosen()})"
        faces = game.know.faces
        hands = " | ".join(" ".join(faces[c].text for c in hand) for hand in game.know.hands)
        pile = faces[game.know.pile[-1]].text if game.know.pile else "-"
        drawn = "" if game.drawn is None else f" drawn {faces[game.drawn].text}"
        pending = ""
        if play.need is not None:
            step = "" if play.step is None else f"seat {play.step[0]} plays {play.step[1]}, "
            pending = f"; {step}chance ({play.need.kind}) after {len(play.answers)} outcomes: {play.chosen()}"
        return (f"round {game.round + 1} turn {game.turn} {game.phase} to move {game.to_move}; hands {hands}; "
                f"pile {pile} ({len(game.know.pile)}) deck {len(game.deck)}{drawn}; totals {game.totals}{pending}")


class CaboObserver:
    """OpenSpiel's observer for ``python_cabo``: the encoding and text of a seat's own observation."""

    def __init__(self, spiel: CaboGame, perfect_recall: bool) -> None:
        self.spiel = spiel
        self.perfect_recall = perfect_recall
        self.encoder = spiel.encoder
        self.tensor = np.zeros(self.encoder.size, np.float32)
        self.dict = {name: self.tensor[where] for name, where in self.encoder.layout.items()}

    def set_from(self, state: CaboState, player: int) -> None:
        """Write ``player``'s encoding into :attr:`tensor` (zeros before the deal)."""
        obs = state.observation_of(player)
        if obs is None:
            self.tensor.fill(0.0)
        else:
            self.encoder.encode(obs, out=self.tensor)

    def string_from(self, state: CaboState, player: int) -> str:
        """The observation's ``describe()``; the information state: its JSON (rules left out: they never change)."""
        obs = state.observation_of(player)
        if obs is None:
            return f"seat {player}: the cards are being dealt"
        if not self.perfect_recall:
            return str(obs.describe())
        data = obs.to_dict()
        del data["rules"]
        now = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return '{"earlier":' + state.play.earlier_rounds(player) + ',"now":' + now + "}"

