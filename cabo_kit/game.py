"""The game: a step-by-step state machine over rounds, turns and decisions.

A turn is a sequence of decisions. :attr:`Game.to_move` says which seats must decide
now (every seat at once in a deluxe set-up look and in a snap window);
:meth:`Game.legal_actions` lists what a seat may do; :meth:`Game.apply` checks and
carries out an action; :meth:`Game.observation` is what a seat may know. The game plays
round after round until the score sheet says it is over.

>>> import cabo_kit as ck
>>> game = ck.Game(ck.Rules.preset("deluxe"), seed=7, n_players=2)
>>> game.phase, game.to_move            # deluxe: both players choose the cards they look at
(<Phase.LOOK: 'look'>, (0, 1))
>>> events = game.apply(ck.InitialPeek((0, 1)), seat=0)     # apply returns what happened
>>> events = game.apply(ck.InitialPeek((2, 3)), seat=1)
>>> game.phase, game.to_move, game.legal_actions()
(<Phase.CHOOSE: 'choose'>, (0,), (DrawDeck(), DrawDiscard(), CallCabo()))
>>> [str(e.kind) for e in game.apply(ck.DrawDeck())]
['draw']
>>> game.phase == "drawn"
True

How the code is laid out: the round's cards, the discard pile, and who knows which card
live in a :class:`~cabo_kit.knowledge.Knowledge` (``game.know``), whose methods keep the
views observations hand out; the deck is a list of card ids; each phase has one method
that carries out its actions (``_MOVES``, at the end of the module, maps phase to
method); every event goes to the game's log and to the chains each seat's observations
read their events from (:meth:`Game._emit`).
"""

from __future__ import annotations

import _random
import random
import threading
from collections import deque
from functools import partial as _partial
from importlib import import_module
from itertools import combinations
from itertools import repeat as _repeat
from itertools import starmap as _starmap
from operator import attrgetter, itemgetter
from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar, cast

from .actions import (
    Action, CallCabo, Discard, DrawDeck, DrawDiscard, Exchange, Give, IllegalActionError, InitialPeek, LegalActions, Pass,
    Peek, Snap, Spy, Swap, is_legal,
)
from .actions import (  # the engine's shared action objects and legal-action tables (see actions.py)
    _ACTION_TYPES, _CABO, _CHOOSE, _DISCARD, _DISCARD_EX1_ALL, _DRAW_DECK, _DRAW_DISCARD, _EX1_ALL, _LOOKS, _MAXPOS, _MULTI, _PASS, _SWAPS, _ex1,
    _PLACE as _PLACES, _give, _peek, _place, _snap, _spy, _swap,
)
from .cards import UNKNOWN, Card
from .chance import Chance
from .knowledge import Knowledge, _getter, pick
from .observation import Event, EventKind, EventLog, Observation, Phase, _chain_log
from .rules import Power, Rules
from .scoring import ScoreSheet, _round_facts, next_start_player

__all__ = ["Game", "RoundResult", "SEAT_STATS"]

def _lean_sha512() -> Any:
    """The SHA-512 random.py seeds a generator from a text with, from the lean C module where there is
    one (``_sha2`` from Python 3.12, ``_sha512`` before): hashlib is heavier to import."""
    for module in ("_sha2", "_sha512"):
        try:
            return import_module(module).sha512
        except ImportError:
            continue
    from hashlib import sha512  # pragma: no cover - an interpreter without the lean modules
    return sha512  # pragma: no cover


_sha512: Any = _lean_sha512()  # resolved once
# The C constructor. From Python 3.11 it leaves the state unseeded (Random.__init__ seeds it); on 3.10 it
# seeds from the system's entropy first, which the seeding that follows it here overwrites.
_new_random: Any = random.Random.__new__
_seed_c: Any = _random.Random.seed  # the C seeding Random.seed ends with

T = TypeVar("T")

_new = tuple.__new__  # builds an Event without the NamedTuple's Python-level __new__
_index: Any = tuple.index  # the same scan, for a subclass too (LegalActions' own index enumerates), without the slot
# wrapper's argument tuple; it can also look at a window of the tuple only
_VALUE = attrgetter("value")  # a card's value
# (s,) for every seat and hand position, shared: grown (under the lock) for a deck of more cards, so that a
# hand position of a big layout finds its tuple too
_ONE_SEAT = [(s,) for s in range(64)]
_ONE_SEAT_LOCK = threading.Lock()


def _one_tuples_up_to(size: int) -> None:
    if size > len(_ONE_SEAT):
        with _ONE_SEAT_LOCK:
            if size > len(_ONE_SEAT):
                _ONE_SEAT.extend([(s,) for s in range(len(_ONE_SEAT), size)])  # (one C call: readers see old or new)


_OTHERS: dict[tuple[int, int], tuple[int, ...]] = {}
# The legal actions in a snap window, by the table's face-up flags (Knowledge.up_view).
_CLAIMS: dict[tuple[tuple[bool, ...], ...], tuple[Action, ...]] = {}
# A peek's or a spy's legal actions, by (peeking, seat, the table's face-up flags).
_LOOKS_AT: dict[tuple[bool, int, tuple[tuple[bool, ...], ...]], tuple[Action, ...]] = {}
_CARDS_AT: dict[tuple[int, ...], Callable[[Sequence[int]], tuple[int, ...]]] = {}  # _look's getters, by positions
# The legal actions with a drawn card, by [multi_exchange][may discard][hand size], filled as met.
_DRAWN_LEGAL: dict[bool, tuple[list[Any], list[Any]]] = {m: ([None] * _MAXPOS, [None] * _MAXPOS) for m in (False, True)}

# Phases, powers and event kinds as module names: the engine reads them on every move (an Enum's class
# attribute costs a slow lookup on Python 3.11).
LOOK, CHOOSE, DRAWN, POWER, SWAP = Phase.LOOK, Phase.CHOOSE, Phase.DRAWN, Phase.POWER, Phase.SWAP
PLACE, SNAP, GIVE, END_TURN, OVER = Phase.PLACE, Phase.SNAP, Phase.GIVE, Phase.END_TURN, Phase.OVER
PEEK, SPY, SWAP_POWER, PEEK_SWAP, SPY_SWAP = Power.PEEK, Power.SPY, Power.SWAP, Power.PEEK_SWAP, Power.SPY_SWAP
_PEEKING = (Power.PEEK, Power.PEEK_SWAP)  # the powers that start with a look at an own card
_SPYING = (Power.SPY, Power.SPY_SWAP)  # ... and with a look at another player's card
_K = EventKind
_E_DRAW, _E_TAKE, _E_DISCARD, _E_EXCHANGE = _K.DRAW, _K.TAKE, _K.DISCARD, _K.EXCHANGE
_E_PEEK, _E_SPY, _E_SWAP, _E_SKIP = _K.PEEK, _K.SPY, _K.SWAP, _K.SKIP
_E_LOOK, _E_FLIP = _K.LOOK, _K.FLIP
_HIDDEN1 = (UNKNOWN,)
# What the others see of seat s drawing from the deck: the same event every time, made once.
_HIDDEN_DRAW = [_new(Event, (_K.DRAW, s, (), _HIDDEN1, "")) for s in range(64)]
# The events of the usual turn that depend on a seat and one card only, made once each (events are values, shared
# between games as _HIDDEN_DRAW is), by seat, by face: a draw's log entry (event, seat, hidden), a take, a discard.
_DRAW_ENTRIES: list[dict[Card, tuple[Event, int, Event]]] = [{} for _ in range(64)]
_TAKES: list[dict[Card, Event]] = [{} for _ in range(64)]
_DISCARDS: list[dict[Card, Event]] = [{} for _ in range(64)]
# The history's (seat, action) pairs of the usual turn's fixed answers, by seat, made once (values, shared as those are).
_DECK_PAIRS = [(s, _DRAW_DECK) for s in range(64)]
_TAKE_PAIRS = [(s, _DRAW_DISCARD) for s in range(64)]
_DISCARD_PAIRS = [(s, _DISCARD) for s in range(64)]
_CABO_PAIRS = [(s, _CABO) for s in range(64)]
# Seat s's Cabo call as Game.play_out records it (Game._call makes its own: tests/test_fast_paths.py tells them apart)
_CABO_EVENTS = [_new(Event, (_K.CABO, s, (), (), "")) for s in range(64)]


def _draw_entry(seat: int, face: Card) -> tuple[Event, int, Event]:
    entry = _DRAW_ENTRIES[seat][face] = (_new(Event, (_E_DRAW, seat, (), (face,), "")), seat, _HIDDEN_DRAW[seat])
    return entry


def _one_card_event(cache: list[dict[Card, Event]], kind: EventKind, seat: int, face: Card) -> Event:
    event = cache[seat][face] = _new(Event, (kind, seat, (), (face,), ""))
    return event


# What the others see of seat s exchanging a card drawn from the deck for its card at p: by seat, by (p, the card given
# up), made once as the events above (few: the positions times the faces; the exchange's own event, which names the
# card kept too, is made each time: caches of that many pairs of faces that fill up over the games cost the garbage
# collector more than they save).
_EXCHANGES_HIDDEN: list[dict[tuple[int, Card], Event]] = [{} for _ in range(64)]


def _exchange_hidden(seat: int, p: int, out: Card) -> Event:
    cache = _EXCHANGES_HIDDEN[seat]
    if len(cache) >= 4096:
        cache.clear()
    event = cache[(p, out)] = _new(Event, (_E_EXCHANGE, seat, (p,), (out, UNKNOWN), ""))
    return event


SEAT_STATS = (
    "turns", "draws_deck", "draws_discard", "discards", "exchanges", "multi_exchanges", "failed_multi_exchanges",
    "penalty_cards", "peek", "spy", "swap", "peek_swap", "spy_swap", "powers_skipped",
    "snap_claims", "snaps", "snaps_right", "snaps_own", "gives", "cabo_calls",
)
"""Per-seat counters kept for every round (see :class:`RoundResult`)."""
_ZERO_STATS = dict.fromkeys(SEAT_STATS, 0)  # copied: much cheaper than building each round's dicts
_copy_dict = dict.copy
_E_ROUND, _E_END = _K.ROUND, _K.END


class RoundResult:
    """The facts of one finished round.

    Attributes: ``index`` (from 0), ``start_player``, ``caller``, ``caller_won``,
    ``ended_by`` (``"cabo" "deck" "empty_hand" "turn_limit"``), ``final_hands`` (lists of
    cards by seat), ``totals`` (hand sums), ``scores`` (round scores), ``game_totals``
    (after this round, resets applied), ``kamikaze`` and ``royal_roulette`` (seats),
    ``resets`` (seats reset to 50), ``turns``, ``snap_windows``, and ``stats``: by seat,
    a dict of the counters in :data:`SEAT_STATS`.
    """

    __slots__ = (
        "index", "start_player", "caller", "caller_won", "ended_by", "final_hands", "totals", "scores",
        "game_totals", "kamikaze", "royal_roulette", "resets", "turns", "snap_windows", "stats",
    )

    def __init__(
        self, *, index: int, start_player: int, caller: int | None, caller_won: bool | None, ended_by: str,
        final_hands: list[list[Card]], totals: list[int], scores: list[int], game_totals: list[int],
        kamikaze: list[int], royal_roulette: list[int], resets: list[int], turns: int, snap_windows: int,
        stats: list[dict[str, int]],
    ) -> None:
        # (the engine makes its results with _round_result, which stores the fields without this call: store only here)
        self.index = index
        self.start_player = start_player
        self.caller = caller
        self.caller_won = caller_won
        self.ended_by = ended_by
        self.final_hands = final_hands
        self.totals = totals
        self.scores = scores
        self.game_totals = game_totals
        self.kamikaze = kamikaze
        self.royal_roulette = royal_roulette
        self.resets = resets
        self.turns = turns
        self.snap_windows = snap_windows
        self.stats = stats

    index: int
    start_player: int
    caller: int | None
    caller_won: bool | None
    ended_by: str
    final_hands: list[list[Card]]
    totals: list[int]
    scores: list[int]
    game_totals: list[int]
    kamikaze: list[int]
    royal_roulette: list[int]
    resets: list[int]
    turns: int
    snap_windows: int
    stats: list[dict[str, int]]

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {k: getattr(self, k) for k in self.__slots__}
        out["final_hands"] = [[c.text for c in h] for h in self.final_hands]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> "RoundResult":
        # Unknown keys are ignored (a record from a later version may carry more facts).
        kw: dict[str, Any] = {k: v for k, v in data.items() if k in cls.__slots__}
        kw["final_hands"] = [[Card.parse(c) for c in h] for h in data["final_hands"]]  # type: ignore[attr-defined]
        return cls(**kw)

    def for_players(self) -> "RoundResult":
        """A copy fit for the players: without the count of losing snap claims, which nobody saw.

        >>> import cabo_kit as ck
        >>> rec = ck.play_game([ck.bots.RandomBot(), ck.bots.RandomBot()], ck.Rules.preset("rush"), seed=1)
        >>> "snap_claims" in rec.rounds[0].stats[0], "snap_claims" in rec.rounds[0].for_players().stats[0]
        (True, False)
        """
        copy = RoundResult.from_dict(self.to_dict())
        copy.stats = [{k: v for k, v in seat.items() if k != "snap_claims"} for seat in copy.stats]
        return copy

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RoundResult) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return (
            f"RoundResult(index={self.index}, ended_by={self.ended_by!r}, caller={self.caller}, "
            f"scores={self.scores}, game_totals={self.game_totals})"
        )


