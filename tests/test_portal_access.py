"""Who may do what in the portal app (Starlette's TestClient, no sockets): every route of the route table,
sessions and cookies, anti-forgery tokens, security headers, uploads over HTTP, and text never shown as markup."""

from __future__ import annotations

import asyncio
import threading
import re
from pathlib import Path
from typing import Any, Iterator

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
from starlette.routing import Mount, Route  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from cabo_kit.portal.app import COOKIE, CSP, PortalSettings, create_app  # noqa: E402
from cabo_kit.portal.live import Snapshot  # noqa: E402
from cabo_kit.portal.roster import Student  # noqa: E402
from cabo_kit.portal.state import TEACHER, PortalState  # noqa: E402

ALICE_NAME = "Alice <script>alert('name')</script>"
ALICE_CODE = b"# ALICE-SECRET-7f3a <script>alert('code')</script>\nclass B: pass\n"
ALICE_FILE = "<img src=x onerror=alert(1)>.py"


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


class Class:
    """A class of three students and a teacher, with one upload of Alice's, and a client per identity."""

    def __init__(self, folder: Path, root_path: str = "") -> None:
        self.state = PortalState(folder)
        self.links = self.state.sync_roster([Student("alice", ALICE_NAME), Student("bob", "Bob"), Student("carol", "Carol")])
        self.clock = Clock()
        self.app = create_app(self.state, PortalSettings(max_upload=4096, upload_interval=30.0), clock=self.clock)
        self.root_path = root_path

    def client(self, who: str | None = None) -> TestClient:
        client = TestClient(self.app, root_path=self.root_path, follow_redirects=False)
        if who is not None:
            response = client.get(f"/signin/{self.links[who]}")
            assert response.status_code == 303, response.text
        return client

    def csrf(self, client: TestClient) -> str:
        page = client.get("/")
        if page.status_code == 303:  # the teacher's page
            page = client.get("/teacher")
        found = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert found, page.text
        return found.group(1)


def upload(client: TestClient, data: bytes, name: str = "bot.py", csrf: str | None = None, **kw: Any) -> Any:
    fields = {} if csrf is None else {"csrf": csrf}
    return client.post("/upload", files={"file": (name, data, "text/x-python")}, data=fields, **kw)


@pytest.fixture
def klass(tmp_path: Path) -> Iterator[Class]:
    k = Class(tmp_path)
    yield k
    k.state.close()


# ------------------------------------------------------------------ the route table, request by request

# Every (path, method) of the app's route table, with the kind of access it gives:
#   public:  the same for everyone, reveals no one's data (a bad sign-in token, the signed-out page, static files)
#   own:     a student's own data, found from the session alone
#   teacher: the teacher's session only
ACCESS = {
    ("/signin/{token}", "GET"): "public",
    ("/signin/{token}", "HEAD"): "public",
    ("/signed-out", "GET"): "public",
    ("/signed-out", "HEAD"): "public",
    ("/static", "GET"): "public",
    ("/static", "HEAD"): "public",
    ("/signout", "POST"): "own",
    ("/", "GET"): "own",
    ("/", "HEAD"): "own",
    ("/upload", "POST"): "own",
    ("/check", "GET"): "own",
    ("/check", "HEAD"): "own",
    ("/code/{number:int}", "GET"): "own",
    ("/code/{number:int}", "HEAD"): "own",
    ("/teacher", "GET"): "teacher",
    ("/teacher", "HEAD"): "teacher",
    ("/teacher/code/{person}/{number:int}", "GET"): "teacher",
    ("/teacher/code/{person}/{number:int}", "HEAD"): "teacher",
    ("/teacher/deadline", "POST"): "teacher",
    ("/teacher/settings", "POST"): "teacher",
    ("/teacher/rejected", "GET"): "teacher",
    ("/teacher/rejected", "HEAD"): "teacher",
    ("/teacher/students/{person}", "GET"): "teacher",  # the teacher's read-only views of a student's pages
    ("/teacher/students/{person}", "HEAD"): "teacher",
    ("/teacher/students/{person}/games", "GET"): "teacher",
    ("/teacher/students/{person}/games", "HEAD"): "teacher",
    ("/teacher/students/{person}/games/{game_id}", "GET"): "teacher",
    ("/teacher/students/{person}/games/{game_id}", "HEAD"): "teacher",
    ("/teacher/students/{person}/faults", "GET"): "teacher",
    ("/teacher/students/{person}/faults", "HEAD"): "teacher",
    ("/teacher/files.zip", "GET"): "teacher",
    ("/teacher/files.zip", "HEAD"): "teacher",
    ("/games", "GET"): "own",
    ("/games", "HEAD"): "own",
    ("/games/{game_id}", "GET"): "own",
    ("/games/{game_id}", "HEAD"): "own",
    ("/faults", "GET"): "own",
    ("/faults", "HEAD"): "own",
    ("/static/table.css", "GET"): "public",
    ("/static/table.css", "HEAD"): "public",
    ("/live", "GET"): "own",  # the reader's own view of the board (tests/test_portal_live.py: who sees what)
    ("/live", "HEAD"): "own",
    ("/teacher/games", "POST"): "teacher",
    ("/teacher/report.html", "GET"): "teacher",
    ("/teacher/report.html", "HEAD"): "teacher",
    ("/teacher/leaderboard.csv", "GET"): "teacher",
    ("/teacher/leaderboard.csv", "HEAD"): "teacher",
}

