"""The results store: one SQLite file per tournament (``DIR/results.sqlite``).

Tables: ``games`` (a row per game, its compressed :class:`~cabo_kit.record.GameRecord` JSON
and that JSON's sha256, its wall ``seconds``), ``seats`` (a row per game and seat: bot, version,
score, rank, status, per-rule counts, and the bot's ``decisions``, ``cpu_s`` and ``cpu_hist``: see
:mod:`~cabo_kit.tournament.timing`; NULL in rows written before schema 2: unknown, never 0), ``rejected`` (files that could not play, with the reason),
``scheduled`` (the game ids of the latest run's schedule: the frames show those games), ``meta``
(the schema version; the tournament ``seed`` the games were played with, recorded by the first run:
a game's id does not hold the seed, so a run with another seed is refused rather than mixing
deals; the adaptive schedule's ``speed_classes``). A
fault is replayed from its game's record (:func:`load_faults`, ``cabo-kit tournament repro``).

Writing: WAL journal, ``synchronous=NORMAL``, and one ``BEGIN IMMEDIATE`` transaction per
finished game. A game's id is a hash of what makes it that game (preset, rules, table,
deal, rotation, and every seat's bot and version), inserted with ``INSERT OR IGNORE``: a
retried write is never a duplicate, and a killed runner loses at most the games it had not
committed, which the next run plays.

Errors: a damaged file (checked with ``PRAGMA quick_check`` when a run or a reader opens it),
a read-only file or folder, a full disk: every sqlite error becomes a :class:`StoreError` that
names the file and what to do (:func:`store_problem`); nothing here deletes or rewrites a
damaged file. Readers open without writing when they cannot write (docs/tournaments.md, "If
the store is damaged").

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

import functools
import hashlib
import json
import os
import shlex
import sqlite3
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence, TypeVar

if TYPE_CHECKING:
    import pandas as pd

    from ..record import GameRecord

__all__ = [
    "Store", "StoreError", "GameRow", "SeatRow", "COUNTS", "load_frames", "load_rejected", "load_record", "game_id",
    "DB_NAME", "store_problem", "StoredFault", "load_faults", "fault_hook", "SCHEMA_VERSION", "TIMING",
]

DB_NAME = "results.sqlite"

COUNTS = (
    "rounds", "cabo_calls", "cabo_wins", "kamikaze", "royal_roulette", "resets", "snaps", "snaps_right",
    "failed_multi_exchanges", "powers_used", "deck_outs", "round_score_sum",
)
"""The per-rule counts kept for each seat of each game (see docs/tournaments.md)."""

SCHEMA_VERSION = 2
"""1: games, seats, rejected, scheduled. 2: games.seconds; seats.decisions, cpu_s, cpu_hist (a store of
schema 1 is migrated when a writer opens it: its rows keep NULL there, timing unknown)."""

TIMING = ("decisions", "cpu_s", "cpu_hist")
"""The per-seat timing columns (schema 2; measured by :mod:`~cabo_kit.tournament.timing`, read by :mod:`~cabo_kit.results.timing`)."""

_MIGRATIONS: dict[int, tuple[str, ...]] = {
    2: ("ALTER TABLE games ADD COLUMN seconds REAL", "ALTER TABLE seats ADD COLUMN decisions INTEGER",
        "ALTER TABLE seats ADD COLUMN cpu_s REAL", "ALTER TABLE seats ADD COLUMN cpu_hist TEXT"),
}
"""The statements that bring a store of schema ``v - 1`` to ``v``, run in one transaction per version."""

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    game_id TEXT PRIMARY KEY, deal_id TEXT NOT NULL, order_key TEXT NOT NULL, preset TEXT NOT NULL,
    rules TEXT NOT NULL, table_size INTEGER NOT NULL, deal_seed INTEGER NOT NULL, rotation INTEGER NOT NULL,
    status TEXT NOT NULL, n_rounds INTEGER NOT NULL, record BLOB NOT NULL, record_sha256 TEXT NOT NULL,
    seconds REAL
);
CREATE TABLE IF NOT EXISTS seats (
    game_id TEXT NOT NULL REFERENCES games(game_id), seat INTEGER NOT NULL, bot TEXT NOT NULL,
    version TEXT NOT NULL, total INTEGER NOT NULL, rank INTEGER NOT NULL, win REAL NOT NULL,
    status TEXT NOT NULL, fault TEXT NOT NULL,
    {", ".join(f"{c} INTEGER NOT NULL" for c in COUNTS)},
    decisions INTEGER, cpu_s REAL, cpu_hist TEXT,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS rejected (file TEXT PRIMARY KEY, reason TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS scheduled (game_id TEXT PRIMARY KEY);
"""


