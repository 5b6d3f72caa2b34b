"""The rules of a game: one frozen object whose fields cover every difference between variants.

Three presets reproduce the published games (see ``docs/rules.md``): ``deluxe`` (the
official Bezier Games rules), ``rush`` and ``traveller``. Because every difference is a
field, variants mix freely:

>>> r = Rules.preset("deluxe").replace(hand_size=6, initial_peeks=3)
>>> r.hand_size, r.multi_exchange, r.snapping
(6, True, False)
>>> Rules.preset("poker")
Traceback (most recent call last):
...
cabo_kit.rules.RulesError: unknown preset 'poker': choose one of 'deluxe', 'rush', 'traveller'
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from .cards import Card, deluxe_deck, standard_deck

__all__ = ["Power", "Rules", "RulesError", "POWERS", "PRESETS"]


if sys.version_info >= (3, 11):
    from enum import StrEnum
else:  # pragma: no cover - Python 3.10
    from enum import Enum

    class StrEnum(str, Enum):
        """``enum.StrEnum`` of Python 3.11: members are strs that print as their text."""

        def __str__(self) -> str:
            return str.__str__(self)

        def __format__(self, spec: str) -> str:
            return str.__format__(self, spec)


class Power(StrEnum):
    """A card power: what a card drawn from the deck lets its drawer do (``Rules.power_of``).

    A power is a ``str``, so it compares, prints and stores as its text:

    >>> Rules.preset("rush").power_of(Card.parse("9H")) == "spy", Power("peek_swap")
    (True, <Power.PEEK_SWAP: 'peek_swap'>)
    """

    PEEK = "peek"  # look at one of your own face-down cards
    SPY = "spy"  # look at one face-down card of another player
    SWAP = "swap"  # swap one of your cards with another player's, neither looked at
    PEEK_SWAP = "peek_swap"  # peek, then you may swap (rush black king)
    SPY_SWAP = "spy_swap"  # spy, then you may swap exactly that card (traveller black king)


POWERS = tuple(Power)
"""The card powers: peek at an own card, spy on another's card, swap blind, and the two
black-king powers (peek-then-swap in rush, spy-then-swap in traveller)."""

_CHOICES: dict[str, tuple[Any, ...]] = {
    "deck": ("deluxe", "standard"),
    "cabo_timing": ("instead", "end_of_turn"),
    "power_timing": ("before_discard", "after_snap"),
    "snap_give": ("mandatory", "optional"),
    "deck_out": ("end_round", "reshuffle"),
    "empty_hand": ("end_now", "final_turns"),
    "game_end": ("over", "reaches"),
    "next_start": ("lowest", "winning_caller"),
}


class RulesError(ValueError):
    """A preset name, a rules field or a field's value is not valid."""


