"""``cabo-kit serve DIR --roster roster.csv``: the portal's web server, its check worker and its games.

It holds the tournament folder while it serves (``cabo-kit tournament run`` on it is refused and
names the server), ends the processes a killed server of the folder left, brings the portal's
state up to date with the roster (new students get a sign-in link in ``DIR/portal-links.csv``),
checks what a stopped server left unchecked, plays the tournament of the current files in the
background (:class:`~cabo_kit.portal.games.GamesWorker`, ``--workers``), and serves with uvicorn
until Ctrl+C or SIGTERM (uvicorn stops gracefully; running checks and games are killed with what
they started: checks are done again at the next start, and the games go on from the stored
ones). Its logs go through :class:`~cabo_kit.portal.logs.Redact`, the access log included.

``cabo-kit serve DIR --reissue ID`` replaces one person's link (the teacher's is ``_teacher``)
and ends their sessions; it works while the server runs.

This module imports only the standard library; uvicorn and Starlette are imported when serving.
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import shlex
import signal
import sys
from pathlib import Path
from typing import Any

from .links import LINKS_NAME, write_links
from .state import TEACHER, Upload
from .uploads import DEFAULT_MAX_BYTES, size_text

__all__ = ["add_arguments", "run", "bots_get_own_uid", "parse_size", "ServeError", "PORTAL_EXTRA_HINT", "DEMO_CLASS", "demo_upload", "default_check_workers",
           "secret_seed"]

PORTAL_EXTRA_HINT = "install the portal extra: pip install 'cabo-kit[portal]'"


class ServeError(Exception):
    """A problem with the command or the folder: the message names it and the fix (exit status 2)."""


def parse_size(text: str) -> int:
    """A size in bytes from ``1048576``, ``512KiB``, ``2MiB`` (or ``K``, ``M``, ``KB``, ``MB``: powers of 1024).

    >>> parse_size("2MiB"), parse_size("512k"), parse_size("1000")
    (2097152, 524288, 1000)
    """
    found = re.fullmatch(r"\s*(\d+)\s*([kKmM]?)(?:i?[bB])?\s*", text)
    if not found or int(found.group(1)) == 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size: write e.g. 1MiB, 512KiB or a number of bytes")
    return int(found.group(1)) * {"": 1, "k": 1024, "m": 1 << 20}[found.group(2).lower()]


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds (0 or more)")
    return value


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 1 or more")
    return int(text)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of ``cabo-kit serve``."""
    p.add_argument("folder", metavar="DIR", nargs="?", help="the class's tournament folder (tournament.toml, bots/)")
    p.add_argument("--roster", metavar="CSV", help="the class roster: one student a line as id,name")
    p.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="the port to listen on (default 8765)")
    p.add_argument("--root-path", default="", metavar="PREFIX",
                   help="the path the portal is served under behind a proxy, e.g. /portal")
    p.add_argument("--base-url", metavar="URL",
                   help="the address students open, for their links (default http://HOST:PORT/PREFIX)")
    p.add_argument("--reissue", metavar="ID",
                   help="replace the sign-in link of one student (the teacher: _teacher), end their sessions, and exit")
    p.add_argument("--max-upload", type=parse_size, default=DEFAULT_MAX_BYTES, metavar="SIZE",
                   help=f"the largest bot file accepted (default {size_text(DEFAULT_MAX_BYTES)})")
    p.add_argument("--upload-interval", type=_seconds, default=30.0, metavar="SECONDS",
                   help="at most one upload per student per this many seconds (default 30)")
    p.add_argument("--check-games", type=_count, default=9, metavar="N", help="games of the check of an upload (default 9)")
    p.add_argument("--check-workers", type=_count, metavar="N",
                   help="uploads given their check's first verdict at once (default: the usable cores); the rest of "
                        "each check (the time it adds to the class) runs on as many more, niced as the games")
    p.add_argument("--workers", type=_count, metavar="N",
                   help="game workers of the tournament played in the background, niced below the pages and the "
                        "checks; no run starts while uploads wait for their first verdict (default: the usable cores "
                        "less one, and one more, the checks' core, while no upload waits for its check or the rest of "
                        "it; an explicit N is N workers, never more)")
    p.add_argument("--demo", action="store_true",
                   help="try the portal on a throwaway class of five example students (removed when it stops); "
                        "prints the teacher's link and a student's")
    p.add_argument("--same-user-bots", action="store_true",
                   help="serve even though bots cannot get a user id of their own (not root): hostile files can "
                        "then read and damage the class's data")


