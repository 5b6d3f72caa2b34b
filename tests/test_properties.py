"""Property tests over many seeded games: every preset, every player count, rule options, fuzz and reference bots.

- Cards are conserved after every action (RULES.md §8).
- Every round's scores are ``score_round`` of its final hands; totals are a ``ScoreSheet`` replay.
- Records and observations survive their JSON / dict round trips.
- The legal actions are exactly what ``Game.apply`` accepts; an illegal action changes nothing.
- Over the fixed fuzz games every phase, event and way to end a round happens.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))

import cabo_kit as ck  # noqa: E402
from cabo_kit import (  # noqa: E402
    Action, Bot, CallCabo, Discard, DrawDeck, DrawDiscard, Exchange, Game, GameRecord, Give, IllegalActionError,
    InitialPeek, Observation, Pass, Peek, Place, Rules, ScoreSheet, Snap, Spy, Swap, score_round,
)
from cabo_kit.play import bot_random  # noqa: E402
from fuzzbot import BlindFuzzBot, FuzzBot  # noqa: E402
from leakcheck import knowledge  # noqa: E402

PRESETS = ("deluxe", "rush", "traveller")
OPTIONS: tuple[dict[str, Any], ...] = (
    {},
    {"hand_size": 6, "initial_peeks": 3},
    {"second_exact_100_ends": True},
    {"max_turns": 12},
    {"max_rounds": 2},
)
BOT_KINDS: dict[str, Callable[[], Bot]] = {
    "fuzz": FuzzBot,
    "fuzz_no_cabo": lambda: FuzzBot(cabo=0.0),
    "random": ck.bots.RandomBot,
    "greedy": ck.bots.GreedyBot,
}
TABLES = [(p, n) for p in PRESETS for n in range(Rules.preset(p).min_players, Rules.preset(p).max_players + 1)]


# ------------------------------------------------------------------ driving games


def check_conservation(game: Game, where: str) -> None:
    """RULES.md §8: hands + deck + pile + drawn card hold every card id exactly once."""
    ids = [c for hand in game.know.hands for c in hand] + list(game.deck) + list(game.know.pile)
    if game.drawn is not None:
        ids.append(game.drawn)
    counts = Counter(ids)
    doubled = sorted(c for c, k in counts.items() if k > 1)
    missing = sorted(set(range(len(game.know.faces))) - set(counts))
    assert not doubled and not missing and len(ids) == len(game.know.faces), (
        f"{where}: cards not conserved: ids held twice {doubled}, ids missing {missing}"
    )


def check_views(game: Game, where: str) -> None:
    """The observations' kept hand views, discard pile, scores and events equal ones rebuilt from scratch, for every
    seat; ``to_move`` is exactly the seats with something legal to do."""
    assert game.to_move == tuple(s for s in range(game.n) if game.legal_actions(s)), f"{where}: to_move is stale"
    for seat in range(game.n):
        obs = game.observation(seat)
        seen = game.events_seen(seat)
        starts = [i for i, e in enumerate(seen) if e.kind == "round"]
        this_round = tuple(seen[starts[-1]:]) if starts else ()
        if game.memory == "engine":
            assert obs.events == this_round, f"{where}: seat {seat}'s events are not what it saw this round"
        else:
            assert not obs.events or obs.events == this_round[-len(obs.events):], f"{where}: seat {seat}'s events"
        view = game.know.seen[seat] if game.memory == "engine" else game.know.up_faces
        fresh = tuple(tuple(view[c] for c in hand) for hand in game.know.hands)
        flags = tuple(tuple(game.know.up[c] for c in hand) for hand in game.know.hands)
        assert obs.hands == fresh, f"{where}: seat {seat}'s cached view of the hands is stale"
        assert obs.face_up == flags, f"{where}: the cached face-up flags are stale"
        pile = tuple(game.know.faces[c] for c in game.know.pile)
        assert obs.discard == (pile if game.memory == "engine" else pile[-1:]), f"{where}: the kept discard tuple is stale"
        sheet = game.sheet
        assert obs.scores == tuple(sheet.totals) and obs.round_scores == tuple(map(tuple, sheet.rounds)), (
            f"{where}: the kept scores are stale"
        )


def play_checked(
    rules: Rules,
    n: int,
    seed: int,
    bots: Sequence[Bot],
    *,
    memory: str = "engine",
    each_step: Callable[[Game, int], None] | None = None,
) -> tuple[Game, GameRecord]:
    """Play a whole game as ``play_game`` does, checking conservation after every action."""
    game = Game(rules, seed, n, memory=memory)
    for seat, bot in enumerate(bots):
        bot.random = bot_random(seed, seat)
        bot.on_game_start(seat, n, rules)
    label = f"{rules.name} n={n} seed={seed}"
    deck_of_round = -1
    full = Counter(rules.full_deck(n))
    check_conservation(game, f"{label} before any action")
    while not game.is_over:
        for seat in game.to_move:
            obs = game.observation(seat)
            game.apply(bots[seat].choose(obs, obs.legal_actions), seat)
            step = len(game.history)
            if game.round != deck_of_round and not game.is_over:
                deck_of_round = game.round
                assert Counter(game.know.faces) == full, f"{label} round {game.round}: the cards are not the full deck"
            check_conservation(game, f"{label} step {step} ({seat}: {game.history[-1][1]})")
            check_views(game, f"{label} step {step} ({seat}: {game.history[-1][1]})")
            if each_step is not None:
                each_step(game, step)
    names = [type(b).__name__ for b in bots]
    return game, GameRecord.from_game(game, names)


def check_scores(rules: Rules, record: GameRecord) -> None:
    """Round scores are ``score_round`` of the final hands; totals and winners are a ScoreSheet replay."""
    sheet = ScoreSheet(rules, record.n_players)
    for r in record.rounds:
        assert r.scores == score_round(rules, r.final_hands, r.caller, r.ended_by), r
        assert r.totals == [sum(c.value for c in h) for h in r.final_hands]
        sheet.add_round(r.scores)
        assert r.game_totals == sheet.totals, (r.index, r.game_totals, sheet.totals)
    assert record.totals == sheet.totals
    assert sheet.game_over and record.winners == sheet.winners
    assert len(record.rounds) <= rules.max_rounds


def check_final_hands(record: GameRecord) -> None:
    """Each round's final hands fit everything the full event log showed (an independent picture)."""
    rounds: list[list[ck.Event]] = []
    for e in record.events:
        if e.kind == "round":
            rounds.append([])
        rounds[-1].append(e)
    assert len(rounds) == len(record.rounds)
    for events, result in zip(rounds, record.rounds):
        k = knowledge(events[:-1], -1, record.n_players, record.rules.hand_size)
        assert [len(h) for h in k.hands] == [len(h) for h in result.final_hands], result.index
        for s, hand in enumerate(k.hands):
            for p, card in enumerate(hand):
                assert not card.known or card == result.final_hands[s][p], (result.index, s, p, card)
        end = events[-1]
        assert end.kind == "end" and list(end.target) == result.scores and end.info == result.ended_by
        cabo = [e.seat for e in events if e.kind == "cabo"]
        assert cabo == ([] if result.caller is None else [result.caller])


