"""The isolated check of an upload, in the background: ``cabo-kit check-bot`` run in a process of its own, in two steps.

:func:`check_file` copies the upload into a fresh temporary folder under the name it plays under
in the tournament (``<id>.py``, as ``bots/<id>.py``), and runs :func:`cabo_kit.tournament.check.check_bot_cli` on it in a check
process (:class:`CheckProcess`): a new session, niced, killed with everything it started when it
overruns. The student's code thus never runs in the server's process, nor in the check process:
the checker plays it isolated, as a tournament does (under a user id of its own when the server is
root). It plays the rules of the class's ``tournament.toml`` (``check-bot --class``), as its
tournament does. The result is that command's own sentences, with the temporary folder and the
class folder taken out of its paths, so a traceback names the student's file and line: accepted when the
check found no problem, rejected otherwise. A failure of the checker (:class:`CheckerError`) is not a
verdict: the file is not judged, and is tried again; but a file whose check process ended each of 3
times it checked it, each in a fresh process, is rejected (:data:`CHECK_ENDED`: it ends processes it
did not start, which bots under the server's own user id can).

:class:`CheckWorker` runs the checks of :meth:`~cabo_kit.portal.state.PortalState.pending_checks`
on threads of the server (each waits on its check process, never on the event loop), and records
each result; an accepted upload becomes the student's ``bots/<id>.py``. A check comes in two steps:

1. **The first verdict**: the check's games, their replay and everything it finds in them, but
   not the time estimate (``timing=False``): about half a second for a file as fast as the
   reference bots. Accepted, the file plays in the tournament at once, and the page says that the
   rest of the check runs.
2. **The rest** (:meth:`~cabo_kit.portal.state.PortalState.pending_rests`): the whole check again,
   as ``cabo-kit check-bot`` prints it, with the time the file adds to the class (the reference
   bots timed on the same deals: a bot far slower than they are is rejected). Its sentences then
   replace the first verdict's; a problem found only by it rejects the upload, which leaves the
   tournament (the student's newest accepted version before it plays again), and the page says so.
   Rests run, niced as the games, on threads of their own (as many) while no first verdict waits,
   and only for a student's current file: a version a newer one replaced needs none (unless it
   becomes current again).

Each thread keeps its check process from one upload to the next (:class:`CheckProcess`): Python,
the kit and the harness server start once, and the decisions a game asks (the pace rule) are
counted once; every 200 checks a new one takes over, started ten checks ahead. Uploads still ``checking``,
and rests still to come, when a server stopped (or the checker failed) are checked when the next
one starts.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .games import process_env, python_command
from .state import PortalState, Upload

__all__ = ["CheckOutcome", "CheckProcess", "check_file", "CheckWorker", "CheckerError", "ClassConfigError",
           "REST_RUNS", "REST_REJECTED", "CHECKER_FAILED", "CHECKER_WAITS", "CHECK_ENDED",
           "CHECK_ENDED_WAITS"]

_PROGRAM = "from cabo_kit.portal.checker import _serve_checks; _serve_checks()"
_MAX_OUTPUT = 64 * 1024
_MAX_REPLY = 4 << 20  # a reply longer than this is broken: the process is ended
_log = logging.getLogger("cabo_kit.portal")

REST_RUNS = ("Your bot plays in the tournament from now on. The rest of the check runs next: it times the reference "
             "bots on the same deals, to say how much time your bot adds to the class (a bot far slower than they "
             "are is rejected). Its result replaces this one here.")
"""Added to a first verdict's sentences when it accepts the file."""
CHECKER_FAILED = ("The checker itself failed on the server (not because of your file), so your file has no verdict yet: "
                  "it is checked again {when}. You need not upload it again.")
"""What an upload still ``checking`` says after the checker itself failed on it (the teacher's log says why);
``{when}``: when it is checked again (:func:`_when`)."""
CHECKER_WAITS = ("The class's tournament settings have a mistake the teacher must fix, so no file can be checked just "
                 "now: yours is checked as soon as they do. You need not upload it again.")
"""What an upload still ``checking`` says while the class's ``tournament.toml`` cannot be used."""
CHECK_ENDED_WAITS = ("The check's own process was ended while it checked your file, so your file has no verdict yet: "
                     "it is checked again {when}, in a fresh process. A file that ends the check's process each of "
                     "{times} times is rejected (a bot must not end processes it did not start).")
