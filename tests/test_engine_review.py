"""Regression tests from a review of the engine's fast paths (the per-decision speed-ups).

What they pin down, beyond tests/test_engine_api.py and tests/test_properties.py:

- ``run_game`` accepts a bot's answer by identity in the legal tuple it was just given, and
  only then skips ``apply``'s check: an answer that is one of the engine's own shared action
  objects, but was legal only at an earlier decision (a stale object), must still be refused,
  in every phase, including a snap window where another seat has already answered.
- ``clone()`` copies everything the engine changes: a twin played to the end of the game leaves
  the original's observations, score sheet, results and per-round counters as they were.
- The kept discard tuple and score tuples are right in games built by ``Game.from_layout``
  (both memory modes) as the pile shrinks, grows and is reshuffled into the deck.
"""

from __future__ import annotations

from typing import Sequence

import pytest

import cabo_kit as ck
from cabo_kit import Action, Bot, Game, IllegalActionError, Observation, Rules
from cabo_kit.actions import LegalActions
from cabo_kit.play import bot_random

# ------------------------------------------------------------- stale answers


class StaleAnswerBot(Bot):
    """Plays legal actions at random, remembering every engine action object it is offered; at its
    first decision in ``phase`` from decision ``after`` on, it answers with a remembered object
    that is not legal now (RULES.md: a player may only make a legal move)."""

    def __init__(self, phase: str, after: int) -> None:
        super().__init__()
        self.phase = phase
        self.after = after
        self.pool: dict[int, Action] = {}
        self.decisions = 0
        self.stale: Action | None = None
        self.stale_phase = ""

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        self.decisions += 1
        # The engine's own objects: a LegalActions' plain tuple part, without the lazy multi-exchanges.
        offered: tuple[Action, ...] = tuple(tuple.__iter__(legal_actions)) if isinstance(legal_actions, tuple) else ()
        if self.stale is None and self.decisions >= self.after and observation.phase == self.phase:
            for old in self.pool.values():
                if old not in legal_actions and all(old is not a for a in offered):
                    self.stale, self.stale_phase = old, observation.phase
                    return old
        for a in offered:
            self.pool.setdefault(id(a), a)
        extra = len(legal_actions) - len(offered)
        if extra and self.random.random() < 0.3:  # a multi-exchange, so that games reach the place phase
            return legal_actions[len(offered) + int(self.random.random() * extra)]
        if observation.phase == "snap" and self.random.random() < 0.8:
            return offered[0]  # Pass: keeps games short
        if observation.phase in ("choose", "end_turn") and len(offered) > 1 and type(offered[-1]) is ck.CallCabo:
            if self.random.random() < 0.95:
                offered = offered[:-1]  # rarely call Cabo, so that games reach every phase
        return offered[int(self.random.random() * len(offered))]


@pytest.mark.parametrize(
    ("preset", "phase"),
    [
        ("deluxe", "look"), ("deluxe", "choose"), ("deluxe", "drawn"), ("deluxe", "power"), ("deluxe", "place"),
        ("rush", "snap"), ("rush", "give"), ("rush", "swap"), ("traveller", "end_turn"), ("traveller", "snap"),
        ("traveller", "swap"), ("traveller", "power"),
    ],
)
def test_run_game_refuses_a_stale_engine_action_object_in_every_phase(preset: str, phase: str) -> None:
    """The identity fast path in run_game must be exactly as strict as Game.apply."""
    rules = Rules.preset(preset)
    n = rules.min_players + 1
    refused = 0
    for seed in range(300):
        if refused >= 2:
            break
        bots: list[Bot] = [StaleAnswerBot("never", 0) for _ in range(n)]
        # The last seat misbehaves: in a snap window the seats before it have already answered.
        liar = StaleAnswerBot(phase, after=1 + (seed % 16) * 2)
        liar.name = "Liar"
        bots[-1] = liar
        try:
            record = ck.play_game(bots, rules, seed=seed)
        except IllegalActionError as exc:
            assert liar.stale is not None, f"seed {seed}: refused an answer that was legal: {exc}"
            assert f"Liar at seat {n - 1}" in str(exc) and liar.stale_phase == phase
            refused += 1
        else:
            assert liar.stale is None, f"seed {seed}: the stale answer {liar.stale} in phase {phase!r} was applied"
            assert record.game_over
    assert refused >= 2, f"only {refused} games reached a stale answer in phase {phase!r}: the test proves too little"


def test_run_game_still_accepts_an_equal_copy_and_a_lazy_multi_exchange() -> None:
    """Answers that are not the engine's objects go through apply() in full and stay legal."""

    class Copies(Bot):
        def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
            if isinstance(legal_actions, LegalActions) and len(legal_actions) > tuple.__len__(legal_actions):
                return legal_actions[len(legal_actions) - 1]  # the exchange of the whole hand
            action = legal_actions[0]
            return Action.parse(str(action))  # an equal object, never the engine's own

    rules = Rules.preset("deluxe").replace(max_rounds=2, max_turns=30)
    record = ck.play_game([Copies(), Copies()], rules, seed=4)
    assert record.game_over
    assert any(type(a) is ck.Exchange and len(a.positions) > 1 for _, a in record.actions)


