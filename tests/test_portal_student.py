"""The student's games, faults and replays in the portal (issue 19, musts 3 and 6), and hostile text on every page.

One tiny isolated tournament (rush, 2 players) with a student's bot whose class name, exception message,
traceback and printed output carry ``<script>`` and ``<img onerror>``, checked for real by the portal's
check: the student's page, their games, faults and replays, the other student's and the teacher's pages,
and ``report.html``, ``teacher.html`` and the bots' pages written by :mod:`cabo_kit.pages` and
:mod:`cabo_kit.report` must show every payload as text only. A replay shows another seat's card only
where the student's seat saw it or at a round's end, and its seat comes from the session alone.
"""

from __future__ import annotations

import os
import re
import sqlite3
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
pytest.importorskip("pandas")
from starlette.testclient import TestClient  # noqa: E402

import cabo_kit as ck  # noqa: E402
from cabo_kit.portal.app import create_app  # noqa: E402
from cabo_kit.portal.checker import CheckWorker  # noqa: E402
from cabo_kit.portal.history import History  # noqa: E402
from cabo_kit.portal.replay import seat_frame  # noqa: E402
from cabo_kit.portal.roster import Student  # noqa: E402
from cabo_kit.portal.state import TEACHER, PortalState  # noqa: E402

PAYLOADS = ["<script>alert('class')</script>", "<img src=x onerror=alert(1)>", "<script>alert('print')</script>",
            "<img src=x onerror=alert(2)>", "<script>alert('raise')</script>", "<script>alert('name')</script>",
            "<img src=x onerror=alert(3)>"]

HOSTILE = '''import cabo_kit as ck


class Evil(ck.Bot):
    n = 0

    def choose(self, obs, legal):
        self.n += 1
        print("<script>alert('print')</script> <img src=x onerror=alert(1)>")
        if self.n == 3:
            raise ValueError("<img src=x onerror=alert(2)> <script>alert('raise')</script>")
        return legal[0]


Evil.__name__ = Evil.__qualname__ = "<script>alert('class')</script>"
'''

TOML = """presets = ["rush"]
table_sizes = [2]
games = 2
reference = ["RandomBot"]

[limits]
decision_s = 0.5
"""


class Klass:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.state = PortalState(folder)
        self.links = self.state.sync_roster([Student("alice", "Alice <script>alert('name')</script>"),
                                             Student("bob", "Bob"), Student("carol", "Carol")])
        self.app = create_app(self.state)

    def client(self, who: str | None = None) -> TestClient:
        client = TestClient(self.app, follow_redirects=False)
        if who is not None:
            assert client.get(f"/signin/{self.links[who]}").status_code == 303
        return client

    def games_of(self, bot: str) -> list[tuple[str, int]]:
        con = sqlite3.connect(self.folder / "results.sqlite")
        try:
            return [(str(g), int(s)) for g, s in con.execute(
                "SELECT g.game_id, s.seat FROM games g JOIN seats s ON s.game_id = g.game_id WHERE s.bot = ? "
                "ORDER BY g.rowid DESC", (bot,))]
        finally:
            con.close()


@pytest.fixture(scope="module")
def klass(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Klass]:
    from cabo_kit.tournament.runner import run_tournament, write_outputs

    folder = tmp_path_factory.mktemp("portal-student") / "class 3B"
    folder.mkdir()
    (folder / "tournament.toml").write_text(TOML)
    k = Klass(folder)
    k.state.add_upload("alice", HOSTILE.encode(), "<img src=x onerror=alert(3)>.py", now=0.0)
    assert CheckWorker(k.state, games=1).run_pending() == 1  # the real check: it names the class, raise and prints
    assert k.state.uploads_of("alice")[0].status == "rejected"
    # The teacher plays it anyway (as before the portal: a file copied into bots/), with a steady classmate.
    (folder / "bots").mkdir(exist_ok=True)
    (folder / "bots" / "alice.py").write_text(HOSTILE)
    (folder / "bots" / "bob.py").write_text((Path(__file__).parent / "tournament_bots" / "steady.py").read_text())
    run_tournament(folder, workers=1, progress=False, out=None)
    write_outputs(folder, out=None)
    yield k
    k.state.close()