"""What an upload still ``checking`` says after its check process ended while it checked it (``{when}``, ``{times}``:
when it is checked again, and how many such ends reject it)."""
CHECK_ENDED = ("{name}: the check's own process was ended each of the {times} times it checked this file (exit status "
               "{code}): a file that ends processes it did not start is rejected. If yours does nothing like that, "
               "tell your teacher.")
"""A file whose check process ended each time it checked it (:class:`CheckWorker`'s ``max_failures``): rejected."""
REST_REJECTED = ("This version was accepted by the check's first verdict and then rejected by the rest of the check: it "
                 "no longer plays in the tournament (your newest accepted version before it plays in its place, if you "
                 "have one).")
"""Added to the sentences of a rest that rejects the file."""


def _when(seconds: float) -> str:
    """When a check is tried again, in words.

    >>> [_when(s) for s in (0, 1, 30, 60, 90, 300)]
    ['at once', 'in 1 second', 'in 30 seconds', 'in a minute', 'in 2 minutes', 'in 5 minutes']
    """
    if seconds < 0.5:
        return "at once"
    if round(seconds) == 60:
        return "in a minute"
    if seconds < 60:
        return f"in {round(seconds)} second{'s' if round(seconds) != 1 else ''}"
    return f"in {max(2, round(seconds / 60))} minutes"


@dataclass(frozen=True)
class CheckOutcome:
    """A check's verdict (``accepted`` or ``rejected``) and what it said; ``complete``: false for a first verdict
    that accepts the file, whose rest is still to come."""

    status: str
    text: str
    complete: bool = True


def _serve_checks() -> None:
    """The check process (:class:`CheckProcess`): jobs in, one JSON line each on stdin; results out, one JSON line
    each on the stdout it was started with.

    Anything else written to fd 1 or 2 (a C library, a stray print outside a job) goes to ``/dev/null``, and
    the isolation's warnings for the teacher (bots under the server's own uid) are not the student's concern.
    A job's reply is ``{"code", "text"}`` (check-bot's exit status and sentences); ``{"config": message}`` when the
    class's ``tournament.toml`` cannot be used (the teacher's to fix: no file is judged); ``{"code": 2, "text":
    traceback}`` when the checker itself failed. A job ``{"warm": true, "class_dir"}`` (a process started ahead)
    is answered ``{"warm": true}`` after :func:`_warm_up`.
    """
    import contextlib
    import io
    import traceback
    import warnings

    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    warnings.filterwarnings("ignore", message="cabo-kit: ")
    from ..tournament.check import check_bot_cli, class_settings
    from ..tournament.config import ConfigError

    replies.write('{"ready": true}\n')
    replies.flush()
    for line in sys.stdin:
        job = json.loads(line)
        text = io.StringIO()
        reply: dict[str, object]
        if job.get("warm"):  # a process started ahead of need: its first check's costs paid before a student waits
            with contextlib.redirect_stdout(text), contextlib.redirect_stderr(text):
                try:
                    _warm_up(check_bot_cli, job.get("class_dir"))
                except Exception:  # noqa: BLE001 - only a head start: a student's check does it otherwise
                    pass
            replies.write('{"warm": true}\n')
            replies.flush()
            continue
        try:
            if job.get("class_dir"):
                class_settings(job["class_dir"])  # read as the runner reads it: a mistake is the teacher's to fix
        except (ConfigError, OSError, ValueError) as exc:  # ValueError: any other way the file cannot be read
            reply = {"config": str(exc)}
        else:
            with contextlib.redirect_stdout(text), contextlib.redirect_stderr(text):
                try:
                    code = check_bot_cli(job["path"], games=job["games"], progress=False, timing=job["timing"],
                                         class_dir=job.get("class_dir"))
                except Exception:  # noqa: BLE001 - the checker's own failure (the student's file never runs here)
                    traceback.print_exc()
                    code = 2
            reply = {"code": code, "text": text.getvalue()}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


_WARM_UP = ("import cabo_kit as ck\n\n\nclass WarmUp(ck.Bot):\n    def choose(self, observation, legal_actions):\n"
            "        return legal_actions[0]\n")


def _warm_up(check_bot_cli: Callable[..., int], class_dir: str | None) -> None:
    """A one-game check of a tiny bot, its report dropped: the harness server starts and the pace of the class's
    games is counted (:func:`~cabo_kit.tournament.check.decisions_a_game`), as a process's first check does."""
    with tempfile.TemporaryDirectory(prefix="cabo-portal-warm-") as tmp:
        path = Path(tmp) / "warm_up.py"
        path.write_text(_WARM_UP, encoding="utf-8")
        check_bot_cli(path, games=1, progress=False, timing=False, class_dir=class_dir)