def _positional_maker(cls: type, names: Sequence[str]) -> Any:
    """A function ``make(*values)`` that returns a new ``cls`` with each of ``names`` set to its value, in order,
    without ``__init__`` (keyword arguments to a 15-argument ``__init__`` cost about twice the stores)."""
    body = "\n".join(f"    new.{name} = {name}" for name in names)
    namespace: dict[str, Any] = {"_object_new": object.__new__, "_cls": cls}
    exec(f"def make({', '.join(names)}):\n    new = _object_new(_cls)\n{body}\n    return new\n", namespace)
    return namespace["make"]


# _end_round's RoundResult (__init__ only stores its arguments; tests/test_fast_rounds.py compares the two)
_round_result = _positional_maker(RoundResult, RoundResult.__slots__)


def _turns_counted(game: "Game") -> None:
    """Set each seat's ``turns`` counter in ``game``'s stats: the turns finished this round (those before a
    layout's first turn not counted) go round the table from the first."""
    seat, turn = game._first_turn
    n = game.n
    played = game.turn - turn
    rounds = played // n  # every seat played `rounds` turns; `extra` seats one more (no divmod's call and tuple)
    extra = played - rounds * n
    s = 0
    for stats in game._stats:  # (no enumerate made)
        stats["turns"] = rounds + ((s - seat) % n < extra)
        s += 1


