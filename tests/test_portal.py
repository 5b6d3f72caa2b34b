"""The portal's pieces without the web app: roster, links file, state (tokens, sessions, uploads), upload checks, log redaction."""

from __future__ import annotations

import logging
import os
import sqlite3
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from cabo_kit.portal.links import LINKS_NAME, write_links
from cabo_kit.portal.logs import install, redact
from cabo_kit.portal.roster import RosterError, Student, load_roster, parse_roster, reserved_names
from cabo_kit.portal.state import TEACHER, PortalState, TooSoon, secret_hash
from cabo_kit.portal.uploads import UploadRefused, check_upload

# ------------------------------------------------------------------ roster


def test_roster_reads_header_blank_lines_bom_and_quoted_names() -> None:
    text = "\ufeffid,name\n\nada,\"Lovelace, Ada\"\nb_2,\n"
    assert parse_roster(text) == [Student("ada", "Lovelace, Ada"), Student("b_2", "b_2")]


@pytest.mark.parametrize("line, says", [
    ("Ada,Ada", "the id 'Ada' is not valid"),
    ("_ada,Ada", "the id '_ada' is not valid"),
    ("a-b,Ada", "the id 'a-b' is not valid"),
    ("x" * 41 + ",Ada", "is not valid"),
    (",Ada", "the id '' is not valid"),
    ("greedybot,Greg", "is a reference bot's name"),
    ("randombot,Rand", "is a reference bot's name"),
    ("ada,Ada,extra", "3 fields where 2 are expected"),
    ("ada,Ada\x07", "control character"),
])
def test_roster_refusals_name_the_line(line: str, says: str) -> None:
    with pytest.raises(RosterError) as caught:
        parse_roster(f"id,name\nok_1,Fine\n{line}\n", "roster.csv")
    assert str(caught.value).startswith("roster.csv line 3: ")
    assert says in str(caught.value)


def test_every_reference_bot_name_is_refused_in_any_case() -> None:
    import cabo_kit.bots as bots

    for name in bots.__all__:
        assert name.lower() in reserved_names()
    with pytest.raises(RosterError, match="line 2: the id 'countingbot' is a reference"):
        parse_roster("ada,Ada\ncountingbot,C\n")


def test_duplicate_id_names_both_lines() -> None:
    with pytest.raises(RosterError, match=r"line 3: the id 'ada' is already on line 1"):
        parse_roster("ada,Ada\nbob,Bob\nada,Ada again\n")


def test_load_roster_file_errors(tmp_path: Path) -> None:
    with pytest.raises(RosterError, match="cannot read the roster"):
        load_roster(tmp_path / "missing.csv")
    bad = tmp_path / "latin1.csv"
    bad.write_bytes(b"ada,Ada\nzoe,Zo\xe9\n")
    with pytest.raises(RosterError, match=r"latin1.csv line 2: not UTF-8"):
        load_roster(bad)
    empty = tmp_path / "empty.csv"
    empty.write_text("id,name\n")
    with pytest.raises(RosterError, match="names no student"):
        load_roster(empty)


# ------------------------------------------------------------------ links and tokens


def test_links_file_is_private_and_rewrites_only_new_rows(tmp_path: Path) -> None:
    first = write_links(tmp_path, {"ada": "A" * 43, "bob": "B" * 43}, {"ada": "Ada", "bob": "+Bob"}, "http://h:1/p/")
    assert stat.S_IMODE(os.stat(first).st_mode) == 0o600
    write_links(tmp_path, {"bob": "C" * 43}, {"bob": "+Bob"}, "http://h:1/p")
    lines = (tmp_path / LINKS_NAME).read_text().splitlines()
    assert lines == ["id,name,link", f"ada,Ada,http://h:1/p/signin/{'A' * 43}", f"bob,'+Bob,http://h:1/p/signin/{'C' * 43}"]
    assert stat.S_IMODE(os.stat(first).st_mode) == 0o600
    assert not list(tmp_path.glob(".*.tmp"))


def _db_bytes(folder: Path) -> bytes:
    """The state's database with its write-ahead log (where fresh rows are until a checkpoint)."""
    return b"".join(p.read_bytes() for p in sorted((folder / "portal").glob("portal.sqlite*")))


def test_tokens_are_stored_only_as_hashes_and_reissue_ends_sessions(tmp_path: Path) -> None:
    state = PortalState(tmp_path)
    links = state.sync_roster([Student("ada", "Ada"), Student("bob", "Bob")], now=1.0)
    assert set(links) == {TEACHER, "ada", "bob"}
    assert all(len(t) >= 43 for t in links.values())  # 256 bits, url-safe base64
    raw = _db_bytes(tmp_path)
    for token in links.values():
        assert token.encode() not in raw
        assert secret_hash(token).encode() in raw
    sid, session = state.start_session(state.person_for_token(links["ada"]))  # type: ignore[arg-type]
    assert state.session(sid) == session
    assert sid.encode() not in _db_bytes(tmp_path) and secret_hash(sid).encode() in _db_bytes(tmp_path)
    new = state.reissue("ada")
    assert state.session(sid) is None
    assert state.person_for_token(links["ada"]) is None
    assert state.person_for_token(new).id == "ada"  # type: ignore[union-attr]
    # a second sync keeps existing tokens (no new links) and adds only newcomers
    assert set(state.sync_roster([Student("ada", "Ada"), Student("bob", "Bob"), Student("cy", "Cy")])) == {"cy"}
    with pytest.raises(KeyError):
        state.reissue("nobody")
    state.close()


