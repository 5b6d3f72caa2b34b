"""The portal's own state: people, sign-in tokens, sessions and uploads, in ``DIR/portal/portal.sqlite``.

Games and ratings stay in the tournament's ``results.sqlite``; this file holds only what the
portal needs to know who someone is and what they sent. It is a file of its own (mode 0600 in a
0700 folder) rather than tables in the results store because: the runner writes a game per
transaction and every page view would otherwise wait on the same writer lock; the store's schema
belongs to the tournament (``tournament run`` on a copy of the folder must not see portal tables);
and the session and token hashes are kept where an isolated bot that could read the results
could still not read them.

Secrets are never stored: a sign-in token and a session id are kept as their SHA-256 (they are
256 random bits each, so a fast hash is enough), compared in constant time. An upload is written
to a temporary file, then renamed to ``uploads/<id>/<upload number>.py`` inside the transaction
that inserts its row: after a crash the row and the file exist together or not at all
(:meth:`PortalState.recover` removes a file left without its row).

>>> import tempfile
>>> from cabo_kit.portal.roster import Student
>>> state = PortalState(tempfile.mkdtemp())
>>> links = state.sync_roster([Student("ada", "Ada")], now=0.0)
>>> sorted(links)
['_teacher', 'ada']
>>> state.person_for_token(links["ada"]).id
'ada'
>>> state.person_for_token("not-a-token") is None
True
>>> up = state.add_upload("ada", b"class B: ...\\n", "bot.py", now=100.0, min_interval=30.0)
>>> (up.number, up.status, up.path.name)
(1, 'checking', '1.py')
>>> state.add_upload("ada", b"# again\\n", "bot.py", now=110.0, min_interval=30.0)
Traceback (most recent call last):
...
cabo_kit.portal.state.TooSoon: one upload every 30 s: try again in 20 s
>>> state.close()
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from .roster import Student

__all__ = ["PortalState", "Person", "Session", "Upload", "TooSoon", "PastDeadline", "start_ticks", "TEACHER", "new_secret", "secret_hash", "PORTAL_DIR"]

PORTAL_DIR = "portal"
"""The portal's folder inside the tournament folder (mode 0700): ``portal.sqlite`` and ``uploads/``."""

TEACHER = "_teacher"
"""The teacher's person id (roster ids never start with ``_``)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS people (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL, active INTEGER NOT NULL,
    token_hash TEXT, token_issued REAL, current INTEGER
);
CREATE TABLE IF NOT EXISTS sessions (
    sid_hash TEXT PRIMARY KEY, person TEXT NOT NULL REFERENCES people(id), csrf TEXT NOT NULL,
    created REAL NOT NULL, ended REAL
);
CREATE INDEX IF NOT EXISTS sessions_person ON sessions(person);
CREATE TABLE IF NOT EXISTS uploads (
    person TEXT NOT NULL REFERENCES people(id), number INTEGER NOT NULL, version TEXT NOT NULL,
    size INTEGER NOT NULL, filename TEXT NOT NULL, uploaded REAL NOT NULL, status TEXT NOT NULL,
    result TEXT NOT NULL, PRIMARY KEY (person, number)
);
CREATE TABLE IF NOT EXISTS processes (pgid INTEGER PRIMARY KEY, kind TEXT NOT NULL, started REAL NOT NULL);
CREATE TABLE IF NOT EXISTS changes (id INTEGER PRIMARY KEY CHECK (id = 0), n INTEGER NOT NULL);
INSERT OR IGNORE INTO changes (id, n) VALUES (0, 0);
""" + "".join(f"CREATE TRIGGER IF NOT EXISTS {table}_{event.lower()} AFTER {event} ON {table} "
              "BEGIN UPDATE changes SET n = n + 1; END;\n"
              for table in ("people", "uploads") for event in ("INSERT", "UPDATE", "DELETE"))
# ``changes`` counts every change of people and uploads (by any process): pages cache what they render from them.


