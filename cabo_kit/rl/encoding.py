"""One fixed action index and one observation encoding for a preset and table size (numpy and cabo_kit only).

This module is what a trained policy needs at play time: a submitted bot file imports it, so it
imports no RL library (the environments in :mod:`cabo_kit.rl` are built on it).

**Seats are relative to the deciding seat** everywhere here, as in Hanabi's observations: seat
offset ``0`` is you, ``1`` your left neighbour (the next to play), and so on. One policy can so
play any seat: ``Spy(seat=2, position=1)`` decided by seat 1 is "spy on offset +1, position 1".

**The action index** (:class:`ActionIndex`) numbers every action on hands of up to
:data:`MAX_POSITIONS` positions, and multi-exchanges of up to :data:`MAX_MULTI` cards, once and
for all for ``(rules, n_players)``. The kinds come in this order, each present only when the
rules can produce it:

==================  ==================================================================
kind                entries
==================  ==================================================================
``deck`` ``take``   one each: ``DrawDeck``, ``DrawDiscard``, ``CallCabo``, ``Discard``,
``cabo`` ...        ``Pass``
``exchange``        ``Exchange((p,))`` for p < P
``multi``           ``Exchange(ps)`` for 2 <= len(ps) <= MAX_MULTI, ps within range(P),
                    by size then lexicographic (``rules.multi_exchange`` only)
``place``           ``Place(i)`` for i <= P (``rules.multi_exchange`` only)
``peek``            ``Peek(p)``
``spy``             ``Spy(offset, p)``, offset 1..n-1
``swap``            ``Swap(own, offset, p)``, offset 1..n-1
``snap`` ``give``   ``Snap(offset, p)``, offset 0..n-1; ``Give(p)`` (``rules.snapping``)
``look``            ``InitialPeek(ps)``, every choice of ``initial_peeks`` positions of the
                    dealt hand (``rules.peek_choice``)
==================  ==================================================================

A legal action outside the index (a position at P or beyond, a multi-exchange of more than
MAX_MULTI cards) is left out of the mask, never an error; :meth:`ActionIndex.unindexed` counts
them (``benchmarks/rl_index_coverage.py`` measures how rare they are).

>>> import cabo_kit as ck
>>> game = ck.Game(ck.Rules.preset("deluxe"), seed=1, n_players=2)
>>> index = ActionIndex(game.rules, 2)
>>> index.size
985
>>> obs = game.observation(0)                     # the set-up look: six choices of two positions
>>> mask = index.mask(obs.legal_actions, seat=0)
>>> int(mask.sum()), [str(index.action(int(i), seat=0)) for i in mask.nonzero()[0][:2]]
(6, ['look 0,1', 'look 0,2'])
>>> index.index(ck.Spy(0, 3), seat=1), index.describe(index.index(ck.Spy(0, 3), seat=1))
(826, 'spy +1:3')

**The observation encoding** (:func:`encode`, or :class:`Encoder` for one table) turns an
:class:`~cabo_kit.Observation` alone into a float32 vector in [-1, 1], so it holds nothing the
seat may not know. Its blocks, in order (``Encoder.layout`` gives each block's slice):

- ``hands``: for each seat offset, for each position p < P, 3 + 15 numbers: a card is there,
  it lies face up, this seat knows its face, then its value one-hot (values -1..13: a joker,
  0..13; a red king is 0, a black king 13). Positions at P or beyond are left out.
- ``hand_stats``: for each seat offset: cards in hand / P, unknown cards / P, the sum of the
  known values / 100 (each clipped to [-1, 1]).
- ``discard_top``: the pile's top value one-hot (15), then "the pile is empty".
- ``discard_counts``: how many cards of each value the observation shows in the pile / 8
  (``memory="none"`` shows only the top).
- ``drawn``: the drawn card's value one-hot (15), then "a card is drawn that this seat
  cannot see"; ``drawn_from``: deck, discard, penalty.
- ``phase`` (10, in :class:`~cabo_kit.Phase`'s order); ``power`` (5, in
  :class:`~cabo_kit.Power`'s order).
- ``current``: whose turn (offset one-hot); ``to_move``: this seat must decide now.
- ``caller``: offset one-hot, then "nobody has called"; ``start_player``: offset one-hot.
- ``target`` (a spy-then-swap's card), ``give_to`` (a snapper's gap): offset one-hot, then
  position one-hot (P).
- ``picked``: a multi-exchange's positions (P); ``exchange_ok``: ok, failed.
- ``piles``: cards left in the deck / the full deck.
- ``scores``: game totals by seat offset / 100, clipped; ``progress``: round / max_rounds,
  turn / max_turns.

Whatever the seat has seen and forgotten is not there (``memory="none"``), and nothing else is:
the events are not encoded beyond what the hands, the pile and the moment already show.

>>> enc = Encoder(game.rules, 2)
>>> x = encode(obs)
>>> x.shape == (enc.size,), x.dtype, enc.layout["phase"]
(True, dtype('float32'), slice(488, 498, None))
>>> float(x[enc.layout["phase"]][0])              # phase "look"
1.0
"""

