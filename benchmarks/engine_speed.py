"""Engine speed: turns, decisions and rounds per second with the public bots, in this process, on one core.

Each case plays whole games the way :func:`cabo_kit.play_game` does: every action checked,
and every decision made from ``game.observation(seat)`` exactly as a bot receives it (the loop
is :func:`cabo_kit.play.run_game`). Only the game record is not built, since a tournament's
cost of storing results is not the engine's. The random cases use ``FastRandomBot``
(benchmarks/fast_random_bot.py: the reference RandomBot's very moves, written for speed), so
that they time the engine; case (c) the reference GreedyBot.

A *turn* is one seat's turn, from choosing a source to its end (``RoundResult.turns``); a
*decision* is one applied action (snap-window passes and set-up looks included).

Rates are per second of this process's CPU time (``time.process_time``), so other work on a
shared machine does not lower them; the wall-clock ratio is printed too.

Run: ``.venv/bin/python benchmarks/engine_speed.py`` (``--seconds 3`` per case by default;
``--games N`` plays a fixed number of games instead; ``--profile CASE`` prints the top of a
cProfile of one case, e.g. ``--profile c``). To compare with another commit in one run, use
``benchmarks/engine_compare.py``.

Targets (from the issue): (a) >= 30,000 turns/s, aim 100,000; (c) >= 20,000 turns/s, aim 57,000.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Callable

import cabo_kit as ck
from cabo_kit.play import bot_random, run_game
from fast_random_bot import FastRandomBot


@dataclass(frozen=True)
class Case:
    key: str
    label: str
    preset: str
    bots: Callable[[], list[ck.Bot]]


CASES = [
    Case("a", "2 RandomBots, deluxe", "deluxe", lambda: [FastRandomBot() for _ in range(2)]),
    Case("b1", "4 RandomBots, deluxe", "deluxe", lambda: [FastRandomBot() for _ in range(4)]),
    Case("b2", "4 RandomBots, rush", "rush", lambda: [FastRandomBot() for _ in range(4)]),
    Case("b3", "4 RandomBots, traveller", "traveller", lambda: [FastRandomBot() for _ in range(4)]),
    Case("c", "4 GreedyBots, deluxe", "deluxe", lambda: [ck.bots.GreedyBot() for _ in range(4)]),
]
TARGETS = {"a": (30_000, 100_000), "c": (20_000, 57_000)}


@dataclass
class Figures:
    games: int = 0
    rounds: int = 0
    turns: int = 0
    decisions: int = 0
    seconds: float = 0.0  # CPU time of this process: other work on a shared machine does not count
    wall: float = 0.0


def play_one(case: Case, seed: int, figures: Figures) -> None:
    """Play one game of ``case`` as play_game does (minus the record) and add its counts to ``figures``."""
    rules = ck.Rules.preset(case.preset)
    bots = case.bots()
    n = len(bots)
    start, start_wall = time.process_time(), time.perf_counter()
    game = ck.Game(rules, seed, n)
    for seat, bot in enumerate(bots):
        bot.random = bot_random(seed, seat)
        bot.on_game_start(seat, n, rules)
    run_game(game, bots, [b.name for b in bots])
    figures.seconds += time.process_time() - start
    figures.wall += time.perf_counter() - start_wall
    figures.games += 1
    figures.rounds += len(game.results)
    figures.turns += sum(r.turns for r in game.results)
    figures.decisions += len(game.history)


def run_case(case: Case, seconds: float, games: int | None) -> Figures:
    figures = Figures()
    seed = 0
    play_one(case, 10_000_000, Figures())  # warm the caches (action tables, interned objects)
    while (figures.games < games) if games is not None else (figures.seconds < seconds):
        play_one(case, seed, figures)
        seed += 1
    return figures


def import_time(repeats: int = 5) -> tuple[float, float, list[str]]:
    """``import cabo_kit`` in fresh interpreters: its best CPU time with bytecode cached, the bare
    interpreter's start-up (wall time) for comparison, and any heavy modules the import loaded.

    The bytecode goes to a temporary ``PYTHONPYCACHEPREFIX`` (some shells set
    ``PYTHONDONTWRITEBYTECODE``, which would time the compiler instead of the import).
    """
    import os
    import tempfile

    code = (
        "import time, sys; c = time.process_time(); import cabo_kit; d = time.process_time() - c; "
        "heavy = [m for m in ('numpy', 'pandas', 'plotly', 'ipywidgets', 'tqdm') if m in sys.modules]; "
        "print(d, ','.join(heavy))"
    )
    best, bare = float("inf"), float("inf")
    heavy: list[str] = []
    with tempfile.TemporaryDirectory() as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        subprocess.run([sys.executable, "-c", "import cabo_kit"], env=env, check=True)  # fill the cache
        for _ in range(repeats):
            out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
            words = out.stdout.split()
            best = min(best, float(words[0]))
            heavy = words[1].split(",") if len(words) > 1 else []
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
            bare = min(bare, time.perf_counter() - start)
    return best, bare, heavy


def profile(case: Case, seconds: float) -> None:
    import cProfile
    import pstats

    prof = cProfile.Profile()
    prof.enable()
    figures = run_case(case, seconds, None)
    prof.disable()
    print(f"profile of {case.label}: {figures.games} games, {figures.turns} turns (times inflated by the profiler)")
    pstats.Stats(prof).sort_stats("tottime").print_stats(25)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time to spend on each case (default 3)")
    parser.add_argument("--games", type=int, default=None, help="play this many games per case instead")
    parser.add_argument("--cases", default=",".join(c.key for c in CASES), help="which cases, e.g. a,c")
    parser.add_argument("--profile", metavar="CASE", help="print a cProfile of one case instead")
    parser.add_argument("--json", action="store_true", help="print only a line of JSON: the figures by case")
    args = parser.parse_args(argv)
    by_key = {c.key: c for c in CASES}
    if args.profile:
        if args.profile not in by_key:
            parser.error(f"unknown case {args.profile!r}: choose one of {', '.join(by_key)}")
        profile(by_key[args.profile], args.seconds)
        return 0
    wanted = [k.strip() for k in args.cases.split(",") if k.strip()]
    unknown = [k for k in wanted if k not in by_key]
    if unknown:
        parser.error(f"unknown case {unknown[0]!r}: choose from {', '.join(by_key)}")
    if args.json:  # for benchmarks/engine_compare.py
        out = {}
        for key in wanted:
            f = run_case(by_key[key], args.seconds, args.games)
            out[key] = {"turns_per_s": f.turns / f.seconds, "games": f.games, "turns": f.turns, "seconds": f.seconds}
        print(json.dumps(out))
        return 0

    print(f"cabo-kit {ck.__version__} engine speed: Python {platform.python_version()} "
          f"({platform.python_implementation()}), {platform.machine()}, one core, checked apply()")
    seconds, bare, heavy = import_time()
    print(f"import cabo_kit: {seconds * 1000:.1f} ms CPU time (best of 5 fresh interpreters, bytecode cached; "
          f"starting a bare interpreter takes {bare * 1000:.0f} ms); heavy modules loaded: {', '.join(heavy) or 'none'}")
    print()
    header = f"{'case':<4} {'what':<26} {'games':>6} {'rounds':>7} {'turns/s':>9} {'decisions/s':>12} {'rounds/s':>9} {'turns/round':>12}  target"
    print(header)
    print("-" * len(header))
    failed = False
    walls: list[float] = []
    for key in wanted:
        case = by_key[key]
        f = run_case(case, args.seconds, args.games)
        walls.append(f.wall / f.seconds)
        tps = f.turns / f.seconds
        target = ""
        if key in TARGETS:
            must, aim = TARGETS[key]
            verdict = "met aim" if tps >= aim else ("met must" if tps >= must else "BELOW must")
            failed |= tps < must
            target = f"must {must:,}, aim {aim:,}: {verdict}"
        print(
            f"{key:<4} {case.label:<26} {f.games:>6} {f.rounds:>7} {tps:>9,.0f} {f.decisions / f.seconds:>12,.0f} "
            f"{f.rounds / f.seconds:>9,.0f} {f.turns / f.rounds:>12.1f}  {target}",
            flush=True,
        )
    print()
    print(f"Rates use this process's CPU time; wall-clock time was {min(walls):.2f}x to {max(walls):.2f}x that "
          "(above 1.0: other processes shared the core).")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