def make_bots(kinds: Sequence[str]) -> list[Bot]:
    return [BOT_KINDS[k]() for k in kinds]


# ------------------------------------------------------------------ every table, every option


@pytest.mark.parametrize(("preset", "n"), TABLES)
def test_every_table_conserves_cards_and_scores(preset: str, n: int) -> None:
    for i, option in enumerate(OPTIONS):
        rules = Rules.preset(preset, **option)
        seed = 100 * n + i
        kinds = ["fuzz", "random", "greedy", "fuzz_no_cabo"]
        game, record = play_checked(rules, n, seed, make_bots([kinds[(s + i) % 4] for s in range(n)]))
        check_scores(rules, record)
        check_final_hands(record)
        if option.get("max_rounds"):
            assert len(record.rounds) <= 2
        if option.get("max_turns"):
            assert all(r.turns <= 12 for r in record.rounds)
        if option.get("hand_size"):
            looks = [e for e in record.events if e.kind == "look"]
            assert len(looks) == n * len(record.rounds) and all(len(e.target) == 3 for e in looks)


def test_traveller_two_player_teaching_option() -> None:
    """RULES.md §2: traveller allows 2 players as a teaching option (min_players=2)."""
    for i, option in enumerate(OPTIONS):
        rules = Rules.preset("traveller", min_players=2, **option)
        _, record = play_checked(rules, 2, 700 + i, make_bots(["fuzz", ("random", "greedy")[i % 2]]))
        check_scores(rules, record)
        check_final_hands(record)