def test_a_student_who_leaves_the_roster_cannot_sign_in(tmp_path: Path) -> None:
    state = PortalState(tmp_path)
    links = state.sync_roster([Student("ada", "Ada"), Student("bob", "Bob")])
    sid, _ = state.start_session(state.person_for_token(links["bob"]))  # type: ignore[arg-type]
    state.sync_roster([Student("ada", "Ada")])
    assert state.person_for_token(links["bob"]) is None
    assert state.session(sid) is None
    assert [p.id for p in state.people()] == [TEACHER, "ada"]
    state.close()


def test_state_folder_and_file_are_private(tmp_path: Path) -> None:
    PortalState(tmp_path).close()
    assert stat.S_IMODE(os.stat(tmp_path / "portal").st_mode) == 0o700
    assert stat.S_IMODE(os.stat(tmp_path / "portal" / "portal.sqlite").st_mode) == 0o600


# ------------------------------------------------------------------ uploads


def test_upload_is_stored_under_the_id_with_its_row(tmp_path: Path) -> None:
    state = PortalState(tmp_path)
    state.sync_roster([Student("ada", "Ada")])
    up = state.add_upload("ada", b"print(1)\n", "../../etc/passwd.py", now=0.0)
    assert up.path == tmp_path / "portal" / "uploads" / "ada" / "1.py"
    assert up.path.read_bytes() == b"print(1)\n"
    assert up.filename == "../../etc/passwd.py"  # kept to be shown, never used as a path
    assert sorted(p.name for p in (tmp_path / "portal" / "uploads" / "ada").iterdir()) == ["1.py"]
    with pytest.raises(TooSoon) as soon:
        state.add_upload("ada", b"print(2)\n", "b.py", now=29.2)
    assert soon.value.retry_after == 1
    assert state.add_upload("ada", b"print(2)\n", "b.py", now=30.0).number == 2
    assert [u.number for u in state.uploads_of("ada")] == [2, 1]
    state.close()


class _FailingCommit:
    """A connection whose COMMIT fails: a crash between the file's rename and the row's commit."""

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con

    def execute(self, sql: str, *args: Any) -> Any:
        if sql == "COMMIT":
            raise sqlite3.OperationalError("disk I/O error")
        return self.con.execute(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.con, name)


def test_a_failed_commit_leaves_neither_row_nor_file(tmp_path: Path) -> None:
    state = PortalState(tmp_path)
    state.sync_roster([Student("ada", "Ada")])
    real = state._con
    state._con = _FailingCommit(real)  # type: ignore[assignment]
    with pytest.raises(sqlite3.OperationalError):
        state.add_upload("ada", b"print(1)\n", "a.py", now=0.0)
    state._con = real
    assert state.uploads_of("ada") == []
    assert list((tmp_path / "portal" / "uploads" / "ada").iterdir()) == []
    state.close()


def test_recover_removes_what_a_killed_server_left(tmp_path: Path) -> None:
    state = PortalState(tmp_path)
    state.sync_roster([Student("ada", "Ada")])
    kept = state.add_upload("ada", b"print(1)\n", "a.py", now=0.0).path
    folder = kept.parent
    (folder / ".abc.tmp").write_bytes(b"half a file")
    (folder / "2.py").write_bytes(b"renamed, never committed")
    assert sorted(p.name for p in state.recover()) == [".abc.tmp", "2.py"]
    assert sorted(p.name for p in folder.iterdir()) == ["1.py"]
    assert state.add_upload("ada", b"print(2)\n", "a.py", now=100.0).number == 2  # the number was not used
    state.close()


def test_two_uploads_at_once_leave_one_consistent_version(tmp_path: Path) -> None:
    state = PortalState(tmp_path)
    state.sync_roster([Student("ada", "Ada")])
    results: list[object] = []
    barrier = threading.Barrier(4)

    def send(i: int) -> None:
        barrier.wait()
        try:
            results.append(state.add_upload("ada", f"print({i})\n".encode(), "a.py", now=5.0))
        except TooSoon as exc:
            results.append(exc)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stored = state.uploads_of("ada")
    assert len(stored) == 1 and sum(isinstance(r, TooSoon) for r in results) == 3
    assert stored[0].path.read_bytes().decode().startswith("print(")
    assert sorted(p.name for p in stored[0].path.parent.iterdir()) == ["1.py"]
    state.close()


