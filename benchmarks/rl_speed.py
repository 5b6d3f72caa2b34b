"""RL environment speed: steps per second of the PettingZoo AEC env and the Gymnasium SeatEnv, beside the engine's own
decisions per second (benchmarks/engine_speed.py case b1), in one run.

All three play 4-player deluxe on one core, timed in this process's CPU time (``time.process_time``):

- engine b1: 4 RandomBots through ``run_game`` (every action checked), decisions per second;
- AEC: ``aec_env("deluxe", 4)`` (and, for comparison, in PettingZoo's ``OrderEnforcingWrapper``) as PettingZoo's own
  loop drives it (``agent_iter``, ``last()``, ``step``), each agent
  choosing uniformly among the legal actions of its mask; a step is one ``step()`` of a live agent;
- SeatEnv: ``SeatEnv("deluxe", opponents=[1, 1, 1])`` (three RandomBots), your seat choosing uniformly among
  ``action_masks()``; a step is one ``step()``: one of your decisions, the bots' moves after it included (played in
  the engine's loop, ``Game.play_out``: about three bot decisions a step), so its decisions per second are printed
  too; then the same against b1's own bots (``FastRandomBot``: RandomBot's moves, cheaper), the engine's case.

Every step builds the observation (the float32 encoding and the mask) as a learner receives it. The random pick
reads the mask's legal numbers with ``mask.nonzero()[0]`` (``np.flatnonzero`` costs about 3 us more a step on a 1-D
array, which figures before 2026-11-27 include).

Run: ``.venv/bin/python benchmarks/rl_speed.py`` (``--seconds 3`` per case). Target (issue 21): >= 20,000 steps/s,
aim 50,000.

``--instructions`` counts machine instructions a step instead, a figure other jobs on a shared machine do not move
(repeatable to about 0.02%): the script runs itself under valgrind's callgrind with instrumentation off, plays 20
episodes to warm the caches, switches it on (``callgrind_control -i on``) for ``--episodes`` seeded episodes (100:
about 2,100 SeatEnv steps) and off again, and divides the instructions counted by the steps. ``--case seat``
(default: SeatEnv vs 3 RandomBots), ``fast`` (vs b1's FastRandomBots) or ``aec``. It sets ``PYTHONHASHSEED=0``
(set iteration orders, and so a few instructions, follow the hash seed). Fewer instructions a step mean
proportionally more steps per CPU second (docs/rl.md gives both figures side by side)::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/rl_speed.py --instructions
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import cabo_kit as ck  # noqa: E402
from engine_speed import CASES, run_case  # noqa: E402

TARGET, AIM = 20_000, 50_000


def aec_rate(seconds: float, wrapped: bool = False) -> tuple[float, int, int]:
    from cabo_kit.rl import aec_env

    env = aec_env("deluxe", 4, seed=0)
    if wrapped:
        from pettingzoo.utils.wrappers import OrderEnforcingWrapper

        env = OrderEnforcingWrapper(env)
    rng = np.random.default_rng(0)
    steps = games = 0
    env.reset()  # warm the caches (action tables, encodings)
    spent = 0.0
    while spent < seconds:
        start = time.process_time()
        steps += _episodes("aec", 1, rng, env)
        spent += time.process_time() - start
        games += 1
    return steps / spent, steps, games


def seat_env_rate(seconds: float, fast: bool = False) -> tuple[float, int, int, int]:
    """Steps per second, steps, games, and every seat's decisions (yours and the bots'); ``fast``: the bots are
    b1's FastRandomBots (RandomBot's very moves, written for speed), else cabo-kit's RandomBots."""
    env = _seat_env(fast)
    rng = np.random.default_rng(0)
    steps = games = decisions = 0
    env.reset()
    spent = 0.0
    while spent < seconds:
        start = time.process_time()
        steps += _episodes("seat", 1, rng, env)
        spent += time.process_time() - start
        games += 1
        decisions += len(env.game.history)
    return steps / spent, steps, games, decisions


def _seat_env(fast: bool) -> Any:
    """SeatEnv at seat 0 of 4-player deluxe against three random players: b1's FastRandomBots or cabo-kit's."""
    from cabo_kit.rl import SeatEnv
    from fast_random_bot import FastRandomBot

    return SeatEnv("deluxe", opponents=[FastRandomBot() for _ in range(3)] if fast else [1, 1, 1], seed=0)


def _episodes(case: str, episodes: int, rng: np.random.Generator, env: Any) -> int:
    """Play ``episodes`` episodes of ``case`` with random legal actions; returns the steps."""
    steps = 0
    if case == "aec":
        for _ in range(episodes):
            env.reset()
            for _agent in env.agent_iter():
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = obs["action_mask"].nonzero()[0]
                env.step(int(legal[int(rng.random() * len(legal))]))
                steps += 1
        return steps
    for _ in range(episodes):
        env.reset()
        while True:
            legal = env.action_masks().nonzero()[0]
            _, _, terminated, truncated, _ = env.step(int(legal[int(rng.random() * len(legal))]))
            steps += 1
            if terminated or truncated:
                break
    return steps


