"""What a student sees of the tournament store: their games, their faults, and a game replayed from their seat.

The store (``DIR/results.sqlite``) is written by the tournament runner while pages are read, so
:class:`History` reads it the cheap way: an index of which games each bot sat in, kept in memory
and brought up to date from the rows added since it last looked (:func:`games_since`: a deleted game, a
changed file, a shrunk table or a store moved aside makes it read everything again). A page
then fetches only its rows by ``rowid``. The integrity check of :func:`~cabo_kit.tournament.store.load_faults`
is not run per page: each record read is checked against its sha256 instead
(:func:`~cabo_kit.tournament.store.load_record`). A fault's view (:func:`cabo_kit.pages.fault_views`:
where it happened, the rule broken, what the bot saw, its own traceback lines, what it printed)
replays the game once and is kept; every method here reads files, so the app calls them off the
event loop.

A bot is named in the store by its file's stem, ``bots/<id>.py``: a student's games are the
``seats`` rows whose ``bot`` is their id, and nothing here ever returns a row of another bot.

>>> import tempfile
>>> h = History(tempfile.mkdtemp())      # no store yet: nothing played
>>> h.summary("ada")
Summary(games=0, faults={}, by_version={})
"""

from __future__ import annotations

import glob
import os
import re
import sqlite3
import threading
import time
from array import array
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Sequence

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..pages import FaultView
    from ..record import GameRecord

__all__ = ["History", "GameLine", "Summary", "RECHECK", "games_since"]

RECHECK = 2.0
"""Seconds after which the index asks the store for new games even when its files look unchanged."""


def games_since(con: sqlite3.Connection, count: int, top: int) -> tuple[int, int, bool]:
    """The store's games now, ``(count, last rowid, intact)``: ``intact`` when every game a reader has read (``count``
    games, rowids up to ``top``) is still stored, so it only needs the rows after ``top``.

    Games are only ever added, except by :meth:`~cabo_kit.tournament.store.Store.delete_game` (a corrupt record),
    whose game the next run stores again under a new rowid: the last rowid alone does not see that, the count of
    games up to ``top`` does. Both incremental readers of the store (:class:`History`, the live board's
    :class:`~cabo_kit.portal.live.StoreReader`) use this rule; run it in the transaction that reads the new rows.

    >>> con = sqlite3.connect(":memory:")
    >>> _ = con.execute("CREATE TABLE games (game_id TEXT)")
    >>> _ = con.executemany("INSERT INTO games VALUES (?)", [("g1",), ("g2",), ("g3",)])
    >>> games_since(con, 3, 3)
    (3, 3, True)
    >>> _ = con.execute("DELETE FROM games WHERE game_id = 'g2'")
    >>> _ = con.execute("INSERT INTO games VALUES ('g2')")       # stored again: rowid 4
    >>> games_since(con, 3, 3)                                   # as many games as read, but one of them is gone
    (3, 4, False)
    """
    now, last = con.execute("SELECT count(*), coalesce(max(rowid), 0) FROM games").fetchone()
    new = con.execute("SELECT count(*) FROM games WHERE rowid > ?", (top,)).fetchone()[0]
    return int(now), int(last), last >= top and count + new == now


@dataclass(frozen=True)
class GameLine:
    """One game of a bot as its list shows it: ``seat``, ``rank`` (1 best), ``total`` (its score) and ``status``
    (``ok``, or the kind of its fault) are the bot's own; ``ended`` is the game's (``ok`` or ``fault``: some seat
    faulted); ``order``: the game's place in the store (larger: stored later)."""

    game_id: str
    order: int
    preset: str
    table_size: int
    n_rounds: int
    ended: str
    seat: int
    version: str
    total: int
    rank: int
    status: str


@dataclass(frozen=True)
class Summary:
    """A bot's games and faults in the store: ``faults`` by kind; ``by_version``: ``version -> (games, faults)``."""

    games: int
    faults: dict[str, int]
    by_version: dict[str, tuple[int, int]]


@dataclass
class _Index:
    key: tuple[int, ...] = ()
    last: int = 0  # the largest games.rowid read
    count: int = 0  # the games read
    games: dict[str, array] = field(default_factory=dict)  # bot -> rowids of its games, ascending
    faults: dict[str, array] = field(default_factory=dict)  # bot -> rowids of the games it faulted
    kinds: dict[str, dict[str, int]] = field(default_factory=dict)
    versions: dict[str, dict[str, list[int]]] = field(default_factory=dict)  # bot -> version -> [games, faults]


_LINE = ("SELECT g.rowid, g.game_id, g.preset, g.table_size, g.n_rounds, g.status, s.seat, s.version, s.total, "
         "s.rank, s.status FROM games g JOIN seats s ON s.game_id = g.game_id")