@st.composite
def game_configs(draw: st.DrawFn) -> tuple[Rules, int, int, list[str]]:
    preset = draw(st.sampled_from(PRESETS))
    base = Rules.preset(preset)
    n = draw(st.integers(base.min_players, base.max_players))
    option = draw(st.sampled_from(OPTIONS))
    seed = draw(st.integers(0, 2**31))
    kinds = draw(st.lists(st.sampled_from(sorted(BOT_KINDS)), min_size=n, max_size=n))
    return Rules.preset(preset, **option), n, seed, kinds


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(game_configs())
def test_random_games_conserve_cards_and_score_correctly(config: tuple[Rules, int, int, list[str]]) -> None:
    rules, n, seed, kinds = config
    game, record = play_checked(rules, n, seed, make_bots(kinds))
    check_scores(rules, record)
    check_final_hands(record)


@pytest.mark.parametrize("preset", PRESETS)
def test_memory_none_games_conserve_cards_and_show_only_face_up(preset: str) -> None:
    rules = Rules.preset(preset)
    n = rules.min_players + 1

    def only_face_up(game: Game, step: int) -> None:
        for s in range(n):
            obs = game.observation(s)
            for seat, hand in enumerate(obs.hands):
                for p, card in enumerate(hand):
                    assert not card.known or obs.face_up[seat][p], (step, s, seat, p)

    _, record = play_checked(rules, n, 9, [BlindFuzzBot() for _ in range(n)], memory="none", each_step=only_face_up)
    check_scores(rules, record)


def test_full_decks_match_the_reference_numbers() -> None:
    """RULES.md §8: deck sizes and sums per preset (two deluxe decks for six players)."""
    expect = {("deluxe", 2): (52, 338), ("deluxe", 6): (104, 676), ("rush", 6): (52, 338), ("traveller", 3): (54, 336)}
    for (preset, n), (size, total) in expect.items():
        deck = Rules.preset(preset).full_deck(n)
        assert (len(deck), sum(c.value for c in deck)) == (size, total)


# ------------------------------------------------------------------ round trips


def _sampled_observations(record: GameRecord, every: int, rng: random.Random) -> Iterator[Observation]:
    game = record.new_game()
    for i, (seat, action) in enumerate(record.actions):
        if i % every == 0:
            yield game.observation(rng.randrange(record.n_players))
        game.apply(action, seat)
    yield game.observation(0)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("memory", ["engine", "none"])
def test_record_and_observation_round_trips(preset: str, memory: str) -> None:
    rules = Rules.preset(preset)
    for seed in range(3):
        n = rules.min_players + seed
        bots: list[Bot] = [FuzzBot() if memory == "engine" else BlindFuzzBot() for _ in range(n)]
        record = ck.play_game(bots, rules, seed=seed, memory=memory)
        text = record.to_json()
        again = GameRecord.from_json(text)
        assert again.to_json() == text
        assert again.to_json(indent=1) == record.to_json(indent=1)
        assert again.winners == record.winners and again.rounds == record.rounds
        checked = 0
        for obs in _sampled_observations(record, 7, random.Random(seed)):
            data = obs.to_dict()
            assert Observation.from_dict(json.loads(json.dumps(data))) == obs
            checked += 1
        assert checked > 10


