"""The portal's live ratings (cabo_kit/portal/live.py): the refit task and its cadences, the numbers against the
tournament's own, Server-Sent Events streams, who sees what, and the cap on one person's streams."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import re
import threading
from pathlib import Path
from typing import Any, Callable, Coroutine, Iterator, TypeVar

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
from starlette.testclient import TestClient  # noqa: E402

from cabo_kit.portal import live as live_module  # noqa: E402
from cabo_kit.portal.app import COOKIE, PortalSettings, create_app  # noqa: E402
from cabo_kit.portal.live import FitProcess, FitThread, LiveBoard, Rating, Snapshot, StoreReader  # noqa: E402
from cabo_kit.portal.roster import Student  # noqa: E402
from cabo_kit.portal.state import TEACHER, PortalState, secret_hash  # noqa: E402
from cabo_kit.tournament.ratings import fit_elo  # noqa: E402
from cabo_kit.tournament.store import GameRow, SeatRow, Store, load_frames  # noqa: E402

T = TypeVar("T")
STRENGTH = {"ada": 1.5, "bob": 0.5, "cy": 0.0, "RandomBot": -1.0}


def run(coro: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine in a thread of its own (a session-wide Playwright keeps an event loop in this one)."""
    out: list[Any] = []

    def main() -> None:
        try:
            out.append(("ok", asyncio.run(coro())))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread
            out.append(("err", exc))

    worker = threading.Thread(target=main)
    worker.start()
    worker.join(60)
    kind, value = out[0]
    if kind == "err":
        raise value
    return value


def play(db: Path, n: int, versions: dict[str, str], seed: int, first: int = 0, preset: str = "rush") -> list[str]:
    """Store ``n`` made-up 3-player games among ``versions``' bots (the stronger by :data:`STRENGTH` tends to win),
    two seat rotations per deal, now and then a fault; their ids."""
    rng = random.Random(seed)
    store = Store(db)
    ids = []
    try:
        for i in range(first, first + n):
            table = rng.sample(sorted(versions), 3)
            gid = f"{preset}-{seed}-{i}"
            order = sorted(table, key=lambda b: -(STRENGTH.get(b, 0.0) + rng.gauss(0, 1.2)))
            faulted = rng.random() < 0.05
            seats = [SeatRow(s, b, versions[b], 10 * order.index(b), order.index(b) + 1, float(order.index(b) == 0),
                             "error" if faulted and s == 0 else "ok", "") for s, b in enumerate(table)]
            store.add_game(GameRow(gid, f"d{seed}-{i // 2}", f"{i // 2:05d}:x:{i % 2}", preset, "{}", 3, i, i % 2,
                                   "error" if faulted else "ok", 2, b"{}"), seats)
            ids.append(gid)
    finally:
        store.close()
    return ids


def tournament_board(db: Path) -> Any:
    """What ``cabo-kit tournament`` shows: fit_elo on the latest schedule's games (write_outputs, anchor unset)."""
    return fit_elo(load_frames(db)[1], anchor=None)


def as_ratings(board: Any) -> list[Rating]:
    return list(Snapshot.from_frame(board).ratings)


class Counting(FitThread):
    def __init__(self, db: Path, nice: int = 0) -> None:
        super().__init__(db)
        self.calls: list[int] = []

    async def fit(self, versions: Any, anchor: str | None, bootstrap: int) -> dict[str, Any]:
        self.calls.append(bootstrap)
        return await super().fit(versions, anchor, bootstrap)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def board_for(folder: Path, versions: dict[str, str], **kw: Any) -> LiveBoard:
    return LiveBoard(folder, versions=lambda: versions, anchor=lambda: None, fit_in="thread", **kw)


# ------------------------------------------------------------------ the numbers


