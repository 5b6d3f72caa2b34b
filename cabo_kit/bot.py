"""Bots: the base class learners subclass, and a friendlier one with a method per decision.

A bot receives an :class:`~cabo_kit.observation.Observation` and the legal actions and
returns one of them. It never touches the game itself. (The reference bots are in :mod:`cabo_kit.bots`;
the top-level ``bots/`` folder holds them as one-file submissions.)

>>> import cabo_kit as ck
>>> class Cautious(ck.Bot):
...     def choose(self, observation, legal_actions):
...         return legal_actions[0]
>>> record = ck.play_game([Cautious(), ck.bots.RandomBot()], ck.Rules.preset("deluxe"), seed=1)
>>> len(record.rounds) >= 1
True
"""

from __future__ import annotations

import os
import random
from abc import ABC, abstractmethod
from operator import index as _index
from typing import TYPE_CHECKING, Any, Sequence

from .actions import (
    Action, CallCabo, Discard, DrawDeck, DrawDiscard, Exchange, Give, InitialPeek, Pass, Peek, Place, Snap, Spy, Swap,
    is_legal,
)
from .cards import Card
from .explain import why_illegal  # imported here: an isolated bot's process may import nothing new once it runs
from .observation import Observation, Phase
from .rules import Power

if TYPE_CHECKING:
    from .game import RoundResult
    from .rules import Rules

__all__ = ["Bot", "SimpleBot", "BotError"]

BOT_HOOKS = ("choose", "on_game_start", "on_round_start", "on_round_end", "on_game_end")
"""The methods a game calls on a :class:`Bot`; a tournament fault's reason starts with the one that failed (``choose()``)."""

_DRAW = {"deck": DrawDeck(), "discard": DrawDiscard(), "cabo": CallCabo()}
_DECK = _DRAW["deck"]
_EXCHANGE_ONE = tuple(Exchange((p,)) for p in range(16))  # keep()'s usual answers (Exchange() looks its value up)
_N_ONE = len(_EXCHANGE_ONE)
_DISCARD = Discard()
_PASS = Pass()  # (an action class's call looks its one object up: made once here, as the answers above)
_index_in_tuple: Any = tuple.index  # tuple's own scan, a LegalActions' too (its `in` is a Python method)
_LOOK, _CHOOSE, _DRAWN, _SNAP, _POWER = Phase.LOOK, Phase.CHOOSE, Phase.DRAWN, Phase.SNAP, Phase.POWER
_SWAP, _PLACE, _GIVE, _END_TURN = Phase.SWAP, Phase.PLACE, Phase.GIVE, Phase.END_TURN
_PEEKS, _SPIES = (Power.PEEK, Power.PEEK_SWAP), (Power.SPY, Power.SPY_SWAP)  # (bound once: reading a member is slow)


def _shown(value: Any) -> str:
    """An answer as a message shows it: its value and its type, e.g. ``True (bool)``."""
    return f"{value!r:.60} ({type(value).__name__})"


def _guess(card: Card) -> int:
    """A card's value, or 7 (a little over the deck's mean) when unseen."""
    return 7 if card.value is None else card.value


def defined_at(fn: Any) -> str | None:
    """Where a function is defined, as a learner finds it: ``mybot.py line 12``, or ``line 3 of its cell`` in a
    notebook; ``None`` when it has no source (a builtin).

    >>> defined_at(defined_at).split(" line ")[0]
    'bot.py'
    """
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    file = code.co_filename
    if file.startswith("<") or "ipykernel_" in file:  # a notebook cell or an interactive prompt
        return f"line {code.co_firstlineno} of its cell"
    return f"{os.path.basename(file)} line {code.co_firstlineno}"


class _SeededWhenRead:
    """``Bot.random`` until it is set: a ``random.Random(0)`` made on first read and kept on the bot.

    Seeding a generator costs about as much as a game turn, and a game seeds every bot's anew
    (``bot.random = bot_random(seed, seat)``), so a bot does not seed one it will never read.
    """

    def __get__(self, bot: Any, owner: Any = None) -> "random.Random":
        if bot is None:
            return self  # type: ignore[return-value]  # (read off the class: the descriptor itself)
        rng = bot.__dict__["random"] = random.Random(0)
        return rng


class BotError(ValueError):
    """A bot answered something that is not an action it may take."""


