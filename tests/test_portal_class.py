"""A simulated class through the portal (issue 19): 50 students upload 2 or 3 files each through the app's upload
route, hostile files among them; the real check worker checks them and the real games worker plays them; the teacher
sets the deadline and the final run ends. Then the store is consistent, the hostile files damaged and read nothing,
and a `cabo-kit tournament run` on a copy of the folder plays no further game and writes the same leaderboard.

Without sockets (Starlette's TestClient); on a tiny configuration: one preset, two-player tables, one-game checks."""

from __future__ import annotations

import csv
import hashlib
import os
import re
import shutil
import sqlite3
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

pytest.importorskip("starlette")
pytest.importorskip("pandas")
from starlette.testclient import TestClient  # noqa: E402

from cabo_kit.portal.app import PortalSettings, create_app  # noqa: E402
from cabo_kit.portal.checker import CheckWorker  # noqa: E402
from cabo_kit.portal.games import GamesWorker, board_versions  # noqa: E402
from cabo_kit.portal.links import write_links  # noqa: E402
from cabo_kit.portal.roster import Student  # noqa: E402
from cabo_kit.portal.server import bots_get_own_uid  # noqa: E402
from cabo_kit.portal.state import TEACHER, PortalState  # noqa: E402
from cabo_kit.tournament.lock import FolderLock  # noqa: E402
from cabo_kit.tournament.runner import run_tournament, write_outputs  # noqa: E402
from cabo_kit.tournament.store import DB_NAME  # noqa: E402

HERE = Path(__file__).parent
FAULT, TOURNAMENT, HOSTILE = HERE / "fault_bots", HERE / "tournament_bots", HERE / "portal_class_bots"
TOML = """presets = ["rush"]
table_sizes = [2]
games = 2
reference = ["RandomBot"]
precision = 1000
max_games = 2
[limits]
decision_s = 0.5
game_bank_s = 5
"""
CLASS = 50
GOOD = [FAULT / "good.py", TOURNAMENT / "steady.py", TOURNAMENT / "wanderer.py", TOURNAMENT / "cautious.py"]
# Fair under the check (they find its process), hostile in the class's games (rush): their second upload.
SLEEPERS = {"s040": "spy", "s041": "vandal", "s042": "killer", "s043": "forger", "s044": "hog", "s045": "hanger",
            "s046": "crasher"}
# Rejected by the check: the third upload of s030..s039 (their second, good, file stays their bot).
REJECTED = [FAULT / "hangs.py", FAULT / "memory_hog.py", FAULT / "kills_itself.py", FAULT / "pickle_reply.py",
            FAULT / "raises.py", FAULT / "bad_syntax.py", TOURNAMENT / "two_bots.py", TOURNAMENT / "vanishes.py",
            FAULT / "no_bot_class.py", FAULT / "illegal.py"]
EDGE = {"s001": ("bot.py", b"", 400, "is empty"), "s002": ("bot.py", b"import x\x00\x01\x02", 400, "binary"),
        "s003": ("bot.py", b"x = '\xe9t\xe9'\n", 400, "not UTF-8"),
        "s004": ("bot.py", b"# padding\n" * 8000, 413, "larger than 64 KiB"),
        "s005": ("bot.txt", b"x = 1\n", 415, "not a Python file")}


def until(what: Callable[[], Any], seconds: float, why: Callable[[], str] = lambda: "") -> Any:
    end = time.monotonic() + seconds
    while not (found := what()):
        assert time.monotonic() < end, f"timed out waiting; {why()}"
        time.sleep(0.2)
    return found


def hostile(name: str) -> bytes:
    """A hostile file of tests/portal_class_bots as its student uploads it: with what they share (common.py) after it."""
    return (HOSTILE / f"{name}.py").read_bytes() + b"\n\n" + (HOSTILE / "common.py").read_bytes()


def good(sid: str, n: int) -> bytes:
    return GOOD[int(sid[1:]) % len(GOOD)].read_bytes() + f"\n# {sid}, version {n}\n".encode()


def files_of(sid: str) -> list[bytes]:
    """What the student uploads, in order."""
    i = int(sid[1:])
    if sid in SLEEPERS:
        return [good(sid, 1), hostile(SLEEPERS[sid])]
    if 30 <= i < 40:
        return [good(sid, 1), good(sid, 2), REJECTED[i - 30].read_bytes()]
    return [good(sid, n) for n in range(1, 4 if i % 5 == 0 else 3)]


class Student_:
    def __init__(self, app: Any, link: str) -> None:
        self.client = TestClient(app)
        page = self.client.get(f"/signin/{link}")
        assert page.status_code == 200
        self.csrf = re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]

    def upload(self, data: bytes, name: str = "my_bot.py") -> Any:
        return self.client.post("/upload", files={"file": (name, data, "text/x-python")}, data={"csrf": self.csrf},
                                follow_redirects=False)