class Game:
    """A game of Cabo: rounds until the end condition, each a sequence of decisions.

    Args:
        rules: the :class:`~cabo_kit.rules.Rules` (e.g. ``Rules.preset("rush")``).
        seed: every random choice (shuffles, the first start player, snap races,
            reshuffles) comes from streams derived from this seed, the round and the
            purpose, so the same seed deals the same cards whatever is played.
        n_players: the table size.
        deck: optional stacked deck for the first round: cards in the order they are
            dealt and drawn (the first ``hand_size`` go to seat 0 as positions 0, 1, ...,
            the next to seat 1, and so on; then the first discard; then the draws). Only
            the cards you list are stacked; the rest of the full deck follows, shuffled.
        start_player: the first round's start player (default: drawn from the seed).
        memory: ``"engine"`` (observations show all a player has seen) or ``"none"``.
        chance: a :class:`~cabo_kit.chance.Chance` the engine asks first at each random
            event (each card dealt or drawn, the start player, each snap race, each
            reshuffle); where it answers ``None`` the seed decides, as without it.

    >>> import cabo_kit as ck
    >>> game = ck.Game(ck.Rules.preset("rush"), seed=1, n_players=2, start_player=0,
    ...                deck="2S 3S 4S 5S  2H 3H 4H 5H  9D  7C")
    >>> game.phase, game.to_move           # a snap window for the first discard
    (<Phase.SNAP: 'snap'>, (0, 1))
    >>> _ = game.apply(ck.Pass(), seat=0); _ = game.apply(ck.Pass(), seat=1)
    >>> [str(e) for e in game.apply(ck.DrawDeck())]     # what the engine saw
    ['seat 0 draws from the deck: 7♣']
    >>> game.observation(0).drawn
    Card('7C')
    """

    # Slots, not a __dict__: the engine reads its attributes on every decision, and this many are too
    # many for CPython's shared-key instance dicts, whose lookups are the fast ones.
    __slots__ = (
        # the game
        "rules", "seed", "n", "memory", "sheet", "history", "results", "log", "round", "phase",
        "first_start_player", "stacked_deck", "layout", "last_round_piles",
        "chance",  # the Chance asked at each random event, or None (the seed decides all)
        "chance_log",  # with a Chance: what each random event came out as (cards, snap winners, reshuffles)
        # the round: the cards on the table and who knows them, the deck (card ids, top last), the counters
        "know", "deck", "start_player", "_snap_rng", "_reshuffle_rng", "_windows",
        "_stats",  # the counters by seat, read as the property `stats` (which counts each seat's turns then)
        "_first_turn",  # (seat, turn) of the round's first turn played here: the stats' turns are counted from it
        # the turn and the decision under way
        "current", "turn", "caller", "drawn", "drawn_from", "power", "target", "picked", "exchange_ok", "give_to",
        "_movers", "_place_stage", "_pending", "_claims", "_window_claims", "_snapper", "_after",
        # how the round ends; _as_usual: none of caller, _end_after_turn, _empty_flag, _empty_left is set (_new_round
        # clears all four and sets it True; whoever sets one calls _ending_changed: _draw_card, _begin_turn, _call,
        # _after_snap, from_layout)
        "_call_turn", "_final_left", "_end_after_turn", "_empty_flag", "_empty_left", "_as_usual",
        # the round's events as chains of nested tuples (see _emit), how many, and where this turn's begin
        "_shared", "_own", "_event_count", "_turn_start",
        # remembered: the legal actions now (only where one seat decides: play_out reads the seat off _movers
        # then), the scores as tuples, rule flags read every turn
        "_legal", "_totals", "_round_scores", "_all_seats", "_drawn_legal", "_engine_memory", "_snapping", "_cabo_at_end",
        "_cabo_instead", "_choose_all", "_reshuffles", "_may_discard_taken", "_max_turns", "_end_of_turn",
        # a search's world (from_layout(rollout=True)): no events, no history, the game stops at the round's end
        "_rollout",
        # every round's full deck (unshuffled), its undealt card ids (top last) and the table's fresh Knowledge (each
        # round's copy gets the shuffled faces), made at the first deal
        "_deal",
        "_zero_stats",  # _ZERO_STATS once a seat: each round's counters are copies
    )

    deck: list[int]
    chance: Chance | None
    chance_log: tuple[list[Card], list[int], list[tuple[Card, ...]]] | None
    _pending: list[int]
    _legal: Sequence[Action] | None

    def __init__(
        self,
        rules: Rules,
        seed: int | str = 0,
        n_players: int = 2,
        *,
        deck: "Sequence[Card | str | int] | str | None" = None,
        start_player: int | None = None,
        memory: str = "engine",
        chance: Chance | None = None,
    ) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a cabo_kit.Rules (e.g. Rules.preset('deluxe')), not {type(rules).__name__}")
        rules.check_players(n_players)
        self._setup(rules, seed, n_players, memory)
        self.chance = chance
        if chance is not None:
            self.chance_log = ([], [], [])
        #: The stacked first-round deck given to the constructor (``None`` if none).
        self.stacked_deck = _parse_stack(deck) if deck is not None else None
        fixed = None if start_player is not None or chance is None else chance.start_player(self, n_players)
        if fixed is not None:
            start_player = _checked_seat(fixed, range(n_players), "start_player")
        if start_player is None:
            start_player = self._rng("start").randrange(n_players)
        elif not 0 <= start_player < n_players:
            raise ValueError(f"start_player={start_player} is not a seat of a {n_players}-player table")
        #: The first round's start player.
        self.first_start_player = start_player
        self._start_round(start_player, self.stacked_deck)

    def _setup(self, rules: Rules, seed: int | str, n: int, memory: str) -> None:
        """What every game has before its first round (shared by the constructor and :meth:`from_layout`)."""
        if memory not in ("engine", "none"):
            raise ValueError(f"memory={memory!r}: choose 'engine' or 'none'")
        self.rules = rules
        self.seed = seed
        self.n = n
        self.memory = memory
        self.chance = None
        #: With a Chance: what its events came out as, in order (each card dealt or drawn, each snap
        #: race's winner, each reshuffled deck top first), whether it or the seed decided them:
        #: what a :class:`~cabo_kit.record.GameRecord` keeps to replay the game. ``None`` without one.
        self.chance_log = None
        self._engine_memory = memory == "engine"
        self._rollout = False
        self._deal: tuple[list[Card], list[int], Knowledge] | None = None
        self._zero_stats = (_ZERO_STATS,) * n
        self.sheet = ScoreSheet(rules, n)
        if rules.deck_size(n) > 64:
            _one_tuples_up_to(rules.deck_size(n))
        self._round_scores: tuple[tuple[int, ...], ...]
        self._sync_scores()
        self.history: list[tuple[int, Action]] = []
        self.results: list[RoundResult] = []
        # Every event of the game: an Event everybody saw the same, or (the event, its one seer, as the others saw it).
        self.log: list[Event | tuple[Event, int, Event]] = []
        #: The layout a game made by :meth:`from_layout` started from (``None`` otherwise).
        self.layout: dict[str, object] | None = None
        #: The piles the last finished round ended with, as everyone saw them: ``(top card of the
        #: discard pile or None, its number of cards, the number of cards left in the deck)``;
        #: ``None`` before the first round ends. Read it once a round has ended (the next round is
        #: already dealt then). Not part of the game's record (a replay sets it again).
        self.last_round_piles: tuple[Card | None, int, int] | None = None
        self.stacked_deck = None
        self.round = -1
        self.phase = OVER
        self._movers: tuple[int, ...] = ()
        # Rule flags read on every turn (Rules is frozen, so copying them is safe).
        self._all_seats = tuple(range(n))
        self._snapping = rules.snapping
        self._cabo_at_end = rules.cabo_timing == "end_of_turn"
        self._cabo_instead = rules.cabo_timing == "instead"
        self._max_turns = rules.max_turns
        self._reshuffles = rules.deck_out == "reshuffle"
        self._may_discard_taken = rules.discard_draw_may_discard
        self._drawn_legal = _DRAWN_LEGAL[bool(rules.multi_exchange)]
        self._choose_all = _CHOOSE[True][True][self._cabo_instead]  # the legal choice with a deck, a pile and a hand
        # What _turn_ends does under these rules, as a plain function (called as self._end_of_turn(self)).
        self._end_of_turn = (
            Game._open_end_window if self._snapping else Game._end_turn if self._cabo_at_end else Game._finish_turn)

    # ----------------------------------------------------------------- set-up

    def _rng(self, purpose: str, round_no: int | None = None) -> random.Random:
        key = f"cabo-kit:{self.seed}:{purpose}" if round_no is None else f"cabo-kit:{self.seed}:{round_no}:{purpose}"
        return seeded_random(key)

    def _start_round(self, start_player: int, stack: list[Card] | None) -> None:
        rules, n = self.rules, self.n
        self.round = round_no = self.round + 1
        k = rules.hand_size
        deal = self._deal
        if deal is None:  # the same every round of the game
            full = rules.full_deck(n)
            deal = self._deal = (full, list(range(len(full) - 1, n * k - 1, -1)),  # the top of the deck is its last item
                                 Knowledge._fresh_deal(len(full), n, k, self._engine_memory))
        full = deal[0]
        rng = self._rng("shuffle", round_no)
        order = _shuffled(full, rng) if stack is None else _stacked(full, stack, rng)
        if self.chance is None:
            self._new_round(start_player, deal[2].copy(order))  # Knowledge.dealt(order, n, k, memory)
            self.deck = [*deal[1]]
        else:  # each card dealt is asked for: the same deal when every answer is None
            deck = list(range(len(order) - 1, -1, -1))
            hands = [[self._chance_card(deck, order) for _ in range(k)] for _ in range(n)]
            self._new_round(start_player, Knowledge(order, hands, self._engine_memory))
            self.deck = deck
        self._emit(_new(Event, (_E_ROUND, None, (self.round, start_player), (), "")))
        if rules.peek_choice and rules.initial_peeks:
            self.phase = LOOK
            self._pending = [*self._all_seats]
            self._movers = self._all_seats
            return
        peeks = rules.initial_peeks
        if peeks:  # each seat looks at its last `peeks` cards (every hand holds k now: the positions made once)
            positions = tuple(range(k - peeks, k))
            for s in range(n):
                self._look(s, positions)
        self._flip_first()

    def _new_round(self, start_player: int, know: Knowledge) -> None:
        """A fresh round's state: ``know``, the cards dealt, nothing else done."""
        n = self.n
        self.know = know
        self.deck = []
        self.start_player = start_player
        self._stats: list[dict[str, int]] = [*map(_copy_dict, self._zero_stats)]  # (no comprehension's function and frame)
        # Made on first use: seeding a generator costs more than most turns.
        self._snap_rng: random.Random | None = None
        self._reshuffle_rng: random.Random | None = None
        self._windows = 0
        self.current = start_player
        self.turn = 0
        self._first_turn = (start_player, 0)
        self.caller: int | None = None
        self.drawn: int | None = None
        self.drawn_from: str | None = None
        self.power: Power | None = None
        self.target: tuple[int, int] | None = None
        self.picked: tuple[int, ...] = ()
        self.exchange_ok: bool | None = None
        self.give_to: tuple[int, int] | None = None
        self._place_stage = ""
        self._pending = []
        self._claims: dict[int, Action] = {}
        self._window_claims: tuple[Action, ...] = ()
        self._snapper = -1
        self._after = ""
        self._call_turn = -1
        self._final_left = 0
        self._end_after_turn = False
        self._empty_flag = False
        self._empty_left: int | None = None
        self._as_usual = True  # (_ending_changed(): none of the four end-of-round facts is set)
        self._shared: Any = None
        self._own: list[Any] = [None] * n
        self._event_count = 0
        self._turn_start = 0
        self._legal = None

    def _flip_first(self) -> None:
        c = self._draw_card()
        if c is None:  # pragma: no cover - a deck always has a card here
            self._begin_turn()
            return
        know = self.know
        know.land(c)
        self._emit(_new(Event, (_E_FLIP, None, (), (know.faces[c],), "")))
        self._open_window("start")

    # ------------------------------------------------------------ events

    def _emit(self, event: Event, seer: int = -1, hidden: Event | None = None) -> None:
        """Record ``event``. With a ``seer``, only that seat sees it whole; the others see ``hidden``
        (by default the same event with its faces as ``??``).

        Besides the game's log, the round's events form immutable chains, newest first: the
        shared one, ``(earlier, event)``, holds each event as those who did not see its faces
        saw it; a seat's own, ``(earlier, index, event)``, the events it alone saw whole. An
        observation holds its seat's two chain ends, and :attr:`Observation.events` makes the
        :class:`~cabo_kit.observation.EventLog` that reads the events from there only if a bot asks for them.
        The usual turn's events are written out in Game.play_out too (tests/test_fast_paths.py compares them).
        """
        if self._rollout:
            return
        if seer < 0:
            self.log.append(event)
            self._shared = (self._shared, event)
        else:
            if hidden is None:
                hidden = _new(Event, (event[0], event[1], event[2], (UNKNOWN,) * len(event[3]), event[4]))
            self.log.append((event, seer, hidden))
            self._shared = (self._shared, hidden)
            self._own[seer] = (self._own[seer], self._event_count, event)
        self._event_count += 1

    # --------------------------------------------------------------- deck and pile

    def _draw_card(self) -> int | None:
        """The top card of the deck (reshuffling when the rules say so), or ``None``."""
        if not self.deck and self._reshuffles and len(self.know.pile) > 1:
            moved = self.know.pile[:-1]
            fixed = None if self.chance is None else self.chance.reshuffle(self, pick(moved, self.know.faces))
            # A bad answer raises before the pile is gathered: the game is left as it was.
            order = None if fixed is None else _fixed_order(moved, self.know.faces, fixed)
            moved = self.know.gather()
            if order is not None:
                self.deck = order
            else:
                if self._reshuffle_rng is None:
                    self._reshuffle_rng = self._rng("reshuffle", self.round)
                self.deck = _shuffled(moved, self._reshuffle_rng)
            if self.chance_log is not None:
                self.chance_log[2].append(tuple(self.know.faces[c] for c in reversed(self.deck)))
            self._emit(_new(Event, (_K.RESHUFFLE, None, (len(moved),), (), "")))
        if not self.deck:
            self._end_after_turn = True
            self._ending_changed()
            return None
        c = self.deck.pop() if self.chance is None else self._chance_card(self.deck, self.know.faces)
        if not self.deck and not self._reshuffles:
            self._end_after_turn = True
            self._ending_changed()
        return c

    def _chance_card(self, deck: list[int], faces: Sequence[Card]) -> int:
        """Take from ``deck`` (card ids, top last) the card :attr:`chance` names (its top if it names none)."""
        assert self.chance is not None
        answer = self.chance.card(self, pick(deck[::-1], faces))
        assert self.chance_log is not None
        if answer is None:
            self.chance_log[0].append(faces[deck[-1]])
            return deck.pop()
        card = Card.parse(answer)
        for i in range(len(deck) - 1, -1, -1):
            if faces[deck[i]] is card:
                self.chance_log[0].append(card)
                return deck.pop(i)
        raise ValueError(f"{type(self.chance).__name__}.card answered {card}, which is not in the deck now "
                         f"(round {self.round + 1}, {len(deck)} cards left): answer one of the deck's cards or None")

    # -------------------------------------------------------------- public API

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.phase is OVER

    # Set wherever the phase changes who decides (a window opens or closes, a turn begins, a seat answers):
    # the game loop asks for it before every decision, and a property written in Python costs more than the rest.
    to_move = property(attrgetter("_movers"), doc="""The seats that must decide now: one seat, or several at once
        (set-up look, snap window: those that have not answered yet).""")

    @property
    def stats(self) -> list[dict[str, int]]:
        """This round's counters by seat, each a dict of the counters in :data:`SEAT_STATS` (the live dicts: the
        round's :class:`RoundResult` keeps them, and a new round starts new ones). ``turns``, the turns each seat
        has finished this round, is not kept turn by turn (the engine's hottest path) but counted as it is read.

        >>> import cabo_kit as ck
        >>> game = ck.Game(ck.Rules.preset("rush"), seed=5, n_players=2, start_player=0)
        >>> for action in ["pass", "pass", "deck", "discard", "pass", "pass", "deck"]:
        ...     _ = game.apply(action, seat=game.to_move[0])
        >>> [(s["turns"], s["draws_deck"]) for s in game.stats]   # seat 1 is in its first turn
        [(1, 1), (0, 1)]
        """
        _turns_counted(self)
        return self._stats

    @stats.setter
    def stats(self, value: list[dict[str, int]]) -> None:
        self._stats = value

    @property
    def totals(self) -> list[int]:
        """Game totals by seat so far."""
        return list(self.sheet.totals)

    @property
    def winners(self) -> list[int]:
        """The winning seats once the game is over, else ``[]``."""
        return self.sheet.winners

    def legal_actions(self, seat: int | None = None) -> Sequence[Action]:
        """The legal actions of ``seat`` now (default: the one seat to move); empty if it need not decide.

        The result is a tuple, or, when several cards may be exchanged at once, a
        :class:`~cabo_kit.actions.LegalActions` with exact ``len`` and ``in``. The order
        is fixed: ``Pass`` comes first where it is allowed in a snap window or a power,
        and ``CallCabo`` comes last where it is allowed.
        """
        phase = self.phase
        if phase is LOOK or phase is SNAP:
            if seat is None:
                seat = self._only_mover()
            if seat not in self._pending:
                return ()
            return self._legal_look(seat) if phase is LOOK else self._window_claims
        if phase is OVER:
            return ()
        mover = self._snapper if phase is GIVE else self.current
        if seat is not None and seat != mover:
            return ()
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return legal

    def _only_mover(self) -> int:
        movers = self.to_move
        if len(movers) != 1:
            if not movers:
                raise IllegalActionError("the game is over: no seat is to move")
            raise IllegalActionError(
                f"seats {', '.join(map(str, movers))} decide at once in phase '{self.phase}': say which seat acts (seat=...)"
            )
        return movers[0]

    def _legal_look(self, seat: int) -> tuple[Action, ...]:
        key = (len(self.know.hands[seat]), self.rules.initial_peeks)
        looks = _LOOKS.get(key)
        if looks is None:
            looks = _LOOKS[key] = tuple(InitialPeek(p) for p in combinations(range(key[0]), key[1]))
        return looks

    def _legal_claims(self) -> tuple[Action, ...]:
        """What a seat may do in a snap window: pass, or claim any face-down card on the table.

        That depends only on which cards lie face down where (``know.up_view``), which rarely
        changes from one window to the next: the tuple is made once per such layout.
        """
        layout = self.know.up_view
        claims = _CLAIMS.get(layout)
        if claims is None:
            out: list[Action] = [_PASS]
            for s, flags in enumerate(layout):
                out += [_snap(s, p) for p, up in enumerate(flags) if not up]
            if len(_CLAIMS) > 4096:
                _CLAIMS.clear()
            claims = _CLAIMS[layout] = tuple(out)
        return claims


    def _compute_legal(self) -> tuple[Action, ...]:
        phase = self.phase
        me = self.current
        hands = self.know.hands
        hand = hands[me]
        if phase is CHOOSE:  # (_begin_turn sets _legal for this phase: this line is never reached in play)
            return self._legal_choose()
        if phase is DRAWN:
            return self._legal_drawn(len(hand), self.drawn_from == "deck" or self._may_discard_taken or not hand)
        if phase is POWER:
            return self._legal_power(self.power, me)  # type: ignore[arg-type]
        if phase is SWAP:
            return self._legal_swaps(me, self.target)
        if phase is PLACE:
            return self._legal_place(len(hand))
        if phase is GIVE:
            gives = tuple(_give(p) for p in range(len(hands[self._snapper])))
            return gives + (_PASS,) if self.rules.snap_give == "optional" else gives
        if phase is END_TURN:
            return (_PASS, _CABO)
        return ()

    def _legal_power(self, power: Power, me: int) -> tuple[Action, ...]:
        """A power's first step: a peek (at an own face-down card), a spy (at another's) or a swap, or the skip."""
        know = self.know
        hands = know.hands
        peeking = power in _PEEKING
        if peeking or power in _SPYING:  # made once per seat and table of face-up flags (as _legal_claims)
            key = (peeking, me, know.up_view)
            found = _LOOKS_AT.get(key)
            if found is not None:
                return found
            up, hand = know.up, hands[me]
            if peeking:
                found = tuple([_PASS] + [_peek(p) for p, c in enumerate(hand) if not up[c]])
            else:
                out: list[Action] = [_PASS]
                for s in self._others(me):
                    out += [_spy(s, p) for p, c in enumerate(hands[s]) if not up[c]]
                found = tuple(out)
            if len(_LOOKS_AT) > 4096:
                _LOOKS_AT.clear()
            _LOOKS_AT[key] = found
            return found
        return self._legal_swaps(me, None)

    def _legal_place(self, k: int) -> tuple[Action, ...]:
        """Where the drawn card may go after a multi-exchange (the picked places, or the hand's two ends when it
        failed: a hand of ``k`` cards), or the penalty card."""
        if self._place_stage == "success":
            picked = self.picked
            return pick(picked, _PLACES) if picked[-1] < len(_PLACES) else tuple(_place(p) for p in picked)
        return (_PLACES[0], _PLACES[k] if k < len(_PLACES) else _place(k))

    def _legal_choose(self) -> tuple[Action, ...]:
        """Draw from the deck, take from the pile, call Cabo: those allowed now (one shared tuple per combination)."""
        pile = self.know.pile
        deck = bool(self.deck) or (self._reshuffles and len(pile) > 1)
        take = bool(pile) and (bool(self.know.hands[self.current]) or self._may_discard_taken)
        cabo = self._cabo_instead and self.caller is None and self._empty_left is None and not self._empty_flag
        return _CHOOSE[deck][take][cabo]

    def _legal_drawn(self, k: int, may_discard: bool) -> tuple[Action, ...]:
        """Discard (if allowed) and the exchanges of a hand of ``k`` cards, made once per shape and shared."""
        if k < _MAXPOS:
            found = self._drawn_legal[may_discard][k]
            if found is not None:
                return found
            fixed = _DISCARD_EX1_ALL[k] if may_discard else _EX1_ALL[k]
        else:
            fixed = ((_DISCARD,) if may_discard else ()) + tuple(_ex1(p) for p in range(k))
        result: tuple[Action, ...] = fixed
        if self.rules.multi_exchange and k >= 2:
            key = (may_discard, k)
            multi = _MULTI.get(key)
            if multi is None:
                multi = _MULTI[key] = LegalActions(fixed, k)
            result = multi
        if k < _MAXPOS:
            self._drawn_legal[may_discard][k] = result
        return result

    def _legal_swaps(self, me: int, target: tuple[int, int] | None) -> tuple[Action, ...]:
        out: list[Action] = [_PASS]
        hands = self.know.hands
        mine = range(len(hands[me]))
        if target is not None:
            s, p = target
            out.extend(_swap(o, s, p) for o in mine)
            return tuple(out)
        key = (me, tuple([len(h) for h in hands]))
        cached = _SWAPS.get(key)
        if cached is None:
            for s in self._others(me):
                for p in range(len(hands[s])):
                    out.extend(_swap(o, s, p) for o in mine)
            cached = _SWAPS[key] = tuple(out)
            if len(_SWAPS) > 4096:
                _SWAPS.clear()
        return cached

    def _others(self, me: int) -> tuple[int, ...]:
        key = (self.n, me)
        found = _OTHERS.get(key)
        if found is None:
            n = self.n
            found = _OTHERS[key] = tuple((me + i) % n for i in range(1, n))
        return found

    def apply(self, action: Action | str, seat: int | None = None) -> list[Event]:
        """Check ``action`` (an :class:`~cabo_kit.actions.Action` or its text), carry it out, and
        return the events it caused, every face shown (engine-side: never hand them to a bot;
        :meth:`events_seen` or a :class:`~cabo_kit.play.Stepper` gives one seat's view).

        ``seat`` is needed only when several seats decide at once. An illegal action
        raises :class:`~cabo_kit.actions.IllegalActionError` and changes nothing.

        >>> import cabo_kit as ck
        >>> game = ck.Game(ck.Rules.preset("deluxe"), seed=1, n_players=2, start_player=0,
        ...                deck="3 5 9 12  1 1 4 6  7  10")
        >>> [str(e) for e in game.apply("look 0,1", seat=0)]
        ['seat 0 looks at own positions 0,1: 3 5']
        >>> [str(e) for e in game.apply("look 2,3", seat=1)]
        ['seat 1 looks at own positions 2,3: 4 6', 'the top card of the deck is turned up: 7']
        """
        if type(action) is str:
            action = Action.parse(action)
        phase = self.phase
        if phase is LOOK or phase is SNAP or phase is OVER:
            if seat is None:
                seat = self._only_mover()
            legal = self.legal_actions(seat)
        else:
            mover = self._snapper if phase is GIVE else self.current
            if seat is None:
                seat = mover
            legal = self.legal_actions(seat) if seat == mover else ()
        if not is_legal(action, legal):
            self._illegal(action, seat, legal)
        mark = len(self.log)
        self.apply_unchecked(action, seat)  # type: ignore[arg-type]
        return self.events_seen(None, since=mark)

    def _illegal(self, action: object, seat: int, legal: Sequence[Action]) -> None:
        where = f"phase '{self.phase}', round {self.round + 1}, turn {self.turn}"
        if self.phase is OVER:
            raise IllegalActionError(f"{action!s} is not legal: the game is over")
        if not legal:
            movers = ", ".join(map(str, self.to_move)) or "nobody"
            raise IllegalActionError(f"seat {seat} cannot act now ({where}); to move: seat {movers}")
        shown = ", ".join(str(a) for a in list(legal)[:12]) + (", ..." if len(legal) > 12 else "")
        raise IllegalActionError(f"{action!s} is not legal for seat {seat} ({where}); legal: {shown}")

    def apply_unchecked(self, action: Action, seat: int) -> None:
        """Carry out ``action`` for ``seat`` without checking it: a fast path for simulations and
        game loops that pick from :meth:`legal_actions`. An illegal action here can corrupt the game."""
        try:
            move = _MOVES[self.phase]
        except KeyError:  # the game is over: no phase waits for an action
            raise IllegalActionError(f"{action!s} cannot be applied: the game is over") from None
        if not self._rollout:
            self.history.append((seat, action))
        self._legal = None
        move(self, seat, action)

    # --------------------------------------------------------------- the moves, by phase

    def _on_choose(self, me: int, action: Action) -> None:
        """Draw from the deck, take from the pile, or call Cabo (and end the turn).
        Written out in Game.play_out too (tests/test_fast_paths.py compares them)."""
        kind = type(action)
        know = self.know
        if kind is DrawDeck:
            deck = self.deck
            if (len(deck) > 1 or (deck and self._reshuffles)) and self.chance is None:
                c = deck.pop()
            else:  # the deck's last card, or none: _draw_card knows what the rules say then
                c = self._draw_card()  # type: ignore[assignment]
                assert c is not None
            # Only the drawer sees it (observation.drawn); Knowledge learns who knows it when it is put in a hand.
            self.drawn = c
            self.drawn_from = "deck"
            self._stats[me]["draws_deck"] += 1
            if not self._rollout:
                self._emit(_new(Event, (_E_DRAW, me, (), (know.faces[c],), "")), me, _HIDDEN_DRAW[me])
            may_discard = True
        elif kind is DrawDiscard:
            c = know.take()
            self.drawn = c
            self.drawn_from = "discard"
            self._stats[me]["draws_discard"] += 1
            self._emit(_new(Event, (_E_TAKE, me, (), (know.faces[c],), "")))  # (a search's world: nothing)
            may_discard = self._may_discard_taken
        else:
            self._call(me)
            self._finish_turn()
            return
        self.phase = DRAWN
        k = len(know.hands[me])  # _legal_drawn(k, may_discard or not k), looked up here: every turn comes here
        found = self._drawn_legal[may_discard or not k][k] if k < _MAXPOS else None
        self._legal = found if found is not None else self._legal_drawn(k, may_discard or not k)

    def _on_drawn(self, me: int, action: Action) -> None:
        """Discard the drawn card, or exchange it for one own card (or try several: deluxe); a one-card exchange is
        written out in Game.play_out too (tests/test_fast_paths.py compares them)."""
        if type(action) is Discard:
            self._discard_drawn(me)
            return
        positions = action.positions  # type: ignore[attr-defined]
        if len(positions) > 1:
            self._multi_exchange(me, positions)
            return
        c = self.drawn
        assert c is not None
        know = self.know
        p = positions[0]
        from_discard = self.drawn_from == "discard"
        self.drawn = None
        self.drawn_from = None
        if from_discard:  # everybody saw it taken (it is known to all); in deluxe it lies face up
            old = know.exchange(me, p, c, self.rules.discard_draw_face_up, -1)
        else:
            old = know.exchange(me, p, c, False, me)
        self._stats[me]["exchanges"] += 1
        faces = know.faces
        if self._rollout:  # a search's world keeps no events
            self._turn_ends()
            return
        target = _ONE_SEAT[p]  # (p,), shared
        out = faces[old]
        event = _new(Event, (_E_EXCHANGE, me, target, (out, faces[c]), ""))
        # Everybody saw the card that left; only the drawer knows a new one from the deck.
        if from_discard:
            self._emit(event)
        else:
            self._emit(event, me, _new(Event, (_E_EXCHANGE, me, target, (out, UNKNOWN), "")))
        end = self._end_of_turn  # self._turn_ends(), without its call
        end(self)

    def _on_snap(self, seat: int, action: Action) -> None:
        self._pending.remove(seat)
        self._movers = tuple(self._pending)
        if type(action) is Snap:
            self._claims[seat] = action
            self._stats[seat]["snap_claims"] += 1
        if not self._pending:
            self._resolve_window()

    def _on_look(self, seat: int, action: Action) -> None:
        """A seat's set-up look; the last one turns the first card up."""
        pending = self._pending
        pending.remove(seat)
        self._movers = tuple(pending)
        self._look(seat, action.positions)  # type: ignore[attr-defined]
        if not pending:
            self._flip_first()

    def _on_end_turn(self, me: int, action: Action) -> None:
        if type(action) is CallCabo:
            self._call(me)
        self._finish_turn()

    def _call(self, me: int) -> None:
        """``me`` calls Cabo. Written out in Game.play_out too, with the turn's end, for a call in the choose phase of a
        round going on as usual (tests/test_fast_paths.py compares them)."""
        self.caller = me
        self._as_usual = False  # (_ending_changed(): a caller is one of its four facts)
        self._call_turn = self.turn
        self._final_left = self.n - 1
        self._stats[me]["cabo_calls"] += 1
        self._emit(_new(Event, (_K.CABO, me, (), (), "")))

    def _look(self, seat: int, positions: tuple[int, ...]) -> None:
        """``seat`` looks at its own cards at ``positions`` (a tuple: an InitialPeek's, or the rules' own look)."""
        know = self.know
        get = _CARDS_AT.get(positions)
        if get is None:  # one getter per set of positions, made once (pick() makes one a call)
            if len(_CARDS_AT) > 4096:
                _CARDS_AT.clear()
            get = _CARDS_AT[positions] = _getter(positions)
        faces = know.look(seat, seat, get(know.hands[seat]))
        self._emit(_new(Event, (_E_LOOK, seat, positions, faces, "")), seat,
                   _new(Event, (_E_LOOK, seat, positions, (UNKNOWN,) * len(faces), "")))  # (_emit's default, made here)

    def _discard_drawn(self, me: int) -> None:
        """The drawn card goes to the pile; a deck card's power starts (or waits for the snaps).
        Written out in Game.play_out too (tests/test_fast_paths.py compares them)."""
        c = self.drawn
        assert c is not None
        from_deck = self.drawn_from == "deck"
        self.drawn = None
        self.drawn_from = None
        self.know.land(c)
        self._stats[me]["discards"] += 1
        card = self.know.faces[c]
        self._emit(_new(Event, (_K.DISCARD, me, (), (card,), "")))
        value = card.value
        power = self.rules._power_table[value] if from_deck and value is not None and value >= 0 else None
        if power is None:
            self._turn_ends()
        elif self.rules.power_timing == "before_discard":
            self._start_power(power)
        else:
            self.power = power
            self._open_window("power")

    def _start_power(self, power: Power) -> None:
        """The current player may use ``power`` now.
        Written out in Game.play_out too (tests/test_fast_paths.py compares them)."""
        self.power = power
        self.phase = POWER
        if power is PEEK_SWAP and all(self.know.up[c] for c in self.know.hands[self.current]):
            self.phase = SWAP  # nothing of one's own to peek at: straight to the swap

    def _multi_exchange(self, me: int, positions: tuple[int, ...]) -> None:
        """Deluxe: the picked cards are turned up; if all are equal they will go (see :meth:`_place`)."""
        know = self.know
        hand = know.hands[me]
        cards = itemgetter(*positions)(hand)  # pick(), inline: two positions or more
        know.turn_up(me, cards)
        shown = itemgetter(*cards)(know.faces)
        ok = len(set(map(_VALUE, shown))) == 1  # (no comprehension: its function's call)
        self.picked = positions
        self.exchange_ok = ok
        stats = self._stats[me]
        stats["multi_exchanges"] += 1
        if not ok:
            stats["failed_multi_exchanges"] += 1
        self._emit(_new(Event, (_K.MULTI, me, positions, shown, "ok" if ok else "fail")))
        self._place_stage = "success" if ok else "fail"
        self.phase = PLACE
        self._legal = self._legal_place(len(hand))  # (the decision loop reads it without _compute_legal's tests)

    def _place(self, me: int, action: Action) -> None:
        """After a multi-exchange: put the drawn card (or the penalty card) where ``action`` (a Place) says."""
        index = action.index  # type: ignore[attr-defined]
        know = self.know
        stage = self._place_stage
        c = self.drawn
        assert c is not None
        self.drawn = None
        if stage == "penalty":
            self.drawn_from = None
            know.insert(me, index, c)
            self._emit(_new(Event, (_K.PENALTY, me, (index,), (UNKNOWN,), "")))
            self._end_multi()
            return
        from_discard = self.drawn_from == "discard"
        self.drawn_from = None
        know.turn(c, from_discard and self.rules.discard_draw_face_up)
        if from_discard:
            know.reveal(c)
        else:
            know.see(me, c)
        self._emit(_new(Event, (_K.PLACE, me, (index,), (), "")))
        if stage == "success":  # the picked cards go to the pile; the drawn card takes the place at index
            picked = set(self.picked)
            kept: list[int] = []
            out: list[int] = []
            for p, x in enumerate(know.hands[me]):
                if p == index:
                    kept.append(c)
                    out.append(x)
                elif p in picked:
                    out.append(x)
                else:
                    kept.append(x)
            know.replace_hand(me, kept)
            for x in out:
                know.land(x)
            self._reset_multi()
            self._open_window("end")
            return
        know.insert(me, index, c)
        if len(self.picked) >= self.rules.multi_exchange_penalty_at:
            penalty = self._draw_card()
            if penalty is not None:
                self.drawn = penalty
                self.drawn_from = "penalty"
                self._stats[me]["penalty_cards"] += 1
                self._place_stage = "penalty"
                self._legal = self._legal_place(len(know.hands[me]))
                return
        self._end_multi()

    def _reset_multi(self) -> None:
        self.picked = ()
        self.exchange_ok = None
        self._place_stage = ""

    def _end_multi(self) -> None:
        self._reset_multi()
        self._end_turn()

    def _use_power(self, me: int, action: Action) -> None:
        """Use the power (a peek, a spy, a swap, a two-step power's first step) or skip it.
        Written out in Game.play_out too (tests/test_fast_paths.py compares them)."""
        power = self.power
        assert power is not None
        kind = type(action)
        know = self.know
        if kind is Pass:
            if self.phase is POWER:
                self._stats[me]["powers_skipped"] += 1
                self._emit(_new(Event, (_K.SKIP, me, (), (), "")))
            else:  # the second step of a two-step power skipped: the first was used
                self._stats[me][power] += 1
            self._finish_power()
            return
        if kind is Peek:
            p = action.position  # type: ignore[attr-defined]
            c = know.hands[me][p]
            know.see(me, c)
            self._emit(_new(Event, (_K.PEEK, me, (p,), (know.faces[c],), "")), me)
            if power is PEEK_SWAP:
                self.phase = SWAP
                return
        elif kind is Spy:
            s, p = action.seat, action.position  # type: ignore[attr-defined]
            c = know.hands[s][p]
            know.see(me, c)
            self._emit(_new(Event, (_K.SPY, me, (s, p), (know.faces[c],), "")), me)
            if power is SPY_SWAP:
                self.target = (s, p)
                self.phase = SWAP
                return
        else:
            o, s, p = action.own, action.seat, action.position  # type: ignore[attr-defined]
            know.swap(me, o, s, p)
            self._emit(_new(Event, (_K.SWAP, me, (o, s, p), (), "")))
        self._stats[me][power] += 1
        self._finish_power()

    def _finish_power(self) -> None:
        """The power is used or skipped: the turn ends as the rules' power timing says.
        Written out in Game.play_out too (tests/test_fast_paths.py compares them)."""
        self.power = None
        self.target = None
        if self.rules.power_timing == "before_discard":
            self._turn_ends()
        else:
            self._end_turn()

    def _turn_ends(self) -> None:
        """``_open_window("end")`` without its pass-through calls when no window can open.
        Written out in Game.play_out too (tests/test_fast_paths.py compares them)."""
        if self._snapping:
            self._open_window("end")
        elif self._cabo_at_end:
            self._end_turn()
        else:
            self._finish_turn()

    def _open_end_window(self) -> None:
        self._open_window("end")

    # ----------------------------------------------------------------- snaps

    def _open_window(self, after: str) -> None:
        """A card landed on the pile: open a snap window if the rules have them and a face-down card is left;
        ``after`` says what comes next (``"start"`` the first turn, ``"power"`` a power, ``"end"`` the turn's end)."""
        if self._snapping:
            claims = self._legal_claims()
            if len(claims) > 1:  # a face-down card to claim
                self._after = after
                self._windows += 1
                self.phase = SNAP
                self._pending = list(range(self.n))
                self._movers = self._all_seats
                self._claims = {}
                self._window_claims = claims  # the same for every seat until the window closes
                return
        if after == "end":
            self._end_turn()
        else:
            self._continue(after)

    def _continue(self, after: str) -> None:
        self._movers = _ONE_SEAT[self.current]  # the window (or the give) is over: back to the current player
        if after == "start":
            self._begin_turn()
        elif after == "power" and self.power is not None:
            self._start_power(self.power)
        else:
            self._end_turn()

    def _resolve_window(self) -> None:
        claims = self._claims
        claimers = sorted(claims)  # the seats that claimed a card, in seat order (the race below is seeded)
        after = self._after
        self._claims = {}
        if not claimers:
            self._continue(after)
            return
        if len(claimers) > 1:
            fixed = None if self.chance is None else self.chance.snap_race(self, tuple(claimers))
            if fixed is not None:
                snapper = _checked_seat(fixed, claimers, "snap_race")
            else:
                if self._snap_rng is None:
                    self._snap_rng = self._rng("snap", self.round)
                snapper = claimers[self._snap_rng.randrange(len(claimers))]
            if self.chance_log is not None:
                self.chance_log[1].append(snapper)
        else:
            snapper = claimers[0]
        claim = claims[snapper]
        ts, tp = claim.seat, claim.position  # type: ignore[attr-defined]
        stats = self._stats[snapper]
        stats["snaps"] += 1
        know = self.know
        c = know.hands[ts][tp]
        know.reveal(c)
        face = know.faces[c]
        match = face.value == know.faces[know.pile[-1]].value
        self._emit(_new(Event, (_K.SNAP, snapper, (ts, tp), (face,), "match" if match else "miss")))
        if match:
            stats["snaps_right"] += 1
            if ts == snapper:
                stats["snaps_own"] += 1
            know.remove(ts, tp)
            know.land(c)
            if ts != snapper and know.hands[snapper]:
                self.give_to = (ts, tp)
                self._snapper = snapper
                self._after = after
                self.phase = GIVE
                self._movers = _ONE_SEAT[snapper]
                return
        else:
            count = self.rules.snap_penalty_own if ts == snapper else self.rules.snap_penalty_other
            self._penalise(snapper, count)
        self._after_snap(after)

    def _penalise(self, seat: int, count: int) -> None:
        for _ in range(count):
            c = self._draw_card()
            if c is None:
                return
            hand = self.know.hands[seat]
            self.know.insert(seat, len(hand), c)
            self._stats[seat]["penalty_cards"] += 1
            self._emit(_new(Event, (_K.PENALTY, seat, (len(hand) - 1,), (UNKNOWN,), "")))

    def _give(self, seat: int, action: Action) -> None:
        ts, tp = self.give_to  # type: ignore[misc]
        self.give_to = None
        know = self.know
        if type(action) is Give:
            p = action.position
            c = know.remove(seat, p)
            know.insert(ts, tp, c)
            if know.up[c]:
                know.turn(c, False)  # a given card is moved face down (what was public stays known)
            self._stats[seat]["gives"] += 1
            self._emit(_new(Event, (_K.GIVE, seat, (p, ts, tp), (), "")))
        self._after_snap(self._after)

    def _after_snap(self, after: str) -> None:
        if any(not hand for hand in self.know.hands):
            if self.rules.empty_hand == "end_now":
                self._end_round("empty_hand")
                return
            self._empty_flag = True
            self._ending_changed()
        self._continue(after)

    # ------------------------------------------------------------------ turns

    def _begin_turn(self) -> None:
        """The current player's turn begins: what may they do? Its usual start (a deck, a pile, a hand) is
        written out in Game.play_out too (tests/test_fast_paths.py compares them), and in :meth:`_finish_turn`."""
        self.phase = CHOOSE
        self._movers = _ONE_SEAT[self.current]
        self._turn_start = self._event_count  # without memory, a seat sees this turn's events only
        legal = self._legal = self._legal_choose()
        if not legal or legal[0] is not _DRAW_DECK:  # the deck is out: the round's last turn, if it can be played
            self._end_after_turn = True
            self._ending_changed()
            if not legal:
                self._end_round("deck")

    def _ending_changed(self) -> None:
        """Keep ``_as_usual``, what :meth:`_finish_turn` tests on every turn, equal to the four end-of-round facts it
        stands for: called by whoever sets ``caller``, ``_end_after_turn``, ``_empty_flag`` or ``_empty_left`` (all
        but _finish_turn, which changes ``_empty_left`` only once ``_empty_flag`` has made the flag False;
        _new_round, which clears all four and sets ``_as_usual = True`` itself, and _call, which sets a caller and so
        ``_as_usual = False``)."""
        self._as_usual = (self.caller is None and self._empty_left is None and not self._empty_flag
                          and not self._end_after_turn)

    def _end_turn(self) -> None:
        if self._cabo_at_end and self.caller is None and self._empty_left is None and not self._empty_flag:
            self.phase = END_TURN
            return
        self._finish_turn()

    def _finish_turn(self) -> None:
        """The turn is over: the next player's turn begins, or the round ends.
        Written out in Game.play_out too (tests/test_fast_paths.py compares them)."""
        me = self.current  # (no count of turns here: the stats property and the round's end count them from self.turn)
        turn = self.turn
        self.turn = turn + 1
        if self._as_usual and turn + 1 < self._max_turns:  # the usual turn end: the next player's turn
            me = self.current = (me + 1) % self.n
            know = self.know
            if self.deck and know.pile and know.hands[me]:  # _begin_turn, written out for the usual choice
                self.phase = CHOOSE
                self._movers = _ONE_SEAT[me]
                self._turn_start = self._event_count
                self._legal = self._choose_all  # _legal_choose(): deck, pile, and Cabo if the rules say "instead"
                return
            self._begin_turn()
            return
        if self.caller is not None and self._call_turn != turn:
            self._final_left -= 1
        if self._empty_left is not None:
            self._empty_left -= 1
        elif self._empty_flag:
            self._empty_left = self.n
        if self.caller is not None and self._final_left <= 0 and self._call_turn != turn:
            self._end_round("cabo")
        elif self.caller is not None and self.n == 1:  # pragma: no cover
            self._end_round("cabo")
        elif self._end_after_turn:
            self._end_round("deck")
        elif self._empty_left is not None and self._empty_left <= 0 and self.caller is None:
            self._end_round("empty_hand")
        elif self.turn >= self._max_turns:
            self._end_round("turn_limit")
        else:
            self.current = (me + 1) % self.n
            self._begin_turn()

    def _end_round(self, ended_by: str) -> None:
        know, sheet, caller = self.know, self.sheet, self.caller
        get = know.faces.__getitem__
        final: list[list[Card]] = []
        for hand in know.hands:  # (a loop, not nested comprehensions: no function and frame made for each)
            final.append([*map(get, hand)])
        self._count_turns()
        totals, scores, caller_won, kamikaze, roulette = _round_facts(self.rules, final, caller, ended_by)
        sheet.add_round(scores)
        self._totals = tuple(sheet.totals)  # _sync_scores(), the sheet one round on
        self._round_scores += (scores,)
        result = _round_result(  # RoundResult's fields in order, given positionally (a keyword call costs twice)
            self.round, self.start_player, caller, caller_won, ended_by, final, [*totals], [*scores],
            [*sheet.totals], [*kamikaze], [*roulette], [*sheet.reset_rounds[-1]], self.turn, self._windows,
            self._stats)  # ([*x]: a list built without a call)
        self.results.append(result)
        discard = know.discard
        self.last_round_piles = (discard[-1] if discard else None, len(discard), len(self.deck))
        over = sheet.game_over
        if over:
            know.reveal_all()  # the final observation shows every hand
        self._emit(_new(Event, (_E_END, None, scores, (), ended_by)))
        self.drawn = None
        self.drawn_from = None
        self.power = None
        self._pending = []
        if over or self._rollout:  # a search's world ends with its round
            self.phase = OVER
            self._movers = ()
            self._legal = None
            return
        self._start_round(next_start_player(self.rules, scores, self.start_player, caller, caller_won), None)

    # Each seat's ``turns`` counter, made at the round's end (tests/test_fast_paths.py swaps in a count kept turn by
    # turn here): the function itself, one call (not a method calling it)
    _count_turns = _turns_counted

    # ------------------------------------------------------------ observation

    def _sync_scores(self) -> None:
        """The score tuples observations share, made from the sheet (``_end_round`` extends them by the round it
        adds instead: the same tuples, tests/test_fast_rounds.py compares them)."""
        sheet = self.sheet
        self._totals = tuple(sheet.totals)
        self._round_scores = tuple(map(tuple, sheet.rounds))

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now, with its legal actions (empty if it need not decide).
        Written out in Game.play_out too (tests/test_fast_paths.py compares them)."""
        try:
            own = self._own[seat]
            valid = seat >= 0
        except (IndexError, TypeError):
            valid = False
        if not valid:
            raise ValueError(f"seat {seat!r} is not a seat of this {self.n}-player table")
        know = self.know
        # The events as the round's event count and the seat's chain ends, a plain tuple (Observation.events makes
        # the log when read).
        if self._engine_memory:
            discard = know.discard
            events: Any = (self._event_count, self._shared, own)
        else:  # without memory: the pile's top and this turn's events, copied out (the chains lead to earlier ones)
            discard = know.discard[-1:]
            events = EventLog(_chain_log((self._event_count, self._shared, own), self._turn_start))
        drawn: Any = self.drawn  # the card's id, then the face this seat sees
        current = self.current
        if drawn is not None:
            drawn_from = self.drawn_from
            if drawn_from == "discard" or (seat == current and drawn_from == "deck"):
                drawn = know.faces[drawn]
            else:  # drawn from the deck by someone else, or a penalty card nobody saw
                drawn = UNKNOWN
        phase = self.phase
        if phase is SNAP or phase is LOOK:  # every seat decides (legal_actions(seat), written out)
            to_move: tuple[int, ...] = self._all_seats
            legal: Sequence[Action] = (
                () if seat not in self._pending else self._window_claims if phase is SNAP else self._legal_look(seat))
        elif phase is OVER:
            to_move = legal = ()
        else:
            mover = self._snapper if phase is GIVE else current
            to_move = _ONE_SEAT[mover]
            if seat == mover:
                known = self._legal
                if known is None:
                    known = self._legal = self._compute_legal()
                legal = known
            else:
                legal = ()
        # The fields in Observation's order (make_observation's head + table, in one tuple: observation.py
        # checks that order against MOMENT_FIELDS and TABLE_FIELDS when it is imported).
        return _new(Observation, (
            seat, self.n, self.rules, self.memory, self.round, self.turn, phase, current, to_move, self.start_player,
            self.caller, len(self.deck), drawn, self.drawn_from, self.power, self.target, self.picked,
            self.exchange_ok, self.give_to,
            know.views[seat], know.up_view, discard, self._totals, self._round_scores, events, legal,
        ))

    def play_out(self, choosers: "Mapping[int, Callable[[Observation, Sequence[Action]], Action | str]]",
                 names: Sequence[str] | None = None, until_round_end: bool = False) -> None:
        """Let ``choosers`` (by seat: a bot's ``choose``) decide, each from its :meth:`observation`,
        until the game is over (or, with ``until_round_end``, a round has ended); seats decide in
        the order of :attr:`to_move`. The loop of :meth:`Stepper.run <cabo_kit.play.Stepper.run>`,
        which calls the bots' hooks around it: use that to play bots.

        The observation (with the engine's memory) and ``apply`` are written out here (two calls fewer a decision, the
        engine's hottest path); tests/test_fast_paths.py checks every observation against
        :meth:`observation`. So are the usual turn's moves (a draw from the deck or
        the pile; a one-card exchange, a discard, a one-step power used or skipped; the next
        player's usual turn start; a Cabo call instead of a draw in a round going on as usual), which
        otherwise cost a call of each phase's method and of the turn's end:
        tests/test_fast_paths.py replays random-rules games with those methods instead. Any other
        legal answer of an action class (found in the tuple the seat was given: actions exist once
        each, a C-speed scan; or a multi-exchange its :class:`~cabo_kit.actions.LegalActions`
        holds) is carried out as :meth:`apply_unchecked` would; anything else (a text, a wrong
        answer) goes through :meth:`apply`, and an illegal one raises
        :class:`~cabo_kit.actions.IllegalActionError` naming ``names[seat]``.

        >>> import cabo_kit as ck
        >>> game = ck.Game(ck.Rules.preset("rush"), seed=5, n_players=2)
        >>> bots = [ck.bots.GreedyBot(), ck.bots.GreedyBot()]
        >>> game.play_out({seat: bot.choose for seat, bot in enumerate(bots)}, until_round_end=True)
        >>> len(game.results), game.round
        (1, 1)
        """
        if names is None:
            names = [f"seat {s}" for s in range(self.n)]
        results = self.results
        n_results = len(results)
        # A search's world keeps no history (as apply_unchecked): its moves go to an empty deque that keeps none.
        history_append: Callable[[tuple[int, Action]], None] = self.history.append
        if self._rollout:
            history_append = deque[tuple[int, Action]](maxlen=0).append
        moves = _MOVES
        n, rules, memory, engine_memory = self.n, self.rules, self.memory, self._engine_memory
        snap, look, over, give, one_seat, new, unknown = SNAP, LOOK, OVER, GIVE, _ONE_SEAT, _new, UNKNOWN
        index, action_types = _index, _ACTION_TYPES
        # The usual turn's moves (a draw from the deck or the pile; a one-card exchange, a discard, a one-step power used
        # or skipped; the next player's usual turn start) are carried out in this frame, each as its phase's method would
        # (see the decision's end); what they change they also keep in the loop's locals (listed at the loop's top), which
        # the loop's top reads from the game only after any other move (phase None).
        fast = self.chance is None and not self._rollout
        choose_phase, drawn_phase, power_phase = CHOOSE, DRAWN, POWER
        if not fast:  # no phase is one of these: every move goes to the loop's end (no 'if fast' test a decision)
            choose_phase = drawn_phase = power_phase = cast(Phase, object())
        draw_deck, draw_discard, discard_it, pass_it = _DRAW_DECK, _DRAW_DISCARD, _DISCARD, _PASS
        cabo_it: object = _CABO
        cabo_pairs, cabo_events = _CABO_PAIRS, _CABO_EVENTS
        if not self._cabo_instead:  # a Cabo call is carried out here only instead of a draw (where choose_all holds it)
            cabo_it = object()
        choose_after_call = _CHOOSE[True][True][False]  # (_legal_choose() with a deck, a pile, a hand and a caller)
        draw_entries, takes, discards, ex_hidden = _DRAW_ENTRIES, _TAKES, _DISCARDS, _EXCHANGES_HIDDEN
        deck_pairs, take_pairs, discard_pairs = _DECK_PAIRS, _TAKE_PAIRS, _DISCARD_PAIRS
        following = tuple((s + 1) % n for s in range(n))  # the next seat, by seat
        log_append, power_table, drawn_legal = self.log.append, rules._power_table, self._drawn_legal
        take_discards = self._may_discard_taken
        deck_drawn_legal, take_drawn_legal = drawn_legal[True], drawn_legal[take_discards]
        take_ex_from = 1 if take_discards else 0
        end_of_turn, max_turns, choose_all = self._end_of_turn, self._max_turns, self._choose_all
        last_usual = max_turns - 1 if end_of_turn is _FINISH_TURN else -1  # a turn before it ends as usual; -1: none here
        taken_face_up, before_discard = rules.discard_draw_face_up, rules.power_timing == "before_discard"
        phase: Phase | None = None
        round_ = -2  # (no round: the loop's first pass reads the round's state)
        ends = False  # a usual move below that ends the turn sets it; the turn's end clears it
        legal: Any  # (Sequence[Action] once the loop's top has read it)
        c: Any
        target: tuple[int, ...]
        while True:
            if phase is None:  # what the game says now
                phase = self.phase
                legal = self._legal
                if legal is not None:  # the usual case, tested first: the one seat to move and its legal actions are known
                    to_move: tuple[int, ...] = self._movers  # (_legal is kept only in the phases where one seat decides)
                    seat = to_move[0]
                elif phase is snap or phase is look:  # every seat decides, in seat order
                    seat = self._movers[0]
                    to_move = self._all_seats
                    legal = self._window_claims if phase is snap else self._legal_look(seat)
                elif phase is over:
                    return
                else:
                    seat = self._snapper if phase is give else self.current
                    to_move = one_seat[seat]
                    legal = self._legal = self._compute_legal()
                try:
                    choose = choosers[seat]
                except KeyError:
                    raise IllegalActionError(
                        f"seat {seat} must decide and play_out() was given no chooser for it (seats {sorted(choosers)}): "
                        "give every seat a chooser (Stepper.run needs a bot at every seat)") from None
                # The game's state kept in locals (with phase and legal above), read here again after any move but the
                # usual ones below, which keep up to date what they change:
                #   phase, legal                 every usual move (a draw, a discard starting a power, the turn start)
                #   seat, to_move, choose,       the next player's usual turn start
                #   current, seat_stats, turn_
                #   deck_size                    a draw from the deck
                #   drawn, drawn_from            a draw sets them, an exchange or a discard clears them
                #   ex_from                      a draw (Discard then stands first in the drawn card's tuple)
                #   power, power_target          a discard starting a power sets the power, its use or skip clears both
                #   own_chains                   the usual moves' events (the list in place; a new round replaces it)
                #   the rest (caller, picked, ...) only the other moves change; those of the round (know, round_,
                #   start_player, totals, round_scores, own_chains, all_stats) only a new round, read when round_ changes
                if self.round != round_:  # (in twos and threes below: four targets make and unpack a tuple)
                    know, round_, start_player = self.know, self.round, self.start_player
                    totals, round_scores = self._totals, self._round_scores
                    own_chains, all_stats = self._own, self._stats  # (lists a new round replaces)
                caller = self.caller
                picked, exchange_ok, give_to = self.picked, self.exchange_ok, self.give_to
                turn_, current, deck_size = self.turn, self.current, len(self.deck)
                power, power_target = self.power, self.target
                usual_before = last_usual if self._as_usual else -1  # (only the other moves change _as_usual)
                next_choice = choose_all  # the next usual turn's choice (a written-out Cabo call takes its own)
                ex_from = 0  # where a drawn card's tuple may hold Exchange((p,)): from p (p + 1 after Discard) to p + 1
                seat_stats = all_stats[seat]
                drawn: Any = self.drawn
                drawn_from = self.drawn_from
                if drawn is not None:
                    if drawn_from == "discard" or (seat == current and drawn_from == "deck"):
                        drawn = know.faces[drawn]
                    else:
                        drawn = unknown
            # observation(seat), written out where seats remember what they saw (the usual rules); otherwise the call
            if engine_memory:
                action: Any = choose(new(Observation, (
                    seat, n, rules, memory, round_, turn_, phase, current, to_move, start_player,
                    caller, deck_size, drawn, drawn_from, power, power_target, picked, exchange_ok, give_to,
                    know.views[seat], know.up_view, know.discard, totals, round_scores,
                    (self._event_count, self._shared, own_chains[seat]), legal,
                )), legal)
            else:
                action = choose(self.observation(seat), legal)
            # The usual moves, written out (tests/test_fast_paths.py replays games with the phases' methods instead):
            #   phase   answer                         stands for
            #   choose  DrawDeck, a card left after it _on_choose, _emit(draw, seat, hidden)
            #   choose  DrawDiscard                    _on_choose, Knowledge.take, _emit(take)
            #   choose  CallCabo, the round as usual,  _on_choose: _call (its _emit), _finish_turn, _begin_turn
            #           a turn after this one
            #   drawn   Exchange((p,))                 _on_drawn, its Knowledge.exchange, _emit
            #   drawn   Discard: no power, or one      _discard_drawn (calling Knowledge.land), _emit(discard), _start_power
            #           used before the discard (not peek_swap)
            #   power   Peek, Spy (before_discard)     _use_power (calling _emit), _finish_power
            #   power   Swap, Pass (before_discard)    _use_power (calling _emit), _finish_power
            #   a move above that ends the turn        _turn_ends, _finish_turn and, as usual, _begin_turn
            # Each is tested by identity or exact type first: `in` never asks another object's own __eq__. Where the legal
            # actions are a LegalActions (whose `in` is Python code), a move is looked for with tuple.index in the part
            # of the tuple where it stands: found, it is legal; not found there, the loop's end decides.
            if phase is choose_phase:
                if action is draw_deck and deck_size > 1 and (legal is choose_all or action in legal):
                    # _on_choose(seat, DrawDeck()) with a card left after this one, and its _emit(draw, seat, hidden)
                    history_append(deck_pairs[seat])
                    c = self.deck.pop()
                    deck_size -= 1
                    self.drawn = c
                    self.drawn_from = drawn_from = "deck"
                    seat_stats["draws_deck"] += 1
                    # (drawn: the observation's field, the card as the deciding seat sees it, and the engine's own face
                    # of it: the same while the drawer decides, as it does in the drawn phase)
                    drawn = face = know.faces[c]
                    entry = draw_entries[seat].get(face) or _draw_entry(seat, face)  # (event, seat, hidden)
                    count = self._event_count
                    log_append(entry)
                    self._shared = (self._shared, entry[2])
                    own_chains[seat] = (own_chains[seat], count, entry[0])
                    self._event_count = count + 1
                    self.phase = phase = drawn_phase
                    k = len(know.hands[seat])  # _legal_drawn(k, True), looked up where it keeps them (below _MAXPOS)
                    try:
                        legal = deck_drawn_legal[k]
                    except IndexError:
                        legal = None
                    if legal is None:
                        legal = self._legal_drawn(k, True)
                    self._legal = legal
                    ex_from = 1  # (Discard first)
                    continue
                if action is draw_discard and (legal is choose_all or action in legal):
                    # _on_choose(seat, DrawDiscard()) and its _emit(take)
                    history_append(take_pairs[seat])
                    c = know.pile.pop()  # know.take(), written out
                    know.discard = know.discard[:-1]
                    know.up[c] = False
                    know.up_faces[c] = unknown
                    self.drawn = c
                    self.drawn_from = drawn_from = "discard"
                    seat_stats["draws_discard"] += 1
                    drawn = face = know.faces[c]
                    event = takes[seat].get(face) or _one_card_event(takes, _E_TAKE, seat, face)
                    log_append(event)
                    self._shared = (self._shared, event)
                    self._event_count += 1
                    self.phase = phase = drawn_phase
                    # _legal_drawn(k, may_discard or not k), looked up (a take is legal with no hand only where the
                    # taken card may be discarded: may_discard is true then)
                    k = len(know.hands[seat])
                    try:
                        legal = take_drawn_legal[k]
                    except IndexError:
                        legal = None
                    if legal is None:
                        legal = self._legal_drawn(k, take_discards)
                    self._legal = legal
                    ex_from = take_ex_from
                    continue
                if action is cabo_it and turn_ < usual_before and n > 1 and (legal is choose_all or action in legal):
                    # _on_choose(seat, CallCabo()) in a round going on as usual, with a turn after this one: _call(seat)
                    # (Game._call names this copy), then the turn's end below: _finish_turn's start of the next turn
                    history_append(cabo_pairs[seat])
                    self.caller = caller = seat
                    self._as_usual = False
                    self._call_turn = turn_
                    self._final_left = n - 1
                    seat_stats["cabo_calls"] += 1
                    event = cabo_events[seat]
                    log_append(event)
                    self._shared = (self._shared, event)
                    self._event_count += 1
                    usual_before = turn_ + 1  # this turn ends as usual below; the next ones through _finish_turn
                    next_choice = choose_after_call
                    ends = True
            elif phase is drawn_phase:
                if type(action) is Exchange:
                    try:  # where a one-card exchange stands in the drawn card's tuple: at p, or after Discard (a
                        # multi-exchange, equal to none there, is not found)
                        p = action.positions[0]
                        index(legal, action, p + ex_from, p + 2)
                    except (ValueError, TypeError, LookupError):  # (forged positions: none, or not ints)
                        pass  # (the loop's end decides)
                    else:
                        # _on_drawn(seat, action) for a one-card exchange and its events, then the turn's end below
                        history_append((seat, action))
                        c = self.drawn
                        count = self._event_count
                        self.drawn = self.drawn_from = None
                        # (drawn, the seat's view of the new card, is its face: the seat deciding here is its drawer)
                        # know.exchange(seat, p, c, face_up, seer), written out (Knowledge.exchange names this copy): from the
                        # deck the drawer alone learns the new card, which lies face down; taken from the pile, it is public
                        # and lies as the rules say
                        hand = know.hands[seat]
                        old = hand[p]
                        hand[p] = c
                        held = know.owner
                        held[old] = -1
                        held[c] = seat
                        seen_by = know.seen
                        up = know.up
                        from_deck = drawn_from == "deck"
                        if from_deck:
                            seen_by[seat][c] = drawn
                            flags_changed = up[old]
                        elif taken_face_up:
                            flags_changed = not up[old]
                            up[c] = True
                            know.up_faces[c] = drawn
                        else:
                            flags_changed = up[old]
                        out = know.faces[old]
                        know.pile.append(old)  # (its land(old))
                        know.discard += (out,)
                        up[old] = True
                        know.up_faces[old] = out
                        public = know.public
                        if not public[old]:
                            public[old] = True
                            for seen in seen_by:
                                seen[old] = out
                        # The views of the hand: from the deck, only those of seats that know the new card otherwise than the
                        # old one change; a card from the pile is public, and every seat's view is rebuilt without a test.
                        if engine_memory:
                            get = itemgetter(*hand) if len(hand) > 1 else _getter(hand)
                            views = know.views
                            viewer = 0
                            if from_deck:
                                for rows in know._rows:
                                    seen = seen_by[viewer]
                                    if rows[seat][p] is not seen[c]:
                                        rows[seat] = get(seen)
                                        views[viewer] = tuple(rows)
                                    viewer += 1
                            else:
                                for rows in know._rows:
                                    rows[seat] = get(seen_by[viewer])
                                    views[viewer] = tuple(rows)
                                    viewer += 1
                            if flags_changed:
                                know._up_rows[seat] = get(up)
                                know.up_view = tuple(know._up_rows)
                        else:
                            know._changed(seat, flags_changed)
                        event = new(Event, (_E_EXCHANGE, seat, one_seat[p], (out, drawn), ""))
                        if from_deck:
                            hidden = ex_hidden[seat].get((p, out)) or _exchange_hidden(seat, p, out)
                            log_append((event, seat, hidden))
                            self._shared = (self._shared, hidden)
                            own_chains[seat] = (own_chains[seat], count, event)
                        else:
                            log_append(event)
                            self._shared = (self._shared, event)
                        drawn = drawn_from = None
                        self._event_count = count + 1
                        seat_stats["exchanges"] += 1
                        ends = True
                elif action is discard_it:
                    try:  # Discard stands first where it is legal
                        index(legal, action, 0, 1)
                    except ValueError:
                        pass  # (the loop's end decides)
                    else:
                        c = self.drawn
                        # _discard_drawn(seat) and its _emit(discard), when the card gives no power (the turn's end
                        # follows) or, with powers used before the discard, one that starts as usual (_start_power)
                        face = know.faces[c]
                        value = face.value
                        gives = power_table[value] if drawn_from == "deck" and value is not None and value >= 0 else None
                        if gives is None or (before_discard and gives is not PEEK_SWAP):
                            history_append(discard_pairs[seat])
                            self.drawn = self.drawn_from = drawn = drawn_from = None
                            know.pile.append(c)  # know.land(c), written out
                            know.discard += (face,)
                            know.up[c] = True
                            know.up_faces[c] = face
                            if not know.public[c]:
                                know.public[c] = True
                                for seen in know.seen:
                                    seen[c] = face
                            seat_stats["discards"] += 1
                            event = discards[seat].get(face) or _one_card_event(discards, _E_DISCARD, seat, face)
                            log_append(event)
                            self._shared = (self._shared, event)
                            self._event_count += 1
                            if gives is None:
                                ends = True
                            else:
                                self.power = power = gives  # _start_power(gives): the same seat decides
                                self.phase = phase = power_phase
                                self._legal = legal = self._legal_power(gives, seat)
                                continue
            elif phase is power_phase and before_discard:
                # _use_power(seat, action) for a power of one step (not a first step of two) or its skip, then
                # _finish_power: the turn's end
                power = self.power
                kind = type(action)
                seen_alone = False  # a peek or a spy used: its event is seen whole by the seat alone
                if kind is Peek and power is PEEK and action in legal:
                    p = action.position
                    c = know.hands[seat][p]
                    know.see(seat, c)
                    target = one_seat[p]
                    event = new(Event, (_E_PEEK, seat, target, (know.faces[c],), ""))
                    hidden = new(Event, (_E_PEEK, seat, target, _HIDDEN1, ""))
                    seen_alone = True
                elif kind is Spy and power is SPY and action in legal:
                    target = (action.seat, action.position)
                    c = know.hands[target[0]][target[1]]
                    know.see(seat, c)
                    event = new(Event, (_E_SPY, seat, target, (know.faces[c],), ""))
                    hidden = new(Event, (_E_SPY, seat, target, _HIDDEN1, ""))
                    seen_alone = True
                if seen_alone:
                    history_append((seat, action))
                    count = self._event_count  # _emit(event, seat, hidden), written out
                    log_append((event, seat, hidden))
                    self._shared = (self._shared, hidden)
                    own_chains[seat] = (own_chains[seat], count, event)
                    self._event_count = count + 1
                    seat_stats[power] += 1  # type: ignore[index]
                    self.power = self.target = power = power_target = None
                    ends = True
                elif ((kind is Swap and power is SWAP_POWER) or action is pass_it) and action in legal:
                    history_append((seat, action))
                    if kind is Swap:
                        target = (action.own, action.seat, action.position)
                        know.swap(seat, *target)
                        event = new(Event, (_E_SWAP, seat, target, (), ""))
                        seat_stats[power] += 1  # type: ignore[index]
                    else:
                        event = new(Event, (_E_SKIP, seat, (), (), ""))
                        seat_stats["powers_skipped"] += 1
                    log_append(event)  # _emit(event), written out
                    self._shared = (self._shared, event)
                    self._event_count += 1
                    self.power = self.target = power = power_target = None
                    ends = True
            if ends:
                ends = False
                # The turn's end: self._end_of_turn(self); when that is _finish_turn and the round goes on as usual
                # (no Cabo call, no empty hand, the deck not out, no turn limit), the next player's usual turn start
                if turn_ < usual_before:  # (the round goes on as usual and turn_ + 1 < max_turns, with _finish_turn)
                    self.turn = turn_ = turn_ + 1
                    seat = self.current = current = following[seat]
                    seat_stats = all_stats[seat]
                    # _begin_turn() with the usual choice, tested as _finish_turn's written-out start: a deck, a pile (a
                    # layout may start a power with none) and a hand
                    if deck_size and know.pile and know.hands[seat]:
                        self.phase = phase = choose_phase
                        self._movers = to_move = one_seat[seat]
                        self._turn_start = self._event_count
                        self._legal = legal = next_choice
                        try:
                            choose = choosers[seat]
                        except KeyError:
                            phase = None  # the loop's top names the seat without a chooser
                        continue
                    self._legal = None
                    self._begin_turn()  # (after a Cabo call too: the deck was there this turn, the round goes on)
                else:
                    self._legal = None
                    end_of_turn(self)
                phase = None
                if until_round_end and len(results) != n_results:
                    return
                continue
            # An action (tested first: `in` would ask any other object's own __eq__, which may say True to anything
            # or raise) that is legal (found in the seat's tuple by identity, or a multi-exchange a LegalActions' own `in`
            # finds): carried out as apply_unchecked(action, seat) does.
            if type(action) in action_types and action in legal:
                history_append((seat, action))
                self._legal = None
                moves[phase](self, seat, action)
            else:
                try:
                    self.apply(action, seat)
                except (IllegalActionError, ValueError) as exc:
                    raise IllegalActionError(f"{names[seat]} at seat {seat}: {exc}") from exc
            phase = None
            if until_round_end and len(results) != n_results:
                return

    def events_seen(self, seat: int | None = None, since: int = 0) -> list[Event]:
        """The game's events as ``seat`` saw them (``None``: everything, every face shown), from
        the ``since``-th on (:attr:`event_count` before a move marks where its events begin).

        >>> import cabo_kit as ck
        >>> game = ck.Game(ck.Rules.preset("rush"), seed=4, n_players=2, start_player=0)
        >>> mark = game.event_count
        >>> _ = game.apply(ck.Pass(), seat=0); _ = game.apply(ck.Pass(), seat=1); _ = game.apply(ck.DrawDeck())
        >>> [str(e) for e in game.events_seen(1, since=mark)]   # seat 1 did not see the card
        ['seat 0 draws from the deck']
        """
        log: list[Any] = self.log[since:] if since else self.log
        if seat is None:
            return [e if type(e) is not tuple else e[0] for e in log]
        return [e if type(e) is not tuple else e[0] if e[1] == seat else e[2] for e in log]

    def open_hands(self) -> tuple[tuple[Card, ...], ...]:
        """Every hand with every face shown, by seat (for spectators, replays and tests; never for a bot).

        >>> import cabo_kit as ck
        >>> game = ck.Game(ck.Rules.preset("deluxe"), seed=1, n_players=2, deck="3 5 9 12  1 1 4 6")
        >>> game.open_hands()
        ((Card('3'), Card('5'), Card('9'), Card('12')), (Card('1'), Card('1'), Card('4'), Card('6')))
        """
        faces = self.know.faces
        return tuple(pick(hand, faces) for hand in self.know.hands)

    @property
    def drawn_card(self) -> Card | None:
        """The drawn card's face, whoever holds it (spectators and tests; a seat's view is ``observation(seat).drawn``)."""
        return None if self.drawn is None else self.know.faces[self.drawn]

    @property
    def event_count(self) -> int:
        """How many events the game has had so far (see :meth:`events_seen`)."""
        return len(self.log)

    # ------------------------------------------------------------------ copies

    def clone(self) -> "Game":
        """An independent copy of the whole game (for search: play it forward, the original is untouched)."""
        new = Game.__new__(Game)
        _copy_slots(self, new)
        new.sheet = _copy_sheet(self.sheet)
        new.history = list(self.history)
        new.results = list(self.results)
        new.log = list(self.log)
        new.know = self.know.copy()
        new.deck = list(self.deck)
        new._pending = list(self._pending)
        new._claims = dict(self._claims)
        new._stats = [dict(s) for s in self._stats]
        new._own = list(self._own)  # the chains themselves are immutable
        new._snap_rng = _copy_rng(self._snap_rng) if self._snap_rng is not None else None
        new._reshuffle_rng = _copy_rng(self._reshuffle_rng) if self._reshuffle_rng is not None else None
        if self.chance is not None:
            new.chance = self.chance.copy()
        if self.chance_log is not None:
            new.chance_log = (list(self.chance_log[0]), list(self.chance_log[1]), list(self.chance_log[2]))
        return new

    # ------------------------------------------------------------------ layouts

    @classmethod
    def from_layout(
        cls,
        rules: Rules,
        hands: Sequence[Sequence[Card | str | int]],
        discard: Sequence[Card | str | int] = (),
        deck: "Sequence[Card | str | int] | None" = None,
        *,
        seed: int | str = 0,
        current: int = 0,
        start_player: int | None = None,
        scores: Sequence[int] | None = None,
        round: int = 0,
        turn: int = 0,
        caller: int | None = None,
        face_up: Sequence[Sequence[bool]] | None = None,
        known: Sequence[Iterable[tuple[int, int]]] | None = None,
        drawn: Card | str | int | None = None,
        drawn_from: str = "deck",
        memory: str = "engine",
        round_scores: Sequence[Sequence[int]] | None = None,
        phase: str | None = None,
        power: str | None = None,
        target: tuple[int, int] | None = None,
        last_turn: bool = False,
        final_turns: int | None = None,
        rollout: bool = False,
    ) -> "Game":
        """A game at the start of ``current``'s turn (or holding ``drawn``) from an explicit layout.

        This is what a search bot uses to play out a guess of the hidden cards. ``deck``
        lists the deck top first (default: the rest of the full deck, shuffled by
        ``seed``). ``known[s]`` lists the ``(seat, position)`` cards that seat ``s`` has
        seen; face-up cards and the discard pile are known to all. ``caller`` means
        Cabo was called and the players from ``current`` up to the caller still play.
        Later rounds are dealt from ``seed`` as usual.

        The rest of a moment, for a search's guesses (an observation says all of it):
        ``round_scores``, the earlier rounds' scores, replayed on the score sheet (its
        resets at 100 and the game's end then follow the rules exactly; ``scores`` is
        then left out); ``phase`` ``"power"``, ``"swap"`` or ``"end_turn"`` with its
        ``power`` and ``target``: the middle of ``current``'s turn; ``last_turn``: the
        deck ran out, the round ends with this turn; ``final_turns``: a hand went empty
        (``empty_hand="final_turns"``), this many turns are left, this one included.
        ``rollout=True`` makes a search's world: the round plays as always, but no
        events and no history are kept, and the game stops when the round ends (its
        :class:`RoundResult` and the score sheet say how). Observations still show what
        each seat has seen.

        >>> import cabo_kit as ck
        >>> g = ck.Game.from_layout(ck.Rules.preset("deluxe"), hands=[[1, 2, 3, 4], [5, 6, 7, 8]],
        ...                         discard=[9], deck=[10, 11], current=1)
        >>> g.phase, g.to_move, g.observation(1).deck_size
        (<Phase.CHOOSE: 'choose'>, (1,), 2)
        """
        n = len(hands)
        rules.check_players(n)
        game = cls.__new__(cls)
        game._setup(rules, seed, n, memory)
        game._rollout = rollout
        if round_scores is not None:
            for row in round_scores:
                game.sheet.add_round(row)
            if scores is not None and list(scores) != game.sheet.totals:
                raise ValueError(f"scores {list(scores)} are not the totals of round_scores {game.sheet.totals}")
        elif scores is not None:
            if len(scores) != n:
                raise ValueError(f"scores has {len(scores)} entries for {n} players")
            game.sheet.totals = list(scores)
        game._sync_scores()
        game.first_start_player = current if start_player is None else start_player
        game.round = round
        hand_cards = [[Card.parse(c) for c in h] for h in hands]
        pile_cards = [Card.parse(c) for c in discard]
        drawn_card = Card.parse(drawn) if drawn is not None else None
        used = [c for h in hand_cards for c in h] + pile_cards + ([drawn_card] if drawn_card else [])
        full = rules.full_deck(n)
        if deck is None:
            rest = _multiset_minus(full, used, "the layout")
            deck_cards = _shuffled(rest, random.Random(f"cabo-kit:{seed}:{round}:layout"))
        else:
            deck_cards = [Card.parse(c) for c in deck]
            _multiset_minus(full, used + deck_cards, "the layout and deck")
        order = [c for h in hand_cards for c in h] + pile_cards + ([drawn_card] if drawn_card else []) + deck_cards
        if not rollout:
            game.layout = {
                "hands": [[c.text for c in h] for h in hand_cards], "discard": [c.text for c in pile_cards],
                "deck": [c.text for c in deck_cards], "current": current, "start_player": game.first_start_player,
                "scores": list(game.sheet.totals), "round": round, "turn": turn, "caller": caller,
                "face_up": [list(map(bool, f)) for f in face_up] if face_up is not None else None,
                "known": [sorted(map(list, k)) for k in known] if known is not None else None,
                "drawn": drawn_card.text if drawn_card else None, "drawn_from": drawn_from,
            }
            moment = {"round_scores": [list(r) for r in round_scores] if round_scores is not None else None,
                      "phase": phase, "power": power, "target": target, "last_turn": last_turn,
                      "final_turns": final_turns}
            game.layout.update((k, v) for k, v in moment.items() if v)  # only what differs from the defaults
        i = 0
        dealt = []
        for h in hand_cards:
            dealt.append(list(range(i, i + len(h))))
            i += len(h)
        game._new_round(game.first_start_player, Knowledge(order, dealt, game._engine_memory))
        know = game.know
        game.current = current
        game.turn = turn
        game._first_turn = (current, turn)
        for c in range(i, i + len(pile_cards)):
            know.land(c)
        i += len(pile_cards)
        if drawn_card is not None:
            game.drawn = i
            game.drawn_from = drawn_from
            if drawn_from == "discard":
                know.reveal(i)
            else:
                know.see(current, i)
            i += 1
        game.deck = list(range(len(order) - 1, i - 1, -1))
        if face_up is not None:
            for s, flags in enumerate(face_up):
                for p, flag in enumerate(flags):
                    if flag:
                        know.turn(know.hands[s][p], True)
        if known is not None:
            for s, items in enumerate(known):
                for ts, tp in items:
                    know.see(s, know.hands[ts][tp])
        if caller is not None:
            game.caller = caller
            game._call_turn = -1
            game._final_left = (caller - current) % n
        game._emit(_new(Event, (_E_ROUND, None, (round, game.first_start_player), (), "")))
        if final_turns is not None:
            if final_turns < 1 or final_turns > n + 1:
                raise ValueError(f"final_turns={final_turns}: between 1 and {n + 1} turns are left after a hand went empty")
            game._empty_flag = True  # the hand went empty this turn (n + 1 turns left), or earlier
            game._empty_left = None if final_turns == n + 1 else final_turns
        game._end_after_turn = last_turn
        game._ending_changed()
        if phase is not None:
            if phase not in ("power", "swap", "end_turn") or drawn_card is not None:
                raise ValueError(f"phase={phase!r}: a layout starts at 'power', 'swap' or 'end_turn' (or leave it out)")
            if (phase == "end_turn") != (power is None):
                raise ValueError(f"phase={phase!r} with power={power!r}: a power's phase needs its power, the turn's end none")
            game.phase = Phase(phase)
            game.power = Power(power) if power is not None else None
            game.target = tuple(target) if target is not None else None  # type: ignore[assignment]
            game._movers = _ONE_SEAT[current]
            game._turn_start = game._event_count
        elif drawn_card is not None:
            game.phase = DRAWN
            game._movers = _ONE_SEAT[current]
            game._turn_start = game._event_count
        else:
            game._begin_turn()
        return game

    def __repr__(self) -> str:
        return (
            f"<Game {self.rules.name} {self.n} players, round {self.round + 1}, turn {self.turn}, "
            f"phase {self.phase!s}, to move {self.to_move}>"
        )


# Each phase's actions are carried out by one method of Game (see Game.apply_unchecked).
_MOVES: dict[Phase, Callable[[Game, int, Action], None]] = {
    CHOOSE: Game._on_choose, DRAWN: Game._on_drawn, SNAP: Game._on_snap, LOOK: Game._on_look, POWER: Game._use_power,
    SWAP: Game._use_power, PLACE: Game._place, GIVE: Game._give, END_TURN: Game._on_end_turn,
}


def _slot_copier(names: Sequence[str]) -> Any:
    """A function ``copy(src, dst)`` that sets each named attribute of ``dst`` to ``src``'s: one plain
    assignment per slot, written out once (as dataclasses do), several times faster than a loop."""
    body = "\n".join(f"    dst.{name} = src.{name}" for name in names)
    namespace: dict[str, Any] = {}
    exec(f"def copy_slots(src, dst):\n{body}\n", namespace)
    return namespace["copy_slots"]


_copy_slots = _slot_copier(Game.__slots__)
_FINISH_TURN = Game._finish_turn  # play_out writes out its usual case when a game's _end_of_turn is this function


def _copy_sheet(sheet: ScoreSheet) -> ScoreSheet:
    new = ScoreSheet.__new__(ScoreSheet)
    new.__dict__.update(sheet.__dict__)
    new.rounds = [list(r) for r in sheet.rounds]
    new.totals = list(sheet.totals)
    new.resets = list(sheet.resets)
    new.hit_100 = list(sheet.hit_100)
    new.reset_rounds = [list(r) for r in sheet.reset_rounds]
    return new


def _shuffled(items: Sequence[T], rng: random.Random) -> list[T]:
    """A seeded shuffle: the items stably sorted by one ``rng.random()`` key each, drawn in item order
    (Random.shuffle is a Python loop).

    CPython's ``list.sort`` computes every key, first to last, before comparing (the language promises
    only once each); tests/test_fast_rounds.py pins it. The sort is stable: so the key function here
    draws the next ``rng.random()`` whatever the item (``next`` on a C iterator calling it, the item
    passed as the unused default), all in C, with neither a key list nor an arg-sort of indices to
    pick the items back by (the test checks the order against that arg-sort, ties included).
    """
    return sorted(items, key=_partial(next, _starmap(rng.random, _repeat((), len(items)))))


def _checked_seat(answer: int, seats: Sequence[int], event: str) -> int:
    """A Chance's answer for ``event`` if it is one of ``seats``; else a ValueError naming the choices."""
    if type(answer) is int and answer in seats:
        return answer
    raise ValueError(f"Chance.{event} answered {answer!r}: answer one of seats {', '.join(map(str, seats))} or None")


