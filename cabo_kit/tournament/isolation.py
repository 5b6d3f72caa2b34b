"""Running submitted bots in their own processes: loading, limits, and the proxy the engine plays with.

A submitted file is never imported by the engine. :func:`load_submission` checks it in a
throw-away harness process; :class:`IsolatedBot` is a :class:`cabo_kit.Bot` whose
``choose`` and hooks are answered by the bot running in a fresh harness process per game
(``cabo_kit/tournament/harness.py``), over two dedicated pipes carrying JSON lines. The
engine never unpickles anything, never forks itself to start a bot, and kills the
harness's whole process group at the end of a game, on a fault, and when it exits.

Limits (:class:`Limits`): a wall-clock limit per decision plus a time bank per game (both
measured by the engine), a memory cap (``RLIMIT_AS``), a CPU backstop (``RLIMIT_CPU``),
a capped log for the bot's output, no ``fork`` or threads (``RLIMIT_NPROC``). When the
runner is root, each harness drops to an unprivileged uid of its own before the bot's code
runs, so a bot can neither read the engine's (or another bot's) memory through ``/proc``
nor signal it. The engine process is made non-dumpable. When the runner is not root the
bots keep its uid; a warning says that isolation is then weaker.

Any fault raises :class:`BotFault` with ``kind`` ``"error"`` (the bot raised, or broke
the protocol), ``"timeout"``, ``"illegal"`` or ``"crash"`` (the process died), and a
``reason`` (traceback or plain words).

>>> from pathlib import Path
>>> import cabo_kit as ck, tempfile
>>> path = Path(tempfile.mkdtemp()) / "first.py"
>>> _ = path.write_text("import cabo_kit as ck\\nclass First(ck.Bot):\\n"
...                     "    def choose(self, obs, legal):\\n        return legal[0]\\n")
>>> sub = load_submission(path)
>>> sub.name, sub.class_name
('first', 'First')
>>> bots = [IsolatedBot(sub, Limits()), ck.bots.RandomBot()]
>>> record = ck.play_game(bots, ck.Rules.preset("rush"), seed=4)
>>> bots[0].close(); record.game_over
True
"""

from __future__ import annotations

import atexit
import errno
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import warnings
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NoReturn, Sequence

from ..actions import Action, ActionParseError, LegalActions
from ..bot import Bot
from ..cards import Card
from ..explain import not_an_action, not_legal
from ..observation import EventLog, Observation, moment_of
from .timing import CpuTally

__all__ = ["Limits", "Submission", "SubmissionError", "load_submission", "IsolatedBot", "BotFault", "one_line_reason"]

HARNESS = Path(__file__).with_name("harness.py")
MAX_MESSAGE = 64 * 1024
"""The largest reply a bot may send (bytes); a longer one is a protocol error."""
UID_BASE = 1_200_000_000
"""As root, each harness runs as uid/gid ``UID_BASE + its pid`` (65534 if that fails)."""

_POSIX = os.name == "posix"
_card_text = __import__("operator").attrgetter("text")
_perf_counter = time.perf_counter
_tuple_item = tuple.__getitem__
_SPIN_S = 150e-6
"""How long the engine polls a bot's reply pipe, yielding its core, before it sleeps in ``poll`` (seconds).

Only while the bot answers quickly (its last round trip took under ``_SPIN_UNDER``): then the reply
mostly comes within the spin, and neither side pays for waking the other from sleep (tens of
microseconds on a virtual machine). A slow bot costs no spinning."""
_SPIN_UNDER = _SPIN_S
_sched_yield: Any = getattr(os, "sched_yield", lambda: None)


def _card_json(obj: Any) -> str:
    """How the request encoders write a card (events go to them as they are): its text."""
    if isinstance(obj, Card):
        return obj.text
    raise TypeError(f"cannot send a {type(obj).__name__} to a bot process: {obj!r:.60}")


def _make_dumps() -> Any:
    """``json.dumps`` without its per-call setup (the C encoder built once: ~40% faster on small messages)."""
    from json import encoder

    make_encoder = getattr(encoder, "c_make_encoder", None)
    if make_encoder is None:  # pragma: no cover - interpreters without the C accelerator
        return lambda obj: json.dumps(obj, separators=(",", ":"), default=_card_json)
    make = make_encoder(None, _card_json, encoder.encode_basestring_ascii, None, ":", ",", False, False, True)
    return lambda obj: "".join(make(obj, 0))


_dumps = _make_dumps()

_msgspec: Any
try:  # msgspec's JSON codec is several times faster than the stdlib's; plain JSON on the wire either way
    import msgspec as _msgspec
except ImportError:  # pragma: no cover - the report extra brings it; without it the stdlib json works alike
    _msgspec = None


def _make_codec() -> tuple[Any, Any]:
    """``(encode, decode)``: object -> JSON bytes, JSON bytes -> object (never pickle)."""
    if _msgspec is not None:  # a card's text through a C-level hook (isinstance checked by the engine's types)
        return _msgspec.json.Encoder(enc_hook=_card_text).encode, _msgspec.json.Decoder().decode
    return (lambda obj: _dumps(obj).encode()), json.loads


_encode, _decode = _make_codec()
_LINUX = sys.platform.startswith("linux")
_warned: set[str] = set()


def _warn_once(key: str, message: str) -> None:
    if key not in _warned:
        _warned.add(key)
        warnings.warn(message, RuntimeWarning, stacklevel=3)


