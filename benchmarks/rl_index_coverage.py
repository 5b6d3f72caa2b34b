"""How often a legal action lies outside the RL action index (issue 21): 10,000 random games per preset.

Every decision of games between the reference RandomBot at every seat (table sizes in turn, 2 to 6; traveller 3 to 6)
is counted three ways:

- *chosen outside*: the action RandomBot played is not in the index (what a policy could never play);
- *any outside*: at least one legal action is not in the index (the strict count);
- *any outside, multi=P*: the same with an index that numbers every multi-exchange of up to P positions
  (``ActionIndex(rules, n, multi=MAX_POSITIONS)``), so only positions at P or beyond remain outside.

The index (P = 12 positions, multi-exchanges of up to 4 cards) covers a hand of up to 12 cards. RandomBot's failed
multi-exchanges grow deluxe hands (each failure keeps the drawn card, three or more cards add a penalty card), so a
hand of 5 to 12 cards is common there, and every such hand has legal multi-exchanges of 5 or more cards, which can
never succeed in a single deck (4 cards of a value at most).

Run: ``.venv/bin/python benchmarks/rl_index_coverage.py`` (``--games 10000`` per preset by default; about 10 minutes
on one core).
"""

from __future__ import annotations

import argparse
import sys
import time

import cabo_kit as ck
from cabo_kit.play import bot_random
from cabo_kit.rl.encoding import MAX_POSITIONS, ActionIndex


def count(preset: str, games: int) -> dict[str, int]:
    rules = ck.Rules.preset(preset)
    sizes = list(range(rules.min_players, rules.max_players + 1))
    indexes = {n: ActionIndex(rules, n) for n in sizes}
    full = {n: ActionIndex(rules, n, multi=MAX_POSITIONS) for n in sizes}
    out = {"games": 0, "decisions": 0, "chosen": 0, "any": 0, "any_full": 0}
    for g in range(games):
        n = sizes[g % len(sizes)]
        game = ck.Game(rules, g, n)
        bots = [ck.bots.RandomBot() for _ in range(n)]
        for s, bot in enumerate(bots):
            bot.random = bot_random(g, s)
        index, wide = indexes[n], full[n]
        while not game.is_over:
            for s in game.to_move:
                obs = game.observation(s)
                legal = obs.legal_actions
                action = bots[s].choose(obs, legal)
                out["decisions"] += 1
                out["chosen"] += index.index(action, s) is None
                out["any"] += index.unindexed(legal, s) > 0
                out["any_full"] += wide.unindexed(legal, s) > 0
                game.apply(action, s)
        out["games"] += 1
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="games per preset (default 10,000)")
    parser.add_argument("--presets", default="deluxe,rush,traveller", help="which presets (default all three)")
    args = parser.parse_args(argv)
    print(f"RandomBot games, {args.games:,} per preset; index P = {MAX_POSITIONS}, multi-exchanges up to 4 cards")
    print(f"{'preset':<10} {'decisions':>10} {'chosen outside':>16} {'any outside':>14} {'any, multi=P':>14} {'s':>6}")
    failed = False
    for preset in args.presets.split(","):
        start = time.process_time()
        c = count(preset, args.games)
        d = c["decisions"]
        failed |= c["chosen"] / d >= 0.001
        print(f"{preset:<10} {d:>10,} {c['chosen']:>7,} {100 * c['chosen'] / d:>7.3f}% {c['any']:>6,} {100 * c['any'] / d:>6.2f}%"
              f" {c['any_full']:>6,} {100 * c['any_full'] / d:>6.3f}% {time.process_time() - start:>6.0f}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