class History:
    """The games and faults of each bot of the tournament folder ``folder``, read from its store as it grows.

    ``max_views``: fault views kept (each costs one replay to make); ``max_records``: game records kept
    parsed for replays being stepped through.
    """

    def __init__(self, folder: "str | os.PathLike[str]", max_views: int = 4000, max_records: int = 32) -> None:
        self.folder = Path(folder)
        self.db = self.folder / "results.sqlite"
        self._lock = threading.Lock()
        self._index = _Index()
        self._views: OrderedDict[tuple[str, int], "FaultView"] = OrderedDict()
        self._records: OrderedDict[str, "GameRecord"] = OrderedDict()
        self._max_views, self._max_records = max_views, max_records
        self._printed: dict[str, tuple[int, str]] = {}  # bot -> (the logs folder's mtime, HTML)
        self._checked = 0.0

    # ------------------------------------------------------------------ the index

    def _key(self) -> tuple[int, ...]:
        key: list[int] = []
        for path in (self.db, Path(f"{self.db}-wal")):
            try:
                st = path.stat()
            except OSError:
                key += [0, 0, 0]
            else:
                key += [st.st_ino, st.st_mtime_ns, st.st_size]
        return tuple(key)

    @contextmanager
    def _connect(self) -> Iterator[Any]:
        """A reading connection to the store; its sqlite errors become :class:`~cabo_kit.tournament.store.StoreError`
        (a damaged store names itself and what to do)."""
        from ..tournament.store import _reader, store_problem

        try:
            con = _reader(self.db)
            try:
                yield con
            finally:
                con.close()
        except sqlite3.Error as exc:
            raise store_problem(self.db, exc) from exc

    def refresh(self) -> None:
        """Read the games stored since the last look (all of them when the store was replaced or shrank).

        Skipped while the store's files are unchanged (inode, mtime, size of the file and its journal), for at
        most :data:`RECHECK` seconds: two commits within one tick of the file system's clock can leave the same
        stamp."""
        with self._lock:
            key = self._key()
            now = time.monotonic()
            if key == self._index.key and now - self._checked < RECHECK:
                return
            self._checked = now
            if not self.db.exists():
                self._index = _Index(key)
                return
            index = self._index
            if not index.key or key[0] != index.key[0]:  # first look, or another file (moved aside, restored)
                index = _Index()
            else:  # new games are added to a copy: readers of the index never see it change under them
                index = replace(index, games={b: array("q", a) for b, a in index.games.items()},
                                faults={b: array("q", a) for b, a in index.faults.items()},
                                kinds={b: dict(k) for b, k in index.kinds.items()},
                                versions={b: {v: list(c) for v, c in vs.items()} for b, vs in index.versions.items()})
            with self._connect() as con:
                con.execute("BEGIN")  # the count and the rows from one snapshot while the runner writes
                count, _, intact = games_since(con, index.count, index.last)
                if not intact:  # games were removed (and maybe stored again): read it all again
                    index = _Index()
                rows = con.execute("SELECT g.rowid, s.bot, s.version, s.status FROM games g JOIN seats s "
                                   "ON s.game_id = g.game_id WHERE g.rowid > ? ORDER BY g.rowid", (index.last,)).fetchall()
            for rowid, bot, version, status in rows:
                index.games.setdefault(bot, array("q")).append(rowid)
                counts = index.versions.setdefault(bot, {}).setdefault(version, [0, 0])
                counts[0] += 1
                if status != "ok":
                    index.faults.setdefault(bot, array("q")).append(rowid)
                    kinds = index.kinds.setdefault(bot, {})
                    kinds[status] = kinds.get(status, 0) + 1
                    counts[1] += 1
                index.last = max(index.last, rowid)
            index.count = count
            index.key = key
            self._index = index

    def summary(self, bot: str) -> Summary:
        """How many games ``bot`` played and its faults, by kind and by version of its file."""
        self.refresh()
        index = self._index
        return Summary(len(index.games.get(bot, ())), dict(index.kinds.get(bot, {})),
                       {v: (c[0], c[1]) for v, c in index.versions.get(bot, {}).items()})

    # ------------------------------------------------------------------ games

    def _lines(self, bot: str, rowids: Sequence[int]) -> list[GameLine]:
        if not rowids:
            return []
        with self._connect() as con:
            rows = con.execute(f"{_LINE} WHERE g.rowid IN ({','.join('?' * len(rowids))}) AND s.bot = ?",
                               (*rowids, bot)).fetchall()
        first: dict[int, GameLine] = {}
        for r in rows:  # a bot sits once at a table; were it twice, its first seat is its own
            line = GameLine(str(r[1]), int(r[0]), str(r[2]), int(r[3]), int(r[4]), str(r[5]), int(r[6]), str(r[7]),
                            int(r[8]), int(r[9]), str(r[10]))
            if r[0] not in first or line.seat < first[r[0]].seat:
                first[r[0]] = line
        return [first[i] for i in rowids if i in first]

    def games(self, bot: str, start: int = 0, count: int = 50) -> list[GameLine]:
        """``bot``'s games, the most recently stored first, from the ``start``-th, at most ``count``."""
        self.refresh()
        mine = self._index.games.get(bot, array("q"))
        end = len(mine) - start
        return self._lines(bot, [mine[i] for i in range(end - 1, max(end - count, 0) - 1, -1)]) if end > 0 else []

    def game(self, bot: str, game_id: str) -> GameLine | None:
        """``bot``'s line of the game ``game_id``, or ``None`` when it did not play it (or there is no such game)."""
        if not self.db.exists() or not isinstance(game_id, str) or len(game_id) > 64:
            return None
        with self._connect() as con:
            rows = con.execute(f"{_LINE} WHERE g.game_id = ? AND s.bot = ? ORDER BY s.seat LIMIT 1",
                               (game_id, bot)).fetchall()
        if not rows:
            return None
        r = rows[0]
        return GameLine(str(r[1]), int(r[0]), str(r[2]), int(r[3]), int(r[4]), str(r[5]), int(r[6]), str(r[7]),
                        int(r[8]), int(r[9]), str(r[10]))

    def record(self, game_id: str) -> "GameRecord":
        """A stored game's record (checked against its sha256; the last few are kept parsed)."""
        from ..tournament.store import load_record

        with self._lock:
            found = self._records.get(game_id)
            if found is not None:
                self._records.move_to_end(game_id)
                return found
        record = load_record(self.db, game_id)
        with self._lock:
            self._records[game_id] = record
            while len(self._records) > self._max_records:
                self._records.popitem(last=False)
        return record

    # ------------------------------------------------------------------ faults

    def faults(self, bot: str, count: int = 40) -> list[tuple["FaultView", GameLine]]:
        """``bot``'s latest ``count`` faults, the most recent first, each as :func:`cabo_kit.pages.fault_views` shows
        it (its traceback and printed lines its own, this machine's paths scrubbed) with its game's line.

        Two things of the bot's page are left out for a student: the replay command (it needs the teacher's
        folder) and the deal's seed (the same deals are played again by the student's next version: a seed
        would tell them every card of those deals).
        """
        import pandas as pd

        from ..pages import fault_views

        self.refresh()
        mine = self._index.faults.get(bot, array("q"))
        rowids = [mine[i] for i in range(len(mine) - 1, max(len(mine) - count, 0) - 1, -1)]
        lines = self._lines(bot, rowids)
        with self._lock:
            missing = [line for line in lines if (line.game_id, line.seat) not in self._views]
        if missing:
            with self._connect() as con:
                rows = con.execute(
                    "SELECT s.game_id, s.bot, s.seat, s.status, s.fault, g.preset, g.deal_id FROM games g JOIN seats s "
                    f"ON s.game_id = g.game_id WHERE g.rowid IN ({','.join('?' * len(missing))}) AND s.bot = ?",
                    (*[m.order for m in missing], bot)).fetchall()
            frame = pd.DataFrame(rows, columns=["game_id", "bot", "seat", "status", "fault", "preset", "deal_id"])
            frame = frame[frame["status"] != "ok"]
            logs = self.folder / "logs"
            made = fault_views(self.db, frame, self.folder.resolve().name, logs if logs.is_dir() else None)
            with self._lock:
                for view in made:
                    self._views[(view.game_id, view.seat)] = replace(view, repro="", deal_seed="")
                while len(self._views) > self._max_views:
                    self._views.popitem(last=False)
        out = []
        with self._lock:
            for line in lines:
                kept = self._views.get((line.game_id, line.seat))
                if kept is not None:
                    out.append((kept, line))
        return out

    # ------------------------------------------------------------------ printed output

    def printed(self, bot: str) -> str:
        """HTML of the first lines ``bot`` printed in the tournament (:func:`cabo_kit.report.printed_html`, this
        machine's paths scrubbed), read again only when a deal's log file has been added since."""
        from ..pages import scrub_paths
        from ..report import printed_html

        logs = self.folder / "logs"
        try:
            stamp = logs.stat().st_mtime_ns
        except OSError:
            return printed_html(bot, logs, [])
        with self._lock:
            kept = self._printed.get(bot)
        if kept is not None and kept[0] == stamp:
            return kept[1]
        own = re.compile(re.escape(bot) + r"-[0-9a-f]{12}\.log")  # never the logs of a bot named "<bot>-x"
        files = [p for p in logs.glob(f"{glob.escape(bot)}-*.log") if own.fullmatch(p.name) and p.stat().st_size]
        html = printed_html(bot, logs, sorted(files, key=_mtime),
                            clean=lambda text: scrub_paths(text, f"{bot}.py", self.folder))
        with self._lock:
            self._printed[bot] = (stamp, html)
        return html


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
