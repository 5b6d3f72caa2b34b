"""The results store: one SQLite file per tournament (``DIR/results.sqlite``).

Tables: ``games`` (a row per game, its compressed :class:`~cabo_kit.record.GameRecord` JSON
and that JSON's sha256), ``seats`` (a row per game and seat: bot, version, score, rank,
status, per-rule counts), ``rejected`` (files that could not play, with the reason),
``scheduled`` (the game ids of the latest run's schedule: the frames show those games).

Writing: WAL journal, ``synchronous=NORMAL``, and one ``BEGIN IMMEDIATE`` transaction per
finished game. A game's id is a hash of what makes it that game (preset, rules, table,
deal, rotation, and every seat's bot and version), inserted with ``INSERT OR IGNORE``: a
retried write is never a duplicate, and a killed runner loses at most the games it had not
committed, which the next run plays.

>>> import tempfile, os
>>> db = os.path.join(tempfile.mkdtemp(), "results.sqlite")
>>> store = Store(db)
>>> row = GameRow("g1", "d1", "00001:x:0", "rush", "{}", 2, 7, 0, "ok", 1, b"{}")
>>> seats = [SeatRow(0, "a", "v1", 10, 1, 1.0, "ok", "", {}), SeatRow(1, "b", "v2", 20, 2, 0.0, "ok", "", {})]
>>> store.add_game(row, seats), store.add_game(row, seats)    # the retry is ignored
(True, False)
>>> store.close()
>>> games, seats = load_frames(db)
>>> len(games), list(seats["bot"]), float(seats["win"].sum())
(1, ['a', 'b'], 1.0)
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

if TYPE_CHECKING:
    import pandas as pd

    from ..record import GameRecord

__all__ = [
    "Store", "StoreError", "GameRow", "SeatRow", "COUNTS", "load_frames", "load_rejected", "load_record", "game_id",
    "DB_NAME",
]

DB_NAME = "results.sqlite"

COUNTS = (
    "rounds", "cabo_calls", "cabo_wins", "kamikaze", "royal_roulette", "resets", "snaps", "snaps_right",
    "failed_multi_exchanges", "powers_used", "deck_outs", "round_score_sum",
)
"""The per-rule counts kept for each seat of each game (see docs/tournaments.md)."""

SCHEMA_VERSION = 1

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    game_id TEXT PRIMARY KEY, deal_id TEXT NOT NULL, order_key TEXT NOT NULL, preset TEXT NOT NULL,
    rules TEXT NOT NULL, table_size INTEGER NOT NULL, deal_seed INTEGER NOT NULL, rotation INTEGER NOT NULL,
    status TEXT NOT NULL, n_rounds INTEGER NOT NULL, record BLOB NOT NULL, record_sha256 TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    game_id TEXT NOT NULL REFERENCES games(game_id), seat INTEGER NOT NULL, bot TEXT NOT NULL,
    version TEXT NOT NULL, total INTEGER NOT NULL, rank INTEGER NOT NULL, win REAL NOT NULL,
    status TEXT NOT NULL, fault TEXT NOT NULL,
    {", ".join(f"{c} INTEGER NOT NULL" for c in COUNTS)},
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS rejected (file TEXT PRIMARY KEY, reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS scheduled (game_id TEXT PRIMARY KEY);
"""


class StoreError(RuntimeError):
    """The results store cannot be read as expected (a corrupt record, a newer schema)."""


