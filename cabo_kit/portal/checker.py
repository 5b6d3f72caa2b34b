"""The isolated check of an upload, in the background: ``cabo-kit check-bot`` run in a process of its own.

:func:`check_file` copies the upload into a fresh temporary folder under the name the student
gave it (made safe), and runs :func:`cabo_kit.tournament.check.check_bot_cli` on it in a
subprocess: a new session, niced, killed with everything it started when it overruns. The
student's code thus never runs in the server's process (the checker itself plays it isolated,
as a tournament does). The result is that command's own sentences, with the temporary folder
taken out of its paths, so a traceback names *their* file and line: accepted when the check
found no problem, rejected otherwise.

:class:`CheckWorker` runs the checks of :meth:`~cabo_kit.portal.state.PortalState.pending_checks`
on threads of the server (each waits on its subprocess, never on the event loop), and
records each result; an accepted upload becomes the student's ``bots/<id>.py``. Uploads still
``checking`` when a server stopped are checked when the next one starts.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .games import process_env
from .state import PortalState, Upload

__all__ = ["CheckOutcome", "check_file", "CheckWorker", "safe_filename"]

_PROGRAM = ("import sys\nfrom cabo_kit.tournament.check import check_bot_cli\n"
            "sys.exit(check_bot_cli(sys.argv[1], games=int(sys.argv[2]), progress=False))\n")
_MAX_OUTPUT = 64 * 1024


@dataclass(frozen=True)
class CheckOutcome:
    """A check's verdict (``accepted`` or ``rejected``) and what it said."""

    status: str
    text: str


def safe_filename(name: str, fallback: str) -> str:
    """The uploaded name's last part, kept to letters, digits, ``_``, ``-`` and ``.``, ending ``.py``.

    >>> safe_filename("C:\\\\work\\\\my bot (2).py", "ada.py"), safe_filename("../.py", "ada.py")
    ('my_bot__2_.py', 'ada.py')
    """
    last = name.replace("\\", "/").rsplit("/", 1)[-1]
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", last[:-3] if last.lower().endswith(".py") else last).strip(".")[:60]
    return f"{stem}.py" if stem and not stem.startswith("_") else fallback


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):
        proc.kill()
    proc.wait()


def check_file(source: Path, name: str, *, games: int = 9, timeout: float = 300.0, nice: int = 10,
               running: Callable[[subprocess.Popen[bytes] | None], None] | None = None,
               folder: Path | None = None) -> CheckOutcome:
    """Check the upload at ``source`` as the file ``name`` (see :func:`safe_filename`) in a subprocess.

    ``running`` is told the subprocess when it starts and ``None`` when it ends (so a stopping
    server can kill it). ``folder``: the class's folder, marked in the check's environment.
    """
    with tempfile.TemporaryDirectory(prefix="cabo-portal-check-") as tmp:
        # The folder stays 0700 and the file 0600: the harness reads the source before it drops to the
        # bot's uid, so no other bot (each runs as a uid of its own) can read a file while it is checked.
        target = Path(tmp) / name
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(source.read_bytes())
        proc = subprocess.Popen([sys.executable, "-c", _PROGRAM, str(target), str(games)], cwd=tmp, env=process_env(folder),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
        if running is not None:
            running(proc)
        try:
            if nice and hasattr(os, "setpriority"):
                try:
                    os.setpriority(os.PRIO_PROCESS, proc.pid, nice)
                except OSError:
                    pass
            try:
                out, _ = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                return CheckOutcome("rejected", f"{name}: the check took longer than {timeout:g} s and was stopped "
                                                "(does your bot take very long to load or to decide?)")
        finally:
            if running is not None:
                running(None)
        text = out[:_MAX_OUTPUT].decode("utf-8", "replace").replace(tmp + os.sep, "").replace(tmp, "").strip()
        if proc.returncode == 0:
            return CheckOutcome("accepted", text)
        if proc.returncode == 1:
            return CheckOutcome("rejected", text)
        return CheckOutcome("rejected", f"{name}: the check stopped unexpectedly (exit status {proc.returncode})"
                                        + (f":\n{text}" if text else ""))


class CheckWorker:
    """Check pending uploads on ``threads`` background threads until :meth:`stop`.

    ``check(upload) -> CheckOutcome`` defaults to :func:`check_file` with ``games`` games.
    :meth:`wake` starts a round at once (after an upload); otherwise the worker looks every ``poll`` s.
    """

    def __init__(self, state: PortalState, *, games: int = 9, threads: int = 1, poll: float = 2.0,
                 check: Callable[[Upload], CheckOutcome] | None = None) -> None:
        self.state = state
        self.games = games
        self.threads = threads
        self.poll = poll
        self.check = check or self._check
        self._claimed: set[tuple[str, int]] = set()
        self._procs: set[subprocess.Popen[bytes]] = set()
        self._guard = threading.Lock()
        self._event = threading.Event()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self.on_accepted: Callable[[], None] | None = None
        """Called when a checked upload becomes a student's current file (the server wakes its games)."""

    def _check(self, up: Upload) -> CheckOutcome:
        proc: list[subprocess.Popen[bytes] | None] = [None]

        def running(p: subprocess.Popen[bytes] | None) -> None:
            with self._guard:
                if p is None and proc[0] is not None:
                    self._procs.discard(proc[0])
                    self.state.drop_process(proc[0].pid)
                elif p is not None:
                    self._procs.add(p)
                    self.state.add_process(p.pid, "check")  # a restart after kill -9 ends it (games.reap_leftovers)
                proc[0] = p

        return check_file(up.path, safe_filename(up.filename, f"{up.person}.py"), games=self.games, running=running,
                          folder=self.state.folder)

    def _claim(self) -> Upload | None:
        with self._guard:
            for up in self.state.pending_checks():
                key = (up.person, up.number)
                if key not in self._claimed:
                    self._claimed.add(key)
                    return up
        return None

    def run_pending(self) -> int:
        """Check every pending upload now, on this thread; how many were checked."""
        done = 0
        while not self._stopping.is_set() and (up := self._claim()) is not None:
            try:
                outcome = self.check(up)
                if not self._stopping.is_set():
                    if self.state.set_check(up.person, up.number, outcome.status, outcome.text) and self.on_accepted:
                        self.on_accepted()
                    done += 1
            finally:
                with self._guard:
                    self._claimed.discard((up.person, up.number))
        return done

    def _loop(self) -> None:
        while not self._stopping.is_set():
            self.run_pending()
            self._event.wait(self.poll)
            self._event.clear()

    def start(self) -> "CheckWorker":
        for i in range(self.threads):
            t = threading.Thread(target=self._loop, name=f"cabo-portal-check-{i}", daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def wake(self) -> None:
        self._event.set()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop checking: running checks are killed (and checked again at the next start)."""
        self._stopping.set()
        self._event.set()
        with self._guard:
            procs = list(self._procs)
        for proc in procs:
            if proc.poll() is None:
                _kill_group(proc)
        for t in self._threads:
            t.join(timeout)