STATIC_METHODS = ("GET", "HEAD")  # StaticFiles answers these (others: 405)


def route_table(app: Any) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for route in app.routes:
        if isinstance(route, Route):
            found += [(route.path, m) for m in sorted(route.methods or ())]
        elif isinstance(route, Mount):
            found += [(route.path, m) for m in STATIC_METHODS]
        else:
            raise AssertionError(f"a route of a kind this test does not know: {route!r}: add it to ACCESS")
    return found


def concrete(path: str) -> str:
    """A route's path with Alice's values where it takes parameters (a bad token for a sign-in link)."""
    if path == "/static":
        return "/static/portal.css"
    return (path.replace("{token}", "not-a-valid-token").replace("{number:int}", "1").replace("{person}", "alice")
            .replace("{game_id}", "0123456789abcdef01234567"))


def alice_traces(text: str) -> list[str]:
    marks = ["ALICE-SECRET-7f3a", "alert('name')", "Alice", "onerror", "alice"]
    return [m for m in marks if m in text]


def test_the_access_table_covers_every_route_and_method(klass: Class) -> None:
    assert sorted(route_table(klass.app)) == sorted(ACCESS), "a route was added or removed: classify it in ACCESS"


def test_every_route_refuses_others_alike(klass: Class) -> None:
    alice = klass.client("alice")
    assert upload(alice, ALICE_CODE, ALICE_FILE, klass.csrf(alice)).status_code == 303
    carol = klass.client("carol")
    carol_csrf = klass.csrf(carol)
    klass.state.reissue("carol")  # carol's old session is ended: it must get what no session gets
    bob = klass.client("bob")
    bob_csrf = klass.csrf(bob)
    nobody = klass.client()
    before = [(u.number, u.version) for u in klass.state.uploads_of("alice")]
    deadline = klass.state.setting("deadline")

    for path, method in route_table(klass.app):
        kind = ACCESS[(path, method)]
        url = concrete(path)
        answers = {}
        for who, client, csrf in (("none", nobody, None), ("ended", carol, carol_csrf), ("other", bob, bob_csrf)):
            kw: dict[str, Any] = {}
            if method == "POST":
                kw = {"data": {"csrf": csrf or "x", "deadline": "2030-01-01 10:00", "board": "teacher",
                                 "games": "pause"}}
                if path == "/upload":
                    kw = {"files": {"file": ("x.py", b"print('bob')\n", "text/x-python")}, "data": {"csrf": csrf or "x"}}
            response = client.request(method, url, **kw)
            answers[who] = response
            leaks = alice_traces(response.text)
            assert not leaks, f"{method} {url} as {who} shows {leaks}"
            if kind == "teacher" or (kind == "own" and who != "other"):
                assert response.status_code in (403, 404), f"{method} {url} as {who}: {response.status_code}"
        # no session and an ended session are refused alike: the same status and the same page
        if kind != "public":
            assert answers["none"].status_code == answers["ended"].status_code == 403
            assert answers["none"].text == answers["ended"].text
        else:
            assert answers["none"].status_code == answers["ended"].status_code == answers["other"].status_code
        # signing out bob would end his session for the next routes: sign him in again
        if path == "/signout":
            bob = klass.client("bob")
            bob_csrf = klass.csrf(bob)

    assert [(u.number, u.version) for u in klass.state.uploads_of("alice")] == before
    assert klass.state.setting("deadline") == deadline and klass.state.setting("board") is None
    assert klass.state.setting("games") is None
    assert klass.state.uploads_of("carol") == []
    # the same requests with the right sessions do reach the data: the refusals above mean something
    teacher = klass.client(TEACHER)
    assert "ALICE-SECRET-7f3a" in teacher.get("/teacher/code/alice/1").text
    assert "ALICE-SECRET-7f3a" in alice.get("/code/1").text
    assert bob.get("/code/1").text == "print('bob')\n"  # his own upload number 1 (made above), not alice's
    assert bob.get("/teacher/code/alice/1").status_code == 403


