"""The game: a step-by-step state machine over rounds, turns and decisions.

A turn is a sequence of decisions. :attr:`Game.to_move` says which seats must decide
now (every seat at once in a deluxe set-up look and in a snap window);
:meth:`Game.legal_actions` lists what a seat may do; :meth:`Game.apply` checks and
carries out an action; :meth:`Game.observation` is what a seat may know. The game plays
round after round until the score sheet says it is over.

>>> import cabo_kit as ck
>>> game = ck.Game(ck.Rules.preset("deluxe"), seed=7, n_players=2)
>>> game.phase, game.to_move            # deluxe: both players choose the cards they look at
('look', (0, 1))
>>> events = game.apply(ck.InitialPeek((0, 1)), seat=0)     # apply returns what happened
>>> events = game.apply(ck.InitialPeek((2, 3)), seat=1)
>>> game.phase, game.to_move, game.legal_actions()
('choose', (0,), (DrawDeck(), DrawDiscard(), CallCabo()))
>>> [e.kind for e in game.apply(ck.DrawDeck())]
['draw']
>>> game.phase
'drawn'
"""

from __future__ import annotations

import random
from itertools import combinations
from itertools import repeat as _repeat
from itertools import starmap as _starmap
from operator import itemgetter as _itemgetter
from typing import Any, Iterable, Sequence, TypeVar

T = TypeVar("T")

from .actions import (
    Action, CallCabo, Discard, DrawDeck, DrawDiscard, Exchange, Give, IllegalActionError,
    InitialPeek, LegalActions, Pass, Peek, Place, Snap, Spy, Swap,
)
from .actions import (  # noqa: F401 - the shared instances (see actions.py)
    _CABO, _CHOOSE, _DISCARD, _DISCARD_EX1_ALL, _DRAW_DECK, _DRAW_DISCARD, _EX1_ALL, _LOOKS, _MAXPOS, _MULTI,
    _PASS, _SWAPS, _ex1, _give, _peek, _place, _snap, _spy, _swap,
)
from .cards import UNKNOWN, Card
from .observation import Event, Observation
from .rules import Rules
from .scoring import ScoreSheet, next_start_player, round_details

__all__ = ["Game", "RoundResult", "SEAT_STATS"]

_new_observation = tuple.__new__
_new = tuple.__new__
_tuple_iter: Any = tuple.__iter__
_ONE_SEAT = [(s,) for s in range(64)]
_OTHERS: dict[tuple[int, int], tuple[int, ...]] = {}
# The legal actions with a drawn card, by [multi_exchange][may discard][hand size], filled as met.
_DRAWN_LEGAL: dict[bool, tuple[list[Any], list[Any]]] = {m: ([None] * _MAXPOS, [None] * _MAXPOS) for m in (False, True)}
_HIDDEN1 = (UNKNOWN,)
# What the others see of seat s drawing from the deck: the same event every time, made once.
_HIDDEN_DRAW = [_new(Event, ("draw", s, (), _HIDDEN1, "")) for s in range(64)]


def _ev(kind: str, seat: int | None = None, target: tuple[int, ...] = (), cards: tuple[Card, ...] = (), info: str = "") -> Event:
    return _new_observation(Event, (kind, seat, target, cards, info))

