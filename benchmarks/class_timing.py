"""A teacher's class, timed: the commands of docs/teaching.md on a simulated class of N students.

The class: N submissions ``s01.py`` ... ``sNN.py`` made from the twelve styles of ``tests/class_bots/``
(cycled, each under its student's name; the slow Monte Carlo bot at most ``--slow`` times, 1 by
default), plus GreedyBot and RandomBot as reference bots, three presets, 4-player tables and
``precision = 50``, in a temporary folder (or ``--folder``). A class above twelve students repeats
styles, and a repeated style is a copy by construction: the copy check flags it.

The steps, each a ``cabo-kit`` command run as a teacher runs it, timed on the wall clock:

1. ``check-bot SLOW --class DIR``: the slow file checked with the class's settings;
2. ``tournament run DIR --estimate``: the expected duration, before playing;
3. ``tournament run DIR``: the tournament (balanced games, then adaptive until +-50);
4. ``tournament copies DIR``: the copy check;
5. ``tournament grades DIR``: ``grades.csv`` against GreedyBot;
6. a late file dropped into ``bots/``, then ``tournament run DIR`` again: the games it added.

A command this cabo-kit does not have yet (``--class``, ``--estimate``, ``grades``) is reported as
"not available" and the rest goes on; so are ``tournament.toml``'s ``anchor`` and ``grading``
keys. Each step's whole output is kept in ``DIR/class_timing.log``.

Run: ``python benchmarks/class_timing.py --students 20`` (``--precision 50``, ``--games 32``,
``--seed 0``, ``--workers``). A quick try on shared cores: ``--students 4 --games 4 --precision 0``.
"""

from __future__ import annotations

import argparse
import csv
import math
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

STYLES_DIR = Path(__file__).resolve().parent.parent / "tests" / "class_bots"
SLOW = "slow_montecarlo.py"
# The order students are handed the styles (the slow one is placed by class_files).
STYLES = ["good.py", "naive_low.py", "rare_crash.py", "counting_renamed.py", "own_greedy.py", "sometimes_illegal.py",
          "copy_of_good.py", "naive_first.py", "careful.py", "chatty.py", "naive_cabo.py"]
LATE_STYLE = "own_greedy.py"
MISSING = ("unrecognized arguments", "invalid choice", "no such option")


def class_files(students: int, slow: int) -> list[tuple[str, str]]:
    """``(student file, style file)`` for each student: the styles in turn, the slow one as student 7 (or the
    last, in a smaller class) and, with ``slow = 2``, as student 19 too.

    >>> class_files(3, 1)
    [('s01.py', 'good.py'), ('s02.py', 'naive_low.py'), ('s03.py', 'slow_montecarlo.py')]
    >>> [n for n, style in class_files(40, 2) if style == SLOW]
    ['s07.py', 's19.py']
    """
    slow_at = [n for n in (min(students, 7), 19) if n <= students][:slow]
    out, i = [], 0
    for n in range(1, students + 1):
        if n in slow_at:
            style = SLOW
        else:
            style, i = STYLES[i % len(STYLES)], i + 1
        out.append((f"s{n:02d}.py", style))
    return out


def make_class(folder: Path, students: int, slow: int, games: int, precision: int, seed: int, extra: str) -> list[tuple[str, str]]:
    bots = folder / "bots"
    bots.mkdir(parents=True, exist_ok=True)
    files = class_files(students, slow)
    for name, style in files:
        shutil.copyfile(STYLES_DIR / style, bots / name)
    (folder / "tournament.toml").write_text(
        'presets = ["deluxe", "rush", "traveller"]\n'
        "table_sizes = [4]\n"
        f"games = {games}\n"
        f"precision = {precision}\n"
        f"seed = {seed}\n"
        'reference = ["GreedyBot", "RandomBot"]\n' + extra)
    return files


