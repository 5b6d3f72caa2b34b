"""One process at a time in a tournament folder, and plain words when a file in it cannot be written.

A run holds its folder while it plays and writes (a portal server will hold it while it serves
it). The holder writes who it is into ``DIR/.cabo-kit.lock``: its pid, host, command, a
description and when it started, so a second run is refused with a message that names it.
The lock is ``fcntl.flock``, which the system releases when the holder ends, even on
``kill -9``: a lock file left behind is never in the way. On Windows it is ``msvcrt.locking``;
where neither exists the run goes on and :attr:`FolderLock.note` warns. A process may take a
folder it already holds again (the holds nest), so a server can run its folder's tournament
itself; any other process is refused. Readers (``tournament report``) do not take the lock:
SQLite's WAL journal lets them read while a run writes.

>>> import tempfile
>>> folder = tempfile.mkdtemp()
>>> with FolderLock(folder, "a tournament run", command="cabo-kit tournament run my-class"):
...     holder(folder).command
'cabo-kit tournament run my-class'
>>> holder(folder) is None
True
"""

from __future__ import annotations

import json
import os
import shlex
import socket
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]
try:
    import msvcrt
except ImportError:  # POSIX
    msvcrt = None  # type: ignore[assignment]

__all__ = ["FolderLock", "FolderError", "FolderBusy", "Holder", "holder", "check_free", "cannot_write", "LOCK_NAME",
           "held_fd", "adopt"]

LOCK_NAME = ".cabo-kit.lock"
_WIN_OFFSET = 1 << 30  # msvcrt locks a byte far past the text, so the holder's details stay readable


class FolderError(RuntimeError):
    """The tournament folder cannot be used now: another process holds it, or a file in it cannot be written."""


class FolderBusy(FolderError):
    """Another process holds the folder; :attr:`holder` says who (``None`` if it has not said yet)."""

    def __init__(self, message: str, holder: "Holder | None") -> None:
        super().__init__(message)
        self.holder = holder


@dataclass(frozen=True)
class Holder:
    """Who holds a folder: what its lock file says."""

    pid: int
    host: str
    command: str
    description: str
    started: float  # seconds since the epoch

    def describe(self) -> str:
        """``a tournament run: pid 1234, `cabo-kit tournament run my-class`, started 20:31``."""
        when = time.localtime(self.started)
        clock = time.strftime("%H:%M" if when[:3] == time.localtime()[:3] else "%Y-%m-%d %H:%M", when)
        where = "" if self.host == socket.gethostname() else f" on {self.host}"
        return f"{self.description}: pid {self.pid}{where}, `{self.command}`, started {clock}"


def _default_command() -> str:
    argv = [os.path.basename(sys.argv[0] or "python"), *sys.argv[1:]] if sys.argv else ["python"]
    text = shlex.join(argv)
    return text if len(text) <= 120 else text[:117] + "..."


def _read_holder(fd: int) -> Holder | None:
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        data = json.loads(os.read(fd, 4096).decode("utf-8") or "null")
        return None if data is None else Holder(int(data["pid"]), str(data["host"]), str(data["command"]),
                                                str(data["description"]), float(data["started"]))
    except (ValueError, KeyError, TypeError, OSError):
        return None


def _can_lock() -> bool:
    """Whether this system has a file-locking call (``fcntl`` or ``msvcrt``)."""
    return fcntl is not None or msvcrt is not None


