"""What one player may know: the events they saw and the observation a bot receives.

An :class:`Observation` is an immutable snapshot built for one seat. It holds plain
values only (cards, numbers, tuples, the frozen :class:`~cabo_kit.rules.Rules`), never a
reference to the game, so a bot cannot reach the deck or another player's unseen cards
through it. Seats are absolute (``obs.seat`` is you); :attr:`Observation.opponents`
lists the others in play order, starting with your left neighbour.

>>> import cabo_kit as ck
>>> game = ck.Game(ck.Rules.preset("rush"), seed=3, n_players=3)
>>> obs = game.observation(0)
>>> obs.my_hand                       # rush: you saw your last two cards
(Card('??'), Card('??'), Card('2C'), Card('QS'))
>>> obs.hands[1]                      # another player's cards: unseen
(Card('??'), Card('??'), Card('??'), Card('??'))
"""

from __future__ import annotations

import sys
from operator import ge as _ge, gt as _gt, le as _le, lt as _lt
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Sequence, SupportsIndex, overload

from .actions import Action, LegalActions
from .cards import UNKNOWN, Card
from .rules import Power, Rules, StrEnum

__all__ = ["Event", "EventKind", "EventLog", "Observation", "Phase", "describe_event", "make_observation", "moment_of",
           "MOMENT_FIELDS", "TABLE_FIELDS"]


_OPPONENTS: dict[tuple[int, int], tuple[int, ...]] = {}
_END = sys.maxsize  # tuple.index's default stop


class Phase(StrEnum):
    """What the game waits for: the kind of decision to make now (``Observation.phase``, ``Game.phase``).

    A phase is a ``str``, so it compares, prints and stores as its text:

    >>> Phase.DRAWN == "drawn", f"{Phase.DRAWN}", Phase("snap")
    (True, 'drawn', <Phase.SNAP: 'snap'>)
    """

    LOOK = "look"  # deluxe set-up: every seat chooses the cards it looks at
    CHOOSE = "choose"  # draw from the deck, take the discard pile's top card, or call Cabo
    DRAWN = "drawn"  # discard the drawn card or exchange it for own card(s)
    POWER = "power"  # use the discarded card's power, or pass
    SWAP = "swap"  # the swap of a two-step power (peek-then-swap, spy-then-swap)
    PLACE = "place"  # where a card goes after a multi-exchange (deluxe)
    SNAP = "snap"  # a snap window: every seat may claim a card that matches the pile's top
    GIVE = "give"  # after snapping another player's card: give them one of yours
    END_TURN = "end_turn"  # traveller: call Cabo at the end of your turn, or pass
    OVER = "over"  # the game has ended


class EventKind(StrEnum):
    """What kind of thing happened (``Event.kind``); a ``str``, so records keep the text.

    >>> EventKind.SPY == "spy", EventKind("swap")
    (True, <EventKind.SWAP: 'swap'>)
    """

    ROUND = "round"  # a round begins (target: round number, start player)
    LOOK = "look"  # a player looks at own cards at set-up
    FLIP = "flip"  # the deck's top card is turned up to start the pile
    DRAW = "draw"  # a player draws from the deck
    TAKE = "take"  # a player takes the discard pile's top card
    CABO = "cabo"  # a player calls Cabo
    DISCARD = "discard"  # the drawn card goes to the pile
    EXCHANGE = "exchange"  # the drawn card replaces one own card, which goes to the pile
    MULTI = "multi"  # a multi-exchange: the picked cards are turned up (info "ok" or "fail")
    PLACE = "place"  # where the drawn card went after a multi-exchange
    PENALTY = "penalty"  # a penalty card lands in a hand, unseen
    PEEK = "peek"  # a player looks at one own card (a power)
    SPY = "spy"  # a player looks at another player's card (a power)
    SWAP = "swap"  # two cards change places, unseen (a power)
    SKIP = "skip"  # a power is not used
    SNAP = "snap"  # a card is claimed in a snap window and turned up (info "match" or "miss")
    GIVE = "give"  # a snapper gives a card into the gap left by a snapped card
    RESHUFFLE = "reshuffle"  # the pile below its top becomes the new deck
    END = "end"  # the round ends (target: round scores; info: why)


