"""Determinism: the same seed gives the same record byte for byte, in this process and in others
(whatever PYTHONHASHSEED), and ``record.view(seat, step)`` is exactly what each bot received."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Sequence

import pytest

TESTS = Path(__file__).parent
sys.path.insert(0, str(TESTS))

import cabo_kit as ck  # noqa: E402
from cabo_kit import Action, Bot, Observation, Rules  # noqa: E402
from fuzzbot import BlindFuzzBot, FuzzBot  # noqa: E402

PRESETS = ("deluxe", "rush", "traveller")

# (preset, rule overrides, bot kinds, seed, memory): small enough to play in a child process quickly.
CASES: list[tuple[str, dict[str, Any], tuple[str, ...], Any, str]] = [
    ("deluxe", {}, ("fuzz", "random", "greedy"), 11, "engine"),
    ("deluxe", {"hand_size": 6, "initial_peeks": 3}, ("fuzz",) * 6, 12, "engine"),
    ("rush", {}, ("fuzz", "fuzz", "greedy", "random"), 13, "engine"),
    ("rush", {"max_rounds": 2}, ("blind", "blind"), 14, "none"),
    ("traveller", {}, ("fuzz", "random", "greedy", "fuzz", "fuzz"), 15, "engine"),
    ("traveller", {"second_exact_100_ends": True}, ("greedy", "fuzz", "blind"), 16, "engine"),
    ("rush", {"max_turns": 12}, ("fuzz", "random", "fuzz"), "lesson-3", "engine"),  # string seeds hash too
]

_PLAY = """
import hashlib, sys
sys.path.insert(0, {tests!r})
import cabo_kit as ck
from fuzzbot import FuzzBot, BlindFuzzBot
KINDS = {{"fuzz": FuzzBot, "blind": BlindFuzzBot, "random": ck.bots.RandomBot, "greedy": ck.bots.GreedyBot}}
for preset, options, kinds, seed, memory in {cases!r}:
    record = ck.play_game([KINDS[k]() for k in kinds], ck.Rules.preset(preset, **options), seed=seed, memory=memory)
    print(hashlib.sha256(record.to_json().encode()).hexdigest())
"""


def _bots(kinds: Sequence[str]) -> list[Bot]:
    table = {"fuzz": FuzzBot, "blind": BlindFuzzBot, "random": ck.bots.RandomBot, "greedy": ck.bots.GreedyBot}
    return [table[k]() for k in kinds]


def _record(case: tuple[str, dict[str, Any], tuple[str, ...], Any, str]) -> ck.GameRecord:
    preset, options, kinds, seed, memory = case
    return ck.play_game(_bots(kinds), Rules.preset(preset, **options), seed=seed, memory=memory)


def _digest(record: ck.GameRecord) -> str:
    return hashlib.sha256(record.to_json().encode()).hexdigest()


def test_same_seed_same_bytes_in_process() -> None:
    for case in CASES:
        first, second = _record(case), _record(case)
        assert first.to_json() == second.to_json(), case
        assert first.to_json(indent=2) == second.to_json(indent=2)


def test_different_seeds_differ() -> None:
    """The seed matters: otherwise the byte-identity above would prove nothing."""
    preset, options, kinds, seed, memory = CASES[2]
    digests = {_digest(_record((preset, options, kinds, s, memory))) for s in range(seed, seed + 4)}
    assert len(digests) == 4


def test_same_seed_same_bytes_across_processes() -> None:
    here = [_digest(_record(case)) for case in CASES]
    python = Path(sys.executable)
    venv = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "python"
    if venv.exists():
        python = venv
    code = _PLAY.format(tests=str(TESTS), cases=CASES)
    for hash_seed in ("0", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        done = subprocess.run([str(python), "-c", code], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        there = done.stdout.split()
        differ = [CASES[i] for i in range(len(CASES)) if i >= len(there) or there[i] != here[i]]
        assert not differ, f"PYTHONHASHSEED={hash_seed}: another process played these differently: {differ}"


def test_replay_rebuilds_the_game() -> None:
    for case in CASES[:4]:
        record = _record(case)
        game = record.replay()
        assert game.is_over
        assert [r.to_dict() for r in game.results] == [r.to_dict() for r in record.rounds]
        assert ck.GameRecord.from_game(game, record.bots).to_json() == record.to_json()


class Recorder(Bot):
    """Wraps a bot and keeps every observation it receives, numbered by the game's action count.

    Each ``choose`` call is followed by exactly one action, so a counter shared by all
    seats' recorders is the step index ``record.view`` takes.
    """

    def __init__(self, inner: Bot, counter: list[int], log: list[tuple[int, int, Observation]]) -> None:
        super().__init__()
        self.inner = inner
        self.counter = counter
        self.log = log

    def on_game_start(self, seat: int, n_players: int, rules: Rules) -> None:
        self.inner.random = self.random  # the game seeded the wrapper; the inner bot plays with it
        self.inner.on_game_start(seat, n_players, rules)

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        self.log.append((self.counter[0], observation.seat, observation))
        self.counter[0] += 1
        return self.inner.choose(observation, legal_actions)


def _recorded(case: tuple[str, dict[str, Any], tuple[str, ...], Any, str]) -> tuple[ck.GameRecord, list[Any]]:
    preset, options, kinds, seed, memory = case
    counter = [0]
    log: list[tuple[int, int, Observation]] = []
    bots = [Recorder(b, counter, log) for b in _bots(kinds)]
    record = ck.play_game(bots, Rules.preset(preset, **options), seed=seed, memory=memory)
    return record, log


@pytest.mark.parametrize("preset", PRESETS)
def test_view_is_what_each_bot_received_at_every_step(preset: str) -> None:
    case = (preset, {"max_rounds": 1}, ("fuzz", "greedy", "random"), 31, "engine")
    record, log = _recorded(case)
    assert len(log) == len(record.actions) > 20
    game = record.new_game()
    for step, (logged_step, seat, received) in enumerate(log):
        assert logged_step == step and record.actions[step][0] == seat
        assert game.observation(seat) == received, f"{preset} step {step} seat {seat}"
        game.apply(record.actions[step][1], seat)
    # record.view itself (a fresh replay per call) on a spread of steps, memory "none" included.
    for case in ((preset, {}, ("fuzz", "random", "greedy"), 32, "engine"), (preset, {}, ("blind",) * 3, 33, "none")):
        record, log = _recorded(case)
        for step, seat, received in log[:: max(1, len(log) // 25)]:
            assert record.view(seat, step) == received, f"{case} step {step} seat {seat}"


def test_same_seed_same_record_with_the_recorder() -> None:
    """Wrapping the bots changes nothing: the recorded game is the unwrapped game."""
    case = CASES[2]
    wrapped, _ = _recorded(case)
    plain = _record(case)
    assert [(s, str(a)) for s, a in wrapped.actions] == [(s, str(a)) for s, a in plain.actions]
    assert wrapped.totals == plain.totals and wrapped.rounds == plain.rounds
