"""The engine's written-out fast paths play exactly as the plain calls they stand for.

For speed, the hottest paths of ``cabo_kit/game.py`` and ``knowledge.py`` are written out
instead of calling their canonical helpers: the decision loop builds each observation and
applies each answer itself (``Game.play_out`` instead of ``observation()`` and
``apply_unchecked()``), and carries out the usual turn's moves in its own frame (a draw from
the deck or the pile, a one-card exchange, a discard, a one-step power used or skipped, the
next player's usual turn start, a Cabo call instead of a draw: instead of ``_on_choose``,
``_on_drawn``, ``_use_power`` and the turn's end, with ``Knowledge.take``, ``land`` and ``exchange`` written out there too), those moves record their events by hand
(instead of ``_emit``), the usual turn start is written out in ``_finish_turn`` (instead of
``_begin_turn``), ``Knowledge.exchange`` lands the old card itself and rebuilds the views
without a call each (instead of ``remove``, ``insert``, ``see`` and ``land``), and the legal actions of
snap windows and of a peek or spy are kept in caches (the canonical run never hits them). A
change to one of those helpers must be made in the written-out copy too.

These tests replay seeded games with random ``Rules`` (every field that changes play, not
only the presets) and layouts (a search's worlds: mid-turn, mid-ending) three times: with
the engine as it is; with plain loops of ``observation`` + ``apply`` over the engine's own
move methods (what replays, the card table, an outside seat and ``Stepper.step`` use); and
with every fast path swapped for its canonical calls. Games are driven with and without
round hooks (``play_out(until_round_end=True)``), answers given as texts, and a seat played
through ``Stepper.next_decision``. Every observation handed to a bot, the hooks' arguments,
the game's whole log, every round's result and the history must be the same, and the first
run must have taken ``play_out``'s written-out moves.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

import cabo_kit as ck  # noqa: E402
from cabo_kit import game as game_module  # noqa: E402
from cabo_kit.actions import DrawDeck, DrawDiscard, IllegalActionError  # noqa: E402
from cabo_kit.cards import UNKNOWN  # noqa: E402
from cabo_kit.game import DRAWN, Game  # noqa: E402
from cabo_kit.knowledge import Knowledge  # noqa: E402
from cabo_kit.observation import Event, EventKind  # noqa: E402
from cabo_kit.play import Stepper, bot_random  # noqa: E402
from fuzzbot import FuzzBot  # noqa: E402


def _ev(kind: EventKind, seat: int | None = None, target: tuple[int, ...] = (), cards: tuple[Any, ...] = (),
        info: str = "") -> Event:
    """An event as the engine's methods made them before they were written out (keyword defaults)."""
    return Event(kind, seat, target, cards, info)


# ------------------------------------------------------------------ the canonical forms


def _on_choose(self: Game, me: int, action: Any) -> None:
    know = self.know
    if type(action) is DrawDeck:
        c = self._draw_card()
        assert c is not None
        self.drawn, self.drawn_from = c, "deck"
        self._stats[me]["draws_deck"] += 1
        self._emit(_ev(EventKind.DRAW, me, (), (know.faces[c],)), me)
        may_discard = True
    elif type(action) is DrawDiscard:
        c = know.take()
        self.drawn, self.drawn_from = c, "discard"
        self._stats[me]["draws_discard"] += 1
        self._emit(_ev(EventKind.TAKE, me, (), (know.faces[c],)))
        may_discard = self._may_discard_taken
    else:
        self._call(me)
        self._finish_turn()
        return
    self.phase = DRAWN
    hand = know.hands[me]
    self._legal = self._legal_drawn(len(hand), may_discard or not hand)


def _exchange(self: Knowledge, owner: int, position: int, card: int, face_up: bool, seer: int) -> int:
    old = self.remove(owner, position)
    self.insert(owner, position, card)
    self.turn(card, face_up)
    if seer >= 0:
        self.see(seer, card)
    self.land(old)
    return old


def _on_drawn(self: Game, me: int, action: Any) -> None:
    positions = getattr(action, "positions", ())
    if len(positions) != 1:
        return _FAST_ON_DRAWN(self, me, action)  # a discard or a multi-exchange: no fast path there
    c = self.drawn
    assert c is not None
    know = self.know
    p = positions[0]
    from_discard = self.drawn_from == "discard"
    self.drawn = self.drawn_from = None
    face_up = self.rules.discard_draw_face_up if from_discard else False
    old = _exchange(know, me, p, c, face_up, -1 if from_discard else me)
    self._stats[me]["exchanges"] += 1
    event = _ev(EventKind.EXCHANGE, me, (p,), (know.faces[old], know.faces[c]))
    if from_discard:
        self._emit(event)
    else:
        self._emit(event, me, _ev(EventKind.EXCHANGE, me, (p,), (know.faces[old], ck.UNKNOWN)))
    self._turn_ends()