class _EqualsAnything:
    """Not an action: its ``__eq__`` says it equals whatever it is compared with (``in`` asks it)."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return "EqualsAnything()"


class _RaisingEq:
    """Not an action, and comparing it raises: the engine must refuse it by its type before ``in`` asks it."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("compared")

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return "RaisingEq()"


class _SneakyPass(ck.Pass):
    """An action class's subclass that says it equals anything: not one of the action classes either."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = object.__hash__


class Cheat(Bot):
    def __init__(self, answer: object) -> None:
        super().__init__()
        self.answer = answer

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        return self.answer  # type: ignore[return-value]


@pytest.mark.parametrize("answer", [_EqualsAnything(), _SneakyPass(), _RaisingEq()],
                         ids=["not-an-action", "action-subclass", "eq-raises"])
def test_an_answer_that_equals_anything_is_refused_on_every_path(answer: object) -> None:
    """Review of issue 20: such an answer was found by ``in`` and played (a Cabo call where a draw was due); one whose
    ``__eq__`` raises came out of play_game and Game.apply as that raw error, not an IllegalActionError naming the seat."""
    rules = Rules.preset("rush").replace(cabo_timing="end_of_turn")
    with pytest.raises(IllegalActionError, match=r"Cheat at seat 0: .* is not legal for seat 0 \(phase 'snap'"):
        ck.play_game([Cheat(answer), ck.bots.RandomBot()], rules, seed=1)  # the engine's loop (Game.play_out)
    for preset in ("deluxe", "rush", "traveller"):
        game = Game(Rules.preset(preset), seed=2, n_players=3)
        stepper = ck.Stepper(game, [Cheat(answer), Cheat(answer), Cheat(answer)])
        with pytest.raises(IllegalActionError, match="is not legal for seat 0"):
            stepper.step()  # one decision at a time: Game.apply's check
        with pytest.raises(IllegalActionError, match="is not legal for seat 0"):
            game.apply(answer, seat=0)  # type: ignore[arg-type]
        assert not game.history and game.turn == 0
    game = Game(Rules.preset("rush"), seed=3, n_players=2, start_player=0)
    for seat in (0, 1):
        game.apply(ck.Pass(), seat=seat)
    assert game.phase is ck.Phase.CHOOSE
    with pytest.raises(IllegalActionError, match=r"is not legal for seat 0 \(phase 'choose'"):
        game.apply(answer)  # type: ignore[arg-type]
    assert game.caller is None


def test_a_subclass_of_an_action_class_leaves_the_parser_alone() -> None:
    """A subclass that inherits its keyword (a user's helper class, _SneakyPass above) does not become what the text
    reads as: "pass" stays Pass, and a game answered in text plays on."""

    class MyPass(ck.Pass):
        """A user's helper."""

    assert Action.parse("pass") is ck.Pass() and type(Action.parse("pass")) is ck.Pass
    assert MyPass is not ck.Pass and Action.parse("take") is ck.DrawDiscard()
    game = Game(Rules.preset("rush"), seed=3, n_players=2, start_player=0)
    for seat in (0, 1):
        game.apply("pass", seat=seat)  # the start's snap window: "pass" is legal
    assert game.phase is ck.Phase.CHOOSE and [a for _, a in game.history] == [ck.Pass(), ck.Pass()]


# ------------------------------------------------------------------- clones


def _drive(game: Game, bots: Sequence[Bot], steps: int | None = None) -> None:
    done = 0
    while not game.is_over and (steps is None or done < steps):
        for seat in game.to_move:
            obs = game.observation(seat)
            game.apply(bots[seat].choose(obs, obs.legal_actions), seat)
        done += 1


def _snapshot(game: Game) -> tuple[object, ...]:
    return (
        [game.observation(s) for s in range(game.n)],
        [r.to_dict() for r in game.results],
        [list(r) for r in game.sheet.rounds], list(game.sheet.totals),
        [dict(s) for s in game.stats], list(game.history), list(game.log),
    )


@pytest.mark.parametrize(("preset", "memory"), [("deluxe", "engine"), ("rush", "none"), ("traveller", "engine")])
def test_a_clone_played_to_the_end_of_the_game_leaves_the_original_untouched(preset: str, memory: str) -> None:
    rules = Rules.preset(preset).replace(deck_out="reshuffle", max_rounds=3)
    n = rules.min_players + 1
    game = Game(rules, seed=21, n_players=n, memory=memory)
    bots: list[Bot] = [ck.bots.RandomBot() for _ in range(n)]
    for s, b in enumerate(bots):
        b.random = bot_random(21, s)
    _drive(game, bots, 30)
    before = _snapshot(game)
    twin = game.clone()
    others: list[Bot] = [ck.bots.RandomBot() for _ in range(n)]
    for s, b in enumerate(others):
        b.random = bot_random(99, s)
    _drive(twin, others)
    assert twin.is_over and len(twin.results) > len(game.results)  # the twin crossed round ends
    assert _snapshot(game) == before
    # The original then plays on exactly as a fresh replay of its own history does.
    _drive(game, bots)
    replay = Game(rules, seed=21, n_players=n, memory=memory)
    for seat, action in game.history:
        replay.apply(action, seat)
    assert _snapshot(replay) == _snapshot(game)


# ------------------------------------------------------------------ layouts


def _fresh_discard(game: Game, seat: int) -> tuple[ck.Card, ...]:
    pile = tuple(game.know.faces[c] for c in game.know.pile)
    return pile if game.memory == "engine" else pile[-1:]


@pytest.mark.parametrize("memory", ["engine", "none"])
def test_a_layout_games_discard_and_scores_follow_take_discard_and_reshuffle(memory: str) -> None:
    """RULES.md: the discard pile is face up (memory='none' shows only its top); when the deck runs
    out under deck_out='reshuffle', all but the top discard are shuffled into a new deck."""
    rules = Rules.preset("deluxe").replace(deck_out="reshuffle", discard_draw_may_discard=True)
    game = Game.from_layout(
        rules, hands=[[1, 2, 3, 4], [5, 6, 7, 8]], discard=[9, 10, 3], deck=[4], current=0,
        scores=[12, 40], memory=memory,
    )
    for seat in range(2):
        obs = game.observation(seat)
        assert obs.discard == _fresh_discard(game, seat) and obs.scores == (12, 40) and obs.round_scores == ()
    game.apply("take")  # the 3 leaves the pile
    assert [game.observation(s).discard for s in range(2)] == [_fresh_discard(game, s) for s in range(2)]
    assert ck.Card.parse("3") not in game.observation(1).discard
    game.apply("discard")  # ... and comes back on top
    assert game.observation(1).discard[-1] == ck.Card.parse("3")
    assert [game.observation(s).discard for s in range(2)] == [_fresh_discard(game, s) for s in range(2)]
    game.apply("deck")  # seat 1 draws the last card of the deck
    game.apply("discard")
    assert game.deck == [] and len(game.know.pile) == 4
    game.apply("deck")  # the pile but its top becomes the deck, and seat 0 draws from it
    assert len(game.know.pile) == 1 and len(game.deck) == 2
    for seat in range(2):
        assert game.observation(seat).discard == (ck.Card.parse("4"),) == _fresh_discard(game, seat)
    assert game.observation(0).scores == (12, 40)


def test_play_out_names_itself_when_a_seat_has_no_chooser_and_keeps_no_history_in_a_search_world() -> None:
    game = Game(Rules.preset("rush"), seed=1, n_players=2)
    bot = ck.bots.GreedyBot()
    with pytest.raises(IllegalActionError, match=r"play_out\(\) was given no chooser for it \(seats \[0\]\)"):
        game.play_out({0: bot.choose})
    world = Game.from_layout(Rules.preset("rush"), hands=["AS 2S 3S 4S".split(), "5H 6H 7H 8H".split()], discard=["9D"],
                             rollout=True)
    world.play_out({0: bot.choose, 1: ck.bots.GreedyBot().choose})
    assert world.is_over and len(world.results) == 1 and world.history == []  # as apply_unchecked keeps none there


@pytest.mark.parametrize("drawn_from", ["deck", "discard"])
def test_a_one_card_exchange_far_down_a_big_hand_is_carried_out_on_both_paths(drawn_from: str) -> None:
    # A layout may deal a hand of up to the whole deck (a double deck: 104 cards); a position past the 64 the engine
    # once kept one-element tuples for raised a bare IndexError after the hand had changed (review rev3).
    rules = Rules.preset("deluxe").replace(double_deck_from=2, multi_exchange=False, max_rounds=1)
    cards = rules.full_deck(2)

    def layout() -> Game:
        return Game.from_layout(rules, [cards[:70], cards[70:74]], discard=[cards[74]], seed=1, current=0,
                                drawn=cards[75], drawn_from=drawn_from)

    plain = layout()
    plain.apply(ck.Exchange((66,)), 0)
    played = layout()

    class FarDown(Bot):
        def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
            return ck.Exchange((66,))

    with pytest.raises(ck.IllegalActionError):  # (the next turn's answer is not legal: the exchange was carried out)
        played.play_out({0: FarDown().choose, 1: FarDown().choose})
    exchanges = []
    for game in (plain, played):
        events = [entry if isinstance(entry, ck.Event) else entry[0] for entry in game.log]
        exchanges.append([e for e in events if e.kind is ck.EventKind.EXCHANGE])
        assert game.know.hands[0][66] == 75 and game.know.discard[-1] == cards[66]
    assert exchanges[0] == exchanges[1] and [e.target for e in exchanges[0]] == [(66,)]
