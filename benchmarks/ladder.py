"""The bot ladder's evidence: each rung against the one below, and against RandomBot.

Bots are built exactly as ``cabo_kit.bots.by_level(level)`` returns them. A match is
played in 4-player games, two seats per side, alternating (A B A B), and every deal is
played twice with the seats rotated (B A B A), so both sides get the same cards. A side
wins a game when one of its seats wins it; a shared win between the sides counts half.
Win rates come with a 95% Wilson interval.

Run (figures recorded in docs/bots.md)::

    .venv/bin/python benchmarks/ladder.py --games 700 --search-games 400 --random-games 100 --procs 2

Level 4 against level 3 alone (issue 12: 1,000 games per preset on deals fixed before looking;
seed 100000 was the previous level 4's match, 200000 the current one's), and the CPU time of
level 4's decisions::

    .venv/bin/python benchmarks/ladder.py --pairs 4-3 --search-games 1000 --random-games 2 --procs 2 --seed 200000
    .venv/bin/python benchmarks/ladder.py --timing --seed 100000

``--kept deals.jsonl`` keeps each finished deal, so a stopped match resumes where it was.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from multiprocessing import Pool
from typing import Sequence

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


def match(pool: Pool, a: int, b: int, preset: str, games: int, seed0: int,
          kept: Path | None = None) -> dict[str, float]:
    """Play ``games`` games (``games // 2`` deals twice) of level ``a`` against ``b``.

    With ``kept``, each deal's result is appended to that JSON-lines file as it finishes and
    deals already in it are not played again, so a long match stopped part-way resumes (every
    deal is seeded on its own: the totals do not depend on the order or on the stops).
    """
    deals = max(1, games // 2)
    wanted = [(a, b, preset, seed0 + i) for i in range(deals)]
    done: dict[tuple[int, int, str, int], tuple[float, int]] = {}
    if kept is not None and kept.exists():
        for line in kept.read_text().splitlines():
            row = json.loads(line)
            done[(row["a"], row["b"], row["preset"], row["seed"])] = (row["wins"], row["turns"])
    todo = [deal for deal in wanted if deal not in done]
    start = time.perf_counter()
    for deal, result in zip(todo, pool.imap(deal_pair, todo, chunksize=1)):
        done[deal] = result
        if kept is not None:
            with kept.open("a") as f:
                a_, b_, preset_, seed_ = deal
                f.write(json.dumps({"a": a_, "b": b_, "preset": preset_, "seed": seed_,
                                    "wins": result[0], "turns": result[1]}) + "\n")
    elapsed = max(time.perf_counter() - start, 1e-9)
    results = [done[deal] for deal in wanted]
    n = 2 * deals
    wins = sum(w for w, _ in results)
    low, high = wilson(wins, n)
    played = 2 * len(todo)  # the rates of this sitting only
    return {"games": n, "rate": wins / n, "low": low, "high": high, "gps": played / elapsed,
            "turns": sum(done[deal][1] for deal in todo) / elapsed}


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
    parser.add_argument("--pairs", default="2-1,3-2,4-3", help="ladder pairs to play, e.g. 4-3")
    parser.add_argument("--kept", type=Path, default=None,
                        help="a JSON-lines file of finished deals: appended to, and deals in it are not played again")
    parser.add_argument("--timing", action="store_true",
                        help="only time the level-4 bot's decisions (CPU ms, median and p95) per preset and table size")
    args = parser.parse_args()
    presets = args.presets.split(",")
    if args.timing:
        for preset in presets:
            timing(preset, args.seed)
        return
    pairs = [tuple(int(k) for k in pair.split("-")) for pair in args.pairs.split(",") if pair]
    rows = []
    with Pool(args.procs) as pool:
        for a, b in pairs:
            for preset in presets:
                games = args.search_games if a == 4 else args.games
                rows.append(("ladder", a, b, preset, match(pool, a, b, preset, games, args.seed, args.kept)))
                print(fmt(rows[-1]), flush=True)
        for a in (3, 4):
            for preset in presets:
                rows.append(("vs random", a, 1, preset, match(pool, a, 1, preset, args.random_games, args.seed + 10**6, args.kept)))
                print(fmt(rows[-1]), flush=True)
    print()
    print("| match | preset | games | win rate | 95% interval | beats? | games/s | turns/s |")
    print("| --- | --- | ---: | ---: | --- | --- | ---: | ---: |")
    for row in rows:
        print(fmt(row, markdown=True))


class Timed(ck.Bot):
    """Wraps a bot and keeps the CPU time of each of its decisions."""

    def __init__(self, bot: ck.Bot, times: list[float]) -> None:
        super().__init__()
        self.bot, self.times = bot, times

    def on_game_start(self, seat: int, n_players: int, rules: ck.Rules) -> None:
        self.bot.random = self.random
        self.bot.on_game_start(seat, n_players, rules)

    def choose(self, observation: ck.Observation, legal_actions: Sequence[ck.Action]) -> ck.Action:
        start = time.process_time()
        action = self.bot.choose(observation, legal_actions)
        self.times.append(time.process_time() - start)
        return action


def timing(preset: str, seed: int, games: int = 4) -> None:
    """CPU ms per decision of ``by_level(4)``, half the seats (the others level 3), at every table size."""
    rules = ck.Rules.preset(preset)
    every: list[float] = []
    for n in range(rules.min_players, rules.max_players + 1):
        times: list[float] = []
        for g in range(games):
            bots = [Timed(by_level(4), times) if s % 2 == 0 else by_level(3) for s in range(n)]
            ck.play_game(bots, rules, seed=seed + g)
        every += times
        print(f"{preset} {n} players: {describe(times)}", flush=True)
    print(f"{preset} all sizes: {describe(every)}", flush=True)


def describe(times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    return (f"{len(ms)} decisions, median {ms[len(ms) // 2]:.2f} ms, p95 {ms[int(len(ms) * 0.95)]:.1f} ms, "
            f"p99 {ms[int(len(ms) * 0.99)]:.1f} ms, max {ms[-1]:.1f} ms, mean {sum(ms) / len(ms):.2f} ms")


def fmt(row: tuple[str, int, int, str, dict[str, float]], markdown: bool = False) -> str:
    kind, a, b, preset, r = row
    verdict = "yes" if r["low"] > 0.5 else ("no" if r["high"] < 0.5 else "not shown")
    cells = [f"{name(a)} vs {name(b)}", preset, f"{r['games']:.0f}", f"{r['rate']:.1%}",
             f"{r['low']:.1%} to {r['high']:.1%}", verdict, f"{r['gps']:.1f}", f"{r['turns']:.0f}"]
    return "| " + " | ".join(cells) + " |" if markdown else "  ".join(cells)


if __name__ == "__main__":
    main()