@pytest.fixture
def folder() -> Iterator[Path]:
    # Under /tmp and open to all (0755), as a teacher's folder often is: a bot that finds it must be stopped by the
    # modes of what is inside, not by a private parent (pytest's tmp_path is one).
    path = Path(tempfile.mkdtemp(prefix="cabo-portal-class-", dir="/tmp"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _seats(db: Path) -> list[tuple[str, str, int, str, str, str]]:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT g.game_id, g.deal_id, g.rotation, s.bot, s.version, s.status FROM games g "
                           "JOIN seats s ON s.game_id = g.game_id ORDER BY g.game_id, s.seat").fetchall()
    finally:
        con.close()


def _logs(folder: Path, sid: str) -> str:
    return "".join(p.read_text(errors="replace") for p in sorted((folder / "logs").glob(f"{sid}-*.log")))


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="the hostile files look for the class through /proc")
@pytest.mark.skipif(not bots_get_own_uid(), reason="the hostile files (a killer of Python processes, a vandal of "
                    "stores) are safe to run only when bots get a uid of their own: the server is root")
def test_a_class_of_50_uploads_checks_plays_and_ends_consistent(folder: Path) -> None:
    started = time.monotonic()
    (folder / "tournament.toml").write_text(TOML)
    os.chmod(folder / "tournament.toml", 0o644)  # as a teacher leaves it: the games make it private (its seed)
    (folder / "open-to-all.txt").write_text("the control: readable to all on purpose\n")
    os.chmod(folder / "open-to-all.txt", 0o644)  # the spy must read this, so its "nothing else" counts
    ids = [f"s{i:03d}" for i in range(CLASS)]
    state = PortalState(folder)
    links = state.sync_roster([Student(sid, f"Student {sid}") for sid in ids])
    write_links(folder, links, {}, "http://127.0.0.1:8765")
    clock = [time.time() - 3600.0]  # the uploads' clock: an hour ago, a minute a round (the upload limit is 30 s)
    lock = FolderLock(folder, "the portal server at test").acquire()
    checks = CheckWorker(state, games=1, threads=2, poll=0.2)
    games = GamesWorker(state, workers=2, poll=0.2, restart_after=2.0)
    checks.on_accepted = games.wake
    app = create_app(state, PortalSettings(max_upload=64 * 1024, upload_interval=30.0), clock=lambda: clock[0],
                     on_upload=lambda _up: checks.wake(), games=games)
    try:
        checks.start()
        games.start()
        students = {sid: Student_(app, links[sid]) for sid in ids}
        sent: dict[str, list[bytes]] = {sid: [] for sid in ids}
        for round_ in range(3):
            for sid in ids:
                if round_ < len(files_of(sid)):
                    assert students[sid].upload(files_of(sid)[round_]).status_code == 303, sid
                    sent[sid].append(files_of(sid)[round_])
            clock[0] += 60.0
        # bad uploads are refused with their reason and change nothing
        for sid, (name, data, status, says) in EDGE.items():
            before = [(u.number, u.version) for u in state.uploads_of(sid)]
            answer = students[sid].upload(data, name)
            assert answer.status_code == status and says in answer.text, (sid, answer.status_code, answer.text[-300:])
            assert [(u.number, u.version) for u in state.uploads_of(sid)] == before
        # two uploads by one student at once (two sessions): one is stored, the other told to wait
        twins = [Student_(app, links["s006"]) for _ in range(2)]
        barrier, answers = threading.Barrier(2), [0, 0]

        def send(i: int) -> None:
            barrier.wait()
            answers[i] = twins[i].upload(good("s006", 10 + i)).status_code

        threads = [threading.Thread(target=send, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(answers) == [303, 429]
        twin = state.uploads_of("s006")[0]
        assert len(state.uploads_of("s006")) == 3 and twin.path.read_bytes() in (good("s006", 10), good("s006", 11))
        sent["s006"].append(twin.path.read_bytes())

        phases = {"uploads": time.monotonic() - started}
        until(lambda: not state.pending_checks(), 300, lambda: f"{len(state.pending_checks())} checks left")
        phases["checks"] = time.monotonic() - started
        # the teacher sets the deadline (a minute ago): later uploads are refused, the final run plays to the end
        teacher = Student_(app, links[TEACHER])
        deadline = time.strftime("%Y-%m-%d %H:%M", time.localtime(time.time() - 60))
        assert teacher.client.post("/teacher/deadline", data={"deadline": deadline, "csrf": teacher.csrf},
                                   follow_redirects=False).status_code == 303
        clock[0] = time.time()
        late = students["s007"].upload(good("s007", 9))
        assert late.status_code == 403 and "the deadline" in late.text and len(state.uploads_of("s007")) == 2
        until(lambda: games.status().final, 240, lambda: (state.dir / "games.log").read_text(errors="replace")[-2000:])
        # the portal kept serving through it all
        phases["final run"] = time.monotonic() - started
        assert 'data-state="done"' in teacher.client.get("/teacher").text
        assert all(students[sid].client.get("/").status_code == 200 for sid in ("s000", "s040", "s047"))
        board = (folder / "leaderboard.csv").read_text()
    finally:
        games.stop()
        checks.stop()
        lock.release()

    # the portal's store: every upload stored once, under its own hash, checked; every current file is the student's
    # newest accepted upload, byte for byte; rejected files never became it
    con = sqlite3.connect(state.dir / "portal.sqlite")
    try:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        con.close()
    current = board_versions(state)
    for sid in ids:
        ups = state.uploads_of(sid)
        assert [u.path.read_bytes() for u in reversed(ups)] == sent[sid], sid
        assert all(u.status in ("accepted", "rejected") for u in ups), sid
        assert all(hashlib.sha256(u.path.read_bytes()).hexdigest().startswith(u.version) for u in ups), sid
        assert sorted(p.name for p in (state.dir / "uploads" / sid).iterdir()) == sorted(f"{u.number}.py" for u in ups)
        accepted = [u for u in ups if u.status == "accepted"]
        assert accepted and current[sid].number == accepted[0].number, (sid, [(u.number, u.status) for u in ups])
        assert (folder / "bots" / f"{sid}.py").read_bytes() == accepted[0].path.read_bytes()
    for i, path in enumerate(REJECTED):
        third = state.uploads_of(f"s{30 + i:03d}")[0]
        assert third.number == 3 and third.status == "rejected" and current[f"s{30 + i:03d}"].number == 2, path.name
    assert all(current[sid].number == 2 for sid in SLEEPERS)  # accepted: they played fair under the check
    state.close()

    # the store: no game stored twice, every current version on the board, faults only the hostile files' own
    rows = _seats(folder / DB_NAME)
    games_: dict[str, list[Any]] = {}
    for gid, deal, rotation, bot, version, _ in rows:
        games_.setdefault(gid, [deal, rotation]).append((bot, version))
    assert len({tuple(g) for g in games_.values()}) == len(games_)
    con = sqlite3.connect(folder / DB_NAME)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        con.close()
    with open(folder / "leaderboard.csv", newline="") as f:
        assert {r["bot"] for r in csv.DictReader(f)} == {*ids, "RandomBot"}
    played = {(bot, version) for *_, bot, version, _ in rows}
    assert all((sid, current[sid].version) in played for sid in ids)
    faulty = {bot for *_, bot, version, status in rows if status not in ("ok", "") and version != ""}
    assert faulty <= {"s043", "s044", "s045", "s046"}, faulty  # the forger, hog, hanger and crasher fault; no one else
    assert {"s044", "s045", "s046"} <= faulty

    # the hostile files found the class folder, and could read, damage or kill nothing of it
    assert "SPY-FOLDER found" in _logs(folder, "s040")
    assert re.findall(r"SPY-FOUND (.*)", _logs(folder, "s040")) and all(
        found == "open-to-all.txt reads 40" for found in re.findall(r"SPY-FOUND (.*)", _logs(folder, "s040"))), \
        _logs(folder, "s040")
    assert "VANDAL-FOLDER found" in _logs(folder, "s041") and set(re.findall(r"VANDAL-DID (.*)", _logs(folder, "s041"))) == {"nothing"}
    assert set(re.findall(r"KILLER-HIT (.*)", _logs(folder, "s042"))) == {"nothing"}
    for name in ("tournament.toml", "results.sqlite", "leaderboard.csv", "report.html"):
        assert os.stat(folder / name).st_mode & 0o077 == 0, name
    for name in ("bots", "logs", "portal"):
        assert os.stat(folder / name).st_mode & 0o077 == 0, name

    # the tournament is done: a run on a copy of the folder plays nothing and writes the same leaderboard
    copy = Path(tempfile.mkdtemp(prefix="cabo-portal-class-copy-"))
    try:
        shutil.copytree(folder, copy / "class")
        (copy / "class" / "leaderboard.csv").unlink()
        summary = run_tournament(copy / "class", workers=2, progress=False, out=None)
        assert summary.played == 0 and summary.skipped > 0
        write_outputs(copy / "class", out=None)
        assert (copy / "class" / "leaderboard.csv").read_text() == board
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    phases["copy"] = time.monotonic() - started
    import resource

    cpu = sum(getattr(resource.getrusage(who), f) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
              for f in ("ru_utime", "ru_stime"))
    print("the simulated class: " + ", ".join(f"{k} done at {v:.0f} s" for k, v in phases.items())
          + f"; {cpu:.0f} CPU seconds (this process and the processes it waited for)")
