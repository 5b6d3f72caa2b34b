"""The engine benchmark of this checkout against another commit's, side by side in one run.

Checks the other commit out into a temporary git worktree, then runs this checkout's
``benchmarks/engine_speed.py`` (the same script, the same bots: ``FastRandomBot`` only uses
the public API) once against each engine, alternating, ``--rounds`` times, so that both
see the same machine. Prints each case's turns per second of CPU time (median of the
rounds), the ratio new/old, and each round's ratio. Round ``r`` runs both engines with
``PYTHONHASHSEED=r``: the string hash seed alone moves a run's speed by several per cent
(dict layouts), so each round compares the engines under the same one.

With ``--interleaved`` both engines run in one process instead, game chunk by game chunk
(``benchmarks/engine_ab.py``), one such process a round: the CPU-time ratio with the least noise.
With ``--instructions`` it counts machine instructions per turn under valgrind instead
(``benchmarks/engine_instructions.py``): a figure other jobs on a shared machine do not move.

Run::

    .venv/bin/python benchmarks/engine_compare.py 5406a15                 # CPU time, every case
    .venv/bin/python benchmarks/engine_compare.py 5406a15 --interleaved --cases a,c
    .venv/bin/python benchmarks/engine_compare.py 5406a15 --instructions --cases a,c

The other commit defaults to ``HEAD^``. Needs git; ``--instructions`` needs valgrind.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def _run(tree: Path, args: list[str], valgrind: bool = False, hash_seed: int = 0) -> subprocess.CompletedProcess[str]:
    # That tree's cabo_kit first on sys.path; the string hash seed fixed (it moves a run's speed by several %,
    # so both engines of a round get the same one).
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED=str(hash_seed))
    command = [sys.executable, *args]
    if valgrind:
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *command]
    return subprocess.run(command, env=env, capture_output=True, text=True, check=True)


def speed(tree: Path, cases: str, seconds: float, hash_seed: int = 0) -> dict[str, float]:
    """Turns per second of CPU time, by case, of ``tree``'s engine (one run of engine_speed.py)."""
    out = _run(tree, [str(HERE / "engine_speed.py"), "--cases", cases, "--seconds", str(seconds), "--json"],
               hash_seed=hash_seed).stdout
    return {key: figures["turns_per_s"] for key, figures in json.loads(out.splitlines()[-1]).items()}


def interleaved(tree: Path, old: Path, case: str, hash_seed: int) -> dict[str, float]:
    """Both engines in one process (engine_ab.py): the ratio of ``tree``'s speed to ``old``'s and each side's rate."""
    out = _run(ROOT, [str(HERE / "engine_ab.py"), str(tree), str(old), "--case", case, "--json"], hash_seed=hash_seed)
    return dict(json.loads(out.stdout.splitlines()[-1]))


def instructions(tree: Path, case: str, games: int) -> float:
    """Machine instructions per turn of ``tree``'s engine in ``case`` (valgrind: ``games`` games minus none)."""
    script = str(HERE / "engine_instructions.py")

    def collected(n: int) -> tuple[int, int]:
        run = _run(tree, [script, case, str(n)], valgrind=True)
        total = int(re.search(r"Collected : (\d+)", run.stderr).group(1))  # type: ignore[union-attr]
        turns = int(re.search(r"(\d+) turns", run.stderr).group(1))  # type: ignore[union-attr]
        return total, turns

    with_games, turns = collected(games)
    without, _ = collected(0)
    return (with_games - without) / turns


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ref", nargs="?", default="HEAD^", help="the other commit (default HEAD^)")
    parser.add_argument("--cases", default="a,b1,b2,b3,c", help="which cases of engine_speed.py")
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU seconds per case and run")
    parser.add_argument("--rounds", type=int, default=3, help="runs per engine, alternating")
    parser.add_argument("--interleaved", action="store_true", help="both engines in one process, chunk by chunk")
    parser.add_argument("--instructions", action="store_true", help="count instructions under valgrind instead")
    parser.add_argument("--games", type=int, default=20, help="games per case with --instructions")
    args = parser.parse_args()
    if args.instructions and shutil.which("valgrind") is None:
        parser.error("--instructions needs valgrind (Debian: apt-get install valgrind)")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", args.ref], capture_output=True,
                            text=True)
    if commit.returncode != 0:
        parser.error(f"git does not know {args.ref!r}: {commit.stderr.strip()}")
    old_name = commit.stdout.strip()
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    new_name = head.stdout.strip() + ("+changes" if subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"], capture_output=True,
        text=True).stdout.strip() else "")
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    with tempfile.TemporaryDirectory(prefix="cabo-compare-") as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(old), args.ref], check=True)
        try:
            if args.interleaved and not args.instructions:
                return _print_interleaved(old, old_name, new_name, cases, args.rounds)
            results: dict[str, dict[str, list[float]]] = {"new": {c: [] for c in cases}, "old": {c: [] for c in cases}}
            for r in range(args.rounds if not args.instructions else 1):
                for label, tree in (("new", ROOT), ("old", old)) if r % 2 == 0 else (("old", old), ("new", ROOT)):
                    if args.instructions:
                        for case in cases:
                            results[label][case].append(instructions(tree, case, args.games))
                    else:
                        for case, rate in speed(tree, ",".join(cases), args.seconds, hash_seed=r).items():
                            results[label][case].append(rate)
                    print(f"round {r + 1}: {label} done", file=sys.stderr, flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], check=False)
    unit = "instructions/turn" if args.instructions else "turns/s (CPU)"
    print(f"engine benchmark, {unit}: new = {new_name}, old = {old_name}"
          + ("" if args.instructions else f" (median of {args.rounds} alternating runs of {args.seconds:g} s)"))
    print(f"{'case':<5} {'new':>12} {'old':>12} {'new/old':>8}" + ("" if args.instructions else "  by round (same hash seed)"))
    for case in cases:
        new, prev = statistics.median(results["new"][case]), statistics.median(results["old"][case])
        ratio = prev / new if args.instructions else new / prev  # above 1: the new engine is faster
        pairs = "" if args.instructions else "  " + " ".join(
            f"{a / b:.2f}" for a, b in zip(results["new"][case], results["old"][case]))
        print(f"{case:<5} {new:>12,.0f} {prev:>12,.0f} {ratio:>7.2f}x{pairs}")
    print("(new/old above 1.00x: the new engine is faster" + (", i.e. needs fewer instructions)" if args.instructions else ")"))
    return 0


def _print_interleaved(old: Path, old_name: str, new_name: str, cases: list[str], rounds: int) -> int:
    print(f"engine benchmark, turns/s (CPU), both engines in one process: new = {new_name}, old = {old_name} "
          f"(median of {rounds} processes, PYTHONHASHSEED 0-{rounds - 1}; each the median of 200 chunks of 10 games)")
    print(f"{'case':<5} {'new':>12} {'old':>12} {'new/old':>8}  by process")
    for case in cases:
        runs = []
        for r in range(rounds):
            runs.append(interleaved(ROOT, old, case, r))
            print(f"round {r + 1} of case {case} done", file=sys.stderr, flush=True)
        new = statistics.median(run["a"] for run in runs)
        prev = statistics.median(run["b"] for run in runs)
        ratio = statistics.median(run["ratio"] for run in runs)
        print(f"{case:<5} {new:>12,.0f} {prev:>12,.0f} {ratio:>7.2f}x  " + " ".join(f"{run['ratio']:.3f}" for run in runs))
    print("(new/old above 1.00x: the new engine is faster)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