def test_a_student_cannot_reach_another_students_code_by_number(klass: Class) -> None:
    alice, bob = klass.client("alice"), klass.client("bob")
    assert upload(alice, ALICE_CODE, "a.py", klass.csrf(alice)).status_code == 303
    assert upload(bob, b"print('bob')\n", "b.py", klass.csrf(bob)).status_code == 303
    assert bob.get("/code/1").text == "print('bob')\n"
    assert alice.get("/code/1").content == ALICE_CODE
    assert bob.get("/code/2").status_code == 404


# ------------------------------------------------------------------ sessions and cookies


def test_a_link_starts_a_session_and_redirects_to_an_address_without_the_token(klass: Class) -> None:
    client = klass.client()
    token = klass.links["alice"]
    response = client.get(f"/signin/{token}")
    assert response.status_code == 303 and response.headers["location"] == "/"
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=")
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
    assert token not in cookie
    page = client.get("/")
    assert page.status_code == 200 and token not in page.text
    assert client.get(f"/signin/{token}x").status_code == 403


def test_under_a_root_path_the_cookie_and_redirects_stay_under_it(tmp_path: Path) -> None:
    k = Class(tmp_path, root_path="/class-2026")
    client = TestClient(k.app, root_path="/class-2026", follow_redirects=False)
    response = client.get(f"/class-2026/signin/{k.links['bob']}")  # the browser's path includes the prefix
    assert response.headers["location"] == "/class-2026/"
    assert "Path=/class-2026/" in response.headers["set-cookie"]
    assert client.get("/elsewhere/").status_code == 404  # the cookie is not sent outside the prefix
    page = client.get("/class-2026/")
    assert 'action="/class-2026/upload"' in page.text and 'href="/class-2026/static/portal.css"' in page.text
    k.state.close()


def test_opening_a_link_again_replaces_the_browsers_session(klass: Class) -> None:
    client = klass.client("alice")
    old = client.cookies[COOKIE]
    client.get(f"/signin/{klass.links['alice']}")
    assert client.cookies[COOKIE] != old
    assert klass.state.session(old) is None


def test_sign_out_ends_the_session_and_needs_the_anti_forgery_token(klass: Class) -> None:
    client = klass.client("alice")
    sid = client.cookies[COOKIE]
    assert client.post("/signout", data={"csrf": "wrong"}).status_code == 403
    assert client.post("/signout").status_code == 403
    assert klass.state.session(sid) is not None
    response = client.post("/signout", data={"csrf": klass.csrf(client)})
    assert response.status_code == 303 and response.headers["location"] == "/signed-out"
    assert klass.state.session(sid) is None
    stale = klass.client()
    stale.cookies.set(COOKIE, sid)
    assert stale.get("/").status_code == 403


def test_reissue_ends_every_session_of_that_student_only(klass: Class) -> None:
    a1, a2, b = klass.client("alice"), klass.client("alice"), klass.client("bob")
    new = klass.state.reissue("alice")
    assert a1.get("/").status_code == 403 and a2.get("/").status_code == 403
    assert b.get("/").status_code == 200
    assert klass.client().get(f"/signin/{klass.links['alice']}").status_code == 403
    assert klass.client().get(f"/signin/{new}").status_code == 303


