"""Actions: one small frozen class per kind of decision, each with a text form that parses back.

Seats and positions are absolute: seat ``s`` is the ``s``-th player at the table and a
position is an index into that player's hand at the moment of the decision.

=================  ==================  ================================================
action             text                meaning
=================  ==================  ================================================
``InitialPeek``    ``look 0,3``        deluxe set-up: the cards you look at
``DrawDeck``       ``deck``            draw the top card of the deck
``DrawDiscard``    ``take``            take the top card of the discard pile
``CallCabo``       ``cabo``            call Cabo (instead of a turn, or at its end)
``Discard``        ``discard``         put the drawn card on the discard pile
``Exchange``       ``exchange 1,2``    exchange the drawn card for own card(s)
``Place``          ``place 2``         where a card goes after a multi-exchange
``Peek``           ``peek 1``          look at one of your own face-down cards
``Spy``            ``spy 2:1``         look at seat 2's card at position 1
``Swap``           ``swap 0 2:1``      swap your card 0 with seat 2's card 1
``Snap``           ``snap 2:1``        claim seat 2's card 1 as a match
``Give``           ``give 3``          give your card 3 after snapping another's card
``Pass``           ``pass``            skip (a power, a snap, an optional give, Cabo)
=================  ==================  ================================================

>>> Action.parse("swap 0 2:1")
Swap(own=0, seat=2, position=1)
>>> str(Exchange((1, 2)))
'exchange 1,2'
>>> Action.parse(str(Spy(3, 0))) is Spy(3, 0)       # one object per action: == is `is`
True
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, repeat
from operator import index as _index
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from typing import Sequence

__all__ = [
    "Action", "ActionParseError", "IllegalActionError",
    "InitialPeek", "DrawDeck", "DrawDiscard", "CallCabo", "Discard", "Exchange", "Place",
    "Peek", "Spy", "Swap", "Snap", "Give", "Pass", "LegalActions", "is_legal",
]


class ActionParseError(ValueError):
    """An action's text does not parse."""


class IllegalActionError(ValueError):
    """An action is not legal now. The message names the phase and the seat, never a hidden card."""


class _OneOfEach(type):
    """The type of every action class: it keeps one object per value, as :class:`~cabo_kit.cards.Card` does.

    ``Exchange((1,))`` gives the same object every time, so two actions are equal exactly when
    they are the same object, and checking an answer against the legal actions is a C-speed
    scan of a tuple.
    """

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if kwargs:  # Swap(own=0, seat=2, position=1): the same key as Swap(0, 2, 1)
            names = cls.__match_args__[len(args):]  # type: ignore[attr-defined]
            unknown = set(kwargs) - set(names)
            if unknown:
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument {sorted(unknown)[0]!r}")
            args += tuple(kwargs[name] for name in names if name in kwargs)
        values = cls._values  # type: ignore[attr-defined]
        try:
            return values[args]
        except (KeyError, TypeError):  # a value not made yet, or a list where a tuple belongs
            pass
        # Made with plain ints (True, 1.0 or numpy's 1 would otherwise stand for 1 from now on), lists as tuples:
        # Exchange([0, 1]) is Exchange((0, 1)); Spy(1.5, 0) is a TypeError.
        args = tuple(tuple(map(_index, a)) if isinstance(a, (tuple, list)) else _index(a) for a in args)
        action = values.get(args)
        if action is None:
            action = values[args] = super().__call__(*args)
        return action