def counted_loop(case: str, episodes: int) -> None:
    """Under callgrind (instrumentation off at start): warm up, then count ``episodes`` episodes only."""
    if case == "aec":
        from cabo_kit.rl import aec_env

        env: Any = aec_env("deluxe", 4, seed=0)
    else:
        env = _seat_env(case == "fast")
    rng = np.random.default_rng(0)
    _episodes(case, 20, rng, env)  # warm the caches (action tables, encodings, the engine's tables)
    toggle = ["callgrind_control", "-i"]
    subprocess.run([*toggle, "on", str(os.getpid())], capture_output=True, check=True)
    steps = _episodes(case, episodes, rng, env)
    subprocess.run([*toggle, "off", str(os.getpid())], capture_output=True, check=True)
    print(f"steps {steps}", file=sys.stderr)


def count_instructions(case: str, episodes: int) -> int:
    """Instructions a step of ``case`` (runs this script under valgrind; prints what it measured)."""
    env = dict(os.environ, PYTHONHASHSEED="0")
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--instr-atstart=no", "--callgrind-out-file=/dev/null", sys.executable,
         __file__, "--counted-loop", case, "--episodes", str(episodes)],
        env=env, capture_output=True, text=True)
    steps = re.search(r"^steps (\d+)$", out.stderr, re.M)
    collected = re.search(r"Collected : (\d+)", out.stderr)
    if out.returncode or not steps or not collected:
        raise SystemExit(f"the run under valgrind failed (is valgrind installed?):\n{out.stderr[-2000:]}")
    per_step = int(collected.group(1)) // int(steps.group(1))
    print(f"cabo-kit {ck.__version__} RL instructions: case {case}, {episodes} seeded episodes, "
          f"{steps.group(1)} steps, {int(collected.group(1)):,} instructions: {per_step:,} a step "
          f"(load average {os.getloadavg()[0]:.1f}, which does not move this figure)")
    return per_step


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per case (default 3)")
    parser.add_argument("--instructions", action="store_true",
                        help="count machine instructions a step under valgrind instead of timing")
    parser.add_argument("--case", choices=("seat", "fast", "aec"), default="seat",
                        help="with --instructions: SeatEnv vs RandomBots (default), vs FastRandomBots, or the AEC env")
    parser.add_argument("--episodes", type=int, default=100, help="with --instructions: episodes counted (100)")
    parser.add_argument("--counted-loop", choices=("seat", "fast", "aec"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.counted_loop:
        counted_loop(args.counted_loop, args.episodes)
        return 0
    if args.instructions:
        count_instructions(args.case, args.episodes)
        return 0
    import gymnasium
    import pettingzoo

    print(f"cabo-kit {ck.__version__} RL speed: Python {platform.python_version()}, {platform.machine()}, one core; "
          f"pettingzoo {pettingzoo.__version__}, gymnasium {gymnasium.__version__}, numpy {np.__version__}; "
          f"load average {os.getloadavg()[0]:.1f} (other jobs on a shared machine slow every case alike: compare ratios)")
    b1 = next(c for c in CASES if c.key == "b1")
    f = run_case(b1, args.seconds, None)
    engine = f.decisions / f.seconds
    rows = [("engine b1", "4 RandomBots, deluxe: decisions/s", engine, f.games)]
    rate, _, games = aec_rate(args.seconds)
    rows.append(("AEC", "aec_env('deluxe', 4): steps/s", rate, games))
    rate, _, games = aec_rate(args.seconds, wrapped=True)
    rows.append(("AEC+order", "the same in OrderEnforcingWrapper", rate, games))
    rate, steps, games, decisions = seat_env_rate(args.seconds)
    rows.append(("SeatEnv", "SeatEnv vs 3 RandomBots: steps/s", rate, games))
    rows.append(("SeatEnv d", "  the same: every seat's decisions/s", rate * decisions / steps, games))
    rate, steps, games, decisions = seat_env_rate(args.seconds, fast=True)
    rows.append(("SeatEnv f", "SeatEnv vs b1's 3 FastRandomBots: steps/s", rate, games))
    rows.append(("SeatEnv fd", "  the same: every seat's decisions/s", rate * decisions / steps, games))
    print()
    print(f"{'case':<10} {'what':<41} {'per s':>9} {'games':>6} {'/ engine':>9}  target")
    failed = False
    for key, what, rate, games in rows:
        verdict = ""
        if key in ("AEC", "SeatEnv", "SeatEnv f"):
            verdict = "met aim" if rate >= AIM else ("met target" if rate >= TARGET else "BELOW target")
            verdict = f">= {TARGET:,} (aim {AIM:,}): {verdict}"
            failed |= rate < TARGET
        print(f"{key:<10} {what:<41} {rate:>9,.0f} {games:>6} {rate / engine:>9.2f}  {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