def test_the_teacher_and_the_students_pages_are_apart(klass: Class) -> None:
    teacher, alice = klass.client(TEACHER), klass.client("alice")
    assert teacher.get("/").headers["location"] == "/teacher"
    assert teacher.get("/teacher").status_code == 200
    assert alice.get("/teacher").status_code == 403
    assert teacher.post("/upload", files={"file": ("t.py", b"x = 1\n")}).status_code == 403


# ------------------------------------------------------------------ headers


@pytest.mark.parametrize("who, path", [("alice", "/"), (None, "/"), (None, "/no/such/page"), (None, "/static/portal.js"),
                                       ("alice", "/code/1"), (None, "/signin/bad")])
def test_every_response_carries_the_security_headers(klass: Class, who: str | None, path: str) -> None:
    client = klass.client(who)
    if who:
        upload(client, b"x = 1\n", "a.py", klass.csrf(client))
    response = client.get(path)
    assert response.headers["content-security-policy"] == CSP
    assert "script-src 'self'" in CSP and "unsafe-inline" not in CSP
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    if not path.startswith("/static"):
        assert response.headers["cache-control"] == "no-store"


def test_a_server_error_shows_nothing_and_keeps_the_headers(klass: Class, monkeypatch: pytest.MonkeyPatch) -> None:
    client = TestClient(klass.app, raise_server_exceptions=False)
    client.get(f"/signin/{klass.links['alice']}")
    portal = klass.app.state.portal

    def broken(*_: Any) -> Any:
        raise RuntimeError("secret detail <script>")

    monkeypatch.setattr(portal.state, "uploads_of", broken)
    response = client.get("/")
    assert response.status_code == 500
    assert "secret detail" not in response.text and "Something went wrong" in response.text
    assert response.headers["content-security-policy"] == CSP


# ------------------------------------------------------------------ text, never markup


def test_names_files_and_results_are_shown_as_text(klass: Class) -> None:
    alice = klass.client("alice")
    assert upload(alice, ALICE_CODE, ALICE_FILE, klass.csrf(alice)).status_code == 303
    klass.state.set_check("alice", 1, "rejected", "line 1: <script>alert('result')</script> <img src=x onerror=alert(2)>")
    pages = [alice.get("/").text, klass.client(TEACHER).get("/teacher").text]
    for page in pages:
        assert "<script>alert" not in page and "<img src=x" not in page
        assert "&lt;script&gt;alert(" in page
        scripts = re.findall(r"<script\b[^>]*>", page)
        assert scripts and all(re.fullmatch(r'<script src="[^"]*/static/(portal|live)\.js" defer>', s) for s in scripts)
    assert "&lt;img src=x onerror=alert(1)&gt;.py" in pages[0]
    code = alice.get("/code/1")
    assert code.headers["content-type"] == "text/plain; charset=utf-8"
    assert code.headers["x-content-type-options"] == "nosniff"
    assert code.content == ALICE_CODE


def board(text: str) -> Snapshot:
    """A live board's snapshot of a leaderboard.csv's text."""
    import io

    import pandas as pd

    return Snapshot.from_frame(pd.read_csv(io.StringIO(text)), games=40)


def test_the_page_carries_the_stable_hooks(klass: Class, tmp_path: Path) -> None:
    klass.app.state.live.publish(board(
        "bot,preset,elo,elo_low,elo_high,rank,rank_low,rank_high,games,win_rate\n"
        "alice,rush,1010.00,980.00,1040.00,1,1,2,40,0.30\nRandomBot,rush,990.00,960.00,1020.00,2,1,2,40,0.20\n"))
    alice = klass.client("alice")
    page = alice.get("/").text
    for hook in ("cabo-portal-upload", "cabo-portal-submit", "cabo-portal-signout", "cabo-portal-board"):
        assert f'id="{hook}"' in page
    assert 'id="cabo-portal-check"' not in page  # no upload yet
    assert re.search(r'<tr data-bot="alice" data-preset="rush" class="mine">', page)
    assert re.search(r'<tr data-bot="RandomBot" data-preset="rush">', page)
    assert "id=\"cabo-portal-deadline\"" not in page
    upload(alice, b"x = 1\n", "a.py", klass.csrf(alice))
    page = alice.get("/").text
    assert re.search(r'id="cabo-portal-check" data-status="running"', page)
    assert "None of your files has been accepted yet" in page
    klass.state.set_check("alice", 1, "accepted", "")
    page = alice.get("/").text
    assert re.search(r'id="cabo-portal-check" data-status="accepted"', page)
    assert re.search(r'version 1</a>[^<]*<strong class="current">your bot in the tournament</strong>', page)
    assert "None of your files has been accepted yet" not in page
    assert alice.get("/check").json() == {"number": 1, "status": "accepted", "result": ""}


