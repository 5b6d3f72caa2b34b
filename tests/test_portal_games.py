"""The portal's games (cabo_kit/portal/games.py): the tournament played in a child under the server's lock, new
versions, pause and resume, the deadline's final run, the teacher's outputs, and the processes a killed server left."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

pytest.importorskip("starlette")
pytest.importorskip("pandas")
from starlette.testclient import TestClient  # noqa: E402

from cabo_kit.portal.app import create_app  # noqa: E402
from cabo_kit.portal.games import ENV_FOLDER, GamesWorker, board_versions, fingerprint, reap_leftovers  # noqa: E402
from cabo_kit.portal.roster import Student  # noqa: E402
from cabo_kit.portal.state import TEACHER, PastDeadline, PortalState  # noqa: E402
from cabo_kit.tournament.lock import FolderLock  # noqa: E402
from cabo_kit.tournament.runner import run_tournament, write_outputs  # noqa: E402
from cabo_kit.tournament.store import DB_NAME  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LINUX = Path("/proc/self").exists()
GOOD = (Path(__file__).parent / "fault_bots" / "good.py").read_bytes()
RAISES = (Path(__file__).parent / "fault_bots" / "raises.py").read_bytes()
TINY = 'presets = ["rush"]\ntable_sizes = [2]\ngames = 2\nreference = ["RandomBot"]\nprecision = 400\nmax_games = 6\n'


def bot(tag: str) -> bytes:
    """The good bot under another version (a comment of its own)."""
    return GOOD + f"\n# {tag}\n".encode()


def accept(state: PortalState, pid: str, data: bytes, now: float | None = None) -> int:
    up = state.add_upload(pid, data, f"{pid}.py", now=now, min_interval=0.0)
    state.set_check(pid, up.number, "accepted", "no problem found")
    return up.number


def until(what: Callable[[], Any], seconds: float = 30.0, why: Callable[[], str] = lambda: "") -> Any:
    end = time.monotonic() + seconds
    while not (found := what()):
        assert time.monotonic() < end, f"timed out waiting; {why()}"
        time.sleep(0.1)
    return found


@pytest.fixture
def klass(tmp_path: Path) -> Iterator[tuple[Path, PortalState, dict[str, str]]]:
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "tournament.toml").write_text(TINY)
    state = PortalState(folder)
    links = state.sync_roster([Student("ada", "Ada"), Student("bob", "Bob"), Student("cy", "Cy")])
    yield folder, state, links
    state.close()


def _last(state: PortalState) -> dict[str, Any]:
    return dict(json.loads(state.setting("games_last") or "{}"))


def _log(state: PortalState) -> str:
    path = state.dir / "games.log"
    return path.read_text(errors="replace")[-3000:] if path.exists() else "(no games.log)"


def _scheduled_versions(folder: Path) -> dict[str, set[str]]:
    import sqlite3

    con = sqlite3.connect(folder / DB_NAME)
    try:
        rows = con.execute("SELECT s.bot, s.version FROM seats s JOIN scheduled c ON c.game_id = s.game_id").fetchall()
    finally:
        con.close()
    out: dict[str, set[str]] = {}
    for b, v in rows:
        out.setdefault(b, set()).add(v)
    return out


def test_games_follow_new_versions_pause_and_the_deadline_and_end_done(klass: Any) -> None:
    folder, state, links = klass
    accept(state, "ada", bot("ada 1"), now=1000.0)
    accept(state, "bob", bot("bob 1"), now=1000.0)
    lock = FolderLock(folder, "the portal server at test").acquire()
    games = GamesWorker(state, workers=1, poll=0.1, restart_after=0.0)
    try:
        games.start()
        until(lambda: games.status().running, 10, lambda: _log(state))
        # while the games hold the folder through the server's lock, an outside run is refused and names the server
        outside = subprocess.run([sys.executable, "-m", "cabo_kit.cli", "tournament", "run", str(folder)], cwd=folder,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=60)
        assert outside.returncode == 1 and "in use by the portal server at test" in outside.stderr
        # pause stops the running games; new versions wait; resume: they are played (ada's second, cy's first)
        client = TestClient(create_app(state, games=games), follow_redirects=False)
        assert client.get(f"/signin/{links[TEACHER]}").status_code == 303
        csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/teacher").text).group(1)  # type: ignore[union-attr]
        assert client.post("/teacher/games", data={"games": "pause"}).status_code == 403  # no anti-forgery token
        child = games._proc
        assert child is not None and child.poll() is None
        playing: dict[int, str] = {}
        if LINUX:  # the games, and its pool, harness servers and bots: it is playing
            until(lambda: _descendants(child.pid), 30, lambda: _log(state))
            playing = {**_descendants(child.pid), **_descendants(os.getpid(), only=child.pid)}
            assert child.pid in playing and len(playing) > 1, playing
        assert client.post("/teacher/games", data={"games": "pause", "csrf": csrf}).status_code == 303
        until(lambda: games.status().paused and not games.status().running)
        until(lambda: _alive(playing) == [], 10, lambda: f"left: {_alive(playing)}")
        accept(state, "ada", bot("ada 2"), now=2000.0)
        accept(state, "cy", RAISES, now=1200.0)  # accepted here whatever a check would say: its games fault
        time.sleep(0.5)
        status = games.status()
        assert status.paused and not status.running and not status.up_to_date
        page = client.get("/teacher").text
        assert 'data-state="paused"' in page and 'id="cabo-portal-resume"' in page
        assert client.post("/teacher/games", data={"games": "resume", "csrf": csrf}).status_code == 303
        until(lambda: games.status().running, 10)
        until(lambda: games.status().up_to_date, 60, lambda: _log(state))
        assert _last(state)["played"] > 0 and (folder / "leaderboard.csv").exists() and (folder / "report.html").exists()
        ada = board_versions(state)["ada"].version
        assert _scheduled_versions(folder)["ada"] == {ada} and "cy" in _scheduled_versions(folder)
        # the deadline set back before ada's second upload: the board and the games go back to her first version
        assert client.post("/teacher/deadline", data={"deadline": time.strftime("%Y-%m-%d %H:%M", time.localtime(1500)),
                                                      "csrf": csrf}).status_code == 303
        assert (folder / "bots" / "ada.py").read_bytes() == bot("ada 1") and state.current("ada") == 1
        until(lambda: games.status().final, 60, lambda: _log(state))
        assert _scheduled_versions(folder)["ada"] == {board_versions(state)["ada"].version} != {ada}
        assert "id=\"cabo-portal-run\" data-state=\"done\"" in client.get("/teacher").text
        faults, played = games._count()  # what the teacher's page shows by student (the worker reads it every 5 s)
        assert faults["cy"] == played["cy"] > 0 and faults["ada"] == 0 < played["ada"]
        board = (folder / "leaderboard.csv").read_text()
    finally:
        games.stop()
        lock.release()
    assert not games.status().running
    # the tournament is done: a run on a copy of the folder plays nothing and writes the same leaderboard
    copy = folder.parent / "copy"
    shutil.copytree(folder, copy)
    (copy / "leaderboard.csv").unlink()
    summary = run_tournament(copy, workers=1, progress=False, out=None)
    assert summary.played == 0 and summary.skipped > 0
    write_outputs(copy, out=None)
    assert (copy / "leaderboard.csv").read_text() == board


def test_the_teacher_sees_states_faults_rejections_and_the_outputs(klass: Any) -> None:
    folder, state, links = klass
    accept(state, "ada", bot("ada 1"))
    up = state.add_upload("bob", b"class Nope:\n    pass\n", "<b>nope</b>.py", min_interval=0.0)
    state.set_check("bob", up.number, "rejected", "nope.py: no class derives from cabo_kit.Bot <script>x</script>")
    games = GamesWorker(state, workers=1)
    client = TestClient(create_app(state, games=games), follow_redirects=False)
    client.get(f"/signin/{links[TEACHER]}")
    page = client.get("/teacher").text
    assert 'data-student="ada" data-state="accepted"' in page and 'data-student="bob" data-state="rejected"' in page
    assert 'data-student="cy" data-state="no-file"' in page
    rejected = page.split('id="cabo-portal-rejected"', 1)[1]
    assert "no class derives from cabo_kit.Bot &lt;script&gt;" in rejected and "&lt;b&gt;nope&lt;/b&gt;.py" in rejected
    assert "<script>x" not in page
    assert "No report yet" in page and client.get("/teacher/report.html").status_code == 404
    # the outputs, once written: the report in a sandbox of no origin, the leaderboard as a download
    (folder / "report.html").write_text("<html><script>1</script></html>")
    (folder / "leaderboard.csv").write_text("preset,rank,rank_low,rank_high,bot,elo,elo_low,elo_high,games\n"
                                            "rush,1,1,1,'=1+2,1000,900,1100,4\n")
    report = client.get("/teacher/report.html")
    policy = report.headers["content-security-policy"]
    assert report.status_code == 200 and policy.startswith("sandbox allow-scripts;") and "allow-same-origin" not in policy
    assert "connect-src 'none'" in policy and report.headers["x-content-type-options"] == "nosniff"
    board = client.get("/teacher/leaderboard.csv")
    assert board.headers["content-disposition"].startswith("attachment") and board.text.endswith("'=1+2,1000,900,1100,4\n")
    assert board.headers["content-security-policy"].startswith("default-src 'none'")
    assert 'id="cabo-portal-report"' in client.get("/teacher").text
    # faults of the version on the board, counted from the store: not those of an older version, nor off the board
    from cabo_kit.tournament.store import GameRow, SeatRow, Store

    games._refresh(False, fingerprint(folder))
    assert games.status().faults == {} and games.status().games == {}  # no store yet
    ada = board_versions(state)["ada"].version
    with Store(folder / DB_NAME) as store:
        for gid, version, status in (("g1", ada, "crash"), ("g2", ada, "ok"), ("g3", "old", "timeout")):
            store.add_game(GameRow(gid, f"d{gid}", f"0000{gid[1]}:x:0", "rush", "{}", 2, 7, 0, "ok", 1, b"{}"),
                           [SeatRow(0, "ada", version, 1, 1, 1.0, status, "", {}),
                            SeatRow(1, "bob", "b1", 2, 2, 0.0, "crash", "", {})])
    games._counted = (0.0, {}, {})  # the worker reads the store at most every 5 s
    games._refresh(False, fingerprint(folder))
    assert games.status().faults == {"ada": 1} and games.status().games == {"ada": 2}
    # the zip of every current file holds ada's accepted file only
    import io
    import zipfile

    names = zipfile.ZipFile(io.BytesIO(client.get("/teacher/files.zip").content)).namelist()
    assert names == ["ada.py"]


def test_the_teachers_roster_is_kept_while_games_run_and_shows_fresh_counts(klass: Any) -> None:
    """The roster is rendered again only when a person or an upload changes, and then only the changed student's row;
    the games and faults cells, which the worker refreshes every 5 s while games run, are fresh at every request
    without rendering the roster again."""
    from cabo_kit.portal.games import GamesStatus

    folder, state, links = klass
    accept(state, "ada", bot("ada 1"))
    shown = {"status": GamesStatus(games={"ada": 3})}

    class Games:  # the worker's status as the page reads it
        def status(self) -> GamesStatus:
            return shown["status"]

    app = create_app(state, games=Games())
    portal = app.state.portal
    rendered: list[str] = []
    get = portal.pages.get_template
    portal.pages.get_template = lambda name, *more: (rendered.append(name), get(name, *more))[1]
    client = TestClient(app, follow_redirects=False)
    client.get(f"/signin/{links[TEACHER]}")

    def row(pid: str) -> str:
        found = re.search(rf'<tr data-student="{pid}".*?</tr>', client.get("/teacher").text, re.S)
        assert found
        return re.sub(r">\s+<", "><", found.group(0))

    assert '<td>3</td><td class="faults" data-faults="0">0</td>' in row("ada") and 'data-state="accepted"' in row("ada")
    assert rendered.count("teacher_roster.html") == 1
    one_row = get("teacher_roster_row.html")  # jinja2 keeps one Template: count what it renders from now on
    made: list[str] = []
    render = one_row.render
    one_row.render = lambda **values: (made.append(values["person"].id), render(**values))[1]
    shown["status"] = GamesStatus(games={"ada": 7, "bob": 2}, faults={"bob": 1})  # games stored meanwhile
    assert '<td>7</td><td class="faults" data-faults="0">0</td>' in row("ada")
    assert '<td>2</td><td class="faults" data-faults="1"><a href="/teacher/students/bob/faults">1</a></td>' in row("bob")
    assert '<td>0</td><td class="faults" data-faults="0">0</td>' in row("cy")
    assert rendered.count("teacher_roster.html") == 1  # the counts changed, the roster was not rendered again
    up = state.add_upload("cy", b"x = 1\n", "cy.py", min_interval=0.0)  # a change: the roster is rendered again
    assert 'data-state="running"' in row("cy") and f'href="/teacher/code/cy/{up.number}"' in row("cy")
    assert rendered.count("teacher_roster.html") == 2 and "<td>7</td>" in row("ada")
    assert made == ["cy"]  # of the roster's rows, only cy's was rendered again
    assert re.findall(r'<tr data-student="(\w+)"', client.get("/teacher").text) == ["ada", "bob", "cy"]
    # a server that plays no games: the cells are left empty
    plain = TestClient(create_app(state), follow_redirects=False)
    plain.get(f"/signin/{links[TEACHER]}")
    found = re.search(r'<tr data-student="ada".*?</tr>', plain.get("/teacher").text, re.S)
    assert found and '<td></td><td class="faults" data-faults="0"></td>' in re.sub(r">\s+<", "><", found.group(0))


def _spawn_sleeper(env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], env=env, start_new_session=True)


@pytest.mark.skipif(not LINUX, reason="finds processes through /proc (Linux)")
def test_a_restart_ends_the_recorded_groups_by_their_start_time_when_environ_is_unreadable(klass: Any,
                                                                                          monkeypatch: Any) -> None:
    """A non-root server cannot read the environment of a process that is not dumpable (a bot's harness): the
    recorded leader's start time names the group then; one recorded with another start (a recycled pid) is left."""
    from cabo_kit.portal import games as games_module

    folder, state, _ = klass
    ours = _spawn_sleeper(dict(os.environ))
    recycled = _spawn_sleeper(dict(os.environ))
    try:
        state.add_process(ours.pid, "games")
        state.add_process(recycled.pid, "check")
        state._rows("UPDATE processes SET ticks = ticks - 1 WHERE pgid = ?", (recycled.pid,))  # started earlier
        monkeypatch.setattr(games_module, "_environ", lambda pid: None)
        assert reap_leftovers(state) == [ours.pid]
        assert ours.wait(5) == -signal.SIGKILL
        assert recycled.poll() is None and state.processes() == []
    finally:
        for p in (ours, recycled):
            p.kill()
            p.wait()


@pytest.mark.skipif(not LINUX, reason="finds processes through /proc (Linux)")
def test_a_restart_ends_only_the_groups_marked_with_its_folder(klass: Any) -> None:
    folder, state, _ = klass
    ours = _spawn_sleeper({**os.environ, ENV_FOLDER: os.path.realpath(folder)})
    other = _spawn_sleeper({**os.environ, ENV_FOLDER: "/some/other/class"})
    try:
        state.add_process(ours.pid, "games")
        state.add_process(other.pid, "check")
        until(lambda: ENV_FOLDER.encode() in Path(f"/proc/{ours.pid}/environ").read_bytes())
        assert reap_leftovers(state) == [ours.pid]
        assert ours.wait(5) == -signal.SIGKILL
        assert other.poll() is None and state.processes() == []
    finally:
        for p in (ours, other):
            p.kill()
            p.wait()


def _descendants(root: int, only: int | None = None) -> dict[int, str]:
    """Every process below ``root`` (``only``: just that one of them), with its start time (so a recycled pid is not
    taken for it)."""
    parents: dict[int, list[tuple[int, str]]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2:].split()
        if fields[0] != "Z":
            parents.setdefault(int(fields[1]), []).append((int(entry.name), fields[19]))
    if only is not None:
        return {pid: start for pid, start in parents.get(root, []) if pid == only}
    found: dict[int, str] = {}
    todo = [root]
    while todo:
        for pid, start in parents.get(todo.pop(), []):
            found[pid] = start
            todo.append(pid)
    return found


def _alive(procs: dict[int, str]) -> list[int]:
    left = []
    for pid, start in procs.items():
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = text[text.rfind(")") + 2:].split()
        if fields[0] != "Z" and fields[19] == start:
            left.append(pid)
    return left


def _serve(folder: Path, roster: Path, log: Path) -> subprocess.Popen[bytes]:
    import socket

    from cabo_kit.portal.server import bots_get_own_uid

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    with open(log, "ab") as out:
        return subprocess.Popen([sys.executable, "-m", "cabo_kit.cli", "serve", str(folder), "--roster", str(roster),
                                 "--port", str(port), "--workers", "1", "--check-workers", "1",
                                 *([] if bots_get_own_uid() else ["--same-user-bots"])],
                                stdout=out, stderr=subprocess.STDOUT, env=env)


def _game_count(folder: Path) -> tuple[int, int]:
    import sqlite3

    if not (folder / DB_NAME).exists():
        return 0, 0
    con = sqlite3.connect(folder / DB_NAME, timeout=10)
    try:
        return con.execute("SELECT COUNT(*), COUNT(DISTINCT game_id) FROM games").fetchone()  # type: ignore[no-any-return]
    except sqlite3.Error:
        return 0, 0
    finally:
        con.close()


@pytest.mark.skipif(not LINUX, reason="finds processes through /proc (Linux)")
def test_kill_9_then_a_restart_reaps_what_was_left_and_finishes_the_games(klass: Any) -> None:
    folder, state, _ = klass
    (folder / "tournament.toml").write_text('presets = ["rush"]\ntable_sizes = [2]\ngames = 24\nreference = ["RandomBot"]\n')
    for pid in ("ada", "bob", "cy"):
        accept(state, pid, bot(pid))
    uploads = {pid: [(u.number, u.version, u.status) for u in state.uploads_of(pid)] for pid in ("ada", "bob", "cy")}
    roster = folder.parent / "roster.csv"
    roster.write_text("id,name\nada,Ada\nbob,Bob\ncy,Cy\n")
    log = folder.parent / "serve.log"
    first = _serve(folder, roster, log)
    try:
        until(lambda: _game_count(folder)[0] >= 2, 60, lambda: log.read_text() + _log(state))
        before = _game_count(folder)[0]
        assert [k for _, k in state.processes()] == ["games"]
        left = until(lambda: (d := _descendants(first.pid)) and len(d) >= 3 and d, 10)  # the games, its pool, harnesses
    finally:
        first.kill()  # kill -9: nothing of the server runs its cleanup
        first.wait()
    assert first.returncode == -signal.SIGKILL
    second = _serve(folder, roster, log)
    try:
        until(lambda: _alive(left) == [], 15, lambda: f"left: {_alive(left)}")
        until(lambda: _last(state).get("fingerprint") == fingerprint(folder), 90, lambda: log.read_text() + _log(state))
        assert "error" not in _last(state), _last(state)
        games, distinct = _game_count(folder)
        assert games == distinct and _last(state)["played"] + _last(state)["skipped"] == games
        assert _last(state)["skipped"] >= before  # the games stored before the kill were kept, not played again
        # nothing lost or doubled: the uploads are as they were, and a run plays no further game
        assert {pid: [(u.number, u.version, u.status) for u in state.uploads_of(pid)] for pid in uploads} == uploads
        running = _descendants(second.pid)
    finally:
        second.send_signal(signal.SIGTERM)
        code = second.wait(30)
    assert code == 0, log.read_text()
    until(lambda: _alive(running) == [], 10, lambda: f"left: {_alive(running)}")
    assert state.processes() == []
    with open(folder / "leaderboard.csv", newline="") as f:
        assert {row["bot"] for row in csv.DictReader(f)} == {"ada", "bob", "cy", "RandomBot"}


def test_an_upload_made_before_the_deadline_counts_when_its_check_ends_after_it(klass: Any) -> None:
    folder, state, _ = klass
    early = state.add_upload("ada", bot("early"), "a.py", now=1000.0, min_interval=0.0)
    late = state.add_upload("bob", bot("late"), "b.py", now=1600.0, min_interval=0.0)
    assert state.set_deadline(1500.0) == []  # the teacher sets a deadline already past: bob's upload is after it
    assert state.set_check("ada", early.number, "accepted", "") is True
    assert state.set_check("bob", late.number, "accepted", "") is False
    assert {pid: up.number for pid, up in board_versions(state).items()} == {"ada": 1}
    assert not (folder / "bots" / "bob.py").exists()
    assert state.set_deadline(None) == ["bob"] and (folder / "bots" / "bob.py").read_bytes() == bot("late")


def test_a_deadline_set_while_checks_end_keeps_every_upload_made_before_it(klass: Any) -> None:
    """Each student: v1 accepted, v2 made before the deadline and still checking, v3 made after it and accepted (their
    current file). The teacher sets the deadline (already past) while v2's checks end: every student ends on v2,
    whatever the order (a choice made from a current file read outside the check's transaction could lose v2)."""
    folder, state, _ = klass
    ids = [f"s{i:02d}" for i in range(40)]
    state.sync_roster([Student(sid, sid) for sid in ids])
    for sid in ids:
        accept(state, sid, bot(f"{sid} v1"), now=1000.0)
        state.add_upload(sid, bot(f"{sid} v2"), "b.py", now=1200.0, min_interval=0.0)
        accept(state, sid, bot(f"{sid} v3"), now=1600.0)
    assert {state.current(sid) for sid in ids} == {3}
    go = threading.Barrier(2)

    def checks() -> None:
        go.wait()
        for sid in reversed(ids):
            state.set_check(sid, 2, "accepted", "")

    thread = threading.Thread(target=checks)
    thread.start()
    go.wait()
    state.set_deadline(1500.0)
    thread.join()
    assert {sid: state.current(sid) for sid in ids} == {sid: 2 for sid in ids}
    assert all((folder / "bots" / f"{sid}.py").read_bytes() == bot(f"{sid} v2") for sid in ids)
    with pytest.raises(PastDeadline):  # and an upload at or after the stored deadline is refused where it is stored
        state.add_upload("ada", bot("too late"), "a.py", now=1500.0, min_interval=0.0)


@pytest.mark.skipif(not LINUX, reason="finds processes through /proc (Linux)")
def test_a_restart_takes_the_folder_from_the_games_of_a_killed_server(klass: Any) -> None:
    from cabo_kit.portal import server
    from cabo_kit.tournament.lock import FolderBusy, holder

    folder, state, _ = klass
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a server that was killed: its pid is free
    details = json.dumps({"pid": gone.pid, "host": __import__("socket").gethostname(), "command": "cabo-kit serve",
                          "description": "the portal server at http://127.0.0.1:8765", "started": time.time()})
    program = ("import fcntl, os, sys, time\nfd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
               "fcntl.flock(fd, fcntl.LOCK_EX)\nos.ftruncate(fd, 0)\nos.write(fd, sys.argv[2].encode())\n"
               "print('held', flush=True)\ntime.sleep(60)\n")
    games = subprocess.Popen([sys.executable, "-c", program, str(folder / ".cabo-kit.lock"), details],
                             stdout=subprocess.PIPE, env={**os.environ, ENV_FOLDER: os.path.realpath(folder)},
                             start_new_session=True)
    try:
        assert games.stdout is not None and games.stdout.readline() == b"held\n"
        state.add_process(games.pid, "games")
        with pytest.raises(FolderBusy):  # anyone else is refused, naming the killed server
            FolderLock(folder, "a tournament run").acquire()
        said: list[str] = []
        lock = FolderLock(folder, "the portal server at http://127.0.0.1:8766")
        server._acquire(lock, folder, said.append)
        try:
            assert games.wait(5) == -signal.SIGKILL and said == ["ended 1 process group a killed server left running"]
            assert holder(folder) is not None and holder(folder).description.endswith(":8766")  # type: ignore[union-attr]
        finally:
            lock.release()
    finally:
        games.kill()
        games.wait()


def test_serve_refuses_to_start_without_the_modules_of_the_games(klass: Any, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: Any) -> None:
    import cabo_kit.report
    from cabo_kit.cli import main

    folder, _, _ = klass
    roster = folder.parent / "roster.csv"
    roster.write_text("id,name\nada,Ada\n")
    monkeypatch.setattr(cabo_kit.report, "missing_report_modules", lambda: ["plotly"])  # the server asks the report
    assert main(["serve", str(folder), "--roster", str(roster), "--same-user-bots"]) == 2
    assert "the portal's games need plotly for their ratings and report: install the portal extra" in capsys.readouterr().err
    FolderLock(folder).acquire().release()  # nothing holds the folder: it raises FolderBusy otherwise


def test_a_run_that_cannot_start_says_why_on_the_teachers_page_and_waits_for_a_change(klass: Any) -> None:
    folder, state, links = klass
    (folder / "tournament.toml").write_text("gmaes = 3\n")
    accept(state, "ada", bot("ada"))
    lock = FolderLock(folder, "the portal server at test").acquire()
    games = GamesWorker(state, workers=1, poll=0.1)
    try:
        games.start()
        status = until(lambda: (s := games.status()).error and s, 30, lambda: _log(state))
        assert "unknown key 'gmaes' (did you mean 'games'?)" in status.text() and not status.running
        time.sleep(0.5)
        assert not games.status().running  # not tried again until something changes
        client = TestClient(create_app(state, games=games), follow_redirects=False)
        client.get(f"/signin/{links[TEACHER]}")
        page = client.get("/teacher").text
        assert 'data-state="error"' in page and "unknown key &#39;gmaes&#39;" in page
        (folder / "tournament.toml").write_text(TINY)  # fixed: the games start again
        until(lambda: games.status().running, 10, lambda: _log(state))
    finally:
        games.stop()
        lock.release()


def test_a_new_version_restarts_the_run_only_once_it_has_stored_a_batch(klass: Any,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Uploads arriving one after another must not keep restarting a run that has stored nothing yet."""
    folder, state, _ = klass
    accept(state, "ada", bot("ada 1"))
    accept(state, "bob", bot("bob 1"))
    games = GamesWorker(state, workers=2, poll=60.0, restart_after=0.0, restart_cap=3600.0)
    stored = [0]
    runs: list[subprocess.Popen[bytes]] = []

    def spawn(fp: str) -> None:  # a run that plays nothing by itself: the test says what it stored
        proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
        games._proc, games._running_fp, games._started = proc, fp, time.monotonic()
        games._stored_at_start, games._first_stored = games._stored(), None
        runs.append(proc)

    monkeypatch.setattr(games, "_stored", lambda: stored[0])
    monkeypatch.setattr(games, "_spawn", spawn)
    try:
        games.tick()
        assert len(runs) == 1 and games.status().running
        for n, stored[0] in enumerate([0, 1, 1]):  # new versions keep coming; the run has stored less than a batch
            accept(state, "cy", bot(f"cy {n}"))
            games.tick()
            assert len(runs) == 1 and runs[0].poll() is None
        stored[0] = 2  # a batch: as many games as workers
        games.tick()
        assert len(runs) == 2 and runs[0].poll() is not None and games._running_fp == fingerprint(folder)
        games.tick()  # nothing new: the run goes on
        assert len(runs) == 2 and runs[1].poll() is None
        accept(state, "ada", bot("ada 2"))
        games.tick()
        assert len(runs) == 2  # its batch is still to come
        games.restart_cap = 0.0  # past the cap, but it has stored nothing yet: only restart_idle_cap restarts it
        games.tick()
        assert len(runs) == 2 and runs[1].poll() is None
        stored[0] = 3  # its first game: a run held up past the cap from then is restarted whatever it stored
        games.tick()
        assert len(runs) == 3 and runs[1].poll() is not None
    finally:
        games.stop()
        for proc in runs:
            proc.kill()
            proc.wait()


def test_new_uploads_never_restart_a_run_that_has_stored_nothing_before_the_idle_cap(klass: Any,
                                                                                      monkeypatch: Any) -> None:
    """Uploads arriving every minute must not keep every run from storing a game: restart_cap counts from the run's
    first stored game; a run that stored nothing is restarted only after restart_idle_cap."""
    _, state, _ = klass
    games = GamesWorker(state, workers=2, restart_after=10.0, restart_cap=120.0, restart_idle_cap=600.0)
    stored = [0]
    monkeypatch.setattr(games, "_stored", lambda: stored[0])
    now = time.monotonic()
    games._started = now - 5.0
    assert not games._may_restart()  # under restart_after
    games._started = now - 300.0
    assert not games._may_restart()  # long past restart_cap, nothing stored: let it store its first game
    games._started = now - 601.0
    assert games._may_restart()  # stuck for restart_idle_cap: restarted
    games._started = now - 300.0
    stored[0] = 1
    assert not games._may_restart()  # its first game just stored: restart_cap counts from now
    games._first_stored = time.monotonic() - 121.0
    assert games._may_restart()
    games._first_stored = time.monotonic()
    stored[0] = 2
    assert games._may_restart()  # a batch (as many games as workers) stored


def test_stop_during_a_slow_start_leaves_no_child(klass: Any, monkeypatch: Any) -> None:
    """stop() whose join times out while the worker's thread is starting the child still ends that child."""
    _, state, _ = klass
    games = GamesWorker(state, workers=1, poll=0.05)
    started: list[subprocess.Popen[bytes]] = []
    spawning = threading.Event()

    def slow_spawn(fp: str) -> None:
        spawning.set()
        time.sleep(0.5)
        started.append(_spawn_sleeper(dict(os.environ)))
        games._proc, games._running_fp = started[-1], fp

    monkeypatch.setattr(games, "_spawn", slow_spawn)
    monkeypatch.setattr(games, "_entrants", lambda: 2)
    try:
        games.start()
        assert spawning.wait(10)
        games.stop(timeout=0.05)
        assert len(started) == 1 and started[0].poll() is not None
    finally:
        for p in started:
            p.kill()
            p.wait()


def test_a_stale_games_result_is_never_taken_for_a_new_run(klass: Any, monkeypatch: Any) -> None:
    """A killed server left portal/games-result.json: the next run starts without it, so a run that ends without
    writing its own is reported as stopped, not as the stale run's games."""
    from cabo_kit.tournament import lock as lock_module

    folder, state, _ = klass
    (state.dir / "games-result.json").write_text(json.dumps({"fingerprint": fingerprint(folder), "played": 999}))
    popen = subprocess.Popen
    fd = os.open(os.devnull, os.O_RDONLY)
    monkeypatch.setattr(lock_module, "held_fd", lambda folder: fd)
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: popen([sys.executable, "-c", "pass"], **k))
    games = GamesWorker(state, workers=1)
    try:
        games._spawn(fingerprint(folder))
        proc = games._proc
        assert proc is not None and proc.wait(30) == 0
        games._collect(proc)
    finally:
        os.close(fd)
    last = _last(state)
    assert "played" not in last and "stopped unexpectedly" in last["error"], last


def test_stored_counts_the_games_of_the_store(klass: Any) -> None:
    folder, state, _ = klass
    games = GamesWorker(state, workers=1)
    assert games._stored() == 0  # no store yet
    accept(state, "ada", bot("ada"))
    summary = run_tournament(folder, workers=1, progress=False, out=None)
    assert summary.played > 0 and games._stored() == summary.played


@pytest.mark.skipif(not LINUX or not __import__("cabo_kit.portal.server", fromlist=["x"]).bots_get_own_uid(),
                    reason="bots get a uid of their own only when the server is root; the spy looks through /proc")
def test_a_bot_in_the_games_finds_the_class_folder_and_reads_nothing_of_it() -> None:
    """A file that plays fair under its check and spies in the class's games (tests/portal_class_bots/spy.py): it finds
    the folder from the games' command line and tries the links, the portal's store and uploads, results.sqlite,
    another student's file, the logs, the outputs and tournament.toml (its seed tells every deal). An earlier
    `tournament run` left the store, logs and tournament.toml readable to all; the folder and open-to-all.txt stay so
    (the spy must read that, so "nothing else" means something)."""
    import tempfile

    from cabo_kit.portal.links import write_links

    folder = Path(tempfile.mkdtemp(prefix="cabo-portal-spy-games-", dir="/tmp"))
    try:
        os.chmod(folder, 0o755)
        (folder / "tournament.toml").write_text(TINY)
        os.chmod(folder / "tournament.toml", 0o644)
        (folder / "open-to-all.txt").write_text("the control: readable to all on purpose\n")
        os.chmod(folder / "open-to-all.txt", 0o644)
        state = PortalState(folder)
        write_links(folder, state.sync_roster([Student("s000", "Ada"), Student("s040", "Spy")]), {}, "http://x")
        accept(state, "s000", bot("s000"))
        run_tournament(folder, workers=1, progress=False, out=None)  # as a teacher's run before the portal
        write_outputs(folder, out=None)
        for path in (folder / DB_NAME, folder / "leaderboard.csv", folder / "logs"):
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        spy = ROOT / "tests" / "portal_class_bots"  # the spy and what it shares with the class's hostile files
        accept(state, "s040", (spy / "spy.py").read_bytes() + b"\n\n" + (spy / "common.py").read_bytes())
        lock = FolderLock(folder, "the portal server at test").acquire()
        games = GamesWorker(state, workers=1, poll=0.1)
        try:
            games.start()
            until(lambda: games.status().up_to_date, 90, lambda: _log(state))
        finally:
            games.stop()
            lock.release()
            state.close()
        said = "".join(p.read_text() for p in (folder / "logs").glob("s040-*.log"))
        assert "SPY-FOLDER found" in said, said
        assert set(re.findall(r"SPY-FOUND (.*)", said)) == {"open-to-all.txt reads 40"}, said
        for name in ("tournament.toml", DB_NAME, "leaderboard.csv", "report.html", "logs", "bots", "portal", "portal-links.csv"):
            assert os.stat(folder / name).st_mode & 0o077 == 0, name
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class _Clock:
    """games.py's ``time`` with a monotonic clock the test moves (the rest is the real module)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def test_checks_go_first_no_run_starts_while_uploads_wait_and_a_wave_stops_a_run_only_as_a_restart_would(
        klass: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """While uploads wait for their check's first verdict no run starts (the next one plays what they accept); a lone
    upload leaves a running run alone; a wave of them (hold_wave) stops it, but only once it may be restarted (a run
    just started plays on); the holds end at hold_cap in all."""
    from cabo_kit.portal import games as games_module

    folder, state, _ = klass
    clock = _Clock()
    monkeypatch.setattr(games_module, "time", clock)
    accept(state, "ada", bot("ada 1"))
    accept(state, "bob", bot("bob 1"))
    games = GamesWorker(state, workers=2, poll=60.0, restart_after=10.0, hold_wave=3, hold_cap=60.0, hold_window=300.0)
    runs: list[subprocess.Popen[bytes]] = []
    stored = [0]

    def spawn(fp: str) -> None:
        runs.append(_spawn_sleeper(dict(os.environ)))
        games._proc, games._running_fp, games._started = runs[-1], fp, clock.now
        games._stored_at_start, games._first_stored = stored[0], None

    def upload(pid: str, tag: str) -> int:
        return state.add_upload(pid, bot(tag), f"{pid}.py", min_interval=0.0).number

    monkeypatch.setattr(games, "_spawn", spawn)
    monkeypatch.setattr(games, "_stored", lambda: stored[0])
    try:
        cy = upload("cy", "cy 1")
        games.tick()
        assert runs == [] and games.status().waiting == 1
        assert games.status().text() == "Waiting for the check of 1 upload (checks go first)."
        state.set_check("cy", cy, "accepted", "ok", rest=True)  # its rest does not hold the games
        clock.now += 1
        games.tick()
        assert len(runs) == 1 and games._running_fp == fingerprint(folder) and games.status().waiting == 0
        upload("ada", "ada 2")  # a lone upload: its check runs beside the games
        clock.now += 1
        games.tick()
        assert len(runs) == 1 and runs[0].poll() is None and games.status().running
        upload("bob", "bob 2")
        upload("cy", "cy 2")  # a wave, but the run started a second ago and has stored nothing: it plays on
        games.tick()
        assert len(runs) == 1 and runs[0].poll() is None
        clock.now += 10
        stored[0] = 2  # 11 s and a batch stored: the wave stops it, the checks get every core
        games.tick()
        assert runs[0].poll() is not None and len(runs) == 1 and games.status().waiting == 3
        clock.now += 57  # held 58 s in all (and 1 s for cy's first upload)
        games.tick()
        assert len(runs) == 1
        clock.now += 2  # past hold_cap in all: the games play beside the checks
        games.tick()
        assert len(runs) == 2 and runs[1].poll() is None
        clock.now += 20
        stored[0] = 10
        games.tick()  # still past the cap within the window: the new run is not stopped for the wave
        assert len(runs) == 2 and runs[1].poll() is None
        for pid, number in [(u.person, u.number) for u in state.pending_checks()]:
            state.set_check(pid, number, "rejected", "a problem")
        games.tick()
        assert games._hold_since is None and len(runs) == 2
    finally:
        games.stop()
        for proc in runs:
            proc.kill()
            proc.wait()


def test_waves_of_uploads_with_short_gaps_hold_the_games_at_most_hold_cap_in_any_window(
        klass: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Uploads waiting 50 s, then none for 5 s, for half an hour: each hold is under a minute, yet the games wait at
    most hold_cap (60 s) in any hold_window (5 minutes), and do wait (the checks still go first at times)."""
    from cabo_kit.portal import games as games_module

    _, state, _ = klass
    clock = _Clock()
    monkeypatch.setattr(games_module, "time", clock)
    games = GamesWorker(state, hold_cap=60.0, hold_window=300.0)
    held: list[bool] = []
    for second in range(1800):
        held.append(games._held(3 if second % 55 < 50 else 0))
        games._note_hold(held[-1])  # no run plays while they are held
        clock.now += 1.0
    worst = max(sum(held[i:i + 300]) for i in range(len(held) - 299))
    assert 60 <= worst <= 61 and held[:50] == [True] * 50, worst  # a tick of slack
    assert 300 <= sum(held) <= 6 * 61


def test_the_final_run_waits_for_the_rest_of_every_check_made_before_the_deadline(klass: Any) -> None:
    """A rest may still reject a file (and bring back the version before it): the deadline's run is not done before.
    The rest of a version no longer current is skipped: the final run does not wait for it (cy's first)."""
    folder, state, _ = klass
    accept(state, "ada", bot("ada 1"), now=1000.0)
    up = state.add_upload("bob", bot("bob 1"), "bob.py", now=1000.0, min_interval=0.0)
    state.set_check("bob", up.number, "accepted", "first verdict", rest=True)
    old = state.add_upload("cy", bot("cy 1"), "cy.py", now=1000.0, min_interval=0.0)
    state.set_check("cy", old.number, "accepted", "first verdict", rest=True)
    accept(state, "cy", bot("cy 2"), now=1100.0)
    state.set_deadline(2000.0)
    state.set_setting("games_last", json.dumps({"fingerprint": fingerprint(folder), "summary": "played"}))
    games = GamesWorker(state, workers=1)
    games.tick()
    assert games.status().up_to_date and not games.status().final
    state.set_check("bob", up.number, "accepted", "the whole check")
    games.tick()
    assert games.status().final and state.upload("cy", old.number).rest  # type: ignore[union-attr]


def test_the_games_child_never_imports_from_the_class_folder(klass: Any) -> None:
    """`python -m` imports from its working directory first, and the class folder is no place for that (its bots/
    holds the students' files): a json.py there never runs in the games, which still play the folder."""
    folder, state, _ = klass
    marker = folder.parent / "imported"
    (folder / "json.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    accept(state, "ada", bot("ada"))
    lock = FolderLock(folder, "the portal server at test").acquire()
    games = GamesWorker(state, workers=1)
    try:
        games._spawn(fingerprint(folder))
        proc = games._proc
        assert proc is not None and proc.wait(120) == 0, _log(state)
        assert not any(str(folder) in str(arg) for arg in proc.args)  # its command line does not name the folder
        games._collect(proc)
    finally:
        games.stop()
        lock.release()
    assert not marker.exists()
    assert "error" not in _last(state) and _last(state)["played"] > 0, _last(state)


def test_uploads_the_checker_failed_on_neither_hold_the_games_nor_keep_the_final_run_from_done(
        klass: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """An upload stuck 'checking' (its check process ended: it waits to be tried again) and a rest the checker failed
    on: neither counts in the games' waiting, and after the deadline the final run is done without them."""
    folder, state, _ = klass
    accept(state, "ada", bot("ada 1"), now=1000.0)
    accept(state, "bob", bot("bob 1"), now=1000.0)
    stuck = state.add_upload("cy", bot("cy 1"), "cy.py", now=1000.0, min_interval=0.0)
    rest = state.add_upload("bob", bot("bob 2"), "bob.py", now=1000.0, min_interval=0.0)
    state.set_check("bob", rest.number, "accepted", "first verdict", rest=True)
    games = GamesWorker(state, workers=1, poll=60.0)
    runs: list[str] = []
    monkeypatch.setattr(games, "_spawn", lambda fp: runs.append(fp))
    games.tick()
    assert runs == [] and games.status().waiting == 1  # cy's first verdict holds the games
    state.note_failure("cy", stuck.number, counted=True, retry_at=time.time() + 60.0)
    games.tick()
    assert runs == [fingerprint(folder)] and games.status().waiting == 0 and games._hold_since is None
    state.note_failure("bob", rest.number, counted=True, retry_at=time.time() + 60.0)
    state.set_deadline(2000.0)
    state.set_setting("games_last", json.dumps({"fingerprint": fingerprint(folder), "summary": "played"}))
    games.tick()
    assert games.status().final and state.pending_checks() and state.pending_rests()


def test_holds_count_only_while_a_run_would_otherwise_start(klass: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Uploads waiting while the games are up to date (or have fewer than two bots) hold nothing: the hold cap is
    still whole when a new version comes, and the checks then go first for the whole of it."""
    from cabo_kit.portal import games as games_module

    folder, state, _ = klass
    clock = _Clock()
    monkeypatch.setattr(games_module, "time", clock)
    (folder / "tournament.toml").write_text(TINY.replace('reference = ["RandomBot"]', "reference = []"))
    accept(state, "ada", bot("ada 1"))
    games = GamesWorker(state, workers=1, poll=60.0, hold_cap=60.0, hold_window=300.0)
    runs: list[str] = []
    monkeypatch.setattr(games, "_spawn", lambda fp: runs.append(fp))
    state.add_upload("bob", bot("bob 1"), "bob.py", min_interval=0.0)  # waits for its check a long while
    for _ in range(60):  # one bot: no run would start
        games.tick()
        clock.now += 1.0
    accept(state, "cy", bot("cy 1"))
    state.set_setting("games_last", json.dumps({"fingerprint": fingerprint(folder), "summary": "played"}))
    for _ in range(60):  # up to date: no run would start
        games.tick()
        clock.now += 1.0
    assert runs == [] and games._hold_since is None and games._holds == []
    accept(state, "ada", bot("ada 2"))  # a new version: now a run would start, and bob's check goes first
    for _ in range(59):
        games.tick()
        clock.now += 1.0
    assert runs == []
    clock.now += 1.0
    games.tick()  # the cap, in all: the run starts beside bob's check
    assert runs == [fingerprint(folder)]
