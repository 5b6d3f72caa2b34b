"""OpenSpiel's python_cabo: OpenSpiel's own random_sim_test, exact history replay, true chance, no leak."""

from __future__ import annotations

import random
import subprocess
import sys
from typing import Any, Callable

import pytest

pyspiel = pytest.importorskip("pyspiel")

import cabo_kit as ck  # noqa: E402
from cabo_kit.rl.openspiel import CaboObserver, CaboState, register_openspiel  # noqa: E402

register_openspiel()

TABLES = [(preset, n) for preset in ("deluxe", "rush", "traveller") for n in ((3 if preset == "traveller" else 2), 4, 6)]


def load(preset: str, n: int, memory: str = "engine") -> Any:
    return pyspiel.load_game("python_cabo", {"players": n, "preset": preset, "memory": memory})


def play(state: Any, rng: random.Random, steps: int | None = None) -> list[str]:
    """Play on (chance by its probabilities, players uniformly), returning each step's kind
    ("start", "card", "race" for chance nodes, "player"); stops at the end or after ``steps``."""
    kinds = []
    while not state.is_terminal() and (steps is None or len(kinds) < steps):
        if state.is_chance_node():
            kinds.append(state.play.need.kind)
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            kinds.append("player")
            state.apply_action(rng.choice(state.legal_actions()))
    return kinds


@pytest.mark.parametrize("preset,n", TABLES)
def test_openspiel_random_sim_test_with_serialization(preset: str, n: int) -> None:
    pyspiel.random_sim_test(load(preset, n), num_sims=2 if n < 6 else 1, serialize=True, verbose=False)