def default_check_workers() -> int:
    """The cores this process may use, at least 1: a wave of uploads holds the games (see
    :class:`~cabo_kit.portal.games.GamesWorker`), so its first verdicts get every core; pages run above them."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, cores)


def bots_get_own_uid() -> bool:
    """Whether isolated bots run under user ids of their own here: on POSIX as root (see tournament/isolation.py)."""
    return os.name == "posix" and os.geteuid() == 0


def _base_url(args: argparse.Namespace, saved: str | None = None) -> str:
    if args.base_url:
        return str(args.base_url).rstrip("/")
    if saved:
        return saved
    host = f"[{args.host}]" if ":" in args.host else args.host
    return f"http://{host}:{args.port}{args.root_path.rstrip('/')}"


def _reissue(args: argparse.Namespace, say: Any) -> int:
    from .state import PortalState

    if not (Path(args.folder) / "portal" / "portal.sqlite").exists():
        raise ServeError(f"{args.folder} has no portal yet: start it first with cabo-kit serve {shlex.quote(args.folder)} --roster ROSTER.csv")
    state = PortalState(args.folder)
    try:
        person = state.person(args.reissue)
        if person is None:
            ids = [p.id for p in state.people()]
            raise ServeError(f"{args.reissue!r} is not on the roster of {args.folder} (ids: {', '.join(ids[:8])}"
                             f"{', ...' if len(ids) > 8 else ''})")
        token = state.reissue(person.id)
        path = write_links(args.folder, {person.id: token}, {person.id: person.name},
                           _base_url(args, state.setting("base_url")))
    finally:
        state.close()
    say(f"a new sign-in link for {person.id} is in {path}; the old one no longer works and {person.id}'s sessions have ended")
    return 0


def _acquire(lock: Any, folder: Path, say: Any) -> None:
    """Take the folder; when a killed server's processes still hold it (its games), end them first.

    The holder named in the lock file is a server of this folder that is gone (a ``kill -9``): the
    process groups it recorded are ended (:func:`~cabo_kit.portal.games.reap_leftovers`, only those
    verifiably started for this folder) and the lock is taken again. Any other holder is refused.
    """
    import socket

    from ..tournament.lock import FolderBusy

    try:
        lock.acquire()
        return
    except FolderBusy as busy:
        found = busy.holder
        gone = (found is not None and found.pid > 0 and found.host == socket.gethostname()
                and found.description.startswith("the portal server") and not _alive(found.pid))
        if not gone or not (folder / "portal" / "portal.sqlite").exists():
            raise
    from .games import reap_leftovers
    from .state import PortalState

    state = PortalState(folder)
    try:
        ended = reap_leftovers(state)
    finally:
        state.close()
    if ended:
        say(f"ended {len(ended)} process group{'s' if len(ended) != 1 else ''} a killed server left running")
    lock.acquire()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (a killed server its parent has not reaped yet) is gone too
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _log_config() -> dict[str, Any]:
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["redact"] = {"()": "cabo_kit.portal.logs.Redact"}
    for handler in config.get("handlers", {}).values():
        handler.setdefault("filters", []).append("redact")
    return config


def _on_signals(server: Any) -> dict[int, Any]:
    """Ctrl+C, SIGTERM and SIGHUP stop ``server`` gracefully, also while it starts; the handlers replaced.

    uvicorn handles SIGINT and SIGTERM while it runs and raises the signal again once it has
    stopped: this handler then only notes it, so the check worker is stopped and the folder
    released before the command returns (never an orphaned check), and SIGHUP (a closed
    terminal) stops the server the same way. A signal ignored at the start (``nohup``) stays ignored.
    """
    import threading

    def stop(signum: int, _frame: Any) -> None:
        server.should_exit = True

    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for name in ("SIGINT", "SIGTERM", "SIGHUP"):
            signum = getattr(signal, name, None)
            if signum is not None and signal.getsignal(signum) is not signal.SIG_IGN:
                previous[signum] = signal.signal(signum, stop)
    return previous


DEMO_TOML = """\
# The portal demo's tournament: short games, so the board fills within a minute.
presets = ["rush"]
table_sizes = [2]
games = 8
reference = ["RandomBot"]
"""

DEMO_CLASS = (("ada", "Ada Lovelace", "GreedyBot"), ("alan", "Alan Turing", "CountingBot"),
              ("grace", "Grace Hopper", "SimpleBot"), ("edsger", "Edsger Dijkstra", "RandomBot"),
              ("barbara", "Barbara Liskov", None))
"""The demo's students: id, name, and the built-in bot that is their first upload (barbara has none yet: try one as her).