def _class_rules(folder: Path | None) -> Path | None:
    """The class folder whose settings a check of ``folder``'s class plays (``check-bot --class``), as an absolute path:
    ``None`` when it holds neither ``tournament.toml`` nor ``bots/`` (the runner plays the default settings there)."""
    if folder is None:
        return None
    folder = Path(os.path.abspath(folder))
    return folder if (folder / "tournament.toml").exists() or (folder / "bots").is_dir() else None


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):
        proc.kill()
    proc.wait()


class _Overran(Exception):
    """The check process gave no reply in time (it was ended)."""


class CheckerError(Exception):
    """The checker failed: its process did not start in time, broke its pipe, ended during a check or raised; the
    file was not judged. ``str()`` says what happened, for the teacher.

    ``counted``: it failed while it checked this file, in a process that had checked no other (it ended, was
    killed by a signal, or its checker raised, after it was given the file): the file may be the cause (one that
    ends processes it did not start, where bots run under the server's own user id). Not counted: a process that
    did not start, or that had checked other files first. ``code``: the process's exit status, when known."""

    def __init__(self, message: str, *, counted: bool = False, code: int | None = None) -> None:
        super().__init__(message)
        self.counted, self.code = counted, code


class ClassConfigError(CheckerError):
    """The class's ``tournament.toml`` cannot be used, so no check can play the class's rules (the teacher's to fix)."""