_GAME_COLUMNS = ("game_id, deal_id, order_key, preset, rules, table_size, deal_seed, rotation, status, n_rounds, "
                 "record, record_sha256, seconds")
_SEAT_COLUMNS = ", ".join(["game_id", "seat", "bot", "version", "total", "rank", "win", "status", "fault", *COUNTS, *TIMING])


class StoreError(RuntimeError):
    """The results store cannot be used: damaged, not writable, a corrupt record, a newer schema. The message says what to do."""


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
    seconds: float | None = None


@dataclass
class SeatRow:
    """One seat of one game as stored; ``counts`` maps names of :data:`COUNTS` to ints (missing: 0);
    ``decisions``, ``cpu_s``, ``cpu_hist``: the bot's timing in the game (``None``: not measured)."""

    seat: int
    bot: str
    version: str
    total: int
    rank: int
    win: float
    status: str
    fault: str
    counts: dict[str, int] = field(default_factory=dict)
    decisions: int | None = None
    cpu_s: float | None = None
    cpu_hist: str | None = None


def _connect(path: str | Path) -> sqlite3.Connection:
    con = sqlite3.connect(str(path), timeout=30, isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")
    except BaseException:
        con.close()  # before the error is described: closing removes the side files this open made
        raise
    return con


# ------------------------------------------------------------------ a damaged or read-only store
#
# Every sqlite error becomes a StoreError that names the file and the fix, and nothing here
# ever deletes or rewrites a damaged file: the user moves it aside, and the next run replays
# its games.

_F = TypeVar("_F", bound=Callable[..., Any])
_WAL_MAGIC = (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83")


def _db_path(path: str | Path) -> Path:
    p = Path(path)
    return p / DB_NAME if p.is_dir() and not p.name.endswith(".sqlite") else p


def _side_files(db: Path) -> list[Path]:
    return [Path(f"{db}-wal"), Path(f"{db}-shm")]


def _damaged(db: Path, reason: str) -> StoreError:
    mv, q = ("move" if os.name == "nt" else "mv"), shlex.quote
    moves = [f"{mv} {q(str(db))} {q(str(db) + '.damaged')}"] + [
        f"{mv} {q(str(side))} {q(str(db) + '.damaged' + side.name[len(db.name):])}" for side in _side_files(db) if side.exists()]
    return StoreError(
        f"{db} is not a readable results store ({reason}). Move it aside ({'; '.join(moves)}) and run "
        f"`cabo-kit tournament run {q(str(db.parent))}` again: the games will be replayed; nothing else in the folder is changed")


def store_problem(db: str | Path, exc: BaseException) -> StoreError:
    """The :class:`StoreError` for an sqlite error on the store ``db``: which file, what is wrong, what to do.

    >>> print(store_problem("class/results.sqlite", sqlite3.DatabaseError("file is not a database")))
    class/results.sqlite is not a readable results store (file is not a database). Move it aside (mv class/results.sqlite class/results.sqlite.damaged) and run `cabo-kit tournament run class` again: the games will be replayed; nothing else in the folder is changed
    """
    from .lock import cannot_write

    db = Path(db)
    name = getattr(exc, "sqlite_errorname", "") or ""
    reason = str(exc)
    if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or reason in ("file is not a database",
                                                                           "database disk image is malformed"):
        return _damaged(db, reason)
    if db.is_dir():
        return StoreError(f"{db} is a folder, not a results store: move it aside (mv {shlex.quote(str(db))} "
                          f"{shlex.quote(str(db) + '.moved')}) and run again")
    if name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM")) or "readonly" in reason \
            or "unable to open" in reason:
        if not db.parent.is_dir():
            return StoreError(f"{db.parent} is not a folder: check the path ({reason})")
        if db.exists() and not os.access(db, os.R_OK):
            return StoreError(f"{db} cannot be read ({reason}): make it readable with chmod u+r {shlex.quote(str(db))}")
        return StoreError(cannot_write(reason, db, db.parent, *_side_files(db)))
    if name.startswith("SQLITE_FULL") or "disk is full" in reason:
        return StoreError(f"the disk holding {db} is full ({reason}): free some space and run again; "
                          "the games stored so far are kept")
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in reason:
        return StoreError(f"{db} is being written by another process ({reason}): wait for it to end, then run again")
    if name.startswith("SQLITE_IOERR") or "I/O error" in reason:
        return StoreError(f"{db} could not be read or written ({reason}): check the disk and the permissions of the file, "
                          f"its -wal and -shm files and its folder (ls -la {shlex.quote(str(db.parent))}), then run again; "
                          "the games stored so far are kept")
    return StoreError(f"{db}: {reason} ({name or type(exc).__name__})")


def _sqlite_cause(exc: BaseException) -> sqlite3.Error | None:
    """The sqlite error behind ``exc`` (pandas wraps them in its own DatabaseError)."""
    seen: BaseException | None = exc
    for _ in range(5):
        if seen is None:
            return None
        if isinstance(seen, sqlite3.Error):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _reading(fn: _F) -> _F:
    """A reader of the store (first argument: its path) whose sqlite errors become :func:`store_problem`'s."""

    @functools.wraps(fn)
    def wrapper(db_path: str | Path, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(db_path, *args, **kwargs)
        except Exception as exc:
            cause = _sqlite_cause(exc)
            if cause is None:
                raise
            raise store_problem(_db_path(db_path), cause) from exc

    return wrapper  # type: ignore[return-value]


@contextmanager
def _problems(db: Path) -> Iterator[None]:
    """The writer's sqlite errors inside become :func:`store_problem`'s."""
    try:
        yield
    except sqlite3.Error as exc:
        raise store_problem(db, exc) from exc


def _corrupt(reason: str) -> sqlite3.DatabaseError:
    exc = sqlite3.DatabaseError(reason)
    exc.sqlite_errorname = "SQLITE_CORRUPT"
    return exc


def _check_side_files(db: Path) -> None:
    """A -wal file that is not a WAL journal at all: refuse before SQLite would set it aside as a torn write."""
    wal = _side_files(db)[0]
    try:
        with open(wal, "rb") as f:
            head = f.read(4)
    except OSError:
        return
    if len(head) == 4 and head not in _WAL_MAGIC:
        raise _corrupt(f"its journal {wal.name} is not a SQLite journal")


def _check_intact(con: sqlite3.Connection) -> None:
    """``PRAGMA quick_check`` (milliseconds for thousands of games): damage inside the file is named before any work."""
    rows = con.execute("PRAGMA quick_check(3)").fetchall()
    if rows and rows[0][0] != "ok":
        lines = [line for row in rows for line in str(row[0]).splitlines() if not line.startswith("***")]
        raise _corrupt("damaged: " + "; ".join(lines[:2]))


def _open_writer(db: Path) -> sqlite3.Connection:
    """The writer's connection, after checking the file is a whole store (errors: :func:`store_problem`)."""
    from .lock import _writable

    if db.is_dir():
        raise store_problem(db, sqlite3.OperationalError("unable to open database file"))
    if any(p.exists() and not _writable(p) for p in (db, db.parent, *_side_files(db))):
        # Checked first: SQLite would leave side files this user owns, in the way of the store's owner.
        exc = sqlite3.OperationalError("Permission denied")
        exc.sqlite_errorname = "SQLITE_READONLY"
        raise exc
    _check_side_files(db)
    con = _connect(db)
    try:
        _check_intact(con)
    except BaseException:
        con.close()
        raise
    return con


def _open_reader(db: Path) -> sqlite3.Connection:
    """A connection that only reads, also from a read-only file or folder.

    A plain connection first (its last close merges the WAL journal back and removes it). When
    the folder cannot take the journal's side files: an immutable read of the file itself, which
    is safe only when no journal holds games not yet merged (else the error names the folder).
    """
    from .lock import _writable

    _check_side_files(db)
    wal = _side_files(db)[0]
    journal = wal.exists() and wal.stat().st_size > 0
    if journal or _writable(db):  # else a plain open would leave side files this user owns
        con = sqlite3.connect(str(db), timeout=30)
        try:
            con.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return con
        except sqlite3.Error as exc:
            con.close()
            name = getattr(exc, "sqlite_errorname", "") or ""
            if not name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN")) or journal:
                raise
    con = sqlite3.connect(db.resolve().as_uri() + "?immutable=1", uri=True)
    try:
        con.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except BaseException:
        con.close()
        raise
    return con


@contextmanager
def _transaction(con: sqlite3.Connection, db: Path) -> Iterator[sqlite3.Connection]:
    """One ``BEGIN IMMEDIATE`` transaction on the store ``db``, committed at the end, rolled back on any error
    (sqlite errors become :func:`store_problem`'s).

    SQLite has already rolled back by itself after some errors (a full disk, an I/O error):
    ``ROLLBACK`` then runs only if a transaction is still open, so the error raised is the real one.
    """
    with _problems(db):
        con.execute("BEGIN IMMEDIATE")
        try:
            yield con
            con.execute("COMMIT")
        except BaseException:
            if con.in_transaction:
                try:
                    con.execute("ROLLBACK")
                except sqlite3.Error:
                    pass  # the error that brought us here is the one to report
            raise


class Store:
    """The writer side of the store (the runner holds one); readers use :func:`load_frames`.

    Every method that touches the file reports sqlite errors as :func:`store_problem`'s
    (:func:`_transaction`, or :func:`_problems` for one that only reads).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        with _problems(self.path):
            self.con = con = _open_writer(self.path)
            try:
                # The version first: a store of a newer cabo-kit is refused before anything is written into it.
                has_meta = con.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
                row = con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() if has_meta else None
                if row is not None and int(row[0]) > SCHEMA_VERSION:
                    raise StoreError(f"{self.path} was written by a newer cabo-kit (schema {row[0]}); "
                                     "upgrade cabo-kit to read it")
                if row is not None:
                    self._migrate(int(row[0]))
                con.executescript(_SCHEMA)
                if row is None:
                    con.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            except BaseException:
                con.close()
                raise

    def _migrate(self, version: int) -> None:
        """Bring a store of an earlier schema forward, one version a transaction (its rows are kept as they are)."""
        for target in range(version + 1, SCHEMA_VERSION + 1):
            with _transaction(self.con, self.path) as con:
                for statement in _MIGRATIONS.get(target, ()):
                    con.execute(statement)
                con.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(target),))

    def meta(self, key: str) -> str | None:
        """A value of the ``meta`` table (``seed``: the tournament seed its games were played with;
        ``speed_classes``: the cost classes the adaptive schedule uses, JSON), ``None`` if unset."""
        return read_meta(self.con, self.path, key)

    def set_meta(self, key: str, value: str) -> None:
        """Set a value of the ``meta`` table (never ``schema_version``: :meth:`_migrate` keeps that)."""
        if key == "schema_version":
            raise ValueError("the schema version is the store's own")
        with _transaction(self.con, self.path) as con:
            con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def add_game(self, game: GameRow, seats: Sequence[SeatRow]) -> bool:
        """Store one finished game and its seats in one transaction; ``False`` if it was already there."""
        blob = zlib.compress(game.record, 6)
        sha = hashlib.sha256(game.record).hexdigest()
        with _transaction(self.con, self.path) as con:
            cur = con.execute(
                f"INSERT OR IGNORE INTO games ({_GAME_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (game.game_id, game.deal_id, game.order_key, game.preset, game.rules, game.table_size, game.deal_seed,
                 game.rotation, game.status, game.n_rounds, blob, sha, game.seconds),
            )
            added = cur.rowcount == 1
            if added:
                con.executemany(
                    f"INSERT OR IGNORE INTO seats ({_SEAT_COLUMNS}) VALUES ({','.join('?' * (12 + len(COUNTS)))})",
                    [(game.game_id, s.seat, s.bot, s.version, s.total, s.rank, s.win, s.status, s.fault,
                      *(int(s.counts.get(c, 0)) for c in COUNTS), s.decisions, s.cpu_s, s.cpu_hist) for s in seats],
                )
        return added

    def existing_ids(self) -> set[str]:
        """The ids of every stored game."""
        with _problems(self.path):
            return {r[0] for r in self.con.execute("SELECT game_id FROM games")}

    def lineups(self) -> "dict[str, tuple[str, str, int, str, int, int, tuple[tuple[str, str], ...]]]":
        """Every stored game: ``game_id -> (preset, rules, table_size, order_key, deal_seed, rotation,
        ((bot, version) by seat))``, what a rerun needs to tell which stored games it can reuse."""
        return read_lineups(self.con, self.path)

    def scheduled_ids(self) -> set[str]:
        """The ids of the latest schedule (the ``scheduled`` table)."""
        with _problems(self.path):
            return {r[0] for r in self.con.execute("SELECT game_id FROM scheduled")}

    def set_scheduled(self, ids: Iterable[str]) -> None:
        """Replace the latest schedule's game ids (what the frames show)."""
        self._replace("scheduled", [(i,) for i in ids])

    def add_scheduled(self, ids: Iterable[str]) -> None:
        """Add game ids to the latest schedule (an adaptive run's next batch)."""
        with _transaction(self.con, self.path) as con:
            con.executemany("INSERT OR IGNORE INTO scheduled VALUES (?)", [(i,) for i in ids])

    def set_rejected(self, rejected: Iterable[tuple[str, str]]) -> None:
        """Replace the list of rejected files with this run's."""
        self._replace("rejected", list(rejected))

    def _replace(self, table: str, rows: list[tuple[Any, ...]]) -> None:
        with _transaction(self.con, self.path) as con:
            con.execute(f"DELETE FROM {table}")
            if rows:
                con.executemany(f"INSERT OR IGNORE INTO {table} VALUES ({','.join('?' * len(rows[0]))})", rows)

    def delete_game(self, gid: str) -> None:
        """Remove one game (e.g. one whose record is corrupt); the next run plays it again."""
        with _transaction(self.con, self.path) as con:
            con.execute("DELETE FROM seats WHERE game_id=?", (gid,))
            con.execute("DELETE FROM games WHERE game_id=?", (gid,))

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()




def read_meta(con: sqlite3.Connection, path: Path, key: str) -> str | None:
    """:meth:`Store.meta` on any connection (a reader's too); ``None`` in a store without a ``meta`` table."""
    with _problems(path):
        if not con.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone():
            return None
        row = con.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return None if row is None else str(row[0])


def read_lineups(con: sqlite3.Connection,
                 path: Path) -> "dict[str, tuple[str, str, int, str, int, int, tuple[tuple[str, str], ...]]]":
    """:meth:`Store.lineups` on any connection (a reader's too)."""
    with _problems(path):
        rows = con.execute(
            "SELECT g.game_id, g.preset, g.rules, g.table_size, g.order_key, g.deal_seed, g.rotation, s.bot, s.version "
            "FROM games g JOIN seats s ON s.game_id = g.game_id ORDER BY g.game_id, s.seat").fetchall()
    out: dict[str, tuple[str, str, int, str, int, int, tuple[tuple[str, str], ...]]] = {}
    for gid, preset, rules, k, order_key, seed, rot, bot, version in rows:
        head = out.get(gid)
        seats = (head[6] if head else ()) + ((bot, version),)
        out[gid] = (preset, rules, int(k), order_key, int(seed), int(rot), seats)
    return out


def _reader(path: str | Path) -> sqlite3.Connection:
    p = _db_path(path)
    if not p.exists():
        raise StoreError(f"no results store at {p}: run `cabo-kit tournament run {p.parent}` first")
    return _open_reader(p)


@_reading
def load_frames(db_path: str | Path, current_only: bool = True) -> "tuple[pd.DataFrame, pd.DataFrame]":
    """The ``(games, seats)`` frames of a store (a path to the file, or the tournament folder).

    Columns as in docs/tournaments.md (the timing ones: games ``seconds``, seats ``decisions``, ``cpu_s``,
    ``cpu_hist``, NA where not measured). Rows are in schedule order (``game_index``), seats
    by seat. With ``current_only`` (default) only the games of the latest run's schedule are
    included (a bot's games with an older version of its file are left out). ``win`` is each
    seat's share as the scores read it (:func:`~cabo_kit.results.outcomes.fair_win`): in a game
    a fault ended, 0 for the faulting seat and NaN for the others.
    """
    import pandas as pd

    con = _reader(db_path)
    try:
        _check_intact(con)
        con.execute("BEGIN")  # one snapshot for both frames while a run may be adding games
        only = current_only and con.execute("SELECT 1 FROM scheduled LIMIT 1").fetchone() is not None
        where = " WHERE g.game_id IN (SELECT game_id FROM scheduled)" if only else ""
        timed = "seconds" in {r[1] for r in con.execute("PRAGMA table_info(games)")}  # schema 2 (a reader never migrates)
        games = pd.read_sql_query(
            "SELECT g.game_id, g.deal_id, g.order_key, g.preset, g.rules, g.table_size, g.deal_seed, g.rotation, "
            f"g.status, g.n_rounds, g.record_sha256, {'g.seconds' if timed else 'NULL AS seconds'} FROM games g{where} "
            "ORDER BY g.order_key, g.preset, g.rules, g.table_size, g.rotation, g.game_id", con)
        seats = pd.read_sql_query(
            f"SELECT s.* FROM seats s JOIN games g ON g.game_id = s.game_id{where} ORDER BY s.game_id, s.seat", con)
    finally:
        con.close()
    games.insert(2, "game_index", range(len(games)))
    games["deal_seed"] = games["deal_seed"].astype("int64")
    info = games[["game_id", "deal_id", "game_index", "preset", "rules", "table_size", "order_key", "rotation"]]
    seats = info.merge(seats, on="game_id", how="inner").sort_values(["game_index", "seat"], kind="stable")
    for col in TIMING:
        if col not in seats.columns:
            seats[col] = None
    seats = seats[["game_id", "deal_id", "game_index", "preset", "rules", "table_size", "seat", "bot", "version",
                   "total", "rank", "win", "status", "fault", *COUNTS, *TIMING]].reset_index(drop=True)
    games = games[["game_id", "deal_id", "game_index", "preset", "rules", "table_size", "deal_seed", "status",
                   "n_rounds", "record_sha256", "seconds"]].reset_index(drop=True)
    for col in ("game_index", "table_size", "seat", "total", "rank", *COUNTS):
        seats[col] = seats[col].astype("int64")
    # Unknown timing (rows of schema 1) stays NA, never 0: decisions Int64, cpu_s and seconds float.
    seats["decisions"] = pd.array(seats["decisions"], dtype="Int64")
    seats["cpu_s"] = seats["cpu_s"].astype("float64")
    seats["cpu_hist"] = seats["cpu_hist"].astype(object).where(seats["cpu_hist"].notna(), None)
    games["seconds"] = games["seconds"].astype("float64")
    from ..results.outcomes import fair_win

    # Scored from the statuses, not the stored shares: older stores let the other seats of a faulted game share its win.
    seats["win"] = fair_win(seats)
    return games, seats


@_reading
def load_rejected(db_path: str | Path) -> "pd.DataFrame":
    """The files the latest run rejected: a frame with columns ``file`` and ``reason``."""
    import pandas as pd

    con = _reader(db_path)
    try:
        return pd.read_sql_query("SELECT file, reason FROM rejected ORDER BY file", con)
    finally:
        con.close()


@_reading
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


def fault_hook(reason: str) -> str:
    """The call a fault's reason names (``"choose()"``, ``"on_round_start()"``...), ``""`` if it names none
    (a crashed process, a reply that is not JSON...).

    >>> fault_hook("on_round_start() raised:\\nTraceback ..."), fault_hook("the bot's process was killed")
    ('on_round_start()', '')
    """
    from ..bot import BOT_HOOKS

    head = reason.lstrip()
    return next((f"{h}()" for h in BOT_HOOKS if head.startswith(f"{h}()")), "")


@dataclass
class StoredFault:
    """One faulted game as the store holds it (``games`` and ``seats``): who faulted, how, and the game.

    ``game_id``, ``seat``, ``bot``, ``version`` (of its file), ``kind`` (``error``, ``timeout``,
    ``illegal``, ``crash``), ``reason`` (traceback or words), ``preset``, ``rules`` (JSON of the
    overrides), ``table_size``, ``deal_seed``, ``order_key``; ``current``: whether the game is in
    the latest run's schedule (else a game of an older file version); ``hook``: the call that
    failed as the reason names it (:func:`fault_hook`). What the bot was given there is in the
    game's record: ``load_record(db, game_id).view(seat, len(record.actions))``.
    """

    game_id: str
    seat: int
    bot: str
    version: str
    kind: str
    reason: str
    preset: str
    rules: str
    table_size: int
    deal_seed: int
    order_key: str
    current: bool = True

    @property
    def hook(self) -> str:
        """The call that failed (``"choose()"`` when the reason names none: a decision is the usual place)."""
        return fault_hook(self.reason) or "choose()"


@_reading
def load_faults(db_path: str | Path) -> list[StoredFault]:
    """Every stored fault (of any run: ``current`` says which are in the latest schedule), in schedule order.

    >>> import tempfile, os
    >>> db = os.path.join(tempfile.mkdtemp(), "results.sqlite")
    >>> with Store(db) as store:
    ...     _ = store.add_game(GameRow("g1", "d1", "00001:x:0", "rush", "{}", 2, 7, 0, "fault", 0, b"{}"),
    ...                        [SeatRow(0, "a", "v1", 0, 1, 1.0, "ok", "", {}), SeatRow(1, "b", "v2", 0, 2, 0.0, "error", "choose() raised: boom", {})])
    >>> [(f.game_id, f.bot, f.kind, f.reason, f.hook) for f in load_faults(db)]
    [('g1', 'b', 'error', 'choose() raised: boom', 'choose()')]
    """
    con = _reader(db_path)
    try:
        _check_intact(con)
        rows = con.execute(
            "SELECT s.game_id, s.seat, s.bot, s.version, s.status, s.fault, g.preset, g.rules, g.table_size, g.deal_seed, "
            "g.order_key, (c.game_id IS NOT NULL OR NOT EXISTS (SELECT 1 FROM scheduled)) "
            "FROM seats s JOIN games g ON g.game_id = s.game_id LEFT JOIN scheduled c ON c.game_id = s.game_id "
            "WHERE s.status != 'ok' ORDER BY g.order_key, g.game_id").fetchall()
    finally:
        con.close()
    faults = [StoredFault(*r[:11]) for r in rows]
    for fault, r in zip(faults, rows):
        fault.current = bool(r[11])
    return faults
