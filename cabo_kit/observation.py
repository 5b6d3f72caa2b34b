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

from typing import Any, NamedTuple, Sequence

from .actions import Action, LegalActions
from .cards import UNKNOWN, Card
from .rules import Rules

__all__ = ["Event", "Observation", "describe_event"]


_OPPONENTS: dict[tuple[int, int], tuple[int, ...]] = {}


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

    kind: str
    seat: int | None = None
    target: tuple[int, ...] = ()
    cards: tuple[Card, ...] = ()
    info: str = ""

    def __str__(self) -> str:
        return describe_event(self)

    def to_list(self) -> list[Any]:
        """Plain data: ``[kind, seat, target, card texts, info]``."""
        return [self.kind, self.seat, list(self.target), [c.text for c in self.cards], self.info]

    @classmethod
    def from_list(cls, data: Sequence[Any]) -> "Event":
        kind, seat, target, cards, info = data
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


class Observation(NamedTuple):
    """Everything one seat may know at one moment, and the legal actions if it must decide.

    Fields:
        seat: the observing seat; n_players: the table size; rules: the game's rules.
        memory: ``"engine"`` (hands show every card this player has legitimately seen)
            or ``"none"`` (hands show face-up cards only; ``events`` is this turn's).
        round: the round, from 0; turn: turns played this round; phase: the decision
            phase (``"look" "choose" "drawn" "power" "swap" "place" "snap" "give"
            "end_turn" "over"``); current: whose turn it is; to_move: the seats that
            must decide now; start_player, caller (or ``None``).
        hands: by seat, each card as this player knows it (``??`` if unseen);
            face_up: by seat, which cards lie face up.
        discard: the discard pile, bottom first (``memory="none"``: just the top);
            deck_size: cards left in the deck.
        drawn: the card in the current player's hand (``??`` to others when it came
            from the deck); drawn_from: ``"deck"``, ``"discard"`` or ``None``.
        power: the power being used (``"peek"``, ``"spy"``, ``"swap"``, ``"peek_swap"``,
            ``"spy_swap"``) or ``None``; target: the spied card (seat, position) for a
            spy-then-swap; picked: the positions picked for a multi-exchange;
            exchange_ok: whether they were all equal; give_to: (seat, position) a
            snapper gives into.
        scores: game totals by seat; round_scores: earlier rounds' scores.
        events: what this seat saw happen this round (``memory="none"``: this turn).
        legal_actions: this seat's legal actions now (empty if it need not decide).
    """

    seat: int
    n_players: int
    rules: Rules
    memory: str
    round: int
    turn: int
    phase: str
    current: int
    to_move: tuple[int, ...]
    start_player: int
    caller: int | None
    hands: tuple[tuple[Card, ...], ...]
    face_up: tuple[tuple[bool, ...], ...]
    discard: tuple[Card, ...]
    deck_size: int
    drawn: Card | None
    drawn_from: str | None
    power: str | None
    target: tuple[int, int] | None
    picked: tuple[int, ...]
    exchange_ok: bool | None
    give_to: tuple[int, int] | None
    scores: tuple[int, ...]
    round_scores: tuple[tuple[int, ...], ...]
    events: tuple[Event, ...]
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
            "phase": self.phase,
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
            "power": self.power,
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
            phase=data["phase"],
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
            power=data["power"],
            target=None if data["target"] is None else (data["target"][0], data["target"][1]),
            picked=tuple(data["picked"]),
            exchange_ok=data["exchange_ok"],
            give_to=None if data["give_to"] is None else (data["give_to"][0], data["give_to"][1]),
            scores=tuple(data["scores"]),
            round_scores=tuple(tuple(r) for r in data["round_scores"]),
            events=tuple(Event.from_list(e) for e in data["events"]),
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


UNSEEN = UNKNOWN
