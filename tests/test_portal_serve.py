"""``cabo-kit serve``: the command's refusals in-process, and one real server (uvicorn on 127.0.0.1) from start to SIGTERM."""

from __future__ import annotations

import csv
import http.client
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn")
pytest.importorskip("starlette")

from cabo_kit.cli import main  # noqa: E402
from cabo_kit.portal import server  # noqa: E402
from cabo_kit.tournament.lock import holder  # noqa: E402
from portal_process import read_links, start_serve  # noqa: E402  (tests/portal_process.py)

ROOT = Path(__file__).resolve().parent.parent
GOOD = (Path(__file__).parent / "fault_bots" / "good.py").read_bytes()


@pytest.fixture
def klass(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "class-2026"
    folder.mkdir()
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name\nada,Ada Lovelace\nbob,Bob\n")
    return folder, roster


def test_a_bad_roster_line_is_refused_before_anything_starts(klass: tuple[Path, Path], capsys: Any) -> None:
    folder, roster = klass
    roster.write_text("id,name\nada,Ada\nGreedyBot,Greg\n")
    assert main(["serve", str(folder), "--roster", str(roster)]) == 2
    err = capsys.readouterr().err
    assert f"{roster} line 3: the id 'GreedyBot' is not valid" in err
    assert not (folder / "portal").exists() and not (folder / "portal-links.csv").exists()


def test_without_own_uids_for_bots_serve_needs_same_user_bots(klass: tuple[Path, Path], capsys: Any,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    folder, roster = klass
    monkeypatch.setattr(server, "bots_get_own_uid", lambda: False)
    assert main(["serve", str(folder), "--roster", str(roster)]) == 2
    assert "accept the risk with --same-user-bots" in capsys.readouterr().err
    assert not (folder / "portal").exists()


def test_serve_needs_a_roster_and_a_folder(klass: tuple[Path, Path], capsys: Any) -> None:
    folder, roster = klass
    assert main(["serve"]) == 2
    assert "(or try it: cabo-kit serve --demo)" in capsys.readouterr().err
    assert main(["serve", str(folder), "--demo"]) == 2
    assert "--demo makes its own class" in capsys.readouterr().err
    assert main(["serve", str(folder)]) == 2
    assert "--roster roster.csv" in capsys.readouterr().err
    assert main(["serve", str(folder / "nope"), "--roster", str(roster)]) == 2
    assert "is not a folder" in capsys.readouterr().err
    assert main(["serve", str(folder), "--reissue", "ada"]) == 2
    assert "has no portal yet" in capsys.readouterr().err
    assert main(["serve", str(folder), "--roster", str(roster), "--max-upload", "lots"]) == 2
    assert "is not a size" in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _request(port: int, method: str, path: str, cookie: str = "", body: bytes = b"",
             headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    con = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        con.request(method, path, body=body or None, headers={**({"Cookie": cookie} if cookie else {}), **(headers or {})})
        response = con.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
    finally:
        con.close()


def _multipart(csrf: str, name: str, data: bytes) -> tuple[bytes, str]:
    boundary = "cabo0boundary"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n{csrf}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n"
            "Content-Type: text/x-python\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def test_a_real_server_from_start_to_sigterm(klass: tuple[Path, Path], capsys: Any) -> None:
    folder, roster = klass
    port = _free_port()
    log = folder.parent / "server.log"
    proc = start_serve(folder, roster, port, log, "--check-games", "2")
    try:
        deadline = time.monotonic() + 30
        links = read_links(folder)
        assert set(links) == {"_teacher", "ada", "bob"}
        assert _toml(folder)["seed"] > 0 and "a random secret seed is written" in log.read_text()  # no deal computable
        assert stat.S_IMODE(os.stat(folder / "portal-links.csv").st_mode) == 0o600
        # while it serves, the folder is held: a tournament run is refused and names the server
        assert main(["tournament", "run", str(folder)]) == 1
        assert f"is in use by the portal server at http://127.0.0.1:{port}: pid {proc.pid}" in capsys.readouterr().err
        # a student signs in, uploads, and sees the check's result
        status, headers, _ = _request(port, "GET", links["ada"].split(str(port), 1)[1])
        assert status == 303 and headers["location"] == "/"
        cookie = headers["set-cookie"].split(";", 1)[0]
        status, _, page = _request(port, "GET", "/", cookie)
        assert status == 200 and "Ada Lovelace" in page
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        body, kind = _multipart(csrf, "my_bot.py", GOOD)
        status, _, _ = _request(port, "POST", "/upload", cookie, body, {"Content-Type": kind})
        assert status == 303
        while '"status": "running"' in (check := _request(port, "GET", "/check", cookie)[2]).replace('":"', '": "'):
            assert time.monotonic() < deadline + 30, check
            time.sleep(0.2)
        assert '"accepted"' in check, check
        assert (folder / "bots" / "ada.py").read_bytes() == GOOD
        # a reissue while it runs: the old session and link stop working at once
        assert main(["serve", str(folder), "--reissue", "ada"]) == 0
        assert "a new sign-in link for ada" in capsys.readouterr().out
        assert _request(port, "GET", "/", cookie)[0] == 403
        assert _request(port, "GET", links["ada"].split(str(port), 1)[1])[0] == 403
        assert read_links(folder)["ada"] != links["ada"] and read_links(folder)["bob"] == links["bob"]
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert code == 0
    text = log.read_text()
    assert "Logging error" not in text and "Traceback" not in text, text
    assert '"GET /signin/[redacted] HTTP/1.1" 303' in text
    for secret in [*links.values(), *read_links(folder).values(), cookie.split("=", 1)[1]]:
        assert secret.rsplit("/", 1)[-1] not in text
    assert holder(folder) is None


def _check_processes(checks: list[int] = []) -> list[int]:  # noqa: B006 - never mutated
    """PIDs of running check processes (their command line ends ``cabo-portal-check-process``: any portal's on this
    machine), and of the harness processes of the checks ``checks`` (the harness server's command line names its
    parent: ``"ppid": PID``)."""
    marks = [b"cabo-portal-check-", *(f'"ppid": {pid}'.encode() for pid in checks)]
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            line = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if any(m in line for m in marks) and int(proc.name) != os.getpid():
            found.append(int(proc.name))
    return found


def _descends(pid: int, ancestor: int) -> bool:
    """Whether process ``pid`` is ``ancestor`` or one of its descendants (through ``/proc/PID/stat``'s parent ids)."""
    while pid > 1:
        if pid == ancestor:
            return True
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        pid = int(text[text.rfind(")") + 2:].split()[1])
    return False


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="finds processes through /proc (Linux)")
def test_sigterm_during_a_check_leaves_no_process_and_the_upload_to_check_again(klass: tuple[Path, Path]) -> None:
    from cabo_kit.portal.state import PortalState

    folder, roster = klass
    port = _free_port()
    log = folder.parent / "server.log"
    proc = start_serve(folder, roster, port, log)
    try:
        deadline = time.monotonic() + 30
        status, headers, _ = _request(port, "GET", read_links(folder)["bob"].split(str(port), 1)[1])
        cookie = headers["set-cookie"].split(";", 1)[0]
        csrf = re.search(r'name="csrf" value="([^"]+)"', _request(port, "GET", "/", cookie)[2]).group(1)  # type: ignore[union-attr]
        slow = b"import time\ntime.sleep(60)\nimport cabo_kit as ck\nclass Slow(ck.Bot):\n    pass\n"
        body, kind = _multipart(csrf, "slow.py", slow)
        assert _request(port, "POST", "/upload", cookie, body, {"Content-Type": kind})[0] == 303
        checks: list[int] = []
        while len(checks) < 2:  # this server's check process and its harness server (not another portal's)
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
            checks = [p for p in _check_processes(_check_processes()) if _descends(p, proc.pid)]
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=20)
    assert code == 0, log.read_text()
    end = time.monotonic() + 5
    alive = lambda: [p for p in checks if Path(f"/proc/{p}").exists()]  # noqa: E731
    while alive() and time.monotonic() < end:  # a harness sees its parent gone within a moment
        time.sleep(0.1)
    assert alive() == []
    state = PortalState(folder)
    assert [u.status for u in state.uploads_of("bob")] == ["checking"]  # checked again at the next start
    state.close()


def test_the_demo_prints_two_links_that_work_and_leaves_nothing(tmp_path: Path) -> None:
    port = _free_port()
    log = tmp_path / "demo.log"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "cabo_kit.cli", "serve", "--demo", "--port", str(port),
                                 "--check-games", "1", "--check-workers", "2"],
                                stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 30
        while b"Uvicorn running" not in log.read_bytes():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.1)
        text = log.read_text()
        folder = Path(re.search(r"a throwaway class of 5 students in (\S+) ", text).group(1))  # type: ignore[union-attr]
        teacher = re.search(r"the teacher's page: http://127\.0\.0\.1:\d+(/signin/\S+)", text).group(1)  # type: ignore[union-attr]
        student = re.search(r"barbara's page: +http://127\.0\.0\.1:\d+(/signin/\S+)", text).group(1)  # type: ignore[union-attr]
        status, headers, _ = _request(port, "GET", teacher)
        assert status == 303 and headers["location"] == "/teacher"
        cookie = headers["set-cookie"].split(";", 1)[0]
        page = _request(port, "GET", "/teacher", cookie)[2]
        for sid in ("ada", "alan", "grace", "edsger"):
            assert re.search(rf'data-student="{sid}" data-state="(running|accepted)"', page), page
        assert 'data-student="barbara" data-state="no-file"' in page
        status, headers, _ = _request(port, "GET", student)
        assert status == 303 and headers["location"] == "/"
        assert (folder / "portal" / "uploads" / "ada" / "1.py").read_bytes().startswith(b'"""GreedyBot')
        # the demo plays games: once the four files are accepted, a run writes the leaderboard the teacher opens
        bots: set[str] = set()
        while not {"ada", "alan", "grace", "edsger", "RandomBot"} <= bots:
            assert proc.poll() is None and time.monotonic() < deadline + 90, (bots, log.read_text())
            time.sleep(0.5)
            status, _, board = _request(port, "GET", "/teacher/leaderboard.csv", cookie)
            bots = {row["bot"] for row in csv.DictReader(board.splitlines())} if status == 200 else set()
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=20)
    assert code == 0, log.read_text()
    assert not folder.exists()