SEAT_STATS = (
    "turns", "draws_deck", "draws_discard", "discards", "exchanges", "multi_exchanges", "failed_multi_exchanges",
    "penalty_cards", "peek", "spy", "swap", "peek_swap", "spy_swap", "powers_skipped",
    "snap_claims", "snaps", "snaps_right", "snaps_own", "gives", "cabo_calls",
)
"""Per-seat counters kept for every round (see :class:`RoundResult`)."""
_ZERO_STATS = dict.fromkeys(SEAT_STATS, 0)  # copied: much cheaper than building each round's dicts


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

    >>> import cabo_kit as ck
    >>> game = ck.Game(ck.Rules.preset("rush"), seed=1, n_players=2, start_player=0,
    ...                deck="2S 3S 4S 5S  2H 3H 4H 5H  9D  7C")
    >>> game.phase, game.to_move           # a snap window for the first discard
    ('snap', (0, 1))
    >>> _ = game.apply(ck.Pass(), seat=0); _ = game.apply(ck.Pass(), seat=1)
    >>> [str(e) for e in game.apply(ck.DrawDeck())]     # what the engine saw
    ['seat 0 draws from the deck: 7♣']
    >>> game.observation(0).drawn
    Card('7C')
    """

    # Slots, not a __dict__: the engine reads its attributes on every decision, and 66 of them
    # are too many for CPython's shared-key instance dicts, whose lookups are the fast ones.
    __slots__ = (
        "rules", "seed", "n", "memory", "_engine_memory", "sheet", "history", "results",
        "log", "_layout", "_stack", "_first_start", "round", "phase", "deck", "_pending",
        "cards", "up", "public", "vis", "upv", "hands", "pile", "start_player",
        "current", "caller", "_call_turn", "_final_left", "_end_after_turn", "_empty_flag", "_empty_left", "turn",
        "drawn", "drawn_from", "power", "target", "picked", "exchange_ok", "_place_stage", "give_to",
        "_snapper", "_after", "_claims", "_windows", "_snap_rng", "_reshuffle_rng", "stats", "seat_events",
        "_turn_mark", "_legal", "_all_seats", "_snapping", "_cabo_at_end", "_max_turns", "_reshuffles", "_ddmd",
        "_cabo_instead", "_ver", "_hv_cache", "_hver", "_ovc", "_ovv", "_fuc", "_fuv",
        "_disc", "_score_cache", "_drawn_legal",
    )

    deck: list[int]
    pile: list[int]
    _pending: list[int]
    _ver: int
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
    ) -> None:
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a cabo_kit.Rules (e.g. Rules.preset('deluxe')), not {type(rules).__name__}")
        rules.check_players(n_players)
        if memory not in ("engine", "none"):
            raise ValueError(f"memory={memory!r}: choose 'engine' or 'none'")
        self.rules = rules
        self.seed = seed
        self.n = n_players
        self.memory = memory
        self._engine_memory = memory == "engine"
        self.sheet = ScoreSheet(rules, n_players)
        self._sync_scores()
        self.history: list[tuple[int, Action]] = []
        self.results: list[RoundResult] = []
        # Every event of the game: (as its seer saw it, the seer or -1 for all, as the others saw it).
        self.log: list[tuple[Event, int, Event]] = []
        self._layout: dict[str, object] | None = None
        self._stack = _parse_stack(deck) if deck is not None else None
        if start_player is None:
            start_player = self._rng("start").randrange(n_players)
        elif not 0 <= start_player < n_players:
            raise ValueError(f"start_player={start_player} is not a seat of a {n_players}-player table")
        self._first_start = start_player
        self.round = -1
        self.phase = "over"
        self._start_round(start_player, self._stack)

    # ----------------------------------------------------------------- set-up

    def _rng(self, purpose: str, round_no: int | None = None) -> random.Random:
        key = f"cabo-kit:{self.seed}:{purpose}" if round_no is None else f"cabo-kit:{self.seed}:{round_no}:{purpose}"
        return random.Random(key)

    def _start_round(self, start_player: int, stack: list[Card] | None) -> None:
        rules, n = self.rules, self.n
        self.round += 1
        full = rules.full_deck(n)
        if stack is not None:
            order = _stacked(full, stack, self._rng("shuffle", self.round))
        else:
            order = list(full)
            order = _shuffled(order, self._rng("shuffle", self.round))
        self._begin_round_state(start_player, order)
        k = rules.hand_size
        deal = 0
        for s in range(n):
            self.hands[s] = list(range(deal, deal + k))
            deal += k
        self._bump_all()
        self.deck = list(range(len(order) - 1, deal - 1, -1))
        self._emit_all(_ev("round", None, (self.round, start_player)))
        if rules.peek_choice and rules.initial_peeks:
            self.phase = "look"
            self._pending = list(range(n))
            return
        if rules.initial_peeks:
            for s in range(n):
                hand = self.hands[s]
                positions = tuple(range(len(hand) - rules.initial_peeks, len(hand)))
                self._do_look(s, positions)
        self._flip_first()

    def _begin_round_state(self, start_player: int, order: list[Card]) -> None:
        n = self.n
        self.cards: list[Card] = order
        size = len(order)
        self.up: list[bool] = [False] * size
        self.public: list[bool] = [False] * size
        self.vis: list[list[Card]] = [[UNKNOWN] * size for _ in range(n)]
        self.upv: list[Card] = [UNKNOWN] * size
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.deck = []
        self.pile = []
        self.start_player = start_player
        self.current = start_player
        self.caller: int | None = None
        self._call_turn = -1
        self._final_left = 0
        self._end_after_turn = False
        self._empty_flag = False
        self._empty_left: int | None = None
        self.turn = 0
        self.drawn: int | None = None
        self.drawn_from: str | None = None
        self.power: str | None = None
        self.target: tuple[int, int] | None = None
        self.picked: tuple[int, ...] = ()
        self.exchange_ok: bool | None = None
        self._place_stage = ""
        self.give_to: tuple[int, int] | None = None
        self._snapper = -1
        self._after = ""
        self._pending = []
        self._claims: dict[int, Action] = {}
        self._windows = 0
        # Made on first use: seeding a generator costs more than most turns.
        self._snap_rng: random.Random | None = None
        self._reshuffle_rng: random.Random | None = None
        self.stats: list[dict[str, int]] = [_ZERO_STATS.copy() for _ in range(n)]
        self.seat_events: list[list[Event]] = [[] for _ in range(n)]
        self._turn_mark: list[int] = [0] * n
        self._legal = None
        self._all_seats = tuple(range(n))
        # Rule flags read on every turn (Rules is frozen, so copying them is safe).
        self._snapping = self.rules.snapping
        self._cabo_at_end = self.rules.cabo_timing == "end_of_turn"
        self._max_turns = self.rules.max_turns
        self._reshuffles = self.rules.deck_out == "reshuffle"
        self._ddmd = self.rules.discard_draw_may_discard
        self._cabo_instead = self.rules.cabo_timing == "instead"
        self._drawn_legal = _DRAWN_LEGAL[bool(self.rules.multi_exchange)]
        self._ver = 0
        self._hv_cache: list[tuple[int, tuple[tuple[Card, ...], ...], tuple[tuple[bool, ...], ...]]] = [(-1, (), ())] * n
        self._hver: list[int] = [0] * n
        # Per seat and hand: the seat's view of it and that hand's version then; per hand: its face-up flags.
        self._ovc: list[list[tuple[Card, ...]]] = [[()] * n for _ in range(n)]
        self._ovv: list[list[int]] = [[-1] * n for _ in range(n)]
        self._fuc: list[tuple[bool, ...]] = [()] * n
        self._fuv: list[int] = [-1] * n
        # The discard pile's faces, kept up to date wherever the pile changes.
        self._disc: tuple[Card, ...] = ()

    def _flip_first(self) -> None:
        c = self._draw_card()
        if c is None:  # pragma: no cover - a deck always has a card here
            self._begin_turn()
            return
        self._land(c)
        self._emit_all(_ev("flip", None, (), (self.cards[c],)))
        self._open_window("start")

    # ----------------------------------------------------------- knowledge

    # Observations cache each seat's view of the hands, hand by hand. Every change to a hand,
    # to what a seat knows of a card in it, or to a hand card's face bumps that hand's version
    # (self._hver[owner]) and self._ver (which says "some hand changed").

    def _bump(self, owner: int) -> None:
        self._hver[owner] += 1
        self._ver += 1

    def _bump_all(self) -> None:
        hver = self._hver
        for o in range(self.n):
            hver[o] += 1
        self._ver += 1

    def _bump_card(self, c: int) -> None:
        """Card ``c``'s face or what someone knows of it changed: bump the hand that holds it."""
        self._ver += 1
        for o, hand in enumerate(self.hands):
            if c in hand:
                self._hver[o] += 1
                return

    def _show(self, seat: int, c: int) -> None:
        self.vis[seat][c] = self.cards[c]
        self._bump_card(c)

    def _reveal(self, c: int) -> None:
        if not self.public[c]:
            self.public[c] = True
            card = self.cards[c]
            for v in self.vis:
                v[c] = card
            self._bump_card(c)

    def _set_up(self, c: int, up: bool) -> None:
        self.up[c] = up
        self.upv[c] = self.cards[c] if up else UNKNOWN
        self._bump_card(c)
        if up:
            self._reveal(c)

    def _land(self, c: int) -> None:
        """Put a card (held by nobody) face up on the discard pile: no hand view changes."""
        self.pile.append(c)
        card = self.cards[c]
        self._disc += (card,)
        self.up[c] = True
        self.upv[c] = card
        if not self.public[c]:
            self.public[c] = True
            for v in self.vis:
                v[c] = card

    def _emit_all(self, event: Event) -> None:
        self.log.append((event, -1, event))
        for evs in self.seat_events:
            evs.append(event)

    def _emit_private(self, event: Event, seer: int) -> None:
        """An event whose cards only ``seer`` saw; everybody else gets the faces as ``??``."""
        hidden = _new_observation(Event, (event[0], event[1], event[2], (UNKNOWN,) * len(event[3]), event[4]))
        self._emit_split(event, hidden, seer)

    def _emit_split(self, event: Event, hidden: Event, seer: int) -> None:
        self.log.append((event, seer, hidden))
        seat_events = self.seat_events
        for evs in seat_events:
            evs.append(hidden)
        seat_events[seer][-1] = event

    # --------------------------------------------------------------- decks

    def _can_draw(self) -> bool:
        return bool(self.deck) or (self.rules.deck_out == "reshuffle" and len(self.pile) > 1)

    def _draw_card(self) -> int | None:
        """The top card of the deck (reshuffling when the rules say so), or ``None``."""
        if not self.deck and self.rules.deck_out == "reshuffle" and len(self.pile) > 1:
            top = self.pile.pop()
            moved = self.pile
            self.pile = [top]
            self._disc = (self.cards[top],)
            for c in moved:
                self.up[c] = False
                self.upv[c] = UNKNOWN
                self.public[c] = False
                for v in self.vis:
                    v[c] = UNKNOWN
            if self._reshuffle_rng is None:
                self._reshuffle_rng = self._rng("reshuffle", self.round)
            moved = _shuffled(moved, self._reshuffle_rng)
            self.deck = moved
            self._emit_all(_ev("reshuffle", None, (len(moved),)))
        if not self.deck:
            self._end_after_turn = True
            return None
        c = self.deck.pop()
        if not self.deck and self.rules.deck_out == "end_round":
            self._end_after_turn = True
        return c

    # -------------------------------------------------------------- public API

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.phase == "over"

    @property
    def to_move(self) -> tuple[int, ...]:
        """The seats that must decide now: one seat, or several at once (set-up look, snap window)."""
        phase = self.phase
        if phase == "look" or phase == "snap":
            return tuple(self._pending)
        if phase == "over":
            return ()
        return _ONE_SEAT[self._snapper if phase == "give" else self.current]

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
        if phase == "look" or phase == "snap":
            if seat is None:
                seat = self._only_mover()
            if seat not in self._pending:
                return ()
            return self._legal_look(seat) if phase == "look" else self._legal_snap()
        if phase == "over":
            return ()
        mover = self._snapper if phase == "give" else self.current
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
                f"seats {', '.join(map(str, movers))} decide at once in phase {self.phase!r}: say which seat acts (seat=...)"
            )
        return movers[0]

    def _legal_look(self, seat: int) -> tuple[Action, ...]:
        key = (len(self.hands[seat]), self.rules.initial_peeks)
        looks = _LOOKS.get(key)
        if looks is None:
            looks = _LOOKS[key] = tuple(InitialPeek(p) for p in combinations(range(key[0]), key[1]))
        return looks

    def _legal_snap(self) -> tuple[Action, ...]:
        out: list[Action] = [_PASS]
        up = self.up
        for s, hand in enumerate(self.hands):
            for p, c in enumerate(hand):
                if not up[c]:
                    out.append(_snap(s, p))
        return tuple(out)

    def _compute_legal(self) -> tuple[Action, ...]:
        phase = self.phase
        rules = self.rules
        me = self.current
        hand = self.hands[me]
        if phase == "choose":
            pile = self.pile
            return _CHOOSE[
                (bool(self.deck) or (self._reshuffles and len(pile) > 1),
                 bool(pile) and (bool(hand) or self._ddmd),
                 self._cabo_instead and self.caller is None and self._empty_left is None and not self._empty_flag)
            ]
        if phase == "drawn":
            k = len(hand)
            may_discard = self.drawn_from == "deck" or self._ddmd or not hand
            if k < _MAXPOS:
                found = self._drawn_legal[may_discard][k]
                if found is not None:
                    return found
                fixed = _DISCARD_EX1_ALL[k] if may_discard else _EX1_ALL[k]
            else:
                fixed = ((_DISCARD,) if may_discard else ()) + tuple(_ex1(p) for p in range(k))
            result: tuple[Action, ...] = fixed
            if rules.multi_exchange and k >= 2:
                key = (may_discard, k)
                multi = _MULTI.get(key)
                if multi is None:
                    multi = _MULTI[key] = LegalActions(fixed, k)
                result = multi
            if k < _MAXPOS:
                self._drawn_legal[may_discard][k] = result
            return result
        if phase == "power":
            power = self.power
            up = self.up
            if power == "peek" or power == "peek_swap":
                return tuple([_PASS] + [_peek(p) for p, c in enumerate(hand) if not up[c]])
            if power == "spy" or power == "spy_swap":
                out: list[Action] = [_PASS]
                hands = self.hands
                for s in self._others(me):
                    out += [_spy(s, p) for p, c in enumerate(hands[s]) if not up[c]]
                return tuple(out)
            return self._legal_swaps(me, None)
        if phase == "swap":
            return self._legal_swaps(me, self.target)
        if phase == "place":
            if self._place_stage == "success":
                return tuple(_place(p) for p in self.picked)
            return (_place(0), _place(len(hand)))
        if phase == "give":
            gives = tuple(_give(p) for p in range(len(self.hands[self._snapper])))
            return gives + (_PASS,) if rules.snap_give == "optional" else gives
        if phase == "end_turn":
            return (_PASS, _CABO)
        return ()

    def _legal_swaps(self, me: int, target: tuple[int, int] | None) -> tuple[Action, ...]:
        out: list[Action] = [_PASS]
        mine = range(len(self.hands[me]))
        if target is not None:
            s, p = target
            out.extend(_swap(o, s, p) for o in mine)
            return tuple(out)
        key = (me, tuple([len(h) for h in self.hands]))
        cached = _SWAPS.get(key)
        if cached is None:
            for s in self._others(me):
                for p in range(len(self.hands[s])):
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
        >>> game.apply("look 0,1", seat=0)
        [Event(kind='look', seat=0, target=(0, 1), cards=(Card('3'), Card('5')), info='')]
        >>> [str(e) for e in game.apply("look 2,3", seat=1)]
        ['seat 1 looks at own positions 2,3: 4 6', 'the top card of the deck is turned up: 7']
        """
        if type(action) is str:
            action = Action.parse(action)
        phase = self.phase
        if phase == "look" or phase == "snap" or phase == "over":
            if seat is None:
                seat = self._only_mover()
            legal = self.legal_actions(seat)
        else:
            mover = self._snapper if phase == "give" else self.current
            if seat is None:
                seat = mover
            if seat != mover:
                legal = ()
            else:
                cached = self._legal
                if cached is None:
                    cached = self._legal = self._compute_legal()
                legal = cached
        # Bots return the engine's own action objects: look for that object first (a Python loop
        # of identity tests beats tuple.__contains__, which calls the dataclasses' __eq__ on
        # every element before the match), then for an equal one.
        for a in _tuple_iter(legal):
            if a is action:
                break
        else:
            if action not in legal:
                self._illegal(action, seat, legal)
        log = self.log
        mark = len(log)
        self._apply(action, seat)  # type: ignore[arg-type]
        return [e for e, _, _ in log[mark:]]

    def _illegal(self, action: object, seat: int, legal: Sequence[Action]) -> None:
        where = f"phase {self.phase!r}, round {self.round + 1}, turn {self.turn}"
        if self.phase == "over":
            raise IllegalActionError(f"{action!s} is not legal: the game is over")
        if not legal:
            movers = ", ".join(map(str, self.to_move)) or "nobody"
            raise IllegalActionError(f"seat {seat} cannot act now ({where}); to move: seat {movers}")
        shown = ", ".join(str(a) for a in list(legal)[:12]) + (", ..." if len(legal) > 12 else "")
        raise IllegalActionError(f"{action!s} is not legal for seat {seat} ({where}); legal: {shown}")

    # --------------------------------------------------------------- the moves

    def apply_unchecked(self, action: Action, seat: int) -> None:
        """Carry out ``action`` for ``seat`` without checking it: a fast path for simulations and
        game loops that pick from :meth:`legal_actions`. An illegal action here can corrupt the game."""
        self.history.append((seat, action))
        self._legal = None
        phase = self.phase
        # The two decisions of every turn first.
        if phase == "choose":
            me = self.current
            kind = type(action)
            if kind is DrawDeck:
                deck = self.deck
                if deck and (len(deck) > 1 or self.rules.deck_out != "end_round"):
                    c = deck.pop()
                else:
                    c = self._draw_card()  # type: ignore[assignment]
                    assert c is not None
                self.drawn, self.drawn_from = c, "deck"
                card = self.cards[c]
                self.vis[me][c] = card  # not in a hand: no view changes
                self.stats[me]["draws_deck"] += 1
                self._emit_split(_new(Event, ("draw", me, (), (card,), "")), _HIDDEN_DRAW[me], me)
                self.phase = "drawn"
            elif kind is DrawDiscard:
                pile = self.pile
                c = pile.pop()
                self._disc = self._disc[:-1]
                self.drawn, self.drawn_from = c, "discard"
                self.up[c] = False
                self.upv[c] = UNKNOWN
                self.stats[me]["draws_discard"] += 1
                self._emit_all(_ev("take", me, (), (self.cards[c],)))
                self.phase = "drawn"
            else:
                self._call(me)
                self._finish_turn()
        elif phase == "drawn":
            if type(action) is Discard:
                self._do_discard(self.current)
            else:
                self._do_exchange(self.current, action.positions)  # type: ignore[attr-defined]
        elif phase == "snap":
            self._claims[seat] = action
            self._pending.remove(seat)
            if isinstance(action, Snap):
                self.stats[seat]["snap_claims"] += 1
            if not self._pending:
                self._resolve_window()
        elif phase == "look":
            self._pending.remove(seat)
            self._do_look(seat, action.positions)  # type: ignore[attr-defined]
            if not self._pending:
                self._flip_first()
        elif phase == "power" or phase == "swap":
            self._do_power(self.current, action)
        elif phase == "place":
            self._do_place(self.current, action.index)  # type: ignore[attr-defined]
        elif phase == "give":
            self._do_give(seat, action)
        elif phase == "end_turn":
            if type(action) is CallCabo:
                self._call(self.current)
            self._finish_turn()

    _apply = apply_unchecked  # the name the engine's own code uses

    def _call(self, me: int) -> None:
        self.caller = me
        self._call_turn = self.turn
        self._final_left = self.n - 1
        self.stats[me]["cabo_calls"] += 1
        self._emit_all(_ev("cabo", me))

    def _do_look(self, seat: int, positions: tuple[int, ...]) -> None:
        hand = self.hands[seat]
        cards = self.cards
        seen = self.vis[seat]
        faces = []
        for p in positions:  # _show(seat, hand[p]) for each, with one bump of the hand they are in
            c = hand[p]
            seen[c] = cards[c]
            faces.append(cards[c])
        self._bump(seat)
        self._emit_private(_ev("look", seat, tuple(positions), tuple(faces)), seat)

    def _do_discard(self, me: int) -> None:
        c = self.drawn
        assert c is not None
        from_deck = self.drawn_from == "deck"
        self.drawn = None
        self.drawn_from = None
        self._land(c)
        self.stats[me]["discards"] += 1
        self._emit_all(_new(Event, ("discard", me, (), (self.cards[c],), "")))
        value = self.cards[c].value
        power = self.rules._power_table[value] if from_deck and value is not None and value >= 0 else None
        if power is None:
            self._open_window("end")
        elif self.rules.power_timing == "before_discard":
            self._start_power(power)
        else:
            self.power = power
            self._open_window("power")

    def _start_power(self, power: str) -> None:
        self.power = power
        self.phase = "power"
        if power == "peek_swap" and not any(not self.up[c] for c in self.hands[self.current]):
            self.phase = "swap"

    def _do_exchange(self, me: int, positions: tuple[int, ...]) -> None:
        c = self.drawn
        assert c is not None
        hand = self.hands[me]
        from_discard = self.drawn_from == "discard"
        if len(positions) == 1:
            p = positions[0]
            old = hand[p]
            hand[p] = c
            self.drawn = None
            self.drawn_from = None
            cards = self.cards
            if from_discard:
                # _set_up(c, ...) and _reveal(c) without their hand search: the hand bump below covers it.
                face_up = self.rules.discard_draw_face_up
                self.up[c] = face_up
                self.upv[c] = cards[c] if face_up else UNKNOWN
                if not self.public[c]:
                    self._reveal(c)
            else:
                # Inline _set_up(c, False) and _show(me, c): the hot path of every game.
                self.up[c] = False
                self.upv[c] = UNKNOWN
                self.vis[me][c] = cards[c]
            self._hver[me] += 1  # self._bump(me), inlined
            self._ver += 1
            self._land(old)
            self.stats[me]["exchanges"] += 1
            target = (p,)
            event = _new(Event, ("exchange", me, target, (cards[old], cards[c]), ""))
            if from_discard:
                self._emit_all(event)
            else:
                # Everybody saw the card that left; only the drawer knows the new one.
                self._emit_split(event, _new(Event, ("exchange", me, target, (cards[old], UNKNOWN), "")), me)
            if self._snapping:
                self._open_window("end")
            elif self._cabo_at_end:
                self._end_turn()
            else:  # _open_window and _end_turn would come here: the usual turn end, two calls fewer
                self._finish_turn()
            return
        for p in positions:
            self._set_up(hand[p], True)
        values = {self.cards[hand[p]].value for p in positions}
        ok = len(values) == 1
        self.picked = positions
        self.exchange_ok = ok
        self.stats[me]["multi_exchanges"] += 1
        if not ok:
            self.stats[me]["failed_multi_exchanges"] += 1
        self._emit_all(_ev("multi", me, positions, tuple(self.cards[hand[p]] for p in positions), "ok" if ok else "fail"))
        self._place_stage = "success" if ok else "fail"
        self.phase = "place"

    def _do_place(self, me: int, index: int) -> None:
        hand = self.hands[me]
        stage = self._place_stage
        if stage == "penalty":
            c = self.drawn
            assert c is not None
            self.drawn = None
            self.drawn_from = None
            hand.insert(index, c)
            self._bump(me)
            self._emit_all(_ev("penalty", me, (index,), (UNKNOWN,)))
            self._end_multi()
            return
        c = self.drawn
        assert c is not None
        from_discard = self.drawn_from == "discard"
        self.drawn = None
        self.drawn_from = None
        self._set_up(c, from_discard and self.rules.discard_draw_face_up)
        if from_discard:
            self._reveal(c)
        else:
            self._show(me, c)
        self._emit_all(_ev("place", me, (index,)))
        if stage == "success":
            picked = set(self.picked)
            new: list[int] = []
            out: list[int] = []
            for p, x in enumerate(hand):
                if p == index:
                    new.append(c)
                    out.append(x)
                elif p in picked:
                    out.append(x)
                else:
                    new.append(x)
            self.hands[me] = new
            self._bump(me)
            for x in out:
                self._land(x)
            self._reset_multi()
            self._open_window("end")
            return
        hand.insert(index, c)
        self._bump(me)
        if len(self.picked) >= self.rules.multi_exchange_penalty_at:
            penalty = self._draw_card()
            if penalty is not None:
                self.drawn = penalty
                self.drawn_from = "penalty"
                self.stats[me]["penalty_cards"] += 1
                self._place_stage = "penalty"
                return
        self._end_multi()

    def _reset_multi(self) -> None:
        self.picked = ()
        self.exchange_ok = None
        self._place_stage = ""

    def _end_multi(self) -> None:
        self._reset_multi()
        self._end_turn()

    def _do_power(self, me: int, action: Action) -> None:
        power = self.power
        kind = type(action)
        if kind is Pass:
            if self.phase == "power":
                self.stats[me]["powers_skipped"] += 1
                self._emit_all(_ev("skip", me))
            else:
                self.stats[me][power] += 1  # type: ignore[index]
            self._finish_power()
            return
        if kind is Peek:
            p = action.position  # type: ignore[attr-defined]
            c = self.hands[me][p]
            self._show(me, c)
            self._emit_private(_ev("peek", me, (p,), (self.cards[c],)), me)
            if power == "peek_swap":
                self.phase = "swap"
                return
        elif kind is Spy:
            s, p = action.seat, action.position  # type: ignore[attr-defined]
            c = self.hands[s][p]
            self._show(me, c)
            self._emit_private(_ev("spy", me, (s, p), (self.cards[c],)), me)
            if power == "spy_swap":
                self.target = (s, p)
                self.phase = "swap"
                return
        else:
            o, s, p = action.own, action.seat, action.position  # type: ignore[attr-defined]
            mine, theirs = self.hands[me], self.hands[s]
            mine[o], theirs[p] = theirs[p], mine[o]
            self._bump(me)
            self._bump(s)
            self._emit_all(_ev("swap", me, (o, s, p)))
        self.stats[me][power] += 1  # type: ignore[index]
        self._finish_power()

    def _finish_power(self) -> None:
        self.power = None
        self.target = None
        if self.rules.power_timing == "before_discard":
            self._open_window("end")
        else:
            self._end_turn()

    # ----------------------------------------------------------------- snaps

    def _open_window(self, after: str) -> None:
        if self._snapping and any(not self.up[c] for hand in self.hands for c in hand):
            self._after = after
            self._windows += 1
            self.phase = "snap"
            self._pending = list(range(self.n))
            self._claims = {}
            return
        if after == "end":
            self._end_turn()
        else:
            self._continue(after)

    def _continue(self, after: str) -> None:
        if after == "start":
            self._begin_turn()
        elif after == "power" and self.power is not None:
            self._start_power(self.power)
        else:
            self._end_turn()

    def _resolve_window(self) -> None:
        claims = self._claims
        claimers = [s for s in range(self.n) if isinstance(claims.get(s), Snap)]
        after = self._after
        self._claims = {}
        if not claimers:
            self._continue(after)
            return
        if len(claimers) > 1:
            if self._snap_rng is None:
                self._snap_rng = self._rng("snap", self.round)
            snapper = claimers[self._snap_rng.randrange(len(claimers))]
        else:
            snapper = claimers[0]
        claim = claims[snapper]
        ts, tp = claim.seat, claim.position  # type: ignore[attr-defined]
        stats = self.stats[snapper]
        stats["snaps"] += 1
        hand = self.hands[ts]
        c = hand[tp]
        self._reveal(c)
        match = self.cards[c].value == self.cards[self.pile[-1]].value
        self._emit_all(_ev("snap", snapper, (ts, tp), (self.cards[c],), "match" if match else "miss"))
        if match:
            stats["snaps_right"] += 1
            if ts == snapper:
                stats["snaps_own"] += 1
            del hand[tp]
            self._bump(ts)
            self._land(c)
            if ts != snapper and self.hands[snapper]:
                self.give_to = (ts, tp)
                self._snapper = snapper
                self._after = after
                self.phase = "give"
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
            hand = self.hands[seat]
            hand.append(c)
            self._bump(seat)
            self.stats[seat]["penalty_cards"] += 1
            self._emit_all(_ev("penalty", seat, (len(hand) - 1,), (UNKNOWN,)))

    def _do_give(self, seat: int, action: Action) -> None:
        ts, tp = self.give_to  # type: ignore[misc]
        self.give_to = None
        if type(action) is Give:
            p = action.position
            c = self.hands[seat].pop(p)
            self.hands[ts].insert(tp, c)
            if self.up[c]:
                self._set_up(c, False)  # a given card is moved face down (what was public stays known)
            self._bump(seat)
            self._bump(ts)
            self.stats[seat]["gives"] += 1
            self._emit_all(_ev("give", seat, (p, ts, tp)))
        self._after_snap(self._after)

    def _after_snap(self, after: str) -> None:
        if any(not hand for hand in self.hands):
            if self.rules.empty_hand == "end_now":
                self._end_round("empty_hand")
                return
            self._empty_flag = True
        self._continue(after)

    # ------------------------------------------------------------------ turns

    def _begin_turn(self) -> None:
        self.phase = "choose"
        self._legal = None
        if not self._engine_memory:
            mark = self._turn_mark
            for s, evs in enumerate(self.seat_events):
                mark[s] = len(evs)
        if not (self.deck or (self.rules.deck_out == "reshuffle" and len(self.pile) > 1)):
            self._end_after_turn = True
            if not self._compute_legal():
                self._end_round("deck")

    def _end_turn(self) -> None:
        if (
            self._cabo_at_end
            and self.caller is None
            and self._empty_left is None
            and not self._empty_flag
        ):
            self.phase = "end_turn"
            return
        self._finish_turn()

    def _finish_turn(self) -> None:
        me = self.current
        self.stats[me]["turns"] += 1
        turn = self.turn
        self.turn = turn + 1
        if (
            self.caller is None and self._empty_left is None and not self._empty_flag
            and not self._end_after_turn and turn + 1 < self._max_turns
        ):  # the usual turn end, in one test: the next player's turn
            self.current = (me + 1) % self.n
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
        rules = self.rules
        final = [[self.cards[c] for c in hand] for hand in self.hands]
        details = round_details(rules, final, self.caller, ended_by)
        self.sheet.add_round(details.scores)
        self._sync_scores()
        result = RoundResult(
            index=self.round,
            start_player=self.start_player,
            caller=self.caller,
            caller_won=details.caller_won,
            ended_by=ended_by,
            final_hands=final,
            totals=list(details.totals),
            scores=list(details.scores),
            game_totals=list(self.sheet.totals),
            kamikaze=list(details.kamikaze),
            royal_roulette=list(details.royal_roulette),
            resets=list(self.sheet.reset_rounds[-1]),
            turns=self.turn,
            snap_windows=self._windows,
            stats=self.stats,
        )
        self.results.append(result)
        if self.sheet.game_over:
            for hand in self.hands:  # the final observation shows every hand
                for c in hand:
                    self._reveal(c)
        self._emit_all(_ev("end", None, tuple(details.scores), (), ended_by))
        self.drawn = None
        self.drawn_from = None
        self.power = None
        self._pending = []
        if self.sheet.game_over:
            self.phase = "over"
            self._legal = None
            return
        start = next_start_player(rules, details.scores, self.start_player, self.caller, details.caller_won)
        self._start_round(start, None)

    # ------------------------------------------------------------ observation

    def _views(self, seat: int) -> tuple[int, tuple[tuple[Card, ...], ...], tuple[tuple[bool, ...], ...]]:
        """``seat``'s view of the hands and the face-up flags; only the hands that changed are rebuilt."""
        view = self.vis[seat] if self._engine_memory else self.upv
        hver = self._hver
        mine = self._ovc[seat]
        mver = self._ovv[seat]
        flags = self._fuc
        fver = self._fuv
        o = 0
        for hand in self.hands:
            v = hver[o]
            if mver[o] != v:
                mver[o] = v
                mine[o] = _pick(hand, view)
                # Whoever sees a hand's version first also brings its face-up flags to it.
                if fver[o] != v:
                    fver[o] = v
                    flags[o] = _pick(hand, self.up)
            o += 1
        entry = self._hv_cache[seat] = (self._ver, tuple(mine), tuple(flags))
        return entry

    def _sync_scores(self) -> None:
        sheet = self.sheet
        self._score_cache = (tuple(sheet.totals), tuple([tuple(r) for r in sheet.rounds]))

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know now, with its legal actions (empty if it need not decide)."""
        try:
            cached = self._hv_cache[seat]
        except (IndexError, TypeError):
            cached = None
        if cached is None or seat < 0:
            raise ValueError(f"seat {seat!r} is not a seat of this {self.n}-player table")
        if cached[0] != self._ver:
            cached = self._views(seat)
        if self._engine_memory:
            discard = self._disc
            events = tuple(self.seat_events[seat])
        else:
            discard = self._disc[-1:]
            events = tuple(self.seat_events[seat][self._turn_mark[seat]:])
        drawn = self.drawn
        current = self.current
        drawn_card: Card | None = None
        if drawn is not None:
            from_ = self.drawn_from
            if from_ == "discard" or (seat == current and from_ == "deck"):
                drawn_card = self.cards[drawn]
            else:
                drawn_card = UNKNOWN
        phase = self.phase
        if phase == "snap" or phase == "look":
            to_move: tuple[int, ...] = self._all_seats
            legal: Sequence[Action] = self.legal_actions(seat)
        elif phase == "over":
            to_move = ()
            legal = ()
        else:
            mover = self._snapper if phase == "give" else current
            to_move = _ONE_SEAT[mover]
            if seat == mover:
                known = self._legal
                if known is None:
                    known = self._legal = self._compute_legal()
                legal = known
            else:
                legal = ()
        scores = self._score_cache
        return _new_observation(Observation, (
            seat, self.n, self.rules, self.memory, self.round, self.turn, phase, current, to_move,
            self.start_player, self.caller, cached[1], cached[2], discard, len(self.deck), drawn_card,
            self.drawn_from, self.power, self.target, self.picked, self.exchange_ok, self.give_to,
            scores[0], scores[1], events, legal,
        ))

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
        log = self.log[since:] if since else self.log
        if seat is None:
            return [e for e, _, _ in log]
        return [e if who < 0 or who == seat else hidden for e, who, hidden in log]

    def open_hands(self) -> tuple[tuple[Card, ...], ...]:
        """Every hand with every face shown, by seat (for spectators, replays and tests; never for a bot).

        >>> import cabo_kit as ck
        >>> game = ck.Game(ck.Rules.preset("deluxe"), seed=1, n_players=2, deck="3 5 9 12  1 1 4 6")
        >>> game.open_hands()
        ((Card('3'), Card('5'), Card('9'), Card('12')), (Card('1'), Card('1'), Card('4'), Card('6')))
        """
        cards = self.cards
        return tuple(tuple(cards[c] for c in hand) for hand in self.hands)

    @property
    def drawn_card(self) -> Card | None:
        """The drawn card's face, whoever holds it (spectators and tests; a seat's view is ``observation(seat).drawn``)."""
        return None if self.drawn is None else self.cards[self.drawn]

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
        new.up = list(self.up)
        new.public = list(self.public)
        new.vis = [list(v) for v in self.vis]
        new.upv = list(self.upv)
        new.hands = [list(h) for h in self.hands]
        new.deck = list(self.deck)
        new.pile = list(self.pile)
        new._pending = list(self._pending)
        new._claims = dict(self._claims)
        new.stats = [dict(s) for s in self.stats]
        new.seat_events = [list(e) for e in self.seat_events]
        new._turn_mark = list(self._turn_mark)
        new._hv_cache = list(self._hv_cache)
        new._hver = list(self._hver)
        new._ovc = [list(c) for c in self._ovc]
        new._ovv = [list(c) for c in self._ovv]
        new._fuc = list(self._fuc)
        new._fuv = list(self._fuv)
        new._snap_rng = _copy_rng(self._snap_rng) if self._snap_rng is not None else None
        new._reshuffle_rng = _copy_rng(self._reshuffle_rng) if self._reshuffle_rng is not None else None
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
    ) -> "Game":
        """A game at the start of ``current``'s turn (or holding ``drawn``) from an explicit layout.

        This is what a search bot uses to play out a guess of the hidden cards. ``deck``
        lists the deck top first (default: the rest of the full deck, shuffled by
        ``seed``). ``known[s]`` lists the ``(seat, position)`` cards that seat ``s`` has
        seen; face-up cards and the discard pile are known to all. ``caller`` means
        Cabo was called and the players from ``current`` up to the caller still play.
        Later rounds are dealt from ``seed`` as usual.

        >>> import cabo_kit as ck
        >>> g = ck.Game.from_layout(ck.Rules.preset("deluxe"), hands=[[1, 2, 3, 4], [5, 6, 7, 8]],
        ...                         discard=[9], deck=[10, 11], current=1)
        >>> g.phase, g.to_move, g.observation(1).deck_size
        ('choose', (1,), 2)
        """
        n = len(hands)
        rules.check_players(n)
        game = cls.__new__(cls)
        game.rules = rules
        game.seed = seed
        game.n = n
        if memory not in ("engine", "none"):
            raise ValueError(f"memory={memory!r}: choose 'engine' or 'none'")
        game.memory = memory
        game._engine_memory = memory == "engine"
        game.sheet = ScoreSheet(rules, n)
        if scores is not None:
            if len(scores) != n:
                raise ValueError(f"scores has {len(scores)} entries for {n} players")
            game.sheet.totals = list(scores)
        game._sync_scores()
        game.history = []
        game.results = []
        game.log = []
        game._stack = None
        game._first_start = current if start_player is None else start_player
        game.round = round
        hand_cards = [[Card.parse(c) for c in h] for h in hands]
        pile_cards = [Card.parse(c) for c in discard]
        drawn_card = Card.parse(drawn) if drawn is not None else None
        used = [c for h in hand_cards for c in h] + pile_cards + ([drawn_card] if drawn_card else [])
        full = rules.full_deck(n)
        if deck is None:
            rest = _multiset_minus(full, used, "the layout")
            game_rng = random.Random(f"cabo-kit:{seed}:{round}:layout")
            rest = _shuffled(rest, game_rng)
            deck_cards = rest
        else:
            deck_cards = [Card.parse(c) for c in deck]
            _multiset_minus(full, used + deck_cards, "the layout and deck")
        order = [c for h in hand_cards for c in h] + pile_cards + ([drawn_card] if drawn_card else []) + deck_cards
        game._layout = {
            "hands": [[c.text for c in h] for h in hand_cards], "discard": [c.text for c in pile_cards],
            "deck": [c.text for c in deck_cards], "current": current, "start_player": game._first_start,
            "scores": list(game.sheet.totals), "round": round, "turn": turn, "caller": caller,
            "face_up": [list(map(bool, f)) for f in face_up] if face_up is not None else None,
            "known": [sorted(map(list, k)) for k in known] if known is not None else None,
            "drawn": drawn_card.text if drawn_card else None, "drawn_from": drawn_from,
        }
        game._begin_round_state(game._first_start, order)
        game.current = current
        game.turn = turn
        i = 0
        for s, h in enumerate(hand_cards):
            game.hands[s] = list(range(i, i + len(h)))
            i += len(h)
        game.pile = list(range(i, i + len(pile_cards)))
        game._disc = tuple(order[c] for c in game.pile)
        i += len(pile_cards)
        for c in game.pile:
            game._set_up(c, True)
        if drawn_card is not None:
            game.drawn = i
            game.drawn_from = drawn_from
            if drawn_from == "discard":
                game._reveal(i)
            else:
                game._show(current, i)
            i += 1
        game.deck = list(range(len(order) - 1, i - 1, -1))
        if face_up is not None:
            for s, flags in enumerate(face_up):
                for p, flag in enumerate(flags):
                    if flag:
                        game._set_up(game.hands[s][p], True)
        if known is not None:
            for s, items in enumerate(known):
                for ts, tp in items:
                    game._show(s, game.hands[ts][tp])
        if caller is not None:
            game.caller = caller
            game._call_turn = -1
            game._final_left = (caller - current) % n
        game._bump_all()
        game._emit_all(_ev("round", None, (round, game._first_start)))
        if drawn_card is not None:
            game.phase = "drawn"
            mark = game._turn_mark
            for s in range(n):
                mark[s] = len(game.seat_events[s])
        else:
            game._begin_turn()
        return game

    def __repr__(self) -> str:
        return (
            f"<Game {self.rules.name} {self.n} players, round {self.round + 1}, turn {self.turn}, "
            f"phase {self.phase!r}, to move {self.to_move}>"
        )


def _slot_copier(names: Sequence[str]) -> Any:
    """A function ``copy(src, dst)`` that sets each named attribute of ``dst`` to ``src``'s: one plain
    assignment per slot, written out once (as dataclasses do), several times faster than a loop."""
    body = "\n".join(f"    dst.{name} = src.{name}" for name in names)
    namespace: dict[str, Any] = {}
    exec(f"def copy_slots(src, dst):\n{body}\n", namespace)
    return namespace["copy_slots"]


_copy_slots = _slot_copier(Game.__slots__)


def _pick(ids: list[int], values: list[T]) -> tuple[T, ...]:
    """``tuple(values[i] for i in ids)``, with itemgetter's C loop when it can."""
    if len(ids) > 1:
        return _itemgetter(*ids)(values)
    return (values[ids[0]],) if ids else ()


def _copy_sheet(sheet: ScoreSheet) -> ScoreSheet:
    new = ScoreSheet.__new__(ScoreSheet)
    new.__dict__.update(sheet.__dict__)
    new.rounds = [list(r) for r in sheet.rounds]
    new.totals = list(sheet.totals)
    new.resets = list(sheet.resets)
    new.hit_100 = list(sheet.hit_100)
    new.reset_rounds = [list(r) for r in sheet.reset_rounds]
    return new


def _shuffled(items: list[T], rng: random.Random) -> list[T]:
    """A seeded shuffle: sort by one random key per item (C-level random(); Random.shuffle is a Python loop)."""
    keys = list(_starmap(rng.random, _repeat((), len(items))))  # rng.random() per item, without a Python loop
    order = sorted(range(len(items)), key=keys.__getitem__)
    return list(_pick(order, items))


def _copy_rng(rng: random.Random) -> random.Random:
    new = random.Random()
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
    rest = _shuffled(rest, rng)
    return list(stack) + rest
