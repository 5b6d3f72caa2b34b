"""The class portal's speed figures of issue 19, measured against a real ``cabo-kit serve``.

Each part starts ``cabo-kit serve`` (uvicorn on 127.0.0.1, ``--same-user-bots``) on a class folder
of its own in a temporary directory, with a roster, signs students in through their links in
``portal-links.csv`` and uses the portal as a browser does (cookies, the anti-forgery token of
the page's form, multipart uploads, the ``/check`` poll of ``static/portal.js``):

(a) **30 uploads at once.** 30 students each upload a file of ``tests/class_bots/`` (the styles of a
    class, the slow Monte Carlo one left out: every file about as fast as a reference bot) at the
    same moment. For each: from the start of its upload to the check's verdict on the page: the page
    asks ``/check`` every 1.5 s as ``portal.js`` does, then reloads itself (``GET /``, which must show
    the verdict). Median and maximum; the issue's target: median under 15 s. That verdict is the
    check's first (its games and their replay); an accepted file plays at once, and the rest of its
    check (the time it adds to the class, in the background) may still reject it: the page then asks
    ``/check`` every 3 s, as ``portal.js`` does, until the rest is done. Printed too: from upload to
    the complete result, and how many verdicts the rest changed. The games wait while a wave of
    uploads waits for its first verdicts, then play while the rests run.
(b) **Any page, 200 students on the roster, while games run.** A class of ``--b-students`` (200), each with a
    rejected and an accepted upload, and ``--b-games`` (20,000) made-up 4-player games of the
    accepted versions in ``results.sqlite`` (as ``portal_streams.py`` makes them). Games "run" two
    ways at once: new made-up games are stored ``--b-flow`` a second (the live board refits as in a
    running class), and a real tournament of the reference bots plays in another folder on every core,
    niced (the CPU that the portal's own games take with the default ``--workers`` while no check runs;
    the portal's games are paused, as its bots' stored games are made up). Then, one request at a time, each from another student: the student's
    page ``/``, ``/games``, ``/faults``, ``/check``, a file ``/code/2``, the board (opening ``/live``
    until its first board), the teacher's page ``/teacher``, all rejected uploads ``/teacher/rejected``
    and the teacher's views of another student's page, games and faults (``/teacher/students/ID...``).
    The teacher's page keeps its roster and rejected uploads until a person or an upload changes (its
    games and faults cells are fresh at every request): it is timed twice, as it comes (kept) and
    right after a change (a student's rejected upload given a new check result just before the
    request, from another process, as a check that ends does: the
    queries run again and that student's rows are rendered again).
    Median, 95th percentile and maximum
    of each; the issue's target: the 95th percentile of every page under 100 ms.
(c) **200 open leaderboard pages kept up to date.** Runs ``benchmarks/portal_streams.py`` (the live
    board's own benchmark, ``--c-args`` passed on) and prints its figures: from new games' commit to
    each of the 200 streams' new board. The issue's target: within 2 s.
(d) **A class of 30 fresh uploads reaches +-50 Elo.** Continues (a): the class folder has the
    settings of docs/teaching.md section 1 (4-player tables, 32 games, ``precision = 50``, ``max_games = 4000``, GreedyBot
    and RandomBot, anchored at GreedyBot, graded against it), with ``--presets`` (default the three).
    Three wall times from the uploads: when the teacher's live board (``/live``, intervals refitted
    every 30 s) first shows every bot of the class with an interval within +-50 of its Elo on either
    side (the runner's measure: the larger side; or one-sided below, a bot the runner does not wait
    on); when the last tournament game is stored (the adaptive run stopped: every two-sided interval
    within +-50, or the game budget spent; the grading games against GreedyBot, in their own store,
    and the report follow); and when the teacher's page says the games are up to date (that run, its
    grading and its report done, every upload checked). Then the widest interval of
    ``leaderboard.csv`` (the larger side), the live board's widest about once a minute, when the
    games' log said the adaptive run, the grading and the outputs were done, and how the run said
    each preset ended (within the target, or at the budget). The issue's target: under 15 minutes.
    Meanwhile a student's page and the teacher's are timed every 5 s (the games run on every core,
    niced). ``--d-timeout`` minutes (default 60) stops waiting; ``--max-games N`` sets the class's
    budget; ``--keep DIR`` copies the class folder there at the end (its stores and ``portal/games.log``).

Run (from the repository, 2 cores shared: the load average is printed with each part)::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/portal_speed.py                       # every part
    PYTHONPATH=$PWD .venv/bin/python benchmarks/portal_speed.py --part b,c
    PYTHONPATH=$PWD .venv/bin/python benchmarks/portal_speed.py --part a,d --presets rush

It ends with a table of the figures. A smoke test of its helpers (not in the test suite):
``python -m pytest --doctest-modules benchmarks/portal_speed.py``.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import re
import shlex
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from class_timing import STYLES_DIR, class_files  # noqa: E402

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
POLL = 1.5  # static/portal.js asks /check this often while a check runs


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nearest rank).

    >>> percentile([5, 1, 4, 2, 3], 0.5), percentile(list(range(1, 101)), 0.95)
    (3, 95)
    """
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q * (len(s) - 1))))]


