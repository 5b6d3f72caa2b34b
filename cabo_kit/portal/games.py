"""The portal's games: the tournament of the students' current files, played in the background while it serves.

:class:`GamesWorker` runs in ``cabo-kit serve`` on a thread of its own. It starts the tournament
in a child process (``python -m cabo_kit.portal.games DIR``): a process group of its own, niced,
holding the folder through the server's lock (:func:`cabo_kit.tournament.lock.adopt`), so an
outside ``cabo-kit tournament run`` is still refused and names the server. The child runs
:func:`~cabo_kit.tournament.runner.run_tournament` on the folder (the isolated runner, adaptive
toward ``tournament.toml``'s precision) and then :func:`~cabo_kit.tournament.runner.write_outputs`
(``leaderboard.csv``, ``report.html``). A page never waits on it: the child is another process and
the results go to the tournament's own store, ``results.sqlite``.

When the files change (an upload accepted, a deadline that brings back an earlier version) the
worker stops the child and starts it again: the runner keeps every stored game of unchanged
versions, so the new run plays the new file's games and what the intervals still need. Checks go
first: while uploads wait for their check's first verdict no run starts (the next one plays their
files, rather than a run started now and stopped again for them), and a wave of them stops the
running one under the rule of a restart, so the checks get every core; the holds add up to at most
``hold_cap`` seconds in any ``hold_window``. A child
that ends leaves a note of what it did; a folder whose files are those of its last finished run
is up to date and plays nothing. Pausing stops the child; resuming starts it again.

A child records its process group in the portal's state, with its leader's start time: a server
killed with ``kill -9`` leaves them there, and the next start ends those groups, but only while
the recorded process leads it (and, where its environment can be read, carries this folder:
:data:`ENV_FOLDER`): a recycled group id is left alone.
The child also ends itself with its group when the server dies (``PR_SET_PDEATHSIG``, Linux).

Other parts of the portal ask :func:`board_versions` which upload of each student is on the
board, and read the games from :func:`store_path`.

>>> default_workers() >= 1
True
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from .state import PORTAL_DIR, PortalState, Upload, start_ticks

__all__ = ["GamesWorker", "GamesStatus", "board_versions", "store_path", "default_workers", "fingerprint",
           "reap_leftovers", "keep_private", "process_env", "python_command", "ENV_FOLDER", "main"]

ENV_FOLDER = "CABO_PORTAL_FOLDER"
"""The environment variable that marks the processes a portal server starts: the class folder's real path."""

RESULT_NAME = "games-result.json"
RATED_NAME = "games-rated.json"
"""What a games child leaves once its tournament's games are played and written out, before it grades."""
LOG_NAME = "games.log"


def store_path(folder: str | os.PathLike[str]) -> Path:
    """The tournament's store of the class in ``folder`` (the games, their seats and faults): ``results.sqlite``.

    >>> store_path("class-2026").name
    'results.sqlite'
    """
    from ..tournament.store import DB_NAME

    return Path(folder) / DB_NAME


def board_versions(state: PortalState) -> dict[str, Upload]:
    """Each student's upload that is on the board (and in the games): their current accepted version.

    After the deadline that is the newest accepted upload made before it (uploads are refused
    after it, and :meth:`~cabo_kit.portal.state.PortalState.set_deadline` brings back the
    deadline's version of a file uploaded later). A student without one is not on the board. The
    bot's name in the store is the student's id and its version the upload's ``version``.

    >>> import tempfile
    >>> from cabo_kit.portal.roster import Student
    >>> state = PortalState(tempfile.mkdtemp())
    >>> _ = state.sync_roster([Student("ada", "Ada"), Student("bob", "Bob")])
    >>> _ = state.add_upload("ada", b"# v1\\n", "bot.py", min_interval=0.0)
    >>> _ = state.set_check("ada", 1, "accepted", "")
    >>> {pid: up.number for pid, up in board_versions(state).items()}
    {'ada': 1}
    >>> state.close()
    """
    out: dict[str, Upload] = {}
    for person in state.people():
        number = None if person.is_teacher else state.current(person.id)
        up = state.upload(person.id, number) if number is not None else None
        if up is not None:
            out[person.id] = up
    return out


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def default_workers() -> int:
    """The cores this process may use less one, at least 1 (issue 19: a core is left to the pages and the checks;
    the games also run niced below them and wait for a wave of checks, see :class:`GamesWorker`). While no check
    waits or runs, the games borrow that core too (:attr:`GamesWorker.borrow`)."""
    return max(1, _cores() - 1)


