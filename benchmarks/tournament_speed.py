"""Tournament speed: a class of 30 submitted files, isolated, adaptive until every two-sided Elo interval is within +-50.

The class: 10 copies each of the random, greedy and counting bots, written as one-file
submissions in a temporary tournament folder; 4-player tables; the three presets. The run is
one ``run_tournament(folder, precision=50)``: ``--games`` balanced games per bot and preset
(seeding), then adaptive batches (docs/tournaments.md, "Adaptive runs") until every two-sided
95% interval is within +-50 Elo; the random copies, which almost never beat the others, get a
one-sided bound and are not waited on (issue 11).

Prints: games played, wall minutes (must be under 15, aim under 5), games/s, the CPU per
isolated game (engine + bot processes + harness server, measured on GreedyBot games played as
the runner plays them) and the time isolation adds per decision, the speedup of a fixed
tournament from 1 to 2 workers, and what a plain round-robin needs for the same precision.

Its measured figures are in docs/performance.md, "Isolated games and tournaments".

Run: ``.venv/bin/python benchmarks/tournament_speed.py`` (``--games 32`` seeding games per bot,
``--until 50``, ``--skip-class`` for the small figures only, ``--presets deluxe`` for a smaller
class).

The round-robin figure is measured in process, not here (it needs tens of thousands of games):
``benchmarks/elo_precision.py`` plays the same class on the balanced schedule with the reference
bots trusted (the results an isolated run would store) and rates growing prefixes with the
leaderboard's own ratings; :data:`ROUND_ROBIN_FOR_50` is its result.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import cabo_kit as ck
from cabo_kit.tournament.executors import default_workers
from cabo_kit.tournament.isolation import IsolatedBot, Limits, load_submission
from cabo_kit.results.ratings import fit_elo, half_width
from cabo_kit.tournament.runner import run_tournament
from cabo_kit.tournament.store import load_frames

ROUND_ROBIN_FOR_50 = 4_320
"""Games a plain round-robin (the balanced schedule) of this class needs until every two-sided interval is
within +-50 with the field-centred ratings: 192 games per bot and preset (the first whole round at which
each preset's widest two-sided interval is within +-50), 1,440 games per preset
(``benchmarks/elo_precision.py --rounds 20 --steps 64 96 128 160 192 224 256 320``, 2026-11-25; docs/performance.md,
"How many games for ±50")."""

KINDS = {"random": "RandomBot", "greedy": "GreedyBot", "counting": "CountingBot"}


def bot_source(kind: str) -> str:
    cls = KINDS[kind]
    module = "cabo_kit.bots"
    if cls == "CountingBot" and not hasattr(ck.bots, "CountingBot"):
        module = "cabo_kit.bots.counting"  # not exported yet by cabo_kit.bots
    return f"from {module} import {cls}\n\n\nclass Submitted({cls}):\n    pass\n"


def make_class(folder: Path, copies: int, games: int, presets: list[str]) -> None:
    (folder / "bots").mkdir(parents=True, exist_ok=True)
    for kind in KINDS:
        for i in range(copies):
            (folder / "bots" / f"{kind}_{i:02d}.py").write_text(bot_source(kind) + f"# copy {i}\n")
    (folder / "tournament.toml").write_text(
        f"presets = {presets!r}\ntable_sizes = [4]\ngames = {games}\nseed = 1\nreference = []\n".replace("'", '"'))


def widest(folder: Path) -> tuple[float, int]:
    """The widest two-sided half-width of the leaderboard, and how many bots have a one-sided bound."""
    board = fit_elo(load_frames(folder)[1])
    hw = half_width(board)
    return float(hw.max()), int(hw.isna().sum())


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far, from /proc (Linux; 0.0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def isolation_cost(games: int, preset: str = "deluxe") -> dict[str, float]:
    """What isolation costs in 4-player GreedyBot games played as the runner plays them (every seat isolated,
    processes prestarted side by side, one fresh process per bot and game), against the same games in process.

    Wall seconds per decision (``added``: excluding the time to the bots' ``ready``; ``with_starts``: all of it),
    and CPU seconds per game of the engine process, the bot processes (their starts included) and the harness server.
    """
    from cabo_kit.play import bot_random
    from cabo_kit.tournament import isolation
    from cabo_kit.tournament.runner import play_one

    tmp = Path(tempfile.mkdtemp(prefix="cabo-iso-"))
    path = tmp / "greedy_sub.py"
    path.write_text(bot_source("greedy"))
    sub = load_submission(path)
    rules = ck.Rules.preset(preset)
    decisions = 0
    local_calls: list[float] = []
    iso_calls: list[float] = []
    c0, t0 = time.process_time(), time.perf_counter()
    for g in range(games):
        local = [timed_choose(ck.bots.GreedyBot(), local_calls) for _ in range(4)]
        decisions += len(ck.play_game(local, rules, seed=g).actions)
    inproc, inproc_cpu = time.perf_counter() - t0, time.process_time() - c0
    bots = [timed_choose(IsolatedBot(sub, Limits()), iso_calls) for _ in range(4)]
    bot_cpu = [0.0]
    close = isolation._Harness.close

    def counting_close(self: "isolation._Harness", reap: bool = True) -> None:
        if not self.closed:
            bot_cpu[0] += proc_cpu(self.proc.pid)
        close(self, reap)

    starts = [0.0]
    for b in bots:  # time the wait for the bots' ready (in on_game_start) apart from the decisions
        def timed(*a: object, _orig=b.on_game_start) -> None:
            s0 = time.perf_counter()
            _orig(*a)
            starts[0] += time.perf_counter() - s0
        b.on_game_start = timed  # type: ignore[method-assign, assignment]
    isolation._Harness.close = counting_close  # type: ignore[method-assign]
    try:
        bots[0].prestart()  # the harness server starts once per engine process: not counted
        bots[0].close()
        server = isolation._the_server
        s0 = proc_cpu(server.proc.pid) if server is not None else 0.0
        bot_cpu[0] = 0.0
        c0, t0 = time.process_time(), time.perf_counter()
        for g in range(games):
            game = ck.Game(rules, g, 4)
            for seat, b in enumerate(bots):
                b.random = bot_random(g, seat)
            for b in bots:
                b.prestart()
            fault = play_one(game, bots, [b.name for b in bots])
            assert fault[0] is None, fault
        for b in bots:
            b.close()
        isolated, isolated_cpu = time.perf_counter() - t0, time.process_time() - c0
        server_cpu = (proc_cpu(server.proc.pid) - s0) if server is not None else 0.0
    finally:
        isolation._Harness.close = close  # type: ignore[method-assign]
    shutil.rmtree(tmp, ignore_errors=True)
    return {
        "call_median": statistics.median(iso_calls) - statistics.median(local_calls),
        "call_mean": statistics.fmean(iso_calls) - statistics.fmean(local_calls),
        "added": (isolated - starts[0] - inproc) / decisions, "with_starts": (isolated - inproc) / decisions,
        "decisions": decisions, "engine_cpu": isolated_cpu / games, "inproc_cpu": inproc_cpu / games,
        "bot_cpu": bot_cpu[0] / games, "server_cpu": server_cpu / games,
    }


def timed_choose(bot: ck.Bot, times: list[float]) -> ck.Bot:
    """``bot`` with each ``choose`` call's wall time appended to ``times``."""
    inner = bot.choose

    def choose(observation, legal_actions):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        action = inner(observation, legal_actions)
        times.append(time.perf_counter() - t0)
        return action

    bot.choose = choose  # type: ignore[method-assign]
    return bot


def cpu_reference() -> float:
    """Median microseconds of sum(range(1000)): about 8-10 on an idle core; higher means a busy machine."""
    times = []
    for _ in range(300):
        t0 = time.perf_counter()
        sum(range(1000))
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def ping_us(n: int = 2000) -> float:
    """Median round trip of an empty request to an isolated bot: the channel's floor."""
    tmp = Path(tempfile.mkdtemp(prefix="cabo-ping-"))
    path = tmp / "ping_sub.py"
    path.write_text(bot_source("random"))
    bot = IsolatedBot(load_submission(path), Limits())
    bot.on_game_start(0, 4, ck.Rules.preset("deluxe"))
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        bot._call({"o": "p"}, "ping")
        times.append(time.perf_counter() - t0)
    bot.close()
    shutil.rmtree(tmp, ignore_errors=True)
    return statistics.median(times) * 1e6


def timed_run(folder: Path, workers: int) -> float:
    t0 = time.perf_counter()
    run_tournament(folder, workers=workers, progress=False, out=None)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=32, help="balanced (seeding) games per bot and preset")
    ap.add_argument("--until", type=float, default=50.0, help="the precision: every two-sided interval within +-UNTIL")
    ap.add_argument("--max-games", type=int, default=2000, help="the adaptive game budget per bot and preset")
    ap.add_argument("--skip-class", action="store_true", help="only the per-decision cost and the speedup")
    ap.add_argument("--iso-games", type=int, default=16, help="games for the per-decision and per-game CPU figures")
    ap.add_argument("--presets", nargs="+", default=["deluxe", "rush", "traveller"], choices=["deluxe", "rush", "traveller"],
                    help="the class's presets (the issue's benchmark: all three)")
    args = ap.parse_args()
    print(f"cores usable: {default_workers()}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} "
          f"(the machine is shared: figures are wall times); CPU reference sum(range(1000)) {cpu_reference():.1f} us")

    cost = isolation_cost(args.iso_games)
    added = cost["call_median"] * 1e6
    print(f"isolation adds {added:.0f} us per decision (target < 100 us: {'met' if added < 100 else 'NOT met'}): the "
          f"median isolated choose() call minus the median in-process one, over {cost['decisions']:.0f} decisions of "
          f"4-player deluxe GreedyBot games played as the runner plays them (all 4 seats isolated); mean "
          f"{cost['call_mean'] * 1e6:.0f} us. Whole games, wall time over decisions, with the runner's per-game handling "
          f"(hooks, stopping each game's 4 processes): {cost['added'] * 1e6:.0f} us ({cost['with_starts'] * 1e6:.0f} us "
          f"counting the wait for each bot's fresh process); bare pipe ping {ping_us():.0f} us (the floor)")
    # Exact CPU (getrusage of the engine, the harness server and every ended bot process), played on one core as
    # a pool worker plays (benchmarks/isolation_overhead.py; /proc ticks of 10 ms read each bot process as 0).
    from isolation_overhead import cpu_per_game

    cpu = cpu_per_game(args.iso_games)
    print(f"CPU per isolated game (what bounds a tournament's games/s; must <= 45 ms): {cpu['total'] * 1e3:.1f} ms "
          f"({'met' if cpu['total'] <= 0.045 else 'NOT met'}) = engine {cpu['engine'] * 1e3:.1f} + bot processes "
          f"{cpu['bots'] * 1e3:.1f} (their whole lives) + harness server {cpu['server'] * 1e3:.1f}, 4-player deluxe "
          f"GreedyBot games, every seat isolated, on one core as a pool worker; the same game in process: "
          f"{cpu['inproc'] * 1e3:.1f} ms")

    root = Path(tempfile.mkdtemp(prefix="cabo-speed-"))
    try:
        one, two = root / "w1", root / "w2"
        for f in (one, two):
            make_class(f, 2, 8, ["rush"])
        t1, t2 = timed_run(one, 1), timed_run(two, 2)
        games = len(load_frames(one)[0])
        print(f"speedup 1 -> 2 workers: {t1:.1f} s -> {t2:.1f} s = {t1 / t2:.2f}x ({games} isolated games, 6 bots)")

        if args.skip_class:
            return
        folder = root / "class"
        make_class(folder, 10, args.games, args.presets)
        started = time.perf_counter()
        summary = run_tournament(folder, games=args.games, precision=args.until, max_games=args.max_games,
                                 progress=True, out=print)
        elapsed = time.perf_counter() - started
        hw, one_sided = widest(folder)
        n_games = summary.played
        rate = n_games / elapsed
        verdict = "met" if elapsed < 15 * 60 else "NOT met"
        print(f"class of 30 files, presets {' '.join(args.presets)}, 4-player tables, isolated, {args.games} seeding games "
              f"per bot, adaptive until +-{args.until:g}: {n_games} games in {elapsed:.0f} s = {elapsed / 60:.1f} min "
              f"(target < 15 min: {verdict}; aim < 5), {rate:.1f} games/s (load average now "
              f"{os.getloadavg()[0]:.2f}); widest two-sided interval +-{hw:.0f} Elo, {one_sided} one-sided bounds "
              f"(the random copies: 'below X'); CPU per isolated game: the figure above")
        if ROUND_ROBIN_FOR_50 and len(args.presets) == 3 and args.until == 50:
            print(f"a plain round-robin needs ~{ROUND_ROBIN_FOR_50:,} games for the same precision "
                  f"(benchmarks/elo_precision.py, in process): {ROUND_ROBIN_FOR_50 / max(n_games, 1):.1f}x the adaptive "
                  f"run's games, ~{ROUND_ROBIN_FOR_50 / rate / 60:.0f} min at this rate")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