class CheckProcess:
    """A check process that checks upload after upload (``python -c _PROGRAM``, started at its first check).

    A new session, niced ``nice``, its environment marked as ``folder``'s (:func:`~cabo_kit.portal.games.process_env`).
    ``running(proc, alive)`` is told each process when it starts (``alive`` true) and when it ends (so a stopping
    server can kill it, and a restart after ``kill -9`` can end it). A check that overruns its time, or a process
    that fails, ends the process with everything it started; the next check starts a new one. After ``max_jobs``
    checks it is replaced (nothing a check leaves behind grows for long): the new process is started ``ahead``
    checks before (it imports the kit meanwhile: about a second, several quick checks), and the old one ends in
    the background after its last verdict, so no check waits for a process to start or end.
    """

    def __init__(self, *, nice: int = 10, folder: Path | None = None, max_jobs: int = 200, start_s: float = 120.0,
                 running: Callable[[subprocess.Popen[bytes], bool], None] | None = None, ahead: int = 10) -> None:
        self.nice, self.folder, self.max_jobs, self.start_s, self.ahead = nice, folder, max_jobs, start_s, ahead
        self.running = running
        self.proc: subprocess.Popen[bytes] | None = None
        self.jobs = 0
        self._replies: queue.Queue[bytes | None] = queue.Queue()
        self._ready = False
        self._next: tuple[subprocess.Popen[bytes], queue.Queue[bytes | None]] | None = None  # started ahead
        self._alive: dict[int, subprocess.Popen[bytes]] = {}  # every process started and not yet ended
        self._guard = threading.Lock()
        self._stopped = False

    def _launch(self) -> tuple[subprocess.Popen[bytes], "queue.Queue[bytes | None]"]:
        """Start a check process (it says it is ready once the kit is imported): at once, without waiting for it."""
        # Its last argument names it in `ps`. It runs in "/", never where a file under check lies: `python -c` imports
        # from its working directory first, so an upload named json.py there would run as the server (-P, where
        # there is one, drops that directory from the path too).
        with self._guard:  # stop() either sees it in _alive, or it is never started
            if self._stopped:
                raise CheckerError("the check process was stopped (the server stops)")
            proc = subprocess.Popen(python_command("-c", _PROGRAM, "cabo-portal-check-process"), cwd="/",
                                    env=process_env(self.folder),
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                    start_new_session=True)
            self._alive[proc.pid] = proc
        replies: queue.Queue[bytes | None] = queue.Queue()
        threading.Thread(target=self._read, args=(proc, replies), name="cabo-portal-check-reader", daemon=True).start()
        if self.running is not None:
            self.running(proc, True)
        if self.nice and hasattr(os, "setpriority"):
            try:
                os.setpriority(os.PRIO_PROCESS, proc.pid, self.nice)
            except OSError:
                pass
        return proc, replies

    def _current(self) -> subprocess.Popen[bytes]:
        """The process to check in, ready: the running one, the one started ahead, or a new one.

        Raises :class:`CheckerError` when it does not say it is ready within ``start_s`` seconds, or ends first."""
        if self.proc is not None and self.proc.poll() is None and self._ready:
            return self.proc
        if self.proc is not None:
            self._end(self.proc)
        ahead, self._next = self._next, None
        if ahead is not None and ahead[0].poll() is not None:
            self._end(ahead[0])
            ahead = None
        self.proc, self._replies = ahead or self._launch()
        self.jobs, self._ready = 0, False
        try:
            self._reply(time.monotonic() + self.start_s)  # {"ready": true}: the kit is imported
            if ahead is not None:
                self._reply(time.monotonic() + self.start_s)  # {"warm": true}: its warm-up done
        except _Overran:
            self.close(kill=True)
            raise CheckerError(f"the check process did not start within {self.start_s:g} s") from None
        except (EOFError, ValueError):
            code = self.close(kill=True, ending=True)
            raise CheckerError(f"the check process stopped as it started (exit status {code})") from None
        self._ready = True
        return self.proc

    def _warm(self, proc: subprocess.Popen[bytes]) -> None:
        """Give a process started ahead its warm-up (read after it is ready): the class's rules when ``folder`` has
        them. A broken pipe here shows at its first check."""
        folder = _class_rules(self.folder)
        try:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps({"warm": True, "class_dir": str(folder) if folder else None}).encode() + b"\n")
            proc.stdin.flush()
        except OSError:
            pass

    @staticmethod
    def _read(proc: subprocess.Popen[bytes], replies: "queue.Queue[bytes | None]") -> None:
        """The process's replies, line by line, into ``replies`` (``None`` at its end, or after a line too long)."""
        assert proc.stdout is not None
        try:
            while True:
                line = proc.stdout.readline(_MAX_REPLY)
                if not line.endswith(b"\n"):
                    break
                replies.put(line)
        except (OSError, ValueError):
            pass
        replies.put(None)

    def _reply(self, deadline: float) -> dict[str, object]:
        try:
            line = self._replies.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            raise _Overran() from None
        if line is None:
            raise EOFError()
        reply: dict[str, object] = json.loads(line)
        return reply

    def check(self, path: Path, *, games: int, timing: bool, timeout: float,
              class_dir: Path | None = None) -> tuple[int, str]:
        """Check the file at ``path``: ``(exit status of check-bot, its output)``; status 0 is accepted, 1 rejected.

        ``class_dir``: the class folder whose ``tournament.toml`` the check plays (its presets, table sizes,
        memory and limits), as ``cabo-kit check-bot --class``; ``None``: the default settings.
        Raises :class:`TimeoutError` when the check takes longer than ``timeout`` seconds (the process is ended),
        :class:`ClassConfigError` when the class's ``tournament.toml`` cannot be used, and :class:`CheckerError`
        when the checker fails (the process does not start, breaks, ends or raises: it is ended; ``counted`` when
        that happened during this file's check in a process that had checked no other).
        """
        proc = self._current()
        fresh = self.jobs == 0  # a failure from here on may be this file's doing (no other file ran in it)
        if self.max_jobs > 1 and self.jobs + self.ahead >= self.max_jobs and self._next is None:
            self._next = self._launch()  # its successor gets ready beside the last checks: the next one never waits
            self._warm(self._next[0])
        job = {"path": str(path), "games": games, "timing": timing, "class_dir": str(class_dir) if class_dir else None}
        try:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(job).encode() + b"\n")
            proc.stdin.flush()
        except OSError as exc:
            code = self.close(kill=True, ending=True)
            raise CheckerError(f"the check process could not be given the file ({exc.strerror or exc}; exit status "
                               f"{code})") from None
        try:
            reply = self._reply(time.monotonic() + timeout)
        except _Overran:
            self.close(kill=True)
            raise TimeoutError(timeout) from None
        except (EOFError, ValueError):
            code = self.close(kill=True, ending=True)
            raise CheckerError(f"the check process ended during the check (exit status {code})", counted=fresh,
                               code=code) from None
        if "config" in reply:
            raise ClassConfigError(str(reply["config"]))
        code, text = int(reply["code"]), str(reply["text"])  # type: ignore[call-overload]
        if code not in (0, 1):
            self.close(kill=True)
            raise CheckerError(f"the checker failed (exit status {code}):\n{text.strip()}", counted=fresh, code=code)
        self.jobs += 1
        if self.jobs >= self.max_jobs:
            self._retire()
        return code, text

    def _retire(self) -> None:
        """End the current process in the background once it has read its last job (the next check takes the one
        started ahead)."""
        proc, self.proc, self._ready = self.proc, None, False
        if proc is None:
            return
        try:
            assert proc.stdin is not None
            proc.stdin.close()
        except OSError:
            pass

        def finish() -> None:
            try:
                proc.wait(5.0)
            except subprocess.TimeoutExpired:
                pass
            self._end(proc)

        threading.Thread(target=finish, name="cabo-portal-check-retire", daemon=True).start()

    def _end(self, proc: subprocess.Popen[bytes]) -> int | None:
        """Kill ``proc``'s group (whatever it left: its harness server ends its bots when it goes) and forget it, once
        whichever thread comes first; its exit status."""
        with self._guard:
            if self._alive.pop(proc.pid, None) is None:
                return proc.returncode
            code = proc.poll()
            _kill_group(proc)
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        if self.running is not None:
            self.running(proc, False)
        return code if code is not None else proc.returncode

    def stop(self) -> None:
        """Kill every process at once, a check running in one included, and start none again (the server stops)."""
        with self._guard:
            self._stopped = True
        self.close(kill=True)

    def close(self, kill: bool = False, ending: bool = False) -> int | None:
        """End the process (at once with ``kill``, else when it has read its last job), and any started ahead or
        still ending; the exit status of the process (``ending``: it is ending by itself, its pipe closed: its own
        status is waited for a moment, for the teacher's log, before it is killed)."""
        proc, self.proc, self._ready, self._next = self.proc, None, False, None
        code = None
        if proc is not None:
            if ending:
                try:
                    proc.wait(1.0)
                except subprocess.TimeoutExpired:
                    pass
            if not kill:
                try:
                    assert proc.stdin is not None
                    proc.stdin.close()
                    proc.wait(5.0)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            code = self._end(proc)
        with self._guard:
            others = list(self._alive.values())
        for other in others:
            self._end(other)
        return code