# By id(game): the seat of each turn played this round. Game has __slots__ without __weakref__ (no WeakKeyDictionary):
# the canonical context empties it as it opens and closes, so that an entry left by a game abandoned or cloned
# mid-round never reaches a later game given the same id.
_TURNS_PLAYED: dict[int, list[int]] = {}


def _finish_turn(self: Game) -> None:
    me = self.current
    _TURNS_PLAYED.setdefault(id(self), []).append(me)  # as played (the engine: from self.turn)
    turn = self.turn
    # The four end-of-round facts tested one by one (the engine keeps them as one, _as_usual).
    if (self.caller is None and self._empty_left is None and not self._empty_flag and not self._end_after_turn
            and turn + 1 < self._max_turns):
        self.turn = turn + 1
        self.current = (me + 1) % self.n
        self._begin_turn()
        return
    _FAST_FINISH_TURN(self)


def _count_turns(self: Game) -> None:
    played = _TURNS_PLAYED.pop(id(self), [])
    for seat, stats in enumerate(self._stats):
        stats["turns"] = played.count(seat)


_FAST_ON_DRAWN = Game._on_drawn
_FAST_FINISH_TURN = Game._finish_turn


def _plain_run(stepper: Stepper) -> None:
    """Stepper.run as it was before Game.play_out: observation() and apply() for every decision."""
    game = stepper.game
    while game.to_move:
        if game.round != stepper._round_seen:
            stepper._round_hooks()
        for seat in game.to_move[:1]:
            obs = game.observation(seat)
            action = stepper.bots[seat].choose(obs, obs.legal_actions)
            try:
                game.apply(action, seat)
            except (IllegalActionError, ValueError) as exc:
                raise IllegalActionError(f"{stepper.names[seat]} at seat {seat}: {exc}") from exc
        stepper._after_move()
    stepper._after_move()


def _plain_next_decision(stepper: Stepper) -> ck.Observation | None:
    """Stepper.next_decision with observation() and apply() for every bot's decision (no Game.play_out)."""
    game = stepper.game
    while True:
        stepper._after_move()
        if game.is_over:
            return None
        if stepper._starts and game.round != stepper._round_seen:
            stepper._round_hooks()
        seat = game.to_move[0]
        obs = game.observation(seat)
        if seat not in stepper.bots:
            return obs
        game.apply(stepper.bots[seat].choose(obs, obs.legal_actions), seat)


class _NeverHit(dict):  # type: ignore[type-arg]
    """A cache that never finds anything: the engine computes every entry afresh."""

    def get(self, key: Any, default: Any = None) -> Any:
        return default


class _Swapped:
    """A context in which the game loops (Stepper.run, Stepper.next_decision) are plain loops of observation() and
    apply(), without Game.play_out and its written-out moves; with ``canonical``, every other fast path is swapped for
    its canonical calls too (without: the engine's own move methods, which apply() uses, play)."""

    def __init__(self, canonical: bool) -> None:
        self.canonical = canonical

    def __enter__(self) -> None:
        _TURNS_PLAYED.clear()
        self.patch = pytest.MonkeyPatch()
        self.patch.setattr(Stepper, "run", _plain_run)
        self.patch.setattr(Stepper, "next_decision", _plain_next_decision)
        if not self.canonical:
            return
        self.patch.setattr(Game, "_on_choose", _on_choose)
        self.patch.setattr(Game, "_on_drawn", _on_drawn)
        self.patch.setattr(Game, "_finish_turn", _finish_turn)
        self.patch.setattr(Game, "_count_turns", _count_turns)
        self.patch.setattr(Knowledge, "exchange", _exchange)
        self.patch.setitem(game_module._MOVES, game_module.CHOOSE, _on_choose)
        self.patch.setitem(game_module._MOVES, game_module.DRAWN, _on_drawn)
        # the legal-action caches (snap claims, a peek's or spy's choices) are fast paths too: never hit here
        self.patch.setattr(game_module, "_CLAIMS", _NeverHit())
        self.patch.setattr(game_module, "_LOOKS_AT", _NeverHit())

    def __exit__(self, *exc: object) -> None:
        self.patch.undo()
        _TURNS_PLAYED.clear()