# ------------------------------------------------------------------ uploads over HTTP


@pytest.mark.parametrize("name, data, status, says", [
    ("bot.py", b"", 400, "is empty"),
    ("bot.py", b"\x89PNG\r\n\x1a\n\x00\x00", 400, "is a binary file"),
    ("bot.py", b"s = '\xff\xfe'\n", 400, "is not UTF-8 text"),
    ("bot.py", b"#" * 4097, 413, "is larger than 4 KiB"),
    ("bot.pyc", b"x = 1\n", 415, "is not a Python file"),
    ("../../bots/bob.txt", b"x = 1\n", 415, "is not a Python file"),
])
def test_a_refused_upload_says_why_and_changes_nothing(klass: Class, name: str, data: bytes, status: int, says: str) -> None:
    alice = klass.client("alice")
    response = upload(alice, data, name, klass.csrf(alice))
    assert response.status_code == status and says in response.text
    assert klass.state.uploads_of("alice") == []
    assert list((klass.state.uploads / "alice").glob("*")) == [] if (klass.state.uploads / "alice").exists() else True
    as_json = upload(alice, data, name, klass.csrf(alice), headers={"accept": "application/json"})
    assert as_json.status_code == status and says in as_json.json()["error"]


def test_an_oversized_body_is_cut_off_while_reading(klass: Class) -> None:
    """Straight through ASGI (the TestClient reads a body whole before sending it): no content-length, 1 MiB
    in 1 KiB chunks against a 4 KiB limit; the app must stop asking for chunks and answer 413."""

    alice = klass.client("alice")
    csrf, sid = klass.csrf(alice), alice.cookies[COOKIE]
    boundary = "b0undary"
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\n{csrf}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.py\"\r\n\r\n").encode()
    chunks = [head] + [b"#" * 1024] * 1024
    read: list[int] = []
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        read.append(1)
        i = len(read) - 1
        return {"type": "http.request", "body": chunks[i], "more_body": i + 1 < len(chunks)}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": "/upload", "raw_path": b"/upload", "root_path": "", "query_string": b"", "server": ("t", 80),
             "client": ("c", 1), "headers": [(b"content-type", f"multipart/form-data; boundary={boundary}".encode()),
                                             (b"cookie", f"{COOKIE}={sid}".encode()), (b"host", b"t")]}
    # In a thread of its own: a session-wide Playwright (tests/browser) keeps an event loop running in this one.
    worker = threading.Thread(target=asyncio.run, args=(klass.app(scope, receive, send),))
    worker.start()
    worker.join(60)
    assert sent[0]["status"] == 413
    assert b"larger than 4 KiB" in b"".join(m.get("body", b"") for m in sent[1:])
    assert len(read) < 100  # the app stopped reading long before the end of the megabyte
    assert klass.state.uploads_of("alice") == []


def test_an_upload_needs_the_anti_forgery_token(klass: Class) -> None:
    alice = klass.client("alice")
    assert upload(alice, b"x = 1\n").status_code == 403
    assert upload(alice, b"x = 1\n", csrf="forged").status_code == 403
    assert upload(alice, b"x = 1\n", headers={"x-csrf-token": klass.csrf(alice)}).status_code == 303
    assert [u.number for u in klass.state.uploads_of("alice")] == [1]


def test_uploads_are_rate_limited_with_when_to_retry(klass: Class) -> None:
    alice = klass.client("alice")
    csrf = klass.csrf(alice)
    assert upload(alice, b"x = 1\n", "a.py", csrf).status_code == 303
    klass.clock.now += 12
    again = upload(alice, b"x = 2\n", "a.py", csrf)
    assert again.status_code == 429 and again.headers["retry-after"] == "18"
    assert "try again in 18 s" in again.text
    klass.clock.now += 18
    assert upload(alice, b"x = 2\n", "a.py", csrf).status_code == 303
    assert [u.number for u in klass.state.uploads_of("alice")] == [2, 1]