def test_the_live_board_rates_the_current_versions_as_the_tournament_does(tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    old = {"ada": "a1", "bob": "b1", "cy": "c1", "RandomBot": "r1"}
    play(db, 40, old, seed=1)
    new = dict(old, ada="a2")  # ada uploaded a new version: her old games leave the board, stay in the store
    play(db, 60, new, seed=2)
    seats = load_frames(db, current_only=False)[1]
    stale = set(seats.loc[seats["version"] != seats["bot"].map(new), "game_id"])
    with Store(db) as store:  # what `cabo-kit tournament run` counts: every stored game of the current versions
        store.set_scheduled(sorted(set(seats["game_id"]) - stale))
    on_board = seats["game_id"].nunique() - len(stale)
    assert 60 < on_board < 100  # the old games without ada are on the board still
    live = board_for(tmp_path, new, bootstrap=200)

    async def go() -> Snapshot:
        await live.step()
        await live.wait_intervals()
        return live.snapshot

    snap = run(go)
    expected = fit_elo(load_frames(db)[1], anchor=None, bootstrap=200)
    assert list(snap.ratings) == as_ratings(expected)  # the same numbers, intervals and rank intervals included
    assert snap.games == snap.interval_games == on_board
    assert {r.bot for r in snap.ratings} == set(new) and sum(r.games for r in snap.ratings) == 3 * on_board
    assert all(r.rank_low <= r.rank <= r.rank_high and r.elo_low <= r.elo <= r.elo_high for r in snap.ratings)


def test_after_a_real_tournament_run_the_live_board_is_its_leaderboard(tmp_path: Path) -> None:
    """``cabo-kit tournament run`` on three class files (an anchor, a reference bot): the live board, with the versions
    read from the folder, shows the numbers of the leaderboard.csv it wrote."""
    import csv
    import shutil

    from cabo_kit.tournament.runner import run_tournament, write_outputs

    (tmp_path / "bots").mkdir()
    for sid, style in (("ada", "good"), ("bob", "naive_low"), ("cy", "careful")):
        shutil.copy(Path(__file__).parent / "class_bots" / f"{style}.py", tmp_path / "bots" / f"{sid}.py")
    (tmp_path / "tournament.toml").write_text('presets = ["rush"]\ntable_sizes = [3]\ngames = 6\nseed = 18\n'
                                              'anchor = "GreedyBot"\nreference = ["RandomBot"]\n'
                                              "[limits]\ndecision_s = 10.0\ngame_bank_s = 120.0\n")
    run_tournament(tmp_path, progress=False, out=None, workers=1)
    write_outputs(tmp_path, out=None)
    live = LiveBoard(tmp_path, fit_in="thread")

    async def go() -> None:
        await live.step()
        await live.wait_intervals()

    run(go)
    with open(tmp_path / "leaderboard.csv", newline="") as f:
        expected = [[r["bot"], r["preset"], r["elo"], r["elo_low"], r["elo_high"], r["rank"], r["rank_low"],
                     r["rank_high"], r["games"]] for r in csv.DictReader(f)]
    shown = [[r.bot, r.preset, *(f"{x:.2f}" for x in (r.elo, r.elo_low, r.elo_high)),
              *(str(x) for x in (r.rank, r.rank_low, r.rank_high, r.games))] for r in live.snapshot.ratings]
    assert shown == expected and {r[0] for r in shown} == {"ada", "bob", "cy", "GreedyBot", "RandomBot"}


def test_point_fits_from_the_pairs_kept_give_fit_elos_elo_places_and_games(tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    versions = {b: "v" for b in STRENGTH}
    play(db, 50, versions, seed=13)
    play(db, 30, versions, seed=14, preset="deluxe")
    reader = StoreReader(db)
    reader.refresh()
    play(db, 25, dict(versions, cy="old"), seed=15)  # cy's games with another version: off the board
    play(db, 25, versions, seed=16)
    for anchor in (None, "RandomBot"):
        fast = reader.fit(versions, anchor, 0)["rows"]
        full = fit_elo(reader.frame(versions), anchor=anchor, bootstrap=0)
        assert [r[:2] + r[5:9] for r in fast] == [[r.bot, r.preset, r.rank, r.rank, r.rank, r.games]
                                                 for r in full.itertuples()]
        assert [r[2] for r in fast] == pytest.approx(list(full["elo"]), abs=1e-6)  # warm-started: the same optimum
        assert [r[9] for r in fast] == pytest.approx(list(full["win_rate"]), rel=1e-12)
    assert {r[1] for r in fast} == {"rush", "deluxe"}


def test_the_store_is_read_incrementally_and_again_whole_when_it_shrank(tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    versions = {b: "v" for b in STRENGTH}
    play(db, 30, versions, seed=3)
    reader = StoreReader(db)
    assert reader.refresh()[0] == 30
    play(db, 10, versions, seed=4)
    assert reader.refresh()[0] == 40 and reader.seats["rowid"].nunique() == 40 and len(reader.seats) == 120
    with Store(db) as store:
        store.delete_game("rush-3-0")
    play(db, 1, versions, seed=5)  # as many games as before: the count alone would not tell
    assert reader.refresh()[0] == 40
    assert json.dumps(reader.fit(versions, None, 0)) == json.dumps(StoreReader(db).fit(versions, None, 0))
    assert "rush-3-0" not in set(reader.seats["game_id"])


def test_a_fit_process_gives_the_same_answer_and_is_stopped(tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    versions = {b: "v" for b in STRENGTH}
    play(db, 20, versions, seed=6)

    async def go() -> tuple[dict[str, Any], int]:
        proc = FitProcess(db)
        try:
            answer = await proc.fit(versions, None, 0)
            pid = proc.proc.pid if proc.proc else -1
        finally:
            await proc.close()
        return answer, pid

    answer, pid = run(go)
    assert answer == json.loads(json.dumps(StoreReader(db).fit(versions, None, 0)))
    assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text().lower()


# ------------------------------------------------------------------ cadences


def test_points_every_2_s_intervals_every_30_s_and_nothing_without_new_games(tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    versions = {b: "v" for b in STRENGTH}
    play(db, 20, versions, seed=7)
    clock = Clock()
    live = board_for(tmp_path, versions, clock=clock, bootstrap=50)
    points, intervals = Counting(db), Counting(db)
    live._points, live._intervals = points, intervals
    looks: list[float] = []
    marker = live._marker
    live._marker = lambda: (looks.append(clock.now), marker())[1]  # type: ignore[method-assign]

    async def at(t: float) -> Snapshot:
        clock.now = t
        await live.step()
        await live.wait_intervals()
        return live.snapshot

    async def go() -> None:
        first = await at(0.0)
        assert first.games == 20 and first.interval_games == 20 and points.calls == [0] and intervals.calls == [50]
        assert (await at(1.0)).number == first.number  # nothing new: no fit at all
        play(db, 10, versions, seed=8)
        counted = await at(1.2)  # new games, but the last point fit was 1.2 s ago: counted, not fitted
        assert counted.games == 30 and points.calls == [0] and counted.number == first.number + 1
        assert [r.elo for r in counted.ratings] == [r.elo for r in first.ratings]  # the Elo waits for the next fit
        assert sum(r.games for r in counted.ratings) == 3 * 30  # each rating's games counted (3-player games)
        looks.clear()
        # 0.7 s after the count (another is due), before the next point fit: the store is looked at, nothing new is
        # in it, so nothing is counted or sent
        assert (await at(1.9)).number == counted.number and looks == [1.9] and points.calls == [0]
        second = await at(2.0)
        assert second.games == 30 and second.interval_games == 20 and points.calls == [0, 0]
        assert {(r.bot, r.preset): r.games for r in second.ratings} == {(r.bot, r.preset): r.games for r in counted.ratings}
        assert [r.interval_text for r in second.ratings] != ["pending"] * len(second.ratings)  # the old intervals stay
        assert all(r.rank_low <= r.rank <= r.rank_high for r in second.ratings)
        for t in (4.0, 10.0, 29.9):
            play(db, 2, versions, seed=int(t * 10))
            await at(t)
        assert len(points.calls) == 5 and intervals.calls == [50]  # points every 2 s; intervals wait for 30 s
        latest = await at(30.0)
        assert intervals.calls == [50, 50] and latest.interval_games == latest.games == 36
        await at(31.0)
        await at(100.0)
        assert intervals.calls == [50, 50] and len(points.calls) == 5  # nothing stored since: nothing refitted

    run(go)


def test_a_new_version_takes_its_old_games_off_the_board_without_new_games(tmp_path: Path) -> None:
    db = tmp_path / "results.sqlite"
    versions = {b: "v" for b in STRENGTH}
    play(db, 20, versions, seed=9)
    clock = Clock()
    live = board_for(tmp_path, versions, clock=clock, bootstrap=0)

    async def go() -> None:
        await live.step()
        assert "ada" in {r.bot for r in live.snapshot.ratings}
        versions["ada"] = "v2"  # accepted, not played yet
        clock.now = 2.0
        await live.step()
        assert "ada" not in {r.bot for r in live.snapshot.ratings} and live.snapshot.games < 20

    run(go)


def test_the_task_runs_with_the_apps_lifespan_and_sends_new_games_to_open_streams(tmp_path: Path) -> None:
    """A real loop: the lifespan starts the task; games stored after the page opened reach its stream."""
    k = Klass(tmp_path, poll=0.05, point_every=0.2)
    play(k.db, 12, k.versions, seed=10)
    with TestClient(k.app) as client:
        client.get(f"/signin/{k.links['bob']}")
        with client.stream("GET", "/live") as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            events = sse(response.iter_lines())
            first = next_event(events, "board", lambda d: d["rows"])
            assert first["games"] == 12
            play(k.db, 6, k.versions, seed=11)
            later = next_event(events, "board", lambda d: d["games"] == 18)
            assert {r["bot"] for r in later["rows"]} == {"alice", "bob", "RandomBot"}
    assert not k.app.state.live.running  # the lifespan stopped it
    k.state.close()


# ------------------------------------------------------------------ who sees what


class Klass:
    """A class of alice, bob and carol with a live board fitting on threads (alice, bob and RandomBot play)."""

    def __init__(self, folder: Path, **kw: Any) -> None:
        self.state = PortalState(folder)
        self.links = self.state.sync_roster([Student("alice", "Alice Secret"), Student("bob", "Bob"),
                                             Student("carol", "Carol")])
        self.db = folder / "results.sqlite"
        self.versions = {"alice": "a", "bob": "b", "RandomBot": "r"}
        self.live = board_for(folder, self.versions, bootstrap=kw.pop("bootstrap", 50), **kw)
        self.app = create_app(self.state, PortalSettings(), live=self.live)

    def client(self, who: str) -> TestClient:
        client = TestClient(self.app, follow_redirects=False)
        assert client.get(f"/signin/{self.links[who]}").status_code == 303
        return client

    def csrf(self, client: TestClient, page: str = "/") -> str:
        found = re.search(r'name="csrf" value="([^"]+)"', client.get(page).text)
        assert found
        return found.group(1)

    def fit(self) -> None:
        play(self.db, 30, self.versions, seed=12)

        async def go() -> None:
            await self.live.step()
            await self.live.wait_intervals()

        run(go)


@pytest.fixture
def klass(tmp_path: Path) -> Iterator[Klass]:
    k = Klass(tmp_path)
    k.fit()
    yield k
    k.state.close()


def sse(lines: Iterator[str]) -> Iterator[tuple[str, Any]]:
    """``(event, data)`` of a Server-Sent Events stream's lines."""
    event, data = "message", ""
    for line in lines:
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            data = line[6:]
        elif line == "" and data:
            yield event, json.loads(data)
            event, data = "message", ""


def next_event(events: Iterator[tuple[str, Any]], kind: str, until: Callable[[Any], Any] = bool) -> Any:
    for event, data in events:
        if event == kind and until(data):
            return data
    raise AssertionError(f"the stream ended before a {kind} event")


def stream_of(k: Klass, client: TestClient) -> list[tuple[str, Any]]:
    """Everything a stream sends while no live task runs (it then sends the current board and ends)."""
    with client.stream("GET", "/live") as response:
        assert response.status_code == 200
        return list(sse(response.iter_lines()))


def test_the_student_page_shows_their_rating_interval_rank_interval_and_games(klass: Klass) -> None:
    page = klass.client("alice").get("/").text
    mine = [r for r in klass.live.snapshot.ratings if r.bot == "alice"][0]
    row = re.search(r'<table id="cabo-portal-rating">.*?<tr data-preset="rush">(.*?)</tr>', page, re.S)
    assert row, page
    cells = re.findall(r"<td>([^<]*)</td>", row.group(1))
    assert cells == ["rush", mine.elo_text, mine.interval_text, f"{mine.rank} of 3", mine.ranks_text, str(mine.games)]
    assert re.search(r'<tr data-bot="alice" data-preset="rush" class="mine">', page)
    assert "–" in mine.interval_text or mine.interval_text.startswith(("below", "above"))
    assert 'id="cabo-portal-rating" hidden' in klass.client("carol").get("/").text  # no games: no rating yet


def test_a_stream_carries_the_board_and_the_readers_own_rating(klass: Klass) -> None:
    events = stream_of(klass, klass.client("alice"))
    kinds = [e for e, _ in events]
    assert "board" in kinds and "mine" in kinds
    board = dict(events)["board"]
    assert {r["bot"] for r in board["rows"]} == {"alice", "bob", "RandomBot"} and board["games"] == 30
    mine = dict(events)["mine"]
    assert mine["bot"] == mine["key"] == "alice" and [r["preset"] for r in mine["rows"]] == ["rush"]
    teacher = stream_of(klass, klass.client(TEACHER))
    assert [e for e, _ in teacher] == ["board"]  # the teacher has no rating of their own
    assert dict(teacher)["board"]["rows"] == board["rows"]


def test_pseudonyms_hide_every_other_students_id_and_name(klass: Klass) -> None:
    teacher = klass.client(TEACHER)
    assert teacher.post("/teacher/settings", data={"csrf": klass.csrf(teacher, "/teacher"), "names": "pseudonyms"}
                        ).status_code == 303
    bob = klass.client("bob")
    for text in (json.dumps(stream_of(klass, bob)), bob.get("/").text):
        assert "alice" not in text and "Alice" not in text
    events = dict(stream_of(klass, bob))
    keys = {r["bot"] for r in events["board"]["rows"]}
    assert "RandomBot" in keys and "bob" not in keys and all(k.startswith("anon-") for k in keys - {"RandomBot"})
    assert events["mine"]["key"] in keys and events["mine"]["bot"] == "bob"  # his own row, for his page to mark
    page = bob.get("/").text
    assert re.search(r'<tr data-bot="bob" data-preset="rush" class="mine"><td>rush</td><td>[^<]*</td><td>Bob</td>', page)
    assert 'data-bot="alice"' in teacher.get("/teacher").text  # the teacher sees everyone as they are
    assert "Alice Secret" in json.dumps(stream_of(klass, teacher))


def test_a_board_for_the_teacher_only_shows_students_nothing_but_their_own_rating(klass: Klass) -> None:
    teacher = klass.client(TEACHER)
    csrf = klass.csrf(teacher, "/teacher")
    assert teacher.post("/teacher/settings", data={"csrf": csrf, "board": "teacher"}).status_code == 303
    bob = klass.client("bob")
    events = stream_of(klass, bob)
    text = json.dumps(events)
    assert "alice" not in text and "Alice" not in text and "RandomBot" not in text
    assert dict(events)["board"] == {"hidden": True, "games": 0, "note": "", "rows": []}
    assert [r["preset"] for r in dict(events)["mine"]["rows"]] == ["rush"]
    page = bob.get("/").text
    assert 'id="cabo-portal-board"' not in page and "alice" not in page and 'id="cabo-portal-rating">' in page
    assert len(dict(stream_of(klass, teacher))["board"]["rows"]) == 3


def test_a_changed_setting_reaches_open_streams_at_once(klass: Klass) -> None:
    bob = klass.client("bob")
    stream = klass.live.open_stream(person_of(klass, bob), secret_hash(bob.cookies[COOKIE]))
    stream.pending.clear()
    teacher = klass.client(TEACHER)
    teacher.post("/teacher/settings", data={"csrf": klass.csrf(teacher, "/teacher"), "board": "teacher"})
    assert json.loads(stream.pending["board"].split(b"data: ")[1])["hidden"] is True


# ------------------------------------------------------------------ the streams of one person, and their end


def person_of(k: Klass, client: TestClient) -> Any:
    session = k.state.session(client.cookies[COOKIE])
    assert session is not None
    return session.person


def read_all(stream: Any) -> list[tuple[str, Any]]:
    async def go() -> bytes:
        return b"".join([chunk async for chunk in stream.events()])

    return list(sse(iter(run(go).decode().split("\n"))))


def test_a_person_holds_at_most_four_streams_the_oldest_ends_and_says_why(klass: Klass) -> None:
    alice = klass.state.person("alice")
    assert alice is not None
    streams = [klass.live.open_stream(alice, secret_hash(f"s{i}")) for i in range(5)]
    assert [s.ended is not None for s in streams] == [True, False, False, False, False]
    events = read_all(streams[0])
    assert events[-1][0] == "end" and "more than 4 tabs" in events[-1][1]["reason"]
    bob = klass.state.person("bob")
    assert bob is not None
    klass.live.open_stream(bob, "b")  # another person's stream ends none of alice's
    assert [s.ended is not None for s in streams] == [True, False, False, False, False]


def test_sign_out_and_a_reissued_link_end_that_persons_streams(klass: Klass) -> None:
    alice, bob = klass.client("alice"), klass.client("bob")
    person = person_of(klass, alice)
    a = klass.live.open_stream(person, secret_hash(alice.cookies[COOKIE]))
    b = klass.live.open_stream(person_of(klass, bob), secret_hash(bob.cookies[COOKIE]))
    assert alice.post("/signout", data={"csrf": klass.csrf(alice)}).status_code == 303
    assert a.ended == "you signed out" and b.ended is None
    assert read_all(a)[-1] == ("end", {"reason": "you signed out"})
    klass.state.reissue("bob")
    run(klass.live.check_sessions)  # the task looks every 2 s (a reissue may come from another process)
    assert b.ended is not None and "session has ended" in b.ended
    assert alice.get("/live").status_code == 403


def test_a_broadcast_is_one_serialisation_per_audience(klass: Klass, monkeypatch: pytest.MonkeyPatch) -> None:
    people = [Student(f"s{i:03d}", f"Student {i}") for i in range(200)]
    klass.state.sync_roster(people)
    made: list[str] = []
    real = live_module._message

    def counting(event: str, data: Any) -> bytes:
        made.append(event)
        return real(event, data)

    monkeypatch.setattr(live_module, "_message", counting)
    for s in people:
        person = klass.state.person(s.id)
        assert person is not None
        klass.live.open_stream(person, secret_hash(s.id))
    klass.live.open_stream(klass.state.person(TEACHER), "t")  # type: ignore[arg-type]
    made.clear()
    klass.live.publish(dataclasses.replace(klass.live.snapshot, games=klass.live.snapshot.games + 1))
    assert made.count("board") == 2 and made.count("mine") == 200  # students' board once, the teacher's once
    boards = {id(s.pending["board"]) for s in klass.live.streams if not s.person.is_teacher}
    assert len(boards) == 1


def test_page_views_come_from_the_snapshot_only(klass: Klass, monkeypatch: pytest.MonkeyPatch) -> None:
    """No page handler fits ratings: with fitting made impossible, every page still answers from the snapshot."""
    def no_fit(*_: Any, **__: Any) -> Any:
        raise AssertionError("a page fitted ratings")

    monkeypatch.setattr(live_module.StoreReader, "fit", no_fit)
    import cabo_kit.tournament.ratings as ratings

    monkeypatch.setattr(ratings, "fit_elo", no_fit)
    assert 'data-bot="alice"' in klass.client(TEACHER).get("/teacher").text
    assert 'id="cabo-portal-rating">' in klass.client("alice").get("/").text



def test_a_new_board_is_rendered_by_the_live_task_not_by_the_next_page(klass: Klass,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """After a new board, the students' and the teacher's rows are rendered as it is published (the live task), each
    row again only when its text changed; the student's page that follows renders only the student's own row."""
    import cabo_kit.portal.app as app_module
    import cabo_kit.portal.fragments as fragments

    alice = klass.client("alice")
    made: list[str] = []

    def counting(row: Any) -> str:
        made.append(f"{row['bot']}{'*' if row.get('mine') else ''}")
        return fragments.board_row(row)

    monkeypatch.setattr(app_module, "board_row", counting)
    ratings = list(klass.live.snapshot.ratings)
    moved = [dataclasses.replace(r, elo=r.elo + 7) if r.bot == "bob" else r for r in ratings]
    klass.live.publish(dataclasses.replace(klass.live.snapshot, ratings=tuple(moved)))
    assert sorted(made) == ["bob", "bob"]  # the students' board and the teacher's: bob's row only, the rest kept
    made.clear()
    page = alice.get("/").text
    assert made == ["alice*"]  # the page rendered her own row, nothing else
    bob = [r for r in moved if r.bot == "bob"][0]
    assert re.search(rf'<tr data-bot="bob" data-preset="rush"><td>rush</td><td>[^<]*</td><td>Bob</td><td>{bob.elo_text}</td>',
                     page)
    made.clear()
    assert 'data-bot="alice"' in klass.client(TEACHER).get("/teacher").text and made == []


def test_a_stream_whose_response_never_started_is_let_go(klass: Klass) -> None:
    alice = klass.state.person("alice")
    assert alice is not None
    stale = klass.live.open_stream(alice, "gone")
    stale.opened -= 31  # its reader left before the response began: the generator's cleanup never runs
    fresh = klass.live.open_stream(alice, "here")
    run(klass.live.check_sessions)
    assert stale not in klass.live.streams and stale.ended is None  # let go, not told anything: it has no reader
    assert fresh in klass.live.streams and fresh.ended is not None  # not a live session: ended, its reader told why


def test_a_damaged_store_keeps_the_last_board_and_tells_the_teacher(tmp_path: Path) -> None:
    k = Klass(tmp_path, poll=0.01, point_every=0.0, bootstrap=0)
    play(k.db, 20, k.versions, seed=17)

    async def go() -> tuple[str, int, bool]:
        await k.live.start()
        try:
            while not k.live.snapshot.ratings:
                await asyncio.sleep(0.01)
            for side in tmp_path.glob("results.sqlite*"):
                side.unlink()
            k.db.write_bytes(b"not a store" * 1000)
            for _ in range(300):
                if k.live.problem:
                    break
                await asyncio.sleep(0.01)
            return k.live.problem, len(k.live.snapshot.ratings), k.live.running
        finally:
            await k.live.stop()

    problem, kept, running = run(go)
    assert "results.sqlite" in problem and kept == 3 and running
    note = k.live.board_view(True)["note"]
    assert "could not be brought up to date" in note and "results.sqlite" in note
    assert "could not" not in k.live.board_view(False)["note"]
    k.state.close()


# ------------------------------------------------------------------ the schedule (review of issue 19)


def test_after_a_changed_configuration_the_live_board_is_still_the_leaderboard(tmp_path: Path) -> None:
    """table_sizes [3] -> [2]: the 3-player games stay in the store with every seat current, but the tournament's
    leaderboard rates only the latest run's schedule; so does the live board."""
    import csv
    import shutil

    from cabo_kit.tournament.runner import run_tournament, write_outputs

    (tmp_path / "bots").mkdir()
    for sid, style in (("ada", "good"), ("bob", "naive_low")):
        shutil.copy(Path(__file__).parent / "class_bots" / f"{style}.py", tmp_path / "bots" / f"{sid}.py")
    toml = ('presets = ["rush"]\ntable_sizes = [3]\ngames = 2\nseed = 18\nreference = ["RandomBot"]\n'
            "[limits]\ndecision_s = 10.0\ngame_bank_s = 120.0\n")
    (tmp_path / "tournament.toml").write_text(toml)
    run_tournament(tmp_path, progress=False, out=None, workers=1)
    (tmp_path / "tournament.toml").write_text(toml.replace("table_sizes = [3]", "table_sizes = [2]"))
    run_tournament(tmp_path, progress=False, out=None, workers=1)
    write_outputs(tmp_path, out=None)
    live = LiveBoard(tmp_path, fit_in="thread")

    async def go() -> None:
        await live.step()
        await live.wait_intervals()

    run(go)
    with open(tmp_path / "leaderboard.csv", newline="") as f:
        expected = [[r["bot"], r["preset"], r["elo"], r["elo_low"], r["elo_high"], r["rank"], r["games"]]
                    for r in csv.DictReader(f)]
    shown = [[r.bot, r.preset, *(f"{x:.2f}" for x in (r.elo, r.elo_low, r.elo_high)), str(r.rank), str(r.games)]
             for r in live.snapshot.ratings]
    assert shown == expected
    frames = load_frames(tmp_path / "results.sqlite", current_only=False)[0]
    assert set(frames["table_size"]) == {2, 3} and live.snapshot.games == len(load_frames(tmp_path)[0])


def test_a_new_schedule_without_new_games_refits_the_board(tmp_path: Path) -> None:
    """A preset taken out of tournament.toml: the next run schedules only the other's games, plays none (all are
    stored), and the board drops the preset's ratings at the next point fit."""
    db = tmp_path / "results.sqlite"
    versions = {b: "v" for b in STRENGTH}
    rush = play(db, 20, versions, seed=21)
    deluxe = play(db, 20, versions, seed=22, preset="deluxe")
    with Store(db) as store:
        store.set_scheduled(rush + deluxe + ["not-played-yet"])
    clock = Clock()
    live = board_for(tmp_path, versions, clock=clock, bootstrap=0)

    async def go() -> None:
        await live.step()
        assert {r.preset for r in live.snapshot.ratings} == {"rush", "deluxe"} and live.snapshot.games == 40
        with Store(db) as store:
            store.set_scheduled(rush)
        clock.now = 2.0
        await live.step()

    run(go)
    assert {r.preset for r in live.snapshot.ratings} == {"rush"} and live.snapshot.games == 20
    expected = as_ratings(fit_elo(load_frames(db)[1], anchor=None, bootstrap=0))
    assert [(r.bot, r.rank, r.games) for r in live.snapshot.ratings] == [(r.bot, r.rank, r.games) for r in expected]
    assert [r.elo for r in live.snapshot.ratings] == pytest.approx([r.elo for r in expected], abs=1e-6)


def test_a_new_version_shows_a_pending_interval_not_its_old_versions(tmp_path: Path) -> None:
    """ada's new version, much weaker, has played: until the next bootstrap its row shows its Elo with a pending
    interval (its old version's would not hold its Elo), and the note no longer says the intervals are from the
    board's first games."""
    db = tmp_path / "results.sqlite"
    versions = {"ada": "a1", "bob": "b1", "cy": "c1", "RandomBot": "r1"}
    play(db, 60, versions, seed=1)
    clock = Clock()
    live = board_for(tmp_path, versions, clock=clock, bootstrap=200)
    strength = dict(STRENGTH)

    async def go() -> None:
        await live.step()
        await live.wait_intervals()
        old = {r.bot: r for r in live.snapshot.ratings}
        assert all(r.interval_text != "pending" for r in old.values())
        STRENGTH["ada"] = -2.0
        versions["ada"] = "a2"
        play(db, 30, versions, seed=2, first=1000)
        clock.now = 5.0  # a point fit is due, the bootstrap is not (30 s)
        await live.step()
        now = {r.bot: r for r in live.snapshot.ratings}
        assert now["ada"].elo < old["ada"].elo_low  # the old interval would not hold the new Elo ...
        assert now["ada"].interval_text == "pending" and now["ada"].ranks_text == ""  # ... so none is shown
        for bot in ("bob", "cy", "RandomBot"):  # the others keep theirs
            assert (now[bot].elo_low, now[bot].elo_high) == (old[bot].elo_low, old[bot].elo_high)
        assert "first" not in live.note() and "pending" in live.note()
        clock.now = 30.0
        await live.step()
        await live.wait_intervals()
        ada = {r.bot: r for r in live.snapshot.ratings}["ada"]
        assert ada.elo_low <= ada.elo <= ada.elo_high and "pending" not in live.note()

    try:
        run(go)
    finally:
        STRENGTH.clear()
        STRENGTH.update(strength)


def test_a_bot_off_the_roster_is_a_classmate_never_its_id(tmp_path: Path) -> None:
    """dave left the roster but his bots/dave.py still plays: students see him as "a classmate" under an anon- key,
    under roster names and under pseudonyms, on the board and in replays; the teacher sees his id."""
    k = Klass(tmp_path)
    k.versions["dave"] = "d"
    k.fit()
    teacher, bob = k.client(TEACHER), k.client("bob")
    csrf = k.csrf(teacher, "/teacher")
    portal = k.app.state.portal
    session = k.state.session(bob.cookies[COOKIE])
    assert session is not None
    for names in ("names", "pseudonyms"):
        assert teacher.post("/teacher/settings", data={"csrf": csrf, "names": names}).status_code == 303
        board = dict(stream_of(k, bob))["board"]
        dave = [r for r in board["rows"] if r["name"] == "a classmate"]
        assert len(dave) == 1 and dave[0]["bot"].startswith("anon-"), board["rows"]
        assert "dave" not in json.dumps(board) and "dave" not in bob.get("/").text
        called = portal.student.names(["dave", "bob", "RandomBot", "alice"], session)
        assert called[:3] == ["a classmate", "Bob", "RandomBot"]
        alice = next(r for r in board["rows"] if r["bot"] == ("alice" if names == "names" else
                                                               k.live.audience().key("alice")))
        assert called[3] == alice["name"] == ("Alice Secret" if names == "names" else alice["name"])
        assert names == "names" or alice["name"] not in ("Alice Secret", "a classmate")
    assert 'data-bot="dave"' in teacher.get("/teacher").text
    assert teacher.post("/teacher/settings", data={"csrf": csrf, "board": "teacher"}).status_code == 303
    assert portal.student.names(["dave", "alice", "RandomBot"], session) == ["a classmate", "a classmate", "RandomBot"]
    k.state.close()


def test_names_and_settings_are_read_once_not_per_page_or_stream(klass: Klass, monkeypatch: pytest.MonkeyPatch) -> None:
    """Page views and new streams name the bots from the kept audience: no read of portal.sqlite's people or
    settings and no pseudonym recomputed on the event loop; a changed setting is read again at once."""
    import cabo_kit.portal.pseudonyms as pseudonyms_module

    teacher, bob = klass.client(TEACHER), klass.client("bob")
    assert teacher.post("/teacher/settings", data={"csrf": klass.csrf(teacher, "/teacher"), "names": "pseudonyms"}
                        ).status_code == 303
    bob.get("/")
    calls: list[str] = []
    for name in ("people",):
        real = getattr(klass.state, name)
        monkeypatch.setattr(klass.state, name, lambda *a, _r=real, _n=name, **kw: (calls.append(_n), _r(*a, **kw))[1])
    real_pseudonyms = pseudonyms_module.pseudonyms
    monkeypatch.setattr(pseudonyms_module, "pseudonyms",
                        lambda *a, **kw: (calls.append("pseudonyms"), real_pseudonyms(*a, **kw))[1])
    portal = klass.app.state.portal
    real_vis = portal.visibility
    monkeypatch.setattr(portal, "visibility", lambda: (calls.append("settings"), real_vis())[1])
    klass.live.attach(klass.state, portal.visibility)
    bob.get("/")  # read once after attach
    calls.clear()
    person = person_of(klass, bob)
    for i in range(10):
        assert 'class="mine"' in bob.get("/").text
        klass.live.open_stream(person, f"s{i}")
    klass.live.publish(dataclasses.replace(klass.live.snapshot, games=klass.live.snapshot.games + 1))
    assert calls == []
    teacher.post("/teacher/settings", data={"csrf": klass.csrf(teacher, "/teacher"), "names": "names"})
    assert "settings" in calls and "Alice Secret" in bob.get("/").text


def test_a_fit_process_uses_one_blas_thread(tmp_path: Path) -> None:
    """Its linear algebra on one thread: BLAS threads spinning for cores the games hold made point fits ten times
    slower on 2 busy cores."""
    db = tmp_path / "results.sqlite"

    async def go() -> str:
        proc = FitProcess(db)
        try:
            await proc.fit({}, None, 0)
            assert proc.proc is not None
            return Path(f"/proc/{proc.proc.pid}/environ").read_bytes().decode(errors="replace")
        finally:
            await proc.close()

    environ = run(go).split("\0")
    assert "OPENBLAS_NUM_THREADS=1" in environ and "OMP_NUM_THREADS=1" in environ


def test_a_point_fit_is_due_2_s_after_the_last_one_started_and_nothing_is_read_before(tmp_path: Path) -> None:
    """A slow fit (1.5 s) does not push the next one back: it is due 2 s after the last one started, and the
    first look after that which sees a new game starts it. Until it (or a count) is due, a look reads nothing."""
    db = tmp_path / "results.sqlite"
    versions = {b: "v" for b in STRENGTH}
    play(db, 20, versions, seed=31)
    clock = Clock()
    live = board_for(tmp_path, versions, clock=clock, bootstrap=0, counts_every=60.0)
    started: list[float] = []

    class Slow(FitThread):
        async def fit(self, versions: Any, anchor: str | None, bootstrap: int) -> dict[str, Any]:
            started.append(clock.now)
            answer = await super().fit(versions, anchor, bootstrap)
            clock.now += 1.5
            return answer

    live._points = Slow(db)
    looks: list[float] = []
    marker = live._marker
    live._marker = lambda: (looks.append(clock.now), marker())[1]  # type: ignore[method-assign]
    assert live.poll <= 0.1

    async def go() -> None:
        await live.step()  # the first fit: 0 to 1.5 s
        play(db, 3, versions, seed=32, first=100)
        for t in (1.6, 1.8, 1.99):
            clock.now = t
            await live.step()
        assert started == [0.0] and looks == [0.0]  # not due yet: the store was not even looked at
        clock.now = 2.0
        await live.step()
        assert started == [0.0, 2.0] and live.snapshot.games == 23

    run(go)


def test_new_games_are_counted_between_point_fits_at_most_every_half_second(tmp_path: Path) -> None:
    """Games stored just after a point fit reach the board as counts within ``counts_every`` (0.5 s), each count read
    once, never more often; the count looks at the store only (no versions read, nothing fitted)."""
    db = tmp_path / "results.sqlite"
    versions = {b: "v" for b in STRENGTH}
    play(db, 20, versions, seed=41)
    clock = Clock()
    live = board_for(tmp_path, versions, clock=clock, bootstrap=0)
    assert live.counts_every == 0.5
    asked: list[float] = []
    ask = live._ask
    live._ask = lambda: (asked.append(clock.now), ask())[1]  # type: ignore[method-assign]
    counted: list[float] = []

    fits: list[float] = []

    class Counts(FitThread):
        async def counts(self, versions: Any) -> dict[str, Any]:
            counted.append(clock.now)
            return await super().counts(versions)

        async def fit(self, versions: Any, anchor: str | None, bootstrap: int) -> dict[str, Any]:
            fits.append(clock.now)
            return await super().fit(versions, anchor, bootstrap)

    live._points = Counts(db)

    async def at(t: float) -> Snapshot:
        clock.now = t
        await live.step()
        return live.snapshot

    async def go() -> None:
        first = await at(0.0)
        play(db, 2, versions, seed=42, first=100)
        assert (await at(0.1)).games == 20  # the first count is due 0.5 s after the fit
        assert (await at(0.5)).games == 22 and counted == [0.5]
        play(db, 1, versions, seed=43, first=200)
        assert (await at(0.9)).games == 22 and counted == [0.5]  # 0.4 s after the last count: not yet
        assert (await at(1.0)).games == 23 and counted == [0.5, 1.0]
        assert (await at(1.5)).number == live.snapshot.number and counted == [0.5, 1.0]  # nothing new: nothing sent
        assert asked == [0.0] and first.games == 20 and fits == [0.0]
        # nothing new since the count, but the point fit is due and the counted games were never fitted: their Elo
        # follows their counts now (the point fit, not another count)
        fitted = await at(2.0)
        assert fitted.games == 23 and asked == [0.0, 2.0] and fits == [0.0, 2.0] and counted == [0.5, 1.0]
        assert [r.elo for r in fitted.ratings] != [r.elo for r in first.ratings]
        expected = StoreReader(db).fit(versions, None, 0)["rows"]
        assert [(r.bot, r.games) for r in fitted.ratings] == [(r[0], r[8]) for r in expected]
        assert [r.elo for r in fitted.ratings] == pytest.approx([r[2] for r in expected], abs=1e-6)
        assert (await at(4.0)).number == fitted.number and fits == [0.0, 2.0]  # all fitted: no fit, nothing sent

    run(go)


def test_a_fit_process_never_imports_from_the_servers_working_folder(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`python -c` imports from its working directory first, and a server started in the class folder has it there:
    the fit process runs in "/" (with -P where there is one), so a json.py there never runs; a relative store path
    still finds the store."""
    marker = tmp_path / "imported"
    (tmp_path / "json.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    versions = {b: "v" for b in STRENGTH}
    play(tmp_path / "results.sqlite", 4, versions, seed=7)
    monkeypatch.chdir(tmp_path)

    async def go() -> dict[str, Any]:
        proc = FitProcess(Path("results.sqlite"))
        try:
            return await proc.fit(versions, None, 0)
        finally:
            await proc.close()

    answer = run(go)
    assert not marker.exists()
    assert answer == json.loads(json.dumps(StoreReader(tmp_path / "results.sqlite").fit(versions, None, 0)))