@pytest.fixture
def canonical() -> Any:
    """A context in which every fast path is swapped for its canonical calls."""
    return _Swapped(canonical=True)


# ------------------------------------------------------------------ random rules, recorded games


def random_rules(rng: random.Random) -> ck.Rules:
    """A preset with every field that changes play drawn at random (a variant a teacher might build)."""
    base = ck.Rules.preset(rng.choice(["deluxe", "rush", "traveller"]))
    powers = {v: rng.choice(["peek", "spy", "swap", "peek_swap", "spy_swap"]) for v in range(5, 14) if rng.random() < 0.6}
    fields: dict[str, Any] = dict(
        hand_size=rng.choice([3, 4, 5]), initial_peeks=rng.choice([0, 1, 2]), peek_choice=rng.random() < 0.5,
        cabo_timing=rng.choice(["instead", "end_of_turn"]), discard_draw_face_up=rng.random() < 0.5,
        discard_draw_may_discard=rng.random() < 0.5, multi_exchange=rng.random() < 0.5,
        multi_exchange_penalty_at=rng.choice([2, 3]), powers=tuple(sorted(powers.items())),
        power_timing=rng.choice(["before_discard", "after_snap"]), snapping=rng.random() < 0.5,
        snap_give=rng.choice(["mandatory", "optional"]), snap_penalty_own=rng.choice([0, 1, 2]),
        snap_penalty_other=rng.choice([0, 1, 2]), deck_out=rng.choice(["reshuffle", "end_round"]),
        empty_hand=rng.choice(["end_now", "final_turns"]), max_turns=rng.choice([6, 30, 300]),
        max_rounds=rng.choice([1, 2, 3]), min_players=2,
    )
    return base.replace(**fields)


def _as_usual(game: Game) -> bool:
    """What the engine's one flag stands for: no end-of-round fact is set."""
    return (game.caller is None and game._empty_left is None and not game._empty_flag
            and not game._end_after_turn)


class Recorder(ck.Bot):
    """Plays as ``inner`` and keeps every observation it was handed (checked against the game's own); with ``text``
    (a generator), answers some decisions with the action's text instead."""

    def __init__(self, inner: ck.Bot, seen: list[Any], game: Game, text: random.Random | None = None) -> None:
        self.inner, self.seen, self.game, self.text = inner, seen, game, text

    def choose(self, observation: ck.Observation, legal_actions: Any) -> Any:
        seat = observation.seat
        assert seat == self.game.to_move[0]
        assert observation == self.game.observation(seat)  # the loop's observation is observation()'s
        assert self.game._as_usual is _as_usual(self.game)
        know = self.game.know  # the kept faces of face-up cards (the views without memory) are what they stand for
        assert know.up_faces == [face if up else UNKNOWN for face, up in zip(know.faces, know.up)]
        # (review rev3) who holds each card is what the hands say: a written-out exchange that left the old card's
        # owner set changed no observation, and no other check here saw it
        holder = [-1] * len(know.faces)
        for s, hand in enumerate(know.hands):
            for card in hand:
                holder[card] = s
        assert know.owner == holder
        assert legal_actions is observation.legal_actions
        if Game._finish_turn is _finish_turn:  # the canonical run: its turns counted one by one are what stats reads
            played = _TURNS_PLAYED.get(id(self.game), [])
            assert [s["turns"] for s in self.game.stats] == [played.count(s) for s in range(self.game.n)]
        self.seen.append(observation.to_dict())
        action = self.inner.choose(observation, legal_actions)
        if self.text is not None and isinstance(action, ck.Action) and self.text.random() < 0.25:
            return str(action)  # (Game.apply parses it: the written-out moves must leave it alone)
        return action


class HookedRecorder(Recorder):
    """A Recorder with round hooks, which it records too: Stepper.run then plays a round per Game.play_out call
    (``until_round_end``)."""

    def on_round_start(self, observation: ck.Observation) -> None:
        self.seen.append(("round start", observation.to_dict()))
        self.inner.on_round_start(observation)

    def on_round_end(self, result: Any) -> None:
        self.seen.append(("round end", result.to_dict()))
        self.inner.on_round_end(result)


