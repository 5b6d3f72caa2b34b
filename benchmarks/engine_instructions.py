"""Engine cost in machine instructions per turn: a figure that other jobs on a shared machine do not move.

Plays ``GAMES`` games of one ``benchmarks/engine_speed.py`` case the way ``play_game`` does (public
bots, checked ``apply``, observations as bots receive them). Run it under valgrind twice, with the
game count and with 0 (interpreter start and imports), and divide the difference by the turns::

    valgrind --tool=callgrind --callgrind-out-file=/dev/null .venv/bin/python benchmarks/engine_instructions.py a 20
    valgrind --tool=callgrind --callgrind-out-file=/dev/null .venv/bin/python benchmarks/engine_instructions.py a 0

``Collected : N`` on each run's last lines; the script prints the turns to stderr. Import
``cabo_kit`` once before the first run, so that both runs find compiled bytecode. On this
machine one instruction takes about 0.3 ns on an idle core (case a: ~98,000 instructions per turn ~ 31 us).
Use it to compare two versions of the engine when the machine is busy; ``engine_speed.py`` gives
the rates to report.
"""

from __future__ import annotations

import sys

import cabo_kit as ck
from cabo_kit.play import bot_random, run_game
from fast_random_bot import FastRandomBot

CASES = {
    "a": ("deluxe", 2, FastRandomBot),
    "b1": ("deluxe", 4, FastRandomBot),
    "b2": ("rush", 4, FastRandomBot),
    "b3": ("traveller", 4, FastRandomBot),
    "c": ("deluxe", 4, ck.bots.GreedyBot),
}


def play(case: str, seed: int) -> int:
    """One game of ``case``; returns its turns."""
    preset, n, kind = CASES[case]
    rules = ck.Rules.preset(preset)
    bots = [kind() for _ in range(n)]
    game = ck.Game(rules, seed, n)
    for seat, bot in enumerate(bots):
        bot.random = bot_random(seed, seat)
        bot.on_game_start(seat, n, rules)
    run_game(game, bots, [b.name for b in bots])
    return sum(r.turns for r in game.results)


def main() -> None:
    case, games = sys.argv[1], int(sys.argv[2])
    # Warm the caches, so that a short run counts no one-time costs: the tables of multi-exchanges the
    # engine builds the first time a hand reaches a size (up to 10 cards: ~1,000 actions), and the rest.
    for size in range(2, 11):
        ck.LegalActions((), size)[0]
    for seed in range(10_000_000, 10_000_020):
        play(case, seed)
    turns = sum(play(case, seed) for seed in range(games))
    print(f"case {case}: {games} games, {turns} turns", file=sys.stderr)


if __name__ == "__main__":
    main()