def start_ticks(pid: int) -> int | None:
    """When process ``pid`` started, in clock ticks since boot (``/proc/PID/stat`` field 22), or ``None`` (gone, not
    Linux): with its pid it names one process, as a recycled pid starts later."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
        return int(text[text.rfind(")") + 2:].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def new_secret() -> str:
    """A fresh secret for a link or a session: 256 bits from :mod:`secrets`, URL-safe (43 characters)."""
    return secrets.token_urlsafe(32)


def secret_hash(secret: str) -> str:
    """What is stored of a secret: its SHA-256, hex."""
    return hashlib.sha256(secret.encode("utf-8", "replace")).hexdigest()


class TooSoon(Exception):
    """An upload came before the student's next one is allowed; :attr:`retry_after` is in whole seconds."""

    def __init__(self, interval: float, retry_after: int) -> None:
        super().__init__(f"one upload every {interval:g} s: try again in {retry_after} s")
        self.retry_after = retry_after


@dataclass(frozen=True)
class Person:
    """Someone who may sign in: a student of the roster, or the teacher (:data:`TEACHER`)."""

    id: str
    name: str
    role: str  # "student" or "teacher"

    @property
    def is_teacher(self) -> bool:
        return self.role == "teacher"


@dataclass(frozen=True)
class Session:
    """A signed-in browser: whose it is and its anti-forgery token (the session id itself is not kept)."""

    person: Person
    csrf: str


@dataclass(frozen=True)
class Upload:
    """One uploaded file of a student: its number (1, 2, ...), version (12 hex digits of its SHA-256),
    where it is stored, and its check's status (``checking``, ``accepted``, ``rejected``) and result.

    ``rest``: accepted by the check's first verdict, the rest of its check still to come (it may yet reject it).
    ``failures`` and ``retry_at``: the checker failed on it (:meth:`PortalState.note_failure`), and when it is
    tried again."""

    person: str
    number: int
    version: str
    size: int
    filename: str  # the name it was uploaded under: shown, never used as a path
    uploaded: float
    status: str
    result: str
    root: Path  # the portal's uploads folder: ``path`` is made only when asked for (a page lists hundreds of uploads)
    rest: bool = False
    failures: int = 0  # the check process ended while it checked this file (its step's so far: the first verdict, then the rest)
    retry_at: float | None = None  # the checker failed on it: tried again then (time.time()); None: not waiting to retry

    @property
    def path(self) -> Path:
        """Where the file is stored: ``portal/uploads/<id>/<number>.py``."""
        return self.root / self.person / f"{self.number}.py"


class PastDeadline(Exception):
    """An upload made at or after the deadline (the stored one, read in the upload's own transaction)."""

    def __init__(self, deadline: float) -> None:
        super().__init__("the deadline has passed: uploads are closed")
        self.deadline = deadline