def check_file(source: Path, name: str, *, games: int = 9, timeout: float = 300.0, nice: int = 10,
               running: Callable[[subprocess.Popen[bytes], bool], None] | None = None,
               folder: Path | None = None, timing: bool = True, process: CheckProcess | None = None,
               class_dir: Path | None = None) -> CheckOutcome:
    """Check the upload at ``source`` as the file ``name`` (``<id>.py``: as the tournament plays it) in a check process.

    ``process``: the :class:`CheckProcess` to check it in (kept for the next check); by default one of its own,
    started for this check and ended after it (``nice``, ``running`` and ``folder`` are its). ``timing=False``:
    the first verdict (no time estimate); an accepted file's outcome is then not ``complete``. ``class_dir``: the
    class folder whose ``tournament.toml`` the check plays, as the class's tournament does (``None``, or a folder
    with neither ``tournament.toml`` nor ``bots/``: the default settings); its path never appears in the outcome.

    A failure of the checker (:class:`CheckerError`: its process did not start, broke or ended) is tried once more
    in a fresh process, unless it happened in a fresh process during this file's check (``counted``: the file may
    be the cause); if that fails too, or the class's ``tournament.toml`` cannot be used (:class:`ClassConfigError`),
    it is raised: the file was not judged.
    """
    own = process is None
    proc = process or CheckProcess(nice=nice, folder=folder, running=running, max_jobs=1)
    class_dir = _class_rules(class_dir)
    with tempfile.TemporaryDirectory(prefix="cabo-portal-check-") as tmp:
        # The folder stays 0700 and the file 0600: the harness reads the source before it drops to the
        # bot's uid, so no other bot (each runs as a uid of its own) can read a file while it is checked.
        target = Path(tmp) / name
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(source.read_bytes())
        try:
            try:
                code, out = proc.check(target, games=games, timing=timing, timeout=timeout, class_dir=class_dir)
            except ClassConfigError:
                raise
            except CheckerError as exc:  # the process was ended: the next check starts a fresh one
                if exc.counted:
                    raise  # no other file ran in it: tried again later (CheckWorker), not at once
                code, out = proc.check(target, games=games, timing=timing, timeout=timeout, class_dir=class_dir)
        except TimeoutError:
            return CheckOutcome("rejected", f"{name}: the check took longer than {timeout:g} s and was stopped "
                                            "(does your bot take very long to load or to decide?)")
        finally:
            if own:
                proc.close()
        text = out[:_MAX_OUTPUT].replace(tmp + os.sep, "").replace(tmp, "")
        if class_dir is not None:  # "Checked with the settings of <the class's path>": the student needs no path
            text = text.replace(str(class_dir / "tournament.toml"), "the class's tournament.toml")
            text = text.replace(str(class_dir), "the class")
        text = text.strip()
        if code == 0:
            return CheckOutcome("accepted", text, complete=timing)
        return CheckOutcome("rejected", text)