def ways(rng: random.Random, n: int) -> dict[str, Any]:
    """How a game is driven, at random: round hooks or not, some answers as texts or not, and one seat played
    from outside through Stepper.next_decision (its observations handed out by the engine's loop) or none."""
    return {"hooks": rng.random() < 0.5, "text": rng.random() < 0.3,
            "outside": rng.randrange(n) if rng.random() < 0.3 else None}


def play(rules: ck.Rules, n: int, seed: int, kinds: list[str], memory: str, layout: dict[str, Any] | None = None,
         hooks: bool = False, text: bool = False, outside: int | None = None) -> dict[str, Any]:
    game = Game(rules, seed, n, memory=memory) if layout is None else Game.from_layout(rules, seed=seed, memory=memory,
                                                                                       **layout)
    seen: list[Any] = []
    inner = [FuzzBot() if k == "fuzz" else ck.bots.GreedyBot() if k == "greedy" else ck.bots.RandomBot() for k in kinds]
    make = HookedRecorder if hooks else Recorder
    bots = [make(b, seen, game, random.Random(f"text:{seed}:{s}") if text else None) for s, b in enumerate(inner)]
    for seat, bot in enumerate(inner):
        bot.random = bot_random(seed, seat)
    stepper = Stepper(game, {s: b for s, b in enumerate(bots) if s != outside})
    # Knowledge.exchange's calls by the drawn card's source (a seer: from the deck), counted around whichever form runs
    calls = {"deck": 0, "pile": 0}
    exchange = Knowledge.exchange

    def counted(self: Knowledge, owner: int, position: int, card: int, face_up: bool, seer: int) -> int:
        calls["deck" if seer >= 0 else "pile"] += 1
        return exchange(self, owner, position, card, face_up, seer)

    Knowledge.exchange = counted  # type: ignore[method-assign]
    try:
        if outside is None:
            stepper.run()
        else:
            obs = stepper.next_decision()
            while obs is not None:
                assert obs.seat == outside
                game.apply(bots[outside].choose(obs, obs.legal_actions), outside)
                obs = stepper.next_decision()
    finally:
        Knowledge.exchange = exchange  # type: ignore[method-assign]
    # Play_out's written-out draw logs the one entry kept for the seat and the card (the other paths make their own):
    # how many draws went that way.
    entries = game_module._DRAW_ENTRIES
    written_out = sum(1 for e in game.log if type(e) is tuple and e[0].kind is EventKind.DRAW
                      and e is entries[e[1]].get(e[0].cards[0]))
    # The one-card exchanges (a drawn card's: seen whole by its drawer alone when it came from the deck) that did not
    # call Knowledge.exchange: play_out's written-out copy of it made them.
    exchanges = [type(e) is tuple for e in game.log
                 if (e[0] if type(e) is tuple else e).kind is EventKind.EXCHANGE
                 and len((e[0] if type(e) is tuple else e).target) == 1]
    exchanges_written_out = (sum(exchanges) - calls["deck"], exchanges.count(False) - calls["pile"])
    # Play_out's written-out Cabo call logs the one event kept for the seat (Game._call makes a new one).
    cabos_written_out = sum(1 for e in game.log if type(e) is not tuple and e.kind is EventKind.CABO
                            and e is game_module._CABO_EVENTS[e.seat])
    return {
        "observations": seen,
        "log": [e if isinstance(e, Event) else (e[0], e[1], e[2]) for e in game.log],
        "results": [r.to_dict() for r in game.results],
        "history": [(s, str(a)) for s, a in game.history],
        "totals": game.totals,
        "written_out": written_out,
        "exchanges_written_out": exchanges_written_out,
        "cabos_written_out": cabos_written_out,
    }


def three_ways(canonical: Any, what: str, *args: Any, **kwargs: Any) -> int:
    """Play a game (``play``'s arguments) with the engine as it is, with plain loops over the engine's own move methods
    (those apply() uses: replays, the card table, an outside seat, Stepper.step), and with every fast path canonical:
    everything recorded must be the same. How many draws the first run carried out written out in Game.play_out."""
    fast = play(*args, **kwargs)
    with _Swapped(canonical=False):
        plain = play(*args, **kwargs)
    with canonical:
        slow = play(*args, **kwargs)
    assert plain["written_out"] == slow["written_out"] == 0
    assert plain["exchanges_written_out"] == (0, 0)  # (the canonical run calls its own _exchange: not counted)
    _EXCHANGES_WRITTEN_OUT[0] += fast["exchanges_written_out"][0]
    _EXCHANGES_WRITTEN_OUT[1] += fast["exchanges_written_out"][1]
    assert plain["cabos_written_out"] == slow["cabos_written_out"] == 0
    _CABOS_WRITTEN_OUT[0] += fast["cabos_written_out"]
    for key in ("history", "log", "results", "totals", "observations"):
        assert fast[key] == plain[key], f"{key} differ from the engine's own methods': {what}"
        assert fast[key] == slow[key], f"{key} differ from the canonical calls': {what}"
    return int(fast["written_out"])