def class_toml(presets: list[str], max_games: int = 4000) -> str:
    """docs/teaching.md section 1's ``tournament.toml`` (``max_games = 4000``) with these presets (and another
    ``max_games``, if given).

    >>> print(class_toml(["rush"]).splitlines()[0])
    presets = ["rush"]
    >>> class_toml(["rush"]).splitlines()[-1], class_toml(["rush"], 2000).splitlines()[-1]
    ('max_games = 4000', 'max_games = 2000')
    """
    return (f"presets = [{', '.join(repr(p).replace(chr(39), chr(34)) for p in presets)}]\n"
            "table_sizes = [4]\ngames = 32\nprecision = 50\nseed = 2026\n"
            'reference = ["GreedyBot", "RandomBot"]\nanchor = "GreedyBot"\ngrading = ["GreedyBot"]\n'
            + f"max_games = {max_games}\n")


def widest(rows: list[dict[str, str]]) -> tuple[float, int]:
    """The widest two-sided half-width of ``leaderboard.csv`` rows, as the runner's precision target measures it
    (:func:`~cabo_kit.results.ratings.half_width`: the larger side), and how many rows are one-sided (an ``inf`` end).

    >>> widest([{"elo": "990", "elo_low": "950", "elo_high": "1040"}, {"elo": "500", "elo_low": "-inf", "elo_high": "700"},
    ...         {"elo": "1000", "elo_low": "1000", "elo_high": "1000"}])
    (50.0, 1)
    """
    import pandas as pd

    from cabo_kit.results.ratings import half_width

    if not rows:
        return 0.0, 0
    halves = half_width(pd.DataFrame(rows)[["elo", "elo_low", "elo_high"]].astype(float))
    return float(halves.max()) if halves.notna().any() else 0.0, int(halves.isna().sum())


def _halves(rows: list[dict[str, Any]]) -> list[float | None]:
    """Live board rows' half-widths (:func:`~cabo_kit.results.ratings.half_width`, the runner's measure); ``None``
    where a row's interval is not two-sided (pending, one-sided)."""
    import pandas as pd

    from cabo_kit.results.ratings import half_width

    parsed = []
    for row in rows:
        found = re.fullmatch(r"(-?\d+)\u2013(-?\d+)", row["interval"])
        parsed.append((float(row["elo"]), float(found.group(1)), float(found.group(2))) if found
                      else (math.nan, -math.inf, math.inf))
    if not parsed:
        return []
    halves = half_width(pd.DataFrame(parsed, columns=["elo", "elo_low", "elo_high"]))
    return [None if h != h else float(h) for h in halves]


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


@dataclass
class Figure:
    part: str
    what: str
    value: str
    target: str = ""
    met: bool | None = None