LEND_NAME = "games-lend"
"""The file the server keeps in the portal's folder while the checks' pool is idle (:func:`checks_idle`): the games
child plays on its borrowed workers only while it is there (:class:`_Lender`)."""


def checks_idle(state: PortalState, checks: list[Upload] | None = None, rests: list[Upload] | None = None) -> bool:
    """Whether no upload waits for its check or the rest of it: the uploads the checker works on,
    :meth:`~cabo_kit.portal.state.PortalState.pending_checks` and
    :meth:`~cabo_kit.portal.state.PortalState.pending_rests`, but not those it failed on (they wait to be tried again,
    and must not keep the lent core from the games for ever). A version replaced before its rest ran has no rest to
    come: it plays nowhere. ``checks`` and ``rests``: those two lists if the caller has just read them.

    >>> import tempfile
    >>> from cabo_kit.portal.roster import Student
    >>> state = PortalState(tempfile.mkdtemp())
    >>> _ = state.sync_roster([Student("ada", "Ada")])
    >>> checks_idle(state)
    True
    >>> _ = state.add_upload("ada", b"# v1\\n", "bot.py", min_interval=0.0)
    >>> checks_idle(state)
    False
    >>> _ = state.note_failure("ada", 1, counted=False, retry_at=9.0)  # waits to be tried again
    >>> checks_idle(state)
    True
    >>> state.close()
    """
    if checks is None:
        checks = state.pending_checks(retrying=False)
    if checks:
        return False
    return not (state.pending_rests(retrying=False) if rests is None else rests)


class _Lender:
    """The games child's ``busy``: its own ``workers``, and ``borrow`` more while the server says the checks' pool is
    idle (:data:`LEND_NAME` in the portal's folder of ``folder``; a look is one ``stat``, so it is asked at will)."""

    def __init__(self, folder: Path, workers: int, borrow: int) -> None:
        self.flag = folder / PORTAL_DIR / LEND_NAME
        self.workers, self.borrow = workers, borrow

    def __call__(self) -> int:
        return self.workers + (self.borrow if self.flag.exists() else 0)


def fingerprint(folder: str | os.PathLike[str]) -> str:
    """What a run of ``folder`` plays, in 16 hex digits: its ``bots/*.py`` and ``tournament.toml`` (names, sizes, times).

    Read from the files' metadata only (a page of 200 students' files stays cheap): the portal
    replaces a file by renaming a new one over it, so a new version always has a new inode.
    """
    folder = Path(folder)
    parts = []
    for path in [folder / "tournament.toml", *sorted((folder / "bots").glob("*.py"))]:
        if path.name.startswith("_"):
            continue
        try:
            st = path.stat()
        except OSError:
            continue
        parts.append([path.name, st.st_size, st.st_mtime_ns, st.st_ino])
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


# ------------------------------------------------------------------ processes left by a killed server


def _proc_stat(pid: int) -> tuple[str, int] | None:
    """``(state, process group)`` of ``pid`` from ``/proc``, or ``None`` when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2:].split()
    return fields[0], int(fields[2])


def _members(pgid: int) -> list[int]:
    """The live (not zombie) processes of group ``pgid``."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        st = _proc_stat(int(entry.name))
        if st is not None and st[1] == pgid and st[0] != "Z":
            found.append(int(entry.name))
    return found


def _environ(pid: int) -> bytes | None:
    """Process ``pid``'s environment, or ``None`` when it cannot be read (gone, or not dumpable by a non-root server)."""
    try:
        return Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return None


def _marked(pid: int, folder: Path) -> bool | None:
    """Whether process ``pid`` carries ``folder`` in its environment (:data:`ENV_FOLDER`): one a server of it started;
    ``None`` when its environment cannot be read."""
    environ = _environ(pid)
    if environ is None:
        return None
    return f"{ENV_FOLDER}={os.path.realpath(folder)}".encode() in environ.split(b"\0")


def _ours(pgid: int, ticks: int | None, members: list[int], folder: Path) -> bool:
    """Whether group ``pgid`` is the one recorded: its leader started at ``ticks`` (and, where its environment can be
    read, carries the folder); without a leader or a recorded start, one of its ``members`` carries the folder."""
    if ticks is not None and pgid in members:
        return start_ticks(pgid) == ticks and _marked(pgid, folder) is not False
    return any(_marked(pid, folder) for pid in members)