class Action(metaclass=_OneOfEach):
    """Base class of all actions. ``Action.parse(text)`` reads any action's text form.

    Actions are values that exist once each: ``Pass() is Pass()`` and
    ``Exchange((0, 2)) is Action.parse("exchange 0,2")``, so ``==`` is ``is``.
    """

    __slots__ = ()
    keyword: ClassVar[str] = ""
    _by_keyword: ClassVar[dict[str, type["Action"]]] = {}
    _values: ClassVar[dict[tuple[Any, ...], "Action"]] = {}  # each class's own: its one object per value
    __match_args__: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kw: object) -> None:
        super().__init_subclass__(**kw)
        cls._values = {}
        # Only a class that names its own keyword: a subclass inheriting one (a user's `class MyPass(Pass)`) would
        # otherwise take over Action.parse for the whole process.
        if cls.__dict__.get("keyword"):
            Action._by_keyword[cls.keyword] = cls

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Copies and pickles come back through the constructor: as the one object of their value.
        return (type(self), tuple(getattr(self, name) for name in self.__match_args__))

    @staticmethod
    def parse(text: str) -> "Action":
        """The action written as ``text`` (see the module docstring for the forms).

        >>> Action.parse("exchange 0,3"), Action.parse("PASS")
        (Exchange(positions=(0, 3)), Pass())
        >>> Action.parse("fly 3")
        Traceback (most recent call last):
        ...
        cabo_kit.actions.ActionParseError: 'fly 3' is not an action: it starts with one of look, deck, take, cabo, discard, exchange, place, peek, spy, swap, snap, give, pass
        """
        if isinstance(text, Action):
            return text
        if not isinstance(text, str):
            raise ActionParseError(f"{text!r} is not an action: give its text, e.g. 'deck' or 'swap 0 2:1'")
        parts = text.strip().lower().split()
        cls = Action._by_keyword.get(parts[0]) if parts else None
        if cls is None:
            words = ", ".join(Action._by_keyword)
            raise ActionParseError(f"{text!r} is not an action: it starts with one of {words}")
        try:
            return cls._from_args(parts[1:])
        except (ValueError, IndexError, TypeError):
            raise ActionParseError(f"{text!r} is not an action: write it as {cls.example!r}") from None

    example: ClassVar[str] = ""

    @classmethod
    def _from_args(cls, args: list[str]) -> "Action":
        if args:
            raise ValueError
        return cls()

    def __str__(self) -> str:
        return self.keyword


def _positions(text: str) -> tuple[int, ...]:
    out = tuple(int(p) for p in text.split(","))
    if any(p < 0 for p in out):
        raise ValueError
    return out


def _target(text: str) -> tuple[int, int]:
    seat, pos = text.split(":")
    s, p = int(seat), int(pos)
    if s < 0 or p < 0:
        raise ValueError
    return s, p


@dataclass(frozen=True, slots=True, eq=False)
class InitialPeek(Action):
    """Deluxe set-up: look at these of your own cards (as many as the rules' ``initial_peeks``)."""

    positions: tuple[int, ...]
    keyword: ClassVar[str] = "look"
    example: ClassVar[str] = "look 0,1"

    @classmethod
    def _from_args(cls, args: list[str]) -> "Action":
        (arg,) = args
        return cls(_positions(arg))

    def __str__(self) -> str:
        return "look " + ",".join(map(str, self.positions))


@dataclass(frozen=True, slots=True, eq=False)
class DrawDeck(Action):
    """Draw the top card of the deck."""

    keyword: ClassVar[str] = "deck"
    example: ClassVar[str] = "deck"

    def __str__(self) -> str:
        return "deck"


@dataclass(frozen=True, slots=True, eq=False)
class DrawDiscard(Action):
    """Take the top card of the discard pile."""

    keyword: ClassVar[str] = "take"
    example: ClassVar[str] = "take"

    def __str__(self) -> str:
        return "take"


@dataclass(frozen=True, slots=True, eq=False)
class CallCabo(Action):
    """Call Cabo: instead of a turn (deluxe, rush) or at the end of your turn (traveller)."""

    keyword: ClassVar[str] = "cabo"
    example: ClassVar[str] = "cabo"

    def __str__(self) -> str:
        return "cabo"


@dataclass(frozen=True, slots=True, eq=False)
class Discard(Action):
    """Put the drawn card face up on the discard pile (its power, if any, is offered next)."""

    keyword: ClassVar[str] = "discard"
    example: ClassVar[str] = "discard"

    def __str__(self) -> str:
        return "discard"


@dataclass(frozen=True, slots=True, eq=False)
class Exchange(Action):
    """Exchange the drawn card for your cards at ``positions`` (several only in deluxe)."""

    positions: tuple[int, ...]
    keyword: ClassVar[str] = "exchange"
    example: ClassVar[str] = "exchange 1  or  exchange 0,2"

    @classmethod
    def _from_args(cls, args: list[str]) -> "Action":
        (arg,) = args
        positions = _positions(arg)
        if len(set(positions)) != len(positions):
            raise ValueError
        return cls(tuple(sorted(positions)))

    def __str__(self) -> str:
        return "exchange " + ",".join(map(str, self.positions))