from __future__ import annotations

import operator
import struct
from itertools import combinations
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..actions import (
    Action, CallCabo, Discard, DrawDeck, DrawDiscard, Exchange, Give, IllegalActionError, InitialPeek, LegalActions,
    Pass, Peek, Place, Snap, Spy, Swap,
)
from ..observation import Observation, Phase
from ..rules import POWERS, Rules

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["ENCODING_VERSION", "MAX_POSITIONS", "MAX_MULTI", "ActionIndex", "Encoder", "encode", "action_index",
           "encoder"]

#: The encoding's and the action index's version: a saved policy records it, and a bot file refuses another.
ENCODING_VERSION = 1
#: P: hand positions the index and the encoding cover (hands grow past the dealt size through penalties).
MAX_POSITIONS = 12
#: The most cards a multi-exchange in the index exchanges at once.
MAX_MULTI = 4

_VALUES = 15  # card values -1..13
_PHASES = tuple(Phase)
_PHASE_AT = {p: i for i, p in enumerate(_PHASES)}
_POWER_AT = {p: i for i, p in enumerate(POWERS)}
_DRAWN_FROM = {"deck": 0, "discard": 1, "penalty": 2}


class ActionIndex:
    """Every action of ``(rules, n_players)`` on hands of up to P positions, numbered once (see the module docstring).

    ``positions`` (P) and ``multi`` (the largest multi-exchange) default to :data:`MAX_POSITIONS` and
    :data:`MAX_MULTI`; ``multi=positions`` numbers every multi-exchange of a hand of up to P cards
    (4,083 of them for P = 12), for a learner that wants them all.

    Seats in the numbering are offsets from the deciding seat, so :meth:`index`, :meth:`action`
    and :meth:`mask` take that seat.

    >>> import cabo_kit as ck
    >>> index = ActionIndex(ck.Rules.preset("rush"), 3)
    >>> i = index.index(ck.Swap(0, 0, 2), seat=2)          # seat 2 swaps its card 0 with seat 0's card 2
    >>> index.describe(i), index.action(i, seat=2)
    ('swap 0 +1:2', Swap(own=0, seat=0, position=2))
    >>> index.index(ck.Peek(12), seat=0) is None            # position 12: outside the index
    True
    """

    def __init__(self, rules: Rules, n_players: int, positions: int = MAX_POSITIONS, multi: int = MAX_MULTI) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a cabo_kit.Rules (e.g. Rules.preset('deluxe')), not {type(rules).__name__}")
        rules.check_players(n_players)
        if not (isinstance(positions, int) and positions >= rules.hand_size):
            raise ValueError(f"positions={positions!r}: the index must cover at least the dealt hand ({rules.hand_size})")
        if not (isinstance(multi, int) and 2 <= multi <= positions):
            raise ValueError(f"multi={multi!r}: a multi-exchange picks 2 to positions={positions} cards")
        self.rules = rules
        self.n_players = n = n_players
        self.positions = P = positions
        self.multi = multi
        # Each entry: (kind, args with seats as offsets); kinds are the action classes.
        entries: list[tuple[type[Action], tuple[Any, ...]]] = [
            (DrawDeck, ()), (DrawDiscard, ()), (CallCabo, ()), (Discard, ()), (Pass, ())]
        self.kinds: dict[str, slice] = {}

        def add(kind: str, items: list[tuple[type[Action], tuple[Any, ...]]]) -> None:
            self.kinds[kind] = slice(len(entries), len(entries) + len(items))
            entries.extend(items)

        self.kinds["simple"] = slice(0, 5)
        add("exchange", [(Exchange, ((p,),)) for p in range(P)])
        subsets: list[tuple[int, ...]] = []
        if rules.multi_exchange:
            subsets = [c for k in range(2, multi + 1) for c in combinations(range(P), k)]
            add("multi", [(Exchange, (c,)) for c in subsets])
            add("place", [(Place, (i,)) for i in range(P + 1)])
        add("peek", [(Peek, (p,)) for p in range(P)])
        add("spy", [(Spy, (k, p)) for k in range(1, n) for p in range(P)])
        add("swap", [(Swap, (o, k, p)) for o in range(P) for k in range(1, n) for p in range(P)])
        if rules.snapping:
            add("snap", [(Snap, (k, p)) for k in range(n) for p in range(P)])
            add("give", [(Give, (p,)) for p in range(P)])
        if rules.peek_choice and rules.initial_peeks:
            dealt = min(rules.hand_size, P)
            add("look", [(InitialPeek, (c,)) for c in combinations(range(dealt), rules.initial_peeks)])
        self._entries = entries
        self.size = len(entries)
        # The multi-exchanges legal on a hand of m cards are all subsets of range(m): their indices, by m.
        first = self.kinds["multi"].start if subsets else 0
        self._multi_upto: list[NDArray[np.intp]] = [
            np.array([first + i for i, c in enumerate(subsets) if c[-1] < m], dtype=np.intp) for m in range(P + 1)]
        self._by_seat: list[dict[Action, int] | None] = [None] * n
        self._actions: list[tuple[Action, ...] | None] = [None] * n
        self._masks: dict[tuple[Any, int], tuple[NDArray[np.bool_], int]] = {}

    # -------------------------------------------------------------- one seat's table

    def _resolve(self, seat: int, kind: type[Action], args: tuple[Any, ...]) -> Action:
        n = self.n_players
        if kind is Spy or kind is Snap:
            return kind((seat + args[0]) % n, args[1])
        if kind is Swap:
            return kind(args[0], (seat + args[1]) % n, args[2])
        return kind(*args)

    def _table(self, seat: int) -> dict[Action, int]:
        table = self._by_seat[seat] if 0 <= seat < self.n_players else None
        if table is None:
            if not (isinstance(seat, int) and 0 <= seat < self.n_players):
                raise ValueError(f"seat={seat!r} is not a seat of this {self.n_players}-player table")
            actions = tuple([self._resolve(seat, kind, args) for kind, args in self._entries])
            self._actions[seat] = actions
            table = self._by_seat[seat] = {a: i for i, a in enumerate(actions)}
        return table

    # -------------------------------------------------------------- the public API

    def index(self, action: Action, seat: int) -> int | None:
        """The number of ``action`` decided by ``seat``, or ``None`` if it lies outside the index."""
        return self._table(seat).get(action)

    def action(self, i: int, seat: int, legal: Sequence[Action] | None = None) -> Action:
        """The action number ``i`` stands for when ``seat`` decides; with ``legal``, checked against it.

        >>> import cabo_kit as ck
        >>> ActionIndex(ck.Rules.preset("deluxe"), 2).action(0, seat=1, legal=(ck.Pass(),))
        Traceback (most recent call last):
        ...
        cabo_kit.actions.IllegalActionError: action 0 (deck) is not legal for seat 1 now; legal: pass
        >>> ActionIndex(ck.Rules.preset("deluxe"), 2).action(2.0, seat=1)
        Traceback (most recent call last):
        ...
        ValueError: action 2.0 is not in the index: give a number from 0 to 984
        """
        actions = self.actions(seat)
        try:
            if isinstance(i, (bool, np.bool_)):  # True is not action 1: a mask passed by mistake, most likely
                raise TypeError
            i = operator.index(i)  # an int or a numpy integer; a float or a text is a mistake, not rounded
            if i < 0:
                raise IndexError
            action = actions[i]
        except (IndexError, TypeError, ValueError):
            raise ValueError(f"action {i!r} is not in the index: give a number from 0 to {self.size - 1}") from None
        if legal is not None and action not in legal:
            shown = ", ".join(str(a) for a in list(legal)[:12]) + (", ..." if len(legal) > 12 else "")
            raise IllegalActionError(f"action {i} ({action}) is not legal for seat {seat} now; legal: {shown}")
        return action

    def actions(self, seat: int) -> Sequence[Action]:
        """Every action of the index as ``seat`` would play it, by number (a shared tuple: ``action(i, seat)``
        without the checks, for a caller that checks legality itself).

        >>> import cabo_kit as ck
        >>> index = ActionIndex(ck.Rules.preset("deluxe"), 2)
        >>> index.actions(1)[826], index.action(826, seat=1)
        (Spy(seat=0, position=3), Spy(seat=0, position=3))
        """
        self._table(seat)
        actions = self._actions[seat]
        assert actions is not None
        return actions

    def mask(self, legal: Sequence[Action], seat: int) -> "NDArray[np.bool_]":
        """A fresh boolean array of :attr:`size`: which numbers stand for one of ``legal`` (``seat``'s legal actions)."""
        return self._mask(legal, seat)[0].copy()

    def unindexed(self, legal: Sequence[Action], seat: int) -> int:
        """How many of ``legal`` lie outside the index (left out of :meth:`mask`)."""
        return self._mask(legal, seat)[1]

    def legal_indices(self, legal: Sequence[Action], seat: int) -> "NDArray[np.intp]":
        """The numbers of the legal actions in the index, ascending."""
        return np.flatnonzero(self._mask(legal, seat)[0])

    def describe(self, i: int) -> str:
        """Action number ``i`` in words, seats as offsets (``spy +1:3``, ``swap 0 +2:1``, ``snap +0:2``)."""
        kind, args = self._entries[i]
        if kind is Spy or kind is Snap:
            return f"{kind.keyword} +{args[0]}:{args[1]}"
        if kind is Swap:
            return f"swap {args[0]} +{args[1]}:{args[2]}"
        return str(kind(*args))

    def _mask(self, legal: Sequence[Action], seat: int) -> tuple["NDArray[np.bool_]", int]:
        key = (legal, seat)
        try:
            found = self._masks.get(key)
        except TypeError:  # an unhashable list of actions
            key = (tuple(legal), seat)
            found = self._masks.get(key)
        if found is not None:
            return found
        table = self._table(seat)
        out = np.zeros(self.size, dtype=np.bool_)
        missing = 0
        if isinstance(legal, LegalActions):
            fixed: Sequence[Action] = tuple(tuple.__iter__(legal))
            m = legal.hand_size
            out[self._multi_upto[min(m, self.positions)]] = True
            in_index = len(self._multi_upto[min(m, self.positions)])
            missing += (2**m - m - 1 if m >= 2 else 0) - in_index
        else:
            fixed = legal
        found_at = []
        for a in fixed:
            i = table.get(a)
            if i is None:
                missing += 1
            else:
                found_at.append(i)
        out[found_at] = True
        out.flags.writeable = False
        if len(self._masks) > 8192:
            self._masks.clear()
        result = self._masks[key] = (out, missing)
        return result


