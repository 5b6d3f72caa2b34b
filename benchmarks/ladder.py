"""The bot ladder's evidence: each rung against the one below, and against RandomBot.

Bots are built exactly as ``cabo_kit.bots.by_level(level)`` returns them. A match is
played in 4-player games, two seats per side, alternating (A B A B), and every deal is
played twice with the seats rotated (B A B A), so both sides get the same cards. A side
wins a game when one of its seats wins it; a shared win between the sides counts half.
Win rates come with a 95% Wilson interval.

Run (figures recorded in docs/bots.md)::

    .venv/bin/python benchmarks/ladder.py --games 700 --search-games 400 --random-games 100 --procs 2
"""

from __future__ import annotations

import argparse
import math
import time
from multiprocessing import Pool

import cabo_kit as ck
from cabo_kit.bots import LEVELS, by_level

PRESETS = ("deluxe", "rush", "traveller")


def deal_pair(args: tuple[int, int, str, int]) -> tuple[float, int]:
    """Play one deal twice (A B A B, then B A B A); A's wins (out of 2) and the turns played."""
    a, b, preset, seed = args
    rules = ck.Rules.preset(preset)
    wins, turns = 0.0, 0
    for seats in ((a, b, a, b), (b, a, b, a)):
        record = ck.play_game([by_level(level) for level in seats], rules, seed=seed)
        ours = [s for s in record.winners if seats[s] == a]
        wins += len(ours) / len(record.winners)
        turns += sum(r.turns for r in record.rounds)
    return wins, turns


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate.

    >>> [round(x, 3) for x in wilson(60, 100)]
    [0.502, 0.691]
    """
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def match(pool: Pool, a: int, b: int, preset: str, games: int, seed0: int) -> dict[str, float]:
    deals = max(1, games // 2)
    start = time.perf_counter()
    results = pool.map(deal_pair, [(a, b, preset, seed0 + i) for i in range(deals)], chunksize=4)
    elapsed = time.perf_counter() - start
    n = 2 * deals
    wins = sum(w for w, _ in results)
    low, high = wilson(wins, n)
    return {"games": n, "rate": wins / n, "low": low, "high": high, "gps": n / elapsed,
            "turns": sum(t for _, t in results) / elapsed}


def name(level: int) -> str:
    return LEVELS[level][1].__name__


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200, help="games per preset for the lower pairs")
    parser.add_argument("--search-games", type=int, default=40, help="games per preset for the search pair")
    parser.add_argument("--random-games", type=int, default=100, help="games per preset against RandomBot")
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--presets", default=",".join(PRESETS))
    args = parser.parse_args()
    presets = args.presets.split(",")
    rows = []
    with Pool(args.procs) as pool:
        for a, b in ((2, 1), (3, 2), (4, 3)):
            for preset in presets:
                games = args.search_games if a == 4 else args.games
                rows.append(("ladder", a, b, preset, match(pool, a, b, preset, games, args.seed)))
                print(fmt(rows[-1]), flush=True)
        for a in (3, 4):
            for preset in presets:
                rows.append(("vs random", a, 1, preset, match(pool, a, 1, preset, args.random_games, args.seed + 10**6)))
                print(fmt(rows[-1]), flush=True)
    print()
    print("| match | preset | games | win rate | 95% interval | beats? | games/s | turns/s |")
    print("| --- | --- | ---: | ---: | --- | --- | ---: | ---: |")
    for row in rows:
        print(fmt(row, markdown=True))


def fmt(row: tuple[str, int, int, str, dict[str, float]], markdown: bool = False) -> str:
    kind, a, b, preset, r = row
    verdict = "yes" if r["low"] > 0.5 else ("no" if r["high"] < 0.5 else "not shown")
    cells = [f"{name(a)} vs {name(b)}", preset, f"{r['games']:.0f}", f"{r['rate']:.1%}",
             f"{r['low']:.1%} to {r['high']:.1%}", verdict, f"{r['gps']:.1f}", f"{r['turns']:.0f}"]
    return "| " + " | ".join(cells) + " |" if markdown else "  ".join(cells)


if __name__ == "__main__":
    main()