def test_random_sim_test_without_memory() -> None:
    pyspiel.random_sim_test(load("rush", 3, memory="none"), num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize("preset,n", [("deluxe", 2), ("rush", 4), ("traveller", 3)])
def test_history_replays_the_game_exactly(preset: str, n: int) -> None:
    game = load(preset, n)
    for seed in range(3):
        rng = random.Random(seed)
        state = game.new_initial_state()
        for chunk in range(6):
            play(state, rng, steps=40)
            again = game.new_initial_state()
            for action in state.history():
                again.apply_action(action)
            assert str(again) == str(state) and again.history() == state.history()
            assert again.current_player() == state.current_player()
            if not state.is_chance_node():
                for p in range(n):
                    assert again.information_state_string(p) == state.information_state_string(p)
                    assert again.information_state_tensor(p) == state.information_state_tensor(p)
                    assert again.observation_string(p) == state.observation_string(p)
                    assert again.legal_actions(p) == state.legal_actions(p)
            if state.is_terminal():
                assert again.returns() == state.returns()
                break


def test_the_chance_outcomes_are_what_is_dealt_with_true_probabilities() -> None:
    game = load("deluxe", 2)
    state = game.new_initial_state()
    assert state.chance_outcomes() == [(0, 0.5), (1, 0.5)]  # the start player
    state.apply_action(1)
    first = dict(state.chance_outcomes())  # the first card: 2 zeros, 4 ones ... 2 thirteens of 52
    faces = [c.text for c in game.faces]
    assert faces == [str(v) for v in range(14)]
    assert first[0] == first[13] == pytest.approx(2 / 52) and first[5] == pytest.approx(4 / 52)
    assert sum(first.values()) == pytest.approx(1.0)
    deal = [13, 13, 0, 7, 5, 5, 5, 5]
    for face in deal:
        state.apply_action(face)
    hands = state.play.game.open_hands()
    assert [c.text for c in hands[0] + hands[1]] == [str(v) for v in deal]
    assert state.play.game.start_player == 1
    assert not state.is_chance_node()  # deluxe: the set-up look, seat 0 then seat 1, before the first discard
    assert state.current_player() == 0
    state.apply_action(state.legal_actions()[0])
    assert state.current_player() == 1
    state.apply_action(state.legal_actions()[0])
    left = dict(state.chance_outcomes())  # the first discard: no 13 nor 5 is left, one 0 of 44 cards
    assert 13 not in left and 5 not in left and left[0] == pytest.approx(1 / 44)


def test_a_snap_race_is_a_fair_chance_node() -> None:
    game = load("rush", 4)
    for seed in range(40):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node() and state.play.need.kind == "race":
                outcomes = state.chance_outcomes()
                assert len(outcomes) >= 2 and all(p == pytest.approx(1 / len(outcomes)) for _, p in outcomes)
                winner = outcomes[-1][0]
                events_before = state.play.game.event_count
                state.apply_action(winner)
                while state.is_chance_node():  # a wrong snap's penalty card
                    state.apply_action(state.chance_outcomes()[0][0])
                snaps = [e for e in state.play.game.events_seen(None, since=events_before) if e.kind == "snap"]
                assert snaps[0].seat == winner
                return
            play(state, rng, steps=1)
    pytest.fail("no snap race in 40 random rush games")  # pragma: no cover


# ---------------------------------------------------------------- no leak


def views(state: Any, p: int) -> tuple[Any, ...]:
    return (state.information_state_string(p), state.information_state_tensor(p), state.observation_string(p),
            state.observation_tensor(p), state.legal_actions(p))


def earlier_rounds(game: ck.Game, p: int) -> list[Any]:
    """The events of the rounds before this one as seat ``p`` saw them."""
    seen = game.events_seen(p)
    starts = [i for i, e in enumerate(seen) if e.kind == "round"]
    return seen[:starts[-1]] if starts else []


def leaks(preset: str, n: int, memory: str, seeds: range) -> tuple[int, list[str], int]:
    """Worlds consistent with seat p's view, and where p's OpenSpiel views differ between them.

    For states where seat p decides, another world swaps two cards dealt or drawn in this or an
    earlier round (two chance outcomes of the history), replays the history, and is kept if the
    engine gives p the very same observation and p saw the same events in every round; then p's
    information state, observation and legal actions must be the same too. Where only what p saw
    in an earlier round differs (its observation now the same), p's information state must
    differ (perfect recall across rounds): the third number counts those worlds."""
    game = load(preset, n, memory)
    consistent, found, recalled = 0, [], 0
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state()
        kinds: list[str] = []
        for _ in range(8):
            kinds += play(state, rng, steps=rng.randrange(5, 30))
            while state.is_chance_node():
                kinds += play(state, rng, steps=1)
            if state.is_terminal():
                break
            now = state.play.game.round
            # the round each step belongs to (a chance outcome: that of the step it completes), replayed once
            replay = game.new_initial_state()
            rounds: list[int | None] = []
            for action in state.history():
                replay.apply_action(action)
                rounds.append(None if replay.is_chance_node() else replay.play.game.round)
            for i in range(len(rounds) - 2, -1, -1):
                if rounds[i] is None:
                    rounds[i] = rounds[i + 1]
            cards = [i for i, k in enumerate(kinds) if k == "card"]
            if len(cards) < 2:
                continue
            p = state.current_player()
            mine = state.play.game.observation(p).to_dict()
            saw = earlier_rounds(state.play.game, p)
            for _ in range(6 if now == 0 else 10):
                i, j = sorted(rng.sample(cards, 2))
                history = list(state.history())
                if history[i] == history[j]:
                    continue
                history[i], history[j] = history[j], history[i]
                other = game.new_initial_state()
                try:
                    for action in history:
                        allowed = dict(other.chance_outcomes()) if other.is_chance_node() else other.legal_actions()
                        if action not in allowed:
                            raise LookupError
                        other.apply_action(action)
                except LookupError:
                    continue  # not a world this history can happen in
                if other.is_chance_node() or other.play.game.observation(p).to_dict() != mine:
                    continue  # seat p could tell these worlds apart now
                if earlier_rounds(other.play.game, p) != saw:  # ... or in an earlier round only: it must recall it
                    recalled += 1
                    if other.information_state_string(p) == state.information_state_string(p):
                        found.append(f"{preset} {n} {memory} seed {seed}: seat {p} forgot what it saw of outcomes "
                                     f"{i} and {j} in an earlier round")
                    continue
                consistent += 1
                if views(other, p) != views(state, p):
                    found.append(f"{preset} {n} {memory} seed {seed}: seat {p} tells apart outcomes {i} and {j}")
    return consistent, found, recalled


@pytest.mark.parametrize("preset,n,memory", [("deluxe", 2, "engine"), ("rush", 4, "engine"), ("traveller", 3, "none"),
                                             ("rush", 3, "none")])
def test_no_information_state_leak(preset: str, n: int, memory: str) -> None:
    consistent, found, _ = leaks(preset, n, memory, range(4))
    assert found == []
    assert consistent >= 10  # the test saw enough worlds to mean something


def test_information_states_recall_earlier_rounds() -> None:
    consistent, found, recalled = leaks("rush", 2, "none", range(6))
    assert found == []
    assert recalled >= 3 and consistent >= 3


def test_a_planted_leak_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    honest: Callable[..., str] = CaboObserver.string_from

    def leaky(self: CaboObserver, state: CaboState, player: int) -> str:  # reads every hidden card
        text = honest(self, state, player)
        return text if state.play.game is None else text + str(state.play.game.open_hands())

    monkeypatch.setattr(CaboObserver, "string_from", leaky)
    consistent, found, _ = leaks("rush", 4, "engine", range(2))
    assert consistent and found


def test_cabo_kit_rl_imports_without_open_spiel() -> None:
    code = (
        "import sys\n"
        "sys.modules['pyspiel'] = None\n"  # as if open-spiel were not installed
        "import cabo_kit.rl as rl\n"
        "try:\n"
        "    rl.register_openspiel\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "pyspiel" in out and "pip install 'cabo-kit[rl]'" in out


def test_bad_parameters_are_clear_errors() -> None:
    with pytest.raises(Exception, match="preset='uno'"):
        load("uno", 2)
    with pytest.raises(Exception, match="traveller is for 3 to"):
        load("traveller", 2)
    assert ck.Rules.preset("traveller").min_players == 3


def patient(state: Any, rng: random.Random) -> None:
    """One step: chance by its probabilities; a player passes, draws from the deck, discards (else at random),
    so that the deck runs out and the pile is reshuffled."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(rng.choices(outcomes, probs)[0])
        return
    index = state.play.spiel.index
    legal = state.legal_actions()
    seat = state.current_player()
    for kind in (ck.Pass, ck.DrawDeck, ck.Discard):
        for i in legal:
            if isinstance(index.action(i, seat), kind):
                state.apply_action(i)
                return
    state.apply_action(rng.choice(legal))


@pytest.mark.parametrize("preset,n", [("rush", 2), ("traveller", 3)])
def test_draws_after_a_reshuffle_are_chance_nodes_of_the_reshuffled_cards(preset: str, n: int) -> None:
    game = load(preset, n)
    rng = random.Random(1)
    state = game.new_initial_state()
    checked = 0
    while not state.is_terminal() and checked < 2:
        engine = state.play.game
        if state.is_chance_node() and engine is not None and not engine.deck and state.play.need.kind == "card" \
                and not state.play.answers:
            # the deck ran out in this step: the pile below its top is the new deck, each of its cards as likely
            left = [engine.know.faces[c] for c in engine.know.pile[:-1]]
            counts = {game.faces.index(c): left.count(c) / len(left) for c in set(left)}
            assert dict(state.chance_outcomes()) == pytest.approx(counts)
            assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)
            before = engine.event_count
            patient(state, rng)
            while state.is_chance_node():
                patient(state, rng)
            shuffles = [e for e in state.play.game.events_seen(None, since=before) if e.kind == "reshuffle"]
            assert shuffles and shuffles[0].target == (len(left),)
            checked += 1
            continue
        patient(state, rng)
    assert checked == 2
    again = game.new_initial_state()
    for action in state.history():
        again.apply_action(action)
    assert str(again) == str(state)
    assert again.play.game.events_seen(None) == state.play.game.events_seen(None)


def test_a_chance_node_in_a_step_shows_the_outcomes_chosen_so_far() -> None:
    state = load("deluxe", 2).new_initial_state()
    state.apply_action(1)
    for face in (13, 0, 7):
        state.apply_action(face)
    assert str(state) == "dealing (chance: 4 outcomes so far: seat 1 starts, 13, 0, 7)"
    game = load("rush", 4)
    rng = random.Random(3)
    state = game.new_initial_state()
    for _ in range(4000):
        if state.is_chance_node() and state.play.step is not None and len(state.play.answers) >= 1:
            break
        play(state, rng, steps=1)
    else:  # pragma: no cover
        pytest.fail("no step with two chance nodes in a row")
    seat, action = state.play.step
    chosen = ", ".join(game.faces[a].text if k == "card" else f"seat {a} wins the race"
                       for k, a in zip(state.play.kinds, state.play.answers))
    assert str(state).endswith(f"; seat {seat} plays {action}, chance ({state.play.need.kind}) after "
                               f"{len(state.play.answers)} outcomes: {chosen}")