@dataclass
class Report:
    figures: list[Figure] = field(default_factory=list)

    def add(self, *args: Any, **kw: Any) -> None:
        self.figures.append(Figure(*args, **kw))

    def table(self) -> str:
        rows = [("part", "figure", "measured", "target", "met")] + [
            (f.part, f.what, f.value, f.target, "" if f.met is None else "yes" if f.met else "NO") for f in self.figures]
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        lines = [" | ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines.insert(1, "-+-".join("-" * w for w in widths))
        return "\n".join(lines)


# ------------------------------------------------------------------ the server and its browsers


class Server:
    """``cabo-kit serve FOLDER --roster ROSTER`` on 127.0.0.1:``port``, stopped with SIGTERM."""

    def __init__(self, folder: Path, roster: Path, port: int, extra: list[str]) -> None:
        self.folder, self.port = folder, port
        self.log = folder.parent / f"server-{port}.log"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
        self.command = [sys.executable, "-m", "cabo_kit.cli", "serve", str(folder), "--roster", str(roster),
                        "--port", str(port), "--same-user-bots", *extra]
        with open(self.log, "wb") as out:
            self.proc = subprocess.Popen(self.command, stdout=out, stderr=subprocess.STDOUT, env=env)
        until = time.monotonic() + 120
        while b"Uvicorn running" not in self.log.read_bytes():
            if self.proc.poll() is not None or time.monotonic() > until:
                self.stop()
                raise RuntimeError(f"the server did not start:\n{self.log.read_text()}")
            time.sleep(0.1)
        with open(folder / "portal-links.csv", newline="") as f:
            self.links = {row["id"]: row["link"].split(f":{port}", 1)[1] for row in csv.DictReader(f)}

    def browser(self, pid: str) -> "Browser":
        return Browser(self.port, self.links[pid])

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class Browser:
    """One person's browser: signed in through their link (the session cookie kept by httpx)."""

    def __init__(self, port: int, link: str) -> None:
        self.http = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120)
        page = self.http.get(link, follow_redirects=True)
        if page.status_code != 200:
            raise RuntimeError(f"signing in gave {page.status_code}")
        found = CSRF.search(page.text)
        self.csrf = found.group(1) if found else ""

    def timed_get(self, path: str) -> tuple[float, httpx.Response]:
        t0 = time.perf_counter()
        response = self.http.get(path)
        return time.perf_counter() - t0, response

    def first_board(self) -> float:
        """Open the live stream as a page does and read until its first board: the seconds it took."""
        t0 = time.perf_counter()
        with self.http.stream("GET", "/live", headers={"accept": "text/event-stream"}) as response:
            seen = ""
            for chunk in response.iter_text():
                seen += chunk
                at = seen.find("event: board")
                if at >= 0 and "\n\n" in seen[at:]:
                    return time.perf_counter() - t0
        raise RuntimeError("the stream ended before its first board")

    def close(self) -> None:
        self.http.close()


