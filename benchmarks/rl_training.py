"""The RL training figure (issue 21): a numpy policy-gradient policy in 2-player deluxe, its win rate against RandomBot
and GreedyBot with 95% Wilson intervals over 1,000 games each.

Trains :class:`cabo_kit.rl.MLPPolicy` (one hidden layer) with :func:`cabo_kit.rl.train.reinforce` in a
``SeatEnv("deluxe", opponents=[...], seat=None, reward="round")`` (a random seat each game; a reward at each round's
end: the opponent's round score minus yours, / 10), then plays the greedy policy 1,000 games against each reference
bot (seats alternating, deals fixed by the seed) and prints the win rates. ``--save`` writes the weights the notebook
starts from (notebooks/data/rl_deluxe_2p.npz); ``--load`` evaluates saved weights without training.

The policy starts from a prior, not from nothing: the last layer's bias makes multi-exchanges (-4) and calling Cabo
(-5) unlikely at first, as a player new to the game would not try them blindly; training moves them like any weight.
The defaults (64 hidden units, 30,000 games: a fifth against RandomBot, then GreedyBot; entropy bonus 0.01) made the
weights in notebooks/data (saved as float16).
For comparison the script also plays the untrained policy (greedy: the first legal action, i.e. draw, discard, pass).

Run: ``.venv/bin/python benchmarks/rl_training.py --save`` (about 3 minutes of CPU), then
``--load notebooks/data/rl_deluxe_2p.npz`` to measure saved weights again.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cabo_kit as ck
from cabo_kit.rl import MLPPolicy, SeatEnv
from cabo_kit.rl.train import reinforce, wilson, win_rate

ROOT = Path(__file__).resolve().parent.parent
SAVED = ROOT / "notebooks" / "data" / "rl_deluxe_2p.npz"


def fresh_policy(hidden: int, seed: int, cabo_prior: float = -5.0) -> MLPPolicy:
    """The starting policy: small random hidden weights, a zero last layer, the prior on its bias (module docstring)."""
    policy = MLPPolicy.new(ck.Rules.preset("deluxe"), 2, hidden=(hidden,), seed=seed)
    _, bias = policy.params[-1]
    bias[policy.index.kinds["multi"]] = -4.0
    bias[policy.index.index(ck.CallCabo(), 0)] = cabo_prior  # (no seat in it: the same number from every seat)
    return policy


def curriculum(policy: MLPPolicy, games: int, seed: int, progress: bool = True, entropy: float = 0.01,
               random_share: float = 0.2) -> list[dict[str, float]]:
    """Train against RandomBot for ``random_share`` of ``games``, then against GreedyBot."""
    history: list[dict[str, float]] = []
    start = time.process_time()
    for opponent, share in ((1, random_share), (2, 1 - random_share)):
        env = SeatEnv("deluxe", opponents=[opponent], seat=None, seed=seed + opponent, reward="round")

        def show(record: dict[str, float]) -> None:
            if progress and int(record["games"]) % 2000 < 32:
                print(f"  vs level {opponent}: {int(record['games']):>6} games, mean return {record['mean_return']:+.2f}, "
                      f"{time.process_time() - start:.0f} s", flush=True)

        before = history[-1]["games_total"] if history else 0.0
        part = reinforce(policy, env, games=int(games * share), batch=32, lr=3e-3, entropy=entropy, seed=seed + opponent,
                         progress=show)
        history += [dict(r, opponent=float(opponent), games_total=before + r["games"]) for r in part]
    return history


def report(policy: MLPPolicy, games: int, label: str) -> None:
    for name, bot in (("RandomBot", ck.bots.RandomBot), ("GreedyBot", ck.bots.GreedyBot)):
        start = time.process_time()
        wins, n, ties = win_rate(policy, bot, games=games, seed=2026)
        low, high = wilson(wins, n)
        print(f"{label:<22} vs {name:<10} {wins:>5} / {n} wins ({ties} shared) = {wins / n:6.1%}, "
              f"95% Wilson [{low:.1%}, {high:.1%}]  ({time.process_time() - start:.0f} s)", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=30_000, help="training games (default 30,000)")
    parser.add_argument("--eval", type=int, default=1_000, help="evaluation games per opponent (default 1,000)")
    parser.add_argument("--hidden", type=int, default=64, help="hidden units (default 64)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cabo-prior", type=float, default=-5.0, help="the starting bias of calling Cabo (default -5)")
    parser.add_argument("--entropy", type=float, default=0.01, help="the entropy bonus (default 0.01)")
    parser.add_argument("--random-share", type=float, default=0.2, help="share of games against RandomBot (0.2)")
    parser.add_argument("--out", type=Path, default=SAVED, help="where --save writes (default: the notebook's)")
    parser.add_argument("--save", action="store_true", help=f"write the weights to {SAVED.relative_to(ROOT)}")
    parser.add_argument("--load", type=Path, help="evaluate these saved weights instead of training")
    args = parser.parse_args(argv)
    if args.load:
        policy = MLPPolicy.load(args.load)
    else:
        report(fresh_policy(args.hidden, args.seed, args.cabo_prior), args.eval, "untrained (prior only)")
        policy = fresh_policy(args.hidden, args.seed, args.cabo_prior)
        start = time.process_time()
        history = curriculum(policy, args.games, args.seed, entropy=args.entropy, random_share=args.random_share)
        print(f"trained on {args.games:,} games in {time.process_time() - start:.0f} s CPU")
        if args.save:
            out = args.out
            out.parent.mkdir(exist_ok=True)
            policy.save(out, half=True)  # float16: what the notebook ships (measure it again with --load)
            history_path = out.with_name(out.stem + "_history.json")
            kept = ("games_total", "mean_return", "opponent")
            history_path.write_text(json.dumps([{k: round(h[k], 3) for k in kept} for h in history], separators=(",", ":")))
            print(f"saved {out} and {history_path.name}")
    report(policy, args.eval, "trained")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
