"""Are the 95% Elo intervals honest under the adaptive schedule? A simulation with known strengths.

Each run builds a class of 30 bots with known Elo, plays the tournament's own balanced schedule
(:func:`~cabo_kit.tournament.schedule.make_schedule`, ``--games`` per bot) and then the runner's
adaptive loop exactly as ``run_tournament`` does it (rate with
:func:`~cabo_kit.results.ratings.fit_elo`, plan the next batch with
:func:`~cabo_kit.tournament.schedule.adaptive_matches`, play it, until every two-sided interval is
within ``--target`` or the budget is reached), with every game a Plackett-Luce ranking drawn from
the true strengths (its pairwise marginals are exactly Bradley-Terry, so the truth is what
``fit_elo`` estimates; each deal's rotations are independent rankings: no seat luck). It then
counts how often the final intervals contain the truth, centred as the leaderboard centres it
(the mean of the field, i.e. of the bots with two-sided intervals, is 1000): two-sided intervals
must contain it, a one-sided bound ("below X") must lie on the right side of it.

Classes (``--class``):

- ``copies``: the speed benchmark's class, 10 random-like copies 0 Elo, 10 greedy-like at
  ``--gaps[0]``, 10 counting-like at ``--gaps[1]`` (deluxe-like: 960 and 1005; rush-like: 1400 1450);
- ``students``: 30 strengths drawn per run, like a real class: 24 spread around 1000
  (normal, sd 120), 4 weak ones far below (about -400 +- 100, barely winning) and 2 strong ones
  (1400 +- 50).

Run: ``nice -n 19 .venv/bin/python benchmarks/adaptive_coverage.py --runs 40`` (``--class students``,
``--target 50``, ``--games 32``).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd

from cabo_kit.results.ratings import ELO_SCALE, fit_elo, half_width, precision_needs
from cabo_kit.tournament.schedule import Match, adaptive_matches, make_schedule

TABLE = 4


def play(matches: list[Match], truth: dict[str, float], rng: np.random.Generator, first_index: int) -> pd.DataFrame:
    """Seats rows of ``matches`` (every rotation of each) with Plackett-Luce rankings from ``truth``."""
    names = [b for m in matches for b in m.lineup]
    strength = np.array([truth[b] / ELO_SCALE for b in names]).reshape(len(matches), TABLE)
    games = np.repeat(strength, TABLE, axis=0)
    keys = games + rng.gumbel(size=games.shape)
    ranks = np.argsort(np.argsort(-keys, axis=1), axis=1) + 1
    n_games = len(matches) * TABLE
    bots = np.repeat(np.array(names, dtype=object).reshape(len(matches), TABLE), TABLE, axis=0)
    deal = np.array([m.deal_key for m in matches], dtype=object)
    return pd.DataFrame({
        "game_id": np.repeat([f"{d}/{r}" for d in deal for r in range(TABLE)], TABLE),
        "deal_id": np.repeat(deal, TABLE * TABLE),
        "game_index": np.repeat(np.arange(first_index, first_index + n_games), TABLE),
        "preset": "sim", "seat": np.tile(np.arange(TABLE), n_games),
        "bot": bots.ravel(), "rank": ranks.ravel(), "win": (ranks.ravel() == 1).astype(float),
    })


def make_truth(kind: str, gaps: list[float], rng: np.random.Generator) -> dict[str, float]:
    if kind == "copies":
        return {f"{g}_{i:02d}": level for g, level in (("random", 0.0), ("greedy", gaps[0]), ("counting", gaps[1]))
                for i in range(10)}
    elos = np.r_[rng.normal(1000, 120, 24), rng.normal(-400, 100, 4), rng.normal(1400, 50, 2)]
    return {f"s{i:02d}": float(e) for i, e in enumerate(elos)}


def run_one(truth: dict[str, float], games: int, target: float, budget: int, seed: int) -> tuple[pd.DataFrame, int, int]:
    """One simulated adaptive tournament: the final board (with the truth), games played, batches."""
    rng = np.random.default_rng(seed)
    names = sorted(truth)
    seeding = make_schedule(names, "sim", "{}", TABLE, games, seed)
    seats = play(seeding, truth, rng, 0)
    batch = 0
    while True:
        board = fit_elo(seats, seed=0)
        hw = half_width(board)
        ratings = precision_needs(board, "sim")
        matches = adaptive_matches(ratings, "sim", "{}", TABLE, seed, batch + 1, target, budget)
        if not matches:
            break
        batch += 1
        seats = pd.concat([seats, play(matches, truth, rng, int(seats["game_index"].max()) + 1)], ignore_index=True)
    two = np.isfinite(board["elo_low"]) & np.isfinite(board["elo_high"])
    true = board["bot"].map(truth)
    board["truth"] = true - true[two].mean() + 1000.0
    board["half"] = hw
    return board, seats["game_id"].nunique(), batch


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=40, help="simulated tournaments")
    ap.add_argument("--class", dest="kind", choices=["copies", "students"], default="copies")
    ap.add_argument("--gaps", type=float, nargs=2, default=[960.0, 1005.0], metavar=("GREEDY", "COUNTING"))
    ap.add_argument("--games", type=int, default=32, help="games per bot in the balanced seeding phase")
    ap.add_argument("--target", type=float, default=50.0, help="the precision: every two-sided interval within +-target")
    ap.add_argument("--budget", type=int, default=2000, help="max_games per bot")
    args = ap.parse_args()
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; class {args.kind}"
          + (f" (gaps {args.gaps[0]:g} {args.gaps[1]:g})" if args.kind == "copies" else "")
          + f", 4-player tables, {args.games} seeding games per bot, adaptive until +-{args.target:g}, {args.runs} runs")
    rows = []
    played = []
    t0 = time.process_time()
    for run in range(args.runs):
        truth = make_truth(args.kind, args.gaps, np.random.default_rng(10_000 + run))
        board, n_games, batches = run_one(truth, args.games, args.target, args.budget, seed=run)
        played.append((n_games, batches, float(board["half"].max())))
        rows.append(board.assign(run=run))
    allb = pd.concat(rows, ignore_index=True)
    lo, hi, t = allb["elo_low"], allb["elo_high"], allb["truth"]
    two = np.isfinite(lo) & np.isfinite(hi)
    below = ~np.isfinite(lo) & np.isfinite(hi)
    above = np.isfinite(lo) & ~np.isfinite(hi)
    covered = (lo <= t) & (t <= hi)
    games = np.array([p[0] for p in played])
    print(f"games per run: mean {games.mean():.0f} (min {games.min()}, max {games.max()}); adaptive batches mean "
          f"{np.mean([p[1] for p in played]):.1f}; widest two-sided half-width at the end: mean "
          f"{np.mean([p[2] for p in played]):.1f}, max {max(p[2] for p in played):.1f}")
    print(f"two-sided intervals: {int(two.sum())}, coverage {covered[two].mean():.3f} (target >= 0.90); "
          f"mean half-width {allb.loc[two, 'half'].mean():.1f}; bias {(allb.loc[two, 'elo'] - t[two]).mean():+.1f}, "
          f"rmse {np.sqrt(((allb.loc[two, 'elo'] - t[two]) ** 2).mean()):.1f} (1.96 rmse "
          f"{1.96 * np.sqrt(((allb.loc[two, 'elo'] - t[two]) ** 2).mean()):.1f})")
    print(f"one-sided bounds: {int(below.sum())} 'below X', honest (truth <= X) in {(t[below] <= hi[below]).mean() if below.any() else float('nan'):.3f}; "
          f"{int(above.sum())} 'above X', honest in {(t[above] >= lo[above]).mean() if above.any() else float('nan'):.3f}")
    # Equal strengths (the copies) share their places: a rank interval is right if it meets the shared range.
    best = allb.groupby("run")["truth"].rank(ascending=False, method="min")
    worst = allb.groupby("run")["truth"].rank(ascending=False, method="max")
    ranks_ok = (allb["rank_low"] <= worst) & (best <= allb["rank_high"])
    print(f"rank intervals containing the true place (or meeting the places tied bots share): {ranks_ok.mean():.3f} "
          f"of {len(allb)}")
    print(f"CPU {time.process_time() - t0:.0f} s")


if __name__ == "__main__":
    main()