_KIND = {k.value: k for k in EventKind}
_PHASE = {p.value: p for p in Phase}
_POWER = {p.value: p for p in Power}


class Event(NamedTuple):
    """One thing that happened, as one seat saw it. ``str(event)`` says it in words.

    ``cards`` holds the faces the viewer saw, :data:`~cabo_kit.cards.UNKNOWN` where the
    viewer did not see the face (another player's peek, a card drawn by someone else).

    >>> from cabo_kit.cards import Card, UNKNOWN
    >>> str(Event("spy", 1, (2, 0), (Card.parse("11"),)))
    'seat 1 spies on seat 2, position 0: 11'
    >>> str(Event("spy", 1, (2, 0), (UNKNOWN,)))
    'seat 1 spies on seat 2, position 0'
    """

    kind: EventKind
    seat: int | None = None
    target: tuple[int, ...] = ()
    cards: tuple[Card, ...] = ()
    info: str = ""

    def __str__(self) -> str:
        return describe_event(self)

    def to_list(self) -> list[Any]:
        """Plain data: ``[kind, seat, target, card texts, info]``."""
        return [str(self.kind), self.seat, list(self.target), [c.text for c in self.cards], self.info]

    @classmethod
    def from_list(cls, data: Sequence[Any]) -> "Event":
        kind, seat, target, cards, info = data
        try:
            kind = _KIND[kind]
        except (KeyError, TypeError):
            raise ValueError(f"{kind!r} is not an event kind: choose one of {', '.join(_KIND)}") from None
        return cls(kind, seat, tuple(target), tuple(Card.parse(c) for c in cards), info)


def _faces(cards: tuple[Card, ...]) -> str:
    return " ".join(c.pretty for c in cards)


def _seen(cards: tuple[Card, ...]) -> bool:
    return bool(cards) and all(c.known for c in cards)


def describe_event(e: Event) -> str:
    """The event in plain words (what :func:`str` gives)."""
    k, s, t, cards, info = e
    face = (": " + _faces(cards)) if _seen(cards) else ""
    who = f"seat {s}"
    if k == "round":
        return f"round {t[0] + 1} begins: seat {t[1]} starts"
    if k == "look":
        return f"{who} looks at own positions {','.join(map(str, t))}{face}"
    if k == "flip":
        return f"the top card of the deck is turned up{face}"
    if k == "draw":
        return f"{who} draws from the deck{face}"
    if k == "take":
        return f"{who} takes{' ' + _faces(cards) if _seen(cards) else ' the top card'} from the discard pile"
    if k == "cabo":
        return f"{who} calls Cabo"
    if k == "discard":
        return f"{who} discards {_faces(cards)}"
    if k == "exchange":
        out, new = cards[:-1], cards[-1:]
        placed = f" (keeps {_faces(new)})" if _seen(new) else ""
        return f"{who} exchanges own position {','.join(map(str, t))} ({_faces(out)}){placed}"
    if k == "multi":
        verdict = "all equal" if info == "ok" else "not all equal"
        return f"{who} tries to exchange positions {','.join(map(str, t))} ({_faces(cards)}): {verdict}"
    if k == "place":
        what = "the penalty card" if info == "penalty" else "the drawn card"
        return f"{who} puts {what} at position {t[0]}"
    if k == "penalty":
        return f"{who} takes a penalty card, unseen, at position {t[0]}"
    if k == "peek":
        return f"{who} peeks at own position {t[0]}{face}"
    if k == "spy":
        return f"{who} spies on seat {t[0]}, position {t[1]}{face}"
    if k == "swap":
        return f"{who} swaps own position {t[0]} with seat {t[1]}, position {t[2]}"
    if k == "skip":
        return f"{who} does not use the power"
    if k == "snap":
        verdict = "a match" if info == "match" else "no match"
        return f"{who} snaps seat {t[0]}, position {t[1]}: {_faces(cards)}, {verdict}"
    if k == "give":
        return f"{who} gives own position {t[0]} to seat {t[1]}, position {t[2]}"
    if k == "reshuffle":
        return f"the discard pile's {t[0]} lower cards are shuffled into a new deck"
    if k == "end":
        return f"round ends ({info.replace('_', ' ')}): scores " + " ".join(map(str, t))
    return f"{k} {s} {t} {_faces(cards)} {info}".strip()  # pragma: no cover