class Encoder:
    """The observation encoding for ``(rules, n_players)``: :attr:`size` float32 numbers in [-1, 1] (module docstring).

    >>> import cabo_kit as ck
    >>> enc = Encoder(ck.Rules.preset("rush"), 4)
    >>> obs = ck.Game(enc.rules, seed=3, n_players=4).observation(2)
    >>> x = enc.encode(obs)
    >>> hand = x[enc.layout["hands"]].reshape(4, enc.positions, 18)[0]   # offset 0: seat 2's own hand
    >>> [int(row[2]) for row in hand[:4]]                               # rush: the last two cards are known
    [0, 0, 1, 1]
    """

    #: How many entries each of the encoder's caches (hands, piles, moments, scores) holds at most before it is
    #: emptied: a few MB in all (a bot file runs under a memory limit).
    CACHE_SIZE = 4096

    def __init__(self, rules: Rules, n_players: int, positions: int = MAX_POSITIONS) -> None:
        rules.check_players(n_players)
        self.rules = rules
        self.n_players = n = n_players
        self.positions = P = positions
        self.version = ENCODING_VERSION
        sizes = [
            ("hands", n * P * (3 + _VALUES)), ("hand_stats", 3 * n), ("discard_top", _VALUES + 1),
            ("discard_counts", _VALUES), ("drawn", _VALUES + 1), ("drawn_from", 3), ("phase", len(_PHASES)),
            ("power", len(POWERS)), ("current", n), ("to_move", 1), ("caller", n + 1), ("start_player", n),
            ("target", n + P), ("give_to", n + P), ("picked", P), ("exchange_ok", 2), ("piles", 1), ("scores", n),
            ("progress", 2),
        ]
        self.layout: dict[str, slice] = {}
        at = 0
        for name, size in sizes:
            self.layout[name] = slice(at, at + size)
            at += size
        self.size = at
        self._full_deck = float(rules.deck_size(n))
        self._max_rounds = rules.max_rounds
        self._max_turns = rules.max_turns
        # The encoding is put together from byte strings of float32s, one per block group, each cached by what
        # it depends on, and joined once: a new table costs a few dict lookups, one join and one array view.
        # Seats in offset order (you first) for each deciding seat:
        self._order = [tuple((me + r) % n for r in range(n)) for me in range(n)]
        row = 3 + _VALUES
        card_rows: dict[int | None, tuple[bytes, bytes]] = {}
        for v in [None, *range(-1, _VALUES - 1)]:
            rows = []
            for up in (0.0, 1.0):
                numbers = [0.0] * row
                numbers[0], numbers[1] = 1.0, up
                if v is not None:
                    numbers[2] = numbers[4 + v] = 1.0
                rows.append(_pack(numbers))
            card_rows[v] = (rows[0], rows[1])
        # A card's row by (its value, face up): what map() looks up for each card of a hand.
        self._row_of = {(v, up): rows[up] for v, rows in card_rows.items() for up in (False, True)}.__getitem__
        self._no_cards = [bytes(4 * row * k) for k in range(P + 1)]  # the rows of k positions without a card
        self._stats = struct.Struct("=3f")
        # The piles block by the cards left in the deck (more than a full deck, which a deck never holds: 1).
        self._piles = [_pack([k / self._full_deck]) for k in range(int(self._full_deck))] + [_pack([1.0])]
        self._progress: dict[tuple[int, int], bytes] = {}
        self._hands: dict[Any, tuple[bytes, bytes]] = {}
        self._recent: list[tuple[Any, Any, bytes, bytes]] = [(_NOTHING, _NOTHING, b"", b"")] * n  # by seat
        self._turns: dict[Any, bytes] = {}
        self._whos: dict[Any, bytes] = {}
        self._spots: dict[Any, bytes] = {}
        self._scores: dict[Any, bytes] = {}
        self._short_piles: dict[Any, bytes] = {}
        self._pile: tuple[Any, list[int] | None, bytearray | None, bytes] = ((), [], bytearray(), b"")
        self._pile_block(())

    def encode(self, obs: Observation, out: "NDArray[np.float32] | None" = None) -> "NDArray[np.float32]":
        """The encoding of ``obs`` (written into ``out`` if given, every number of it)."""
        # One unpacking instead of a property call per field (an Observation is a NamedTuple of these fields).
        (me, n, rules, _, round_, turn, phase, current, _, start_player, caller, deck_size, drawn, drawn_from, power,
         target, picked, exchange_ok, give_to, hands, face_up, discard, scores, _, _, legal) = obs
        if n != self.n_players or (rules is not self.rules and rules != self.rules):
            raise ValueError(
                f"this Encoder is for {self.rules.name} with {self.n_players} players; the observation is "
                f"{rules.name} with {n}: make one with Encoder(obs.rules, obs.n_players) or call encode(obs)")
        recent = self._recent
        cache = self._hands
        key: Any
        rows: list[bytes | bytearray] = []
        stats: list[bytes] = []
        for s in self._order[me]:
            hand = hands[s]
            up = face_up[s]
            seen = recent[s]
            if seen[0] is not hand or seen[1] is not up:  # the engine hands out an unchanged hand as the same tuple
                key = (hand, up)
                seen = recent[s] = (hand, up, *(cache.get(key) or self._hand_block(key)))
            rows.append(seen[2])
            stats.append(seen[3])
        pile = self._pile
        if discard is not pile[0] and discard != pile[0]:
            pile = self._pile_block(discard)
        key = (drawn, drawn_from, phase, power)
        turn_block = self._turns.get(key) or self._turn_block(key)
        key = (me, current, caller, start_player, bool(legal))
        who_block = self._whos.get(key) or self._who_block(key)
        key = (me, target, give_to, picked, exchange_ok)
        spots_block = self._spots.get(key) or self._spots_block(key)
        key = (scores, me)
        scores_block = self._scores.get(key) or self._scores_of(key)
        key = (round_, turn)
        rows += stats
        rows += (pile[3], turn_block, who_block, spots_block,
                 self._piles[deck_size] if deck_size < len(self._piles) else self._piles[-1], scores_block,
                 self._progress.get(key) or self._progress_of(key))
        # A dtype object and the count: a third of the call's cost of dtype=np.float32 and no count.
        if out is None:
            return np.frombuffer(_JOIN(rows), _FLOAT32, self.size)
        out[:] = np.frombuffer(b"".join(rows), _FLOAT32, self.size)
        return out

    # Each block below is cached by what it depends on; a cache that fills up is emptied (a new game needs few).

    def _keep(self, cache: dict[Any, Any], key: Any, value: Any) -> Any:
        if len(cache) >= self.CACHE_SIZE:
            cache.clear()
        cache[key] = value
        return value

    def _hand_block(self, key: tuple[Sequence[Any], Sequence[bool]]) -> tuple[bytes, bytes]:
        """One seat's ``hands`` rows and its ``hand_stats``, as float32 bytes."""
        hand, up = key
        P = self.positions
        values = [card.value for card in hand]
        n, unknown, total = len(hand), values.count(None), sum(filter(None, values))  # only ?? has no value
        parts = list(map(self._row_of, zip(values if n <= P else values[:P], up)))
        parts.append(self._no_cards[P - len(parts)])
        total /= 100
        stats = self._stats.pack(n / P if n < P else 1.0, unknown / P if unknown < P else 1.0,
                                 total if -1.0 <= total <= 1.0 else (1.0 if total > 0 else -1.0))
        return self._keep(self._hands, key, (b"".join(parts), stats))

    def _pile_block(self, discard: Sequence[Any]) -> tuple[Any, list[int] | None, bytearray | None, bytes]:
        """The ``discard_top`` and ``discard_counts`` blocks as float32 bytes, after the pile, its counts by value
        and the counts block being written.

        Counted on from the last pile encoded when this pile continues it (as it mostly does: cards are added on
        top until a reshuffle or a new round), so a long pile is not counted again at each step; a short pile
        (in random play most piles counted afresh hold a card or two) is looked up whole."""
        pile: tuple[Any, list[int] | None, bytearray | None, bytes]
        short = len(discard) <= _SHORT_PILE
        if short:
            found = self._short_piles.get(discard)
            if found is not None:
                pile = self._pile = (discard, None, None, found)  # nothing to count on from: the next pile counts
                return pile
        last = self._pile
        k = len(last[0])
        counts: list[int]
        block: bytearray
        if last[1] is not None and last[2] is not None and 0 < k < len(discard) and discard[:k] == last[0]:
            counts, block = last[1], last[2]  # carried on in place: the last pile's state is replaced below
            rest = discard[k:]
        else:
            counts, block = [0] * _VALUES, bytearray(4 * _VALUES)
            rest = discard
        for card in rest:
            v = card.value
            if v is not None:
                c = counts[v + 1] = counts[v + 1] + 1
                block[4 * v + 4:4 * v + 8] = _COUNT_SHARE[c if c < 8 else 8]
        top = _TOPS[discard[-1].value if discard else "empty"]
        pile = self._pile = (discard, counts, block, top + block)
        if short:
            self._keep(self._short_piles, discard, pile[3])
        return pile

    def _turn_block(self, key: tuple[Any, ...]) -> bytes:
        """The ``drawn``, ``drawn_from``, ``phase`` and ``power`` blocks as float32 bytes."""
        drawn, drawn_from, phase, power = key
        numbers = [0.0] * (_VALUES + 1 + 3 + len(_PHASES) + len(POWERS))
        if drawn is not None:
            v = drawn.value
            numbers[_VALUES if v is None else 1 + v] = 1.0
            where = _DRAWN_FROM.get(drawn_from)
            if where is not None:
                numbers[_VALUES + 1 + where] = 1.0
        numbers[_VALUES + 4 + _PHASE_AT[phase]] = 1.0
        if power is not None:
            numbers[_VALUES + 4 + len(_PHASES) + _POWER_AT[power]] = 1.0
        return self._keep(self._turns, key, _pack(numbers))

    def _who_block(self, key: tuple[int, int, int | None, int, bool]) -> bytes:
        """The ``current``, ``to_move``, ``caller`` and ``start_player`` blocks as float32 bytes."""
        me, current, caller, start_player, to_move = key
        n = self.n_players
        numbers = [0.0] * (3 * n + 2)
        numbers[(current - me) % n] = 1.0
        numbers[n] = 1.0 if to_move else 0.0
        numbers[n + 1 + (n if caller is None else (caller - me) % n)] = 1.0
        numbers[2 * n + 2 + (start_player - me) % n] = 1.0
        return self._keep(self._whos, key, _pack(numbers))

    def _spots_block(self, key: tuple[Any, ...]) -> bytes:
        """The ``target``, ``give_to``, ``picked`` and ``exchange_ok`` blocks as float32 bytes."""
        me, target, give_to, picked, exchange_ok = key
        n, P = self.n_players, self.positions
        numbers = [0.0] * (3 * P + 2 * n + 2)
        for at, spot in ((0, target), (n + P, give_to)):
            if spot is not None:
                s, p = spot
                numbers[at + (s - me) % n] = 1.0
                if p < P:
                    numbers[at + n + p] = 1.0
        for p in picked:
            if p < P:
                numbers[2 * (n + P) + p] = 1.0
        if exchange_ok is not None:
            numbers[3 * P + 2 * n + (0 if exchange_ok else 1)] = 1.0
        return self._keep(self._spots, key, _pack(numbers))

    def _scores_of(self, key: tuple[Sequence[int], int]) -> bytes:
        """The ``scores`` block (the seats' game totals by offset from ``me``) as float32 bytes."""
        totals, me = key
        return self._keep(self._scores, key, _pack([max(-1.0, min(totals[s] / 100, 1.0)) for s in self._order[me]]))

    def _progress_of(self, key: tuple[int, int]) -> bytes:
        """The ``progress`` block (round, turn) as float32 bytes."""
        round_, turn = key
        return self._keep(self._progress, key, _pack([round_ / self._max_rounds if round_ < self._max_rounds else 1.0,
                                                      turn / self._max_turns if turn < self._max_turns else 1.0]))