# ------------------------------------------------------------------ a secret seed (review of issue 19)


def _toml(folder: Path) -> dict[str, Any]:
    from cabo_kit.tournament.config import tomllib

    return dict(tomllib.loads((folder / "tournament.toml").read_text(encoding="utf-8")))


def test_serve_gives_a_folder_without_a_seed_a_random_secret_one(tmp_path: Path) -> None:
    """The default seed 0 is in the public code: every deal could be worked out. A folder that sets none gets a
    random one, the file's other lines and comments kept; one without tournament.toml gets a file with it alone."""
    from cabo_kit.tournament.config import load_config

    original = ('# class 3B\n\npresets = ["rush", {preset = "deluxe", hand_size = 5}]  # two presets\n'
                'table_sizes = [\n  2,\n  3,\n]\n\n[limits]\ndecision_s = 2.0\n')
    seeds = []
    for i in range(2):
        folder = tmp_path / f"class{i}"
        folder.mkdir()
        (folder / "tournament.toml").write_text(original)
        os.chmod(folder / "tournament.toml", 0o640)
        assert "a random secret seed is written" in server.secret_seed(folder)
        text = (folder / "tournament.toml").read_text()
        assert text.replace(re.search(r"seed = \d+  #[^\n]*\n", text).group(0), "") == original  # type: ignore[union-attr]
        data = _toml(folder)
        seeds.append(data.pop("seed"))
        assert data == {"presets": ["rush", {"preset": "deluxe", "hand_size": 5}], "table_sizes": [2, 3],
                        "limits": {"decision_s": 2.0}}
        assert load_config(folder)[0].seed == seeds[-1] and stat.S_IMODE(os.stat(folder / "tournament.toml").st_mode) == 0o600  # the seed: its owner's only
        assert server.secret_seed(folder) == "" and _toml(folder)["seed"] == seeds[-1]  # once only
    assert seeds[0] != seeds[1] and all(s >= 1 for s in seeds)
    bare = tmp_path / "bare"
    bare.mkdir()
    assert server.secret_seed(bare) and set(_toml(bare)) == {"seed"} and _toml(bare)["seed"] > 0
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "tournament.toml").write_text("seed = 0\n")  # the teacher's own choice, even 0, is theirs
    assert server.secret_seed(mine) == "" and (mine / "tournament.toml").read_text() == "seed = 0\n"


