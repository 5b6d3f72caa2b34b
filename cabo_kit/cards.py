"""Cards: small immutable values with a text form that parses back.

Two families of cards exist. The deluxe deck's cards carry only a number, written
``"0"`` to ``"13"``. The standard deck's cards have a rank and a suit, written
``"AS"``, ``"10H"``, ``"QD"``, ``"KC"`` and ``"JOKER"``; a red king counts 0 points,
a black king 13 and a joker -1.

Every card is interned: ``Card.parse("QD") is Card.parse("qd")``, so equality is
identity and cards are cheap to compare and hash. :data:`UNKNOWN` (``??``) stands for
a card whose face a player has not seen.

>>> Card.parse("KH").value, Card.parse("KS").value, Card.parse("JOKER").value
(0, 13, -1)
>>> str(Card.parse("10h"))
'10H'
>>> Card.parse("12") == Card.parse("12")
True
"""

from __future__ import annotations

from typing import ClassVar, Iterable

__all__ = ["Card", "CardParseError", "UNKNOWN", "deluxe_deck", "standard_deck"]

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
_RANK_VALUES = {r: i + 1 for i, r in enumerate(RANKS)}


class CardParseError(ValueError):
    """A card's text does not name a card."""


class Card:
    """One card face. Build cards with :meth:`Card.parse`; they are interned.

    Attributes:
        text: the short text form (``"12"``, ``"QD"``, ``"JOKER"``, ``"??"``).
        rank: ``"0"``..``"13"`` (deluxe deck), ``"A"``..``"K"`` or ``"JOKER"``
            (standard deck), ``"?"`` for :data:`UNKNOWN`.
        suit: ``"S" "H" "D" "C"``, or ``""`` for deluxe cards and jokers.
        value: the points the card counts; ``None`` for :data:`UNKNOWN`.

    >>> c = Card.parse("QD")
    >>> c.rank, c.suit, c.value, c
    ('Q', 'D', 12, Card('QD'))
    >>> UNKNOWN.known, UNKNOWN.value, str(UNKNOWN)
    (False, None, '??')
    """

    __slots__ = ("text", "rank", "suit", "value", "known", "__weakref__")
    _interned: ClassVar[dict[str, "Card"]] = {}

    text: str
    rank: str
    suit: str
    value: int | None
    known: bool

    def __init__(self) -> None:  # pragma: no cover - guarded
        raise TypeError("use Card.parse('QD') to get a card")

    @classmethod
    def _make(cls, text: str, rank: str, suit: str, value: int | None) -> "Card":
        card = object.__new__(cls)
        object.__setattr__(card, "text", text)
        object.__setattr__(card, "rank", rank)
        object.__setattr__(card, "suit", suit)
        object.__setattr__(card, "value", value)
        object.__setattr__(card, "known", value is not None)
        cls._interned[text] = card
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    @classmethod
    def parse(cls, text: "str | int | Card") -> "Card":
        """The card named by ``text``: ``"0"``..``"13"``, ``"AS"``, ``"10H"``, ``"KC"``, ``"JOKER"``, ``"??"``.

        Case and surrounding spaces do not matter, ``"T"`` is accepted for ten, and an
        ``int`` names a deluxe card.

        >>> Card.parse(7), Card.parse(" ts "), Card.parse("joker")
        (Card('7'), Card('10S'), Card('JOKER'))
        >>> Card.parse("1X")
        Traceback (most recent call last):
        ...
        cabo_kit.cards.CardParseError: '1X' is not a card: write 0..13 for the deluxe deck, or a rank A 2..10 J Q K with a suit S H D C (e.g. 'QD', '10H'), or 'JOKER'
        """
        if isinstance(text, Card):
            return text
        if isinstance(text, int) and not isinstance(text, bool):
            text = str(text)
        if not isinstance(text, str):
            raise CardParseError(f"{text!r} is not a card: give its text, e.g. '12' or 'QD'")
        card = cls._interned.get(text)
        if card is not None:
            return card
        key = text.strip().upper()
        if key.startswith("T") and len(key) == 2:
            key = "10" + key[1:]
        card = cls._interned.get(key)
        if card is None:
            raise CardParseError(
                f"{text!r} is not a card: write 0..13 for the deluxe deck, or a rank A 2..10 J Q K "
                "with a suit S H D C (e.g. 'QD', '10H'), or 'JOKER'"
            )
        return card

    @property
    def is_standard(self) -> bool:
        """Whether the card belongs to the standard deck (it has a suit, or is a joker)."""
        return self.suit != "" or self.rank == "JOKER"

    @property
    def color(self) -> str:
        """``"red"``, ``"black"`` or ``""`` (deluxe cards, jokers, unknown)."""
        if self.suit in ("H", "D"):
            return "red"
        if self.suit in ("S", "C"):
            return "black"
        return ""

    @property
    def pretty(self) -> str:
        """The text with a suit symbol: ``Q♦``, ``10♥``, ``12``, ``JOKER``.

        >>> Card.parse("QD").pretty
        'Q♦'
        """
        if self.suit in SUIT_SYMBOLS:
            return self.rank + SUIT_SYMBOLS[self.suit]
        return self.text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({self.text!r})"

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card.parse, (self.text,))

    def __copy__(self) -> "Card":
        return self

    def __deepcopy__(self, memo: object) -> "Card":
        return self

    def _repr_html_(self) -> str:
        from .render import card_html

        return card_html(self)


for _v in range(14):
    Card._make(str(_v), str(_v), "", _v)
for _r in RANKS:
    for _s in SUITS:
        _value = _RANK_VALUES[_r]
        if _r == "K" and _s in ("H", "D"):
            _value = 0
        Card._make(_r + _s, _r, _s, _value)
Card._make("JOKER", "JOKER", "", -1)

UNKNOWN: Card = Card._make("??", "?", "?", None)
"""A card whose face this player has not seen."""

_DELUXE_ONE = [Card.parse(v) for v in (0, 0, 13, 13)] + [Card.parse(v) for v in range(1, 13) for _ in range(4)]
_STANDARD_ONE = [Card.parse(r + s) for s in SUITS for r in RANKS]


def deluxe_deck(copies: int = 1) -> list[Card]:
    """The deluxe deck in a fixed order: 0 and 13 twice each, 1..12 four times each.

    >>> deck = deluxe_deck()
    >>> len(deck), sum(c.value for c in deck)
    (52, 338)
    """
    return _DELUXE_ONE * copies


def standard_deck(jokers: int = 0, copies: int = 1) -> list[Card]:
    """The standard 52-card deck in a fixed order, plus ``jokers`` jokers.

    >>> deck = standard_deck(jokers=2)
    >>> len(deck), sum(c.value for c in deck)
    (54, 336)
    """
    return _STANDARD_ONE * copies + [Card.parse("JOKER")] * jokers


def parse_cards(items: Iterable["str | int | Card"]) -> list[Card]:
    """Parse many cards at once: ``parse_cards("1 2 QD")`` or ``parse_cards([1, "QD"])``.

    >>> parse_cards("3 KH joker")
    [Card('3'), Card('KH'), Card('JOKER')]
    """
    if isinstance(items, str):
        items = items.split()
    return [Card.parse(x) for x in items]