@dataclass(frozen=True, slots=True, eq=False)
class Place(Action):
    """After a multi-exchange: where the card goes.

    After a successful exchange ``index`` is one of the exchanged positions (the card
    takes its place). After a failed one, and for the penalty card, ``index`` is ``0``
    (the left end of the hand) or the hand's current length (the right end).
    """

    index: int
    keyword: ClassVar[str] = "place"
    example: ClassVar[str] = "place 0"

    @classmethod
    def _from_args(cls, args: list[str]) -> "Action":
        (arg,) = args
        value = int(arg)
        if value < 0:
            raise ValueError
        return cls(value)

    def __str__(self) -> str:
        return f"place {self.index}"


@dataclass(frozen=True, slots=True, eq=False)
class Peek(Action):
    """Look at your own face-down card at ``position``."""

    position: int
    keyword: ClassVar[str] = "peek"
    example: ClassVar[str] = "peek 1"

    @classmethod
    def _from_args(cls, args: list[str]) -> "Action":
        (arg,) = args
        value = int(arg)
        if value < 0:
            raise ValueError
        return cls(value)

    def __str__(self) -> str:
        return f"peek {self.position}"


@dataclass(frozen=True, slots=True, eq=False)
class Spy(Action):
    """Look at the face-down card of ``seat`` at ``position``."""

    seat: int
    position: int
    keyword: ClassVar[str] = "spy"
    example: ClassVar[str] = "spy 2:1"

    @classmethod
    def _from_args(cls, args: list[str]) -> "Action":
        (arg,) = args
        return cls(*_target(arg))

    def __str__(self) -> str:
        return f"spy {self.seat}:{self.position}"


@dataclass(frozen=True, slots=True, eq=False)
class Swap(Action):
    """Swap your card at ``own`` with the card of ``seat`` at ``position``, neither looked at."""

    own: int
    seat: int
    position: int
    keyword: ClassVar[str] = "swap"
    example: ClassVar[str] = "swap 0 2:1"

    @classmethod
    def _from_args(cls, args: list[str]) -> "Action":
        own, target = args
        value = int(own)
        if value < 0:
            raise ValueError
        return cls(value, *_target(target))

    def __str__(self) -> str:
        return f"swap {self.own} {self.seat}:{self.position}"


@dataclass(frozen=True, slots=True, eq=False)
class Snap(Action):
    """In a snap window: claim the face-down card of ``seat`` at ``position`` as a match."""

    seat: int
    position: int
    keyword: ClassVar[str] = "snap"
    example: ClassVar[str] = "snap 2:1"

    @classmethod
    def _from_args(cls, args: list[str]) -> "Action":
        (arg,) = args
        return cls(*_target(arg))

    def __str__(self) -> str:
        return f"snap {self.seat}:{self.position}"


@dataclass(frozen=True, slots=True, eq=False)
class Give(Action):
    """After snapping another player's card: give them your card at ``position``."""

    position: int
    keyword: ClassVar[str] = "give"
    example: ClassVar[str] = "give 3"

    @classmethod
    def _from_args(cls, args: list[str]) -> "Action":
        (arg,) = args
        value = int(arg)
        if value < 0:
            raise ValueError
        return cls(value)

    def __str__(self) -> str:
        return f"give {self.position}"


@dataclass(frozen=True, slots=True, eq=False)
class Pass(Action):
    """Skip: a power, a snap window, an optional give, or (traveller) calling Cabo at the end of a turn."""

    keyword: ClassVar[str] = "pass"
    example: ClassVar[str] = "pass"

    def __str__(self) -> str:
        return "pass"


_INTS = repeat(int)  # map(isinstance, items, _INTS): isinstance(item, int) for each item