def test_after_the_deadline_uploads_are_refused(klass: Class) -> None:
    teacher = klass.client(TEACHER)
    import time

    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(klass.clock.now + 120))
    assert teacher.post("/teacher/deadline", data={"deadline": stamp}).status_code == 403  # no csrf
    assert teacher.post("/teacher/deadline", data={"deadline": stamp, "csrf": klass.csrf(teacher)}).status_code == 303
    alice = klass.client("alice")
    page = alice.get("/").text
    assert 'id="cabo-portal-deadline"' in page and stamp in page
    assert upload(alice, b"x = 1\n", "a.py", klass.csrf(alice)).status_code == 303
    klass.clock.now += 3600
    late = upload(alice, b"x = 2\n", "a.py", klass.csrf(alice))
    assert late.status_code == 403 and "deadline" in late.text and "has passed" in late.text
    assert [u.number for u in klass.state.uploads_of("alice")] == [1]
    bad = teacher.post("/teacher/deadline", data={"deadline": "tomorrow", "csrf": klass.csrf(teacher)})
    assert bad.status_code == 400 and "2026-06-30 18:00" in bad.text


def test_no_get_changes_anything(klass: Class) -> None:
    """Every GET and HEAD of the route table, as its owner, as the teacher and as no one, leaves the state as it was
    (opening a sign-in link, which starts a session for the link's holder, is the one exception, tested above)."""
    alice, teacher, nobody = klass.client("alice"), klass.client(TEACHER), klass.client()
    assert upload(alice, ALICE_CODE, "a.py", klass.csrf(alice)).status_code == 303
    klass.state.set_check("alice", 1, "rejected", "no")

    def dump() -> list[str]:
        with klass.state._lock:
            return list(klass.state._con.iterdump())

    files = sorted(str(p) for p in klass.state.folder.rglob("*") if "portal.sqlite" not in p.name)
    before = dump()
    gets = [(p, m) for p, m in route_table(klass.app) if m in ("GET", "HEAD") and not p.startswith("/signin")]
    assert len(gets) >= 8
    for path, method in gets:
        for client in (alice, teacher, nobody):
            client.request(method, concrete(path))
    assert dump() == before
    assert sorted(str(p) for p in klass.state.folder.rglob("*") if "portal.sqlite" not in p.name) == files


def test_the_teacher_downloads_every_current_file_as_a_zip(klass: Class) -> None:
    import io
    import zipfile

    alice, bob = klass.client("alice"), klass.client("bob")
    upload(alice, b"# alice 1\n", "../../x.py", klass.csrf(alice))
    klass.state.set_check("alice", 1, "accepted", "")
    klass.clock.now += 60
    upload(alice, b"# alice 2, rejected\n", "a.py", klass.csrf(alice))
    klass.state.set_check("alice", 2, "rejected", "no")
    upload(bob, b"# bob, still checking\n", "b.py", klass.csrf(bob))
    response = klass.client(TEACHER).get("/teacher/files.zip")
    assert response.status_code == 200 and response.headers["content-type"] == "application/zip"
    assert response.headers["content-disposition"].startswith('attachment; filename="bots-')
    z = zipfile.ZipFile(io.BytesIO(response.content))
    assert z.namelist() == ["alice.py"] and z.read("alice.py") == b"# alice 1\n"


BOARD = ("bot,preset,elo,elo_low,elo_high,rank,rank_low,rank_high,games,win_rate\n"
         "alice,rush,1010.00,980.00,1040.00,1,1,2,40,0.30\nbob,rush,1000.00,970.00,1030.00,2,1,3,40,0.25\n"
         "RandomBot,rush,990.00,960.00,1020.00,3,2,3,40,0.20\n")


