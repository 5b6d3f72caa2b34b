"""The public step driver: bots move until a seat without a bot must decide, and nothing else changes.

The strongest check: a game in which one seat is driven from outside (as a card table drives a
person's seat) is the same game, byte for byte, as ``play_game`` with that seat's bot at the table.
"""

from __future__ import annotations

from typing import Any, Sequence

import pytest

import cabo_kit as ck
from cabo_kit.play import bot_random

PRESETS = ["deluxe", "rush", "traveller"]


def _lineup(n: int) -> list[ck.Bot]:
    kinds = [ck.bots.GreedyBot, ck.bots.RandomBot, ck.bots.CountingBot]
    return [kinds[s % 3]() for s in range(n)]


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("n", [2, 4, 6])
def test_a_seat_driven_from_outside_plays_the_same_game_as_play_game(preset: str, n: int) -> None:
    rules = ck.Rules.preset(preset)
    if n < rules.min_players:
        rules = rules.replace(min_players=n)  # traveller allows 2 as a teaching option
    seed = 100 + n
    expected = ck.play_game(_lineup(n), rules, seed=seed)

    bots = _lineup(n)
    person, others = bots[0], {s: b for s, b in enumerate(bots) if s != 0}
    game = ck.Game(rules, seed, n)
    person.random = bot_random(seed, 0)
    person.on_game_start(0, n, rules)
    stepper = ck.Stepper(game, others, viewer=0, game_hooks=True)
    dealt = game.event_count  # the first deal happened when the game was made
    seen: list[ck.Event] = []
    stops = 0
    while not game.is_over:
        seen += stepper.advance()
        if game.is_over:
            break
        # advance() stops only where seat 0 must decide, and then no bot is left to move.
        assert stepper.waiting == (0,) and stepper.bot_to_move is None
        assert 0 in game.to_move
        stops += 1
        obs = game.observation(0)
        seen += stepper.apply(person.choose(obs, obs.legal_actions), seat=0)
    assert stops > 0
    names = [b.name for b in bots]
    assert ck.GameRecord.from_game(game, names).to_json() == expected.to_json()
    # The events handed back are exactly seat 0's view of the game, in order: no face it did not see.
    assert dealt > 0 and seen == game.events_seen(0, since=dealt)
    assert stepper.advance() == [] and stepper.step() is None


def test_step_moves_one_bot_and_says_who_did_what() -> None:
    game = ck.Game(ck.Rules.preset("deluxe"), seed=5, n_players=3, start_player=1)
    stepper = ck.Stepper(game, {0: ck.bots.GreedyBot(), 1: ck.bots.GreedyBot()}, viewer=2)
    steps = []
    while (step := stepper.step()) is not None:
        steps.append(step)
    # Seats 0 and 1 choose their set-up looks one at a time; then seat 2 must.
    assert [(s.seat, type(s.action)) for s in steps] == [(0, ck.InitialPeek), (1, ck.InitialPeek)]
    assert [(s.seat, s.action) for s in steps] == game.history
    assert [e.kind for s in steps for e in s.events] == ["look", "look"]
    assert all(s.fault is None for s in steps)
    assert stepper.waiting == (2,)


def test_events_for_a_viewer_hide_other_seats_cards() -> None:
    def drive(viewer: int | None) -> list[ck.Event]:
        game = ck.Game(ck.Rules.preset("rush"), seed=9, n_players=2, start_player=1)
        stepper = ck.Stepper(game, {1: ck.bots.GreedyBot()}, viewer=viewer)
        events: list[ck.Event] = []
        for _ in range(30):
            events += stepper.advance()
            events += stepper.apply(game.legal_actions(0)[0], seat=0)
        return events

    mine, all_faces = drive(0), drive(None)
    assert [e.kind for e in mine] == [e.kind for e in all_faces]
    draws = [(m, a) for m, a in zip(mine, all_faces) if m.kind == "draw" and m.seat == 1]
    assert draws
    assert all(not c.known for m, _ in draws for c in m.cards)
    assert all(c.known for _, a in draws for c in a.cards)


class _Raises(ck.Bot):
    def choose(self, observation: ck.Observation, legal_actions: Sequence[ck.Action]) -> ck.Action:
        raise RuntimeError("oops")


class _Illegal(ck.Bot):
    def choose(self, observation: ck.Observation, legal_actions: Sequence[ck.Action]) -> Any:
        return "snap 9:9"


def _play_first_legal_at_seat_0(bot: ck.Bot) -> tuple[ck.Game, ck.Stepper]:
    game = ck.Game(ck.Rules.preset("deluxe"), seed=3, n_players=3)
    stepper = ck.Stepper(game, {1: bot, 2: ck.bots.RandomBot()}, names=["You", "Bea", "Cy"], on_error="random")
    while not game.is_over:
        stepper.advance()
        if not game.is_over:
            stepper.apply(game.legal_actions(0)[0], seat=0)
    return game, stepper


@pytest.mark.parametrize("bad", [_Raises, _Illegal])
def test_on_error_random_keeps_the_game_going_and_records_the_fault(bad: type[ck.Bot]) -> None:
    game, stepper = _play_first_legal_at_seat_0(bad())
    assert stepper.faults and all(f.seat == 1 and f.name == "Bea" for f in stepper.faults)
    fault = stepper.faults[0]
    assert ("raised RuntimeError: oops" if bad is _Raises else "'snap 9:9', which is not legal") in fault.message
    assert str(fault).startswith("Bea (seat 1) ") and "random legal action" in str(fault)
    # The replacement was really played, by the faulty seat.
    assert (1, fault.replacement) in game.history
    # Seeded: the same game again makes the same replacements.
    again, twin = _play_first_legal_at_seat_0(bad())
    assert again.history == game.history and twin.faults == stepper.faults