def _try_lock(fd: int, shared: bool = False) -> bool:
    """Take the lock without waiting; ``False`` if another holds it (call only where :func:`_can_lock`)."""
    if fcntl is not None:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except (BlockingIOError, PermissionError):
            return False
        return True
    if msvcrt is not None:
        os.lseek(fd, _WIN_OFFSET, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    raise AssertionError("no locking call: check _can_lock() first")


def _unlock(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
    elif msvcrt is not None:
        os.lseek(fd, _WIN_OFFSET, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)


def holder(folder: str | os.PathLike[str]) -> Holder | None:
    """Who holds ``folder`` now, or ``None`` when nobody does (or locking is not available here).

    A holder that has just taken the lock and not yet written its details is waited for briefly;
    it then shows as pid 0 with the description ``another process``.
    """
    with _held_guard:
        mine = _held.get(os.path.realpath(folder))
    if mine is not None:
        return mine[2]
    path = Path(folder) / LOCK_NAME
    if not _can_lock():
        return None
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        if _try_lock(fd, shared=True):
            _unlock(fd)
            return None
        return _wait_for_details(fd) or Holder(0, socket.gethostname(), "?", "another process", time.time())
    finally:
        os.close(fd)


def _wait_for_details(fd: int) -> Holder | None:
    """The holder's details; a holder may have taken the lock and not yet written them: wait up to half a second."""
    for _ in range(10):
        found = _read_holder(fd)
        if found is not None:
            return found
        time.sleep(0.05)
    return None


def _busy(folder: Path, found: Holder | None) -> FolderBusy:
    who = found.describe() if found and found.pid else "another process (it has not said which)"
    here = found is not None and found.pid and found.host == socket.gethostname()
    stop = f"stop it (kill {found.pid})" if here and found else "stop it"
    return FolderBusy(f"{folder} is in use by {who}; wait for it to end or {stop}, then try again", found)


def check_free(folder: str | os.PathLike[str]) -> None:
    """Raise :class:`FolderBusy`, naming the holder, when another process holds ``folder`` (nothing is taken)."""
    found = holder(folder)
    if found is not None and os.path.realpath(folder) not in _held:
        raise _busy(Path(folder), found)


_held: dict[str, list[Any]] = {}  # real path -> [fd, depth, Holder, adopted]: this process's holds
_held_guard = threading.Lock()


def held_fd(folder: str | os.PathLike[str]) -> int | None:
    """The file descriptor of this process's hold of ``folder`` (to hand to a child: :func:`adopt`), or ``None``.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> with FolderLock(folder, "the portal server at http://127.0.0.1:8765"):
    ...     held_fd(folder) is not None
    True
    >>> held_fd(folder) is None
    True
    """
    with _held_guard:
        mine = _held.get(os.path.realpath(folder))
    return None if mine is None else int(mine[0])


def adopt(folder: str | os.PathLike[str], fd: int) -> Holder:
    """Hold ``folder`` in this process through ``fd``, a descriptor of the parent's hold (:func:`held_fd`) it passed down.

    The lock is the parent's: it stays held while either process lives, other processes are still
    refused naming the parent (its details stay in the file), and this process's
    :class:`FolderLock` holds nest in it, so a tournament runs here under the parent's hold (the
    portal server's games). It is never released here: the descriptor closes when this process
    ends. Raises :class:`FolderError` when ``fd`` is not a held lock of ``folder``.

    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> with FolderLock(folder), open(os.path.join(folder, "x"), "w") as other:
    ...     adopt(folder, other.fileno())
    Traceback (most recent call last):
    ...
    cabo_kit.tournament.lock.FolderError: descriptor ... is not a held lock of ...
    """
    key = os.path.realpath(folder)
    try:
        ours = os.fstat(fd)
        theirs = os.stat(Path(folder) / LOCK_NAME)
    except OSError as exc:
        raise FolderError(f"descriptor {fd} is not the lock of {folder} ({exc.strerror})") from None
    if (ours.st_dev, ours.st_ino) != (theirs.st_dev, theirs.st_ino) or not _can_lock() or not _try_lock(fd):
        raise FolderError(f"descriptor {fd} is not a held lock of {folder}")
    found = _read_holder(fd) or Holder(os.getppid(), socket.gethostname(), "?", "the parent process", time.time())
    with _held_guard:
        if key in _held:
            raise FolderError(f"{folder} is held by this process already")
        _held[key] = [fd, 1, found, True]
    return found


class FolderLock:
    """Hold a tournament folder for this process: ``with FolderLock(folder, "a tournament run"): ...``.

    ``description`` says who the holder is in another process's refusal ("a tournament run",
    "the portal server at http://host:8866"); ``command`` is the command line to show (default:
    this process's). :meth:`acquire` raises :class:`FolderBusy` naming the holder when another
    process holds the folder, and :class:`FolderError` when the lock file cannot be made (a
    read-only folder). :attr:`note` is a warning to show when this system cannot lock at all.
    """

    def __init__(self, folder: str | os.PathLike[str], description: str = "a tournament run",
                 command: str | None = None) -> None:
        self.folder = Path(folder)
        self.description = description
        self.command = command or _default_command()
        self.note = ""
        self._key = ""

    def acquire(self) -> "FolderLock":
        key = os.path.realpath(self.folder)
        with _held_guard:
            mine = _held.get(key)
            if mine is not None:
                mine[1] += 1
                self._key = key
                return self
            if not _can_lock():
                self.note = (f"warning: this system cannot lock folders, so nothing stops a second run on {self.folder} "
                             "at the same time: make sure only one runs")
                return self
            path = self.folder / LOCK_NAME
            try:
                fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
                writable = True
            except OSError as exc:
                try:  # someone else's lock file in a folder shared by several accounts: lock it all the same
                    fd, writable = os.open(path, os.O_RDONLY), False
                except OSError:
                    raise FolderError(cannot_write(exc.strerror or str(exc), self.folder)) from None
            locked, found = _try_lock(fd), None
            for _ in range(10):  # no details yet: a holder() probe's brief shared lock, or a holder starting or ending
                if locked or (found := _read_holder(fd)) is not None:
                    break
                time.sleep(0.05)
                locked = _try_lock(fd)
            if not locked:
                os.close(fd)
                raise _busy(self.folder, found)
            me = Holder(os.getpid(), socket.gethostname(), self.command, self.description, time.time())
            if writable:
                text = json.dumps({"pid": me.pid, "host": me.host, "command": me.command,
                                   "description": me.description, "started": me.started}).encode()
                os.ftruncate(fd, 0)
                os.lseek(fd, 0, os.SEEK_SET)
                os.write(fd, text)
            _held[key] = [fd, 1, me, False]
            self._key = key
        return self

    def release(self) -> None:
        if not self._key:
            return
        with _held_guard:
            key, self._key = self._key, ""
            mine = _held.get(key)
            if mine is None:
                return
            mine[1] -= 1
            if mine[1] > 0 or mine[3]:  # an adopted hold is the parent's: kept until this process ends
                mine[1] = max(mine[1], 1)
                return
            del _held[key]
            fd = mine[0]
            try:
                os.ftruncate(fd, 0)  # the file stays: removing it could let two runs lock two different files
            except OSError:
                pass
            _unlock(fd)
            os.close(fd)

    def __enter__(self) -> "FolderLock":
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _writable(path: Path) -> bool:
    return os.access(path, os.W_OK)


def _read_only_disk(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (AttributeError, OSError):  # no statvfs on Windows
        return False


def _owner(path: Path) -> str:
    """The name of ``path``'s owner when it is not this user, else ``""``."""
    try:
        import pwd

        uid = path.stat().st_uid
        return "" if uid == os.getuid() else pwd.getpwuid(uid).pw_name
    except (ImportError, KeyError, OSError, AttributeError):
        return ""


def cannot_write(reason: str, *paths: str | os.PathLike[str]) -> str:
    """A sentence naming which of ``paths`` (existing files or folders) cannot be written, and the fix.

    The first path stands for the rest when none of them looks read-only to this user (root, or
    a permission that ``os.access`` cannot see): the sentence then says what to check.

    >>> import tempfile
    >>> print(cannot_write("Permission denied", os.path.join(tempfile.mkdtemp(), "x.csv")))   # doctest: +ELLIPSIS
    /...x.csv cannot be written (Permission denied): check that you may write it and its folder (ls -ld ...)
    """
    target = Path(paths[0])
    folder = target if target.is_dir() else target.parent
    q = shlex.quote
    if _read_only_disk(folder):
        return (f"{folder} is on a read-only disk ({reason}): copy the folder to a disk you may write "
                f"(cp -r {q(str(folder))} ~/) and run the copy")
    bad = [Path(p) for p in paths if Path(p).exists() and not _writable(Path(p))]
    if not bad:
        return (f"{target} cannot be written ({reason}): check that you may write it and its folder "
                f"(ls -ld {q(str(folder))} {q(str(target))})")
    named = ", ".join(f"{'the folder' if p.is_dir() else 'the file'} {p}" for p in bad)
    owners = sorted({o for o in map(_owner, bad) if o})
    if owners:
        fix = (f"{'it belongs' if len(bad) == 1 else 'they belong'} to {' and '.join(owners)}: run as {owners[0]}, "
               f"or copy the folder to one of yours (cp -r {q(str(folder))} ~/) and run the copy")
    else:
        fix = f"make {'it' if len(bad) == 1 else 'them'} writable (chmod u+w {' '.join(q(str(p)) for p in bad)}) and run again"
    return f"{named} {'is' if len(bad) == 1 else 'are'} not writable ({reason}): {fix}"