def _read_chains(shared: Any, own: Any, start: int, stop: int) -> tuple[list[Any], Any]:
    """Events ``start`` to ``stop`` read back from the chain ends: the shared chain's events, each replaced by the
    seat's own version where it has one; and the shared chain's node before them."""
    out: list[Any] = [None] * (stop - start)
    node = shared
    for i in range(stop - start - 1, -1, -1):
        out[i] = node[1]
        node = node[0]
    while own is not None and own[1] >= start:
        out[own[1] - start] = own[2]
        own = own[0]
    return out, node


def _ordered_as_read(op: Callable[[Any, Any], bool]) -> Callable[[Any, object], Any]:
    """An ordering method (``op``: ``operator.lt`` ...) of EventLog and Observation: both compare as the tuple their
    ``_read()`` gives (the events, not the chains they are stored as), with their own kind or a plain tuple."""

    def method(self: Any, other: object) -> Any:
        if isinstance(other, type(self)):
            return op(self._read(), other._read())
        return op(self._read(), other) if isinstance(other, tuple) else NotImplemented

    method.__name__ = f"__{op.__name__}__"
    return method


class EventLog(Sequence[Event]):
    """The events one seat saw this round, oldest first (``Observation.events``): an immutable sequence.

    It reads like a tuple (``len``, indexing, slicing, ``==`` and ordering with a tuple of the
    same events) and its events are read only when asked for, so a bot that never reads them
    never pays for them: one of the newer half (``events[-1]``) is read straight from the chains,
    newest nearest; an older one, iterating or slicing builds the tuple once for this log. The engine keeps a round's events in two chains of nested tuples, newest
    first: one of every event as the players who did not see its faces saw it (``(earlier,
    event)``, shared by all seats), and one per seat of the events it saw whole (``(earlier,
    index, event)``). An engine's observation holds the round's event count and the ends of
    its seat's two chains, ``(stop, shared, own)``, as a plain tuple, and
    :attr:`Observation.events` makes the log from them when read: nothing in either is more
    than that seat saw.

    >>> import cabo_kit as ck
    >>> events = ck.Game(ck.Rules.preset("rush"), seed=3, n_players=2).observation(1).events
    >>> len(events), events[0].kind, [str(e) for e in events[1:]]
    (4, <EventKind.ROUND: 'round'>, ['seat 0 looks at own positions 2,3', 'seat 1 looks at own positions 2,3: 3♥ 9♠', 'the top card of the deck is turned up: 8♥'])
    >>> EventLog([events[0]]) == (events[0],)
    True
    """

    __slots__ = ("_shared", "_own", "_start", "_stop", "_items")

    def __init__(self, events: Iterable[Event] = ()) -> None:
        items = tuple(events)
        self._items: tuple[Event, ...] | None = items
        self._shared: Any = None
        self._own: Any = None
        self._start = 0
        self._stop = len(items)

    def since(self, earlier: "EventLog") -> tuple[Event, ...] | None:
        """The events added after ``earlier`` (an older log of the same seat and round), or ``None`` if it is not one.

        The isolation layer sends a bot only the new events this way, at the cost of the new ones.
        """
        if self._shared is None or earlier._shared is None or self._stop < earlier._stop or self._start != earlier._start:
            return None
        out, before = _read_chains(self._shared, self._own, earlier._stop, self._stop)
        return tuple(out) if before is earlier._shared else None

    def _built(self) -> tuple[Event, ...]:
        items = self._items
        if items is None:
            items = self._items = tuple(_read_chains(self._shared, self._own, self._start, self._stop)[0])
        return items

    def _at(self, index: int) -> Event:
        """Event ``index`` read straight from the chain ends if it is among the newer half (``[-1]`` reads one node)."""
        size = self._stop - self._start
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("EventLog index out of range")
        steps = size - 1 - index
        if steps > size >> 1:  # nearer the oldest: build them once (a bot reading events[0] reads on from there)
            return self._built()[index]
        at = self._start + index
        node = self._shared
        while steps:
            node = node[0]
            steps -= 1
        own = self._own
        while own is not None and own[1] > at:
            own = own[0]
        return own[2] if own is not None and own[1] == at else node[1]

    def __len__(self) -> int:
        return self._stop - self._start

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Event, ...]: ...
    def __getitem__(self, index: int | slice) -> Event | tuple[Event, ...]:
        items = self._items
        if items is None and index.__class__ is int:
            return self._at(index)
        return self._built()[index]

    def __iter__(self) -> Iterator[Event]:
        return iter(self._built())

    def __reversed__(self) -> Iterator[Event]:
        return reversed(self._built())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, EventLog):
            if (self._shared is not None and self._shared is other._shared and self._own is other._own
                    and self._start == other._start and self._stop == other._stop):
                return True  # the same chains and span (never compare chains by value: they nest deep)
            return self._built() == other._built()
        if isinstance(other, tuple):
            return self._built() == other
        return NotImplemented

    _read = _built  # what the ordering methods compare

    __lt__, __le__, __gt__, __ge__ = map(_ordered_as_read, (_lt, _le, _gt, _ge))

    def __hash__(self) -> int:
        return hash(self._built())

    def __add__(self, other: object) -> tuple[Event, ...]:
        return self._built() + tuple(other)  # type: ignore[arg-type]

    def __radd__(self, other: object) -> tuple[Event, ...]:
        return tuple(other) + self._built()  # type: ignore[arg-type]

    def __mul__(self, times: int) -> tuple[Event, ...]:
        return self._built() * times

    __rmul__ = __mul__

    def __reduce__(self) -> tuple[Any, tuple[tuple[Event, ...]]]:
        return (EventLog, (self._built(),))

    def __repr__(self) -> str:
        return repr(self._built())  # reads as the tuple it stands for (an Observation's repr stays short)