@dataclass(frozen=True)
class Limits:
    """What each submitted bot may use, enforced by its isolated process (public: ``cabo_kit.tournament.Limits``).

    - ``decision_s`` (1.0): wall seconds for one decision or hook call; over it, the bot loses the game (a timeout).
    - ``game_bank_s`` (30.0): wall seconds the bot may use over one game in all; each call's deadline is the
      smaller of ``decision_s`` and what is left of the bank.
    - ``memory_mb`` (1024): the process's address space (RLIMIT_AS).
    - ``cpu_s`` (600): CPU seconds over the process's life, a backstop (RLIMIT_CPU).
    - ``log_bytes`` (262144): the cap of the bot's own output kept in its log.
    - ``start_s`` (20.0): wall seconds to start the process, import the bot and build it (not charged to
      the bank; not set by ``tournament.toml``).

    ``tournament.toml``'s ``[limits]`` table sets the first five
    (:meth:`~cabo_kit.tournament.config.TournamentConfig.make_limits`); ``cabo-kit check-bot FILE --class DIR``
    checks a file under DIR's, and ``check_bot(path, limits=Limits(...))`` under any.

    >>> Limits(decision_s=0.2).game_bank_s
    30.0
    >>> Limits(decision_s=0)
    Traceback (most recent call last):
    ...
    ValueError: Limits.decision_s must be positive, not 0
    """

    decision_s: float = 1.0
    game_bank_s: float = 30.0
    memory_mb: int = 1024
    cpu_s: float = 600
    log_bytes: int = 256 * 1024
    start_s: float = 20.0

    def __post_init__(self) -> None:
        for name in ("decision_s", "game_bank_s", "memory_mb", "cpu_s", "log_bytes", "start_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"Limits.{name} must be positive, not {getattr(self, name)!r}")


@dataclass(frozen=True)
class Submission:
    """A bot file that loaded: ``name`` (the file's stem), ``version`` (first 12 hex digits
    of the sha256 of its bytes), ``path``, and ``class_name`` (its one Bot subclass)."""

    name: str
    version: str
    path: Path
    class_name: str


class SubmissionError(Exception):
    """A bot file was rejected; ``reason`` says why (with the traceback when there is one)."""

    def __init__(self, reason: str, path: str | Path | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.path = path


class BotFault(Exception):
    """An isolated bot failed: ``kind`` is ``"error"``, ``"timeout"``, ``"illegal"`` or ``"crash"``.

    ``reason`` starts with the call that failed (``choose()``...) where one did; ``says``: a SimpleBot's
    ``BotError`` sentence alone (it names the learner's hook, answer and line), else ``""``.
    """

    KINDS = ("error", "timeout", "illegal", "crash")

    def __init__(self, kind: str, reason: str, says: str = "") -> None:
        if kind not in self.KINDS:
            raise ValueError(f"BotFault kind must be one of {self.KINDS}, not {kind!r}")
        super().__init__(f"{kind}: {reason}")
        self.kind = kind
        self.reason = reason
        self.says = says


# ---------------------------------------------------------------------- the engine's own safety

_engine_protected = False


def protect_engine() -> None:
    """Make this (engine) process non-dumpable, so a same-uid bot cannot read its memory via /proc.

    Idempotent; does nothing (after one warning) where ``prctl`` is missing.

    >>> protect_engine()
    """
    global _engine_protected
    if _engine_protected:
        return
    _engine_protected = True
    if not _LINUX:
        _warn_once("prctl", "cabo-kit: this platform has no prctl(PR_SET_DUMPABLE); the engine's memory is "
                            "protected only by running bots under another user. Use a Linux container for tournaments.")
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(4, 0, 0, 0, 0) != 0:  # PR_SET_DUMPABLE = 4
            raise OSError(ctypes.get_errno(), "prctl failed")
    except (OSError, AttributeError) as exc:
        _warn_once("prctl", f"cabo-kit: could not make the engine non-dumpable ({exc}); bots under the same user "
                            "may read its memory through /proc.")


def _check_platform() -> None:
    if not _POSIX:
        _warn_once("platform", "cabo-kit: on this platform bots run in a plain subprocess with no memory, CPU or "
                               "process limits and no separate user; fine for checking your own bot, not for a "
                               "tournament of untrusted files (use Linux, ideally a container).")
        return
    try:
        import resource  # noqa: F401
    except ImportError:
        _warn_once("resource", "cabo-kit: no 'resource' module here, so bots run without memory or CPU limits.")
    if os.geteuid() != 0:
        _warn_once("uid", "cabo-kit: the runner is not root, so bots run under your own user: they cannot read "
                          "the engine's memory (it is non-dumpable) but are isolated from each other and your "
                          "files less strongly than as root, where each bot gets its own unprivileged user. "
                          "For untrusted submissions run as root in a container.")


_PATHS: tuple[tuple[str, ...], list[str]] = ((), [])


def _import_paths() -> list[str]:
    """Where the harness finds cabo_kit and installed libraries (it runs with -I -S: no site, no env)."""
    global _PATHS
    key = tuple(sys.path)
    if _PATHS[0] == key and _PATHS[1]:  # worked out once per sys.path: resolve() costs file system calls
        return _PATHS[1]
    paths = [str(Path(__file__).resolve().parents[2])]
    for entry in sys.path:
        if entry and ("site-packages" in entry or "dist-packages" in entry) and entry not in paths:
            paths.append(entry)
    _PATHS = (key, paths)
    return paths


_live: dict[int, Any] = {}  # pid -> Popen or _Forked
_live_lock = threading.Lock()


def _kill(proc: Any, reap: bool = True) -> None:
    """SIGKILL the harness's whole process group (and the process itself), then reap it.

    ``reap=False`` (between games): a process from the harness server is left for the server
    to reap a moment later, which saves the millisecond or two its exit takes.
    """
    if proc.returncode is None:
        if _POSIX:
            try:
                os.killpg(proc.pid, 9)
            except OSError:
                pass
        try:
            proc.kill()
        except OSError:
            pass
        if reap or not (isinstance(proc, _Forked) and proc.release()):
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover - a SIGKILLed process always goes
                pass
    with _live_lock:
        _live.pop(proc.pid, None)


@atexit.register
def _kill_all() -> None:
    with _live_lock:
        procs = list(_live.values())
    for proc in procs:
        _kill(proc)
    global _the_server
    server, _the_server = _the_server, None
    if server is not None:
        server.close()


# ---------------------------------------------------------------------- the harness server

USE_SERVER = _LINUX and hasattr(__import__("socket"), "send_fds")
"""Start bot processes by forking them from a clean harness server (see ``harness._serve_forks``)
instead of a fresh interpreter each: about a millisecond instead of tens. Set it to ``False``
to start every bot process with ``subprocess`` (the server is also bypassed if it fails)."""

ENV = {"PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
       "MKL_NUM_THREADS": "1", "NUMEXPR_NUM_THREADS": "1", "LANG": "C.UTF-8"}


class _Forked:
    """A bot process forked by the harness server: the part of ``Popen``'s interface the engine uses.

    The server is its parent and reaps it; ``wait`` asks the server for its exit code
    (``subprocess``'s convention: minus the signal that killed it).
    """

    def __init__(self, server: "_Server", pid: int) -> None:
        self.server = server
        self.pid = pid
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self.returncode if self.returncode is not None else self._ask(0.0)

    def wait(self, timeout: float | None = None) -> int:
        code = self.returncode if self.returncode is not None else self._ask(3600.0 if timeout is None else timeout)
        if code is None:
            raise subprocess.TimeoutExpired(f"bot process {self.pid}", timeout or 0.0)
        return code

    def _ask(self, timeout: float) -> int | None:
        try:
            reply = self.server.call({"op": "wait", "pid": self.pid, "timeout": timeout}, timeout=timeout + 10.0)
        except OSError:
            # The server is gone, and with it (PDEATHSIG) this process: killed.
            self.returncode = -9
            return self.returncode
        if reply.get("unknown"):
            self.returncode = -9
        elif reply.get("code") is not None:
            self.returncode = int(reply["code"])
        return self.returncode

    def kill(self) -> None:
        if self.returncode is None:
            os.kill(self.pid, 9)

    def release(self) -> bool:
        """After the engine's last kill: the server kills the group again and reaps it later (no waiting here).

        The server is told with its next request (the next game's spawn, mostly: no round trip of its
        own). Its pid stays reserved (an unreaped zombie) until the server reaps it, so no kill of
        ours can reach a recycled pid. ``False`` if the server cannot take it (then ``wait``).
        """
        server = self.server
        with server.lock:
            if server.broken or server.owner != os.getpid():
                return False
            server.released.append(self.pid)
        self.returncode = -9
        return True


class _Server:
    """The engine's end of one harness server process (one per engine process, started on first use)."""

    def __init__(self) -> None:
        import socket

        self.owner = os.getpid()
        self.lock = threading.Lock()
        self.broken = False
        self.released: list[int] = []  # bot processes killed and released, to tell the server with the next request
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        cfg = {"paths": _import_paths(), "ppid": os.getpid()}
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-S", str(HARNESS), "zygote", "-", str(child.fileno()), "-", json.dumps(cfg)],
                pass_fds=(child.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True, env=dict(ENV), cwd="/", close_fds=True,
            )
        finally:
            child.close()
        self.sock = parent
        parent.settimeout(60.0)
        ready = parent.recv(1 << 16)
        if not ready.startswith(b'{"ready"'):
            self.close()
            raise OSError(f"the harness server did not start ({ready[:80]!r})")

    def call(self, msg: dict[str, Any], fds: Sequence[int] = (), timeout: float = 30.0) -> dict[str, Any]:
        import socket

        with self.lock:
            if self.broken:
                raise OSError("the harness server is out of order")
            if self.released:
                msg = dict(msg, release=self.released)
                self.released = []
            try:
                self.sock.settimeout(timeout)
                socket.send_fds(self.sock, [json.dumps(msg).encode()], list(fds))
                data = self.sock.recv(1 << 16)
                if not data:
                    raise OSError("the harness server closed its socket")
            except OSError:
                # A late reply would answer the next request: never use this server again.
                self.broken = True
                raise
        reply: dict[str, Any] = json.loads(data)
        return reply

    def spawn(self, mode: str, path: str, cfg: dict[str, Any], fds: Sequence[int], argv_cfg: str = "") -> _Forked | None:
        """Fork a bot process with these pipe and log fds; ``None`` if the server cannot (the caller falls back).

        ``argv_cfg``: ``cfg`` as JSON, the last argument a harness started on its own gets (its ``sys.argv``)."""
        try:
            reply = self.call({"op": "spawn", "mode": mode, "path": path, "cfg": cfg, "argv_cfg": argv_cfg}, fds)
        except OSError:
            return None
        if "pid" not in reply:
            return None
        return _Forked(self, int(reply["pid"]))

    def alive(self) -> bool:
        return not self.broken and self.proc.poll() is None

    def close(self) -> None:
        try:
            self.sock.close()  # end of file: the server kills its children and exits
        except OSError:
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            _kill(self.proc)


_the_server: _Server | None = None
_server_lock = threading.Lock()


def cpu_used() -> dict[str, float]:
    """CPU seconds (user + system) used so far by this (engine) process, its harness server, and the bot
    processes that have ended: what isolated games cost, for benchmarks (differences between two calls).

    ``bots`` counts each bot process over its whole life (start, play, exit) once it has ended: close
    the bots (``IsolatedBot.close``) before the second call. ``server`` is 0 when no server runs.

    >>> used = cpu_used()
    >>> sorted(used), used["engine"] > 0
    (['bots', 'engine', 'server'], True)
    """
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    # The engine's own children: harnesses started without the server (its own server is never reaped before it closes).
    used = {"engine": me.ru_utime + me.ru_stime, "server": 0.0, "bots": kids.ru_utime + kids.ru_stime}
    server = _the_server
    if server is not None and server.owner == os.getpid() and server.alive():
        try:
            reply = server.call({"op": "usage"})
        except OSError:
            return used
        used["server"] = float(reply.get("self", 0.0))
        used["bots"] += float(reply.get("children", 0.0))
    return used


def _server() -> _Server | None:
    """This process's harness server, started (or restarted, if it died) on demand; ``None`` if it cannot start."""
    global _the_server, USE_SERVER
    with _server_lock:
        server = _the_server
        if server is not None and (server.owner != os.getpid() or not server.alive()):
            if server.owner == os.getpid():
                server.close()
            server = _the_server = None
        if server is None:
            try:
                server = _the_server = _Server()
            except (OSError, ValueError, subprocess.SubprocessError) as exc:
                USE_SERVER = False
                _warn_once("server", f"cabo-kit: the harness server did not start ({exc}); each bot process "
                                     "starts a fresh interpreter instead (slower, equally isolated)")
                return None
        return server


def start_server() -> None:
    """Start this process's harness server now (where it is used), so that the first game does not pay for it
    (a game's timing then measures the game; a worker pays the start once)."""
    if USE_SERVER and _LINUX:
        _server()


# ---------------------------------------------------------------------- one harness process


def _cores() -> list[int] | None:
    """The cores this (engine) thread may run on, which its bot processes then share; ``None`` where unknown."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - macOS, Windows
        return None


class _Harness:
    """One running harness process and its two pipe ends (engine side)."""

    def __init__(self, mode: str, path: Path, limits: Limits, log: IO[bytes]) -> None:
        _check_platform()
        protect_engine()
        self.limits = limits
        self.log = log
        self.buf = b""
        self.next_id = 0
        root = _POSIX and os.geteuid() == 0
        cores = _cores()
        # Pinned to one core (a tournament's pool worker), the bot runs on this core: spinning only delays it.
        self.spin_under = _SPIN_UNDER if cores is None or len(cores) > 1 else 0.0
        self.spin = self.spin_under > 0  # whether _read spins before it sleeps (the last reply came quickly)
        cfg = {
            "cores": cores,
            "memory_mb": limits.memory_mb,
            "cpu_s": limits.cpu_s,
            "log_cap": limits.log_bytes,
            "drop": root,
            "uid_base": UID_BASE,
            "paths": _import_paths(),
            "ppid": os.getpid(),
        }
        env = dict(ENV)
        if not _POSIX:
            env["SYSTEMROOT"] = os.environ.get("SYSTEMROOT", "")
        cmd = [sys.executable, "-I", "-S", str(HARNESS), mode, str(path)]
        if _POSIX:
            c_read, p_write = os.pipe()   # engine -> harness
            p_read, c_write = os.pipe()   # harness -> engine
            cmd += [str(c_read), str(c_write), json.dumps(cfg)]
            try:
                server = _server() if USE_SERVER else None
                forked = None if server is None else server.spawn(mode, str(path), cfg, (c_read, c_write, log.fileno()),
                                                                  cmd[-1])
                self.proc: Any
                if forked is not None:
                    self.proc = forked
                else:
                    self.proc = subprocess.Popen(
                        cmd, pass_fds=(c_read, c_write), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                        start_new_session=True, env=env, cwd="/", close_fds=True,
                    )
            finally:
                os.close(c_read)
                os.close(c_write)
            self.rfd, self.wfd = p_read, p_write
            os.set_blocking(self.wfd, False)
            os.set_blocking(self.rfd, False)
            import select

            # Made once: one per decision costs a few microseconds.
            self._in_poll = select.poll()
            self._in_poll.register(self.rfd, select.POLLIN)
            self._out_poll = select.poll()
            self._out_poll.register(self.wfd, select.POLLOUT)
        else:  # pragma: no cover - exercised on Windows only
            cmd += ["stdio", "stdio", json.dumps(cfg)]
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=env)
            self.rfd = self.proc.stdout.fileno()
            self.wfd = self.proc.stdin.fileno()
        with _live_lock:
            _live[self.proc.pid] = self.proc
        self.closed = False

    # -- low level

    def send(self, data: bytes, deadline: float) -> None:
        try:
            n = os.write(self.wfd, data)
        except BlockingIOError:
            n = 0
        except (BrokenPipeError, ConnectionResetError):
            raise self.died() from None
        if n == len(data):  # the usual case: the pipe had room
            return
        view = memoryview(data)[n:]
        while view:
            try:
                n = os.write(self.wfd, view)
                view = view[n:]
            except BlockingIOError:
                self._wait(deadline, write=True)
            except (BrokenPipeError, ConnectionResetError):
                raise self.died() from None

    def _wait(self, deadline: float, write: bool = False) -> None:
        left = deadline - time.perf_counter()
        if left <= 0:
            raise _Timeout
        if _POSIX:
            poller = self._out_poll if write else self._in_poll
            if not poller.poll(left * 1000.0 + 0.5):
                if time.perf_counter() >= deadline:
                    raise _Timeout
        else:  # pragma: no cover - Windows: pipes cannot be polled; check periodically
            time.sleep(min(left, 0.001))

    def _read(self, deadline: float) -> bytes:
        """What the reply pipe holds (waiting for it until ``deadline``, else ``_Timeout``).

        The first try is a plain read: the reply is already there when the bot ran on this core as soon
        as the request was written (one system call). After that, readiness is asked with ``poll``: a
        failed non-blocking read raises, several times dearer. Pinned to one core, the engine polls at
        once (the bot mostly runs only once the engine waits).
        """
        rfd = self.rfd
        if self.spin_under:  # (on one core the bot has mostly not run yet: then poll at once)
            try:
                return os.read(rfd, MAX_MESSAGE + 1)
            except BlockingIOError:  # the bot is still at work (this costs nothing it would not wait anyway)
                pass
        poll = self._in_poll.poll
        now = time.perf_counter()
        if self.spin:
            # A short spin that yields the core to whoever wants it: a quick reply then neither waits for
            # this process to wake from poll nor pays for waking it.
            end = now + _SPIN_S
            if end > deadline:
                end = deadline
            while True:
                if poll(0):
                    try:
                        return os.read(rfd, MAX_MESSAGE + 1)
                    except BlockingIOError:  # pragma: no cover - poll said readable
                        pass
                if now >= end:
                    break
                _sched_yield()
                now = time.perf_counter()
        while True:
            left = deadline - now
            if left <= 0:
                raise _Timeout
            if poll(left * 1000.0 + 0.5):
                try:
                    return os.read(rfd, MAX_MESSAGE + 1)
                except BlockingIOError:  # pragma: no cover - poll said readable
                    pass
            now = time.perf_counter()

    def receive(self, deadline: float) -> dict[str, Any]:
        """The next reply line, parsed; raises BotFault (error/crash) or _Timeout."""
        buf = self.buf
        nl = buf.find(b"\n")
        while nl < 0:
            if len(buf) > MAX_MESSAGE:
                raise BotFault("error", f"the bot sent a message longer than {MAX_MESSAGE} bytes")
            if _POSIX:
                chunk = self._read(deadline)
            else:  # pragma: no cover
                chunk = _read_with_timeout(self.rfd, deadline)
            if not chunk:
                raise self.died()
            if buf:
                start = len(buf)
                buf += chunk
                nl = buf.find(b"\n", start)
            else:
                buf = chunk
                nl = buf.find(b"\n")
        if nl > MAX_MESSAGE:
            raise BotFault("error", f"the bot sent a message longer than {MAX_MESSAGE} bytes")
        if nl == len(buf) - 1:  # the usual case: exactly one reply read (JSON allows the trailing newline)
            line, self.buf = buf, b""
        else:
            line, self.buf = buf[:nl], buf[nl + 1:]
        try:
            msg = _decode(line)
        except (ValueError, UnicodeDecodeError, RecursionError):
            msg = _decode_strict(line)
        if not isinstance(msg, dict):
            raise BotFault("error", f"the bot sent a reply that is not a JSON object: {line[:120]!r}")
        return msg

    def died(self) -> BotFault:
        """The fault for a harness that closed its pipe: wait for it and say how it ended."""
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            _kill(self.proc)
            code = self.proc.returncode
        self.close()
        tail = _log_tail(self.log)
        return BotFault("crash", _exit_reason(code, self.limits) + (f"\nlast output:\n{tail}" if tail else ""))

    def close(self, reap: bool = True) -> None:
        if self.closed:
            return
        self.closed = True
        _kill(self.proc, reap)
        for fd in (self.rfd, self.wfd):
            if _POSIX:
                try:
                    os.close(fd)
                except OSError:
                    pass
        if not _POSIX:  # pragma: no cover
            for stream in (self.proc.stdin, self.proc.stdout):
                try:
                    stream.close()
                except OSError:
                    pass


class _Timeout(Exception):
    pass


def _decode_strict(line: bytes) -> Any:
    """What the fast decoder refused, through the stdlib (which also takes, e.g., lone surrogate escapes), or a fault."""
    try:
        return json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise BotFault("error", f"the bot sent something that is not a JSON reply: {line[:120]!r}") from None


def _read_with_timeout(fd: int, deadline: float) -> bytes:  # pragma: no cover - Windows only
    out: list[bytes] = []
    t = threading.Thread(target=lambda: out.append(os.read(fd, MAX_MESSAGE + 1)), daemon=True)
    t.start()
    t.join(max(0.0, deadline - time.perf_counter()))
    if not out:
        raise _Timeout
    return out[0]


def _raised(what: str, reply: dict[str, Any]) -> BotFault:
    """The fault of a reply saying the bot raised: ``WHAT: `` and SimpleBot's own sentence for its BotError (it names
    the learner's hook, answer and line, where the traceback shows only cabo_kit's frames), else ``WHAT raised:``
    and the traceback."""
    says = reply.get("says")
    if says is not None:
        return BotFault("error", f"{what}: {says}", str(says))
    return BotFault("error", f"{what} raised:\n{str(reply['err']).rstrip()}")


def _exit_reason(code: int | None, limits: Limits) -> str:
    import signal

    if code is None:
        return "the bot's process stopped answering and was killed"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        extra = {
            "SIGXCPU": f" (it used more than its {limits.cpu_s:g} s of CPU time)",
            "SIGKILL": " (killed: out of memory, or by someone else)",
            "SIGSEGV": " (a segmentation fault, e.g. runaway recursion in native code)",
        }.get(name, "")
        return f"the bot's process was killed by {name}{extra}"
    return f"the bot's process exited with code {code} (it ended itself, e.g. sys.exit or os._exit)"


def _log_tail(log: IO[bytes], n: int = 2000) -> str:
    try:
        log.flush()
        with open(log.name, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - n))
            return f.read().decode("utf-8", "replace").strip()
    except (OSError, AttributeError, TypeError):
        return ""


def _open_log(log_path: str | Path | None) -> tuple[IO[bytes], bool]:
    if log_path is None:
        return tempfile.NamedTemporaryFile(prefix="cabo-bot-", suffix=".log", delete=False), True
    path = Path(log_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return open(path, "ab"), False


# ---------------------------------------------------------------------- loading a file


def _file_version(path: Path) -> tuple[str, bytes]:
    data = path.read_bytes()
    return hashlib.sha256(data).hexdigest()[:12], data


def load_submission(path: str | Path, limits: Limits | None = None) -> Submission:
    """Check a bot file in a throw-away harness process and describe it; never imports it here.

    The file must define exactly one concrete subclass of :class:`cabo_kit.Bot` of its own
    (classes it imports do not count), and that class must build with no arguments.
    Raises :class:`SubmissionError` with the reason (the traceback when there is one) for a
    syntax error, a failing import, no Bot class or several, or a constructor that raises.

    >>> import tempfile, pathlib
    >>> bad = pathlib.Path(tempfile.mkdtemp()) / "typo.py"
    >>> _ = bad.write_text("class Oops(:\\n")
    >>> try:
    ...     load_submission(bad)
    ... except SubmissionError as exc:
    ...     print(exc.reason.splitlines()[0])
    syntax error in typo.py:
    """
    path = Path(path)
    limits = limits or Limits()
    if not path.is_file():
        raise SubmissionError(f"{path} is not a file", path)
    if path.suffix != ".py":
        raise SubmissionError(f"{path.name} is not a Python file (.py)", path)
    version, _ = _file_version(path)
    log, temp = _open_log(None)
    harness = _Harness("check", path.resolve(), limits, log)
    try:
        try:
            msg = harness.receive(time.perf_counter() + limits.start_s)
        except _Timeout:
            raise SubmissionError(
                f"loading {path.name} took longer than {limits.start_s:g} s (does it run a long computation "
                "at import or in its constructor?)", path) from None
        except BotFault as fault:
            raise SubmissionError(f"loading {path.name} failed: {fault.reason}", path) from None
    finally:
        harness.close()
        log.close()
        if temp:
            os.unlink(log.name)
    if "err" in msg:
        raise SubmissionError(_stage_reason(path.name, str(msg.get("stage", "")), str(msg["err"])), path)
    return Submission(name=path.stem, version=version, path=path.resolve(), class_name=str(msg["class"]))


def one_line_reason(reason: str, filename: str) -> str:
    """A rejection or fault reason in one line: its last line, with the line of the bot's own file it
    happened at (the last traceback frame in ``filename``, not one in cabo_kit or a library).

    Used wherever a tournament names why a file was rejected, as ``check-bot`` shows it.

    >>> tb = ('Traceback (most recent call last):\\n  File "/x/bots/mine.py", line 4, in <module>\\n'
    ...       '  File "/lib/cabo_kit/__init__.py", line 43, in __getattr__\\n'
    ...       "AttributeError: module 'cabo_kit' has no attribute 'SimpleBt'")
    >>> one_line_reason(tb, "mine.py")
    "line 4: AttributeError: module 'cabo_kit' has no attribute 'SimpleBt'"
    """
    text = reason.strip()
    if not text:
        return reason
    last = text.splitlines()[-1].strip()
    own = own_line(text, filename)
    if own and f"line {own}" not in last:
        return f"line {own}: {last}"
    return last


def own_line(reason: str, filename: str) -> str:
    """The line of the last traceback frame of ``reason`` in the file ``filename`` (the bot's own), ``""`` if none.

    >>> own_line('Traceback (most recent call last):\\n  File "/x/bots/mine.py", line 4, in choose\\nKeyError: 1', "mine.py")
    '4'
    """
    import re

    own = [line for file, line in re.findall(r'File "([^"]*)", line (\d+)', reason) if os.path.basename(file) == filename]
    return own[-1] if own and filename else ""


def _stage_reason(filename: str, stage: str, text: str) -> str:
    head = {
        "syntax": f"syntax error in {filename}:",
        "import": f"running {filename} failed (a failing import, or an error at module level):",
        "class": f"{filename} has",
        "init": f"{filename}:",
        "read": f"{filename}:",
        "setup": f"{filename}:",
    }.get(stage, f"{filename}:")
    return f"{head} {text}" if stage == "class" else f"{head}\n{text.rstrip()}"


# ---------------------------------------------------------------------- the proxy


class IsolatedBot(Bot):
    """A :class:`cabo_kit.Bot` whose decisions come from a submitted file running in its own process.

    A fresh harness process starts at :meth:`on_game_start` (or at the first call) and
    lives for one game. Set ``bot.random`` before ``on_game_start`` (as
    :func:`cabo_kit.play_game` does): the bot in the harness receives a generator in the
    same state, so it plays as it would in this process. Every call is given the smaller of
    ``limits.decision_s`` and what is left of ``limits.game_bank_s``. Any fault raises
    :class:`BotFault` and kills the process; every later call raises the same fault until
    the next :meth:`on_game_start`. :meth:`close` kills it too; it is idempotent.
    ``time_used`` is the wall time charged this game; ``decisions`` counts ``choose`` calls.
    ``cpu`` (a :class:`~cabo_kit.tournament.timing.CpuTally`, new each game) holds the CPU the bot's
    process says each call took in the bot's code: recorded, never enforced (capped at the call's wall time).
    """

    def __init__(self, submission: Submission, limits: Limits | None = None,
                 log_path: str | Path | None = None) -> None:
        super().__init__()
        self.submission = submission
        self.limits = limits or Limits()
        self.name = submission.name
        self.log_path = None if log_path is None else Path(log_path)
        self.fault: BotFault | None = None
        self.time_used = 0.0
        self.decisions = 0
        self.slowest = 0.0
        self.cpu = CpuTally()
        self._h: _Harness | None = None
        self._log: IO[bytes] | None = None
        self._temp_log = False
        self._enc = _ObsEncoder()
        self._pending: dict[int, str] = {}  # quiet hooks sent (or queued) and not yet met by a reply
        self._queued: list[bytes] = []  # quiet hooks' requests, written with the next ordinary request
        self._started = False
        self._resolved: tuple[Path, Path] | None = None  # the submission's path and its resolve()
        self._next: tuple[_Harness, float] | None = None  # a process started ahead (prestart) and its start time
        # [current, started ahead]: shared with the finalizer, which must not hold self
        self._box: list[_Harness | None] = [None, None]
        weakref.finalize(self, IsolatedBot._finalize, self._box)

    @staticmethod
    def _finalize(box: list[Any]) -> None:
        for harness in box:
            if harness is not None:
                harness.close()

    def __repr__(self) -> str:
        return f"IsolatedBot({self.submission.name!r}, {self.submission.path.name})"

    # -- process life

    def prestart(self) -> None:
        """End this game's process and start the next game's now, without waiting for it to load.

        The next :meth:`on_game_start` (or first call) then only waits for it to be ready. A
        runner that prestarts every seat lets the processes load side by side. Each game still
        gets a fresh process.
        """
        self._stop(reap=False)
        self._drop_next()
        if self._log is None:
            self._log, self._temp_log = _open_log(self.log_path)
        h = _Harness("play", self._path(), self.limits, self._log)
        self._next = (h, time.perf_counter())
        self._box[1] = h

    def _path(self) -> Path:
        path = Path(self.submission.path)
        if self._resolved is None or self._resolved[0] != path:
            self._resolved = (path, path.resolve())
        return self._resolved[1]

    def _drop_next(self) -> None:
        if self._next is not None:
            self._next[0].close()
            self._next = None
            self._box[1] = None

    def _start(self) -> _Harness:
        self._stop(reap=False)
        self.fault = None
        self.time_used = 0.0
        self.cpu = CpuTally()
        self._enc = _ObsEncoder()
        self._pending = {}
        self._queued = []
        if self._next is not None:
            h, launched = self._next
            self._next = None
            self._box[1] = None
        else:
            if self._log is None:
                self._log, self._temp_log = _open_log(self.log_path)
            h = _Harness("play", self._path(), self.limits, self._log)
            launched = time.perf_counter()
        self._h = h
        self._box[0] = h
        try:
            msg = h.receive(launched + self.limits.start_s)
        except _Timeout:
            self._fail(BotFault("timeout", f"the bot did not start within {self.limits.start_s:g} s"))
        except BotFault as fault:
            self._fail(fault)
        if "err" in msg:
            stage = str(msg.get("stage", ""))
            kind = "crash" if stage == "setup" else "error"
            self._fail(BotFault(kind, _stage_reason(self.submission.path.name, stage, str(msg["err"]))))
        if msg.get("sha256", "")[:12] != self.submission.version:
            self._fail(BotFault("error", f"{self.submission.path.name} changed after it was loaded "
                                         f"(version {self.submission.version}); load it again"))
        return h

    def _stop(self, reap: bool = True) -> None:
        if self._h is not None:
            self._h.close(reap)
            self._h = None
            self._box[0] = None

    def close(self) -> None:
        """Kill the harness's process group and release the log (removed if empty). Idempotent."""
        self._stop()
        self._drop_next()
        if self._log is not None:
            self._log.close()
            try:
                # A bot that printed nothing leaves no file (a class tournament would leave thousands).
                if self._temp_log or os.path.getsize(self._log.name) == 0:
                    os.unlink(self._log.name)
            except OSError:
                pass
            self._log = None

    def __enter__(self) -> "IsolatedBot":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _fail(self, fault: BotFault) -> NoReturn:
        self.fault = fault
        self._stop()
        raise fault

    # -- one request

    def _call(self, msg: dict[str, Any] | list[Any], what: str, quiet: bool = False) -> dict[str, Any]:
        """Send one request and wait for its reply.

        ``quiet`` (the mid-game hooks): return at once; the request goes out with the next ordinary
        call, ahead of it in the same write (the bot runs the hooks first, in order, and its process
        is woken once instead of once per hook). The harness answers a hook only if it raises, and
        that answer, or the hook's time, is met by that next call, which waits for the hooks before
        it (each hook adds ``decision_s`` to its limit; the time bank counts everything).
        """
        if self.fault is not None:
            raise self.fault
        h = self._h
        if h is None:
            h = self._start()
        rid = h.next_id = h.next_id + 1
        if isinstance(msg, list):  # an observation (its op says whether it is quiet)
            msg[0] = rid
        else:
            msg["i"] = rid
            if quiet:
                msg["q"] = 1
        limits = self.limits
        if quiet:
            self._pending[rid] = what
            self._queued.append(_encode(msg) + b"\n")
            return {}
        data = _encode(msg) + b"\n"
        if self._queued:  # the hooks first, in their order
            self._queued.append(data)
            data = b"".join(self._queued)
            self._queued = []
        pending = self._pending
        bank_left = limits.game_bank_s - self.time_used
        allowed = limits.decision_s * (1 + len(pending)) if pending else limits.decision_s
        budget = allowed if allowed < bank_left else bank_left
        t0 = time.perf_counter()
        deadline = t0 + budget
        try:
            h.send(data, deadline)
            while True:
                reply = h.receive(deadline)
                i = reply.get("i")
                if i == rid:
                    break
                if i in pending and "err" in reply:
                    what = pending[i]
                    break
                if not isinstance(i, int) or i > rid:
                    raise BotFault("error", f"the bot sent a reply out of turn: {str(reply)[:120]}")
        except _Timeout:
            elapsed = time.perf_counter() - t0
            self.time_used += elapsed
            ahead = [h for h in pending.values() if h != what]  # (settle() waits for the very hook it names)
            if ahead:
                what = f"{what} (with {', '.join(ahead)} before it)"
            if budget < allowed:
                reason = (f"{what} ran out of the game's time bank ({limits.game_bank_s:g} s in all; "
                          f"{bank_left:.3g} s were left)")
            else:
                reason = f"{what} took longer than the {limits.decision_s:g} s limit"
            self._fail(BotFault("timeout", reason))
        except BotFault as fault:
            if pending and fault.kind == "crash":  # it died in a hook sent ahead, or in this call: name both
                hooks = [h for h in pending.values() if h != what]
                fault = BotFault("crash", (f"{', '.join(hooks)} or the {what} after {'it' if len(hooks) == 1 else 'them'}"
                                           if hooks else what) + f": {fault.reason}")
            self._fail(fault)
        pending.clear()
        elapsed = time.perf_counter() - t0
        h.spin = elapsed < h.spin_under  # a quick answer: spin for the next one too
        self.time_used += elapsed
        if elapsed > self.slowest:
            self.slowest = elapsed
        if "err" in reply:
            self._fail(_raised(what, reply))
        t = reply.get("t")
        if t.__class__ is int:
            self._account(reply, t, elapsed, what == "choose()")
        return reply

    def _account(self, reply: dict[str, Any], t: int, elapsed: float, decision: bool) -> None:
        """Record the CPU the reply reports (``t`` the call's, ``h`` the quiet hooks' before it), capped at the
        call's wall time: the bot's process reports it, so it is never trusted beyond what it could be."""
        h = reply.get("h")
        hooks = h if h.__class__ is int and h > 0 else 0
        cap = int(elapsed * 1e9)
        t = min(max(t, 0), cap)
        hooks = min(hooks, cap - t)
        if hooks:
            self.cpu.other(hooks)
        if decision:
            self.cpu.decision(t)
        else:
            self.cpu.other(t)

    @staticmethod
    def _stray(h: _Harness, rid: int, reply: dict[str, Any], deadline: float) -> dict[str, Any]:
        """A reply that does not answer request ``rid`` (none is pending): skip an older one, fault on the rest."""
        while True:
            i = reply.get("i")
            if i == rid:
                return reply
            if not isinstance(i, int) or i > rid:
                raise BotFault("error", f"the bot sent a reply out of turn: {str(reply)[:120]}")
            reply = h.receive(deadline)

    # -- the Bot interface

    def choose(self, observation: Observation, legal_actions: Sequence[Action]) -> Action:
        """Ask the bot; return its action, checked against ``legal_actions`` (else ``BotFault("illegal")``)."""
        if self.fault is not None:
            raise self.fault
        body, texts = self._enc.encode(observation, legal_actions)
        h = self._h
        limits = self.limits
        if h is None or self._pending or limits.game_bank_s - self.time_used <= limits.decision_s:
            reply = self._call(body, "choose()")
        else:  # the usual case, _call's steps without what only hooks and a low time bank need
            rid = h.next_id = h.next_id + 1
            body[0] = rid
            data = _encode(body) + b"\n"
            t0 = _perf_counter()
            deadline = t0 + limits.decision_s
            try:
                h.send(data, deadline)
                reply = h.receive(deadline)
                if reply.get("i") != rid:
                    reply = self._stray(h, rid, reply, deadline)
            except _Timeout:
                self.time_used += _perf_counter() - t0
                self._fail(BotFault("timeout", f"choose() took longer than the {limits.decision_s:g} s limit"))
            except BotFault as fault:
                self._fail(fault)
            elapsed = _perf_counter() - t0
            h.spin = elapsed < h.spin_under
            self.time_used += elapsed
            if elapsed > self.slowest:
                self.slowest = elapsed
            if "err" in reply:
                self._fail(_raised("choose()", reply))
            t = reply.get("t")
            if t.__class__ is int:
                if 0 <= t <= elapsed * 1e9 and len(reply) == 3:  # the usual reply: i, a, t (no hooks' time)
                    self.cpu.decision(t)
                else:
                    self._account(reply, t, elapsed, True)
        self.decisions += 1
        text = reply.get("a")
        if text.__class__ is str:
            i = texts.index.get(text)
            if i is not None:  # the fast path: one of the ordinary actions, verbatim
                # (tuple's own indexing: LegalActions indexes in Python; the texts are of its tuple part)
                return _tuple_item(legal_actions, i) if isinstance(legal_actions, tuple) else legal_actions[i]
        elif "bad" in reply:
            self._fail(BotFault("illegal", str(reply["bad"])))
        else:
            self._fail(BotFault("error", f"the bot sent a reply without an action: {str(reply)[:120]}"))
        try:
            action = Action.parse(text)
        except ActionParseError as exc:
            self._fail(BotFault("illegal", not_an_action(text, exc)))
        if action not in legal_actions:
            self._fail(BotFault("illegal", not_legal(action, observation, legal_actions)))
        return action

    def on_game_start(self, seat: int, n_players: int, rules: Any) -> None:
        self.fault = None
        self._start()
        self._started = True
        version, internal, gauss = self.random.getstate()
        self._enc.seat_sent = True
        self._call({"o": "s", "seat": seat, "n": n_players, "rules": rules.to_dict(),
                    "rnd": [version, list(internal), gauss]}, "on_game_start()")

    def on_round_start(self, observation: Observation) -> None:
        if self.fault is not None:
            raise self.fault
        self._call(self._enc.encode(observation, observation.legal_actions, "r")[0], "on_round_start()", quiet=True)

    def on_round_end(self, result: Any) -> None:
        if self.fault is not None:
            raise self.fault
        self._call({"o": "e", "b": result.to_dict()}, "on_round_end()", quiet=True)

    def on_game_end(self, totals: list[int], winners: list[int]) -> None:
        self._call({"o": "g", "totals": list(totals), "winners": list(winners)}, "on_game_end()")

    def settle(self) -> None:
        """Wait until the last mid-game hook has run in the bot's process, and raise its fault named after it.

        The hooks otherwise ride ahead of the next ``choose()`` (one wake-up instead of two), so a
        process that dies there cannot say which call it died in; a replay of a fault
        (:func:`~cabo_kit.tournament.replay_fault.repro`) calls this after each hook to name it.
        """
        if self.fault is not None:
            raise self.fault
        if self._pending:
            self._call({"o": "p"}, list(self._pending.values())[-1])

    def _echo(self) -> dict[str, Any] | None:
        """The last observation as the bot's process rebuilt it (``to_dict()``), for tests."""
        return self._call({"o": "x"}, "echo").get("obs")

    @property
    def log_text(self) -> str:
        """What the bot printed (up to the log cap)."""
        if self._log is None:
            return ""
        self._log.flush()
        try:
            return Path(self._log.name).read_text("utf-8", "replace")
        except OSError:
            return ""


class _Memo(dict):  # type: ignore[type-arg, unused-ignore]
    """A dict that fills itself: ``memo[key]`` computes ``make(key)`` once; ``map(memo.__getitem__, keys)``
    then runs at C speed for the keys already seen."""

    def __init__(self, make: Any, cap: int) -> None:
        super().__init__()
        self.make = make
        self.cap = cap

    def __missing__(self, key: Any) -> Any:
        if len(self) >= self.cap:
            self.clear()
        value = self[key] = self.make(key)
        return value


# By value (tuples of interned cards, of bools): a seat's new hand or flags often repeat ones seen before.
_HAND_TEXT = _Memo(lambda hand: " ".join(map(_card_text, hand)), 100_000)
_UP_TEXT = _Memo(lambda up: "".join(["1" if x else "0" for x in up]), 100_000)


def _delta(new: tuple[Any, ...], prev: tuple[Any, ...] | None, text: Any) -> Any:
    """What the bot needs of ``new`` (per-seat tuples) when it holds ``prev``: ``None`` (the same tuple),
    ``{seat: text}`` for the seats whose tuple is new (found by identity, never by hashing), or every
    seat's text when the table size differs."""
    if new is prev:
        return None
    if prev is not None and len(prev) == len(new):
        changed: dict[int, str] = {}
        i = 0
        for x in new:
            if x is not prev[i]:
                changed[i] = text[x]
            i += 1
        return changed or None
    return list(map(text.__getitem__, new))


class _ObsEncoder:
    """The engine side of the harness's compact observation format (see ``harness.ObsDecoder``)."""

    def __init__(self) -> None:
        self.seat_sent = False
        self.memory: str | None = None
        self.discard: tuple[Any, ...] = ()
        self.events: Any = None  # the events last sent (an EventLog, or a tuple)
        self.scores: Any = None
        self.round_scores: Any = None
        self.hands: Any = None
        self.face_up: Any = None
        # id(_Texts) -> (the entry, its number): a set of legal actions is sent in full once per game
        self.numbers: dict[int, tuple[_Texts, int]] = {}

    def encode(self, obs: Observation, legal: Sequence[Action], op: str = "c") -> tuple[list[Any], "_Texts"]:
        """One observation as the harness's request list (``[id, op, ...]``, the id filled in when sent: a list
        encodes and parses faster than an object), and the texts of its legal actions."""
        if obs.scores is self.scores and obs.round_scores is self.round_scores and obs.memory is self.memory:
            extra = None
        else:
            extra = self._extra(obs)
        # The engine hands out the same tuples until something changes (null: as before), and keeps a
        # seat's tuple for a hand until that hand changes: only the new ones are sent, as {seat: text}
        # (hashing a hand reads every card in it, which costs more than anything else here once the
        # caches went cold, and so does rebuilding it in the bot).
        hands = obs.hands
        hand_texts = _delta(hands, self.hands, _HAND_TEXT)
        self.hands = hands
        face_up = obs.face_up
        up_texts = _delta(face_up, self.face_up, _UP_TEXT)
        self.face_up = face_up
        # Discard pile and events grow by appending; send only what is new.
        discard = obs.discard
        prev = self.discard
        if discard is prev:
            dk = len(discard)
            new_cards = ""
        else:
            dk = len(prev)
            if len(discard) < dk:  # cards taken from the top: keep what is left, if it is what lay beneath
                dk = len(discard)
                if discard != prev[:dk]:
                    dk = 0
            elif dk and discard[:dk] != prev:
                dk = 0
            self.discard = discard
            new_cards = " ".join(map(_card_text, discard[dk:]))
        events, earlier = obs.events, self.events
        new_events = None
        if isinstance(events, EventLog) and isinstance(earlier, EventLog):
            new_events = events.since(earlier)  # the cost of the new events only
        if new_events is not None:
            ek = len(earlier)
        else:  # a new round, or events not read from the engine's chains: compare
            ek = len(earlier) if earlier is not None else 0
            if ek and (len(events) < ek or tuple(events[:ek]) != tuple(earlier[:ek])):
                ek = 0
            new_events = tuple(events[ek:])
        self.events = events
        texts = _LEGAL_TEXTS.get(id(legal))
        if texts is None or texts.legal is not legal:
            texts = _legal_texts(legal)
        entry = self.numbers.get(id(texts))
        legal_wire: Any = entry[1] if entry is not None and entry[0] is texts else self._define(texts)
        # The moment (the drawn card as its text, by the codec's hook), then what changed on the table.
        return [
            0, op, moment_of(obs), hand_texts, up_texts, dk, new_cards, ek, new_events, legal_wire, extra,
        ], texts

    def _extra(self, obs: Observation) -> dict[str, Any] | None:
        """What is sent only when it changes: the seat and rules (once), memory, scores, round scores."""
        extra: dict[str, Any] = {}
        if not self.seat_sent:
            self.seat_sent = True
            extra.update(seat=obs.seat, np=obs.n_players, rules=obs.rules.to_dict())
        if obs.memory != self.memory:
            extra["me"] = obs.memory
        self.memory = obs.memory
        if obs.scores is not self.scores:
            self.scores = extra["sc"] = obs.scores
        if obs.round_scores is not self.round_scores:
            self.round_scores = extra["rs"] = obs.round_scores
        return extra or None

    def _define(self, texts: "_Texts") -> list[Any]:
        """A legal tuple's texts not sent yet this game: ``[number, texts, hand_size]``; its number after that."""
        if len(self.numbers) >= 4096:  # numbers restart; the harness overwrites what it held
            self.numbers.clear()
        number = len(self.numbers)
        self.numbers[id(texts)] = (texts, number)
        return [number, texts.wire, texts.hand_size]


class _Texts:
    """The text forms of one tuple of legal actions: ``texts``, ``wire`` (what the harness gets: the texts
    joined by ``|``), ``index`` (text -> position) and ``hand_size`` (of a :class:`LegalActions`, else ``None``)."""

    __slots__ = ("legal", "texts", "wire", "index", "hand_size")

    def __init__(self, legal: Sequence[Action]) -> None:
        self.legal = legal  # held, so that its id is not reused while this entry lives
        if isinstance(legal, LegalActions):
            fixed: Sequence[Action] = tuple(tuple.__iter__(legal))
            self.hand_size: int | None = legal.hand_size
        else:
            fixed, self.hand_size = legal, None
        texts = self.texts = [_action_text(a) for a in fixed]
        wire: str | list[str] = "|".join(texts)
        if "|" in "".join(texts):  # never for the engine's actions; a list keeps it exact
            wire = texts
        self.wire = wire
        index: dict[str, int] = {}
        for i, t in enumerate(texts):
            index.setdefault(t, i)
        self.index = index


# The engine hands out the same tuple objects for common phases, and the same action objects:
# their texts are cached by id (each entry holds its object, so the id cannot be reused meanwhile).
_LEGAL_TEXTS: dict[int, _Texts] = {}
_ACTION_TEXTS: dict[int, tuple[Action, str]] = {}


_LEGAL_BY_IDS: dict[tuple[int, ...], _Texts] = {}  # by the ids of its actions: snap windows build a new tuple each time


def _legal_texts(legal: Sequence[Action]) -> _Texts:
    entry = _LEGAL_TEXTS.get(id(legal))
    if entry is not None and entry.legal is legal:
        return entry
    if len(_LEGAL_TEXTS) > 4096:
        _LEGAL_TEXTS.clear()
    if legal.__class__ is tuple:
        ids = tuple(map(id, legal))
        entry = _LEGAL_BY_IDS.get(ids)
        # The entry holds its actions, so their ids are theirs; == is then an identity check at C speed.
        if entry is None or entry.legal != legal:
            if len(_LEGAL_BY_IDS) > 4096:
                _LEGAL_BY_IDS.clear()
            entry = _LEGAL_BY_IDS[ids] = _Texts(legal)
    else:
        entry = _Texts(legal)
    if entry.legal is legal:
        _LEGAL_TEXTS[id(legal)] = entry
    return entry


def _action_text(action: Action) -> str:
    entry = _ACTION_TEXTS.get(id(action))
    if entry is not None and entry[0] is action:
        return entry[1]
    if len(_ACTION_TEXTS) > 65536:
        _ACTION_TEXTS.clear()
    text = str(action)
    _ACTION_TEXTS[id(action)] = (action, text)
    return text