_EXCHANGES_WRITTEN_OUT = [0, 0]  # three_ways' first runs' one-card exchanges made by play_out's copy: from the deck, the pile
_CABOS_WRITTEN_OUT = [0]  # ... and their Cabo calls made by play_out's copy of _call and the turn's end


@pytest.mark.parametrize("block", range(4))
def test_fast_paths_play_as_their_canonical_calls(block: int, canonical: Any) -> None:
    rng = random.Random(f"fast-paths:{block}")
    written_out = 0
    _EXCHANGES_WRITTEN_OUT[:] = [0, 0]
    _CABOS_WRITTEN_OUT[0] = 0
    for _ in range(10):
        rules = random_rules(rng)
        n = rng.randint(2, 4)
        seed = rng.randrange(10**6)
        kinds = [rng.choice(["fuzz", "random", "greedy"]) for _ in range(n)]
        memory = rng.choice(["engine", "engine", "none"])
        how = ways(rng, n)
        written_out += three_ways(canonical, f"{rules!r}, n={n}, seed={seed}, bots {kinds}, memory={memory}, {how}",
                                  rules, n, seed, kinds, memory, **how)
    assert written_out >= 50, "Game.play_out's written-out moves hardly ran: the test compares too little"
    deck, pile = _EXCHANGES_WRITTEN_OUT
    assert deck >= 20 and pile >= 20, f"play_out's written-out exchanges hardly ran ({deck} from the deck, {pile} the pile)"


def test_cabo_calls_play_as_their_canonical_calls(canonical: Any) -> None:
    """Cabo called instead of a draw (deluxe, instant-Cabo rushes), by random bots, through play_out's written-out call
    and the turn's end, and the canonical _call and _finish_turn."""
    _CABOS_WRITTEN_OUT[0] = 0
    for seed in range(10):
        preset = "deluxe" if seed % 2 else "rush"
        rules = ck.Rules.preset(preset).replace(cabo_timing="instead")
        three_ways(canonical, f"{preset}, seed={seed}", rules, 2 + seed % 3, seed, ["random"] * (2 + seed % 3),
                   "none" if seed % 4 == 3 else "engine",
                   hooks=seed % 3 == 1)
    assert _CABOS_WRITTEN_OUT[0] >= 12, f"play_out's written-out Cabo call hardly ran ({_CABOS_WRITTEN_OUT[0]} calls)"


@pytest.mark.parametrize("block", range(2))
def test_layouts_with_an_empty_hand_play_as_their_canonical_calls(block: int, canonical: Any) -> None:
    """A layout (a search's world) may deal a seat no cards without the final turns an emptied hand brings: that seat's
    turns start otherwise than usual (no take unless the taken card may be discarded), in the written-out turn start
    too (Game.play_out's), which must then leave the choice to _begin_turn."""
    rng = random.Random(f"empty-hand:{block}")
    written_out = 0
    for _ in range(10):
        rules = random_rules(rng)
        n = rng.randint(2, 4)
        cards = rules.full_deck(n)
        rng.shuffle(cards)
        k = rules.hand_size
        hands = [[] if s == 0 else cards[s * k:(s + 1) * k] for s in range(n)]
        layout = {"hands": hands, "discard": cards[:1], "current": rng.randrange(n)}
        seed = rng.randrange(10**6)
        kinds = [rng.choice(["fuzz", "random", "greedy"]) for _ in range(n)]
        how = ways(rng, n)
        written_out += three_ways(canonical, f"{rules!r}, n={n}, seed={seed}, bots {kinds}, {layout}, {how}",
                                  rules, n, seed, kinds, "engine", layout, **how)
    assert written_out >= 10