class LegalActions(tuple):
    """The legal actions when several-card exchanges are allowed: exact ``len`` and ``in``, enumerated lazily.

    The first items are the ordinary actions (a plain tuple of them); after them come all
    :class:`Exchange` actions of two or more of the ``hand_size`` positions, by size,
    then in lexicographic order. Their number grows as ``2**hand_size``, so they are
    never built all at once.

    >>> legal = LegalActions((Discard(), Exchange((0,)), Exchange((1,)), Exchange((2,))), hand_size=3)
    >>> len(legal), Exchange((0, 2)) in legal, legal[4], legal[-1]
    (8, True, Exchange(positions=(0, 1)), Exchange(positions=(0, 1, 2)))
    """

    __slots__ = ()
    hand_size: ClassVar[int] = 0
    _multi: ClassVar[int] = 0  # how many multi-exchanges follow the ordinary actions: 2**hand_size - hand_size - 1
    _listed: ClassVar[tuple["Exchange", ...]] = ()  # those multi-exchanges, up to _LISTED_MULTI cards (else none)
    _sized: ClassVar[dict[int, type["LegalActions"]]] = {}

    def __new__(cls, fixed: tuple[Action, ...], hand_size: int) -> "LegalActions":
        # The hand size lives on a class of its own (one per size): a tuple can carry no attribute without an
        # instance dict, and the engine shares these objects, so there must be nothing in them to change.
        if type(hand_size) is not int:  # (11.0 == 11: a float would take the int's place in _sized)
            hand_size = _index(hand_size)
        sized = LegalActions._sized.get(hand_size)
        if sized is None:
            sized = LegalActions._sized[hand_size] = type("LegalActions", (LegalActions,), {
                "__slots__": (), "hand_size": hand_size, "_multi": 2**hand_size - hand_size - 1 if hand_size >= 2 else 0,
                "_listed": _multi_exchanges(hand_size) if 2 <= hand_size <= _LISTED_MULTI else (), "__module__": __name__, "__doc__": LegalActions.__doc__})
        return super().__new__(sized, fixed)

    def __setattr__(self, name: str, value: object) -> None:
        # The engine shares these between games: nobody may change one.
        raise AttributeError(f"LegalActions is immutable: cannot set {name!r}")

    def __reduce__(self) -> tuple[object, tuple[tuple[Action, ...], int]]:
        return (LegalActions, (tuple(tuple.__iter__(self)), self.hand_size))

    def _fixed_len(self) -> int:
        return tuple.__len__(self)

    def __len__(self) -> int:
        return tuple.__len__(self) + self._multi

    def __contains__(self, action: object) -> bool:
        # A multi-exchange as Exchange(...) made it (one object per value: found by identity, in C), or any other
        # with the right positions
        if type(action) is Exchange and _in_tuple(self._listed, action):
            return True
        if isinstance(action, Exchange) and len(action.positions) >= 2:
            pos = action.positions
            # Every position an int (tested in C: no generator), in increasing order, the first and last in the hand
            if (all(map(isinstance, pos, _INTS)) and list(pos) == sorted(set(pos))
                    and 0 <= pos[0] and pos[-1] < self.hand_size):
                return True
        return tuple.__contains__(self, action)

    def __iter__(self):
        from itertools import combinations

        yield from tuple.__iter__(self)
        for k in range(2, self.hand_size + 1):
            for combo in combinations(range(self.hand_size), k):
                yield Exchange(combo)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return tuple(self)[index]
        fixed = tuple.__len__(self)
        n = fixed + self._multi  # len(self), without its call
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError("legal action index out of range")
        if index < fixed:
            return tuple.__getitem__(self, index)
        if self.hand_size <= _LISTED_MULTI:
            return _multi_exchanges(self.hand_size)[index - fixed]
        return Exchange(_unrank_subset(self.hand_size, index - fixed))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LegalActions):
            return self.hand_size == other.hand_size and tuple.__eq__(self, other)
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = tuple.__hash__

    def __repr__(self) -> str:
        return f"LegalActions({tuple.__repr__(self)}, hand_size={self.hand_size})"

    def count(self, value: object) -> int:
        return 1 if value in self else 0

    def index(self, value: object, *args: object) -> int:
        for i, item in enumerate(self):
            if item == value:
                return i
        raise ValueError(f"{value!r} is not a legal action")


# ---------------------------------------------------------------- the engine's tables
# The legal actions the engine hands out, made once: looking an action up in a list is cheaper
# than calling its class (which finds the one object of that value in a dict).

_DRAW_DECK = DrawDeck()
_DRAW_DISCARD = DrawDiscard()
_CABO = CallCabo()
_DISCARD = Discard()
_PASS = Pass()
_MAXPOS = 48
_EX1 = [Exchange((p,)) for p in range(_MAXPOS)]
_PEEK = [Peek(p) for p in range(_MAXPOS)]
_GIVE = [Give(p) for p in range(_MAXPOS)]
_PLACE = [Place(p) for p in range(_MAXPOS + 2)]
# The "drawn" phase's single exchanges for a hand of k cards, with and without Discard first.
_EX1_ALL = [tuple(_EX1[:k]) for k in range(_MAXPOS)]
_DISCARD_EX1_ALL = [(_DISCARD,) + t for t in _EX1_ALL]
_SPY: dict[tuple[int, int], Spy] = {}
_SNAP: dict[tuple[int, int], Snap] = {}
_SWAP: dict[tuple[int, int, int], Swap] = {}
_LOOKS: dict[tuple[int, int], tuple[Action, ...]] = {}
_MULTI: dict[tuple[bool, int], LegalActions] = {}
# Every legal blind swap for (the swapper, the table's hand lengths).
_SWAPS: dict[tuple[int, tuple[int, ...]], tuple[Action, ...]] = {}