def test_the_teacher_chooses_who_sees_the_board_and_under_which_names(klass: Class, tmp_path: Path) -> None:
    klass.app.state.live.publish(board(BOARD))
    teacher, bob = klass.client(TEACHER), klass.client("bob")
    page = bob.get("/").text
    assert 'data-bot="alice"' in page and "Alice &lt;script&gt;" in page  # the default: roster names
    csrf = klass.csrf(teacher)
    assert teacher.post("/teacher/settings", data={"csrf": csrf, "names": "pseudonyms"}).status_code == 303
    page = bob.get("/").text
    assert not alice_traces(page), alice_traces(page)
    rows = re.findall(r'<tr data-bot="([^"]+)" data-preset="rush"[^>]*>\s*<td>rush</td><td>[^<]*</td><td>([^<]+)</td>', page)
    assert [r[0] for r in rows][1:] == ["bob", "RandomBot"] and rows[0][0].startswith("anon-")
    assert rows[1][1] == "Bob" and rows[0][1] not in ("Bob", "alice")
    assert rows == re.findall(r'<tr data-bot="([^"]+)" data-preset="rush"[^>]*>\s*<td>rush</td><td>[^<]*</td><td>([^<]+)</td>',
                              bob.get("/").text)  # stable
    assert 'data-bot="alice"' in teacher.get("/teacher").text  # the teacher sees everyone as they are
    assert teacher.post("/teacher/settings", data={"csrf": csrf, "board": "teacher"}).status_code == 303
    page = bob.get("/").text
    assert 'id="cabo-portal-board"' not in page and "shown to the teacher only" in page
    assert 'id="cabo-portal-board"' in teacher.get("/teacher").text
    assert teacher.post("/teacher/settings", data={"csrf": csrf, "board": "everyone"}).status_code == 400
    assert teacher.post("/teacher/settings", data={"board": "students"}).status_code == 403
    assert klass.state.setting("board") == "teacher"


def test_the_teachers_page_lists_each_students_latest_rejection_and_follows_every_change(klass: Class) -> None:
    """The teacher's long lists are rendered once and kept until portal.sqlite's change counter moves: a check ended
    by another connection (another process) shows at the next request; older rejections are on /teacher/rejected."""
    teacher = klass.client(TEACHER)
    for n in range(3):
        klass.state.add_upload("alice", f"# try {n}\n".encode(), f"try{n}.py", now=float(n), min_interval=0.0)
        klass.state.set_check("alice", n + 1, "rejected", f"reason-alice-{n + 1}")
    klass.state.add_upload("bob", b"# bob\n", "bob.py", now=10.0, min_interval=0.0)
    page = teacher.get("/teacher").text
    assert 'data-student="bob" data-state="running"' in page
    section = page.split('id="cabo-portal-rejected"', 1)[1].split("</section>", 1)[0]
    assert "reason-alice-3" in section and "reason-alice-2" not in section  # her latest only, and how many
    assert re.search(r"<td>3</td></tr>", section) and 'href="/teacher/rejected"' in section
    other = PortalState(klass.state.folder)  # the checker of another process
    try:
        other.set_check("bob", 1, "rejected", "reason-bob")
    finally:
        other.close()
    page = teacher.get("/teacher").text
    assert 'data-student="bob" data-state="rejected"' in page and "reason-bob" in page
    everything = teacher.get("/teacher/rejected").text
    assert re.findall(r"reason-(bob|alice-\d)", everything) == ["bob", "alice-3", "alice-2", "alice-1"]
    klass.app.state.portal.REJECTED_PER_PAGE = 3
    second = teacher.get("/teacher/rejected?page=2").text
    assert "reason-alice-1" in second and "reason-alice-2" not in second and "Page 2 of 2" in second
    assert teacher.get("/teacher/rejected?page=99").text == second and teacher.get("/teacher/rejected?page=x").status_code == 200
    # the board's rows follow each new snapshot of the live board
    klass.app.state.live.publish(board("bot,preset,elo,elo_low,elo_high,rank,rank_low,rank_high,games,win_rate\n"
                                       "alice,rush,1010.00,980.00,1040.00,1,1,2,40,0.30\n"))
    assert '<tr data-bot="alice" data-preset="rush"><td>rush</td><td>1 (1-2)</td>' in teacher.get("/teacher").text
    klass.app.state.live.publish(board("bot,preset,elo,elo_low,elo_high,rank,rank_low,rank_high,games,win_rate\n"
                                       "bob,rush,1010.00,980.00,1040.00,1,1,2,41,0.30\n"))
    page = teacher.get("/teacher").text
    assert '<tr data-bot="bob" data-preset="rush">' in page and 'data-bot="alice" data-preset' not in page