def test_on_error_raise_names_the_bot_and_seat() -> None:
    game = ck.Game(ck.Rules.preset("deluxe"), seed=3, n_players=2)
    with pytest.raises(ck.IllegalActionError, match=r"_Illegal at seat 1: .*snap 9:9"):
        ck.Stepper(game, {0: ck.bots.RandomBot(), 1: _Illegal()}).run()
    with pytest.raises(RuntimeError, match="oops"):
        ck.Stepper(ck.Game(ck.Rules.preset("deluxe"), seed=3, n_players=2), [ck.bots.RandomBot(), _Raises()]).run()


def test_bad_arguments_get_clear_errors() -> None:
    game = ck.Game(ck.Rules.preset("deluxe"), seed=1, n_players=2)
    with pytest.raises(TypeError, match="did you pass the class"):
        ck.Stepper(game, {1: ck.bots.RandomBot})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="not a seat of this 2-player table"):
        ck.Stepper(game, {2: ck.bots.RandomBot()})
    with pytest.raises(ValueError, match="on_error='ignore'"):
        ck.Stepper(game, {1: ck.bots.RandomBot()}, on_error="ignore")
    stepper = ck.Stepper(game, {1: ck.bots.RandomBot()})
    with pytest.raises(ck.IllegalActionError, match="seat 1 is played by RandomBot"):
        stepper.apply("look 0,1", seat=1)
    with pytest.raises(ck.IllegalActionError, match="needs a bot at every seat"):
        stepper.run()


def test_round_and_game_hooks_fire_once_each_in_order() -> None:
    calls: list[str] = []

    class Hooked(ck.bots.RandomBot):
        def on_game_start(self, seat: int, n_players: int, rules: ck.Rules) -> None:
            calls.append("start")

        def on_round_start(self, observation: ck.Observation) -> None:
            calls.append(f"round {observation.round}")

        def on_round_end(self, result: ck.RoundResult) -> None:
            calls.append(f"end {result.index}")

        def on_game_end(self, totals: list[int], winners: list[int]) -> None:
            calls.append("over")

    game = ck.Game(ck.Rules.preset("rush"), seed=8, n_players=2)
    stepper = ck.Stepper(game, {1: Hooked()}, game_hooks=True)
    helper = ck.bots.RandomBot()
    while not game.is_over:
        stepper.advance()
        if not game.is_over:
            obs = game.observation(0)
            stepper.apply(helper.choose(obs, obs.legal_actions), seat=0)
    rounds = len(game.results)
    expected = ["start"] + [x for r in range(rounds) for x in (f"round {r}", f"end {r}")] + ["over"]
    assert calls == expected


class _Logged(ck.bots.RandomBot):
    """A RandomBot that writes each hook call it gets into a shared log, with its seat and what it was told."""

    def __init__(self, log: list[Any]) -> None:
        super().__init__()
        self.log = log
        self.seat = -1

    def on_game_start(self, seat: int, n_players: int, rules: ck.Rules) -> None:
        self.seat = seat
        self.log.append((seat, "start"))

    def on_round_start(self, observation: ck.Observation) -> None:
        self.log.append((self.seat, "round", observation.round, observation.hands))

    def on_round_end(self, result: ck.RoundResult) -> None:
        self.log.append((self.seat, "end", result.index, tuple(result.scores)))

    def on_game_end(self, totals: list[int], winners: list[int]) -> None:
        self.log.append((self.seat, "over", tuple(totals)))


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("person", [0, 2])
def test_next_decision_plays_the_game_play_game_plays_and_calls_the_same_hooks(preset: str, person: int) -> None:
    rules = ck.Rules.preset(preset)
    seed = 30 + person
    log: list[Any] = []
    expected = ck.play_game([_Logged(log) if s != 1 else ck.bots.GreedyBot() for s in range(3)], rules, seed=seed)
    expected_log = [entry for entry in log if entry[0] != person]  # the person's seat has no bot to call

    log.clear()
    bots = {s: _Logged(log) if s != 1 else ck.bots.GreedyBot() for s in range(3) if s != person}
    game = ck.Game(rules, seed, 3)
    stepper = ck.Stepper(game, bots, game_hooks=True)
    you = ck.bots.RandomBot()  # plays the person's seat with the moves its twin made in play_game
    you.random = bot_random(seed, person)
    decisions = 0
    obs = stepper.next_decision()
    while obs is not None:
        assert obs.seat == person and obs == game.observation(person)  # the engine's own view of that moment
        decisions += 1
        if decisions % 2:
            stepper.apply(you.choose(obs, obs.legal_actions), seat=person)
        else:  # straight on the game: the next call catches up the hooks that move reached
            game.apply(you.choose(obs, obs.legal_actions), person)
        obs = stepper.next_decision()
    assert decisions > 10 and game.is_over and stepper.next_decision() is None
    names = [b.name for b in (_Logged([]), ck.bots.GreedyBot(), _Logged([]))]
    assert ck.GameRecord.from_game(game, names).to_json() == expected.to_json()
    assert log == expected_log and [entry[1] for entry in log].count("end") == len(game.results) > 1
