"""How many games does "every bot's 95% Elo interval within +-50" need? Measured in-process, fast.

The class of ``benchmarks/tournament_speed.py`` (10 copies each of RandomBot, GreedyBot and
CountingBot under 30 distinct names, 4-player tables, the three presets), scheduled by the
project's own :func:`~cabo_kit.tournament.schedule.make_schedule` (seed 1, as the speed benchmark)
and played by the runner's own game function (:func:`~cabo_kit.tournament.runner.play_one`,
:func:`~cabo_kit.tournament.runner.final_ranking`, the deal seed and seat rotations of
``run_match``), but with the reference bots trusted in this process: the results are the ones an
isolated run would store, at a fraction of the time. The games are cached (``--cache``), so the
statistics can be re-run without replaying.

For 30 bots and 4 seats the schedule is the balanced random design: one round seats every bot
at 4 tables (16 games), so a schedule of ``g`` games per bot is the first ``ceil(g / 16)`` rounds
of a longer one. Each prefix is rated with :func:`~cabo_kit.results.ratings.fit_elo` as the
leaderboard does (centred on the field; the random copies, which almost never beat the others,
get a one-sided bound and no half-width; ``--centre all`` for the mean of all 30 and every
interval two-sided, as before issue 11), and the script prints, per preset and game count, the
widest two-sided 95% half-width, which bot binds, and the mean and widest half-width of each
group; then the games per bot each preset needs for +-50 (interpolated between steps, or from the
``1/sqrt(games)`` law fitted to the measured widths) and the total: what a plain round-robin
needs for the precision an adaptive run reaches (``benchmarks/tournament_speed.py``).

Run: ``nice -n 19 .venv/bin/python benchmarks/elo_precision.py`` (``--rounds 40`` rounds to play,
``--cache /tmp/cabo-elo-class.csv.gz``, ``--steps 640 960 1280`` games per bot to rate,
``--bootstrap 1000`` replicates as the leaderboard uses, ``--explain`` to split each group's
half-width into the group's level and the bot's place in its group, with a deal-clustered sandwich
(Hessian) interval as a check on the bootstrap). ``--coverage 30 --gaps 1400 1450`` rates 30
synthetic classes with known strengths instead (Plackett-Luce games on the same schedule) and
prints how often the intervals cover the truth.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from cabo_kit import bots as builtin
from cabo_kit.game import Game
from cabo_kit.play import bot_random
from cabo_kit.rules import Rules
from cabo_kit.results.ratings import fit_elo
from cabo_kit.tournament.runner import final_ranking, play_one
from cabo_kit.tournament.schedule import make_schedule

KINDS = {"random": "RandomBot", "greedy": "GreedyBot", "counting": "CountingBot"}
PRESETS = ["deluxe", "rush", "traveller"]
TABLE = 4
SEED = 1


def class_names(copies: int = 10) -> list[str]:
    """The class: ``random_00`` ... ``counting_09`` (the speed benchmark's file stems)."""
    return [f"{kind}_{i:02d}" for kind in KINDS for i in range(copies)]


def group(bot: str) -> str:
    return bot.rsplit("_", 1)[0]


def play_class(preset: str, rounds: int, names: list[str], have: set[str]) -> pd.DataFrame:
    """Seats rows of every scheduled game of ``rounds`` rounds not in ``have`` (deal keys)."""
    games_per_bot = rounds * TABLE * TABLE
    matches = make_schedule(names, preset, "{}", TABLE, games_per_bot, SEED)
    rules = Rules.preset(preset)
    rows: list[tuple[object, ...]] = []
    todo = [m for m in matches if m.deal_key not in have]
    t0 = time.perf_counter()
    for done, m in enumerate(todo):
        rnd = int(m.order_key.split(":", 1)[0])
        players = {b: getattr(builtin, KINDS[group(b)])() for b in m.lineup}
        for rot in range(TABLE):
            seated = m.seats(rot)
            bots = [players[b] for b in seated]
            game = Game(rules, m.deal_seed, TABLE)
            for s, bot in enumerate(bots):
                bot.random = bot_random(m.deal_seed, s)
            fault_seat, kind, reason = play_one(game, bots, list(seated))
            if fault_seat is not None:
                raise RuntimeError(f"a reference bot faulted ({kind}): {reason}")
            sheet = game.sheet
            rank, win = final_ranking(sheet.totals, sheet.rounds[-1] if sheet.rounds else None, None)
            for s, b in enumerate(seated):
                rows.append((preset, rnd, m.deal_key, f"{m.deal_key}/{rot}", s, b, rank[s], win[s]))
        if (done + 1) % 60 == 0:
            rate = (done + 1) * TABLE / (time.perf_counter() - t0)
            print(f"  {preset}: {done + 1}/{len(todo)} deals, {rate:.0f} games/s", file=sys.stderr, flush=True)
    return pd.DataFrame(rows, columns=["preset", "round", "deal_id", "game_id", "seat", "bot", "rank", "win"])


def load_games(cache: Path, presets: list[str], rounds: int) -> pd.DataFrame:
    """The class's games for ``rounds`` rounds per preset, from the cache, playing what it lacks."""
    names = class_names()
    old = pd.read_csv(cache) if cache.exists() else pd.DataFrame(
        columns=["preset", "round", "deal_id", "game_id", "seat", "bot", "rank", "win"])
    parts = [old]
    for preset in presets:
        have = set(old.loc[old["preset"] == preset, "deal_id"])
        for upto in range(min(20, rounds), rounds + 20, 20):  # saved every 20 rounds: an interrupted run keeps its games
            new = play_class(preset, min(upto, rounds), names, have)
            if len(new):
                parts.append(new)
                have |= set(new["deal_id"])
                pd.concat(parts, ignore_index=True).to_csv(cache, index=False)
    seats = pd.concat(parts, ignore_index=True)
    seats = seats[seats["preset"].isin(presets) & (seats["round"] < rounds)]
    seats = seats.sort_values(["preset", "round", "deal_id", "game_id", "seat"], kind="stable").reset_index(drop=True)
    seats["game_index"] = seats.groupby("preset")["game_id"].transform(lambda s: pd.factorize(s)[0])
    return seats


def widths(seats: pd.DataFrame, bootstrap: int, seed: int = 0, prior: float | None = None,
           centre: str = "field") -> pd.DataFrame:
    """``fit_elo`` as the leaderboard calls it, plus each bot's half-width (NaN for a one-sided bound) and group.

    ``centre="all"``: the mean of every bot is 1000 and every interval two-sided (the ratings before
    issue 11, ``upset_share=0``), for the figures measured with them.
    """
    from cabo_kit.results.ratings import half_width

    extra: dict[str, float] = {} if prior is None else {"prior_games": prior}
    if centre == "all":
        extra["upset_share"] = 0.0
    board = fit_elo(seats, anchor=None, bootstrap=bootstrap, seed=seed, **extra)  # type: ignore[arg-type]
    board["half"] = half_width(board) if centre == "field" else (board["elo_high"] - board["elo_low"]) / 2
    board["group"] = board["bot"].map(group)
    return board


def sandwich(seats: pd.DataFrame, cov_model: np.ndarray) -> tuple[list[str], np.ndarray, pd.DataFrame]:
    """A Hessian-based check on the bootstrap: the deal-clustered sandwich covariance of the Elo.

    ``cov = H^-1 (sum over deals of s_d s_d^T) H^-1`` at the Bradley-Terry fit, ``H`` the negated
    Hessian (prior included) and ``s_d`` a deal's score vector: like the bootstrap, it lets a
    deal's rotations and a game's six pairs be dependent. Returns the bots, the covariance of
    their Elo (points squared) and the cross-group upset counts; ``cov_model`` (bots x bots) receives
    the inverse Fisher information alone: the Cramer-Rao bound of the Bradley-Terry model if every
    pairwise outcome were independent.
    """
    from cabo_kit.results.ratings import ELO_SCALE, PRIOR_GAMES, bradley_terry, pairwise_outcomes

    pairs = pairwise_outcomes(seats)
    bots = sorted(seats["bot"].unique())
    n = len(bots)
    idx = {b: i for i, b in enumerate(bots)}
    ia, ib = pairs["a"].map(idx).to_numpy(), pairs["b"].map(idx).to_numpy()
    sc = pairs["score"].to_numpy(dtype=float)
    wins = np.zeros((n, n))
    np.add.at(wins, (ia, ib), sc)
    np.add.at(wins, (ib, ia), 1.0 - sc)
    theta = bradley_terry(wins)
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
    games = wins + wins.T
    curv = games * p * p.T
    q = 1.0 / (1.0 + np.exp(-theta))
    hess = np.diag(curv.sum(axis=1) + PRIOR_GAMES * q * (1 - q)) - curv
    resid = sc - p[ia, ib]
    deal, _ = pd.factorize(pairs["deal_id"])
    score = np.zeros((deal.max() + 1, n))
    np.add.at(score, (deal, ia), resid)
    np.add.at(score, (deal, ib), -resid)
    score -= score.mean(axis=0)
    inv = np.linalg.inv(hess)
    cov = inv @ (score.T @ score) @ inv * ELO_SCALE ** 2
    cov_model[...] = inv * ELO_SCALE ** 2
    ga, gb = pairs["a"].map(group), pairs["b"].map(group)
    cross = pairs[ga != gb].assign(ga=ga[ga != gb], gb=gb[ga != gb])
    return bots, cov, cross


def explain(seats: pd.DataFrame, board: pd.DataFrame) -> None:
    """Why a group's intervals are wide: its half-width split into the group's gap and its place within the group."""
    n = seats["bot"].nunique()
    model = np.zeros((n, n))
    bots, cov, cross = sandwich(seats, model)
    groups = np.array([group(b) for b in bots])
    mean_all = np.full(n, 1.0 / n)
    for g in KINDS:
        members = groups == g
        i = int(np.flatnonzero(members)[0])
        centre = members / members.sum()
        within = np.eye(n)[i] - centre  # a bot against its own group's mean
        level = centre - mean_all  # the group's mean against the class mean
        total = np.eye(n)[i] - mean_all
        hw = [1.96 * float(np.sqrt(c @ cov @ c)) for c in (total, level, within)]
        bound = 1.96 * float(np.sqrt(total @ model @ total))
        boot = float(board.loc[board["group"] == g, "half"].mean())
        print(f"    {g:9s} bootstrap mean +-{boot:.1f}; sandwich +-{hw[0]:.1f} = group level +-{hw[1]:.1f} "
              f"(+) place in group +-{hw[2]:.1f}; inverse Fisher information +-{bound:.1f}")
    for g in ("greedy", "counting"):
        mine = cross[((cross["ga"] == "random") & (cross["gb"] == g)) | ((cross["ga"] == g) & (cross["gb"] == "random"))]
        upsets = np.where(mine["ga"] == "random", mine["score"], 1.0 - mine["score"]).sum()
        print(f"    random beat {g} {upsets:.0f} times in {len(mine)} pairwise comparisons")


def simulate_class(truth: dict[str, float], rounds: int, seed: int, preset: str = "sim") -> pd.DataFrame:
    """A seats frame of the class's real schedule with known strengths: each game a Plackett-Luce ranking.

    Plackett-Luce's pairwise marginals are exactly Bradley-Terry with log-strength
    ``elo / ELO_SCALE``, so ``truth`` is what ``fit_elo`` estimates. Every deal is played in
    its four rotations (independent rankings: this model has no seat luck).
    """
    from cabo_kit.results.ratings import ELO_SCALE

    rng = np.random.default_rng(seed)
    names = sorted(truth)
    index = {b: i for i, b in enumerate(names)}
    strength = np.array([truth[b] / ELO_SCALE for b in names])
    matches = make_schedule(names, preset, "{}", TABLE, rounds * TABLE * TABLE, SEED)
    lineups = np.array([[index[b] for b in m.lineup] for m in matches])  # (deals, 4)
    n_deals = len(matches)
    games = np.repeat(lineups, TABLE, axis=0)  # 4 rotations of each deal; seats do not matter here
    keys = strength[games] + rng.gumbel(size=games.shape)
    ranks = np.argsort(np.argsort(-keys, axis=1), axis=1) + 1
    return pd.DataFrame({
        "game_id": np.repeat(np.arange(n_deals * TABLE), TABLE).astype(str),
        "deal_id": np.repeat(np.arange(n_deals), TABLE * TABLE).astype(str),
        "game_index": np.repeat(np.arange(n_deals * TABLE), TABLE),
        "preset": preset, "seat": np.tile(np.arange(TABLE), n_deals * TABLE),
        "bot": np.array(names, dtype=object)[games.ravel()], "rank": ranks.ravel(),
        "win": (ranks.ravel() == 1).astype(float),
    })


def coverage(truth: dict[str, float], rounds: int, reps: int, bootstraps: list[int], prior: float | None = None) -> None:
    """How often each interval covers the truth (mean-anchored), and the widest half-width, per bootstrap size."""
    target = pd.Series(truth) - np.mean(list(truth.values())) + 1000.0
    rows = []
    for rep in range(reps):
        seats = simulate_class(truth, rounds, seed=1000 + rep)
        for b in bootstraps:
            board = widths(seats, b, seed=rep, prior=prior, centre="all")
            t = board["bot"].map(target)
            board["covered"] = (board["elo_low"] <= t) & (t <= board["elo_high"])
            # The basic bootstrap interval is the percentile one reflected about the estimate.
            board["covered_basic"] = (2 * board["elo"] - board["elo_high"] <= t) & (t <= 2 * board["elo"] - board["elo_low"])
            board["error"] = board["elo"] - t
            rows.append(board.assign(rep=rep, B=b))
    allb = pd.concat(rows, ignore_index=True)
    for b in bootstraps:
        mine = allb[allb["B"] == b]
        per_group = mine.groupby("group").agg(coverage=("covered", "mean"), basic=("covered_basic", "mean"),
                                             mean_half=("half", "mean"),
                                             bias=("error", "mean"), rmse=("error", lambda e: float(np.sqrt(np.mean(e ** 2)))))
        widest = mine.groupby("rep")["half"].max()
        print(f"  bootstrap {b:5d}: coverage {mine['covered'].mean():.3f} (basic intervals "
              f"{mine['covered_basic'].mean():.3f}) over {len(mine)} intervals; "
              f"widest half-width per run {widest.mean():.1f} (sd {widest.std():.1f})")
        for g, r in per_group.iterrows():
            print(f"    {g:9s} coverage {r['coverage']:.3f} (basic {r['basic']:.3f})  mean half-width {r['mean_half']:.1f}  "
                  f"bias {r['bias']:+.1f}  rmse {r['rmse']:.1f}  (1.96 rmse {1.96 * r['rmse']:.1f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=40, help="rounds of the design to play per preset (16 games per bot each)")
    ap.add_argument("--presets", nargs="+", default=PRESETS)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/cabo-elo-class.csv.gz"))
    ap.add_argument("--steps", type=int, nargs="+", default=[320, 480, 640],
                    help="games per bot and preset to rate (rounded up to whole rounds)")
    ap.add_argument("--bootstrap", type=int, default=1000, help="replicates (fit_elo's default)")
    ap.add_argument("--prior", type=float, default=None, help="prior_games for fit_elo (default: its own default)")
    ap.add_argument("--explain", action="store_true", help="split each group's half-width into its sources")
    ap.add_argument("--centre", choices=["field", "all"], default="field",
                    help="field: the leaderboard's ratings; all: the mean of every bot, every interval two-sided")
    ap.add_argument("--coverage", type=int, default=0, metavar="REPS",
                    help="instead: REPS synthetic classes with known strengths (the groups' Elo gaps of --gaps) "
                         "at --rounds rounds, rated with each --bootstrap size")
    ap.add_argument("--gaps", type=float, nargs=2, default=[960.0, 1005.0], metavar=("GREEDY", "COUNTING"),
                    help="true Elo of the greedy and counting groups above the random group, for --coverage")
    ap.add_argument("--bootstraps", type=int, nargs="+", default=[200, 1000], help="bootstrap sizes for --coverage")
    args = ap.parse_args()
    if args.coverage:
        truth = {b: {"random": 0.0, "greedy": args.gaps[0], "counting": args.gaps[1]}[group(b)] for b in class_names()}
        print(f"synthetic class: random 0, greedy {args.gaps[0]:g}, counting {args.gaps[1]:g} Elo; {args.rounds} rounds "
              f"({args.rounds * 16} games per bot, {args.rounds * 30 * 4} games); {args.coverage} runs")
        coverage(truth, args.rounds, args.coverage, args.bootstraps, args.prior)
        return
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; class of 30 (10 random, 10 greedy, "
          f"10 counting), 4-player tables, schedule seed {SEED}, fit_elo(bootstrap={args.bootstrap}), centred on "
          f"the {args.centre}")
    seats = load_games(args.cache, args.presets, args.rounds)
    need: dict[str, float] = {}
    for preset in args.presets:
        mine = seats[seats["preset"] == preset]
        xs, ys, means = [], [], []
        for g in args.steps:
            rounds = math.ceil(g / (TABLE * TABLE))
            if rounds > args.rounds:
                continue
            sub = mine[mine["round"] < rounds]
            board = widths(sub, args.bootstrap, prior=args.prior, centre=args.centre)
            worst = board.loc[board["half"].idxmax()]
            per_group = board.groupby("group")["half"].agg(["mean", "max"])
            gap = board.groupby("group")["elo"].mean()
            n_games = sub["game_id"].nunique()
            print(f"{preset:9s} {rounds * 16:4d} games/bot ({n_games:5d} games, {n_games // TABLE:4d} deals): widest "
                  f"+-{worst['half']:.1f} ({worst['bot']}); " + ", ".join(
                      f"{k} mean +-{per_group.loc[k, 'mean']:.1f} max +-{per_group.loc[k, 'max']:.1f} (elo {gap[k]:.0f})"
                      for k in KINDS))
            if args.explain:
                explain(sub, board)
            xs.append(rounds * 16)
            ys.append(float(worst["half"]))
            means.append(float(per_group.loc[group(str(worst["bot"])), "mean"]))
        if not xs:
            continue
        reached = [x for x, y in zip(xs, ys) if y <= 50.0]
        if len(xs) >= 2:
            # The slope of log(half-width) on log(games), fitted to the binding group's mean
            # half-width (the widest alone is too noisy) over the larger half of the steps. Only
            # where it is about -1/2 does the 1/sqrt(games) law hold; near-separated groups shrink
            # slower (their gap estimate still drifts as upsets accumulate), so the projection
            # never assumes faster than 1/sqrt(games) and says when the law does not hold yet.
            top = max(2, (len(xs) + 1) // 2)
            slope = float(np.polyfit(np.log(xs[-top:]), np.log(means[-top:]), 1)[0])
        else:
            slope = -0.5
        rate = min(-0.05, max(slope, -0.5)) if slope < 0 else -0.05
        above = [i for i, y in enumerate(ys) if y > 50.0]
        if not above:
            need[preset] = float(xs[0])  # already within +-50 at the first step
        elif above[-1] + 1 < len(xs):
            i = above[-1]  # between a step above +-50 and the next one within: log-linear interpolation
            frac = math.log(ys[i] / 50.0) / math.log(ys[i] / ys[i + 1])
            need[preset] = math.exp(math.log(xs[i]) + frac * math.log(xs[i + 1] / xs[i]))
        else:
            need[preset] = xs[-1] * (50.0 / ys[-1]) ** (1.0 / rate)
        note = "" if slope <= -0.4 else "  (NOT shrinking like 1/sqrt(games) yet: a rough extrapolation, see --coverage)"
        first = f"first reached at {reached[0]} games per bot; " if reached else ""
        print(f"{preset:9s} +-50: {first}needs about {need[preset]:.0f} games per bot "
              f"({need[preset] * 30 / TABLE:.0f} games; interpolated, or extrapolated from the last step), "
              f"slope {slope:+.2f} of the binding group's log mean width on log games{note}")
    if need:
        total = sum(math.ceil(n / 16) * 16 * 30 / TABLE for n in need.values())
        print(f"all presets: {total:.0f} games (whole rounds of 16 games per bot; {TABLE} per table)")
        # A tournament has one game count for every preset (tournament.toml's games, --games).
        most = math.ceil(max(need.values()) / 16) * 16
        print(f"one game count for all {len(need)} presets (the tournament's --games): --games {most} "
              f"= {most * 30 // TABLE * len(need)} games")


if __name__ == "__main__":
    main()