def supported_keys(folder: Path) -> list[str]:
    """Which of the teacher's keys ``anchor`` and ``grading`` this cabo-kit's tournament.toml accepts."""
    from cabo_kit.tournament.config import ConfigError, load_config

    ok = []
    toml = folder / "tournament.toml"
    base = toml.read_text()
    for line in ('anchor = "GreedyBot"\n', 'grading = ["GreedyBot"]\n'):
        toml.write_text(base + line)
        try:
            load_config(folder)
            ok.append(line)
        except ConfigError:
            pass
    toml.write_text(base + "".join(ok))
    return ok


def store_games(folder: Path) -> int:
    path = folder / "results.sqlite"
    if not path.exists():
        return 0
    with sqlite3.connect(path) as db:
        return int(db.execute("select count(*) from games").fetchone()[0])


def elo_table(folder: Path) -> dict[tuple[str, str], float]:
    """``(bot, preset) -> elo`` from ``leaderboard.csv`` (empty when there is none)."""
    path = folder / "leaderboard.csv"
    if not path.exists():
        return {}
    with path.open() as f:
        return {(row["bot"], row["preset"]): float(row["elo"]) for row in csv.DictReader(f) if row.get("elo")}


def grade_counts(rows: list[dict[str, str]]) -> str:
    """Per column of ``grades.csv`` whose values start with above/level/below: how many of each."""
    out = []
    for column in rows[0] if rows else []:
        words = [(row[column] or "").split(" ")[0].lower() for row in rows]
        if words and all(w in ("above", "level", "below") for w in words):
            out.append(f"{column}: " + ", ".join(f"{words.count(w)} {w}" for w in ("above", "level", "below")))
    return "; ".join(out)


@dataclass
class Step:
    name: str
    command: str
    seconds: float | None = None
    status: str = ""
    result: str = ""


def run_step(name: str, args: list[str], log: Path) -> tuple[Step, str]:
    """Run ``cabo-kit ARGS``, timed; its output goes to the log, and is returned."""
    step = Step(name, "cabo-kit " + " ".join(args))
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", "from cabo_kit.cli import main; raise SystemExit(main())", *args],
                          capture_output=True, text=True)
    step.seconds = time.perf_counter() - start
    out = proc.stdout + proc.stderr
    with log.open("a") as f:
        f.write(f"$ {step.command}\n(exit {proc.returncode}, {step.seconds:.1f} s)\n{out}\n")
    if proc.returncode == 2 and any(m in out for m in MISSING):
        step.seconds, step.status = None, "not available"
    else:
        step.status = f"exit {proc.returncode}"
    return step, out


