"""The engine keeps its private names to itself, and the reference RandomBot is written plainly.

ARCHITECTURE: the engine (cards, rules, actions, knowledge, game, observation, scoring, record)
is used through its public names only: the bot layer, the game loop, the card table and the
tournament never reach for an engine-private name (one starting with ``_``).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import cabo_kit as ck

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "cabo_kit"
ENGINE = ("cards", "rules", "actions", "knowledge", "game", "observation", "scoring", "record")
OUTSIDE = sorted(p for p in PACKAGE.rglob("*.py") if p.stem not in ENGINE or p.parent != PACKAGE)


def engine_private_names() -> set[str]:
    """Every private name the engine modules define: module names, attributes, slots, methods."""
    names: set[str] = set()
    for stem in ENGINE:
        tree = ast.parse((PACKAGE / f"{stem}.py").read_text())
        for node in ast.walk(tree):
            found: list[str] = []
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                found.append(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                found.append(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                found.append(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
                found.append(node.value)  # slot names
            names.update(n for n in found if n.startswith("_") and not n.startswith("__"))
    return names


def violations(source: str) -> list[str]:
    """Where ``source`` imports an engine-private name or reads one off an object (``self``/``cls`` aside)."""
    private = engine_private_names()
    wrong: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            module = node.module.rsplit(".", 1)[-1]
            if module in ENGINE:
                wrong += [f"line {node.lineno}: imports {a.name} from {module}" for a in node.names if a.name.startswith("_")]
        elif isinstance(node, ast.Attribute) and node.attr in private:
            owner = node.value.id if isinstance(node.value, ast.Name) else None
            if owner not in ("self", "cls"):
                wrong.append(f"line {node.lineno}: reads .{node.attr}")
    return wrong


@pytest.mark.parametrize("path", OUTSIDE, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_engine_private_name_is_used_outside_the_engine(path: Path) -> None:
    wrong = violations(path.read_text())
    assert not wrong, f"{path.relative_to(ROOT)} uses engine-private names: " + "; ".join(wrong)


def test_the_check_finds_planted_private_names() -> None:
    planted = "from ..actions import _CABO, Pass\nfrom .game import Game\nx = game._legal\ny = self._legal\n"
    assert violations(planted) == ["line 1: imports _CABO from actions", "line 3: reads ._legal"]


@pytest.mark.parametrize("preset", ["deluxe", "rush", "traveller"])
def test_the_plain_random_bot_plays_what_the_benchmarks_fast_one_plays(preset: str) -> None:
    """The engine benchmarks time FastRandomBot (benchmarks/): it must make the reference RandomBot's very moves."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from fast_random_bot import FastRandomBot
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    rules = ck.Rules.preset(preset, min_players=2)
    for n in (2, 4, 6):
        for seed in range(6):
            plain = ck.play_game([ck.bots.RandomBot() for _ in range(n)], rules, seed=seed)
            fast = ck.play_game([FastRandomBot() for _ in range(n)], rules, seed=seed)
            assert plain.to_json() == fast.to_json(), f"{preset} n={n} seed={seed}"