# ------------------------------------------------------------------ legal actions == accepted actions


def action_universe(game: Game) -> list[Action]:
    """Every action of every kind with seats and positions in range and just beyond it."""
    n = game.n
    sizes = [len(h) for h in game.know.hands]
    most = max(sizes) + 1
    out: list[Action] = [DrawDeck(), DrawDiscard(), CallCabo(), Discard(), Pass()]
    k = game.rules.initial_peeks
    for size in {k - 1, k, k + 1} - {0}:
        if size > 0:
            out.extend(InitialPeek(c) for c in combinations(range(most), size))
    out.extend(Exchange((p,)) for p in range(most))
    out.extend(Exchange(c) for size in (2, 3) for c in combinations(range(most), size))
    out.extend(Place(p) for p in range(most + 1))
    out.extend(Peek(p) for p in range(most))
    out.extend(Give(p) for p in range(most))
    for s in range(n + 1):
        for p in range(most):
            out.extend((Spy(s, p), Snap(s, p)))
            out.extend(Swap(o, s, p) for o in range(most))
    return out


def fingerprint(game: Game) -> tuple[Any, ...]:
    return (
        game.phase, game.to_move, game.round, game.turn, game.current,
        [list(h) for h in game.know.hands], list(game.deck), list(game.know.pile), game.drawn, list(game.know.up),
        len(game.history), len(game.log), [game.observation(s).to_dict() for s in range(game.n)],
        _rng_state(game, "_snap_rng"), _rng_state(game, "_reshuffle_rng"), game.totals,
    )


def _rng_state(game: Game, name: str) -> object:
    """The state of one of the game's random streams (``None`` while the engine has not made it yet)."""
    rng = getattr(game, name, None)
    return None if rng is None else rng.getstate()


def check_legal_equals_accepted(game: Game, rng: random.Random, where: str) -> None:
    universe = action_universe(game)
    before = fingerprint(game)
    for seat in range(game.n):
        legal = game.legal_actions(seat)
        obs = game.observation(seat)
        assert list(obs.legal_actions) == list(legal), f"{where}: observation and game disagree for seat {seat}"
        listed = list(legal)
        assert len(listed) == len(legal) == len(set(listed)), f"{where}: seat {seat}'s legal actions repeat"
        assert bool(listed) == (seat in game.to_move), f"{where}: seat {seat} has legal actions {listed[:5]} but to_move is {game.to_move}"
        for action in listed:
            assert action in universe or (isinstance(action, Exchange) and len(action.positions) > 3), (
                f"{where}: {action} is outside the universe this test builds"
            )
        for action in rng.sample(listed, min(12, len(listed))):
            trial = game.clone()
            trial.apply(action, seat)  # a listed action is accepted
        illegal = [a for a in universe if a not in legal]
        # Every kind the seat may play now is tried with every wrong argument; other kinds by sample.
        kinds = {type(a) for a in listed}
        near = [a for a in illegal if type(a) in kinds]
        far = [a for a in illegal if type(a) not in kinds]
        for action in near + rng.sample(far, min(40, len(far))):
            with pytest.raises(IllegalActionError):
                game.apply(action, seat)
    assert fingerprint(game) == before, f"{where}: an illegal action changed the game"


@pytest.mark.parametrize("preset", PRESETS)
def test_legal_actions_are_exactly_the_accepted_ones(preset: str) -> None:
    rules = Rules.preset(preset)
    rng = random.Random(preset)
    states = Counter()

    for seed, n in ((1, rules.min_players), (2, rules.max_players)):
        # About 30 states a game, spread over it; a snap window and the draws come up often.
        sampled = [0]

        def sample(game: Game, step: int) -> None:
            if sampled[0] < 30 and rng.random() < 0.12 and not game.is_over:
                sampled[0] += 1
                states[game.phase] += 1
                check_legal_equals_accepted(game, rng, f"{preset} n={n} seed={seed} step={step}")

        play_checked(rules, n, seed, [FuzzBot() for _ in range(n)], each_step=sample)
    assert states["choose"] and states["drawn"], states
    if rules.snapping:
        assert states["snap"], states


