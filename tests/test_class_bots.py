"""The simulated class of tests/class_bots/ has the styles it claims (played in process: fast, seeded)."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

import pytest

import cabo_kit as ck

FOLDER = Path(__file__).resolve().parent / "class_bots"
FILES = sorted(p for p in FOLDER.glob("*.py") if p.name != "conftest.py")
PRESETS = ("deluxe", "rush", "traveller")


def bot_class(name: str) -> type[ck.Bot]:
    path = FOLDER / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"class_bots_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    own = [v for v in vars(module).values()
           if isinstance(v, type) and issubclass(v, ck.Bot) and v.__module__ == module.__name__]
    assert len(own) == 1, f"{path.name} should define exactly one Bot class of its own, as a submission must"
    return own[0]


def outcomes(cls: type[ck.Bot], games: int) -> Counter[str]:
    """How ``cls`` in seat 0 against three GreedyBots ends, over seeded games of every preset: "ok" or the exception."""
    seen: Counter[str] = Counter()
    for preset in PRESETS:
        for seed in range(games):
            try:
                ck.play_game([cls(), ck.bots.GreedyBot(), ck.bots.GreedyBot(), ck.bots.GreedyBot()],
                             ck.Rules.preset(preset), seed=seed)
                seen["ok"] += 1
            except Exception as exc:  # the faults are what is counted
                seen[type(exc).__name__] += 1
    return seen


def totals(cls: type[ck.Bot], games: int) -> list[list[int]]:
    return [ck.play_game([cls(), ck.bots.GreedyBot(), ck.bots.RandomBot(), ck.bots.GreedyBot()],
                         ck.Rules.preset(preset), seed=seed).totals
            for preset in PRESETS for seed in range(games)]


def test_twelve_submissions_each_one_bot_class() -> None:
    assert len(FILES) == 12
    for path in FILES:
        bot_class(path.stem)


@pytest.mark.parametrize("name", ["good", "own_greedy", "naive_low", "naive_first", "naive_cabo", "careful", "chatty"])
def test_the_plain_styles_never_fault(name: str) -> None:
    assert outcomes(bot_class(name), 10) == Counter(ok=30)


def test_rare_crash_crashes_in_a_few_games_only() -> None:
    seen = outcomes(bot_class("rare_crash"), 50)
    assert set(seen) == {"ok", "ValueError"}
    assert 1 <= seen["ValueError"] <= 15, seen  # about 3% of 150 games


def test_sometimes_illegal_is_illegal_now_and_then() -> None:
    seen = outcomes(bot_class("sometimes_illegal"), 30)
    assert set(seen) == {"ok", "IllegalActionError"}
    assert seen["IllegalActionError"] <= 30, seen  # occasional: most games are clean


def test_the_copies_play_as_their_originals() -> None:
    assert totals(bot_class("copy_of_good"), 4) == totals(bot_class("good"), 4)
    assert totals(bot_class("counting_renamed"), 4) == totals(ck.bots.CountingBot, 4)
    assert totals(bot_class("good"), 4) != totals(ck.bots.GreedyBot, 4)  # and the original is not GreedyBot