def _only_text(page: str, where: str, own_scripts: bool = True) -> None:
    """No payload as markup: no raw payload, no event-handler attribute, no script but the portal's own."""
    raw = [p for p in PAYLOADS if p in page]
    assert not raw, f"{where} carries {raw} as markup"
    assert not re.search(r"<[a-z][^>]*\son[a-z]+\s*=", page, re.I), f"{where} has an event-handler attribute"
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", page, re.S)
    assert all("alert(" not in body for body in scripts), f"{where}: a script holds a payload"
    if own_scripts:
        tags = re.findall(r"<script\b[^>]*>", page)
        assert all(re.fullmatch(r'<script src="[^"]*/static/(portal|live)\.js" defer>', t) for t in tags), (where, tags)


def test_hostile_text_runs_no_script_in_any_page(klass: Klass) -> None:
    alice, bob, teacher = klass.client("alice"), klass.client("bob"), klass.client(TEACHER)
    games = klass.games_of("alice")
    assert games, "the hostile bot played no game"
    import pandas as pd

    from cabo_kit.portal.live import Snapshot

    klass.app.state.live.publish(Snapshot.from_frame(pd.read_csv(klass.folder / "leaderboard.csv")))  # the board's names
    pages = {"alice /": alice.get("/"), "alice /games": alice.get("/games"), "alice /faults": alice.get("/faults"),
             "bob /": bob.get("/"), "teacher /teacher": teacher.get("/teacher")}
    for gid, _ in games:
        for step in ("0", "3", "end"):
            pages[f"replay {gid} {step}"] = alice.get(f"/games/{gid}?step={step}")
    against = [g for g, _ in klass.games_of("bob") if g in dict(games)]  # bob's games against alice: her roster
    assert against, "bob never played alice"                              # name is an opponent's on his replays
    for gid in against:
        for step in ("0", "3", "end"):
            pages[f"bob's replay {gid} {step}"] = bob.get(f"/games/{gid}?step={step}")
    for where, response in pages.items():
        assert response.status_code == 200, (where, response.status_code)
        _only_text(response.text, where)
    for where in [w for w in pages if w.startswith("replay")]:
        assert 'style="' not in pages[where].text  # the CSP forbids inline styles: the table is styled by class
    # The payloads are there, as text: the check's sentences (class name, raise, prints) and the file's name ...
    escaped = {p: p.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;") for p in PAYLOADS}
    first = pages["alice /"].text
    for p in ("<script>alert('class')</script>", "<script>alert('raise')</script>", "<img src=x onerror=alert(3)>"):
        assert escaped[p] in first, p
    # ... the fault's message, traceback and printed lines on the faults page (pages.py escapes ' as &#x27;)
    faults = pages["alice /faults"].text
    for p in ("<script>alert('raise')</script>", "<script>alert('print')</script>", "<img src=x onerror=alert(2)>"):
        assert p.replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#x27;") in faults, p
    assert escaped["<script>alert('name')</script>"] in pages["bob /"].text  # the roster name on the board
    for where in [w for w in pages if w.startswith("bob's replay")]:  # ... and as bob's opponent, as text
        assert "Alice &lt;script&gt;alert(" in pages[where].text, where
    written = [klass.folder / "report.html", klass.folder / "teacher.html", *sorted((klass.folder / "bot-pages").glob("*.html"))]
    assert len(written) >= 4
    for path in written:
        _only_text(path.read_text(encoding="utf-8"), path.name, own_scripts=False)
    assert "&lt;script&gt;alert(&#x27;raise&#x27;)" in (klass.folder / "bot-pages" / "alice.html").read_text()


def test_the_faults_page_shows_the_students_own_tracebacks_without_machine_paths(klass: Klass) -> None:
    page = klass.client("alice").get("/faults").text
    assert re.search(r'<span class="bad">error</span>: \d+ faults? in \d+ games?', page)
    assert "File &quot;alice.py&quot;, line 11, in choose" in page  # their own file and line, the path scrubbed
    assert "What the bot was given at that decision" in page and "legal  :" in page  # Observation.describe()
    assert "What it printed in that deal" in page
    assert "Faults of version 1" in page
    for machine in (str(klass.folder), str(klass.folder.resolve()), "site-packages", "cabo_kit/tournament"):
        assert machine not in page, machine
    assert "deal seed" not in page and "cabo-kit tournament repro" not in page  # neither helps a student, a seed leaks deals
    gid = klass.games_of("alice")[0][0]
    assert f'href="/games/{gid}?step=end"' in page
    bob = klass.client("bob").get("/faults").text
    assert "never raised" in bob and "alice.py" not in bob and "alert" not in bob  # his own faults only: none


def test_the_games_list_is_the_students_own_most_recent_first(klass: Klass) -> None:
    alice = klass.client("alice")
    page = alice.get("/games").text
    listed = re.findall(r'<tr data-game="([0-9a-f]+)" data-status="([a-z]+)">', page)
    assert [g for g, _ in listed] == [g for g, _ in klass.games_of("alice")]
    assert all(status in ("ok", "error") for _, status in listed)
    assert f"{len(listed)} games stored" in page and "<td>rush</td><td>2</td>" in page
    home = alice.get("/").text
    assert re.search(r'id="cabo-portal-faults">\d+ faults?</a>', home)
    assert re.search(r"version 1</a>[^<]*,\s+\d+ games, \d+ faults</li>", home)
    # the same versions list as the teacher's view of her page (versions.html), her files at her own address
    assert '<li data-number="1" data-status="rejected"><a href="/code/1">version 1</a>' in home
    assert [g for g, _ in re.findall(r'<tr data-game="([0-9a-f]+)" data-status="([a-z]+)">', home)] == \
        [g for g, _ in klass.games_of("alice")][:5]
    bob_games = re.findall(r'<tr data-game="([0-9a-f]+)"', klass.client("bob").get("/games").text)
    assert set(bob_games) == {g for g, _ in klass.games_of("bob")} and not set(bob_games) & {g for g, _ in klass.games_of("alice")} - {
        g for g, _ in klass.games_of("bob")}


def test_a_replay_is_from_the_sessions_seat_and_hides_others_games(klass: Klass) -> None:
    alice, bob, carol, nobody = klass.client("alice"), klass.client("bob"), klass.client("carol"), klass.client()
    only_alice = {g for g, _ in klass.games_of("alice")} - {g for g, _ in klass.games_of("bob")}
    assert only_alice, "alice played no game without bob"
    gid = sorted(only_alice)[0]
    seat = dict(klass.games_of("alice"))[gid]
    page = alice.get(f"/games/{gid}?step=2")
    assert page.status_code == 200
    assert f'id="cabo-portal-replay" data-seat="{seat}" data-step="2"' in page.text
    assert f"cabo-seat-{seat} " in page.text and "cabo-you" in page.text
    # the request cannot choose the seat: whatever it says, the page is the session's seat
    for other in (0, 1):
        assert alice.get(f"/games/{gid}?step=2&seat={other}").text == page.text
    missing = bob.get("/games/" + "0" * 24)
    for client in (bob, carol):  # another student: the same 404 as a game that does not exist, nothing of alice
        answer = client.get(f"/games/{gid}?step=2")
        assert answer.status_code == 404 and answer.text == missing.text
        assert "alice" not in answer.text.lower() and gid not in answer.text
    klass.state.reissue("carol")
    assert carol.get(f"/games/{gid}").status_code == nobody.get(f"/games/{gid}").status_code == 403
    assert carol.get(f"/games/{gid}").text == nobody.get(f"/games/{gid}").text
    assert klass.client(TEACHER).get(f"/games/{gid}").status_code == 403  # a student's page
    assert alice.get("/games/not-a-game-id").status_code == 404
    assert alice.get(f"/games/{gid}?step=-5").status_code == alice.get(f"/games/{gid}?step=x").status_code == 200
    assert alice.get("/static/table.css").headers["content-type"].startswith("text/css")


_PUBLIC = {"flip", "take", "discard", "snap", "multi"}  # turned up for all (RULES.md section 7)
_OWN = {"look", "draw", "peek", "spy", "place"}  # seen by the seat that acts only
# exchange: its first card goes to the pile (public), its second is the drawn card the seat put in its hand (its own);
# give, swap and penalty move or deal a card unseen: they show no face to anyone.


def _saw(seat: int, events: list[Any]) -> tuple[set[str], set[str]]:
    """What ``seat`` saw, worked out from the game's full log (every face shown) by the rules' section 7, not from
    anything the replay renders: ``(in the whole game, in the current round)``."""
    game_seen: set[str] = set()
    round_seen: set[str] = set()
    for e in events:
        if e.kind == "round":
            round_seen = set()
        faces = [c.text for c in e.cards]
        if e.kind in _PUBLIC:
            seen = faces
        elif e.kind in _OWN:
            seen = faces if e.seat == seat else []
        elif e.kind == "exchange":
            seen = faces[:1] + (faces[1:] if e.seat == seat else [])
        else:
            seen = []
        game_seen |= set(seen)
        round_seen |= set(seen)
    return game_seen, round_seen


def test_a_replay_never_shows_a_card_its_seat_did_not_see() -> None:
    """Every step of a 3-player game as each seat saw it: every card face on the page is one that seat saw by the
    rules (its own looks, draws, peeks and spies; the cards turned up for all; a round's end), worked out from the
    game's full log; another seat's hand shows only faces seen in this round; a card hidden from it never appears."""
    rules = ck.Rules.preset("rush")  # a standard deck: every face is one card of the game
    record = ck.play_game([ck.bots.GreedyBot(), ck.bots.RandomBot(), ck.bots.GreedyBot()], rules, seed=8)
    hidden_checked = others_shown = 0
    legend = re.compile(r'<details class="cabo-help">.*?</details>', re.S)  # sample cards, the same in every game
    for seat in (0, 1):
        for step in range(len(record.actions) + 1):
            frame = seat_frame(record, seat, step, ["me", "RandomBot", "GreedyBot"])
            html = legend.sub("", frame.table + frame.summary)
            game = record.replay(step)
            seen, this_round = _saw(seat, game.events_seen(None))
            ended = {c.text for result in game.results for hand in result.final_hands for c in hand}
            shown = set(re.findall(r'data-card="([^"?]+)"', html))
            assert shown <= seen | ended, (seat, step, shown - seen - ended)
            log = game.events_seen(None)
            if log and log[-1].kind == "end":  # the round ended at this step: every hand is shown
                this_round |= {c.text for hand in game.results[-1].final_hands for c in hand}
            for s, p, face in re.findall(r'cabo-s(\d)-p(\d)[^>]*data-card="([^"?]+)"', frame.table):
                if int(s) != seat:
                    others_shown += 1
                    assert face in this_round, (seat, step, s, p, face)
            for s, hand in enumerate(game.open_hands()):
                for p, card in enumerate(hand):
                    if s != seat and card.text not in seen | ended:
                        hidden_checked += 1
                        assert f'data-card="{card.text}"' not in html and card.pretty not in html, (step, s, p, card)
            assert f"seed {record.seed}" not in html  # the seed would give every card
    assert hidden_checked > 200 and others_shown > 20  # the test looked at hidden cards, many, and at shown ones


def test_a_replay_draws_what_it_drew_before_the_tables_picture_moved_to_one_place() -> None:
    """Every step of a seeded 2-player game from each seat: the very HTML the replay drew when it built the table's
    picture itself, before it took :func:`cabo_kit.table.picture.table_state` (the card table's own). A change here
    changes what a seated student sees: if the card table's drawing changed on purpose, look at the frames, then
    update the digest."""
    import hashlib
    import json

    record = ck.play_game([ck.bots.GreedyBot(), ck.bots.RandomBot()], ck.Rules.preset("deluxe"), seed=5)
    digest = hashlib.sha256()
    for seat in (0, 1):
        for step in range(len(record.actions) + 1):
            f = seat_frame(record, seat, step, ["p<0>", "p<1>"], me="You" if seat else "Ada")
            digest.update(json.dumps([f.table, f.summary, f.status, f.step, f.steps, f.round]).encode())
    assert len(record.actions) == 123
    assert digest.hexdigest() == "7b79f96a9628478a40e3cecb612bf6212df9c7a934106b5bdf265bdd47d25fe9"


def test_history_reads_only_new_games_and_starts_over_on_a_new_store(tmp_path: Path) -> None:
    from cabo_kit.tournament.store import GameRow, SeatRow, Store

    def add(store: Store, gid: str, bots: tuple[str, str], status: str = "ok") -> None:
        seats = [SeatRow(0, bots[0], "v1", 10, 1, 1.0, status, "boom" if status != "ok" else "", {}),
                 SeatRow(1, bots[1], "v2", 20, 2, 0.0, "ok", "", {})]
        store.add_game(GameRow(gid, "d", f"{gid}:x:0", "rush", "{}", 2, 7, 0, "ok", 1, b"{}"), seats)

    history = History(tmp_path)
    assert history.summary("ada").games == 0
    with Store(tmp_path / "results.sqlite") as store:
        add(store, "g1", ("ada", "RandomBot"))
        assert history.summary("ada").games == 1
        add(store, "g2", ("bob", "ada"))
        add(store, "g3", ("ada", "bob"), "error")
        summary = history.summary("ada")
        assert (summary.games, summary.faults, summary.by_version) == (3, {"error": 1}, {"v1": (2, 1), "v2": (1, 0)})
        assert [g.game_id for g in history.games("ada")] == ["g3", "g2", "g1"]
        assert [g.game_id for g in history.games("ada", 1, 1)] == ["g2"]
        assert history.game("bob", "g1") is None and history.game("ada", "g2").seat == 1  # type: ignore[union-attr]
    (tmp_path / "results.sqlite").rename(tmp_path / "old.sqlite")
    for side in tmp_path.glob("results.sqlite-*"):
        side.unlink()
    with Store(tmp_path / "results.sqlite") as store:  # a store moved aside and a new one started
        add(store, "h1", ("bob", "ada"))
    assert [g.game_id for g in history.games("ada")] == ["h1"] and history.summary("ada").faults == {}


def test_a_damaged_store_leaves_the_students_page_and_upload_working(tmp_path: Path) -> None:
    k = Klass(tmp_path)
    (tmp_path / "results.sqlite").write_bytes(b"this is not a database" * 100)
    alice = k.client("alice")
    page = alice.get("/")
    assert page.status_code == 200 and "cannot be read just now" in page.text and 'id="cabo-portal-upload"' in page.text
    assert alice.get("/games").status_code == alice.get("/faults").status_code == 503
    assert alice.get("/games/" + "0" * 24).status_code in (404, 503)
    k.state.close()


def test_the_printed_output_is_the_students_own_only(klass: Klass) -> None:
    logs = klass.folder / "logs"
    (logs / "alice-evil-0123456789ab.log").write_text("NOT ALICE'S OUTPUT\n")  # another bot, named like alice-...
    os.utime(logs / "alice-evil-0123456789ab.log", (1, 1))  # the oldest: the first lines shown were it read
    try:
        page = klass.client("alice").get("/faults").text
        section = page[page.index('id="cabo-portal-printed"'):]
        assert "&lt;script&gt;alert(&#x27;print&#x27;)&lt;/script&gt;" in section and "NOT ALICE" not in page
        assert "None." in klass.client("bob").get("/faults").text.split('id="cabo-portal-printed"')[1]
    finally:
        (logs / "alice-evil-0123456789ab.log").unlink()


def test_history_sees_a_deleted_game_stored_again(tmp_path: Path) -> None:
    """Store.delete_game (a corrupt record) and the next run storing that game again under a new rowid: as many
    games as before and a larger last rowid, so only the count of the games read tells; no game counted twice."""
    import cabo_kit.portal.history as history_module
    from cabo_kit.tournament.store import GameRow, SeatRow, Store

    def add(store: Store, gid: str, status: str = "ok") -> None:
        seats = [SeatRow(0, "ada", "v1", 10, 1, 1.0, status, "boom" if status != "ok" else "", {}),
                 SeatRow(1, "bob", "v2", 20, 2, 0.0, "ok", "", {})]
        store.add_game(GameRow(gid, "d", f"{gid}:x:0", "rush", "{}", 2, 7, 0, "ok", 1, b"{}"), seats)

    history = History(tmp_path)
    old, history_module.RECHECK = history_module.RECHECK, 0.0  # look at the store at every call
    try:
        with Store(tmp_path / "results.sqlite") as store:
            for gid, status in (("g1", "ok"), ("g2", "error"), ("g3", "ok")):
                add(store, gid, status)
            assert history.summary("ada") == history_module.Summary(3, {"error": 1}, {"v1": (3, 1)})
            store.delete_game("g2")
            add(store, "g2")  # played again: ok this time
            assert history.summary("ada") == history_module.Summary(3, {}, {"v1": (3, 0)})
            assert sorted(g.game_id for g in history.games("ada")) == ["g1", "g2", "g3"] and history.faults("ada") == []
    finally:
        history_module.RECHECK = old


def test_history_can_be_read_while_another_thread_refreshes_it(tmp_path: Path) -> None:
    """Pages read the index on the thread pool while another request's refresh adds games: a reader never sees
    a dict change size under it (a 500) nor counts that do not add up."""
    import threading

    import cabo_kit.portal.history as history_module
    from cabo_kit.tournament.store import GameRow, SeatRow, Store

    history = History(tmp_path)
    errors: list[BaseException] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            try:
                summary = history.summary("ada")
                assert summary.games == sum(g for g, _ in summary.by_version.values())
                history.games("ada", 0, 5)
            except BaseException as exc:  # noqa: BLE001 - reported by the test
                errors.append(exc)
                return

    store = Store(tmp_path / "results.sqlite")
    old, history_module.RECHECK = history_module.RECHECK, 0.0
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns often: a reader is stopped in the middle of its loops
    readers = [threading.Thread(target=read) for _ in range(3)]
    try:
        for t in readers:
            t.start()
        for i in range(300):  # a new version and a new fault kind at every game: new keys in the index's dicts
            seats = [SeatRow(0, "ada", f"v{i}", 10, 1, 1.0, "ok" if i % 2 else f"kind{i}", "", {}),
                     SeatRow(1, "bob", "v", 20, 2, 0.0, "ok", "", {})]
            store.add_game(GameRow(f"g{i}", "d", f"{i:05d}:x:0", "rush", "{}", 2, 7, 0, "ok", 1, b"{}"), seats)
            history.refresh()
    finally:
        done.set()
        for t in readers:
            t.join()
        sys.setswitchinterval(switch)
        history_module.RECHECK = old
        store.close()
    assert not errors, errors[0]
    assert history.summary("ada").games == 300


# ------------------------------------------------------------------ the teacher's read-only views of a student's pages


def test_the_teacher_reads_any_students_pages_read_only_and_no_student_does(klass: Klass) -> None:
    teacher, alice, bob = klass.client(TEACHER), klass.client("alice"), klass.client("bob")
    base = "/teacher/students/alice"
    assert f'href="{base}" class="student">alice</a>' in teacher.get("/teacher").text  # the roster links each
    page = teacher.get(base)
    assert page.status_code == 200
    # every version with its check's output (the hostile class name, as text), the file, no upload form, no stream
    assert 'data-number="1" data-status="rejected"' in page.text and 'href="/teacher/code/alice/1"' in page.text
    assert "&lt;script&gt;alert(&#39;class&#39;)&lt;/script&gt;" in page.text
    assert 'id="cabo-portal-upload"' not in page.text and "data-live" not in page.text
    assert "Alice &lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt;&#39;s games" in page.text
    # her games as she sees them, listed the same, opened under the teacher's address
    own = re.findall(r'<tr data-game="([0-9a-f]+)"', alice.get("/games").text)
    listed = teacher.get(f"{base}/games").text
    assert re.findall(r'<tr data-game="([0-9a-f]+)"', listed) == own and f'href="{base}/games/{own[0]}"' in listed
    faults = teacher.get(f"{base}/faults").text
    assert "Faults of version 1" in faults and "File &quot;alice.py&quot;, line 11, in choose" in faults
    assert re.search(rf'href="{base}/games/[0-9a-f]+\?step=end"', faults)
    pages = {"overview": page.text, "games": listed, "faults": faults}
    # a replay: the student's seat in that game, as the store records it (never a request's), her cards as she saw them
    both = sorted({g for g, _ in klass.games_of("alice")} & {g for g, _ in klass.games_of("bob")})
    assert both, "alice and bob never met"
    gid = both[0]
    for who, client in (("alice", alice), ("bob", bob)):
        seat = dict(klass.games_of(who))[gid]
        shown = teacher.get(f"/teacher/students/{who}/games/{gid}?step=2")
        assert f'id="cabo-portal-replay" data-seat="{seat}" data-step="2"' in shown.text, re.findall(r'id="cabo-portal-replay"[^>]*', shown.text)
        for other in (0, 1):
            assert teacher.get(f"/teacher/students/{who}/games/{gid}?step=2&seat={other}").text == shown.text
        cards = re.compile(r'data-card="([^"]+)"')
        assert cards.findall(shown.text) == cards.findall(client.get(f"/games/{gid}?step=2").text)
        pages[f"replay of {who}"] = shown.text
    for where, text in pages.items():
        _only_text(text, where)
    # a game she did not play is answered like one that does not exist; so is a student not on the roster
    not_hers = sorted({g for g, _ in klass.games_of("bob")} - {g for g, _ in klass.games_of("alice")})
    missing = teacher.get(f"{base}/games/" + "0" * 24)
    assert missing.status_code == 404
    if not_hers:
        assert teacher.get(f"{base}/games/{not_hers[0]}").text == missing.text
    for nobody in ("zed", TEACHER, "ALICE"):
        assert teacher.get(f"/teacher/students/{nobody}").status_code == 404
    # no student reaches these, not even their own: theirs are at / (tests/test_portal_access.py: every route)
    for path in (base, f"{base}/games", f"{base}/games/{gid}", f"{base}/faults"):
        for client in (alice, bob):
            answer = client.get(path)
            assert answer.status_code == 403 and "alert" not in answer.text and gid not in answer.text