def test_stale_or_foreign_seats_cannot_act() -> None:
    game = Game(Rules.preset("rush"), seed=3, n_players=3)
    assert game.phase == "snap"
    game.apply("pass", seat=0)
    before = fingerprint(game)
    with pytest.raises(IllegalActionError):
        game.apply("pass", seat=0)  # seat 0 already answered this window
    with pytest.raises(IllegalActionError):
        game.apply("snap 0:0")  # two seats still decide: the seat must be named
    assert fingerprint(game) == before


# ------------------------------------------------------------------ the fuzz bot reaches everything


def test_fuzz_games_exercise_every_phase_and_branch() -> None:
    phases: dict[str, set[str]] = {p: set() for p in PRESETS}
    events: dict[str, set[str]] = {p: set() for p in PRESETS}
    endings: dict[str, set[str]] = {p: set() for p in PRESETS}
    actions: dict[str, set[str]] = {p: set() for p in PRESETS}
    biggest = 0
    for preset in PRESETS:
        base = Rules.preset(preset)
        for i, option in enumerate(({}, {"max_turns": 12}, {})):
            rules = Rules.preset(preset, **option)
            n = base.min_players + i
            kinds = ["fuzz_no_cabo"] * n if i == 2 else ["fuzz"] * n

            def watch(game: Game, step: int, preset: str = preset) -> None:
                phases[preset].add(game.phase)

            for seed in range(3):
                game, record = play_checked(rules, n, 500 + seed, make_bots(kinds), each_step=watch)
                for e in record.events:
                    events[preset].add(e.kind + (":" + e.info if e.kind in ("multi", "snap") else ""))
                for seat, a in record.actions:
                    name = type(a).__name__
                    if isinstance(a, Exchange) and len(a.positions) > 1:
                        name = "MultiExchange"
                    actions[preset].add(name)
                for r in record.rounds:
                    endings[preset].add(r.ended_by)
                    biggest = max(biggest, max(len(h) for h in r.final_hands))
    common = {"round", "flip", "draw", "take", "cabo", "discard", "exchange", "peek", "spy", "swap", "skip", "end"}
    assert common | {"look", "multi:ok", "multi:fail", "place", "penalty"} <= events["deluxe"], events["deluxe"]
    for preset in ("rush", "traveller"):
        snapping = {"snap:match", "snap:miss", "give", "penalty", "reshuffle"}
        assert common | snapping <= events[preset], (preset, events[preset])
    assert {"look", "choose", "drawn", "power", "place", "over"} <= phases["deluxe"], phases["deluxe"]
    assert {"choose", "drawn", "power", "swap", "snap", "give", "over"} <= phases["rush"], phases["rush"]
    assert {"choose", "drawn", "power", "swap", "snap", "give", "end_turn", "over"} <= phases["traveller"]
    assert {"cabo", "deck", "turn_limit"} <= endings["deluxe"], endings["deluxe"]
    assert {"cabo", "empty_hand", "turn_limit"} <= endings["rush"], endings["rush"]
    assert {"cabo", "turn_limit"} <= endings["traveller"], endings["traveller"]
    every = {"DrawDeck", "DrawDiscard", "CallCabo", "Discard", "Exchange", "Peek", "Spy", "Swap", "Pass"}
    assert every | {"InitialPeek", "MultiExchange", "Place"} <= actions["deluxe"], actions["deluxe"]
    assert every | {"Snap", "Give"} <= actions["rush"] and every | {"Snap", "Give"} <= actions["traveller"]
    assert biggest <= 16, f"fuzz hands grew to {biggest} cards"