def game_id(preset: str, rules: str, table_size: int, deal_key: str, rotation: int, seats: Sequence[tuple[str, str]]) -> str:
    """The unique id of a game: a hash of everything that makes it that game (24 hex digits).

    ``seats``: ``(bot, version)`` by seat. A changed bot file (new version) makes new ids.

    >>> game_id("rush", "{}", 2, "r0:a", 0, [("a", "1"), ("b", "2")]) == game_id("rush", "{}", 2, "r0:a", 0, [("a", "1"), ("b", "2")])
    True
    >>> game_id("rush", "{}", 2, "r0:a", 0, [("a", "1"), ("b", "2")]) == game_id("rush", "{}", 2, "r0:a", 0, [("a", "1"), ("b", "3")])
    False
    """
    text = json.dumps([preset, rules, table_size, deal_key, rotation, [list(s) for s in seats]], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass
class GameRow:
    """One game as stored (``record``: the GameRecord JSON, uncompressed)."""

    game_id: str
    deal_id: str
    order_key: str
    preset: str
    rules: str
    table_size: int
    deal_seed: int
    rotation: int
    status: str
    n_rounds: int
    record: bytes


@dataclass
class SeatRow:
    """One seat of one game as stored; ``counts`` maps names of :data:`COUNTS` to ints (missing: 0)."""

    seat: int
    bot: str
    version: str
    total: int
    rank: int
    win: float
    status: str
    fault: str
    counts: dict[str, int] = field(default_factory=dict)


def _connect(path: str | Path) -> sqlite3.Connection:
    con = sqlite3.connect(str(path), timeout=30, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    return con


class Store:
    """The writer side of the store (the runner holds one); readers use :func:`load_frames`."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.con = _connect(self.path)
        self.con.executescript(_SCHEMA)
        row = self.con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is None:
            self.con.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        elif int(row[0]) > SCHEMA_VERSION:
            raise StoreError(f"{self.path} was written by a newer cabo-kit (schema {row[0]}); upgrade cabo-kit to read it")

    def add_game(self, game: GameRow, seats: Sequence[SeatRow]) -> bool:
        """Store one finished game and its seats in one transaction; ``False`` if it was already there."""
        blob = zlib.compress(game.record, 6)
        sha = hashlib.sha256(game.record).hexdigest()
        con = self.con
        con.execute("BEGIN IMMEDIATE")
        try:
            cur = con.execute(
                "INSERT OR IGNORE INTO games VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (game.game_id, game.deal_id, game.order_key, game.preset, game.rules, game.table_size, game.deal_seed,
                 game.rotation, game.status, game.n_rounds, blob, sha),
            )
            added = cur.rowcount == 1
            if added:
                con.executemany(
                    f"INSERT OR IGNORE INTO seats VALUES ({','.join('?' * (9 + len(COUNTS)))})",
                    [(game.game_id, s.seat, s.bot, s.version, s.total, s.rank, s.win, s.status, s.fault,
                      *(int(s.counts.get(c, 0)) for c in COUNTS)) for s in seats],
                )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        return added

    def existing_ids(self) -> set[str]:
        """The ids of every stored game."""
        return {r[0] for r in self.con.execute("SELECT game_id FROM games")}

    def set_scheduled(self, ids: Iterable[str]) -> None:
        """Replace the latest schedule's game ids (what the frames show)."""
        self._replace("scheduled", [(i,) for i in ids])

    def add_scheduled(self, ids: Iterable[str]) -> None:
        """Add game ids to the latest schedule (an adaptive run's next batch)."""
        con = self.con
        con.execute("BEGIN IMMEDIATE")
        try:
            con.executemany("INSERT OR IGNORE INTO scheduled VALUES (?)", [(i,) for i in ids])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def set_rejected(self, rejected: Iterable[tuple[str, str]]) -> None:
        """Replace the list of rejected files with this run's."""
        self._replace("rejected", list(rejected))

    def _replace(self, table: str, rows: list[tuple[Any, ...]]) -> None:
        con = self.con
        con.execute("BEGIN IMMEDIATE")
        try:
            con.execute(f"DELETE FROM {table}")
            if rows:
                con.executemany(f"INSERT OR IGNORE INTO {table} VALUES ({','.join('?' * len(rows[0]))})", rows)
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def delete_game(self, gid: str) -> None:
        """Remove one game (e.g. one whose record is corrupt); the next run plays it again."""
        con = self.con
        con.execute("BEGIN IMMEDIATE")
        con.execute("DELETE FROM seats WHERE game_id=?", (gid,))
        con.execute("DELETE FROM games WHERE game_id=?", (gid,))
        con.execute("COMMIT")

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _reader(path: str | Path) -> sqlite3.Connection:
    p = Path(path)
    if p.is_dir():
        p = p / DB_NAME
    if not p.exists():
        raise StoreError(f"no results store at {p}: run `cabo-kit tournament run {p.parent}` first")
    return _connect(p)


def load_frames(db_path: str | Path, current_only: bool = True) -> "tuple[pd.DataFrame, pd.DataFrame]":
    """The ``(games, seats)`` frames of a store (a path to the file, or the tournament folder).

    Columns as in docs/tournaments.md. Rows are in schedule order (``game_index``), seats
    by seat. With ``current_only`` (default) only the games of the latest run's schedule are
    included (a bot's games with an older version of its file are left out). ``win`` is each
    seat's share as the scores read it (:func:`~cabo_kit.tournament.outcomes.fair_win`): in a game
    a fault ended, 0 for the faulting seat and NaN for the others.
    """
    import pandas as pd

    con = _reader(db_path)
    try:
        only = current_only and con.execute("SELECT 1 FROM scheduled LIMIT 1").fetchone() is not None
        where = " WHERE g.game_id IN (SELECT game_id FROM scheduled)" if only else ""
        games = pd.read_sql_query(
            "SELECT g.game_id, g.deal_id, g.order_key, g.preset, g.rules, g.table_size, g.deal_seed, g.rotation, "
            f"g.status, g.n_rounds, g.record_sha256 FROM games g{where} "
            "ORDER BY g.order_key, g.preset, g.rules, g.table_size, g.rotation, g.game_id", con)
        seats = pd.read_sql_query(
            f"SELECT s.* FROM seats s JOIN games g ON g.game_id = s.game_id{where} ORDER BY s.game_id, s.seat", con)
    finally:
        con.close()
    games.insert(2, "game_index", range(len(games)))
    games["deal_seed"] = games["deal_seed"].astype("int64")
    info = games[["game_id", "deal_id", "game_index", "preset", "rules", "table_size", "order_key", "rotation"]]
    seats = info.merge(seats, on="game_id", how="inner").sort_values(["game_index", "seat"], kind="stable")
    seats = seats[["game_id", "deal_id", "game_index", "preset", "rules", "table_size", "seat", "bot", "version",
                   "total", "rank", "win", "status", "fault", *COUNTS]].reset_index(drop=True)
    games = games[["game_id", "deal_id", "game_index", "preset", "rules", "table_size", "deal_seed", "status",
                   "n_rounds", "record_sha256"]].reset_index(drop=True)
    for col in ("game_index", "table_size", "seat", "total", "rank", *COUNTS):
        seats[col] = seats[col].astype("int64")
    from .outcomes import fair_win

    # Scored from the statuses, not the stored shares: older stores let the other seats of a faulted game share its win.
    seats["win"] = fair_win(seats)
    return games, seats


def load_rejected(db_path: str | Path) -> "pd.DataFrame":
    """The files the latest run rejected: a frame with columns ``file`` and ``reason``."""
    import pandas as pd

    con = _reader(db_path)
    try:
        return pd.read_sql_query("SELECT file, reason FROM rejected ORDER BY file", con)
    finally:
        con.close()


def load_record(db_path: str | Path, gid: str) -> "GameRecord":
    """The :class:`~cabo_kit.record.GameRecord` of one stored game, checked against its sha256.

    A damaged record raises :class:`StoreError` saying which game and how to replay it.
    """
    from ..record import GameRecord

    con = _reader(db_path)
    try:
        row = con.execute("SELECT record, record_sha256 FROM games WHERE game_id=?", (gid,)).fetchone()
    finally:
        con.close()
    if row is None:
        raise StoreError(f"no game {gid!r} in {db_path}: take ids from load_frames(...)[0].game_id")
    fix = (f"remove it with Store({str(db_path)!r}).delete_game({gid!r}) and run the tournament again to replay it")
    try:
        text = zlib.decompress(row[0])
    except zlib.error as exc:
        raise StoreError(f"the record of game {gid} is corrupt (not zlib data: {exc}); {fix}") from None
    if hashlib.sha256(text).hexdigest() != row[1]:
        raise StoreError(f"the record of game {gid} is corrupt (its sha256 does not match); {fix}")
    return GameRecord.from_json(text)