def _write_private(path: Path, data: bytes) -> None:
    """Write ``path`` readable by its owner only (a bot, under a uid of its own, cannot read it)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        os.fchmod(f.fileno(), 0o600)
        f.write(data)


def _private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)


class PortalState:
    """The portal's state for the tournament folder ``folder`` (created on first use)."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self.dir = self.folder / PORTAL_DIR
        self.uploads = self.dir / "uploads"
        _private_dir(self.dir)
        _private_dir(self.uploads)
        db = self.dir / "portal.sqlite"
        fd = os.open(db, os.O_RDWR | os.O_CREAT, 0o600)
        os.close(fd)
        self._con = sqlite3.connect(db, isolation_level=None, check_same_thread=False, timeout=30.0)
        self._lock = threading.RLock()
        with self._lock:
            self._con.execute("PRAGMA journal_mode=WAL")
            self._con.execute("PRAGMA synchronous=NORMAL")
            self._con.executescript(_SCHEMA)
            columns = {r[1] for r in self._con.execute("PRAGMA table_info(processes)")}
            if "ticks" not in columns:  # a state made before start times were recorded
                self._con.execute("ALTER TABLE processes ADD COLUMN ticks INTEGER")
            upload_columns = {r[1] for r in self._con.execute("PRAGMA table_info(uploads)")}
            if "rest" not in upload_columns:  # made before the two steps
                self._con.execute("ALTER TABLE uploads ADD COLUMN rest INTEGER NOT NULL DEFAULT 0")
            if "failures" not in upload_columns:  # made before the checker's failures were counted
                self._con.execute("ALTER TABLE uploads ADD COLUMN failures INTEGER NOT NULL DEFAULT 0")
                self._con.execute("ALTER TABLE uploads ADD COLUMN retry_at REAL")

    # ------------------------------------------------------------------ plumbing

    def _tx(self) -> "_Transaction":
        return _Transaction(self)

    def _rows(self, sql: str, args: Sequence[object] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return list(self._con.execute(sql, args))

    def close(self) -> None:
        with self._lock:
            self._con.close()

    # ------------------------------------------------------------------ people and tokens

    def sync_roster(self, students: Iterable[Student], now: float | None = None) -> dict[str, str]:
        """Make the people match the roster (and the teacher); return the new links' tokens by person id.

        A student new to the roster (and the teacher, the first time) gets a token: the returned
        dict is the only place it exists, so the caller writes it out at once. A student who left
        the roster can no longer sign in and their sessions end; one who comes back keeps their token.
        """
        now = time.time() if now is None else now
        wanted = {s.id: s for s in students}
        fresh: dict[str, str] = {}
        with self._tx() as con:
            known = {str(r[0]): bool(r[1]) for r in con.execute("SELECT id, token_hash IS NOT NULL FROM people")}
            people = [(TEACHER, "Teacher", "teacher")] + [(s.id, s.name, "student") for s in wanted.values()]
            for pid, name, role in people:
                if pid in known:
                    con.execute("UPDATE people SET name = ?, active = 1 WHERE id = ?", (name, pid))
                else:
                    con.execute("INSERT INTO people (id, name, role, active) VALUES (?, ?, ?, 1)", (pid, name, role))
                if not known.get(pid):
                    token = new_secret()
                    con.execute("UPDATE people SET token_hash = ?, token_issued = ? WHERE id = ?", (secret_hash(token), now, pid))
                    fresh[pid] = token
            gone = [pid for pid in known if pid != TEACHER and pid not in wanted]
            for pid in gone:
                con.execute("UPDATE people SET active = 0 WHERE id = ?", (pid,))
                con.execute("UPDATE sessions SET ended = ? WHERE person = ? AND ended IS NULL", (now, pid))
        return fresh

    def reissue(self, pid: str, now: float | None = None) -> str:
        """A new token for ``pid``: the old link stops working and every session of theirs ends."""
        now = time.time() if now is None else now
        token = new_secret()
        with self._tx() as con:
            found = con.execute("UPDATE people SET token_hash = ?, token_issued = ? WHERE id = ? AND active = 1",
                                (secret_hash(token), now, pid)).rowcount
            if not found:
                raise KeyError(pid)
            con.execute("UPDATE sessions SET ended = ? WHERE person = ? AND ended IS NULL", (now, pid))
        return token

    def people(self) -> list[Person]:
        """Everyone who may sign in, the teacher first, then the students in roster order of arrival."""
        rows = self._rows("SELECT id, name, role FROM people WHERE active = 1 ORDER BY role = 'student', rowid")
        return [Person(str(i), str(n), str(r)) for i, n, r in rows]

    def person(self, pid: str) -> Person | None:
        rows = self._rows("SELECT id, name, role FROM people WHERE id = ? AND active = 1", (pid,))
        return Person(*map(str, rows[0])) if rows else None

    def person_for_token(self, token: str) -> Person | None:
        """Whose sign-in token this is, or ``None``: compared in constant time with every stored hash."""
        wanted = secret_hash(token)
        found: tuple[Any, ...] | None = None
        for row in self._rows("SELECT id, name, role, token_hash FROM people WHERE active = 1 AND token_hash IS NOT NULL"):
            if hmac.compare_digest(str(row[3]), wanted):  # no early exit: every hash is compared
                found = row
        return None if found is None else Person(str(found[0]), str(found[1]), str(found[2]))

    # ------------------------------------------------------------------ sessions

    MAX_SESSIONS = 8
    """Live sessions one person may have (browsers, devices); opening the link once more ends the oldest."""

    def start_session(self, person: Person, now: float | None = None) -> tuple[str, Session]:
        """A new session for ``person``: its id (for the cookie only; stored as a hash) and the session.

        Beyond :attr:`MAX_SESSIONS` live sessions, the oldest of that person's end.
        """
        sid, csrf = new_secret(), new_secret()
        now = time.time() if now is None else now
        with self._tx() as con:
            con.execute("INSERT INTO sessions (sid_hash, person, csrf, created) VALUES (?, ?, ?, ?)",
                        (secret_hash(sid), person.id, csrf, now))
            con.execute("UPDATE sessions SET ended = ? WHERE ended IS NULL AND person = ? AND rowid NOT IN "
                        "(SELECT rowid FROM sessions WHERE ended IS NULL AND person = ? ORDER BY rowid DESC LIMIT ?)",
                        (now, person.id, person.id, self.MAX_SESSIONS))
        return sid, Session(person, csrf)

    def session(self, sid: str) -> Session | None:
        """The live session of this id, or ``None`` (unknown, ended, or its person left the roster)."""
        rows = self._rows("SELECT p.id, p.name, p.role, s.csrf FROM sessions s JOIN people p ON p.id = s.person "
                          "WHERE s.sid_hash = ? AND s.ended IS NULL AND p.active = 1", (secret_hash(sid),))
        if not rows:
            return None
        pid, name, role, csrf = map(str, rows[0])
        return Session(Person(pid, name, role), csrf)

    def live_session_hashes(self, hashes: Iterable[str]) -> set[str]:
        """Which of these session-id hashes are live sessions (the live board ends the others' streams)."""
        wanted, live = sorted(set(hashes)), set()
        for i in range(0, len(wanted), 500):
            part = wanted[i:i + 500]
            live |= {str(r[0]) for r in self._rows(
                "SELECT s.sid_hash FROM sessions s JOIN people p ON p.id = s.person WHERE s.ended IS NULL AND p.active = 1 "
                f"AND s.sid_hash IN ({', '.join('?' * len(part))})", part)}
        return live

    def end_session(self, sid: str, now: float | None = None) -> None:
        with self._tx() as con:
            con.execute("UPDATE sessions SET ended = ? WHERE sid_hash = ? AND ended IS NULL",
                        (time.time() if now is None else now, secret_hash(sid)))

    # ------------------------------------------------------------------ uploads

    def _upload(self, row: tuple[Any, ...]) -> Upload:
        person, number = str(row[0]), int(row[1])
        return Upload(person, number, str(row[2]), int(row[3]), str(row[4]), float(row[5]),
                      str(row[6]), str(row[7]), self.uploads, bool(row[8]), int(row[9]),
                      None if row[10] is None else float(row[10]))

    _UPLOAD_COLUMNS = "person, number, version, size, filename, uploaded, status, result, rest, failures, retry_at"
    _UPLOAD_WIDTH = 11  # the columns above: a query's extra columns follow them

    def add_upload(self, pid: str, data: bytes, filename: str, *, now: float | None = None,
                   min_interval: float = 30.0) -> Upload:
        """Store a checked-for-shape upload of ``pid`` as their next version (status ``checking``).

        Raises :class:`TooSoon` when their previous upload is less than ``min_interval`` seconds
        old, and :class:`PastDeadline` when ``now`` is at or after the stored deadline (checked in
        the transaction that stores it: a deadline set meanwhile is never missed). ``filename`` is kept to be shown; the file is stored under the person's id and the
        upload's number, whatever it was called.
        """
        now = time.time() if now is None else now
        folder = self.uploads / pid
        _private_dir(folder)
        temp = folder / f".{new_secret()[:16]}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            with self._tx() as con:
                deadline = self._deadline(con)
                if deadline is not None and now >= deadline:
                    raise PastDeadline(deadline)
                last = con.execute("SELECT MAX(uploaded), MAX(number) FROM uploads WHERE person = ?", (pid,)).fetchone()
                if last[0] is not None and now - float(last[0]) < min_interval:
                    raise TooSoon(min_interval, max(1, math.ceil(min_interval - (now - float(last[0])))))
                number = int(last[1] or 0) + 1
                version = hashlib.sha256(data).hexdigest()[:12]
                row = (pid, number, version, len(data), filename[:200], now, "checking", "", 0, 0, None)
                con.execute(f"INSERT INTO uploads ({self._UPLOAD_COLUMNS}) VALUES ({', '.join('?' * len(row))})", row)
                final = folder / f"{number}.py"
                os.replace(temp, final)  # inside the transaction: a failed commit removes it below
                try:
                    con.execute("COMMIT")
                except BaseException:
                    final.unlink(missing_ok=True)
                    raise
        finally:
            temp.unlink(missing_ok=True)
        return self._upload(row)

    def uploads_of(self, pid: str) -> list[Upload]:
        """A person's uploads, newest first."""
        rows = self._rows(f"SELECT {self._UPLOAD_COLUMNS} FROM uploads WHERE person = ? ORDER BY number DESC", (pid,))
        return [self._upload(r) for r in rows]

    def latest_uploads(self) -> dict[str, tuple[Upload, int]]:
        """Each person's newest upload and how many they made, in one query (for the teacher's page)."""
        rows = self._rows(f"SELECT {', '.join('u.' + c for c in self._UPLOAD_COLUMNS.split(', '))}, n.count FROM uploads u "
                          "JOIN (SELECT person, MAX(number) AS last, COUNT(*) AS count FROM uploads GROUP BY person) n "
                          "ON n.person = u.person AND n.last = u.number")
        return {str(r[0]): (self._upload(r), int(r[self._UPLOAD_WIDTH])) for r in rows}

    def rejected_uploads(self, offset: int = 0, limit: int = -1) -> list[Upload]:
        """The rejected uploads of the students on the roster, newest first (the teacher's pages): ``limit`` of them
        (-1: all) from the ``offset``-th."""
        rows = self._rows(f"SELECT {', '.join('u.' + c for c in self._UPLOAD_COLUMNS.split(', '))} FROM uploads u "
                          "JOIN people p ON p.id = u.person WHERE u.status = 'rejected' AND p.active = 1 "
                          "ORDER BY u.uploaded DESC, u.person, u.number DESC LIMIT ? OFFSET ?", (limit, offset))
        return [self._upload(r) for r in rows]

    def latest_rejected(self) -> list[tuple[Upload, int]]:
        """Each roster student's newest rejected upload and how many of theirs were rejected, newest first, in one
        query (the teacher's page lists these; the older ones are on a page of their own)."""
        cols = ", ".join("u." + c for c in self._UPLOAD_COLUMNS.split(", "))
        rows = self._rows(f"SELECT {cols}, n.count FROM uploads u JOIN people p ON p.id = u.person "
                          "JOIN (SELECT person, MAX(number) AS last, COUNT(*) AS count FROM uploads "
                          "WHERE status = 'rejected' GROUP BY person) n ON n.person = u.person AND n.last = u.number "
                          "WHERE p.active = 1 ORDER BY u.uploaded DESC, u.person")
        return [(self._upload(r), int(r[self._UPLOAD_WIDTH])) for r in rows]  # the count follows the upload's columns

    def currents(self) -> dict[str, int]:
        """Every student's current upload number (:meth:`current`), those without one left out, in one query."""
        return {str(p): int(n) for p, n in self._rows("SELECT id, current FROM people WHERE current IS NOT NULL")}

    def upload(self, pid: str, number: int) -> Upload | None:
        """``pid``'s upload number ``number``, or ``None``: another person's uploads are never found this way."""
        rows = self._rows(f"SELECT {self._UPLOAD_COLUMNS} FROM uploads WHERE person = ? AND number = ?", (pid, number))
        return self._upload(rows[0]) if rows else None

    def set_check(self, pid: str, number: int, status: str, result: str, *, rest: bool = False) -> bool:
        """Record an upload's check: ``status`` is ``checking``, ``accepted`` or ``rejected``; ``rest``: an
        ``accepted`` that is the check's first verdict, the rest of the check to come (:meth:`pending_rests`).

        The student's current file is then their newest accepted upload made before the deadline
        (the ``deadline`` setting; without one, their newest accepted upload): copied to
        ``bots/<id>.py`` (a temporary file renamed inside the transaction that records it), where
        the tournament finds it. The choice is made in the check's own transaction, so a deadline
        set meanwhile never loses an upload made before it. Returns whether this upload became
        the current file.
        """
        if status not in ("checking", "accepted", "rejected"):
            raise ValueError(f"status {status!r}: use checking, accepted or rejected")
        with self._tx() as con:
            con.execute("UPDATE uploads SET status = ?, result = ?, rest = ? WHERE person = ? AND number = ?",
                        (status, result, int(rest and status == "accepted"), pid, number))
            if status != "checking":  # a verdict: the checker's failures so far are behind it (a rest counts afresh)
                con.execute("UPDATE uploads SET failures = 0, retry_at = NULL WHERE person = ? AND number = ?",
                            (pid, number))
            return self._settle(con, pid) and status == "accepted" and self._current(con, pid) == number

    def note_failure(self, pid: str, number: int, *, counted: bool, retry_at: float, result: str | None = None) -> int:
        """Record that the checker failed on ``pid``'s upload ``number`` (its first verdict, or its rest): it is tried
        again at ``retry_at`` (``time.time()``); ``counted``: the check process ended while it checked this very
        file, a failure the file may have caused (:attr:`Upload.failures` grows by one); ``result``: what its page
        says meanwhile (``None``: unchanged). Returns its failures so far (0 when the upload has a verdict by now).

        >>> import tempfile
        >>> from cabo_kit.portal.roster import Student
        >>> state = PortalState(tempfile.mkdtemp())
        >>> _ = state.sync_roster([Student("ada", "Ada")])
        >>> _ = state.add_upload("ada", b"# v1\\n", "bot.py", min_interval=0.0)
        >>> [state.note_failure("ada", 1, counted=c, retry_at=9.0) for c in (True, False, True)]
        [1, 1, 2]
        >>> up = state.pending_checks()[0]; up.failures, up.retry_at, state.pending_checks(retrying=False)
        (2, 9.0, [])
        >>> _ = state.set_check("ada", 1, "rejected", "a problem")
        >>> state.upload("ada", 1).failures, state.note_failure("ada", 1, counted=True, retry_at=9.0)
        (0, 0)
        >>> state.close()
        """
        with self._tx() as con:
            waits = "(status = 'checking' OR (status = 'accepted' AND rest = 1))"  # no verdict given meanwhile
            con.execute(f"UPDATE uploads SET failures = failures + ?, retry_at = ?, result = COALESCE(?, result) "
                        f"WHERE person = ? AND number = ? AND {waits}", (int(counted), retry_at, result, pid, number))
            row = con.execute(f"SELECT failures FROM uploads WHERE person = ? AND number = ? AND {waits}",
                              (pid, number)).fetchone()
        return 0 if row is None else int(row[0])

    def clear_retries(self) -> None:
        """Make every upload the checker failed on due at once (a check worker starts: the failures' counts stay)."""
        with self._tx() as con:
            con.execute("UPDATE uploads SET retry_at = NULL WHERE retry_at IS NOT NULL")

    @staticmethod
    def _current(con: sqlite3.Connection, pid: str) -> int | None:
        row = con.execute("SELECT current FROM people WHERE id = ?", (pid,)).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def _settle(self, con: sqlite3.Connection, pid: str) -> bool:
        """Inside a transaction: make ``pid``'s current file their newest accepted upload made before the stored
        deadline (committing if it changes); whether it changed."""
        deadline = self._deadline(con)
        row = con.execute("SELECT MAX(number) FROM uploads WHERE person = ? AND status = 'accepted'"
                          + ("" if deadline is None else " AND uploaded < ?"),
                          (pid,) if deadline is None else (pid, deadline)).fetchone()
        wanted = None if row is None or row[0] is None else int(row[0])
        if wanted == self._current(con, pid):
            return False
        self._make_current(con, pid, wanted)
        return True

    @staticmethod
    def _deadline(con: sqlite3.Connection) -> float | None:
        row = con.execute("SELECT value FROM meta WHERE key = 'deadline'").fetchone()
        return float(row[0]) if row and row[0] else None

    def _make_current(self, con: sqlite3.Connection, pid: str, number: int | None) -> None:
        """Inside a transaction: ``pid``'s upload ``number`` (``None``: none) becomes ``bots/<id>.py``, and commit."""
        bots = self.folder / "bots"
        con.execute("UPDATE people SET current = ? WHERE id = ?", (number, pid))
        if not bots.exists():
            bots.mkdir(mode=0o700)
        target = bots / f"{pid}.py"
        old = target.read_bytes() if target.exists() else None
        temp = bots / f"_{pid}.portal.tmp"  # a leading _ : the tournament never loads it
        if number is None:
            target.unlink(missing_ok=True)
        else:
            _write_private(temp, (self.uploads / pid / f"{number}.py").read_bytes())
            os.replace(temp, target)
        try:
            con.execute("COMMIT")
        except BaseException:
            if old is None:
                target.unlink(missing_ok=True)
            else:
                _write_private(temp, old)
                os.replace(temp, target)
            raise

    def set_deadline(self, deadline: float | None) -> list[str]:
        """Set (``None``: clear) the deadline, and make each student's current file the newest accepted upload made
        before it (every accepted upload's newest without one); the ids whose ``bots/<id>.py`` changed.

        Uploads are refused after the deadline, so this changes files only when a deadline is set
        to a time already past: the board and the games then show the deadline's versions.

        >>> import tempfile
        >>> from cabo_kit.portal.roster import Student
        >>> state = PortalState(tempfile.mkdtemp())
        >>> _ = state.sync_roster([Student("ada", "Ada")])
        >>> for n, at in ((1, 100.0), (2, 200.0)):
        ...     _ = state.add_upload("ada", f"# v{n}\\n".encode(), "bot.py", now=at, min_interval=0.0)
        ...     _ = state.set_check("ada", n, "accepted", "")
        >>> state.current("ada"), state.set_deadline(150.0), state.current("ada")
        (2, ['ada'], 1)
        >>> state.set_deadline(None), state.current("ada")
        (['ada'], 2)
        >>> state.close()
        """
        changed = []
        self.set_setting("deadline", None if deadline is None else repr(float(deadline)))
        for (pid,) in self._rows("SELECT id FROM people WHERE role = 'student'"):
            with self._tx() as con:  # read, choose and write in one transaction: a check ending meanwhile waits
                if self._settle(con, str(pid)):
                    changed.append(str(pid))
        return changed

    def changes(self) -> int:
        """A number that changes whenever a person or an upload does (an upload, a check's result, a roster change,
        a current file), whoever changed it: what the teacher's page renders from them is kept until it changes.

        >>> import tempfile
        >>> state = PortalState(tempfile.mkdtemp())
        >>> before = state.changes()
        >>> _ = state.start_session(Person("_teacher", "Teacher", "teacher"))   # sessions do not count
        >>> state.changes() == before, state.sync_roster([Student("ada", "Ada")]) != {}, state.changes() > before
        (True, True, True)
        >>> state.close()
        """
        return int(self._rows("SELECT n FROM changes")[0][0])

    def current(self, pid: str) -> int | None:
        """The number of ``pid``'s upload that is their bot in the tournament, or ``None``."""
        rows = self._rows("SELECT current FROM people WHERE id = ?", (pid,))
        return int(rows[0][0]) if rows and rows[0][0] is not None else None

    def pending_checks(self, retrying: bool = True) -> list[Upload]:
        """Uploads still to be checked, oldest first (after a restart too: a check in progress was lost);
        ``retrying=False``: not those the checker failed on, which wait to be tried again (:meth:`note_failure`)."""
        rows = self._rows(f"SELECT {self._UPLOAD_COLUMNS} FROM uploads WHERE status = 'checking'"
                          + ("" if retrying else " AND retry_at IS NULL") + " ORDER BY uploaded, person, number")
        return [self._upload(r) for r in rows]

    def pending_rests(self, retrying: bool = True) -> list[Upload]:
        """Uploads accepted by their check's first verdict whose rest is still to come, oldest first: those that are
        their student's current file. The rest of a version no longer current is skipped (it plays nowhere); it
        is still to come should that version become current again (a newer one's rest rejected it).
        ``retrying=False``: not those whose rest the checker failed on (:meth:`note_failure`)."""
        columns = ", ".join(f"u.{c.strip()}" for c in self._UPLOAD_COLUMNS.split(","))
        rows = self._rows(f"SELECT {columns} FROM uploads u JOIN people p ON p.id = u.person AND p.current = u.number "
                          "WHERE u.status = 'accepted' AND u.rest = 1" + ("" if retrying else " AND u.retry_at IS NULL")
                          + " ORDER BY u.uploaded, u.person, u.number")
        return [self._upload(r) for r in rows]

    def recover(self) -> list[Path]:
        """After a crash: remove temporary upload files and files without their row, and put back a
        student's ``bots/<id>.py`` that is not their current upload; the paths removed or restored."""
        stored = {(str(p), int(n)) for p, n in self._rows("SELECT person, number FROM uploads")}
        removed: list[Path] = []
        for pid, number in self._rows("SELECT id, current FROM people WHERE current IS NOT NULL"):
            source, target = self.uploads / str(pid) / f"{int(number)}.py", self.folder / "bots" / f"{pid}.py"
            if source.exists() and (not target.exists() or target.read_bytes() != source.read_bytes()):
                temp = target.with_name(f"_{pid}.portal.tmp")
                _write_private(temp, source.read_bytes())
                os.replace(temp, target)
                removed.append(target)
        for path in (self.folder / "bots").glob("_*.portal.tmp"):
            path.unlink()
            removed.append(path)
        for path in self.uploads.glob("*/*"):
            keep = path.suffix == ".py" and path.stem.isdigit() and (path.parent.name, int(path.stem)) in stored
            if not keep and path.is_file():
                path.unlink()
                removed.append(path)
        return removed

    # ------------------------------------------------------------------ processes the server started

    def add_process(self, pgid: int, kind: str, now: float | None = None) -> None:
        """Record a process group the server started (a check, the games), so a restart after ``kill -9`` can end it.

        Its leader's start time (:func:`start_ticks`) is recorded with it: a restart ends the group
        only while that very process leads it (its environment may not be readable then)."""
        with self._tx() as con:
            con.execute("INSERT OR REPLACE INTO processes (pgid, kind, started, ticks) VALUES (?, ?, ?, ?)",
                        (pgid, kind, time.time() if now is None else now, start_ticks(pgid)))

    def drop_process(self, pgid: int) -> None:
        with self._tx() as con:
            con.execute("DELETE FROM processes WHERE pgid = ?", (pgid,))

    def processes(self) -> list[tuple[int, str]]:
        """The recorded process groups: ``(pgid, kind)``, oldest first."""
        return [(int(g), str(k)) for g, k in self._rows("SELECT pgid, kind FROM processes ORDER BY started, pgid")]

    def process_ticks(self, pgid: int) -> int | None:
        """The start time (:func:`start_ticks`) recorded with group ``pgid``'s leader, or ``None``."""
        rows = self._rows("SELECT ticks FROM processes WHERE pgid = ?", (pgid,))
        return int(rows[0][0]) if rows and rows[0][0] is not None else None

    # ------------------------------------------------------------------ settings

    def setting(self, key: str) -> str | None:
        rows = self._rows("SELECT value FROM meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else None

    def set_setting(self, key: str, value: str | None) -> None:
        with self._tx() as con:
            if value is None:
                con.execute("DELETE FROM meta WHERE key = ?", (key,))
            else:
                con.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))


class _Transaction:
    """``with state._tx() as con``: BEGIN IMMEDIATE under the state's lock; COMMIT, or ROLLBACK on an error."""

    def __init__(self, state: PortalState) -> None:
        self.state = state

    def __enter__(self) -> sqlite3.Connection:
        self.state._lock.acquire()
        try:
            self.state._con.execute("BEGIN IMMEDIATE")
        except BaseException:
            self.state._lock.release()
            raise
        return self.state._con

    def __exit__(self, kind: object, *rest: object) -> None:
        con = self.state._con
        try:
            if con.in_transaction:
                con.execute("ROLLBACK" if kind is not None else "COMMIT")
        finally:
            self.state._lock.release()