_bare = object.__new__


def _chain_log(ends: tuple[int, Any, Any], start: int = 0) -> EventLog:
    """The log of the events ``start`` to ``stop`` of an engine observation's ``(stop, shared, own)`` (read when asked for)."""
    log = _bare(EventLog)
    log._stop, log._shared, log._own = ends
    log._start = start
    log._items = None  # built when first iterated or sliced
    return log


class Observation(NamedTuple):
    """Everything one seat may know at one moment, and the legal actions if it must decide.

    The fields come in three groups: who is looking, where the game stands (the
    :data:`MOMENT_FIELDS`), and what lies on the table with the scores, the events and the
    legal actions.

    Fields:
        seat: the observing seat; n_players: the table size; rules: the game's rules.
        memory: ``"engine"`` (hands show every card this player has legitimately seen)
            or ``"none"`` (hands show face-up cards only; ``events`` is this turn's).
        round: the round, from 0; turn: turns played this round; phase: the decision
            phase (a :class:`Phase`: ``"look" "choose" "drawn" "power" "swap" "place"
            "snap" "give" "end_turn" "over"``); current: whose turn it is; to_move: the
            seats that must decide now; start_player, caller (or ``None``).
        deck_size: cards left in the deck.
        drawn: the card in the current player's hand (``??`` to others when it came
            from the deck); drawn_from: ``"deck"``, ``"discard"``, ``"penalty"`` or ``None``.
        power: the power being used (a :class:`~cabo_kit.rules.Power`: ``"peek"``,
            ``"spy"``, ``"swap"``, ``"peek_swap"``, ``"spy_swap"``) or ``None``; target:
            the spied card (seat, position) for a spy-then-swap; picked: the positions
            picked for a multi-exchange; exchange_ok: whether they were all equal;
            give_to: (seat, position) a snapper gives into.
        hands: by seat, each card as this player knows it (``??`` if unseen);
            face_up: by seat, which cards lie face up.
        discard: the discard pile, bottom first (``memory="none"``: just the top).
        scores: game totals by seat; round_scores: earlier rounds' scores.
        events: what this seat saw happen this round (``memory="none"``: this turn), an
            :class:`EventLog`.
        legal_actions: this seat's legal actions now (empty if it need not decide).

    The engine stores the events field as its seat's chain ends (see :class:`EventLog`): a log
    object made for every decision cost about 2,400 machine instructions a turn (2.8%) in the
    engine benchmark's case (a), about 2,200 in case (c). Everything else sees the log, as the
    methods below make sure: reading ``events``; indexing, slicing, iterating and so unpacking,
    ``_asdict``, ``_replace``, copies and pickling; ``in``, ``count`` and ``index``; ``==``,
    ``!=``, ``<``, ``<=``, ``>``, ``>=``; ``hash``; ``repr``; ``+`` and ``*``. Only C code that
    reads a tuple's storage directly sees the chain ends (``tuple``'s methods called by name, as
    in ``tuple.__getitem__(obs, 24)``; ``%``-formatting with an observation as its arguments).
    """

    seat: int
    n_players: int
    rules: Rules
    memory: str
    round: int
    turn: int
    phase: Phase
    current: int
    to_move: tuple[int, ...]
    start_player: int
    caller: int | None
    deck_size: int
    drawn: Card | None
    drawn_from: str | None
    power: Power | None
    target: tuple[int, int] | None
    picked: tuple[int, ...]
    exchange_ok: bool | None
    give_to: tuple[int, int] | None
    hands: tuple[tuple[Card, ...], ...]
    face_up: tuple[tuple[bool, ...], ...]
    discard: tuple[Card, ...]
    scores: tuple[int, ...]
    round_scores: tuple[tuple[int, ...], ...]
    events: EventLog
    legal_actions: Sequence[Action]

    @property
    def my_hand(self) -> tuple[Card, ...]:
        """This seat's own cards, ``??`` where unseen."""
        return self.hands[self.seat]

    @property
    def top(self) -> Card | None:
        """The discard pile's top card, or ``None`` when the pile is empty."""
        return self.discard[-1] if self.discard else None

    @property
    def opponents(self) -> tuple[int, ...]:
        """The other seats in play order, starting with the left neighbour."""
        key = (self.n_players, self.seat)
        found = _OPPONENTS.get(key)
        if found is None:
            n, me = key
            found = _OPPONENTS[key] = tuple((me + i) % n for i in range(1, n))
        return found

    @property
    def my_turn(self) -> bool:
        """Whether this seat must decide now."""
        return self.seat in self.to_move

    def _read(self) -> tuple[Any, ...]:
        """The fields as a plain tuple, the events as a log."""
        return _item(self, _BEFORE_EVENTS) + (self.events, _item(self, -1))

    def __iter__(self) -> Iterator[Any]:
        return iter(self._read())

    def __getitem__(self, index: Any) -> Any:
        if index.__class__ is int and index != 24 and index != -2:
            return _item(self, index)  # any field but the events: as stored
        return self._read()[index]

    def __contains__(self, value: object) -> bool:
        return value in self._read()

    def count(self, value: Any) -> int:
        return self._read().count(value)

    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = _END) -> int:
        return self._read().index(value, start, stop)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Observation):
            return self._read() == other
        # Never the chain ends by value (they nest as deep as the round's events): as stored only when the events
        # fields are one object or hold the same two chains (the compare then never descends into them).
        mine, theirs = _item(self, 24), _item(other, 24)
        if mine is theirs or (mine.__class__ is tuple is theirs.__class__ and len(mine) == 3 == len(theirs)
                              and mine[1] is theirs[1] and mine[2] is theirs[2]):
            return _tuple_eq(self, other)
        # Otherwise the events last, as logs.
        return (_item(self, _BEFORE_EVENTS) == _item(other, _BEFORE_EVENTS) and _item(self, -1) == _item(other, -1)
                and self.events == other.events)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __add__(self, other: tuple[Any, ...]) -> tuple[Any, ...]:
        return self._read() + other

    def __radd__(self, other: tuple[Any, ...]) -> tuple[Any, ...]:
        return other + self._read()

    def __mul__(self, times: SupportsIndex) -> tuple[Any, ...]:
        return self._read() * times

    def __rmul__(self, times: SupportsIndex) -> tuple[Any, ...]:
        return self._read() * times

    def __hash__(self) -> int:
        return hash(self._read())

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({', '.join(f'{k}={v!r}' for k, v in zip(self._fields, self._read()))})"

    def known_total(self, seat: int | None = None) -> tuple[int, int]:
        """``(sum of known card values, number of unknown cards)`` of a seat's hand (default: yours).

        >>> import cabo_kit as ck
        >>> ck.Game(ck.Rules.preset("rush"), seed=3, n_players=3).observation(0).known_total()
        (14, 2)
        """
        hand = self.hands[self.seat if seat is None else seat]
        total = 0
        unknown = 0
        for c in hand:
            if c.value is None:
                unknown += 1
            else:
                total += c.value
        return total, unknown

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data (cards and actions as text); :meth:`from_dict` reverses it."""
        legal = self.legal_actions
        return {
            "seat": self.seat,
            "n_players": self.n_players,
            "rules": self.rules.to_dict(),
            "memory": self.memory,
            "round": self.round,
            "turn": self.turn,
            "phase": str(self.phase),
            "current": self.current,
            "to_move": list(self.to_move),
            "start_player": self.start_player,
            "caller": self.caller,
            "hands": [[c.text for c in h] for h in self.hands],
            "face_up": [list(h) for h in self.face_up],
            "discard": [c.text for c in self.discard],
            "deck_size": self.deck_size,
            "drawn": None if self.drawn is None else self.drawn.text,
            "drawn_from": self.drawn_from,
            "power": None if self.power is None else str(self.power),
            "target": None if self.target is None else list(self.target),
            "picked": list(self.picked),
            "exchange_ok": self.exchange_ok,
            "give_to": None if self.give_to is None else list(self.give_to),
            "scores": list(self.scores),
            "round_scores": [list(r) for r in self.round_scores],
            "events": [e.to_list() for e in self.events],
            "legal_actions": (
                {"fixed": [str(a) for a in tuple.__iter__(legal)], "multi_exchange": legal.hand_size}
                if isinstance(legal, LegalActions)
                else [str(a) for a in legal]
            ),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], rules: Rules | None = None) -> "Observation":
        """Rebuild an observation from :meth:`to_dict` output (what an isolated bot receives)."""
        legal_data = data["legal_actions"]
        legal: Sequence[Action]
        if isinstance(legal_data, dict):
            legal = LegalActions(tuple(Action.parse(a) for a in legal_data["fixed"]), legal_data["multi_exchange"])
        else:
            legal = tuple(Action.parse(a) for a in legal_data)
        return cls(
            seat=data["seat"],
            n_players=data["n_players"],
            rules=rules if rules is not None else Rules.from_dict(data["rules"]),
            memory=data["memory"],
            round=data["round"],
            turn=data["turn"],
            phase=_PHASE[data["phase"]],
            current=data["current"],
            to_move=tuple(data["to_move"]),
            start_player=data["start_player"],
            caller=data["caller"],
            hands=tuple(tuple(Card.parse(c) for c in h) for h in data["hands"]),
            face_up=tuple(tuple(bool(x) for x in h) for h in data["face_up"]),
            discard=tuple(Card.parse(c) for c in data["discard"]),
            deck_size=data["deck_size"],
            drawn=None if data["drawn"] is None else Card.parse(data["drawn"]),
            drawn_from=data["drawn_from"],
            power=None if data["power"] is None else _POWER[data["power"]],
            target=None if data["target"] is None else (data["target"][0], data["target"][1]),
            picked=tuple(data["picked"]),
            exchange_ok=data["exchange_ok"],
            give_to=None if data["give_to"] is None else (data["give_to"][0], data["give_to"][1]),
            scores=tuple(data["scores"]),
            round_scores=tuple(tuple(r) for r in data["round_scores"]),
            events=EventLog(Event.from_list(e) for e in data["events"]),
            legal_actions=legal,
        )

    def describe(self) -> str:
        """The observation in a few plain lines (what a person at this seat would see).

        >>> import cabo_kit as ck
        >>> print(ck.Game(ck.Rules.preset("rush"), seed=3, n_players=3).observation(0).describe())
        seat 0, round 1, turn 0, phase snap (seat 0, 1, 2 to move)
          you    : ?? ?? 2♣ Q♠
          seat 1 : ?? ?? ?? ??
          seat 2 : ?? ?? ?? ??
          discard: 8♠  (deck 39)
          scores : 0 0 0
        """
        lines = [
            f"seat {self.seat}, round {self.round + 1}, turn {self.turn}, phase {self.phase}"
            + (f" (seat {', '.join(map(str, self.to_move))} to move)" if self.to_move else "")
        ]
        for s, hand in enumerate(self.hands):
            label = "you   " if s == self.seat else f"seat {s}"
            marks = []
            for c, up in zip(hand, self.face_up[s]):
                marks.append(c.pretty + ("^" if up else ""))
            tag = "  (called Cabo)" if s == self.caller else ""
            lines.append(f"  {label} : {' '.join(marks) if marks else '(no cards)'}{tag}")
        top = self.top.pretty if self.top is not None else "(empty)"
        lines.append(f"  discard: {top}  (deck {self.deck_size})")
        if self.drawn is not None:
            lines.append(f"  drawn  : {self.drawn.pretty} from the {self.drawn_from}")
        lines.append(f"  scores : {' '.join(map(str, self.scores))}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from .render import observation_html

        return observation_html(self)


# Observation orders as its _read() too (set here: a NamedTuple's body takes only fields and methods).
for _name, _op in (("__lt__", _lt), ("__le__", _le), ("__gt__", _gt), ("__ge__", _ge)):
    setattr(Observation, _name, _ordered_as_read(_op))
del _name, _op


#: The fields that say where the game stands at one moment: all but who is looking (the first four: seat,
#: n_players, rules, memory) and what lies on the table (the last seven: hands, face_up, discard, scores,
#: round_scores, events, legal_actions). The wire to an isolated bot sends them as one tuple, in this order.
MOMENT_FIELDS = (
    "round", "turn", "phase", "current", "to_move", "start_player", "caller", "deck_size", "drawn", "drawn_from",
    "power", "target", "picked", "exchange_ok", "give_to",
)
#: The fields :func:`make_observation` takes as ``table``: what lies on the table, the scores, the events and
#: the legal actions.
TABLE_FIELDS = ("hands", "face_up", "discard", "scores", "round_scores", "events", "legal_actions")
_MOMENT = slice(4, 4 + len(MOMENT_FIELDS))
if Observation._fields != ("seat", "n_players", "rules", "memory") + MOMENT_FIELDS + TABLE_FIELDS:
    raise ImportError("Observation's fields and MOMENT_FIELDS, TABLE_FIELDS disagree")  # pragma: no cover
_item: Any = tuple.__getitem__  # a field as stored (the events: an engine's chain ends)
_tuple_eq: Any = tuple.__eq__
_BEFORE_EVENTS = slice(0, 24)
if Observation._fields[24] != "events":
    raise ImportError("Observation's events are not its 25th field")  # pragma: no cover


def _events(obs: Observation) -> EventLog:
    value = _item(obs, 24)
    if value.__class__ is tuple and value and value[0].__class__ is int:  # the engine's (stop, shared, own)
        return _chain_log(value)
    return value  # an EventLog, or the events given to Observation(...) or _replace


# A property over the field's own accessor (a NamedTuple's class body would take it for the field's default).
Observation.events = property(  # type: ignore[assignment]
    _events, doc="What this seat saw happen this round (``memory=\"none\"``: this turn), an :class:`EventLog`.")

_new = tuple.__new__


def make_observation(head: tuple[Any, ...], table: tuple[Any, ...]) -> Observation:
    """An :class:`Observation` assembled from its two groups: an isolated bot's process builds it here from what
    the wire brings (``Game.observation`` writes the same fields in the same order as one tuple).

    ``head`` is who is looking and where the game stands: ``(seat, n_players, rules, memory)`` followed by the
    values of :data:`MOMENT_FIELDS`; ``table`` the values of :data:`TABLE_FIELDS`.

    >>> import cabo_kit as ck
    >>> obs = ck.Game(ck.Rules.preset("rush"), seed=3, n_players=2).observation(0)
    >>> head = (obs.seat, obs.n_players, obs.rules, obs.memory) + moment_of(obs)
    >>> make_observation(head, obs[-7:]) == obs
    True
    """
    return _new(Observation, head + table)


def moment_of(obs: Observation) -> tuple[Any, ...]:
    """The values of :data:`MOMENT_FIELDS` of ``obs``, in that order (what the wire sends each decision).

    >>> import cabo_kit as ck
    >>> moment_of(ck.Game(ck.Rules.preset("rush"), seed=3, n_players=2).observation(0))[:4]
    (0, 0, <Phase.SNAP: 'snap'>, 1)
    """
    return _item(obs, _MOMENT)

UNSEEN = UNKNOWN