def reap_leftovers(state: PortalState, wait: float = 5.0) -> list[int]:
    """End the process groups a killed server of this folder left (checks, games); the groups ended.

    A group recorded in the state is killed only while it is the one recorded: its leader is the
    process that started at the recorded time (``/proc/PID/stat``; a recycled pid starts later),
    and its environment, where this server may read it (a non-root server cannot read that of a
    process that is not dumpable), carries this folder. A group whose leader has gone is killed
    if one of its live processes carries the folder. The record is dropped either way. The bots of
    those processes end with them: a harness server sees its parent gone and kills its bots.
    Linux only (``/proc``); elsewhere the records are dropped and nothing is killed.
    """
    ended = []
    for pgid, _kind in state.processes():
        members = _members(pgid) if Path("/proc/self").exists() else []
        if members and _ours(pgid, state.process_ticks(pgid), members, state.folder):
            try:
                os.killpg(pgid, signal.SIGKILL)
            except OSError:
                pass
            until = time.monotonic() + wait
            while _members(pgid) and time.monotonic() < until:
                time.sleep(0.05)
            ended.append(pgid)
        state.drop_process(pgid)
    return ended


def process_env(folder: str | os.PathLike[str] | None = None) -> dict[str, str]:
    """The environment of a process the server starts: this cabo_kit importable, and marked as ``folder``'s (a restart
    after ``kill -9`` may end it: :func:`reap_leftovers`)."""
    import cabo_kit

    env = dict(os.environ)
    home = str(Path(cabo_kit.__file__).resolve().parent.parent)  # this cabo_kit, also from a source checkout
    env["PYTHONPATH"] = os.pathsep.join([home, *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONIOENCODING"] = "utf-8"
    if folder is not None:
        env[ENV_FOLDER] = os.path.realpath(folder)
    return env


def python_command(*args: str) -> list[str]:
    """The command line of a Python child the server starts: this interpreter, then ``args``; with ``-P`` where there is
    one (3.11+): neither its working directory nor a script's folder goes first on ``sys.path``, so a file there named
    like a module it imports (an upload called ``json.py``) is never imported by it. The children also run where no
    student's file lies, for older Pythons.

    >>> python_command("-c", "pass")[-2:]
    ['-c', 'pass']
    """
    return [sys.executable, *(["-P"] if sys.version_info >= (3, 11) else []), *args]


# ------------------------------------------------------------------ the worker in the server


@dataclass
class GamesStatus:
    """What the teacher's page shows of the games: a snapshot, made by the worker's thread."""

    paused: bool = False
    running: bool = False
    since: float | None = None  # when the running child started
    ended: float | None = None  # when the last run ended
    summary: str = ""  # the last run's summary line, or its error
    notes: list[str] = field(default_factory=list)
    error: bool = False
    up_to_date: bool = False  # the last finished run played the files there are now
    final: bool = False  # after the deadline, every check done and the deadline's files played to the end
    workers: int = 1
    borrow: int = 0  # workers added while no check waits or runs
    rated: float | None = None  # when the running run's ratings were done and written out (then it grades)
    waiting: int = 0  # uploads waiting for their check's first verdict while the games hold (the checks go first)
    faults: dict[str, int] = field(default_factory=dict)  # by student id: faults of the version on the board
    games: dict[str, int] = field(default_factory=dict)  # by student id: stored games of that version

    def text(self) -> str:
        """One sentence for the teacher's page."""
        clock = lambda t: time.strftime("%H:%M", time.localtime(t))  # noqa: E731
        if self.final:
            return f"Done: the final run after the deadline ended at {clock(self.ended or 0)}."
        if self.paused:
            return "Paused: no games are played until you resume."
        if self.running:
            more = f", {self.workers + self.borrow} while no check runs" if self.borrow else ""
            workers = f"{self.workers} worker{'s' if self.workers != 1 else ''}{more}"
            if self.rated is not None:
                return (f"Grading (since {clock(self.rated)}, {workers}): the ratings, the leaderboard and the report "
                        "are up to date except the grades.")
            return f"Playing (since {clock(self.since or 0)}, {workers})."
        if self.error:
            return f"Stopped: {self.summary}"
        if self.waiting:
            return (f"Waiting for the check{'s' if self.waiting != 1 else ''} of {self.waiting} upload"
                    f"{'s' if self.waiting != 1 else ''} (checks go first).")
        if self.up_to_date:
            return f"Up to date: the last run ended at {clock(self.ended or 0)}."
        return "Waiting for files to play."


class GamesWorker:
    """Keep the tournament of ``state``'s folder played, in a child process, until :meth:`stop`.

    ``workers``: the child's game workers; ``nice``: its niceness (the checks run at 10: a student
    waiting on a check goes first). A new version restarts the running run only once it has played
    ``restart_after`` seconds *and* stored a batch (as many games as it has workers, so uploads
    arriving one after another never keep a run from playing anything), or ``restart_cap`` seconds
    after its first stored game whatever it stored since (a run held up by slow games). A run that
    has stored nothing yet (it is still setting up, or its first games are slow) is restarted only
    after ``restart_idle_cap`` seconds: new uploads never keep every run from storing a game.

    While uploads wait for their check's first verdict (:meth:`~cabo_kit.portal.state.PortalState.pending_checks`;
    not those the checker failed on, which wait to be tried again), no run starts; ``hold_wave`` of them or more stop a running one, but only under the rule of a restart
    (above: a run just started plays on); a lone upload's check runs beside the games, niced above them. The
    holds add up to at most ``hold_cap`` seconds in any ``hold_window``; beyond that the games play beside the
    checks until the older holds leave the window. :meth:`wake` looks at once.
    """

    def __init__(self, state: PortalState, *, workers: int | None = None, nice: int = 15, poll: float = 1.0,
                 restart_after: float = 10.0, restart_cap: float = 120.0, restart_idle_cap: float = 600.0,
                 hold_wave: int = 3, hold_cap: float = 60.0, hold_window: float = 300.0) -> None:
        self.state = state
        self.folder = state.folder
        self.workers = workers or default_workers()
        # The checks' core, lent to the games while no check waits or runs (the default workers only: an explicit
        # --workers is what the teacher asked for). Set to 0 to play on `workers` only.
        self.borrow = max(0, _cores() - self.workers) if workers is None else 0
        self.nice = nice
        self.poll = poll
        self.restart_after = restart_after
        self.restart_cap = restart_cap
        self.restart_idle_cap = restart_idle_cap
        # The games wait for checks at most 60 s in any 5 minutes: the first verdicts of a wave of 30 uploads take
        # 3-7 s on 2 cores (docs/portal.md, speed a), so a minute covers several waves, and the games keep at least
        # four fifths of the time however the uploads come (a class's games then end at most ~25% later).
        self.hold_wave, self.hold_cap, self.hold_window = hold_wave, hold_cap, hold_window
        self._hold_since: float | None = None  # when the games began to be held, if they are (monotonic)
        self._holds: list[tuple[float, float]] = []  # the holds that ended within hold_window: (start, end)
        self._stored_at_start = 0
        self._first_stored: float | None = None  # when the running run's first stored game was seen (monotonic)
        self._proc: subprocess.Popen[bytes] | None = None
        self._running_fp = ""
        self._started = 0.0
        self._status = GamesStatus(workers=self.workers, borrow=self.borrow)
        self._guard = threading.Lock()
        self._life = threading.RLock()  # held while the child is started or stopped: stop() never races a _spawn
        self._event = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._counted: tuple[float, dict[str, int], dict[str, int]] = (0.0, {}, {})  # when, faults and games by student: read from the store at most every 5 s

    # ------------------------------------------------------------------ control

    @property
    def paused(self) -> bool:
        return self.state.setting("games") == "paused"

    def pause(self) -> None:
        """Stop the games (the running child is stopped; its stored games stay) until :meth:`resume`."""
        self.state.set_setting("games", "paused")
        self.wake()

    def resume(self) -> None:
        """Play again; a run that failed is tried again too."""
        last = json.loads(self.state.setting("games_last") or "{}")
        if last.get("error"):
            self.state.set_setting("games_last", None)
        self.state.set_setting("games", None)
        self.wake()

    def wake(self) -> None:
        self._event.set()

    def status(self) -> GamesStatus:
        with self._guard:
            return GamesStatus(**vars(self._status))

    def start(self) -> "GamesWorker":
        # The thread that starts the child must live as long as it: the child's PR_SET_PDEATHSIG fires when it ends.
        self._thread = threading.Thread(target=self._loop, name="cabo-portal-games", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the child (SIGTERM to its group, then SIGKILL) and the thread."""
        self._stopping.set()
        self._event.set()
        if self._thread is not None:
            self._thread.join(timeout)
        with self._life:  # a tick still running (a slow start) ends first: its child is then killed here
            self._kill()

    # ------------------------------------------------------------------ the loop

    def _loop(self) -> None:
        while not self._stopping.is_set():
            try:
                self.tick()
            except Exception as exc:  # noqa: BLE001 - the server keeps serving; the teacher's page says what went wrong
                with self._guard:
                    self._status.error, self._status.summary = True, f"the games worker failed: {exc}"
            self._event.wait(self.poll)
            self._event.clear()
        with self._life:
            self._kill()

    def tick(self) -> None:
        """One look: collect a child that ended, stop or (re)start it as the files and settings say."""
        with self._life:
            self._tick()

    def _tick(self) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is not None:
            self._collect(proc)
        self._see_first_stored()
        paused = self.paused
        # once a look (each is a query): not those the checker failed on, they wait anyway
        checks, rests = self.state.pending_checks(retrying=False), self.state.pending_rests(retrying=False)
        waiting = len(checks)
        held = self._held(waiting)
        self._lend(checks_idle(self.state, checks, rests))
        fp = fingerprint(self.folder)
        if paused:
            self._kill()
        elif self._proc is not None:
            # A wave of checks stops a run under the rule of a restart only: one just started plays on (else waves
            # of uploads could stop every run before it stores a game).
            if held and waiting >= self.hold_wave and self._may_restart():
                self._kill()  # its stored games stay; the next run plays what the checks accept
            elif fp != self._running_fp and self._may_restart():
                self._kill()
        wanted = False  # whether a run would start now, but for the checks: only then are the games held
        if not paused and self._proc is None and not self._stopping.is_set():
            done = json.loads(self.state.setting("games_last") or "{}")
            wanted = done.get("fingerprint") != fp and self._entrants() >= 2
            if wanted and not held:
                self._spawn(fp)
        self._note_hold(held and wanted)
        self._refresh(paused, fp, waiting if held and self._proc is None else 0, [*checks, *rests])

    def _lend(self, idle: bool) -> None:
        """Say to the games child whether it may play on the borrowed workers now: :data:`LEND_NAME` is there while
        the checks are ``idle`` (:func:`checks_idle`) and there are workers to lend."""
        flag = self.state.dir / LEND_NAME
        if idle and self.borrow > 0:
            if not flag.exists():
                flag.touch(mode=0o600)
        else:
            flag.unlink(missing_ok=True)

    def _held(self, waiting: int) -> bool:
        """Whether the games wait for ``waiting`` uploads' first verdicts: yes, while the holds of the last
        ``hold_window`` s add up to less than ``hold_cap`` s (a cap in total, not a hold's: waves of uploads with
        short gaps between them never hold the games for more than that share of the time)."""
        if not waiting:
            return False
        now = time.monotonic()
        since = now - self.hold_window
        self._holds = [(a, b) for a, b in self._holds if b > since]
        used = sum(b - max(a, since) for a, b in self._holds)
        if self._hold_since is not None:
            used += now - max(self._hold_since, since)
        return used < self.hold_cap

    def _note_hold(self, holding: bool) -> None:
        """Count the time the games are held: no run plays while uploads wait for their first verdict."""
        if holding and self._hold_since is None:
            self._hold_since = time.monotonic()
        elif not holding and self._hold_since is not None:
            self._holds.append((self._hold_since, time.monotonic()))
            self._hold_since = None

    def _may_restart(self) -> bool:
        """Whether the running run has played long enough, and stored a batch, to be restarted for new files."""
        now = time.monotonic()
        if now - self._started < self.restart_after:
            return False
        stored = self._stored() - self._stored_at_start
        if stored <= 0:
            return now - self._started >= self.restart_idle_cap
        if self._first_stored is None:
            self._first_stored = now
        return stored >= self.workers or now - self._first_stored >= self.restart_cap

    def _see_first_stored(self) -> None:
        """Note when the running run stores its first game (``restart_cap`` counts from then)."""
        if self._proc is not None and self._first_stored is None and self._stored() > self._stored_at_start:
            self._first_stored = time.monotonic()

    def _stored(self) -> int:
        """The games stored so far (the store's last game row id; 0 without a store): cheap, read only."""
        import sqlite3

        db = store_path(self.folder)
        if not db.exists():
            return 0
        try:
            con = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True, timeout=5.0)
        except sqlite3.Error:
            return 0
        try:
            return int(con.execute("SELECT COALESCE(MAX(rowid), 0) FROM games").fetchone()[0])
        except sqlite3.Error:
            return 0
        finally:
            con.close()

    def _entrants(self) -> int:
        """The bots a run would have at most (files and reference bots): fewer than 2 play nothing, so no run."""
        files = [p for p in (self.folder / "bots").glob("*.py") if not p.name.startswith("_")]
        try:
            from ..tournament.config import load_config

            return len(files) + len(load_config(self.folder)[0].reference)
        except Exception:  # noqa: BLE001 - a bad tournament.toml: the child's run says what is wrong
            return 2

    def _refresh(self, paused: bool, fp: str, waiting: int = 0, pending: list[Upload] | None = None) -> None:
        """The status the teacher's page shows; ``pending``: the uploads whose check or rest is to come (else read)."""
        last = json.loads(self.state.setting("games_last") or "{}")
        deadline_text = self.state.setting("deadline")
        deadline = float(deadline_text) if deadline_text else None
        up_to_date = last.get("fingerprint") == fp and not last.get("error")
        final = (up_to_date and deadline is not None and time.time() >= deadline and self._proc is None
                 and not any(u.uploaded < deadline for u in (pending if pending is not None else
                                                             [*self.state.pending_checks(retrying=False),
                                                              *self.state.pending_rests(retrying=False)])))
        if time.monotonic() - self._counted[0] >= 5.0:
            self._counted = (time.monotonic(), *self._count())
        rated = self._rated() if self._proc is not None else None
        with self._guard:
            self._status = GamesStatus(
                paused=paused, running=self._proc is not None, since=self._status.since if self._proc else None,
                ended=last.get("ended"), summary=str(last.get("error") or last.get("summary") or ""),
                notes=list(last.get("notes") or []), error=bool(last.get("error")) and last.get("fingerprint") == fp,
                up_to_date=up_to_date, final=final, workers=self.workers, borrow=self.borrow, waiting=waiting,
                faults=self._counted[1], games=self._counted[2], rated=rated)

    def _rated(self) -> float | None:
        """When the running child's ratings were done (it then grades), from its note; ``None`` before."""
        try:
            note = json.loads((self.state.dir / RATED_NAME).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return float(note["at"]) if note.get("fingerprint") == self._running_fp else None

    def _count(self) -> tuple[dict[str, int], dict[str, int]]:
        """Each student's faults and games at the version on the board, from the store (read only)."""
        import sqlite3

        db = store_path(self.folder)
        if not db.exists():
            return {}, {}
        versions = {pid: up.version for pid, up in board_versions(self.state).items()}
        con = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True, timeout=5.0)
        try:
            rows = con.execute("SELECT bot, version, COUNT(*), SUM(status NOT IN ('ok', '')) FROM seats "
                               "GROUP BY bot, version").fetchall()
        except sqlite3.Error:
            return {}, {}
        finally:
            con.close()
        games = {str(b): int(n) for b, v, n, _ in rows if versions.get(str(b)) == v}
        faults = {str(b): int(f or 0) for b, v, _, f in rows if versions.get(str(b)) == v}
        return faults, games

    def _spawn(self, fp: str) -> None:
        from ..tournament.lock import held_fd

        fd = held_fd(self.folder)
        if fd is None:
            raise RuntimeError(f"the server does not hold {self.folder}: it cannot play its games")
        (self.state.dir / RATED_NAME).unlink(missing_ok=True)
        (self.state.dir / RESULT_NAME).unlink(missing_ok=True)  # a stale result is never taken for this run's
        log = open(self.state.dir / LOG_NAME, "wb")
        try:  # pass_fds: the lock's descriptor reaches this child only (checks close every other descriptor)
            # Its command line, which every process can read in /proc, does not name the class folder: it runs in
            # the portal's own folder (0700) and is given `..`. Not in the class folder: `python -m` imports from its
            # working directory first, and there bots/ holds the students' files (-P, where there is one, drops that
            # directory from the path too); the portal's folder holds no file an import can name.
            proc = subprocess.Popen(
                self._command(fp, fd), pass_fds=(fd,), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                cwd=self.state.dir, env=process_env(self.folder), start_new_session=True)
        finally:
            log.close()
        self.state.add_process(proc.pid, "games")
        self._proc, self._running_fp, self._started = proc, fp, time.monotonic()
        self._stored_at_start, self._first_stored = self._stored(), None
        with self._guard:
            self._status.since, self._status.running = time.time(), True

    def _command(self, fp: str, fd: int) -> list[str]:
        """The games child's command line (run in the portal's folder): the borrowed workers go there too."""
        return python_command("-m", "cabo_kit.portal.games",
                              os.path.relpath(self.folder.resolve(), self.state.dir.resolve()), "--workers",
                              str(self.workers), "--lock-fd", str(fd), "--parent", str(os.getpid()), "--nice",
                              str(self.nice), "--fingerprint", fp, *(["--borrow", str(self.borrow)] if self.borrow else []))

    def _collect(self, proc: subprocess.Popen[bytes]) -> None:
        """A child ended by itself: keep its result (what it played, or why it could not)."""
        self._proc = None
        self.state.drop_process(proc.pid)
        path = self.state.dir / RESULT_NAME
        try:
            result = json.loads(path.read_text(encoding="utf-8"))
            path.unlink()
        except (OSError, ValueError):
            tail = (self.state.dir / LOG_NAME).read_bytes()[-2000:].decode("utf-8", "replace").strip()
            result = {"fingerprint": self._running_fp, "error": f"the games stopped unexpectedly (exit status "
                      f"{proc.returncode}){': ' + tail.splitlines()[-1] if tail else ''}"}
        result["ended"] = time.time()
        self.state.set_setting("games_last", json.dumps(result))

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except OSError:
                pass
            try:
                proc.wait(5.0)
            except subprocess.TimeoutExpired:
                pass
        try:  # what is left of the group (a pool worker slow to go)
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
        self.state.drop_process(proc.pid)
        (self.state.dir / RESULT_NAME).unlink(missing_ok=True)


# ------------------------------------------------------------------ the child

PRIVATE_FILES = ("tournament.toml", "results.sqlite", "results.sqlite-wal", "results.sqlite-shm", "results.sqlite-journal",
                 "leaderboard.csv", "report.html", "teacher.html")
PRIVATE_DIRS = ("bots", "logs", "bot-pages")


def keep_private(folder: str | os.PathLike[str]) -> list[Path]:
    """Make what the tournament keeps in ``folder`` readable by its owner only; the paths whose mode changed.

    The store (every student's games, faults and what their bots printed), the outputs, and the
    ``bots``, ``logs`` and ``bot-pages`` folders: a bot runs under a user id of its own, so it then
    reads none of them even when it finds the class folder. ``tournament.toml`` too: its seed tells every deal. The
    games child also sets its umask to 077, so what a run writes later is private from the start.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> (folder / "results.sqlite").write_bytes(b"")
    0
    >>> os.chmod(folder / "results.sqlite", 0o644)
    >>> [p.name for p in keep_private(folder)], oct(os.stat(folder / "results.sqlite").st_mode & 0o777)
    (['results.sqlite'], '0o600')
    """
    folder = Path(folder)
    changed = []
    for names, mode in ((PRIVATE_FILES, 0o600), (PRIVATE_DIRS, 0o700)):
        for name in names:
            path = folder / name
            try:
                st = path.lstat()
                if path.is_symlink() or st.st_mode & 0o077 == 0:
                    continue
                os.chmod(path, (st.st_mode & 0o700) | (mode & 0o700))
                changed.append(path)
            except OSError:
                continue
    return changed



def _die_with(parent: int) -> None:
    """End this process's group when the server ``parent`` dies (Linux), and on SIGTERM."""

    def end(_signum: int, _frame: Any) -> None:
        if os.getpgrp() == os.getpid():
            os.killpg(0, signal.SIGKILL)  # the pool's workers too; their harness servers then end their bots
        os._exit(143)

    signal.signal(signal.SIGTERM, end)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the server died before the line above
        end(0, None)


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    """The games child: ``python -m cabo_kit.portal.games DIR --lock-fd FD --parent PID [--workers N] [--borrow N]``.

    Plays the folder's tournament under the server's hold (:func:`_play`) and leaves
    ``portal/games-result.json`` saying what it did (or why it could not: exit status 2).
    """
    p = argparse.ArgumentParser(prog="python -m cabo_kit.portal.games")
    p.add_argument("folder")
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--lock-fd", type=int, required=True)
    p.add_argument("--parent", type=int, required=True)
    p.add_argument("--nice", type=int, default=15)
    p.add_argument("--fingerprint", default="")
    p.add_argument("--borrow", type=int, default=0, help="workers added while the server says the checks are idle")
    args = p.parse_args(argv)
    _die_with(args.parent)
    if args.nice and hasattr(os, "nice"):
        os.nice(args.nice)  # the pool's workers and every bot inherit it
    os.umask(0o077)  # the store, logs and outputs this run writes: its owner's only (the bots run as other uids)
    from ..tournament.config import ConfigError
    from ..tournament.lock import FolderError, adopt
    from ..tournament.store import StoreError

    folder = Path(args.folder).resolve()
    result: dict[str, Any] = {"fingerprint": args.fingerprint}
    code = 0
    try:
        adopt(folder, args.lock_fd)
        result.update(_play(folder, args.workers or default_workers(), args.borrow, args.fingerprint, out))
    except (ConfigError, FolderError, StoreError) as exc:
        out(str(exc))
        result["error"] = str(exc)
        code = 2
    path = folder / PORTAL_DIR / RESULT_NAME
    temp = path.with_suffix(".tmp")
    temp.write_text(json.dumps(result), encoding="utf-8")
    os.replace(temp, path)
    return code


def _play(folder: Path, workers: int, borrow: int = 0, fp: str = "", out: Callable[[str], None] = print) -> dict[str, Any]:
    """Play the tournament of the portal's class in ``folder`` on ``workers`` workers, and ``borrow`` more while the
    checks' pool is idle (:class:`_Lender`; the local process pool only: the Dask executor cannot be lent to), then
    write the leaderboard and the report; what it played (the summary of ``portal/games-result.json``).

    With ``grading`` in ``tournament.toml`` the outputs are written as soon as the tournament's games are played
    (``portal/games-rated.json`` says when, for the fingerprint ``fp``), the grading games are played, and the outputs
    written again if they stored any (the grades changed).
    """
    from ..outputs import write_outputs
    from ..tournament.config import load_config
    from ..tournament.grades import play_grades
    from ..tournament.runner import run_tournament

    keep_private(folder)  # what an earlier run (or `cabo-kit tournament run`) left readable to all
    cfg = load_config(folder)[0]
    if cfg.executor != "local":
        borrow = 0  # a Dask cluster takes every task at once: it never asks `busy`, so a borrowed worker would stay
    borrow = max(0, borrow)
    # The games are the same whatever the workers (each batch is planned from the whole of the one before).
    busy = _Lender(folder, workers, borrow) if borrow else None
    summary = run_tournament(folder, workers=workers + borrow, progress=False, out=out,
                             description="the portal server's games", command="cabo-kit serve (games)",
                             busy=busy, grading=False)
    # write_outputs notes that a run holds the folder (the server, through us): not news here
    quiet = lambda line: None if line.startswith("note: ") and " is in use by " in line else out(line)  # noqa: E731
    write_outputs(folder, out=quiet)
    if cfg.grading:  # the board and the report first: grading takes a fifth to a third of a class's time
        rated = folder / PORTAL_DIR / RATED_NAME
        rated.with_suffix(".tmp").write_text(json.dumps({"fingerprint": fp, "at": time.time()}))
        os.replace(rated.with_suffix(".tmp"), rated)
        graded = play_grades(folder, cfg, summary.entrants, workers=workers + borrow, progress=False, out=out,
                             command="cabo-kit serve (games)", rejected=summary.rejected, busy=busy)
        if graded.played:  # else the outputs above show every grade there is
            write_outputs(folder, out=quiet)
    return dict(played=summary.played, skipped=summary.skipped, faults=summary.faults, notes=summary.notes,
                summary=f"{summary.played} games played, {summary.skipped} already stored, {summary.faults} "
                        f"with a fault; {len(summary.entrants)} bots, {len(summary.rejected)} files rejected")


if __name__ == "__main__":
    sys.exit(main())