@pytest.mark.parametrize("power", ["peek", "spy", "swap", "peek_swap", "spy_swap"])
def test_layouts_in_a_power_play_as_their_canonical_calls(power: str, canonical: Any) -> None:
    """A layout may start in a power's phase, with a target (which a one-step power leaves unused) and no pile: the
    written-out power use and skip must end the turn as _use_power and _finish_power do, the target cleared, and the
    next turn start as _begin_turn's (no take from an empty pile)."""
    rng = random.Random(f"power-layout:{power}")
    rules = ck.Rules.preset("deluxe").replace(max_rounds=1)
    for _ in range(6):
        cards = rules.full_deck(3)
        rng.shuffle(cards)
        layout = {"hands": [cards[0:4], cards[4:8], cards[8:12]], "discard": rng.choice([[], cards[12:13]]),
                  "current": rng.randrange(3),
                  "phase": "power", "power": power, "target": rng.choice([None, (1, 2)])}
        seed = rng.randrange(10**6)
        kinds = [rng.choice(["fuzz", "random", "greedy"]) for _ in range(3)]
        how = ways(rng, 3)
        three_ways(canonical, f"{power}, seed={seed}, bots {kinds}, {layout}, {how}", rules, 3, seed, kinds, "engine",
                   layout, **how)


@pytest.mark.parametrize("ending", ["caller", "final_turns", "last_turn", "none"])
def test_layouts_mid_ending_or_holding_a_card_play_as_their_canonical_calls(ending: str, canonical: Any) -> None:
    """A layout may start mid-ending (Cabo called, final turns after an emptied hand, the round's last turn), holding a
    drawn card (from the deck or the pile), with a deck of a card or two or none: the written-out moves must end the
    turns and the round as the engine's methods do."""
    rng = random.Random(f"mid-ending:{ending}")
    for _ in range(8):
        rules = random_rules(rng)
        n = rng.randint(2, 4)
        cards = rules.full_deck(n)
        rng.shuffle(cards)
        k = rules.hand_size
        used = n * k + 1
        current = rng.randrange(n)
        layout: dict[str, Any] = {"hands": [cards[s * k:(s + 1) * k] for s in range(n)], "discard": cards[n * k:used],
                                  "current": current}
        if ending == "caller":
            layout["caller"] = (current - 1 - rng.randrange(n - 1)) % n  # an earlier seat called
        elif ending == "final_turns":
            rules = rules.replace(empty_hand="final_turns")
            layout["final_turns"] = rng.randint(1, n + 1)
        elif ending == "last_turn":
            layout["last_turn"] = True
        if rng.random() < 0.6:
            layout["drawn"], layout["drawn_from"] = cards[used], rng.choice(["deck", "discard"])
            used += 1
        if rng.random() < 0.4:
            layout["deck"] = cards[used:used + rng.choice([0, 1, 2])]
        seed = rng.randrange(10**6)
        kinds = [rng.choice(["fuzz", "random", "greedy"]) for _ in range(n)]
        how = ways(rng, n)
        three_ways(canonical, f"{rules!r}, n={n}, seed={seed}, bots {kinds}, {layout}, {how}", rules, n, seed, kinds,
                   "engine", layout, **how)


def test_the_canonical_forms_are_really_swapped_in(canonical: Any) -> None:
    """The swap reaches the engine's dispatch table (else the test above would compare the fast paths with themselves)."""
    with canonical:
        assert game_module._MOVES[game_module.CHOOSE] is _on_choose and Knowledge.exchange is _exchange
        assert Stepper.run is _plain_run and Stepper.next_decision is _plain_next_decision
        abandoned, bot = Game(ck.Rules.preset("rush"), seed=1, n_players=2), ck.bots.GreedyBot()
        for _ in range(12):  # a few turns of a round, then the game is dropped: its entry stays ...
            obs = abandoned.observation(abandoned.to_move[0])
            abandoned.apply(bot.choose(obs, obs.legal_actions), obs.seat)
        assert _TURNS_PLAYED.get(id(abandoned)) and not abandoned.results
    assert not _TURNS_PLAYED  # ... till the context closes: no later game inherits it by its id
    assert game_module._MOVES[game_module.CHOOSE] is Game._on_choose is not _on_choose