class CheckWorker:
    """Check pending uploads on ``threads`` background threads, and their rests on ``rest_threads`` more (default as
    many), until :meth:`stop`.

    ``check(upload) -> CheckOutcome`` is the first verdict: by default :func:`check_file` with ``games`` games
    and no time estimate, in the thread's own :class:`CheckProcess` (niced ``nice``). ``rest(upload) ->
    CheckOutcome`` is the rest of the check of an upload the first verdict accepted: by default the whole check
    (with its time estimate) in a check process niced ``rest_nice`` (as the games), taken only while no first
    verdict waits. Given a ``check`` of its own and no ``rest``, the worker has no rest step (its checks are
    complete). :meth:`wake` starts a round at once (after an upload); otherwise the worker looks every ``poll`` s.

    The checks play the rules of the class's ``tournament.toml`` (its presets, table sizes, memory and limits),
    as its tournament does. When the checker fails (:class:`CheckerError`, after :func:`check_file`'s second
    try) or that file cannot be used (:class:`ClassConfigError`), the upload is not judged: it stays
    ``checking`` (its rest, still to come), the failure is logged for the teacher (the ``cabo_kit.portal`` logger,
    on the server's console), and it is tried again after ``retry_after`` seconds (:meth:`PortalState.note_failure
    <cabo_kit.portal.state.PortalState.note_failure>`), or at the next start. Meanwhile it does not hold the games.
    A file whose check process ended while it checked it (``counted``) ``max_failures`` times, each in a fresh
    process, is rejected (:data:`CHECK_ENDED`): it ends processes it did not start (where bots run under the
    server's own user id, they can). A rest that ends so rejects its file as a rest does (:data:`REST_REJECTED`).
    """

    def __init__(self, state: PortalState, *, games: int = 9, threads: int = 1, poll: float = 2.0,
                 check: Callable[[Upload], CheckOutcome] | None = None,
                 rest: Callable[[Upload], CheckOutcome] | None = None,
                 nice: int = 10, rest_nice: int = 15, timeout: float = 300.0, rest_threads: int | None = None,
                 retry_after: float = 60.0, max_failures: int = 3) -> None:
        self.state = state
        self.games = games
        self.threads = threads
        self.rest_threads = threads if rest_threads is None else rest_threads
        self.poll = poll
        self.nice, self.rest_nice, self.timeout = nice, rest_nice, timeout
        self.retry_after, self.max_failures = retry_after, max_failures
        self._said: set[str] = set()  # the class's config mistakes logged so far
        self._tries: dict[tuple[str, str, int], int] = {}  # the checker's failures on each step still to give a verdict
        self._faults: dict[str, int] = {}  # the rounds that failed, by what they raised
        state.clear_retries()  # a start tries every upload the checker failed on at once (their counts stay)
        self.check = check or self._first
        self.rest = rest if rest is not None or check is not None else self._rest
        self._claimed: set[tuple[str, str, int]] = set()
        self._processes: list[CheckProcess] = []
        self._local = threading.local()
        self._guard = threading.Lock()
        self._event = threading.Event()
        self._rest_event = threading.Event()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self.on_accepted: Callable[[], None] | None = None
        """Called when a check changes a student's current file: a first verdict that accepts it, or a rest that
        rejects it (the server wakes its games)."""

    # ------------------------------------------------------------------ the checks

    def _process(self, nice: int) -> CheckProcess:
        """This thread's check process (started at its first check)."""
        proc: CheckProcess | None = getattr(self._local, "process", None)
        if self._stopping.is_set():
            raise CheckerError("the checks were stopped (the server stops)")
        if proc is None or proc.nice != nice:
            if proc is not None:
                proc.close()

            def running(p: subprocess.Popen[bytes], alive: bool) -> None:
                if alive:
                    self.state.add_process(p.pid, "check")  # a restart after kill -9 ends it (games.reap_leftovers)
                else:
                    self.state.drop_process(p.pid)

            proc = CheckProcess(nice=nice, folder=self.state.folder, running=running)
            self._local.process = proc
            with self._guard:
                self._processes.append(proc)
        return proc

    def _checked(self, up: Upload, timing: bool, nice: int) -> CheckOutcome:
        # As the tournament plays it (bots/<id>.py): the upload's own name could be a reference bot's, and the class's
        # size counts bots/ without the student's current file
        return check_file(up.path, f"{up.person}.py", games=self.games,
                          timeout=self.timeout, timing=timing, process=self._process(nice), class_dir=self.state.folder)

    def _first(self, up: Upload) -> CheckOutcome:
        outcome = self._checked(up, False, self.nice)
        if outcome.status == "accepted" and not outcome.complete:
            return CheckOutcome("accepted", f"{outcome.text}\n{REST_RUNS}", complete=False)
        return outcome

    def _rest(self, up: Upload) -> CheckOutcome:
        outcome = self._checked(up, True, self.rest_nice)
        if outcome.status == "rejected":
            return CheckOutcome("rejected", f"{outcome.text}\n{REST_REJECTED}")
        return outcome

    # ------------------------------------------------------------------ the queue

    def _claim(self, kind: str, tried: set[tuple[str, str, int]]) -> Upload | None:
        """The next upload to give its first verdict (``kind`` ``first``) or its rest, claimed by this thread: not one
        another thread checks, one the checker failed lately (not yet due), nor one in ``tried`` (failed in this
        round)."""
        with self._guard:
            now = time.time()
            for up in self.state.pending_checks() if kind == "first" else self.state.pending_rests():
                key = (kind, up.person, up.number)
                if key not in self._claimed and key not in tried and (up.retry_at is None or up.retry_at <= now):
                    self._claimed.add(key)
                    return up
        return None

    def _firsts_waiting(self) -> bool:
        """Whether an upload waits for its first verdict and may be checked now (not one the checker failed lately)."""
        now = time.time()
        return any(up.retry_at is None or up.retry_at <= now for up in self.state.pending_checks())

    def _judge(self, kind: str, up: Upload, tried: set[tuple[str, str, int]]) -> CheckOutcome | None:
        """``up``'s first verdict or rest; ``None`` when the checker failed (logged, added to ``tried``; tried again
        after ``retry_after``), unless the check process ended while it checked this file ``max_failures`` times:
        then the file's rejection."""
        step = self.check if kind == "first" else self.rest
        assert step is not None
        try:
            outcome = step(up)
        except Exception as exc:  # noqa: BLE001 - e.g. the upload could not be read: never the file's verdict
            tried.add((kind, up.person, up.number))
            if self._stopping.is_set():
                return None  # ended by the stop itself: nothing is recorded
            if isinstance(exc, CheckerError):
                return self._failed(kind, up, exc)
            return self._failed(kind, up, CheckerError(f"{type(exc).__name__}: {exc}"), once=True)
        with self._guard:
            self._tries.pop((kind, up.person, up.number), None)
        return outcome

    def _failed(self, kind: str, up: Upload, exc: CheckerError, once: bool = False) -> CheckOutcome | None:
        """Record that the checker failed on ``up``'s ``kind`` step and log it; the file's rejection once the check
        process ended ``max_failures`` times while it checked it, else ``None`` (tried again after ``retry_after``).
        ``once``: it raised something else than :class:`CheckerError` (e.g. the upload could not be read)."""
        config = isinstance(exc, ClassConfigError)
        page: str | None = None  # the rest's upload keeps its first verdict meanwhile
        if kind == "first":  # what the student's page (and the teacher's roster) says meanwhile
            page = (CHECKER_WAITS if config else CHECK_ENDED_WAITS if exc.counted else CHECKER_FAILED).format(
                when=_when(self.retry_after), times=self.max_failures)
        failures = self.state.note_failure(up.person, up.number, counted=exc.counted,
                                           retry_at=time.time() + self.retry_after, result=page)
        if exc.counted and failures >= self.max_failures:
            text = CHECK_ENDED.format(name=f"{up.person}.py", times=failures, code=exc.code)
            _log.warning("cabo-kit serve: upload %d of %s is rejected: the check process ended each of the %d times "
                         "it checked it%s (last: %s)", up.number, up.person, failures,
                         "" if kind == "first" else " (the rest of its check)", exc)
            with self._guard:
                self._tries.pop((kind, up.person, up.number), None)
            return CheckOutcome("rejected", text if kind == "first" else f"{text}\n{REST_REJECTED}")
        with self._guard:
            said = config and str(exc) in self._said
            if config:
                self._said.add(str(exc))
            key = (kind, up.person, up.number)
            tries = self._tries[key] = self._tries.get(key, 0) + 1
        if said:
            return None  # a class's mistake is logged once, not for every upload it holds up
        if tries & (tries - 1):
            return None  # a stuck upload is logged at its 1st, 2nd, 4th, 8th, ... failure, not at every retry
        if config:
            what = "the class's tournament.toml cannot be used"
        elif exc.counted:
            what = (f"the check process ended while it checked the file ({failures} of {self.max_failures} times: "
                    "then the file is rejected)")
        else:
            what = "the checker failed" if once else "the checker failed twice"
        fault = "" if exc.counted else "no fault of the file: "
        then = (f"was not checked ({fault}it stays 'checking', and is checked" if kind == "first" else
                f"was not given the rest of its check ({fault}it keeps its first verdict, and the rest is tried")
        count = f" ({tries} failures so far: logged again at {2 * tries})" if tries > 1 else ""
        _log.warning("cabo-kit serve: %s, so upload %d of %s %s again in %g s or at the next start)%s: %s", what,
                     up.number, up.person, then, self.retry_after, count, exc)
        return None

    def run_pending(self) -> int:
        """Give every pending upload its first verdict now, on this thread; how many were checked."""
        done = 0
        tried: set[tuple[str, str, int]] = set()
        while not self._stopping.is_set() and (up := self._claim("first", tried)) is not None:
            try:
                outcome = self._judge("first", up, tried)
                if outcome is not None and not self._stopping.is_set():
                    rest = not outcome.complete and self.rest is not None
                    if self.state.set_check(up.person, up.number, outcome.status, outcome.text, rest=rest) \
                            and self.on_accepted:
                        self.on_accepted()
                    done += 1
            finally:
                with self._guard:
                    self._claimed.discard(("first", up.person, up.number))
        if done:
            self._rest_event.set()
        return done

    def run_rests(self) -> int:
        """Run the rest of every check whose first verdict accepted its upload, while no first verdict waits; how many."""
        done = 0
        tried: set[tuple[str, str, int]] = set()
        while not self._stopping.is_set() and self.rest is not None and not self._firsts_waiting() \
                and (up := self._claim("rest", tried)) is not None:
            try:
                outcome = self._judge("rest", up, tried)
                if outcome is not None and not self._stopping.is_set():
                    before = self.state.current(up.person)
                    self.state.set_check(up.person, up.number, outcome.status, outcome.text)
                    if self.state.current(up.person) != before and self.on_accepted:
                        self.on_accepted()
                    done += 1
            finally:
                with self._guard:
                    self._claimed.discard(("rest", up.person, up.number))
        return done

    def _loop(self) -> None:
        while not self._stopping.is_set():
            self._round(self.run_pending)
            self._event.wait(self.poll)
            self._event.clear()

    def _rest_loop(self) -> None:
        while not self._stopping.is_set():
            self._round(self.run_rests)
            self._rest_event.wait(self.poll)
            self._rest_event.clear()

    def _round(self, run: Callable[[], int]) -> None:
        """One round of checks on a thread of the worker; whatever it raises (the portal's store locked, an upload
        that cannot be read) is logged and the thread goes on: it would otherwise end, and every later upload stay
        'checking'. The same fault is logged at its 1st, 2nd, 4th, 8th, ... time."""
        try:
            run()
        except Exception as exc:  # noqa: BLE001 - see above
            if self._stopping.is_set():
                return
            what = f"{type(exc).__name__}: {exc}"
            with self._guard:
                times = self._faults[what] = self._faults.get(what, 0) + 1
            if not times & (times - 1):
                _log.error("cabo-kit serve: a round of checks failed (%s; %d time%s so far); the checks go on at the "
                           "next round", what, times, "s" if times != 1 else "", exc_info=times == 1)

    def start(self) -> "CheckWorker":
        loops = [self._loop] * self.threads + [self._rest_loop] * (self.rest_threads if self.rest is not None else 0)
        for i, loop in enumerate(loops):
            name = f"cabo-portal-check-{i}" if i < self.threads else f"cabo-portal-check-rest-{i - self.threads}"
            t = threading.Thread(target=loop, name=name, daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def wake(self) -> None:
        self._event.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop checking: running checks are killed (and checked again at the next start)."""
        self._stopping.set()
        self._event.set()
        self._rest_event.set()
        with self._guard:
            processes = list(self._processes)
        for proc in processes:
            proc.stop()
        for t in self._threads:
            t.join(timeout)
        with self._guard:
            processes = list(self._processes)
        for proc in processes:  # and any a thread made meanwhile
            proc.stop()