def _fixed_order(ids: list[int], faces: Sequence[Card], order: Sequence[Card | str]) -> list[int]:
    """The deck (ids, top last) that ``order`` (the same cards as ``ids``, top first) names: a Chance's reshuffle."""
    left: dict[Card, list[int]] = {}
    for c in ids:
        left.setdefault(faces[c], []).append(c)
    deck = []
    for item in order:
        same = left.get(Card.parse(item))
        if not same:
            raise ValueError(f"Chance.reshuffle answered {item!s} more often than the {len(ids)} reshuffled cards hold it")
        deck.append(same.pop())
    if len(deck) != len(ids):
        raise ValueError(f"Chance.reshuffle answered {len(deck)} cards for a deck of {len(ids)}: list every card once")
    deck.reverse()
    return deck


def seeded_random(text: str) -> random.Random:
    """``random.Random(text)``, the same generator in the same state, seeded once instead of twice.

    ``Random(text)`` runs ``Random.__init__`` and ``Random.seed`` in Python (the text and its
    SHA-512 as one integer: its documented, reproducible way) before the C seeding; a game seeds
    a generator each round and one per bot. Here the integer is made as ``Random.seed`` makes it
    and handed straight to the C seeding (about 2% cheaper: the C seeding is most of the cost).

    >>> seeded_random("cabo-kit:7:shuffle").getstate() == random.Random("cabo-kit:7:shuffle").getstate()
    True
    """
    data = text.encode()
    rng = _new_random(random.Random)  # Random's __init__ would seed it (3.10: __new__ does, from the system's entropy)
    _seed_c(rng, int.from_bytes(data + _sha512(data).digest(), "big"))
    rng.gauss_next = None  # what Random.seed sets besides (getstate() reads it)
    return rng


def _copy_rng(rng: random.Random) -> random.Random:
    new = _new_random(random.Random)  # (Random() would seed it from the system's entropy first; setstate replaces it)
    new.setstate(rng.getstate())
    return new


def _parse_stack(deck: "Sequence[Card | str | int] | str") -> list[Card]:
    if isinstance(deck, str):
        deck = deck.split()
    return [Card.parse(c) for c in deck]


def _multiset_minus(full: list[Card], used: list[Card], what: str) -> list[Card]:
    pool: dict[Card, int] = {}
    for c in full:
        pool[c] = pool.get(c, 0) + 1
    for c in used:
        left = pool.get(c, 0)
        if left <= 0:
            raise ValueError(f"{what} uses {c} more often than the deck holds it")
        pool[c] = left - 1
    rest: list[Card] = []
    for c in full:
        if pool.get(c, 0) > 0:
            rest.append(c)
            pool[c] -= 1
    return rest


def _stacked(full: list[Card], stack: list[Card], rng: random.Random) -> list[Card]:
    rest = _multiset_minus(full, stack, "the stacked deck")
    return list(stack) + _shuffled(rest, rng)
