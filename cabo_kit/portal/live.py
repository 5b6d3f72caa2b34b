"""Live ratings: one background task refits the leaderboard from the tournament's store and streams it to every open page.

:class:`LiveBoard` watches ``DIR/results.sqlite`` (a cheap query: the games' count and last rowid,
and a fingerprint of the latest run's schedule) and the versions on the board (each student's
current file; :class:`FolderVersions` until the games worker says otherwise). When either changes
it refits the ratings with the fit ``cabo-kit tournament`` uses, :func:`~cabo_kit.results.ratings.fit_elo`, on
the games ``leaderboard.csv`` rates: those of the latest run's schedule whose every seat is a
version on the board (an old version's games stay in the store, off the board). Point estimates
at most every :data:`POINT_EVERY` seconds, intervals and rank intervals (the bootstrap, as
``cabo-kit tournament`` computes them) at most every :data:`INTERVAL_EVERY` seconds; between two
bootstraps a bot whose version changed shows its interval as pending. Between two point fits, the
games stored since are only counted and their counts sent at most every :data:`COUNTS_EVERY`
seconds, so a page shows a new game within about that long and its Elo with the next fit. Fits run in processes of
their own (:class:`FitProcess`), never on the event loop; each keeps the store's rows it has read
and reads only the new ones. Every fit gives a :class:`Snapshot`; page handlers only read the latest one.

Each snapshot is sent to every open Server-Sent Events stream (:class:`Stream`), serialised once
per audience: the teacher sees every row with ids and roster names; students see the board only
when the teacher shows it to them, under roster names or pseudonyms (:meth:`Audience.name`, kept
until a setting changes), and each student gets their own ratings in a message of their own. A
person holds at most :data:`MAX_STREAMS` streams (a new one ends the oldest); signing out, a
reissued link and an ended session end that person's streams.

This module imports no web library (the app wraps :meth:`Stream.events` in a streaming response).

>>> snap = Snapshot.of([Rating("ada", "rush", 1012.4, 980.2, 1044.9, 1, 1, 2, 40, 0.3),
...                     Rating("RandomBot", "rush", 987.6, 955.0, 1020.1, 2, 1, 2, 40, 0.2)], games=20)
>>> [(r.bot, r.elo_text, r.interval_text, r.rank_text) for r in snap.ratings]
[('ada', '1012', '980–1045', '1 (1-2)'), ('RandomBot', '988', '955–1020', '2 (1-2)')]
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import os
import secrets
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Mapping, Sequence

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .state import Person, PortalState

__all__ = [
    "POINT_EVERY", "INTERVAL_EVERY", "COUNTS_EVERY", "MAX_STREAMS", "KEEPALIVE", "Rating", "Snapshot", "StoreReader", "FolderVersions",
    "FitProcess", "FitThread", "LiveBoard", "Stream", "Visibility", "Audience", "CLASSMATE",
]

log = logging.getLogger("cabo_kit.portal")

POINT_EVERY = 2.0
"""Seconds between two fits of the point estimates, at least."""

INTERVAL_EVERY = 30.0
"""Seconds between two fits of the intervals (the bootstrap), at least."""

COUNTS_EVERY = 0.5
"""Seconds between two broadcasts of new games' counts between point fits, at least: a game stored just after a
point fit reaches every page this soon (its counts), and its Elo with the next fit."""

MAX_STREAMS = 4
"""Open streams one person may hold (pages, tabs, devices): a new one ends their oldest."""

KEEPALIVE = 15.0
"""Seconds of silence after which a stream sends a comment, so proxies keep it open and a gone reader is noticed."""

RETRY_MS = 5000
"""How long a browser waits before it reconnects a stream that broke (a restarted server)."""

_DASH = "\u2013"


# ------------------------------------------------------------------ ratings and snapshots


@dataclass(frozen=True)
class Rating:
    """One bot's rating in one preset, as :func:`~cabo_kit.results.ratings.fit_elo` gives it.

    ``elo_low``/``elo_high`` are NaN while no interval has been fitted for it (a bot new on the
    board), ``-inf``/``inf`` where the results bound it on one side only; ``rank_low``/``rank_high``
    are 0 while unknown.
    """

    bot: str
    preset: str
    elo: float
    elo_low: float
    elo_high: float
    rank: int
    rank_low: int
    rank_high: int
    games: int
    win_rate: float

    @property
    def elo_text(self) -> str:
        return f"{self.elo:.0f}"

    @property
    def interval_text(self) -> str:
        """``980–1045``, ``below 640``, ``above 1200``, or ``pending`` (not fitted yet)."""
        from ..results.texts import interval_text

        if self.elo_low != self.elo_low or self.elo_high != self.elo_high:
            return "pending"
        return interval_text(self.elo_low, self.elo_high, sep=_DASH)

    @property
    def ranks_text(self) -> str:
        """The rank interval (``2-5``, ``3``), empty while unknown."""
        from ..results.texts import rank_text

        return rank_text(self.rank_low, self.rank_high) if self.rank_low else ""

    @property
    def rank_text(self) -> str:
        """The place and, when it is not certain, its interval: ``3 (2-5)``."""
        ranks = self.ranks_text
        return f"{self.rank} ({ranks})" if ranks and ranks != str(self.rank) else str(self.rank)


@dataclass(frozen=True)
class Snapshot:
    """The board at one moment: every rating of the versions on the board, best first in each preset.

    ``games``: the games on the board; ``interval_games``: the games the intervals were fitted on
    (``None``: no intervals yet; equal to ``games`` when they are up to date); ``interval_versions_current``:
    whether the intervals were fitted on the versions now on the board (else a bot whose version changed since
    shows its interval as pending); ``number`` counts the snapshots a :class:`LiveBoard` made.
    """

    ratings: tuple[Rating, ...] = ()
    games: int = 0
    interval_games: int | None = None
    number: int = 0
    made: float = 0.0
    interval_versions_current: bool = True

    @classmethod
    def of(cls, ratings: Sequence[Rating], games: int = 0, interval_games: int | None = None) -> "Snapshot":
        return cls(tuple(ratings), games, games if interval_games is None else interval_games)

    @classmethod
    def from_frame(cls, board: "pd.DataFrame", games: int = 0) -> "Snapshot":
        """A snapshot of a :func:`~cabo_kit.results.ratings.fit_elo` frame (or ``leaderboard.csv`` read back)."""
        return cls.of(_ratings(board.to_dict("records")), games)


def _ratings(records: Sequence[Mapping[str, Any]]) -> list[Rating]:
    def integer(v: Any) -> int:
        return int(v) if v == v and v is not None else 0

    return [Rating(str(r["bot"]), str(r["preset"]), float(r["elo"]), float(r["elo_low"]), float(r["elo_high"]),
                   integer(r["rank"]), integer(r["rank_low"]), integer(r["rank_high"]), integer(r["games"]),
                   float(r["win_rate"])) for r in records]


_ROW = ("bot", "preset", "elo", "elo_low", "elo_high", "rank", "rank_low", "rank_high", "games", "win_rate")


def _merge(points: Sequence[Rating], intervals: Sequence[Rating] | None, changed: "set[str] | frozenset[str]" = frozenset()
           ) -> list[Rating]:
    """Fresh point estimates with the latest intervals: a bot's interval from the last bootstrap, its place
    interval widened to hold its new place; NaN and 0 (pending) for a rating the bootstrap has not seen, and for
    a bot in ``changed`` (its version is not the one the bootstrap rated: its old interval is another file's)."""
    known = {(r.bot, r.preset): r for r in intervals or ()}
    out = []
    for p in points:
        i = known.get((p.bot, p.preset))
        if i is None or not i.rank_low or p.bot in changed:
            out.append(replace(p, elo_low=math.nan, elo_high=math.nan, rank_low=0, rank_high=0))
        else:
            out.append(replace(p, elo_low=i.elo_low, elo_high=i.elo_high, rank_low=min(i.rank_low, p.rank),
                               rank_high=max(i.rank_high, p.rank)))
    return out


# ------------------------------------------------------------------ reading the store, fitting


class StoreReader:
    """The seats of a results store, read incrementally: each :meth:`refresh` reads only the games added since.

    A store that shrank or was replaced (its games deleted, the file moved aside) is read again
    whole. Each new game's pairwise outcomes are worked out once, when it is read, so a point fit
    (:meth:`fit` with ``bootstrap=0``) only sums them: it gives the Elo and places
    :func:`~cabo_kit.results.ratings.fit_elo` gives. With a bootstrap, :meth:`fit` runs
    ``fit_elo`` itself on the frame ``cabo-kit tournament`` rates (rows in schedule order). Either
    way only the games of the latest run's schedule whose every seat holds a version of ``versions`` count.

    >>> import tempfile, os
    >>> reader = StoreReader(os.path.join(tempfile.mkdtemp(), "results.sqlite"))
    >>> reader.fit({"ada": "v1"}, None, 0)
    {'marker': [0, 0, 0, 0], 'games': 0, 'rows': []}
    """

    _GAME_COLS = ("rowid", "game_id", "deal_id", "order_key", "preset", "rules", "table_size", "rotation")
    _SEAT_COLS = ("seat", "bot", "version", "rank", "status")

    def __init__(self, db: str | os.PathLike[str]) -> None:
        self.db = Path(db)
        self._reset()

    def _reset(self) -> None:
        self.file: tuple[int, int] | None = None
        self.count = 0
        self.top = 0
        self.seats: Any = None  # a row per seat: its game's columns, the seat's, its fair win share, codes b and bv
        self.pairs: Any = None  # a row per pairwise outcome: the game's rowid, preset, bots' codes ca and cb, score
        self.bots: dict[str, int] = {}  # a code per bot name, and per (bot, version): numbers compare fast
        self.versions: dict[tuple[str, str], int] = {}
        self.theta: dict[str, dict[str, float]] = {}  # the last point fit's log-strengths, per preset: the next one starts there
        self.schedule_mark: tuple[int, int] = (-1, -1)
        self.scheduled: Any = None  # the rowids of the stored games of the latest schedule; None: no schedule, all count

    def refresh(self) -> tuple[int, int, int, int]:
        """Read the games added since the last call; return the store's marker (the games'
        count and last rowid, and the schedule's fingerprint)."""
        import numpy as np
        import pandas as pd

        from ..results.outcomes import fair_win
        from ..results.ratings import pairwise_outcomes
        from ..tournament.store import _problems, _reader
        from .history import games_since

        if not self.db.exists():
            self._reset()
            return (0, 0, 0, 0)
        st = os.stat(self.db)
        if (st.st_dev, st.st_ino) != self.file:
            self._reset()
            self.file = (st.st_dev, st.st_ino)
        seat_cols = ", ".join([*("g." + c for c in self._GAME_COLS), *("s." + c for c in self._SEAT_COLS)])
        with _problems(self.db):
            con = _reader(self.db)
            try:
                con.execute("BEGIN")  # one snapshot of games and seats while the runner writes
                if not con.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='games'").fetchone():
                    return (0, 0, 0, 0)
                count, top, intact = games_since(con, self.count, self.top)
                if not intact:  # games deleted (and maybe stored again): read all again
                    self._reset()
                    self.file = (st.st_dev, st.st_ino)
                seats = pd.read_sql_query(f"SELECT {seat_cols} FROM seats s JOIN games g ON g.game_id = s.game_id "
                                          "WHERE g.rowid > ? ORDER BY g.rowid, s.seat", con, params=(self.top,))
                mark = _schedule_marker(con)
                if mark != self.schedule_mark or len(seats) or not intact:  # the latest run's schedule, as load_frames
                    self.schedule_mark = mark                                # reads it: its games stored so far
                    self.scheduled = (np.array([r[0] for r in con.execute(
                        "SELECT g.rowid FROM scheduled c JOIN games g ON g.game_id = c.game_id")], dtype=np.int64)
                        if mark[0] else None)
            finally:
                con.close()
        if len(seats):
            seats["win"] = fair_win(seats)
            bots, versions = self.bots, self.versions
            seats["b"] = [bots.setdefault(b, len(bots)) for b in seats["bot"]]
            seats["bv"] = [versions.setdefault(bv, len(versions)) for bv in zip(seats["bot"], seats["version"])]
            pairs = pairwise_outcomes(seats.rename(columns={"rowid": "game_index"}))
            pairs = pd.DataFrame({"rowid": pairs["game_index"].to_numpy(dtype="int64"), "preset": pairs["preset"],
                                  "ca": [bots[b] for b in pairs["a"]], "cb": [bots[b] for b in pairs["b"]],
                                  "score": pairs["score"]})
            self.seats = seats if self.seats is None else pd.concat([self.seats, seats], ignore_index=True)
            self.pairs = pairs if self.pairs is None else pd.concat([self.pairs, pairs], ignore_index=True)
        self.count, self.top = int(count), int(top)
        return (self.count, self.top, *self.schedule_mark)

    def _current(self, versions: Mapping[str, str]) -> "tuple[pd.DataFrame, pd.DataFrame]":
        """The seats and the pairs of the games on the board: those of the latest run's schedule (as
        :func:`~cabo_kit.tournament.store.load_frames` counts them: all games while no run has set one) whose every
        seat is a version of ``versions``."""
        import numpy as np

        seats = self.seats
        ok = np.array([versions.get(b) == v for b, v in self.versions], dtype=bool)
        rowid = seats["rowid"].to_numpy()
        stale = rowid[~ok[seats["bv"].to_numpy()]]
        if self.scheduled is not None:
            stale = np.concatenate([stale, rowid[~np.isin(rowid, self.scheduled)]])
        stale = np.unique(stale)
        return seats[~np.isin(rowid, stale)], self.pairs[~np.isin(self.pairs["rowid"].to_numpy(), stale)]

    def frame(self, versions: Mapping[str, str]) -> "pd.DataFrame":
        """The seats frame of the games whose every seat is a version of ``versions``, as ``load_frames`` orders it."""
        import pandas as pd

        columns = ["game_id", "deal_id", "game_index", "preset", "rules", "table_size", "seat", "bot", "version",
                   "rank", "win", "status"]
        if self.seats is None:
            return pd.DataFrame({c: [] for c in columns})
        seats = self._current(versions)[0]
        games = seats.drop_duplicates("rowid").sort_values(
            ["order_key", "preset", "rules", "table_size", "rotation", "game_id"], kind="stable")
        order = pd.Series(range(len(games)), index=games["rowid"].to_numpy())
        out = seats.assign(game_index=order.reindex(seats["rowid"].to_numpy()).to_numpy())
        out = out.sort_values(["game_index", "seat"], kind="stable").reset_index(drop=True)
        for col in ("game_index", "table_size", "seat", "rank"):
            out[col] = out[col].astype("int64")
        return out[columns]

    def points(self, versions: Mapping[str, str], anchor: str | None) -> list[list[Any]]:
        """The point estimates of :func:`~cabo_kit.results.ratings.fit_elo` (``bootstrap=0``) from the pairs
        worked out as the games were read: the same wins matrices, so the same Elo and places (to a billionth of a
        point: each fit starts from the last one's optimum)."""
        import numpy as np

        from ..results.ratings import (ELO_SCALE, PRIOR_GAMES, UPSET_SHARE, anchor_shift, bradley_terry, field_tiers,
                                       ranks_of)

        if self.seats is None:
            return []
        seats, pairs = self._current(versions)
        rows: list[list[Any]] = []
        for preset in sorted(seats["preset"].unique()):
            mine = seats[seats["preset"] == preset]
            bots = sorted(mine["bot"].unique())
            n = len(bots)
            codes = np.array([self.bots[b] for b in bots], dtype=np.int64)
            local = np.full(len(self.bots), -1, dtype=np.int64)
            local[codes] = np.arange(n)
            pp = pairs[pairs["preset"] == preset]
            ia = local[pp["ca"].to_numpy(dtype=np.int64)]
            ib = local[pp["cb"].to_numpy(dtype=np.int64)]
            sc = pp["score"].to_numpy(dtype=float)
            full = (np.bincount(ia * n + ib, weights=sc, minlength=n * n)
                    + np.bincount(ib * n + ia, weights=1.0 - sc, minlength=n * n)).reshape(n, n)
            # From the last fit's optimum (a few games more move it little): the same optimum, in fewer Newton steps.
            last = self.theta.get(str(preset), {})
            theta = bradley_terry(full, prior_games=PRIOR_GAMES, start=np.array([last.get(b, 0.0) for b in bots]))
            self.theta[str(preset)] = dict(zip(bots, theta.tolist()))
            centre: "str | np.ndarray | None" = anchor
            if anchor is not None and anchor in bots:
                field_tiers(full, theta, UPSET_SHARE, core=bots.index(anchor))
            else:
                centre = field_tiers(full, theta, UPSET_SHARE) == 0
            elo = anchor_shift(theta * ELO_SCALE, bots, centre)
            rank = ranks_of(elo[None, :])[0]
            stats = mine.groupby("b")["win"].agg(["size", "mean"]).reindex(codes)
            size, mean = stats["size"].to_numpy(), stats["mean"].to_numpy(dtype=float)
            for i in sorted(range(n), key=lambda i: (-elo[i], bots[i])):
                rows.append([bots[i], str(preset), float(elo[i]), math.nan, math.nan, int(rank[i]), int(rank[i]),
                             int(rank[i]), int(size[i]), float(mean[i])])
        return rows

    def fit(self, versions: Mapping[str, str], anchor: str | None, bootstrap: int) -> dict[str, Any]:
        """Refresh, then rate the board's games: ``{"marker", "games", "rows"}`` (rows as lists of :class:`Rating`'s fields)."""
        from ..results.ratings import fit_elo

        marker = self.refresh()
        if self.seats is None:
            return {"marker": list(marker), "games": 0, "rows": []}
        if bootstrap == 0:
            rows = self.points(versions, anchor)
        else:
            board = fit_elo(self.frame(versions), anchor=anchor, bootstrap=bootstrap)
            rows = [[str(r["bot"]), str(r["preset"]), *(float(r[c]) for c in _ROW[2:5]),
                     *(int(r[c]) for c in _ROW[5:9]), float(r["win_rate"])] for r in board.to_dict("records")]
        games = int(self._current(versions)[0]["rowid"].nunique())
        return {"marker": list(marker), "games": games, "rows": rows}

    def counts(self, versions: Mapping[str, str]) -> dict[str, Any]:
        """Refresh, then only count the board's games, fitting nothing: ``{"marker", "games", "counts"}`` (counts:
        ``[bot, preset, games]``, the games a point fit of the same versions would give each rating)."""
        marker = self.refresh()
        if self.seats is None:
            return {"marker": list(marker), "games": 0, "counts": []}
        seats = self._current(versions)[0]
        per = seats.groupby(["bot", "preset"]).size()
        return {"marker": list(marker), "games": int(seats["rowid"].nunique()),
                "counts": [[str(b), str(p), int(n)] for (b, p), n in per.items()]}


def _schedule_marker(con: Any) -> tuple[int, int]:
    """A cheap fingerprint of the ``scheduled`` table: its size and a sum over its ids' last hex digits (a run that
    replaces the schedule with as many other games changes the sum)."""
    row = con.execute("SELECT count(*), coalesce(sum(instr('0123456789abcdef', substr(game_id, -1)) * 256 "
                      "+ instr('0123456789abcdef', substr(game_id, -2, 1)) * 16 "
                      "+ instr('0123456789abcdef', substr(game_id, -3, 1))), 0) FROM scheduled").fetchone()
    return (int(row[0]), int(row[1]))


_PROGRAM = "from cabo_kit.portal.live import _fit_loop\n_fit_loop()\n"


def _fit_loop() -> None:
    """A fit process's main: one JSON request a line on stdin, one JSON answer a line on stdout; ends at EOF."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C reaches the whole group: the server stops this process
    try:  # Linux: end with the server, even after a kill -9 of it
        import ctypes

        ctypes.CDLL(None).prctl(1, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):
        pass
    reader = StoreReader(sys.argv[1])
    out = sys.stdout
    for line in sys.stdin:
        ask = json.loads(line)
        try:
            answer = (reader.counts(ask["versions"]) if ask.get("counts") else
                      reader.fit(ask["versions"], ask["anchor"], int(ask["bootstrap"])))
        except Exception as exc:  # reported to the server, which keeps its last snapshot
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(answer) + "\n")
        out.flush()


class FitThread:
    """Fits on a worker thread of this process (tests; a small class): :meth:`fit` awaits the answer."""

    def __init__(self, db: Path, nice: int = 0) -> None:
        self.reader = StoreReader(db)

    async def fit(self, versions: Mapping[str, str], anchor: str | None, bootstrap: int) -> dict[str, Any]:
        return await asyncio.to_thread(self.reader.fit, dict(versions), anchor, bootstrap)

    async def counts(self, versions: Mapping[str, str]) -> dict[str, Any]:
        return await asyncio.to_thread(self.reader.counts, dict(versions))

    async def close(self) -> None:
        pass


_ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


class FitProcess:
    """Fits in a Python process of its own (started at the first fit, niced by ``nice``), so a fit never holds
    the server's interpreter; it keeps its :class:`StoreReader` between fits and ends with the server."""

    def __init__(self, db: Path, nice: int = 0) -> None:
        self.db = db
        self.nice = nice
        self.proc: asyncio.subprocess.Process | None = None

    async def _start(self) -> asyncio.subprocess.Process:
        from .games import process_env, python_command

        # One BLAS thread: a fit's 200x200 solves take a millisecond on one, but BLAS threads that spin for cores
        # the games and pages hold made a point fit take ~1 s instead of ~0.1 s on 2 busy cores.
        env = {**process_env(), **{name: "1" for name in _ONE_THREAD}}
        # In "/", as the check process: `python -c` imports from its working directory first (-P, where there is
        # one, drops it from the path too), and the server's may be the class folder, whose bots/ holds students' files.
        proc = await asyncio.create_subprocess_exec(
            *python_command("-c", _PROGRAM, os.path.abspath(self.db)), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, env=env, limit=1 << 26, cwd="/")
        if self.nice and hasattr(os, "setpriority"):
            try:
                os.setpriority(os.PRIO_PROCESS, proc.pid, self.nice)
            except OSError:
                pass
        return proc

    async def fit(self, versions: Mapping[str, str], anchor: str | None, bootstrap: int) -> dict[str, Any]:
        return await self._ask({"versions": dict(versions), "anchor": anchor, "bootstrap": bootstrap})

    async def counts(self, versions: Mapping[str, str]) -> dict[str, Any]:
        """The board's games counted (:meth:`StoreReader.counts`), nothing fitted."""
        return await self._ask({"versions": dict(versions), "counts": True})

    async def _ask(self, ask: dict[str, Any]) -> dict[str, Any]:
        if self.proc is None or self.proc.returncode is not None:
            self.proc = await self._start()
        proc = self.proc
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write((json.dumps(ask) + "\n").encode())
        await proc.stdin.drain()
        line = await proc.stdout.readline()
        if not line:
            self.proc = None
            raise RuntimeError(f"the fit process stopped (exit status {await proc.wait()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    async def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.returncode is None:
            proc.kill()
            await proc.wait()


# ------------------------------------------------------------------ which versions are on the board


class FolderVersions:
    """The versions on the board, read from the folder: each ``bots/<id>.py`` at its content's version (as the
    store records it: the first 12 hex digits of its SHA-256) and each reference bot of ``tournament.toml``.

    Files are hashed again only when their size or modification time changes.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> (folder / "bots").mkdir()
    >>> _ = (folder / "bots" / "ada.py").write_bytes(b"x = 1\\n")
    >>> versions = FolderVersions(folder)()
    >>> versions["ada"], sorted(versions)       # without tournament.toml the reference bot is RandomBot
    ('9e26bf369911', ['RandomBot', 'ada'])
    >>> FolderVersions(folder).anchor() is None
    True
    """

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self._files: dict[str, tuple[tuple[int, int, int], str]] = {}
        self._builtin: dict[str, str] = {}
        self._config: tuple[float | None, Any] = (None, None)

    def config(self) -> Any:
        from ..tournament.config import ConfigError, load_config

        path = self.folder / "tournament.toml"
        stamp = path.stat().st_mtime if path.exists() else None
        if self._config[1] is None or stamp != self._config[0]:
            try:
                self._config = (stamp, load_config(self.folder)[0])
            except ConfigError as exc:
                log.warning("live ratings: %s", exc)
                if self._config[1] is None:
                    from ..tournament.config import TournamentConfig

                    self._config = (stamp, TournamentConfig())
        return self._config[1]

    def anchor(self) -> str | None:
        return self.config().anchor or None

    def __call__(self) -> dict[str, str]:
        out: dict[str, str] = {}
        bots = self.folder / "bots"
        for path in sorted(bots.glob("*.py")) if bots.is_dir() else ():
            if path.name.startswith("_"):
                continue
            try:
                st = path.stat()
                stamp = (st.st_size, st.st_mtime_ns, st.st_ino)
                known = self._files.get(path.stem)
                if known is None or known[0] != stamp:
                    known = (stamp, hashlib.sha256(path.read_bytes()).hexdigest()[:12])
                    self._files[path.stem] = known
            except OSError:  # replaced while read: the next look sees it
                continue
            out[path.stem] = known[1]
        for name in self.config().reference:
            if name not in self._builtin:
                from ..tournament.runner import _builtin_spec

                self._builtin[name] = _builtin_spec(name).version
            out.setdefault(name, self._builtin[name])
        return out


# ------------------------------------------------------------------ who sees what


@dataclass(frozen=True)
class Visibility:
    """The teacher's settings for students: the board shown to them or not, and under which names."""

    board: bool = True
    pseudonyms: bool = False
    salt: str = ""


CLASSMATE = "a classmate"
"""What a student sees of another student's bot they may not know by name (a board the teacher keeps to
themselves, a bot whose student left the roster)."""


@dataclass(frozen=True)
class Audience:
    """Who is who on the pages, as the teacher's settings show students: read from the portal's state once and kept
    (:meth:`LiveBoard.audience`) until a setting, the roster or a session changes.

    ``roster``: roster names by student id; ``pseudonyms``: theirs under pseudonyms (else empty); ``salt``: what
    makes the ``anon-`` keys (the class's pseudonym salt; a random one while it has none).

    >>> from cabo_kit.portal.state import Person
    >>> seen = Audience.of(Visibility(pseudonyms=True, salt="s"), {"ada": "Ada L.", "bob": "Bob"})
    >>> bob = Person("bob", "Bob", "student")
    >>> [seen.name(b, bob)[1] for b in ("bob", "GreedyBot", "ada", "gone")]  # gone: not on the roster (any more)
    ['Bob', 'GreedyBot', 'Lively Falcon', 'a classmate']
    >>> seen.name("gone", bob)[0].startswith("anon-"), seen.name("ada", Person("_teacher", "T", "teacher"))
    (True, ('ada', 'Ada L.'))
    """

    vis: Visibility = field(default_factory=Visibility)
    roster: Mapping[str, str] = field(default_factory=dict)
    pseudonyms: Mapping[str, str] = field(default_factory=dict)
    salt: str = ""
    reference: frozenset[str] = frozenset()
    keys: dict[str, str] = field(default_factory=dict, compare=False)  # anon- keys made so far

    @classmethod
    def of(cls, vis: Visibility, roster: Mapping[str, str], salt: str = "") -> "Audience":
        from ..tournament.config import builtin_bots
        from .pseudonyms import pseudonyms

        salt = vis.salt or salt
        if not salt:
            import secrets

            salt = secrets.token_hex(16)
        return cls(vis, dict(roster), pseudonyms(roster, salt) if vis.pseudonyms else {}, salt,
                   frozenset(builtin_bots()))

    def key(self, bot: str) -> str:
        """The ``anon-`` key that stands for ``bot`` where its id must not show."""
        found = self.keys.get(bot)
        if found is None:
            from .pseudonyms import pseudonym_key

            found = self.keys[bot] = pseudonym_key(self.salt, bot)
        return found

    def name(self, bot: str, reader: "Person | None") -> tuple[str, str]:
        """``(key, name)``: how ``bot`` appears to ``reader`` (``None``: any student, the board they share). The
        teacher sees ids and roster names; a student sees reference bots by name, themselves as themselves, and
        every other bot by roster name or pseudonym as the teacher's settings say, or as "a classmate" (a board
        kept to the teacher; a bot not on the roster) under an ``anon-`` key, never its id."""
        if reader is not None and reader.is_teacher:
            return bot, self.roster.get(bot, bot)
        if reader is not None and bot == reader.id:
            return bot, reader.name
        if bot in self.reference:
            return bot, bot
        if self.vis.board and self.vis.pseudonyms and bot in self.pseudonyms:
            return self.key(bot), self.pseudonyms[bot]
        if self.vis.board and not self.vis.pseudonyms and bot in self.roster:
            return bot, self.roster[bot]
        return self.key(bot), CLASSMATE


def _message(event: str, data: Mapping[str, Any]) -> bytes:
    """One Server-Sent Events message (JSON escapes every newline, so the data is one line)."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


class Stream:
    """One open event stream of one person's session; :meth:`events` yields its bytes until it ends."""

    def __init__(self, person: "Person", session: str, opened: float) -> None:
        self.person = person
        self.session = session  # the session id's hash, never the id
        self.opened = opened
        self.pending: dict[str, bytes] = {}
        self.last: dict[str, bytes] = {}  # the latest message of each kind: one the page has is not sent again
        self.wake = asyncio.Event()
        self.ended: str | None = None
        self.farewell = False
        self.forget: Callable[["Stream"], None] = lambda _s: None
        self.follow = True  # False: send what is pending, then end (no live board running)
        self.started = False

    def push(self, event: str, message: bytes) -> None:
        """Queue ``message`` (a reader that is behind gets only the latest of each kind; one it has is not repeated)."""
        if self.last.get(event) == message:
            return
        self.last[event] = self.pending[event] = message
        self.wake.set()

    def end(self, reason: str, farewell: bool = True) -> None:
        """End the stream; with ``farewell`` the page is told why and does not reconnect."""
        if self.ended is None:
            self.ended, self.farewell = reason, farewell
            self.wake.set()

    async def events(self, keepalive: float = KEEPALIVE) -> AsyncIterator[bytes]:
        self.started = True
        try:
            yield f"retry: {RETRY_MS}\n\n".encode()
            while True:
                if self.pending:
                    chunk, self.pending = b"".join(self.pending.values()), {}
                    yield chunk
                if self.ended is not None or not self.follow:
                    if self.ended is not None and self.farewell:
                        yield _message("end", {"reason": self.ended})
                    return
                try:
                    await asyncio.wait_for(self.wake.wait(), keepalive)
                except asyncio.TimeoutError:
                    yield b": keep-alive\n\n"
                self.wake.clear()
        finally:
            self.forget(self)


# ------------------------------------------------------------------ the board


@dataclass
class _Cadence:
    at: float = -math.inf  # when the last fit started
    key: Any = None
    result: dict[str, Any] | None = None
    versions: dict[str, str] | None = None  # the versions the result rated


@dataclass
class LiveBoard:
    """The portal's live leaderboard for the tournament folder ``folder``.

    ``versions()`` names the versions on the board (default :class:`FolderVersions`); ``fit_in``
    is ``"process"`` (the server) or ``"thread"`` (tests); ``clock`` decides the cadences.
    :meth:`attach` gives it the portal's state (names, settings, sessions); :meth:`start` and
    :meth:`stop` run its one background task (the app's lifespan does).
    """

    folder: Path
    versions: Callable[[], Mapping[str, str]] | None = None
    anchor: Callable[[], str | None] | None = None
    fit_in: str = "process"
    clock: Callable[[], float] = time.monotonic
    point_every: float = POINT_EVERY
    interval_every: float = INTERVAL_EVERY
    counts_every: float = COUNTS_EVERY
    poll: float = 0.1
    bootstrap: int = 1000
    max_streams: int = MAX_STREAMS
    session_every: float = 2.0
    snapshot: Snapshot = field(default_factory=Snapshot)
    streams: list[Stream] = field(default_factory=list)
    problem: str = ""
    stopping: Callable[[], bool] = lambda: False
    """Whether the server is stopping (uvicorn's ``should_exit``): open streams then end, or they would hold it."""
    listeners: list[Callable[[], None]] = field(default_factory=list)
    """Called after each new board (a snapshot, a setting): the app renders the pages' board rows then, in the
    background task, so that no page request pays for them."""

    def __post_init__(self) -> None:
        self.folder = Path(self.folder)
        if self.versions is None or self.anchor is None:
            found = FolderVersions(self.folder)
            self.versions = self.versions or found
            self.anchor = self.anchor or found.anchor
        if self.fit_in not in ("process", "thread"):
            raise ValueError(f"fit_in={self.fit_in!r}: use 'process' or 'thread'")
        kind = FitProcess if self.fit_in == "process" else FitThread
        db = self.folder / "results.sqlite"
        self._points: FitProcess | FitThread = kind(db)
        self._intervals: FitProcess | FitThread = kind(db, nice=10)  # as the games: pages and point fits first
        self._point = _Cadence()
        self._interval = _Cadence()
        self._counts = _Cadence()  # games counted since the last point fit (its versions), none while it is the latest
        self._by_bot: tuple[Snapshot | None, dict[str, list[Rating]], dict[str, int]] = (None, {}, {})
        self._views: tuple[tuple[Snapshot | None, Audience | None], dict[tuple[bool, str], dict[str, Any]]] = (
            (None, None), {})
        self._shown: tuple[int, ...] | None = None  # the store's marker of the games the board shows
        self._interval_task: asyncio.Task[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._sessions_at = -math.inf
        self._state: "PortalState | None" = None
        self._visibility: Callable[[], Visibility] = Visibility
        self._audience: Audience | None = None
        self._audience_generation = 0
        self._salt = secrets.token_hex(16)  # the anon- keys' while the class has no pseudonym salt (this process's)

    # ------------------------------------------------------------------ wiring

    def attach(self, state: "PortalState", visibility: Callable[[], Visibility]) -> None:
        """The portal's state (roster names, sessions) and the teacher's current settings."""
        self._state = state
        self._visibility = visibility
        self.invalidate()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def start(self) -> None:
        """Start the background task (in the app's lifespan)."""
        if not self.running:
            self._task = asyncio.create_task(self._run(), name="cabo-portal-live")

    async def stop(self) -> None:
        """Stop the task and the fits, and end every stream (the pages reconnect to the next server)."""
        self.end_all("the portal stopped", farewell=False)
        for task in (self._task, self._interval_task):
            if task is not None:
                task.cancel()
                try:
                    await task
                except (asyncio.CancelledError, Exception):
                    pass
        self._task = self._interval_task = None
        await self._points.close()
        await self._intervals.close()

    async def _run(self) -> None:
        while True:
            if self.stopping():
                self.end_all("the portal is stopping", farewell=False)  # pages reconnect to the next server
            try:
                await self.step()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a damaged store, a fit that failed: say so, keep the last board, go on
                self._problem(f"{type(exc).__name__}: {exc}")
            await asyncio.sleep(self.poll)

    def _problem(self, text: str) -> None:
        if text != self.problem:
            log.warning("live ratings: %s", text)
        self.problem = text

    # ------------------------------------------------------------------ fitting

    def _ask(self) -> tuple[dict[str, str], str | None]:
        assert self.versions is not None and self.anchor is not None
        return dict(self.versions()), self.anchor()

    async def step(self) -> None:
        """One look: end streams of ended sessions, and refit or recount what changed when its cadence allows.

        A fit is due :attr:`point_every` seconds after the last one started (not ended): once due, the first
        look that sees a new game (or new versions) starts it. Between two point fits, new games of the versions
        the last fit rated are counted (no fit) and their counts sent at most every :attr:`counts_every` seconds:
        a game's count reaches the pages within about :attr:`counts_every` seconds, its Elo with the next point fit.
        Before any of these is due, nothing is read."""
        now = self.clock()
        if now - self._sessions_at >= self.session_every:
            self._sessions_at = now
            await self.check_sessions()
        point_due = now - self._point.at >= self.point_every
        interval_due = (self.bootstrap and self._interval_task is None and now - self._interval.at >= self.interval_every)
        counts_due = self._point.result is not None and now - self._counts.at >= self.counts_every
        if not (point_due or interval_due or counts_due):
            return
        marker = await asyncio.to_thread(self._marker)
        if point_due or interval_due:
            versions, anchor = await asyncio.to_thread(self._ask)
            wanted = (json.dumps(versions, sort_keys=True), anchor)
            key = (marker, wanted)
            if point_due and key != self._point.key:
                self._point.at = self.clock()
                answer = await self._points.fit(versions, anchor, 0)
                if "error" in answer:
                    raise RuntimeError(answer["error"])
                self._point.key = (tuple(answer["marker"]), wanted)
                self._point.result = answer
                self._point.versions = versions
                self._counts.result, self._counts.at = None, self._point.at  # a fit is a broadcast: counts wait 0.5 s
                self._shown = tuple(answer["marker"])
                self.problem = ""
                self.publish()
                counts_due = False
            if interval_due and key != self._interval.key:
                self._interval.at = self.clock()
                self._interval_task = asyncio.create_task(self._fit_intervals(versions, anchor, wanted))
        if counts_due and marker != self._shown and marker[0] >= 0:
            self._counts.at = self.clock()
            answer = await self._points.counts(self._point.versions or {})
            if "error" in answer:
                raise RuntimeError(answer["error"])
            self._counts.result = answer
            self._counts.versions = self._point.versions
            self._shown = tuple(answer["marker"])
            self.publish()

    async def _fit_intervals(self, versions: dict[str, str], anchor: str | None, wanted: Any) -> None:
        try:
            answer = await self._intervals.fit(versions, anchor, self.bootstrap)
            if "error" in answer:
                self._problem(answer["error"])
                return
            self._interval.key = (tuple(answer["marker"]), wanted)
            self._interval.result = answer
            self._interval.versions = versions
            self.publish()
        finally:
            self._interval_task = None

    async def wait_intervals(self) -> None:
        """Wait for the interval fit in progress, if any (tests)."""
        if self._interval_task is not None:
            await asyncio.shield(self._interval_task)

    def _marker(self) -> tuple[int, ...]:
        """The store's games count and last rowid, and its schedule's fingerprint: the cheap look that says whether
        anything was stored or scheduled (the same :meth:`StoreReader.refresh` returns)."""
        import sqlite3

        db = self.folder / "results.sqlite"
        if not db.exists():
            return (0, 0, 0, 0)
        try:
            con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
            try:
                con.execute("BEGIN")
                row = con.execute("SELECT count(*), coalesce(max(rowid), 0) FROM games").fetchone()
                mark = _schedule_marker(con)
            finally:
                con.close()
        except sqlite3.Error:
            return (-1, -1, -1, -1)  # no games table yet, or busy: the fit reads it properly
        return (int(row[0]), int(row[1]), *mark)

    def publish(self, snapshot: Snapshot | None = None) -> Snapshot:
        """Make ``snapshot`` (default: the latest fits, merged) the board, and send it to every stream."""
        if snapshot is None:
            points, intervals = self._point.result, self._interval.result
            if points is None:
                return self.snapshot
            fresh = _ratings([dict(zip(_ROW, r)) for r in points["rows"]])
            now, fitted = self._point.versions or {}, self._interval.versions or {}
            if intervals is not None and self._interval.key == self._point.key:
                ratings = _ratings([dict(zip(_ROW, r)) for r in intervals["rows"]])
            else:
                changed = {bot for bot, version in now.items() if fitted.get(bot) != version}
                ratings = _merge(fresh, _ratings([dict(zip(_ROW, r)) for r in intervals["rows"]]) if intervals else None,
                                 changed)
            games = int(points["games"])
            counted = self._counts.result
            if counted is not None and self._counts.versions == self._point.versions:  # newer games, counted: no fit
                per = {(str(b), str(p)): int(n) for b, p, n in counted["counts"]}
                ratings = [replace(r, games=per.get((r.bot, r.preset), r.games)) for r in ratings]
                games = int(counted["games"])
            snapshot = Snapshot(tuple(ratings), games, None if intervals is None else int(intervals["games"]),
                                interval_versions_current=intervals is None or now == fitted)
        self.snapshot = replace(snapshot, number=self.snapshot.number + 1, made=time.time())
        self._send(self.streams)
        self._tell()
        return self.snapshot

    def _tell(self) -> None:
        for listener in self.listeners:
            try:
                listener()
            except Exception:  # a page renders what it needs itself: a listener never stops the board
                log.warning("a live board listener failed", exc_info=True)

    # ------------------------------------------------------------------ who sees what

    def audience(self) -> Audience:
        """Who is who for the pages now (roster names, the teacher's settings, pseudonyms), read from the portal's
        state once and kept: :meth:`invalidate` forgets it (a setting, a sign-in or sign-out), and the task reads it
        again off the event loop every :attr:`session_every` seconds (a roster or a link changed by another
        process)."""
        found = self._audience
        if found is None:
            found = self._audience = self._read_audience()
        return found

    def _read_audience(self) -> Audience:
        state = self._state
        if state is None:
            return Audience.of(self._visibility(), {}, self._salt)
        vis = self._visibility()
        roster = {p.id: p.name for p in state.people() if not p.is_teacher}
        salt = vis.salt or state.setting("pseudonym_salt") or self._salt
        return Audience.of(vis, roster, salt)

    def invalidate(self) -> None:
        """Forget the kept :meth:`audience` (the next page or broadcast reads it again)."""
        self._audience = None
        self._audience_generation += 1

    async def _reread_audience(self) -> None:
        generation = self._audience_generation
        found = await asyncio.to_thread(self._read_audience)
        if generation == self._audience_generation:  # not forgotten meanwhile (a setting changed while it was read)
            self._audience = found

    def board_view(self, teacher: bool, audience: Audience | None = None) -> dict[str, Any]:
        """The board as an audience sees it: ``{"hidden", "games", "intervals", "rows"}``.

        Rows carry text cells (the same the page renders), each bot named by :meth:`Audience.name` for the teacher
        or for any student (under pseudonyms another student's row has their ``anon-`` key as ``bot``).
        """
        from .state import TEACHER, Person

        seen = audience or self.audience()
        snap = self.snapshot
        made_for, views = self._views
        if made_for[0] is not snap or made_for[1] is not seen:
            views = {}
            self._views = ((snap, seen), views)
        key = (teacher, self.problem if teacher else "")
        if key not in views:  # a broadcast and the pages ask for the same view: made once per snapshot and audience
            views[key] = self._board_view(teacher, seen, snap)
        return views[key]

    def _board_view(self, teacher: bool, seen: Audience, snap: Snapshot) -> dict[str, Any]:
        from .state import TEACHER, Person

        if not teacher and not seen.vis.board:
            return {"hidden": True, "games": 0, "note": "", "rows": []}
        reader = Person(TEACHER, "Teacher", "teacher") if teacher else None
        rows = []
        for r in snap.ratings:
            key, name = seen.name(r.bot, reader)
            rows.append({"bot": key, "preset": r.preset, "name": name, "rank": r.rank_text, "elo": r.elo_text,
                         "interval": r.interval_text, "games": r.games})
        note = self.note()
        if teacher and self.problem:
            note += f" The ratings could not be brought up to date: {self.problem}"
        return {"hidden": False, "games": snap.games, "note": note, "rows": rows}

    def note(self) -> str:
        """The line under the board: how many games it rates, and how old its intervals are."""
        snap = self.snapshot
        if not snap.ratings:
            return "No games yet: the board fills in as the games are played."
        text = f"{snap.games} game{'s' if snap.games != 1 else ''} on the board."
        if snap.interval_games is None:
            return text + " The 95% intervals are being computed."
        if not snap.interval_versions_current:
            return text + (" The 95% intervals are from before the latest change of versions: a new version's is "
                           f"pending until they are brought up to date (at most every {self.interval_every:g} s).")
        if snap.interval_games != snap.games:
            return text + (f" The 95% intervals are from its first {snap.interval_games} games (they are brought up "
                           f"to date at most every {self.interval_every:g} s).")
        return text

    def mine_view(self, person: "Person", audience: Audience | None = None) -> dict[str, Any]:
        """A student's own ratings, and the key their row has on the board they see."""
        seen = audience or self.audience()
        snap = self.snapshot
        if self._by_bot[0] is not snap:  # once per snapshot: a broadcast asks this of every student's stream
            by_bot: dict[str, list[Rating]] = {}
            sizes: dict[str, int] = {}
            for r in snap.ratings:
                by_bot.setdefault(r.bot, []).append(r)
                sizes[r.preset] = sizes.get(r.preset, 0) + 1
            self._by_bot = (snap, by_bot, sizes)
        _, by_bot, sizes = self._by_bot
        rows = [{"preset": r.preset, "elo": r.elo_text, "interval": r.interval_text, "rank": str(r.rank),
                 "ranks": r.ranks_text or "pending", "of": sizes[r.preset], "games": r.games}
                for r in by_bot.get(person.id, ())]
        return {"bot": person.id, "key": seen.name(person.id, None)[0], "name": person.name, "rows": rows}

    def own_rows(self, person: "Person", rows: Sequence[Mapping[str, Any]], audience: Audience | None = None
                 ) -> tuple[dict[int, dict[str, Any]], dict[str, Any]]:
        """A student's own rows on the board every student shares, and their own ratings (:meth:`mine_view`).

        ``rows``: the students' board (:meth:`board_view` for a student, as a page keeps it), where the reader's rows
        carry the key every student sees (under pseudonyms an ``anon-`` key). Returns those rows by index, under the
        reader's id and name and marked ``mine``, so a page renders only them again; and ``mine_view``'s answer.

        >>> from cabo_kit.portal.state import Person
        >>> live = LiveBoard(".", versions=dict, anchor=lambda: None, fit_in="thread")
        >>> seen = Audience.of(Visibility(pseudonyms=True, salt="s"), {"ada": "Ada L.", "bob": "Bob"})
        >>> _ = live.publish(Snapshot.of([Rating("ada", "rush", 1012.4, 980.2, 1044.9, 1, 1, 2, 40, 0.3),
        ...                               Rating("bob", "rush", 987.6, 955.0, 1020.1, 2, 1, 2, 40, 0.2)]))
        >>> shared = live.board_view(False, seen)["rows"]
        >>> [r["name"] for r in shared]
        ['Lively Falcon', 'Cosmic Bison']
        >>> own, mine = live.own_rows(Person("bob", "Bob", "student"), shared, seen)
        >>> own[1]["bot"], own[1]["name"], own[1]["mine"], sorted(own), mine["rows"][0]["rank"]
        ('bob', 'Bob', True, [1], '2')
        """
        seen = audience or self.audience()
        mine = self.mine_view(person, seen)
        own = {i: dict(r, bot=person.id, name=person.name, mine=True)
               for i, r in enumerate(rows) if r["bot"] == mine["key"]}
        return own, mine

    # ------------------------------------------------------------------ streams

    def open_stream(self, person: "Person", session: str) -> Stream:
        """A new stream for ``person``'s session ``session`` (its id's hash), primed with the current board.

        Beyond :attr:`max_streams` of that person's, their oldest ends (its page says why).
        """
        stream = Stream(person, session, self.clock())
        stream.forget = self._forget
        stream.follow = self.running
        mine = [s for s in self.streams if s.person.id == person.id and s.ended is None]
        for old in mine[:max(0, len(mine) + 1 - self.max_streams)]:
            old.end(f"this page was opened in more than {self.max_streams} tabs or devices: this one stopped "
                    "updating (reload it to follow the board here)")
        self.streams.append(stream)
        self._send([stream])
        return stream

    def _forget(self, stream: Stream) -> None:
        if stream in self.streams:
            self.streams.remove(stream)

    def end_session(self, session: str, reason: str) -> None:
        """End the streams of the session whose id hashes to ``session`` (signed out, replaced)."""
        self.invalidate()
        for s in list(self.streams):
            if s.session == session:
                s.end(reason)

    def end_all(self, reason: str, farewell: bool = True) -> None:
        for s in list(self.streams):
            s.end(reason, farewell)

    async def check_sessions(self) -> None:
        """End the streams whose session has ended (a reissued link, a session ended elsewhere)."""
        now = self.clock()
        for s in list(self.streams):  # a response that never started (its reader left at once) never runs its cleanup
            if not s.started and now - s.opened > 30.0:
                self._forget(s)
        await self._reread_audience()  # a roster, a setting or a link another process changed
        state = self._state
        if state is None or not self.streams:
            return
        hashes = {s.session for s in self.streams}
        live = await asyncio.to_thread(state.live_session_hashes, hashes)
        for s in list(self.streams):
            if s.session not in live:
                s.end("your session has ended: open your sign-in link again")

    def broadcast(self) -> None:
        """The teacher's settings changed: read them again and send the board to every stream (one message per
        audience, one per student for their ratings)."""
        self.invalidate()
        self._send(self.streams)
        self._tell()

    def _send(self, streams: Sequence[Stream]) -> None:
        if not streams:
            return
        seen = self.audience()
        boards: dict[bool, bytes] = {}
        mine: dict[str, bytes] = {}
        for s in streams:
            teacher = s.person.is_teacher
            if teacher not in boards:
                boards[teacher] = _message("board", self.board_view(teacher, seen))
            if not teacher and s.person.id not in mine:
                mine[s.person.id] = _message("mine", self.mine_view(s.person, seen))
            if not teacher:
                s.push("mine", mine[s.person.id])  # first: the page needs its key to mark its row
            s.push("board", boards[teacher])