def test_a_folder_with_games_of_the_default_seed_keeps_it_and_says_why(tmp_path: Path) -> None:
    """Games already stored under seed 0 and no seed line: a new seed would make the tournament refuse them all."""
    from cabo_kit.tournament.store import GameRow, SeatRow, Store

    toml = 'presets = ["rush"]\n'
    for recorded in (True, False):  # a store that records its seed, and an older one that does not
        folder = tmp_path / str(recorded)
        folder.mkdir()
        (folder / "tournament.toml").write_text(toml)
        with Store(folder / "results.sqlite") as store:
            if recorded:
                store.set_meta("seed", "0")
            else:
                store.add_game(GameRow("g", "d", "00000:x:0", "rush", "{}", 2, 7, 0, "ok", 1, b"{}"),
                               [SeatRow(0, "a", "v", 1, 1, 1.0, "ok", "", {}), SeatRow(1, "b", "v", 2, 2, 0.0, "ok", "", {})])
        said = server.secret_seed(folder)
        assert (folder / "tournament.toml").read_text() == toml
        assert ("seed 0: kept" if recorded else "the default seed 0: kept") in said
        assert "would make the tournament refuse every stored game" in said and "move results.sqlite aside" in said


def test_serve_makes_the_folder_private_before_any_check_runs(klass: tuple[Path, Path], monkeypatch: Any) -> None:
    """A teacher's earlier `tournament run` left the store, logs and tournament.toml (its seed tells every deal)
    readable to all: checks run hostile files under other uids, so all of it is private before the first check."""
    import argparse

    import uvicorn

    from cabo_kit.portal.checker import CheckWorker
    from cabo_kit.portal.games import GamesWorker
    from cabo_kit.portal.roster import load_roster

    folder, roster = klass
    (folder / "tournament.toml").write_text('presets = ["rush"]\nseed = 12345\n')
    (folder / "results.sqlite").write_bytes(b"")
    (folder / "logs").mkdir()
    for path, mode in ((folder / "tournament.toml", 0o644), (folder / "results.sqlite", 0o644), (folder / "logs", 0o755)):
        os.chmod(path, mode)
    seen: dict[str, int] = {}

    def start(self: Any) -> Any:
        for name in ("tournament.toml", "results.sqlite", "logs"):
            seen[name] = stat.S_IMODE(os.stat(folder / name).st_mode)
        return self

    monkeypatch.setattr(CheckWorker, "start", start)
    monkeypatch.setattr(GamesWorker, "start", lambda self: self)
    monkeypatch.setattr(uvicorn.Server, "run", lambda self: None)
    args = argparse.Namespace(host="127.0.0.1", port=_free_port(), root_path="", base_url=None, check_games=1,
                              check_workers=1, workers=1, max_upload=1 << 20, upload_interval=30.0, same_user_bots=True)
    assert server._serve(args, folder, load_roster(roster), say=lambda line: None) == 0
    assert seen == {"tournament.toml": 0o600, "results.sqlite": 0o600, "logs": 0o700}