def test_seeded_random_is_random_random_of_the_text() -> None:
    """Every generator the engine and the bots' seats get (seeded_random: one C seeding) is in the very state
    ``random.Random(text)`` would be, for the engine's texts and odd ones (empty, non-ASCII, long); a clone's copy too."""
    from cabo_kit.game import _copy_rng, seeded_random

    texts = [f"cabo-kit:{seed}:{r}:{purpose}" for seed in (0, 7, "abc", 10**12) for r in range(3)
             for purpose in ("shuffle", "snap", "reshuffle")]
    texts += ["", "x", "é" * 40, "cabo-kit:5:bot:3", "z" * 3000]
    for text in texts:
        fast, plain = seeded_random(text), random.Random(text)
        assert fast.getstate() == plain.getstate(), text
        assert [fast.random() for _ in range(3)] == [plain.random() for _ in range(3)]
        assert fast.gauss(0, 1) == plain.gauss(0, 1) and fast.gauss(0, 1) == plain.gauss(0, 1)
        assert _copy_rng(fast).getstate() == fast.getstate()
    assert bot_random(3, 1).getstate() == random.Random("cabo-kit:3:bot:1").getstate()
    # Its SHA-512 (the lean C module _sha2 or _sha512 where this Python has one, else hashlib's) is SHA-512.
    import hashlib

    assert game_module._sha512.__module__ in ("_sha2", "_sha512", "_hashlib", "hashlib")
    for data in (b"", b"cabo-kit:3:bot:1", "é".encode() * 99):
        assert game_module._sha512(data).digest() == hashlib.sha512(data).digest()


def _play_checking_the_flag(game: Game, seed: int) -> tuple[int, int]:
    """Play ``game`` to its end with greedy bots, checking ``_as_usual`` against its four facts after every
    decision; how many decisions found a hand empty, and how many the deck out (its last turn under way)."""
    bots = [ck.bots.GreedyBot() for _ in range(game.n)]
    for seat, bot in enumerate(bots):
        bot.random = bot_random(seed, seat)
    emptied = deck_out = 0
    while not game.is_over:
        seat = game.to_move[0]
        obs = game.observation(seat)
        game.apply(bots[seat].choose(obs, obs.legal_actions), seat)
        assert game._as_usual is _as_usual(game), (game.rules, seed)
        emptied += game._empty_flag
        deck_out += game._end_after_turn
    return emptied, deck_out


def test_the_one_end_of_round_flag_follows_the_four_facts() -> None:
    """``_as_usual`` (what ``_finish_turn`` tests on every turn) equals its four facts after every decision: with
    hands emptied by snaps (final turns), Cabo calls, the deck run out (its last card drawn, a penalty card or a
    turn's draw it cannot give, with or without reshuffles), and in a search's worlds set up mid-ending."""
    rng = random.Random(7)
    emptied = deck_out = 0
    for seed in range(40):
        rules = random_rules(rng).replace(snapping=True, empty_hand="final_turns", hand_size=rng.choice([2, 3]),
                                          max_turns=300, snap_penalty_own=0, snap_penalty_other=0)
        emptied += _play_checking_the_flag(Game(rules, seed, rng.randint(2, 4)), seed)[0]
    assert emptied >= 10, f"a hand was empty at {emptied} decisions only: the test proves too little"
    # Big hands at big tables: the deck (a card or a few after the deal) runs out within a round or two.
    for seed in range(16):
        n = rng.randint(3, 5)
        rules = random_rules(rng).replace(max_players=n, deck_out="end_round" if seed % 2 else "reshuffle",
                                          snap_penalty_own=rng.choice([1, 2]), snap_penalty_other=rng.choice([1, 2]))
        hand_size = (rules.deck_size(n) - 1) // n - rng.randint(0, 2)
        deck_out += _play_checking_the_flag(Game(rules.replace(hand_size=hand_size), seed, n), seed)[1]
    assert deck_out >= 10, f"the deck was out at {deck_out} decisions only: the test proves too little"
    hands = [["AS", "2S", "3S", "4S"], ["AH", "2H", "3H", "4H"], ["AD", "2D", "3D", "4D"]]
    traveller = ck.Rules.preset("traveller")
    for moment in ({}, {"caller": 1}, {"final_turns": 2}, {"final_turns": 4}, {"last_turn": True}):
        world = Game.from_layout(traveller, hands, discard=["9C"], rollout=True, **moment)  # type: ignore[arg-type]
        assert world._as_usual is _as_usual(world) is (not moment), moment
    # No deck and a pile of one (nothing to reshuffle): the first turn is the round's last.
    rush = ck.Rules.preset("rush").replace(deck_out="reshuffle")
    world = Game.from_layout(rush, hands[:2], discard=["9C"], deck=[], rollout=True)
    assert world._end_after_turn and _play_checking_the_flag(world, 0)[1] >= 1
    assert world.results[0].turns == 1 and world.results[0].ended_by == "deck"
    # The deck's last card drawn (reshuffles: no flag yet) and discarded, its power used after the snaps: a wrong
    # snap's first penalty card is the pile's lower card reshuffled, its second cannot be given (a pile of one left),
    # so the deck is out while the power is still to be used, and the turn is the round's last.
    late = rush.replace(snap_penalty_own=2, power_timing="after_snap")
    world = Game.from_layout(late, hands[:2], discard=["9C"], deck=[], drawn="7D")
    assert world._as_usual
    world.apply("discard")
    world.apply(ck.Snap(0, 0), seat=0)  # A♠ on a 7: no match
    world.apply("pass", seat=1)
    assert world.phase is ck.Phase.POWER and len(world.know.hands[0]) == 5 and world._end_after_turn
    assert world._as_usual is _as_usual(world) is False
    world.apply("pass")
    assert world.results[0].turns == 1 and world.results[0].ended_by == "deck"