@pytest.mark.parametrize("name, data, says, status", [
    ("bot.py", b"", "is empty", 400),
    ("bot.py", b"  \n\n", "is empty", 400),
    ("bot.py", b"import x\x00\x01", "is a binary file", 400),
    ("bot.py", b"x = 1\ns = '\xe9t\xe9'\n", "is not UTF-8 text (line 2)", 400),
    ("bot.py", b"#" * 1025, "is larger than 1 KiB", 413),
    ("bot.txt", b"x = 1\n", "is not a Python file", 415),
    ("bot", b"x = 1\n", "is not a Python file", 415),
])
def test_upload_refusals(name: str, data: bytes, says: str, status: int) -> None:
    with pytest.raises(UploadRefused) as caught:
        check_upload(name, data, max_bytes=1024)
    assert says in str(caught.value) and caught.value.status == status


def test_upload_accepts_utf8_with_bom_and_an_upper_case_suffix() -> None:
    assert check_upload("C:\\Users\\me\\BOT.PY", "\ufeffname = 'Zoë'\n".encode("utf-8"), 1024) == "name = 'Zoë'\n"


# ------------------------------------------------------------------ logs


def test_no_token_reaches_the_uvicorn_access_log(caplog: pytest.LogCaptureFixture) -> None:
    token = "Zx9" * 14 + "a"
    sid = "Q" * 43
    seen: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(self.format(record))

    logger = logging.getLogger("uvicorn.access")
    handler = Collect()
    from uvicorn.logging import AccessFormatter  # the formatter uvicorn's access log uses: it unpacks the arguments

    handler.setFormatter(AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s', use_colors=False))
    logger.addHandler(handler)
    old_level = logger.level
    logger.setLevel(logging.INFO)
    try:
        install()
        logger.info('%s - "%s %s HTTP/%s" %d', "127.0.0.1:4242", "GET", f"/portal/signin/{token}", "1.1", 303)
        try:
            raise RuntimeError(f"bad cookie cabo_portal={sid}")
        except RuntimeError:
            logging.getLogger("uvicorn.error").exception("failed with %s", sid)
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    text = "\n".join(seen)
    assert text == '127.0.0.1:4242 - "GET /portal/signin/[redacted] HTTP/1.1" 303 See Other'
    assert token not in text and sid not in text
    assert "failed with [redacted]" in caplog.text and "cabo_portal=[redacted]" in caplog.text
    assert token not in caplog.text and sid not in caplog.text
    assert redact(f"x {sid} y") == "x [redacted] y"


# ------------------------------------------------------------------ layering


def test_the_portal_is_loaded_only_when_used() -> None:
    """``import cabo_kit`` loads no portal code, and ``import cabo_kit.portal`` no web library (fresh interpreters)."""
    import json
    import subprocess
    import sys

    def loaded(statement: str) -> set[str]:
        code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        return set(json.loads(out.stdout.splitlines()[-1]))

    web = {"starlette", "uvicorn", "jinja2", "multipart", "python_multipart", "httpx", "httpx2", "anyio"}
    top = loaded("import cabo_kit, cabo_kit.cli")
    assert not {m for m in top if m.startswith("cabo_kit.portal")}
    assert not {m.split(".")[0] for m in top} & web
    portal = loaded("import cabo_kit.portal")
    assert not {m.split(".")[0] for m in portal} & web
    assert {"starlette", "jinja2"} <= {m.split(".")[0] for m in loaded("from cabo_kit.portal import create_app")}


def test_latest_uploads_gives_each_students_newest_and_count(tmp_path: Path) -> None:
    state = PortalState(tmp_path)
    state.sync_roster([Student("ada", "Ada"), Student("bob", "Bob"), Student("cy", "Cy")])
    for i in range(3):
        state.add_upload("ada", f"# {i}\n".encode(), f"a{i}.py", now=100.0 * i)
    state.add_upload("bob", b"# b\n", "b.py", now=0.0)
    latest = state.latest_uploads()
    assert {pid: (up.number, up.filename, n) for pid, (up, n) in latest.items()} == {"ada": (3, "a2.py", 3), "bob": (1, "b.py", 1)}
    state.close()


def test_one_person_keeps_at_most_a_few_live_sessions(tmp_path: Path) -> None:
    state = PortalState(tmp_path)
    links = state.sync_roster([Student("ada", "Ada"), Student("bob", "Bob")])
    ada = state.person_for_token(links["ada"])
    bob_sid, _ = state.start_session(state.person_for_token(links["bob"]))  # type: ignore[arg-type]
    sids = [state.start_session(ada)[0] for _ in range(state.MAX_SESSIONS + 3)]  # type: ignore[arg-type]
    live = [sid for sid in sids if state.session(sid) is not None]
    assert live == sids[3:]  # the three oldest ended
    assert state.session(bob_sid) is not None  # another person's session is untouched
    state.close()
