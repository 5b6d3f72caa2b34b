"""Issue 17, must 5: a damaged, read-only or busy tournament folder is named with its fix, and nothing is lost.

Each case goes through the command line (``main([...])`` or a subprocess) and checks the exit
status, the message (the file, what is wrong, what to do, no traceback) and that the store's
bytes are untouched. Read-only cases run for real as another user (``nobody`` when the tests
run as root, whom ``chmod`` does not stop) and also with the permission check simulated, so
the message path runs everywhere.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from cabo_kit.cli import main
from cabo_kit.tournament import lock as lock_mod
from cabo_kit.tournament import store as store_mod
from cabo_kit.tournament.lock import LOCK_NAME, FolderBusy, FolderLock, holder
from cabo_kit.tournament.runner import run_tournament
from cabo_kit.tournament.store import Store, load_frames

ROOT = Path(__file__).resolve().parent.parent
STORE_V1 = Path(__file__).parent / "data" / "store_v1" / "results.sqlite"
TOML = 'presets = ["rush"]\ntable_sizes = [2]\ngames = 2\nseed = 17\nreference = ["RandomBot", "GreedyBot"]\n'  # seed 17: store_v1's


def _folder(path: Path, store: bool = True) -> Path:
    """A tournament folder of two reference bots; with ``store``, the 6-game store written by cabo-kit 8b557dd."""
    path.mkdir(parents=True, exist_ok=True)
    (path / "tournament.toml").write_text(TOML)
    if store:
        shutil.copy(STORE_V1, path / "results.sqlite")
    return path


def _cli(capsys: pytest.CaptureFixture[str], *words: str) -> tuple[int, str, str]:
    code = main(["tournament", *words, "--no-progress"] if words[0] == "run" else ["tournament", *words])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


DAMAGE = {
    "truncated": lambda data: data[:3000],
    "garbage": lambda data: bytes((i * 7919) % 251 for i in range(len(data))),
    "damaged inside": lambda data: data[:6 * 4096] + b"\xff" * 64 + data[6 * 4096 + 64:],
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_store_is_named_with_the_fix_and_left_as_it_is(
    damage: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    folder = _folder(tmp_path / "class")
    db = folder / "results.sqlite"
    db.write_bytes(DAMAGE[damage](db.read_bytes()))
    before = db.read_bytes()
    for action in ("run", "report", "repro"):
        code, out, err = _cli(capsys, action, str(folder), *(["raises_late"] if action == "repro" else []))
        assert code == 1, (action, out, err)
        assert f"{db} is not a readable results store (" in err
        assert f"Move it aside (mv {db} {db}.damaged) and run `cabo-kit tournament run {folder}` again: " \
               "the games will be replayed; nothing else in the folder is changed" in err
        assert db.read_bytes() == before  # never deleted, never rewritten
        assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()
        assert not (folder / "leaderboard.csv").exists()
    db.rename(f"{db}.damaged")  # the advice, followed: the games are played again
    code, out, err = _cli(capsys, "run", str(folder))
    assert code == 0 and "2 games played" in out
    assert Path(f"{db}.damaged").read_bytes() == before


def test_a_journal_that_is_not_one_is_named_and_moved_with_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    folder = _folder(tmp_path / "class")
    db = folder / "results.sqlite"
    Path(f"{db}-wal").write_bytes(b"not a journal" * 100)
    code, _, err = _cli(capsys, "run", str(folder))
    assert code == 1
    assert "(its journal results.sqlite-wal is not a SQLite journal)" in err
    assert f"mv {db} {db}.damaged; mv {db}-wal {db}.damaged-wal)" in err
    assert Path(f"{db}-wal").read_bytes() == b"not a journal" * 100


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder another user can enter (pytest's tmp_path is private to this user)."""
    path = Path(tempfile.mkdtemp(prefix="cabo-store-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        for p in [path, *path.rglob("*")]:
            if p.is_dir():
                p.chmod(0o755)
        shutil.rmtree(path)


def _as_nobody(cmd: list[str]) -> list[str]:
    # setpriv rather than subprocess's user=: the interpreter's path may pass through root's home
    setpriv = shutil.which("setpriv")
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", *cmd] if setpriv else cmd


def _as_reader_without_rights(folder: Path, *words: str) -> subprocess.CompletedProcess[str]:
    """``cabo-kit tournament WORDS`` run by a user who may not write what root (or this user) made read-only."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(folder.parent)}
    cmd = [sys.executable, "-m", "cabo_kit.cli", "tournament", *words]
    if os.geteuid() == 0:
        return subprocess.run(_as_nobody(cmd), env=env, capture_output=True, text=True, timeout=60, cwd=folder.parent)
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60, cwd=folder.parent)


def test_read_only_store_and_folder_for_real(shared_dir: Path) -> None:
    if os.geteuid() == 0:
        probe = _as_nobody([sys.executable, "-c", "import os, cabo_kit; print(os.geteuid())"])
        try:
            done = subprocess.run(probe, capture_output=True, text=True, timeout=30,
                                  env={**os.environ, "PYTHONPATH": str(ROOT)})
        except OSError as exc:
            done = subprocess.CompletedProcess(probe, 1, "", str(exc))
        if done.stdout.strip() != "65534":
            pytest.skip("running as root, whom chmod does not stop, and cannot start this Python as nobody "
                        f"(setpriv) to meet a read-only file: {done.stderr.strip()[-200:]}")
    folder = _folder(shared_dir / "class")
    db = folder / "results.sqlite"
    before = db.read_bytes()
    db.chmod(0o444)
    folder.chmod(0o555)  # for nobody, root's 0755 already is: chmod only matters to a non-root run
    done = _as_reader_without_rights(folder, "run", str(folder), "--no-progress")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"the folder {folder} is not writable (Permission denied)" in done.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["results.sqlite", "tournament.toml"]
    done = _as_reader_without_rights(folder, "report", str(folder))  # reads the store; cannot write its files
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "steady" in done.stdout  # the leaderboard is printed first
    assert f"could not write leaderboard.csv: the folder {folder} is not writable (Permission denied)" in done.stderr
    folder.chmod(0o777)  # a writable folder, a read-only store file
    done = _as_reader_without_rights(folder, "run", str(folder), "--no-progress")
    assert done.returncode == 1 and f"the file {db} is not writable (Permission denied)" in done.stderr, done.stderr
    done = _as_reader_without_rights(folder, "report", str(folder))
    assert done.returncode == 0, done.stderr
    assert (folder / "report.html").exists() and db.read_bytes() == before
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()  # no side files left in the owner's way


def test_read_only_messages_with_the_permission_check_simulated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The same paths as above, as root too: os.access is what says a file is read-only.
    folder = _folder(tmp_path / "class")
    db = folder / "results.sqlite"
    before = db.read_bytes()
    monkeypatch.setattr(lock_mod, "_writable", lambda p: Path(p) != db)
    code, _, err = _cli(capsys, "run", str(folder))
    assert code == 1 and f"the file {db} is not writable (Permission denied): make it writable (chmod u+w {db})" in err
    assert not Path(f"{db}-wal").exists() and db.read_bytes() == before
    code, out, err = _cli(capsys, "report", str(folder))  # read without writing: no side files, outputs written
    assert code == 0 and "steady" in out and (folder / "report.html").exists()
    assert not Path(f"{db}-wal").exists() and db.read_bytes() == before
    monkeypatch.setattr(lock_mod, "_writable", lambda p: Path(p) != folder)
    code, _, err = _cli(capsys, "run", str(folder))
    assert code == 1 and f"the folder {folder} is not writable (Permission denied)" in err


def test_a_write_refused_by_sqlite_mid_run_names_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A real "attempt to write a readonly database" from SQLite (a read-only open), whatever the user.
    folder = _folder(tmp_path / "class")
    db = folder / "results.sqlite"
    with Store(db):
        pass
    monkeypatch.setattr(store_mod, "_connect", _readonly)
    code, _, err = _cli(capsys, "run", str(folder))
    assert code == 1, err
    assert f"{db} cannot be written (attempt to write a readonly database): check that you may write it and its " \
           f"folder (ls -ld {folder} {db})" in err
    assert len(load_frames(db, current_only=False)[0]) == 6


def _readonly(path: str | Path) -> sqlite3.Connection:
    return sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, isolation_level=None)


HOLD = """
import sys
from cabo_kit.tournament.lock import FolderLock
FolderLock(sys.argv[1], sys.argv[2], command=sys.argv[3]).acquire()
print("held", flush=True)
sys.stdin.read()
"""


def _holder(folder: Path, description: str, command: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(folder), description, command], text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def test_a_second_run_is_refused_naming_the_first_and_a_killed_holder_frees_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    folder = _folder(tmp_path / "class", store=False)
    first = _holder(folder, "a tournament run", f"cabo-kit tournament run {folder}")
    try:
        code, out, err = _cli(capsys, "run", str(folder))
        assert code == 1, err
        assert (f"{folder} is in use by a tournament run: pid {first.pid}, `cabo-kit tournament run {folder}`, "
                f"started ") in err
        assert f"; wait for it to end or stop it (kill {first.pid}), then try again" in err
        assert sorted(p.name for p in folder.iterdir()) == [LOCK_NAME, "tournament.toml"]  # nothing else written
        with pytest.raises(FolderBusy) as info:  # the same from Python, with who holds it
            run_tournament(folder, progress=False, out=None)
        assert info.value.holder is not None and info.value.holder.pid == first.pid
    finally:
        first.kill()  # as kill -9: the system releases the lock, the lock file stays
        first.wait()
    assert holder(folder) is None and (folder / LOCK_NAME).exists()
    code, out, err = _cli(capsys, "run", str(folder))
    assert code == 0 and "2 games played" in out, err
    code, out, _ = _cli(capsys, "run", str(folder))
    assert code == 0 and "nothing to play: all 2 games already in the store" in out


def test_a_portal_server_holding_the_folder_is_named_and_reports_still_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    folder = _folder(tmp_path / "class")
    server = _holder(folder, "the portal server at http://localhost:8866", f"cabo-kit serve {folder}")
    try:
        code, _, err = _cli(capsys, "run", str(folder))
        assert code == 1 and f"is in use by the portal server at http://localhost:8866: pid {server.pid}, " \
                              f"`cabo-kit serve {folder}`" in err
        code, out, err = _cli(capsys, "report", str(folder))  # WAL: reading while another holds the folder is safe
        assert code == 0, err
        assert f"note: {folder} is in use by the portal server" in out and "This shows the 6 games stored so far" in out
    finally:
        assert server.stdin is not None
        server.stdin.close()  # ends it normally: the lock file is emptied
        server.wait(timeout=30)
    assert holder(folder) is None


@pytest.mark.skipif(lock_mod.fcntl is None, reason="flock: a shared lock is what holder() takes to probe")
def test_a_holder_probe_at_the_same_moment_does_not_make_the_folder_busy(tmp_path: Path) -> None:
    import fcntl
    import threading

    folder = _folder(tmp_path / "class", store=False)
    FolderLock(folder).acquire().release()  # the lock file is there, empty (as after a holder let go)
    fd = os.open(folder / LOCK_NAME, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)  # what holder() holds for an instant while it probes

    def let_go() -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)

    probe = threading.Timer(0.15, let_go)
    probe.start()
    try:
        with FolderLock(folder, "a tournament run"):  # refused as busy at once before
            found = holder(folder)
            assert found is not None and found.pid == os.getpid()
    finally:
        probe.join()
    assert holder(folder) is None


def test_the_holding_process_may_run_its_own_folder_and_a_system_without_locks_warns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    folder = _folder(tmp_path / "class", store=False)
    with FolderLock(folder, "the portal server at http://localhost:8866"):
        assert run_tournament(folder, workers=1, progress=False, out=None).played == 2  # holds nest in one process
        assert holder(folder) is not None and holder(folder).pid == os.getpid()  # type: ignore[union-attr]
    assert holder(folder) is None
    monkeypatch.setattr(lock_mod, "fcntl", None)
    monkeypatch.setattr(lock_mod, "msvcrt", None)
    said: list[str] = []
    run_tournament(folder, games=4, workers=1, progress=False, out=said.append)
    assert any(s.startswith("warning: this system cannot lock folders, so nothing stops a second run") for s in said)


def test_exit_status_says_whether_anything_was_played(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = _folder(tmp_path / "empty", store=False)
    (empty / "tournament.toml").write_text('reference = ["RandomBot"]\n')
    code, _, err = _cli(capsys, "run", str(empty))
    assert code == 2 and "only RandomBot can play (no bot files in" in err
    small = _folder(tmp_path / "small", store=False)
    (small / "tournament.toml").write_text('reference = ["RandomBot", "GreedyBot"]\n')  # tables of 4 by default
    code, _, err = _cli(capsys, "run", str(small))
    assert code == 2 and "no game to play: a 4-player table needs 4 different bots and 2 can play (RandomBot, " \
                          "GreedyBot); add bot files or reference bots, or set table_sizes = [2]" in err
    assert sorted(p.name for p in small.iterdir()) == ["tournament.toml"]