def spread(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return f"median {statistics.median(ms):.0f} ms, p95 {percentile(ms, 0.95):.0f} ms, max {max(ms):.0f} ms (n={len(ms)})"


# ------------------------------------------------------------------ (a) and (d): a class of fresh uploads


def class_run(args: argparse.Namespace, report: Report, tmp: Path, parts: set[str]) -> None:
    folder, roster = tmp / "class-a", tmp / "roster-a.csv"
    files = class_files(args.students, 0)
    ids = [name[:-3] for name, _ in files]
    roster.write_text("id,name\n" + "".join(f"{sid},Student {sid}\n" for sid in ids))
    folder.mkdir()
    (folder / "tournament.toml").write_text(class_toml(args.presets, args.max_games))
    extra = [*(["--check-workers", str(args.check_workers)] if args.check_workers else []),
             *(["--workers", str(args.workers)] if args.workers else [])]
    print(f"\n(a{', d' if 'd' in parts else ''}) a class of {args.students}, presets {','.join(args.presets)}; "
          f"{load()}")
    server = Server(folder, roster, args.port, extra)
    print(f"  {shlex.join(server.command[2:])}")
    try:
        browsers = {sid: server.browser(sid) for sid in ids}
        teacher = server.browser("_teacher")
        uploads = {sid: (STYLES_DIR / style).read_bytes() for (name, style), sid in zip(files, ids)}
        barrier = threading.Barrier(len(ids))
        started: dict[str, float] = {}
        done: dict[str, tuple[float, str]] = {}
        complete: dict[str, tuple[float, str]] = {}  # when the rest of the check was done, and its verdict

        def student(sid: str) -> None:
            b = browsers[sid]
            barrier.wait()
            started[sid] = time.perf_counter()
            response = b.http.post("/upload", data={"csrf": b.csrf},
                                   files={"file": (f"{sid}_bot.py", uploads[sid], "text/x-python")})
            if response.status_code != 303:
                done[sid] = (time.perf_counter(), f"refused {response.status_code}")
                return
            while True:  # as portal.js: ask /check every 1.5 s, reload the page once the verdict is in
                time.sleep(POLL)
                status = b.http.get("/check").json()["status"]
                if status != "running":
                    page = b.http.get("/")
                    shown = re.search(r'id="cabo-portal-check"[^>]*data-status="(\w+)"', page.text)
                    done[sid] = (time.perf_counter(), shown.group(1) if shown else "not shown")
                    break
            state = b.http.get("/check").json()
            while state.get("rest"):  # as portal.js: the rest of the check runs; ask every 3 s until it is done
                time.sleep(3.0)
                state = b.http.get("/check").json()
            complete[sid] = (time.perf_counter(), state["status"])

        watch = BoardWatch(server, lambda: 2 + sum(1 for s in ids if complete.get(s, (0, ""))[1] == "accepted")
                           if len(complete) == len(ids) else 10**6)
        watch.start()
        threads = [threading.Thread(target=student, args=(sid,)) for sid in ids]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        t_uploads = min(started.values())
        waits = [done[s][0] - started[s] for s in ids]
        verdicts = {v: sum(1 for s in ids if done[s][1] == v) for v in sorted({d[1] for d in done.values()})}
        print(f"  upload to verdict on the page: median {statistics.median(waits):.1f} s, max {max(waits):.1f} s; "
              f"verdicts {verdicts}; {load()}")
        print(f"  each verdict, sorted (s): {' '.join(f'{w:.0f}' for w in sorted(waits))}")
        report.add("a", f"{len(ids)} uploads at once: upload to the check's verdict on the page, median",
                   f"{statistics.median(waits):.1f} s", "< 15 s", statistics.median(waits) < 15)
        report.add("a", "  the same, max", f"{max(waits):.1f} s")
        report.add("a", "  verdicts", ", ".join(f"{n} {v}" for v, n in verdicts.items()))
        fulls = [complete[s][0] - started[s] for s in ids]
        changed = sorted(s for s in ids if complete[s][1] != done[s][1])
        print(f"  upload to the complete check (its rest done): median {statistics.median(fulls):.1f} s, max "
              f"{max(fulls):.1f} s; verdicts the rest changed: {len(changed)} {changed or ''}; {load()}")
        report.add("a", "  upload to the complete check (the rest done), median / max",
                   f"{statistics.median(fulls):.1f} / {max(fulls):.1f} s")
        report.add("a", "  verdicts the rest of the check changed", str(len(changed)))
        if "d" not in parts:
            return
        until = t_uploads + args.d_timeout * 60
        last_print = 0.0
        state = ""
        count, grew = 0, t_uploads  # the store's games, and when they last grew (then grading, the report)
        pages: dict[str, list[float]] = {"a student's page /": [], "the teacher's page /teacher": []}
        phases: dict[str, float] = {}  # when the games' log first said each phase was done (within 5 s)
        while time.perf_counter() < until:
            log_phases(folder, phases)
            pages["a student's page /"].append(browsers[ids[len(pages["a student's page /"]) % len(ids)]].timed_get("/")[0])
            now_count = stored_games(folder)
            if now_count != count:
                count, grew = now_count, time.perf_counter()
            took, response = teacher.timed_get("/teacher")
            pages["the teacher's page /teacher"].append(took)
            page = response.text
            found = re.search(r'id="cabo-portal-run" data-state="(\w+)"', page)
            state = found.group(1) if found else "?"
            if state == "idle" and "Up to date" in page:
                break
            if state == "error":
                print("  the games stopped with an error:", re.sub(r"<[^>]+>", " ", page.split("cabo-portal-run", 1)[1][:600]))
                break
            now = time.perf_counter()
            if now - last_print > 60:
                last_print = now
                print(f"  {(now - t_uploads) / 60:.1f} min: {state}, {stored_games(folder)} games stored; {load()}")
            time.sleep(5)
        took = (time.perf_counter() - t_uploads) / 60
        games = stored_games(folder)
        log_phases(folder, phases)
        timeline(watch, t_uploads)
        for what, at in sorted(phases.items(), key=lambda kv: kv[1]):
            print(f"  {(at - t_uploads) / 60:5.1f} min: {what}")
        print("  the last run said: " + "\n    ".join(run_notes(folder)))
        for name, values in pages.items():
            if values:
                print(f"  {name} while the games ran: {spread(values)}")
                report.add("d", f"  {name} while the games ran, p95", f"{percentile(values, 0.95) * 1000:.0f} ms "
                           f"(median {statistics.median(values) * 1000:.0f})")
        if state != "idle":
            print(f"  not up to date after {took:.1f} min ({state}, {games} games stored)")
            report.add("d", f"{len(ids)} fresh uploads to +-50 Elo ({','.join(args.presets)})",
                       f"> {took:.0f} min (stopped waiting; {games} games)", "< 15 min", False)
            if watch.reached is not None:
                report.add("d", "  the teacher's live board first within +-50 (its bootstrap every 30 s)",
                           f"{(watch.reached - t_uploads) / 60:.1f} min", "< 15 min", watch.reached - t_uploads < 900)
            return
        with open(folder / "leaderboard.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        half, one_sided = widest(rows)
        print(f"  up to date {took:.1f} min after the uploads: {games} games stored; widest two-sided interval "
              f"+-{half:.0f} Elo, {one_sided} of {len(rows)} rows one-sided; {load()}")
        report.add("d", f"{len(ids)} fresh uploads to +-50 Elo ({','.join(args.presets)}), wall time",
                   f"{took:.1f} min ({games} games)", "< 15 min", took < 15)
        report.add("d", "  widest two-sided interval; one-sided rows", f"+-{half:.0f} Elo; {one_sided} of {len(rows)}")
        report.add("d", "  the last tournament game stored (then grading and the report)",
                   f"{(grew - t_uploads) / 60:.1f} min (within 5 s)")
        if watch.reached is not None:
            at = (watch.reached - t_uploads) / 60
            print(f"  the teacher's live board first showed every interval within +-50 {at:.1f} min after the uploads")
            if watch.lost is not None:
                print(f"  ... and a wider one again at {(watch.lost - t_uploads) / 60:.1f} min (see the board's timeline)")
            report.add("d", "  the teacher's live board first within +-50 (its bootstrap every 30 s)", f"{at:.1f} min",
                       "< 15 min", at < 15)
    finally:
        server.stop()
        if args.keep:
            keep(folder, Path(args.keep))


PHASES = {"the adaptive run stopped": re.compile(r"^\S+: (every two-sided interval|the game budget)"),
          "grading done": re.compile(r"^grading: \d+ games played"),
          "leaderboard and report written": re.compile(r"^leaderboard: ")}


def _games_log(folder: Path) -> list[str]:
    try:
        return (folder / "portal" / "games.log").read_text(errors="replace").replace("\r", "\n").splitlines()
    except OSError:
        return []


def log_phases(folder: Path, phases: dict[str, float]) -> None:
    """Note when the games' log (the last run's) first shows each of :data:`PHASES`."""
    lines = _games_log(folder)
    for what, pattern in PHASES.items():
        if what not in phases and any(pattern.search(line) for line in lines):
            phases[what] = time.perf_counter()


def run_notes(folder: Path) -> list[str]:
    """What the last run said of how it ended: each preset's stop, its games, the grading."""
    keep = re.compile(r"^(\S+: (every two-sided|the game budget)|\d+ games played|grading: |playing \d+ games)")
    return [line.strip() for line in _games_log(folder) if keep.search(line)]


def timeline(watch: "BoardWatch", t0: float) -> None:
    """Print the live board's widest interval about once a minute (and its last board)."""
    shown, last = -1.0, None
    for at, half, rows, wide in watch.timeline:
        minute = (at - t0) / 60
        last = f"  board at {minute:5.1f} min: widest +-{half:.0f}, {wide} of {rows} rows not within +-50"
        if minute - shown >= 1.0:
            shown = minute
            print(last)
            last = None
    if last:
        print(last)


def keep(folder: Path, to: Path) -> None:
    """Copy what a class run left (the stores, the games' log, the outputs) to ``to`` for a look afterwards."""
    import shutil

    shutil.rmtree(to, ignore_errors=True)
    shutil.copytree(folder, to, ignore=shutil.ignore_patterns("bot-pages", "*.html"))
    print(f"  kept the class folder in {to}")


def board_within(board: dict[str, Any], bots: int, precision: float = 50.0) -> bool:
    """Whether a live board (the teacher's ``event: board``) rates ``bots`` bots in each of its presets, every interval
    within ``precision`` Elo either side of its Elo (the runner's measure, give or take the board's rounding) or
    one-sided below (a bot far below the rest, which the runner does not wait on).

    >>> row = lambda bot, elo, interval: {"bot": bot, "preset": "rush", "elo": elo, "interval": interval}
    >>> board_within({"rows": [row("a", "995", "950\u20131040"), row("b", "500", "below 700")]}, 2)
    True
    >>> board_within({"rows": [row("a", "990", "950\u20131045")]}, 1)    # 40 below, 55 above: not within +-50
    False
    >>> board_within({"rows": [row("a", "995", "950\u20131040"), row("b", "900", "pending")]}, 2)
    False
    """
    per_preset: dict[str, int] = {}
    rows = board.get("rows", [])
    for r, half in zip(rows, _halves(rows)):
        per_preset[r["preset"]] = per_preset.get(r["preset"], 0) + 1
        if not (half is not None and half <= precision + 1) and not r["interval"].startswith("below "):
            return False
    return bool(per_preset) and min(per_preset.values()) >= bots


def board_widest(board: dict[str, Any], precision: float = 50.0) -> tuple[float, int, int]:
    """A live board's widest two-sided half-width (the larger side, as :func:`board_within`), its rows, and its rows
    not within ``precision`` (pending, or wider; one-sided below counts as within, as in :func:`board_within`).

    >>> row = lambda elo, interval: {"bot": "a", "preset": "rush", "elo": elo, "interval": interval}
    >>> board_widest({"rows": [row("995", "950\u20131040"), row("500", "below 700"), row("950", "900\u20131020"),
    ...                        row("900", "pending")]})
    (70.0, 4, 2)
    """
    half, rows, wide = 0.0, 0, 0
    shown = board.get("rows", [])
    for r, h in zip(shown, _halves(shown)):
        rows += 1
        if h is not None:
            half = max(half, h)
            wide += h > precision + 1
        elif not r["interval"].startswith("below "):
            wide += 1
    return half, rows, wide


class BoardWatch(threading.Thread):
    """Follows the teacher's live board (``/live``): each board's widest interval (:attr:`timeline`, to the end), when
    it first shows every interval within +-50 (:attr:`reached`), and when one is wider again after that (:attr:`lost`)."""

    def __init__(self, server: Server, bots: Any) -> None:
        super().__init__(daemon=True)
        self.browser = server.browser("_teacher")
        self.bots = bots  # called: how many bots the board must rate (the accepted files and the reference bots)
        self.reached: float | None = None
        self.lost: float | None = None  # the first board after `reached` not within +-50 (a refit widened it)
        self.boards = 0
        self.timeline: list[tuple[float, float, int, int]] = []  # (when, widest half-width, rows, rows not within)

    def run(self) -> None:
        import json

        try:
            with self.browser.http.stream("GET", "/live", headers={"accept": "text/event-stream"}) as response:
                buffer = ""
                for chunk in response.iter_text():
                    buffer += chunk
                    while "\n\n" in buffer:
                        message, buffer = buffer.split("\n\n", 1)
                        if message.startswith("event: board"):
                            self.boards += 1
                            data = json.loads(message.split("data: ", 1)[1])
                            self.timeline.append((time.perf_counter(), *board_widest(data)))
                            within = board_within(data, self.bots())
                            if within and self.reached is None:
                                self.reached = time.perf_counter()
                            elif not within and self.reached is not None and self.lost is None:
                                self.lost = time.perf_counter()
        except (httpx.HTTPError, RuntimeError):
            pass  # the server stopped


def stored_games(folder: Path) -> int:
    try:
        con = sqlite3.connect(f"file:{folder / 'results.sqlite'}?mode=ro", uri=True, timeout=10)
        try:
            return int(con.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        finally:
            con.close()
    except sqlite3.Error:
        return 0


# ------------------------------------------------------------------ (b) every page, 200 students, games running


def big_class(folder: Path, roster: Path, students: int, games: int, port: int, seed: int) -> None:
    """A class whose every student has a rejected upload and an accepted one, and ``games`` made-up stored games."""
    from portal_streams import add_games

    from cabo_kit.portal.links import write_links
    from cabo_kit.portal.roster import Student
    from cabo_kit.portal.state import PortalState
    from cabo_kit.tournament.store import Store

    ids = [f"s{i:03d}" for i in range(students)]
    roster.write_text("id,name\n" + "".join(f"{sid},Student {sid}\n" for sid in ids))
    styles = [style for _, style in class_files(students, 0)]
    state = PortalState(folder)
    try:
        tokens = state.sync_roster([Student(sid, f"Student {sid}") for sid in ids])
        versions = {}
        now = time.time() - 3600
        for sid, style in zip(ids, styles):
            state.add_upload(sid, b"def broken(:\n", "first_try.py", now=now, min_interval=0.0)
            state.set_check(sid, 1, "rejected", "first_try.py: line 1: invalid syntax (the check's sentences)")
            up = state.add_upload(sid, (STYLES_DIR / style).read_bytes() + f"# {sid}\n".encode(), f"{sid}_bot.py",
                                  now=now + 60, min_interval=0.0)
            state.set_check(sid, 2, "accepted", f"{sid}_bot.py: accepted (the check's sentences)")
            versions[sid] = up.version
        state.set_setting("games", "paused")  # its bots' stored games are made up: the load comes from elsewhere
        write_links(folder, tokens, {sid: f"Student {sid}" for sid in ids} | {"_teacher": "Teacher"},
                    f"http://127.0.0.1:{port}")
    finally:
        state.close()
    store = Store(folder / "results.sqlite")
    try:
        add_games(store, versions, games, seed, 0, one_transaction=True)
    finally:
        store.close()
    (folder / ".versions").write_text(" ".join(f"{k}={v}" for k, v in versions.items()))


def pages_part(args: argparse.Namespace, report: Report, tmp: Path) -> None:
    from portal_streams import add_games

    from cabo_kit.portal.games import default_workers
    from cabo_kit.portal.state import PortalState
    from cabo_kit.tournament.store import Store

    folder, roster = tmp / "class-b", tmp / "roster-b.csv"
    folder.mkdir()
    t0 = time.perf_counter()
    big_class(folder, roster, args.b_students, args.b_games, args.port + 1, args.seed)
    versions = dict(kv.split("=") for kv in (folder / ".versions").read_text().split())
    print(f"\n(b) a class of {args.b_students}, {args.b_games} games stored ({time.perf_counter() - t0:.0f} s); {load()}")
    # the games' CPU: a tournament of the reference bots on every core, niced as the portal's games are (with the
    # default --workers they take the checks' core too while no check runs)
    games_folder = tmp / "load"
    games_folder.mkdir()
    (games_folder / "tournament.toml").write_text(
        'presets = ["deluxe", "rush"]\ntable_sizes = [4]\ngames = 100000\nseed = 1\n'
        'reference = ["GreedyBot", "RandomBot", "CountingBot", "SearchBot"]\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    player = subprocess.Popen(["nice", "-n", "15", sys.executable, "-m", "cabo_kit.cli", "tournament", "run",
                               str(games_folder), "--workers", str(default_workers() + 1)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    server = Server(folder, roster, args.port + 1, [])
    stop = threading.Event()

    def flow() -> None:  # new games stored as a running tournament stores them: the live board refits
        store = Store(folder / "results.sqlite")
        n = args.b_games
        try:
            while not stop.wait(1.0 / args.b_flow):
                add_games(store, versions, 1, args.seed, n)
                n += 1
        finally:
            store.close()

    flowing = threading.Thread(target=flow, daemon=True)
    state = PortalState(folder)  # another process's changes, as the checks' (the server reads them from portal.sqlite)
    try:
        ids = sorted(versions)
        browsers = [server.browser(sid) for sid in ids]
        teacher = server.browser("_teacher")
        flowing.start()
        time.sleep(5)  # the games under way, the board's first fits done
        print(f"  serving, {args.b_flow:g} games/s stored, a reference tournament playing; {load()}")
        pages = {"student's page /": "/", "/games": "/games", "/faults": "/faults", "/check": "/check",
                 "a file /code/2": "/code/2", "the board (/live to its first board)": None, "teacher's page /teacher": "/teacher",
                 "teacher: /teacher/rejected": "/teacher/rejected",
                 "teacher: a student's page /teacher/students/ID": "/teacher/students/{sid}",
                 "teacher: a student's /games": "/teacher/students/{sid}/games",
                 "teacher: a student's /faults": "/teacher/students/{sid}/faults"}
        changed = "teacher's page /teacher right after a change"
        times: dict[str, list[float]] = {name: [] for name in (*pages, changed)}
        first = []  # the server's first request of each page (lazy imports, caches): shown apart
        for name, path in pages.items():
            b = teacher if path and path.startswith("/teacher") else browsers[-1]
            took = b.first_board() if path is None else b.timed_get(path.format(sid=ids[-1]))[0]
            first.append(f"{path or '/live'} {took * 1000:.0f} ms")
        print(f"  the first request of each page after the start (not counted below): {', '.join(first)}")
        for i in range(args.b_requests):
            for name, path in pages.items():
                other = (i * 7) % len(browsers)  # another student each time (the teacher: another student's pages)
                b = teacher if path and path.startswith("/teacher") else browsers[other]
                if path is None:
                    times[name].append(b.first_board())
                else:
                    took, response = b.timed_get(path.format(sid=ids[other]))
                    if response.status_code != 200:
                        raise RuntimeError(f"{path} answered {response.status_code}")
                    times[name].append(took)
                time.sleep(0.02)
            # a check's result changes (as when a check ends): the teacher's roster and rejected uploads are rendered
            # again at the next request
            other = (i * 7) % len(ids)
            state.set_check(ids[other], 1, "rejected", f"first_try.py: line 1: invalid syntax (checked again, {i})")
            times[changed].append(teacher.timed_get("/teacher")[0])
            time.sleep(0.02)
        for name, values in times.items():
            print(f"  {name}: {spread(values)}")
            p95 = percentile(values, 0.95) * 1000
            report.add("b", f"{args.b_students} students, games running: {name}, p95", f"{p95:.0f} ms "
                       f"(median {statistics.median(values) * 1000:.0f}, max {max(values) * 1000:.0f})", "< 100 ms", p95 < 100)
        print(f"  {stored_games(folder) - args.b_games} games stored meanwhile; {load()}")
        for b in (*browsers, teacher):
            b.close()
    finally:
        stop.set()
        state.close()
        server.stop()
        os.killpg(player.pid, signal.SIGTERM)
        player.wait()


# ------------------------------------------------------------------ (c) 200 open leaderboard pages


def streams_part(args: argparse.Namespace, report: Report) -> None:
    command = [sys.executable, str(ROOT / "benchmarks" / "portal_streams.py"), "--port", str(args.port + 2),
               *shlex.split(args.c_args)]
    print(f"\n(c) {shlex.join(command[1:])}; {load()}")
    out = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    print("\n".join("  " + line for line in out.stdout.splitlines()))
    if out.returncode:
        print(out.stderr[-3000:])
        report.add("c", "200 open pages", f"failed (exit {out.returncode})", "", False)
        return
    found = re.search(r"over (\d+) updates: median ([\d.]+) s, p95 ([\d.]+) s, max ([\d.]+) s; one broadcast reaches "
                      r"all streams within (\d+) ms", out.stdout)
    opened = re.search(r"(\d+) streams open", out.stdout)
    if found:
        n = opened.group(1) if opened else "?"
        report.add("c", f"{n} open pages: new games' commit to each page's new board, median / p95 / max",
                   f"{found.group(2)} / {found.group(3)} / {found.group(4)} s", "<= 2 s", float(found.group(4)) <= 2.0)
        report.add("c", "  one broadcast reaches every page within", f"{found.group(5)} ms")
    flow = re.search(r"steady flow of ([\d.]+) games/s .*?median ([\d.]+) s, p95 ([\d.]+) s, max ([\d.]+) s", out.stdout)
    if flow:
        report.add("c", f"  steady {flow.group(1)} games/s: a game to the last page, median / p95 / max",
                   f"{flow.group(2)} / {flow.group(3)} / {flow.group(4)} s")
    print(f"  {load()}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--part", default="a,b,c,d", help="the parts to run, e.g. b,c (default a,b,c,d)")
    p.add_argument("--presets", default="deluxe,rush,traveller", help="(a, d) the class's presets (default the three "
                   "of docs/teaching.md)")
    p.add_argument("--students", type=int, default=30, help="(a, d) the class's size, each uploading once (default 30)")
    p.add_argument("--check-workers", type=int, help="(a, d) passed to serve (default: serve's own)")
    p.add_argument("--workers", type=int, help="(a, d) game workers, passed to serve (default: serve's own)")
    p.add_argument("--max-games", type=int, default=4000,
                   help="(a, d) the class's max_games (default 4000, as docs/teaching.md section 1; the kit's default is 2000)")
    p.add_argument("--keep", help="(a, d) copy the class folder here at the end (the stores, portal/games.log)")
    p.add_argument("--d-timeout", type=float, default=60.0, help="(d) minutes to wait for +-50 (default 60)")
    p.add_argument("--b-students", type=int, default=200)
    p.add_argument("--b-games", type=int, default=20000, help="(b) made-up games stored before (default 20000)")
    p.add_argument("--b-flow", type=float, default=5.0, help="(b) made-up games stored a second meanwhile (default 5)")
    p.add_argument("--b-requests", type=int, default=100, help="(b) requests of each page (default 100)")
    p.add_argument("--c-args", default="--students 200 --games 20000 --rounds 5 --flow 5 --flow-seconds 20",
                   help="(c) the arguments of portal_streams.py")
    p.add_argument("--port", type=int, default=8801, help="(a, d) the port; (b) the next, (c) the one after")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    parts = set(args.part.replace(" ", "").split(","))
    if not parts or parts - set("abcd"):
        p.error("--part takes a, b, c and d, comma-separated")
    args.presets = [x for x in args.presets.replace(" ", "").split(",") if x]
    report = Report()
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}, {os.cpu_count()} cores, {load()}")
    with tempfile.TemporaryDirectory(prefix="cabo-portal-speed-") as name:
        tmp = Path(name)
        if "b" in parts:
            pages_part(args, report, tmp)
        if "c" in parts:
            streams_part(args, report)
        if parts & {"a", "d"}:
            class_run(args, report, tmp, parts)
    print(f"\n{time.strftime('%H:%M:%S')}, {load()}\n\n{report.table()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