def test_the_seed_written_is_private_keeps_crlf_and_its_own_line(tmp_path: Path) -> None:
    """The seed tells every deal: tournament.toml is written readable by its owner only (a new file 0600); a CRLF
    file keeps its line ends, and a file of comments without a last line end gets the seed on a line of its own."""
    crlf = tmp_path / "crlf"
    crlf.mkdir()
    (crlf / "tournament.toml").write_bytes(b'# class\r\npresets = ["rush"]\r\n')
    os.chmod(crlf / "tournament.toml", 0o644)
    assert "a random secret seed is written" in server.secret_seed(crlf)
    raw = (crlf / "tournament.toml").read_bytes()
    assert raw.count(b"\r\n") == 3 and b"\n" not in raw.replace(b"\r\n", b"") and _toml(crlf)["seed"] > 0
    assert stat.S_IMODE(os.stat(crlf / "tournament.toml").st_mode) == 0o600
    comment = tmp_path / "comment"
    comment.mkdir()
    (comment / "tournament.toml").write_text("# only a comment, no line end")
    assert server.secret_seed(comment) and _toml(comment)["seed"] > 0
    assert (comment / "tournament.toml").read_text().startswith("# only a comment, no line end\nseed = ")
    bare = tmp_path / "bare"
    bare.mkdir()
    assert server.secret_seed(bare) and stat.S_IMODE(os.stat(bare / "tournament.toml").st_mode) == 0o600


def test_a_store_with_a_secret_seed_and_no_seed_line_gets_its_seed_written(tmp_path: Path) -> None:
    """The store records seed S (a file that lost its line): S is written back, so the runner keeps every stored game."""
    from cabo_kit.tournament.config import load_config
    from cabo_kit.tournament.store import Store

    (tmp_path / "tournament.toml").write_text('presets = ["rush"]\n')
    with Store(tmp_path / "results.sqlite") as store:
        store.set_meta("seed", "987654")
    said = server.secret_seed(tmp_path)
    assert "the secret seed the games in results.sqlite were played with is written" in said, said
    assert _toml(tmp_path)["seed"] == 987654 and load_config(tmp_path)[0].seed == 987654
    assert server.secret_seed(tmp_path) == ""