Grace's is :class:`~cabo_kit.SimpleBot`, the class students start from, rather than ``SearchBot``: the check rejects
SearchBot as far slower than the reference bots on a busy machine, and the demo's four uploads must be accepted."""


def demo_upload(bot: str) -> bytes:
    """A one-file submission of the built-in bot ``bot`` (a reference bot, or ``SimpleBot``), as a student would upload it.

    >>> print(demo_upload("GreedyBot").decode().splitlines()[-2])
    class MyGreedyBot(cabo_kit.bots.GreedyBot):
    >>> print(demo_upload("SimpleBot").decode().splitlines()[-2])
    class MySimpleBot(cabo_kit.SimpleBot):
    """
    where = "cabo_kit" if bot == "SimpleBot" else "cabo_kit.bots"
    return (f'"""{bot}, uploaded by the portal\'s demo: the built-in bot, unchanged."""\n\nimport cabo_kit\n\n\n'
            f"class My{bot}({where}.{bot}):\n    pass\n").encode()


def secret_seed(folder: Path) -> str:
    r"""Give the class's tournament a random secret seed when its ``tournament.toml`` sets none; what to tell the teacher.

    Every deal derives from the tournament's seed, and the default (0) is in the public code: with it, anyone could
    work out the cards of every game. The seed line is added at the top of the file (made if missing), the rest of
    it kept as it is. A folder whose store already holds games, or records a seed, keeps its seed: the tournament
    refuses to mix the games of two seeds, so a new one would cost every stored game (the message says how to
    change it by hand).

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "tournament.toml").write_text('# my class\npresets = ["rush"]\n[limits]\ndecision_s = 2.0\n')
    >>> print(secret_seed(folder))
    tournament.toml set no seed: a random secret seed is written into it, so nobody can work out the deals (keep the file private)
    >>> print((folder / "tournament.toml").read_text())  # doctest: +ELLIPSIS
    # my class
    seed = ...  # written by cabo-kit serve: a secret seed, so nobody can work out the deals
    presets = ["rush"]
    [limits]
    decision_s = 2.0
    <BLANKLINE>
    >>> secret_seed(folder)                 # it has one now: nothing to do
    ''
    """
    import secrets
    import sqlite3

    from ..tournament.config import tomllib

    path = folder / "tournament.toml"
    text = ""
    if path.exists():
        with open(path, encoding="utf-8", newline="") as f:  # CRLF files keep their line ends
            text = f.read()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return ""  # the games name the broken line to the teacher
    if "seed" in data:
        return ""
    db = folder / "results.sqlite"
    stored: str | None = None
    seed: int | None = None
    if db.exists():
        try:
            con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
            try:
                tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
                row = con.execute("SELECT value FROM meta WHERE key='seed'").fetchone() if "meta" in tables else None
                played = "games" in tables and con.execute("SELECT 1 FROM games LIMIT 1").fetchone() is not None
            finally:
                con.close()
        except sqlite3.Error:
            return ""  # a damaged store: the games say so; its seed is not ours to change
        if row is not None and str(row[0]).strip().lstrip("-").isdigit() and int(row[0]) != 0:
            seed = int(row[0])  # the store's own secret seed: written into the file, so the runner keeps its games
        elif row is not None or played:
            stored = f"seed {row[0]}" if row is not None else "the default seed 0"
    if stored is not None:
        return (f"tournament.toml sets no seed and the games in results.sqlite were played with {stored}: kept, as a new "
                "seed would make the tournament refuse every stored game; with the default seed the deals can be worked "
                "out from the public code: to make them secret, move results.sqlite aside and add seed = <a large random "
                "number> to tournament.toml")
    lines = text.splitlines(keepends=True)
    end = "\r\n" if "\r\n" in text else "\n"
    top = 0
    while top < len(lines) and lines[top].lstrip().startswith("#"):  # after the file's opening comments
        top += 1
    if top == len(lines) and lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += end  # a last comment without its line end: the seed goes on a line of its own
    kept = seed is not None
    if seed is None:
        seed = secrets.randbelow(2 ** 31 - 1) + 1
        line = f"seed = {seed}  # written by cabo-kit serve: a secret seed, so nobody can work out the deals{end}"
    else:
        line = f"seed = {seed}  # written by cabo-kit serve: the secret seed the games in results.sqlite were played with{end}"
    new = "".join(lines[:top]) + line + "".join(lines[top:])
    if tomllib.loads(new) != {**data, "seed": seed}:  # never write a file that says something else
        return "tournament.toml sets no seed: add seed = <a large random number> to it, so nobody can work out the deals"
    temporary = folder / f".tournament.toml.{os.getpid()}.tmp"
    # The seed tells every deal: the file is its owner's only (a bot running as another user must not read it).
    mode = (path.stat().st_mode & 0o700) if path.exists() else 0o600
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(fd, "w", encoding="utf-8", newline="") as f:
        f.write(new)
    os.chmod(temporary, mode or 0o600)
    os.replace(temporary, path)
    if kept:
        return (f"tournament.toml set no seed: the secret seed the games in results.sqlite were played with is written "
                "into it, so they stay in the tournament (keep the file private)")
    return ("tournament.toml set no seed: a random secret seed is written into it, so nobody can work out the deals "
            "(keep the file private)")


