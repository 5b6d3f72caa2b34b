"""Two engines in one process, interleaved game chunk by game chunk: the CPU-time ratio with least noise.

Loads ``cabo_kit`` from two source trees into this one interpreter (the first tree's modules are
set aside before the second is imported; each keeps its own), warms both, then plays the same
``--games`` games of an ``engine_speed.py`` case on each in turn, ``--chunks`` times, the
order flipped every chunk, and prints the median of the chunks' speed ratios (A over B, turns per
second of CPU time as ``engine_speed.py`` counts them) with its quartiles. Both engines see the same
interpreter, hash seed, memory and machine load within milliseconds of each other, so a run
reads within about +-0.5% of itself where separate processes (``engine_compare.py`` without
``--interleaved``) vary by several per cent.

Run (``engine_compare.py --interleaved`` does this for you with a commit's worktree)::

    PYTHONHASHSEED=1 .venv/bin/python benchmarks/engine_ab.py . /path/to/old/tree --case a
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent


def load(tree: str) -> ModuleType:
    """``engine_speed`` (and through it ``cabo_kit``) imported from ``tree``; earlier trees' modules set aside."""
    for name in list(sys.modules):
        if name == "cabo_kit" or name.startswith("cabo_kit.") or name in ("engine_speed", "fast_random_bot"):
            del sys.modules[name]
    sys.path[:0] = [str(Path(tree).resolve()), str(HERE)]
    try:
        module = importlib.import_module("engine_speed")
    finally:
        del sys.path[:2]
    where = Path(module.ck.__file__).resolve()
    if not where.is_relative_to(Path(tree).resolve()):
        raise SystemExit(f"cabo_kit came from {where}, not from {tree}: is there a cabo_kit/ in that tree?")
    return module


def chunk_rate(module: ModuleType, case: str, seeds: range) -> float:
    """Turns per second of CPU time over ``seeds``' games (engine_speed's own timing of each game)."""
    figures = module.Figures()
    case_ = {c.key: c for c in module.CASES}[case]
    for seed in seeds:
        module.play_one(case_, seed, figures)
    return float(figures.turns / figures.seconds)


def compare(tree_a: str, tree_b: str, case: str, chunks: int, games: int) -> dict[str, float]:
    """Speed of ``tree_a``'s engine over ``tree_b``'s: median and quartiles of the chunk ratios, and each side's median rate."""
    engines = [load(tree_a), load(tree_b)]
    for module in engines:  # warm up: the engines' caches (action tables...) and the interpreter's specialisation
        chunk_rate(module, case, range(10_000_000, 10_000_000 + 2 * games))
    ratios: list[float] = []
    rates: tuple[list[float], list[float]] = ([], [])
    for chunk in range(chunks):
        seeds = range(chunk * games, (chunk + 1) * games)
        got = [0.0, 0.0]
        for side in ((0, 1) if chunk % 2 == 0 else (1, 0)):
            got[side] = chunk_rate(engines[side], case, seeds)
            rates[side].append(got[side])
        ratios.append(got[0] / got[1])
    q1, median, q3 = statistics.quantiles(ratios, n=4)
    return {"ratio": median, "q1": q1, "q3": q3, "a": statistics.median(rates[0]), "b": statistics.median(rates[1])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree_a", help="source tree of the engine to time (a checkout holding cabo_kit/)")
    parser.add_argument("tree_b", help="source tree of the engine to compare it with")
    parser.add_argument("--case", default="a", help="an engine_speed.py case (default a)")
    parser.add_argument("--chunks", type=int, default=200, help="chunks of games per engine (default 200)")
    parser.add_argument("--games", type=int, default=10, help="games per chunk (default 10)")
    parser.add_argument("--json", action="store_true", help="print only a line of JSON")
    args = parser.parse_args(argv)
    if args.chunks < 2 or args.games < 1:
        parser.error("need --chunks >= 2 and --games >= 1")
    result = compare(args.tree_a, args.tree_b, args.case, args.chunks, args.games)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"case {args.case}: A {result['a']:,.0f} turns/s, B {result['b']:,.0f}; A/B {result['ratio']:.3f} "
              f"(quartiles {result['q1']:.3f}-{result['q3']:.3f}, {args.chunks} chunks of {args.games} games each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