class Bot(ABC):
    """Base class of every bot: implement :meth:`choose`.

    ``self.random`` is a :class:`random.Random` seeded by the game (from the game's seed
    and your seat), so a bot that draws its randomness only from it plays the same way
    for the same seed. The ``on_...`` hooks do nothing unless you override them.
    """

    #: The name shown in results (default: the class name).
    name: str = ""

    random = _SeededWhenRead()

    def __init__(self) -> None:
        """Nothing to set up: ``self.random`` is made on first read, unless a game has set it first."""

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if not cls.__dict__.get("name"):
            cls.name = cls.__name__

    @abstractmethod
    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Return one of ``legal_actions`` (an :class:`~cabo_kit.actions.Action` or its text)."""

    def on_game_start(self, seat: int, n_players: int, rules: "Rules") -> None:
        """Called once before a game, with your seat."""

    def on_round_start(self, observation: Observation) -> None:
        """Called at the start of every round (after the deal, before your first decision)."""

    def on_round_end(self, result: "RoundResult") -> None:
        """Called after every round with its :class:`~cabo_kit.game.RoundResult` (all hands shown; losing snap claims left out)."""

    def on_game_end(self, totals: list[int], winners: list[int]) -> None:
        """Called once after the game."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class SimpleBot(Bot):
    """A bot with one method per kind of decision, each with a sensible default. Override what you like.

    Answers are plain values (positions, seats, ``True``/``False``); :meth:`choose` turns
    them into actions. Positions are indices into a hand, seats are absolute.

    ========================  =======================================  ==========================
    method                    answer                                   default
    ========================  =======================================  ==========================
    ``initial_peek(obs)``     positions to look at                     the first ones
    ``draw(obs)``             ``"deck"``, ``"discard"`` or ``"cabo"``  discard pile if its top is
                                                                       at most 3, else the deck
    ``keep(obs, card)``       position to exchange, or ``None`` to     replace your highest known
                              discard it (a card you took from the     card if ``card`` is lower
                              discard pile must be kept, unless the
                              rules' ``discard_draw_may_discard``)
    ``peek(obs)``             own position, or ``None`` to skip        first unseen own card
    ``spy(obs)``              ``(seat, position)`` or ``None``         first unseen card of the
                                                                       next player
    ``swap(obs)``             ``(own, seat, position)`` or ``None``    skip
    ``snap(obs)``             ``(seat, position)`` or ``None``         a known card matching the
                                                                       top, else none
    ``give(obs)``             own position (or ``None`` if optional)   your highest known card
    ``call_cabo(obs)``        ``True`` to call (traveller: at turn end) known total at most 5 with
                                                                       no unknown card
    ``place(obs, options)``   one of ``options``                       the first
    ========================  =======================================  ==========================

    >>> import cabo_kit as ck
    >>> class LowKeeper(ck.SimpleBot):
    ...     def keep(self, obs, card):
    ...         return 0 if card.value <= 4 else None
    >>> ck.play_game([LowKeeper(), ck.SimpleBot()], ck.Rules.preset("rush"), seed=2).winners in ([0], [1], [0, 1])
    True
    """

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        obs = observation
        phase = obs.phase
        if phase.__class__ is not Phase:  # (the engine's observations hold a Phase: compared by identity below)
            phase = Phase(phase) if phase in Phase._value2member_map_ else phase
        # Each branch makes the action and names the method it came from; the check at the end is shared.
        action: Action
        if phase is _CHOOSE:
            answer = self.draw(obs)
            found = _DRAW.get(answer) if isinstance(answer, str) else None
            if found is None:
                raise BotError(f"draw() returned {_shown(answer)}: return 'deck', 'discard' or 'cabo'"
                               + self._where("draw"))
            if found is _DECK:
                if found in legal_actions:  # the usual answer, known legal (a tuple at this phase: scanned in C)
                    return found
                # An empty deck with nothing to reshuffle (the pile holds only its top card): take the top.
                found = _DRAW["discard"]
            action, method = found, "draw"
        elif phase is _DRAWN:
            pos = self.keep(obs, obs.drawn)
            method = "keep"
            if pos is None:
                if obs.drawn_from == "discard" and not is_legal(_DISCARD, legal_actions):
                    raise BotError(
                        "keep() returned None for a card taken from the discard pile, but these rules say such a "
                        "card must be kept (discard_draw_may_discard=False): return a position to exchange it for"
                        + self._where("keep"))
                action = _DISCARD
            elif pos.__class__ is int and 0 <= pos < _N_ONE:  # one card: the action made once
                action = _EXCHANGE_ONE[pos]
            elif isinstance(pos, (tuple, list)):
                action = Exchange(tuple(sorted(self._positions(pos, "keep", "a position (int), a list of them, or None"))))
            else:
                action = Exchange((self._position(pos, "keep", "a position (int) or None"),))
        elif phase is _LOOK:
            looks = self._positions(self.initial_peek(obs), "initial_peek", "a list of positions (ints)")
            action, method = InitialPeek(tuple(sorted(looks))), "initial_peek"
        elif phase is _SNAP:
            t = self.snap(obs)
            action, method = _PASS if t is None else Snap(*self._target(t, "snap", 2)), "snap"
        elif phase is _POWER and obs.power in _PEEKS:
            p = self.peek(obs)
            action, method = _PASS if p is None else Peek(self._position(p, "peek", "a position (int) or None")), "peek"
        elif phase is _POWER and obs.power in _SPIES:
            t = self.spy(obs)
            action, method = _PASS if t is None else Spy(*self._target(t, "spy", 2)), "spy"
        elif phase is _POWER or phase is _SWAP:
            sw = self.swap(obs)
            action, method = _PASS if sw is None else Swap(*self._target(sw, "swap", 3)), "swap"
        elif phase is _PLACE:
            options = [a.index for a in legal_actions if isinstance(a, Place)]
            action, method = Place(self._position(self.place(obs, options), "place", "one of the options (an int)")), "place"
        elif phase is _GIVE:
            p = self.give(obs)
            action, method = _PASS if p is None else Give(self._position(p, "give", "a position (int) or None")), "give"
        elif phase is _END_TURN:
            action, method = _DRAW["cabo"] if self.call_cabo(obs) else _PASS, "call_cabo"
        else:  # pragma: no cover
            raise BotError(f"no decision is expected in phase '{phase}'")
        # The usual answer, found in the legal tuple by a C-speed scan (is_legal's first step), is returned here
        # without a call: most decisions end here. Anything else is _checked. (tuple.index scans as `in` does,
        # but is called without the two argument tuples that calling tuple.__contains__ costs.)
        if isinstance(legal_actions, tuple):
            try:
                _index_in_tuple(legal_actions, action)
                return action
            except ValueError:
                pass
        return self._checked(action, legal_actions, method, obs)

    def _checked(self, action: Action, legal: Sequence[Action], method: str, obs: Observation) -> Action:
        """``action`` if it is legal; else a BotError naming ``method`` (the learner's own, with its file and line)."""
        if not is_legal(action, legal):
            raise BotError(f"{method}() led to {action}, which is not legal now: {why_illegal(obs, legal, action)}"
                           f"{self._where(method)}")
        return action

    def _where(self, method: str) -> str:
        """Where the learner's own ``method`` is (file and line), or ``""`` for SimpleBot's default."""
        fn = getattr(type(self), method, None)
        where = None if fn is getattr(SimpleBot, method, None) else defined_at(fn)
        return f" [your {method}() is at {where}]" if where else ""

    def _position(self, value: Any, method: str, expected: str) -> int:
        """``value`` as a position: an int (numpy's integers too); a bool, a float or anything else is a BotError."""
        if value.__class__ is int:
            return value
        if not isinstance(value, (bool, float)) and "bool" not in type(value).__name__:
            try:
                return _index(value)
            except TypeError:
                pass
        raise BotError(f"{method}() returned {_shown(value)}: return {expected}{self._where(method)}")

    def _positions(self, values: Any, method: str, expected: str) -> list[int]:
        try:
            items = list(values)
        except TypeError:
            raise BotError(f"{method}() returned {_shown(values)}: return {expected}{self._where(method)}") from None
        out = []
        for v in items:
            try:
                out.append(v if v.__class__ is int else self._position(v, method, expected))
            except BotError:
                raise BotError(f"{method}() returned {_shown(values)}, which holds {_shown(v)}: return {expected}"
                               f"{self._where(method)}") from None
        return out

    def _target(self, value: Any, method: str, size: int) -> tuple[int, ...]:
        expected = ("(seat, position) as two ints, or None" if size == 2
                    else "(own position, seat, position) as three ints, or None")
        if value.__class__ is tuple and len(value) == size and all(v.__class__ is int for v in value):
            return value
        if not isinstance(value, (tuple, list)) or len(value) != size:
            raise BotError(f"{method}() returned {_shown(value)}: return {expected}{self._where(method)}")
        return tuple(self._positions(value, method, expected))

    # ---- defaults --------------------------------------------------------------

    def initial_peek(self, obs: Observation) -> Sequence[int]:
        return list(range(obs.rules.initial_peeks))

    def draw(self, obs: Observation) -> str:
        if obs.caller is None and obs.rules.cabo_timing == "instead" and self.call_cabo(obs):
            return "cabo"
        top = obs.top
        if top is not None and top.value is not None and top.value <= 3 and obs.my_hand:
            return "discard"
        return "deck"

    def keep(self, obs: Observation, card: Any) -> int | None:
        hand = obs.my_hand
        if not hand:
            return None
        worst = max(range(len(hand)), key=lambda p: _guess(hand[p]))
        worst_value = _guess(hand[worst])
        must_keep = obs.drawn_from == "discard" and not obs.rules.discard_draw_may_discard
        if card.value < worst_value or must_keep:
            return worst
        return None

    def peek(self, obs: Observation) -> int | None:
        for p, c in enumerate(obs.my_hand):
            if not c.known and not obs.face_up[obs.seat][p]:
                return p
        return None

    def spy(self, obs: Observation) -> tuple[int, int] | None:
        for s in obs.opponents:
            for p, c in enumerate(obs.hands[s]):
                if not c.known and not obs.face_up[s][p]:
                    return (s, p)
        return None

    def swap(self, obs: Observation) -> tuple[int, int, int] | None:
        return None

    def snap(self, obs: Observation) -> tuple[int, int] | None:
        top = obs.top
        if top is None:
            return None
        for s, hand in enumerate(obs.hands):
            for p, c in enumerate(hand):
                if c.known and c.value == top.value and not obs.face_up[s][p]:
                    return (s, p)
        return None

    def give(self, obs: Observation) -> int | None:
        hand = obs.my_hand
        return max(range(len(hand)), key=lambda p: _guess(hand[p]))

    def call_cabo(self, obs: Observation) -> bool:
        total, unknown = obs.known_total()
        return unknown == 0 and total <= 5

    def place(self, obs: Observation, options: list[int]) -> int:
        return options[0]