def run(args: argparse.Namespace, say: Any = print) -> int:
    """Run ``cabo-kit serve`` with parsed ``args``: the exit status (1: the folder is in use or cannot be written)."""
    if args.demo:
        return _demo(args, say)
    if not args.folder:
        raise ServeError("name the class's folder: cabo-kit serve DIR --roster roster.csv (or try it: cabo-kit serve --demo)")
    if args.reissue:
        return _reissue(args, say)
    folder = Path(args.folder)
    if not folder.is_dir():
        raise ServeError(f"{folder} is not a folder: make it (mkdir -p {shlex.quote(str(folder))}) or name the class's "
                         "tournament folder")
    if not args.roster:
        raise ServeError(f"say who the students are: cabo-kit serve {shlex.quote(str(folder))} --roster roster.csv "
                         "(a CSV of id,name, one student a line)")
    from .roster import RosterError, load_roster

    try:
        roster = load_roster(args.roster)
    except RosterError as exc:
        raise ServeError(str(exc)) from None
    return _serve(args, folder, roster, say)


def _demo(args: argparse.Namespace, say: Any) -> int:
    import shutil
    import tempfile

    from .roster import Student

    if args.folder or args.roster or args.reissue:
        raise ServeError("--demo makes its own class: give it no folder, --roster or --reissue (cabo-kit serve --demo)")
    folder = Path(tempfile.mkdtemp(prefix="cabo-portal-demo-"))
    try:
        (folder / "tournament.toml").write_text(DEMO_TOML, encoding="utf-8")
        roster = [Student(sid, name) for sid, name, _ in DEMO_CLASS]
        uploads = {sid: demo_upload(bot) for sid, _, bot in DEMO_CLASS if bot}
        args.same_user_bots = True  # the demo's only user is the teacher trying it
        return _serve(args, folder, roster, say, demo=uploads)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _serve(args: argparse.Namespace, folder: Path, roster: Any, say: Any, demo: dict[str, bytes] | None = None) -> int:
    try:
        import starlette  # noqa: F401
        import uvicorn
    except ImportError as exc:
        raise ServeError(f"the portal needs {exc.name}: {PORTAL_EXTRA_HINT}") from None
    from ..report import missing_report_modules

    lacking = missing_report_modules()
    if lacking:  # the games' ratings and report: refused now rather than in the background later
        raise ServeError(f"the portal's games need {', '.join(lacking)} for their ratings and report: {PORTAL_EXTRA_HINT}")
    if not bots_get_own_uid():
        if not args.same_user_bots:
            raise ServeError("bots cannot get a user id of their own here (the server is not root), so a hostile file "
                             "could read other students' files and the portal's data: run as root (in a container), or "
                             "accept the risk with --same-user-bots")
        say("warning: bots run under your own user id (--same-user-bots): a hostile file can read and damage the "
            "class's data (other students' files, the results, portal-links.csv)")
    from ..tournament.lock import FolderError, FolderLock
    from .app import PortalSettings, create_app
    from .checker import CheckWorker
    from .live import LiveBoard
    from .games import GamesWorker, keep_private, reap_leftovers
    from .logs import install
    from .state import PortalState

    base = _base_url(args)
    lock = FolderLock(folder, f"the portal server at {base}", command=shlex.join(["cabo-kit", "serve", *sys.argv[2:]])
                      if sys.argv[1:2] == ["serve"] else None)
    try:
        _acquire(lock, folder, say)
    except FolderError as exc:
        print(f"cabo-kit serve: {exc}", file=sys.stderr)
        return 1
    try:
        if lock.note:
            say(lock.note)
        state = PortalState(folder)
        try:
            ended = reap_leftovers(state)
            if ended:
                say(f"ended {len(ended)} process group{'s' if len(ended) != 1 else ''} a stopped server left running")
            for path in state.recover():
                say(f"recovered after a stop: {path}")
            seeded = secret_seed(folder)  # before any game is played: the deals must not be computable
            if seeded:
                say(seeded)
            # Before any check runs a student's file: what an earlier `tournament run` left readable to all.
            keep_private(folder)
            fresh = state.sync_roster(roster)
            state.set_setting("base_url", base)
            names = {p.id: p.name for p in state.people()}
            if demo is not None:
                for sid, data in demo.items():
                    state.add_upload(sid, data, f"{sid}_bot.py", min_interval=0.0)
                say(f"a throwaway class of {len(roster)} students in {folder} (removed when the server stops); "
                    f"four have uploaded a built-in bot, barbara nothing yet\n"
                    f"  the teacher's page: {base}/signin/{fresh[TEACHER]}\n"
                    f"  barbara's page:     {base}/signin/{fresh['barbara']}")
            elif fresh:
                path = write_links(folder, fresh, names, base)
                say(f"{len(fresh)} new sign-in link{'s' if len(fresh) != 1 else ''} written to {path} (only its owner "
                    "can read it): give each student their own link, and keep the teacher's (_teacher)")
            pending = len(state.pending_checks())
            worker = CheckWorker(state, games=args.check_games, threads=args.check_workers or default_check_workers())
            games = GamesWorker(state, workers=getattr(args, "workers", None))
            settings = PortalSettings(max_upload=args.max_upload, upload_interval=args.upload_interval)
            live = LiveBoard(folder)  # ratings refitted in processes of their own, streamed to open pages
            def uploaded(_up: Upload) -> None:  # its check starts at once: the games take back the checks' core
                worker.wake()
                games.wake()

            app = create_app(state, settings, on_upload=uploaded, live=live, games=games)
            install()
            config = uvicorn.Config(app, host=args.host, port=args.port, root_path=args.root_path.rstrip("/"),
                                    log_config=_log_config(), server_header=False)
            server = uvicorn.Server(config)
            live.stopping = lambda: bool(server.should_exit)
            links = "" if demo is not None else f" (links: {folder / LINKS_NAME})"
            say(f"the portal of {folder} for {len(roster)} students: {base}/{links}"
                f"{f'; {pending} uploads to check' if pending else ''}; games on {games.workers} worker"
                f"{'s' if games.workers != 1 else ''}"
                f"{f', {games.workers + games.borrow} while no check runs' if games.borrow else ''}"
                f"{' (paused)' if games.paused else ''}; Ctrl+C stops it")
            previous = _on_signals(server)
            worker.on_accepted = games.wake
            worker.start()
            games.start()
            try:
                server.run()
            finally:
                games.stop()
                worker.stop()
                for signum, handler in previous.items():
                    signal.signal(signum, handler)
            say("the portal stopped")
        finally:
            state.close()
    finally:
        lock.release()
    return 0