# The "choose" phase's legal actions, by [may draw from the deck][may take from the pile][may call Cabo].
_CHOOSE = [[[tuple(a for a, ok in ((_DRAW_DECK, deck), (_DRAW_DISCARD, take), (_CABO, cabo)) if ok)
             for cabo in (False, True)] for take in (False, True)] for deck in (False, True)]


def _ex1(p: int) -> Exchange:
    return _EX1[p] if 0 <= p < _MAXPOS else Exchange((p,))  # a negative p must not index from the end


def _peek(p: int) -> Peek:
    return _PEEK[p] if 0 <= p < _MAXPOS else Peek(p)


def _give(p: int) -> Give:
    return _GIVE[p] if 0 <= p < _MAXPOS else Give(p)


def _place(p: int) -> Place:
    return _PLACE[p] if 0 <= p < len(_PLACE) else Place(p)


def _spy(s: int, p: int) -> Spy:
    a = _SPY.get((s, p))
    if a is None:
        a = _SPY[(s, p)] = Spy(s, p)
    return a


def _snap(s: int, p: int) -> Snap:
    a = _SNAP.get((s, p))
    if a is None:
        a = _SNAP[(s, p)] = Snap(s, p)
    return a


def _swap(o: int, s: int, p: int) -> Swap:
    a = _SWAP.get((o, s, p))
    if a is None:
        a = _SWAP[(o, s, p)] = Swap(o, s, p)
    return a



_in_tuple = tuple.__contains__
# The action classes themselves: an answer of any other type is never legal, whatever its __eq__ says
# (`in` asks an unknown object's __eq__ when identity fails; one whose __eq__ always says True is not an action).
_ACTION_TYPES: frozenset[type] = frozenset(Action._by_keyword.values())


def is_legal(action: object, legal: "Sequence[Action]") -> bool:
    """``action in legal``, at C speed for the usual case, and only for an action.

    Actions exist once each, so a tuple of them is scanned by identity in C; a
    :class:`LegalActions` is tried that way first (its ordinary actions), then by its own
    ``in`` (the multi-exchanges it never builds). An object whose type is not one of the
    thirteen action classes is never legal, even if its ``__eq__`` says it equals one.

    >>> legal = (Discard(), Exchange((0,)), Exchange((1,)))
    >>> is_legal(legal[2], legal), is_legal(Exchange((1,)), legal), is_legal(Pass(), legal)
    (True, True, False)
    >>> class Anything:
    ...     def __eq__(self, other): return True
    >>> is_legal(Anything(), legal)
    False
    """
    # The type first: `in` would ask the answer's own __eq__, which may raise (or say anything).
    if type(action) not in _ACTION_TYPES:
        return False
    if isinstance(legal, tuple):
        return _in_tuple(legal, action) or (type(legal) is not tuple and action in legal)
    return action in legal


_LISTED_MULTI = 10  # up to this hand size, all multi-exchanges are made once (2**10 of them at most)
_MULTI_BY_SIZE: dict[int, tuple[Exchange, ...]] = {}


def _multi_exchanges(m: int) -> tuple[Exchange, ...]:
    """Every exchange of two or more of ``m`` positions, in :class:`LegalActions` order."""
    found = _MULTI_BY_SIZE.get(m)
    if found is None:
        found = _MULTI_BY_SIZE[m] = tuple(Exchange(c) for k in range(2, m + 1) for c in combinations(range(m), k))
    return found


def _unrank_subset(m: int, rank: int) -> tuple[int, ...]:
    """The ``rank``-th subset of size >= 2 of ``range(m)``: by size, then lexicographic."""
    from math import comb

    k = 2
    while rank >= comb(m, k):
        rank -= comb(m, k)
        k += 1
    out: list[int] = []
    start = 0
    while k:
        for x in range(start, m):
            c = comb(m - x - 1, k - 1)
            if rank < c:
                out.append(x)
                start = x + 1
                k -= 1
                break
            rank -= c
    return tuple(out)