def test_a_dealt_knowledge_is_a_fresh_one_and_shares_nothing_with_its_template() -> None:
    """Knowledge.dealt (every round's start) copies a kept fresh Knowledge: it must equal Knowledge(...) in every
    slot, and a round's changes must not reach the next round's copy."""
    deck = ck.Rules.preset("deluxe").full_deck(4)
    for n, k, memory in ((2, 4, True), (4, 4, True), (3, 3, False), (6, 5, True)):
        for _ in range(2):  # the second time from the kept one, after the first was played on
            faces = random.Random(n * k).sample(deck, len(deck))
            fast = Knowledge.dealt(faces, n, k, memory)
            plain = Knowledge(faces, [list(range(s * k, (s + 1) * k)) for s in range(n)], memory)
            for name in Knowledge.__slots__:
                assert getattr(fast, name) == getattr(plain, name), name
            fast.see(0, 0)
            fast.exchange(0, 1, n * k, True, 0)
            fast.insert(n - 1, 0, n * k + 1)
            fast.land(n * k + 2)


class _Forger(ck.Bot):
    """Draws from the deck where it must choose, then answers ``answer`` (a forged one-card Exchange)."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    def choose(self, observation: ck.Observation, legal_actions: Any) -> Any:
        return DrawDeck() if observation.phase is ck.Phase.CHOOSE else self.answer


@pytest.mark.parametrize("positions", [(0.0,), ("0",), (1.0,), (), [0], {0: 0}, {}, (1, 0), (0, 0)],
                         ids=["float", "text", "float-1", "none", "list", "dict", "empty-dict", "unsorted", "twice"])
def test_a_forged_one_card_exchange_is_refused_by_play_out_as_by_apply(positions: Any) -> None:
    """Review of kernel2: an Exchange made without its constructor, its one position not an int, raised a raw TypeError
    out of play_out's written-out exchange (its position computed with before any check) in every drawn phase;
    it must be refused as Game.apply refuses it, naming the seat, with nothing changed. (play_out looks for any
    Exchange by its first position: positions of another kind or length must not be taken for a one-card exchange.)"""
    forged = object.__new__(ck.Exchange)
    object.__setattr__(forged, "positions", positions)
    hands = [["1", "2", "3", "4"], ["5", "6", "7", "8"]]
    for multi in (False, True):
        rules = ck.Rules.preset("deluxe").replace(snapping=False, multi_exchange=multi)
        # a deck card, a taken one (the loop's top reads them from the game), a card the loop itself draws
        layouts: list[dict[str, Any]] = [dict(drawn="10"), dict(drawn="10", drawn_from="discard"), {}]
        for may_discard in (False, True):
            for layout in layouts:
                made = [Game.from_layout(rules.replace(discard_draw_may_discard=may_discard), hands=hands, discard=["9"],
                                         seed=1, **layout) for _ in range(2)]
                if not layout:  # the loop's bot draws in play_out's written-out draw; apply's game draws the same card
                    made[0].apply(DrawDeck(), 0)
                with pytest.raises(IllegalActionError) as by_apply:
                    made[0].apply(forged, 0)
                with pytest.raises(IllegalActionError) as by_loop:
                    Stepper(made[1], [_Forger(forged), _Forger(forged)]).run()
                assert str(by_loop.value) == f"_Forger at seat 0: {by_apply.value}"
                assert "is not legal for seat 0 (phase 'drawn'" in str(by_apply.value)
                for game in made:
                    assert game.phase is DRAWN and game.drawn is not None and len(game.history) == (0 if layout else 1)
                assert made[0].log == made[1].log and made[0].know.views == made[1].know.views