@dataclass(frozen=True)
class Rules:
    """Every rule of a Cabo game, one field each. Build from :meth:`preset`; change with :meth:`replace`.

    The defaults are the ``deluxe`` preset. Field by field (in brackets, the section of ``docs/rules.md``
    that explains it in words; the presets' table there has a column per preset):

    - ``name``: a label for reports (the preset's name; :meth:`replace` keeps it).
    - ``deck``: ``"deluxe"`` (values 0..13) or ``"standard"`` (52 cards, red king 0,
      black king 13); ``jokers``: jokers added to the standard deck (-1 each);
      ``double_deck_from``: from this many players two decks are shuffled together
      (``None``: never).
    - ``min_players``, ``max_players``: the allowed table sizes.
    - ``hand_size``: cards dealt to each player; ``initial_peeks``: cards each player
      looks at after the deal; ``peek_choice``: ``True`` lets the player choose them,
      ``False`` gives the last ``initial_peeks`` positions (the row nearest the player).
    - ``cabo_timing``: ``"instead"`` of a turn (deluxe, rush) or at the
      ``"end_of_turn"`` (traveller).
    - ``discard_draw_face_up``: a card taken from the discard pile lies face up;
      ``discard_draw_may_discard``: it may be discarded again instead of exchanged.
    - ``multi_exchange``: several cards of equal value may be exchanged at once
      ("A turn", step 5); ``multi_exchange_penalty_at``: a failed attempt with this many cards
      or more draws a penalty card.
    - ``powers``: ``(value, power)`` pairs for cards drawn from the deck; a power is one
      of :data:`POWERS`. ``power_timing``: ``"before_discard"`` or ``"after_snap"``.
    - ``snapping``: matching is on ("A turn", step 6); ``snap_give``: giving a card after
      snapping another player's card is ``"mandatory"`` or ``"optional"``;
      ``snap_penalty_own`` / ``snap_penalty_other``: penalty cards for a wrong snap.
    - ``deck_out``: an empty deck ``"end_round"`` or ``"reshuffle"`` the discard pile.
    - ``empty_hand``: an emptied hand ends the round ``"end_now"`` or gives everyone
      ``"final_turns"``.
    - Caller scoring ("The end of a round"): a winning caller scores ``caller_win_bonus`` plus
      their total if ``caller_win_keeps_total``; a beaten caller scores total +
      ``caller_loss_penalty``. ``caller_bonus_on_empty_hand``: whether the bonus holds
      in a round ended by an empty hand. ``ties_to_caller``: a tie counts as a win.
    - ``kamikaze``: {12, 12, 13, 13} scores 0 and everyone else 50;
      ``royal_roulette``: both black kings and two queens score -50.
    - ``reset_at_100``: a game total of exactly 100 becomes 50, once per player.
    - ``game_end``: the game ends when a total is ``"over"`` or ``"reaches"``
      ``end_score``; ``second_exact_100_ends``: the French option.
    - ``next_start``: the next round's start player is the ``"lowest"`` round score,
      or the ``"winning_caller"`` first and else the lowest.
    - ``max_turns``, ``max_rounds``: safety limits no rule text has. A round that
      reaches ``max_turns`` turns is scored as it stands (``ended_by="turn_limit"``);
      a game that reaches ``max_rounds`` rounds ends, lowest total winning.
    """

    name: str = "deluxe"
    deck: Literal["deluxe", "standard"] = "deluxe"
    jokers: int = 0
    double_deck_from: int | None = 6
    min_players: int = 2
    max_players: int = 6
    hand_size: int = 4
    initial_peeks: int = 2
    peek_choice: bool = True
    cabo_timing: Literal["instead", "end_of_turn"] = "instead"
    discard_draw_face_up: bool = True
    discard_draw_may_discard: bool = False
    multi_exchange: bool = True
    multi_exchange_penalty_at: int = 3
    powers: tuple[tuple[int, str], ...] = (
        (7, "peek"), (8, "peek"), (9, "spy"), (10, "spy"), (11, "swap"), (12, "swap"),
    )
    power_timing: Literal["before_discard", "after_snap"] = "before_discard"
    snapping: bool = False
    snap_give: Literal["mandatory", "optional"] = "mandatory"
    snap_penalty_own: int = 1
    snap_penalty_other: int = 1
    deck_out: Literal["end_round", "reshuffle"] = "end_round"
    empty_hand: Literal["end_now", "final_turns"] = "end_now"
    caller_win_keeps_total: bool = False
    caller_win_bonus: int = 0
    caller_loss_penalty: int = 10
    caller_bonus_on_empty_hand: bool = True
    ties_to_caller: bool = True
    kamikaze: bool = True
    royal_roulette: bool = False
    reset_at_100: bool = True
    game_end: Literal["over", "reaches"] = "over"
    end_score: int = 100
    second_exact_100_ends: bool = False
    next_start: Literal["lowest", "winning_caller"] = "lowest"
    max_turns: int = 300
    max_rounds: int = 60
    _power_table: tuple[Power | None, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name, choices in _CHOICES.items():
            if getattr(self, name) not in choices:
                options = ", ".join(repr(c) for c in choices)
                raise RulesError(f"rules field {name}={getattr(self, name)!r} is not valid: choose one of {options}")
        ints = {
            "jokers": 0, "min_players": 2, "max_players": 2, "hand_size": 1, "initial_peeks": 0,
            "multi_exchange_penalty_at": 2, "snap_penalty_own": 0, "snap_penalty_other": 0,
            "end_score": 1, "max_turns": 1, "max_rounds": 1,
        }
        for name, low in ints.items():
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise RulesError(f"rules field {name}={value!r} must be a whole number >= {low}")
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "bool" and not isinstance(value, bool):
                raise RulesError(f"rules field {f.name}={value!r} must be True or False")
        for name in ("caller_win_bonus", "caller_loss_penalty"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise RulesError(f"rules field {name}={value!r} must be a whole number (it may be negative)")
        ddf = self.double_deck_from
        if ddf is not None and (not isinstance(ddf, int) or isinstance(ddf, bool) or ddf < 2):
            raise RulesError(f"rules field double_deck_from={ddf!r} must be a number of players >= 2, or None")
        if not isinstance(self.name, str):
            raise RulesError(f"rules field name={self.name!r} must be a string")
        if self.max_players > 64:
            raise RulesError(f"max_players={self.max_players}: cabo-kit seats at most 64 players")
        if self.min_players > self.max_players:
            raise RulesError(f"min_players={self.min_players} is more than max_players={self.max_players}")
        if self.initial_peeks > self.hand_size:
            raise RulesError(f"initial_peeks={self.initial_peeks} is more than hand_size={self.hand_size}")
        if self.deck == "deluxe" and self.jokers:
            raise RulesError("jokers need deck='standard'")
        table: list[Power | None] = [None] * 16
        try:
            pairs = tuple((int(v), str(p)) for v, p in self.powers)
        except (TypeError, ValueError):
            raise RulesError(f"rules field powers={self.powers!r} must be (value, power) pairs, e.g. ((7, 'peek'),)") from None
        for value, power in pairs:
            if power not in POWERS:
                raise RulesError(f"power {power!r} is not known: choose one of {', '.join(repr(p.value) for p in POWERS)}")
            if not 0 <= value <= 13:
                raise RulesError(f"power for value {value}: values with powers are 0..13")
            table[value] = Power(power)
        object.__setattr__(self, "powers", pairs)
        object.__setattr__(self, "_power_table", tuple(table))
        if self.deck_size(self.max_players) < self.max_players * self.hand_size + 1:
            raise RulesError(
                f"{self.max_players} players with {self.hand_size} cards each need more cards than the deck has: "
                "lower max_players or hand_size"
            )

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> "Rules":
        """The rules of a named preset, ``"deluxe"``, ``"rush"`` or ``"traveller"``, with optional overrides.

        >>> Rules.preset("rush").caller_win_bonus
        -3
        >>> Rules.preset("traveller", hand_size=6, initial_peeks=3).hand_size
        6
        """
        try:
            base = PRESETS[name]
        except (KeyError, TypeError):
            options = ", ".join(repr(p) for p in PRESETS)
            raise RulesError(f"unknown preset {name!r}: choose one of {options}") from None
        return base.replace(**overrides) if overrides else base

    def replace(self, **changes: Any) -> "Rules":
        """A copy with some fields changed; an unknown field raises :class:`RulesError`.

        >>> Rules.preset("deluxe").replace(handsize=6)
        Traceback (most recent call last):
        ...
        cabo_kit.rules.RulesError: unknown rules field 'handsize' (did you mean 'hand_size'?)
        """
        names = [f.name for f in fields(self) if f.init]
        for key in changes:
            if key not in names:
                import difflib

                close = difflib.get_close_matches(key, names, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else f": fields are {', '.join(names)}"
                raise RulesError(f"unknown rules field {key!r}{hint}")
        return dataclasses.replace(self, **changes)

    def power_of(self, card: Card) -> Power | None:
        """The power of ``card`` when drawn from the deck, or ``None``.

        >>> Rules.preset("rush").power_of(Card.parse("KS")), Rules.preset("rush").power_of(Card.parse("KH"))
        (<Power.PEEK_SWAP: 'peek_swap'>, None)
        """
        value = card.value
        if value is None or value < 0:
            return None
        return self._power_table[value]

    def deck_size(self, n_players: int) -> int:
        """How many cards the deck has for ``n_players``."""
        copies = 2 if self.double_deck_from is not None and n_players >= self.double_deck_from else 1
        return 52 * copies + (self.jokers if self.deck == "standard" else 0)

    def full_deck(self, n_players: int) -> list[Card]:
        """The whole deck for ``n_players``, in a fixed (unshuffled) order.

        >>> len(Rules.preset("deluxe").full_deck(6)), len(Rules.preset("traveller").full_deck(4))
        (104, 54)
        """
        copies = 2 if self.double_deck_from is not None and n_players >= self.double_deck_from else 1
        if self.deck == "deluxe":
            return deluxe_deck(copies)
        return standard_deck(self.jokers, copies)

    def check_players(self, n_players: int) -> None:
        """Raise :class:`RulesError` unless ``n_players`` may play these rules."""
        if not isinstance(n_players, int) or not self.min_players <= n_players <= self.max_players:
            raise RulesError(
                f"{self.name} is for {self.min_players} to {self.max_players} players, not {n_players!r}"
                + (" (traveller allows 2 as a teaching option: .replace(min_players=2))" if self.name == "traveller" and n_players == 2 else "")
            )
        if self.deck_size(n_players) < n_players * self.hand_size + 1:
            raise RulesError(f"{n_players} players with {self.hand_size} cards each need more cards than the deck has")

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain data (JSON-ready); :meth:`from_dict` reverses it.

        >>> Rules.from_dict(Rules.preset("rush").to_dict()) == Rules.preset("rush")
        True
        """
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.init:
                value = getattr(self, f.name)
                out[f.name] = [list(p) for p in value] if f.name == "powers" else value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Rules":
        """Rules from :meth:`to_dict` output; unknown keys raise :class:`RulesError`."""
        data = dict(data)
        if "powers" in data:
            data["powers"] = tuple(tuple(p) for p in data["powers"])
        return cls().replace(**data)

    def differences(self, other: "Rules | None" = None) -> dict[str, Any]:
        """The fields where these rules differ from ``other`` (default: their own preset).

        >>> Rules.preset("deluxe").replace(hand_size=6).differences()
        {'hand_size': 6}
        """
        if other is None:
            other = PRESETS.get(self.name, Rules())
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.init and f.name != "name" and getattr(self, f.name) != getattr(other, f.name)
        }


_DELUXE = Rules()
_STANDARD_POWERS = ((7, "peek"), (8, "peek"), (9, "spy"), (10, "spy"), (11, "swap"), (12, "swap"))
PRESETS: dict[str, Rules] = {
    "deluxe": _DELUXE,
    "rush": Rules(
        name="rush",
        deck="standard",
        double_deck_from=None,
        discard_draw_face_up=False,
        multi_exchange=False,
        powers=_STANDARD_POWERS + ((13, "peek_swap"),),
        peek_choice=False,
        snapping=True,
        snap_give="mandatory",
        snap_penalty_own=1,
        snap_penalty_other=1,
        deck_out="reshuffle",
        empty_hand="end_now",
        caller_win_bonus=-3,
        caller_loss_penalty=5,
        kamikaze=False,
        reset_at_100=False,
        game_end="reaches",
        next_start="winning_caller",
    ),
    "traveller": Rules(
        name="traveller",
        deck="standard",
        jokers=2,
        double_deck_from=None,
        min_players=3,
        cabo_timing="end_of_turn",
        discard_draw_face_up=False,
        discard_draw_may_discard=True,
        multi_exchange=False,
        powers=_STANDARD_POWERS + ((13, "spy_swap"),),
        power_timing="after_snap",
        peek_choice=False,
        snapping=True,
        snap_give="optional",
        snap_penalty_own=1,
        snap_penalty_other=2,
        deck_out="reshuffle",
        empty_hand="final_turns",
        caller_win_keeps_total=True,
        caller_win_bonus=-5,
        caller_loss_penalty=0,
        caller_bonus_on_empty_hand=False,
        kamikaze=False,
        royal_roulette=True,
        reset_at_100=False,
        game_end="over",
    ),
}