def lines_with(text: str, *words: str, limit: int = 3) -> str:
    found = [ln.strip() for ln in text.splitlines() if any(w in ln.lower() for w in words)]
    return "; ".join(found[:limit])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=20)
    ap.add_argument("--precision", type=int, default=50, help="tournament.toml's precision (0: off)")
    ap.add_argument("--games", type=int, default=32, help="balanced games per bot, preset and table size")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--slow", type=int, default=1, help="how many students hand in the slow Monte Carlo bot (0-2)")
    ap.add_argument("--workers", type=int, default=0, help="tournament.toml's workers (0: every usable core)")
    ap.add_argument("--folder", type=Path, help="make the class here (kept) instead of in a temporary folder")
    args = ap.parse_args(argv)
    if args.students < 1:
        ap.error("--students must be at least 1")

    tmp = None if args.folder else tempfile.mkdtemp(prefix="class-timing-")
    folder = args.folder or Path(tmp or ".") / "class"
    if (folder / "bots").exists():
        ap.error(f"{folder} already holds a class: give another --folder")
    extra = f"workers = {args.workers}\n" if args.workers else ""
    files = make_class(folder, args.students, min(args.slow, 2), args.games, args.precision, args.seed, extra)
    keys = supported_keys(folder)
    log = folder / "class_timing.log"
    d = str(folder)
    slow = next((name for name, style in files if style == SLOW), files[0][0])
    print(f"class: {args.students} students + GreedyBot, RandomBot; 3 presets, 4-player tables, games = {args.games}, "
          f"precision = {args.precision}, seed = {args.seed}; in {folder}")
    print("tournament.toml: " + (", ".join(k.strip() for k in keys) or "no anchor or grading key (not available)"))
    print("styles: " + ", ".join(f"{n[:-3]}={s[:-3]}" for n, s in files))
    steps: list[Step] = []

    def step(name: str, cli: list[str]) -> tuple[Step, str]:
        print(f"... {name}: cabo-kit {' '.join(cli)}", flush=True)
        s, out = run_step(name, cli, log)
        steps.append(s)
        return s, out

    s, out = step("check the slow file with the class's settings", ["check-bot", f"{d}/bots/{slow}", "--class", d])
    if s.status != "not available":
        s.result = lines_with(out, "minute", "slower", "warn", "problem") or (out.strip().splitlines() or [""])[-1]

    s, out = step("estimate before playing", ["tournament", "run", d, "--estimate"])
    if s.status != "not available":
        s.result = lines_with(out, "estimate", "expect", "minute", "about") or (out.strip().splitlines() or [""])[0]
        played = store_games(folder)
        if played:
            s.result += f" (it stored {played} games: the sample)"

    before = store_games(folder)
    s, out = step("tournament run", ["tournament", "run", d, "--no-progress"])
    first = store_games(folder)
    s.result = f"{first - before} games played, {first} stored"
    if s.seconds and first > before:
        s.result += f", {(first - before) / s.seconds:.1f} games/s"
    faults = lines_with(out, "fault", limit=2)
    if faults:
        s.result += f"; {faults}"

    s, out = step("copies", ["tournament", "copies", d])
    if s.status != "not available":
        flags = [ln.strip() for ln in out.splitlines() if "plays like" in ln]
        s.result = f"{len(flags)} flagged" + (": " + "; ".join(flags[:6]) if flags else "") + ("; ..." if len(flags) > 6 else "")

    s, out = step("grades", ["tournament", "grades", d])
    if s.status != "not available":
        grades = folder / "grades.csv"
        if grades.exists():
            with grades.open() as f:
                rows = list(csv.DictReader(f))
            s.result = f"grades.csv: {len(rows)} rows, columns {', '.join(rows[0]) if rows else '-'}"
            counts = grade_counts(rows)
            if counts:
                s.result += f"; {counts}"
        else:
            s.result = lines_with(out, "grade", "wrote") or "no grades.csv written"

    elo_before = elo_table(folder)
    late = f"s{args.students + 1:02d}.py"
    shutil.copyfile(STYLES_DIR / LATE_STYLE, folder / "bots" / late)
    text = (folder / "bots" / late).read_text()  # its own Cabo threshold: not a copy of the student with the same style
    (folder / "bots" / late).write_text(text.replace("class Greedo", "class LateGreedo").replace(") <= 8", ") <= 10"))
    s, out = step(f"late file {late}, run again", ["tournament", "run", d, "--no-progress"])
    added = store_games(folder) - first
    s.result = f"{added} games added ({added / max(first, 1):.0%} of the first run's)"
    elo_after = elo_table(folder)
    moved = [(abs(elo_after[k] - v), k) for k, v in elo_before.items() if k in elo_after and math.isfinite(elo_after[k] - v)]
    if moved:
        change, (bot, preset) = max(moved)
        s.result += f"; the largest Elo change of a bot already there: {change:.0f} ({bot}, {preset})"

    print()
    print(f"| step | command | seconds | result |")
    print(f"| --- | --- | ---: | --- |")
    for s in steps:
        secs = "not available" if s.status == "not available" else f"{s.seconds:.1f}"
        status = "" if s.status in ("exit 0", "not available") else f" ({s.status})"
        command = s.command.replace(d, "DIR")
        print(f"| {s.name} | `{command}` | {secs} | {s.result.replace(d, 'DIR').replace('|', '/')}{status} |")
    print(f"\nevery command's output: {log}" + ("" if args.folder else " (a temporary folder, kept: delete it when done)"))


if __name__ == "__main__":
    main()
