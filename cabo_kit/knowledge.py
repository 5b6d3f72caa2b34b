"""The cards on the table and who knows them: the hands, the discard pile, which cards lie face up, what each seat saw.

The engine gives every physical card of a round an id (its place in the shuffled deck) and
keeps its face in :attr:`Knowledge.faces`. Knowledge follows the card, not the place
(``docs/rules.md``, "What a player may know"): a seat that saw a card knows it wherever it moves, and a blind
move never teaches anybody anything.

The rules code in :mod:`cabo_kit.game` changes hands, the pile and knowledge through the
methods here, except in ``Game.play_out``, which writes out ``take``, ``land`` and ``exchange``
for the usual turn (each method names that copy; tests/test_fast_paths.py compares them). Each
method also brings the views up to date that observations hand
out (every hand as each seat knows it, the face-up flags, the pile's faces), so building
an observation reads them and nobody has to remember to refresh a cache. (The bots'
:mod:`cabo_kit.bots.knowledge` is another thing: what a player infers from public events alone.)

>>> from cabo_kit.cards import Card
>>> know = Knowledge([Card.parse(t) for t in "3 5 9 12 7".split()], hands=[[0, 1], [2, 3]])
>>> know.see(0, 1)                       # seat 0 looks at its card 1
>>> know.views[0], know.views[1]
(((Card('??'), Card('5')), (Card('??'), Card('??'))), ((Card('??'), Card('??')), (Card('??'), Card('??'))))
>>> old = know.exchange(0, 1, 4, face_up=False, seer=0)   # seat 0 keeps the drawn 7; its 5 goes face up
>>> know.views[0][0], know.views[1][0], know.discard
((Card('??'), Card('7')), (Card('??'), Card('??')), (Card('5'),))
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Callable, Sequence, TypeVar

from .cards import UNKNOWN, Card

__all__ = ["Knowledge", "pick"]

T = TypeVar("T")
_copy_list = list.copy


def pick(ids: Sequence[int], values: Sequence[T]) -> tuple[T, ...]:
    """``tuple(values[i] for i in ids)``, with itemgetter's C loop when it can.

    >>> pick([2, 0], "abc"), pick([1], "abc"), pick([], "abc")
    (('c', 'a'), ('b',), ())
    """
    return itemgetter(*ids)(values) if len(ids) > 1 else _getter(ids)(values)


def _getter(ids: Sequence[int]) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """A function picking ``ids`` out of a sequence as a tuple (``itemgetter`` returns a bare item for one id)."""
    if len(ids) > 1:
        return itemgetter(*ids)
    if ids:
        only = ids[0]
        return lambda values: (values[only],)
    return lambda values: ()


class Knowledge:
    """The hands and the discard pile of one round, and what each seat knows of every card.

    It starts from the deal: every card in a hand lies face down, unseen; the rest is the deck.

    Args:
        faces: every card of the round by id (the engine's shuffled deck).
        hands: by seat, the ids of the cards dealt to it, in hand order.
        memory: ``True`` when seats remember what they saw (``memory="engine"``);
            ``False`` when a seat's view shows face-up cards only.

    Attributes (read them; change them only through the methods):
        hands: by seat, the ids of its cards in hand order.
        pile: the ids of the discard pile, bottom first; discard: their faces.
        up: by card id, whether the card lies face up.
        public: by card id, whether everybody knows the card (it was face up, taken from
            the pile, or turned up for all).
        seen: by seat, by card id, the face that seat knows (``UNKNOWN`` if none).
        views: by seat, every hand as that seat knows it (``??`` where it does not): a tuple of
            tuples per seat; up_view: every hand's face-up flags, a tuple of tuples. Those tuples
            are replaced (never changed) when something changes, so an observation may hold them.
    """

    __slots__ = ("faces", "n", "memory", "hands", "pile", "discard", "up", "public", "seen", "up_faces", "owner",
                 "views", "up_view", "_rows", "_up_rows")

    def __init__(self, faces: list[Card], hands: list[list[int]], memory: bool = True) -> None:
        size = len(faces)
        n = len(hands)
        self.faces = faces
        self.n = n
        self.memory = memory
        self.hands = hands
        self.pile: list[int] = []
        self.discard: tuple[Card, ...] = ()
        self.up = [False] * size
        self.public = [False] * size
        self.seen: list[list[Card]] = [[UNKNOWN] * size for _ in range(n)]
        self.up_faces: list[Card] = [UNKNOWN] * size  # a face where the card lies face up: the view without memory
        self.owner = owner = [-1] * size  # the seat whose hand holds the card, or -1
        for seat, cards in enumerate(hands):
            for card in cards:
                owner[card] = seat
        # _rows[seat][owner] is owner's hand as seat knows it, _up_rows[owner] its face-up flags; views and
        # up_view are the same as tuples. Dealt, every card is face down and unseen.
        unseen = [(UNKNOWN,) * len(cards) for cards in hands]
        self._rows: list[list[tuple[Card, ...]]] = [list(unseen) for _ in range(n)]
        self.views: list[tuple[tuple[Card, ...], ...]] = [tuple(unseen)] * n
        self._up_rows: list[tuple[bool, ...]] = [(False,) * len(cards) for cards in hands]
        self.up_view: tuple[tuple[bool, ...], ...] = tuple(self._up_rows)

    @classmethod
    def dealt(cls, faces: list[Card], n: int, k: int, memory: bool = True) -> "Knowledge":
        """``Knowledge(faces, hands, memory)`` for the usual deal, seat ``s`` holding ids ``s*k`` to ``s*k + k - 1``.

        Every round starts so: it is copied from a fresh one kept per table shape (the lists copied in C,
        without ``__init__``'s loops; tests/test_fast_paths.py compares the two).

        >>> from cabo_kit.cards import Card
        >>> faces = [Card.parse(t) for t in "3 5 9 12 7".split()]
        >>> Knowledge.dealt(faces, 2, 2).hands, Knowledge.dealt(faces, 2, 2).views[0]
        ([[0, 1], [2, 3]], ((Card('??'), Card('??')), (Card('??'), Card('??'))))
        """
        return cls._fresh_deal(len(faces), n, k, memory).copy(faces)

    @classmethod
    def _fresh_deal(cls, size: int, n: int, k: int, memory: bool = True) -> "Knowledge":
        """The fresh round :meth:`dealt` copies for a deck of ``size`` cards: kept per table shape, never changed (a
        game keeps its own and copies it each round, ``fresh.copy(faces)``: :meth:`dealt` without the look-up).

        >>> Knowledge._fresh_deal(5, 2, 2) is Knowledge._fresh_deal(5, 2, 2)
        True
        """
        key = (size, n, k, memory)
        fresh = _FRESH.get(key)
        if fresh is None:
            if len(_FRESH) > 256:
                _FRESH.clear()
            fresh = _FRESH[key] = cls([UNKNOWN] * size, [list(range(s * k, (s + 1) * k)) for s in range(n)], memory)
        return fresh

    def _changed(self, owner: int, flags: bool = True) -> None:
        """``owner``'s hand, or what is known of a card in it, changed: rebuild every seat's view of that hand
        (and its face-up flags, unless ``flags`` is false: no card in it was turned, and none came or went)."""
        hand = self.hands[owner]
        get = itemgetter(*hand) if len(hand) > 1 else _getter(hand)  # one getter for every seat's view of the hand
        views = self.views
        seat = 0
        if self.memory:
            seen = self.seen
            for rows in self._rows:
                rows[owner] = get(seen[seat])
                views[seat] = tuple(rows)
                seat += 1
        else:
            row = get(self.up_faces)
            for rows in self._rows:
                rows[owner] = row
                views[seat] = tuple(rows)
                seat += 1
        if flags:
            self._up_rows[owner] = get(self.up)
            self.up_view = tuple(self._up_rows)

    # -------------------------------------------------------------- knowledge

    def see(self, seat: int, card: int) -> None:
        """``seat`` looks at ``card`` (a peek, a spy, its own draw)."""
        self.seen[seat][card] = self.faces[card]
        owner = self.owner[card]
        if owner >= 0 and self.memory:  # the card is in a hand: that seat's view of the hand changed
            rows = self._rows[seat]
            hand = self.hands[owner]
            rows[owner] = (itemgetter(*hand) if len(hand) > 1 else _getter(hand))(self.seen[seat])  # pick(), inline
            self.views[seat] = tuple(rows)

    def look(self, seat: int, owner: int, cards: Sequence[int]) -> tuple[Card, ...]:
        """``seat`` looks at ``cards``, all in ``owner``'s hand (its own at the round's start): :meth:`see` for each,
        that seat's view of the hand rebuilt once. Returns their faces.

        >>> from cabo_kit.cards import Card
        >>> know = Knowledge([Card.parse(t) for t in "3 5 9 12".split()], hands=[[0, 1], [2, 3]])
        >>> know.look(1, 1, [3, 2]), know.views[1][1], know.views[0][1]
        ((Card('12'), Card('9')), (Card('9'), Card('12')), (Card('??'), Card('??')))
        """
        every = self.faces
        faces = (itemgetter(*cards) if len(cards) > 1 else _getter(cards))(every)  # pick(), inline (a bad id: nothing seen)
        seen = self.seen[seat]
        for card in cards:  # (no zip made)
            seen[card] = every[card]
        if self.memory:
            rows = self._rows[seat]
            hand = self.hands[owner]
            rows[owner] = (itemgetter(*hand) if len(hand) > 1 else _getter(hand))(seen)
            self.views[seat] = tuple(rows)
        return faces

    def reveal(self, card: int) -> None:
        """Everybody learns ``card`` (it is turned up for all, or taken from the pile)."""
        if not self.public[card]:
            self.public[card] = True
            face = self.faces[card]
            for seen in self.seen:
                seen[card] = face
            if self.owner[card] >= 0:
                self._changed(self.owner[card])

    def turn(self, card: int, face_up: bool) -> None:
        """Turn ``card`` face up (everybody learns it) or face down (what was known stays known)."""
        self.up[card] = face_up
        self.up_faces[card] = self.faces[card] if face_up else UNKNOWN
        if face_up and not self.public[card]:
            self.reveal(card)
        elif self.owner[card] >= 0:
            self._changed(self.owner[card])

    def turn_up(self, owner: int, cards: Sequence[int]) -> None:
        """Turn ``cards``, all in ``owner``'s hand, face up (everybody learns them): :meth:`turn` for each, the hand's
        views rebuilt once (a multi-exchange's picked cards).

        >>> from cabo_kit.cards import Card
        >>> know = Knowledge([Card.parse(t) for t in "3 5 9 12".split()], hands=[[0, 1], [2, 3]])
        >>> know.turn_up(0, [1, 0]); know.views[1][0], know.up_view
        ((Card('3'), Card('5')), ((True, True), (False, False)))
        """
        up, up_faces, public = self.up, self.up_faces, self.public  # (in threes: more make and unpack a tuple)
        faces, seen_by = self.faces, self.seen
        for card in cards:
            face = faces[card]
            up[card] = True
            up_faces[card] = face
            if not public[card]:
                public[card] = True
                for seen in seen_by:
                    seen[card] = face
        self._changed(owner)

    def forget(self, card: int) -> None:
        """``card`` is shuffled back into the deck: nobody knows it any more."""
        self.up[card] = False
        self.up_faces[card] = UNKNOWN
        self.public[card] = False
        for seen in self.seen:
            seen[card] = UNKNOWN

    # ------------------------------------------------------------------ the pile

    def land(self, card: int) -> None:
        """``card``, held by nobody now, lands face up on the discard pile.
        Written out in :meth:`exchange` and Game.play_out too (tests/test_fast_paths.py compares them)."""
        face = self.faces[card]
        self.pile.append(card)
        self.discard += (face,)
        self.up[card] = True
        self.up_faces[card] = face
        if not self.public[card]:
            self.public[card] = True
            for seen in self.seen:
                seen[card] = face

    def take(self) -> int:
        """The pile's top card leaves for a drawer's hand: no longer face up, still known to all.
        Written out in Game.play_out too (tests/test_fast_paths.py compares them)."""
        card = self.pile.pop()
        self.discard = self.discard[:-1]
        self.up[card] = False
        self.up_faces[card] = UNKNOWN
        return card

    def gather(self) -> list[int]:
        """All of the pile but its top card, taken away to become a new deck: nobody knows those cards any more."""
        *moved, top = self.pile
        self.pile = [top]
        self.discard = (self.faces[top],)
        for card in moved:
            self.forget(card)
        return moved

    # ------------------------------------------------------------------ hands

    def replace_hand(self, owner: int, cards: list[int]) -> None:
        """``owner``'s hand becomes ``cards`` (ids, in hand order); the cards it held and no longer holds belong to nobody."""
        for card in self.hands[owner]:
            self.owner[card] = -1
        self.hands[owner] = cards
        for card in cards:
            self.owner[card] = owner
        self._changed(owner)

    def exchange(self, owner: int, position: int, card: int, face_up: bool, seer: int) -> int:
        """``card`` (a drawn card: held by nobody, face down) takes the place of ``owner``'s card at ``position``,
        which goes face up to the discard pile (and is returned). ``face_up`` says how the new card lies, and
        is true only for a public card (one taken from the pile: everybody knows it already, so no view of it changes
        but the flags); ``seer`` (a seat, or -1) learns it. Written out in Game.play_out too, for a drawn card's one-card exchange
        (tests/test_fast_paths.py compares them)."""
        hand = self.hands[owner]
        old = hand[position]
        hand[position] = card
        held = self.owner
        held[old] = -1
        held[card] = owner
        faces = self.faces
        up = self.up
        # The hand's face-up flags change only at ``position``, from the old card's to the new one's (a drawn card lies
        # face down until here)
        if face_up:
            flags_changed = not up[old]
            up[card] = True
            self.up_faces[card] = faces[card]
        else:
            flags_changed = up[old]
        if seer >= 0:
            self.seen[seer][card] = faces[card]
        # self.land(old), written out: most turns come here (tests/test_fast_paths.py replays games with land)
        out = faces[old]
        self.pile.append(old)
        self.discard += (out,)
        up[old] = True
        self.up_faces[old] = out
        public = self.public
        if not public[old]:
            public[old] = True
            for seen in self.seen:
                seen[old] = out
        if not self.memory:
            self._changed(owner, flags_changed)
            return old
        # Only the card at ``position`` changed: a seat's view of the hand changes only where it knows the new
        # card otherwise than it knew the old one, and only those views are rebuilt. A public new card (taken from
        # the pile) is known to every seat: all views are rebuilt without a test each (rebuilding a view that did
        # not change gives an equal tuple).
        get = itemgetter(*hand) if len(hand) > 1 else _getter(hand)
        views = self.views
        seat = 0
        seen_by = self.seen
        if public[card]:
            for rows in self._rows:
                rows[owner] = get(seen_by[seat])
                views[seat] = tuple(rows)
                seat += 1
        else:
            for rows in self._rows:
                seen = seen_by[seat]
                if rows[owner][position] is not seen[card]:
                    rows[owner] = get(seen)
                    views[seat] = tuple(rows)
                seat += 1
        if flags_changed:
            self._up_rows[owner] = get(up)
            self.up_view = tuple(self._up_rows)
        return old

    def insert(self, owner: int, index: int, card: int) -> None:
        """``card`` joins ``owner``'s hand at ``index`` (``len(hand)``: at the end)."""
        self.hands[owner].insert(index, card)
        self.owner[card] = owner
        self._changed(owner)

    def remove(self, owner: int, position: int) -> int:
        """``owner``'s card at ``position`` leaves the hand (the gap closes); returns it."""
        card = self.hands[owner].pop(position)
        self.owner[card] = -1
        self._changed(owner)
        return card

    def swap(self, a: int, pa: int, b: int, pb: int) -> None:
        """Seat ``a``'s card at ``pa`` and seat ``b``'s at ``pb`` change places (nobody sees them)."""
        mine, theirs = self.hands[a], self.hands[b]
        mine[pa], theirs[pb] = theirs[pb], mine[pa]
        self.owner[mine[pa]] = a
        self.owner[theirs[pb]] = b
        self._changed(a)
        if b != a:
            self._changed(b)

    def reveal_all(self) -> None:
        """Every card in every hand is shown to everybody (the game's end): :meth:`reveal` of each, with each hand's
        views rebuilt once (not once a card)."""
        faces, public, seen_by = self.faces, self.public, self.seen
        for owner, hand in enumerate(self.hands):
            shown = False
            for card in hand:
                if not public[card]:
                    public[card] = True
                    face = faces[card]
                    for seen in seen_by:
                        seen[card] = face
                    shown = True
            if shown:
                self._changed(owner)

    def copy(self, faces: list[Card] | None = None) -> "Knowledge":
        """An independent copy (the views are immutable tuples, shared), with ``faces`` for its cards if given
        (:meth:`dealt`'s fresh round)."""
        new = Knowledge.__new__(Knowledge)
        new.faces = self.faces if faces is None else faces  # never changed during a round
        new.n = self.n
        new.memory = self.memory
        new.hands = [*map(list, self.hands)]  # (no comprehension's function and frame; list() for hands given as tuples)
        new.pile = [*self.pile]  # ([*x] builds the list without a call: cheaper than list(x))
        new.discard = self.discard
        new.up = [*self.up]
        new.public = [*self.public]
        new.seen = [*map(_copy_list, self.seen)]  # (lists Knowledge made: list.copy is called faster than list)
        new.up_faces = [*self.up_faces]
        new.owner = [*self.owner]
        new._rows = [*map(_copy_list, self._rows)]
        new._up_rows = [*self._up_rows]
        new.views = [*self.views]  # the tuples in it are never changed: shared
        new.up_view = self.up_view
        return new


_FRESH: dict[tuple[int, int, int, bool], Knowledge] = {}  # Knowledge.dealt's fresh rounds, by table shape