_SHORT_PILE = 4  # piles of up to this many cards are cached whole
_JOIN = bytearray().join  # a fresh bytearray: the array viewing it is writable
_FLOAT32 = np.dtype(np.float32)
_NOTHING = object()  # no hand is this (not even (): an empty hand is the one empty tuple)


def _pack(numbers: Sequence[float]) -> bytes:
    return struct.pack(f"={len(numbers)}f", *numbers)


def _one_hot(size: int, i: int) -> bytes:
    numbers = [0.0] * size
    numbers[i] = 1.0
    return _pack(numbers)


# The discard_top block by the top card's value (None: an unknown card, counted as 0), or for an empty pile.
_TOPS: dict[Any, bytes] = {v: _one_hot(_VALUES + 1, 1 + (v if v is not None else 0)) for v in [None, *range(-1, _VALUES - 1)]}
_TOPS["empty"] = _one_hot(_VALUES + 1, _VALUES)
_COUNT_SHARE = [struct.pack("=f", min(k / 8, 1.0)) for k in range(9)]



_ENCODERS: dict[tuple[Rules, int], Encoder] = {}
_INDEXES: dict[tuple[Rules, int], ActionIndex] = {}


def encoder(rules: Rules, n_players: int) -> Encoder:
    """The (shared) :class:`Encoder` of ``(rules, n_players)``."""
    key = (rules, n_players)
    found = _ENCODERS.get(key)
    if found is None:
        found = _ENCODERS[key] = Encoder(rules, n_players)
    return found


def action_index(rules: Rules, n_players: int) -> ActionIndex:
    """The (shared) :class:`ActionIndex` of ``(rules, n_players)``: its mask cache serves every caller."""
    key = (rules, n_players)
    found = _INDEXES.get(key)
    if found is None:
        found = _INDEXES[key] = ActionIndex(rules, n_players)
    return found


def encode(obs: Observation) -> "NDArray[np.float32]":
    """The encoding of ``obs`` (see the module docstring), a fresh float32 array.

    >>> import cabo_kit as ck
    >>> obs = ck.Game(ck.Rules.preset("deluxe"), seed=4, n_players=3).observation(1)
    >>> encode(obs).shape
    (783,)
    """
    return encoder(obs.rules, obs.n_players).encode(obs)
