"""The portal lends its checks' idle core to the games (issue 19, speed d): more workers only while no check waits or
runs, the same games whatever the workers."""

from __future__ import annotations

import itertools
import os
import sqlite3
import time
from pathlib import Path
from typing import Iterator

import pytest

from cabo_kit.portal.games import LEND_NAME, GamesStatus, GamesWorker, _Lender, checks_idle, default_workers
from cabo_kit.portal.roster import Student
from cabo_kit.portal.state import PortalState
from cabo_kit.tournament.executors import LocalExecutor
from cabo_kit.tournament.runner import run_tournament


def _stamp(path: str) -> tuple[float, float]:
    """A task of the pool: its start and end (another process; 0.3 s apart)."""
    start = time.time()
    time.sleep(0.3)
    return start, time.time()


def _nap(seconds: float) -> tuple[float, float]:
    start = time.time()
    time.sleep(seconds)
    return start, time.time()


def _overlaps(spans: list[tuple[float, float]]) -> int:
    spans = sorted(spans)
    return sum(1 for (_, end), (start, _) in zip(spans, spans[1:]) if start < end - 0.05)


def test_a_pool_plays_only_as_many_tasks_at_once_as_busy_allows() -> None:
    with LocalExecutor(2, pin=False, busy=lambda: 1) as ex:
        one = list(ex.run(_stamp, ["a", "b", "c"]))
    assert _overlaps(one) == 0
    with LocalExecutor(2, pin=False) as ex:  # without busy both workers play
        both = list(ex.run(_stamp, ["a", "b", "c", "d"]))
    assert _overlaps(both) >= 1


def test_busy_is_asked_once_a_pass_not_twice_a_finished_task() -> None:
    """busy is a stat in the portal: asked once before the first wait and once after each, never twice a pass."""
    asked: list[int] = []

    def busy() -> int:
        asked.append(2)
        return 2

    with LocalExecutor(2, pin=False, busy=busy) as ex:
        assert len(list(ex.run(_nap, [0.0] * 20))) == 20
    assert 1 < len(asked) <= 21  # at most one wait a task; twice a finished task asked 34 times


def test_a_worker_taken_back_starts_no_further_match() -> None:
    """busy drops from 2 to 1 mid-run: no task starts while another runs once the two in flight at the switch are
    under way (nothing queued goes to the worker taken back); before the switch both workers played."""
    switched: list[float] = []
    spans: list[tuple[float, float]] = []
    with LocalExecutor(2, pin=False, busy=lambda: 1 if switched else 2) as ex:
        for span in ex.run(_stamp, [str(i) for i in range(8)]):
            spans.append(span)
            if len(spans) == 2 and not switched:
                switched.append(time.time())
    before = [s for s in spans if s[0] < switched[0]]
    after = [s for s in spans if s[0] >= switched[0] + 0.2]  # a task handed out just before may start just after
    assert _overlaps(before) >= 1 and len(after) >= 4, spans
    for start, end in after:  # each starts when no other task runs (the one running at the switch included)
        assert not any(s < start < e - 0.05 for s, e in spans if (s, e) != (start, end)), (start, spans)


def test_a_worker_lent_again_plays_before_the_running_match_ends() -> None:
    """busy rises from 1 to 2 while a long task runs: the second worker starts at once, not when that task ends."""
    t0 = time.time()
    with LocalExecutor(2, pin=False, busy=lambda: 2 if time.time() - t0 > 0.6 else 1, poll=0.05) as ex:
        spans = list(ex.run(_nap, [3.0, 0.2]))  # popped from the end: the 3 s task is handed out first
    first, second = sorted(spans)
    assert second[0] < first[1] - 1.0  # started while the long one ran


@pytest.fixture
def state(tmp_path: Path) -> Iterator[PortalState]:
    folder = tmp_path / "class"
    folder.mkdir()
    st = PortalState(folder)
    st.sync_roster([Student("ada", "Ada"), Student("bob", "Bob")])
    yield st
    st.close()


def test_the_games_borrow_only_while_no_check_waits_or_runs(state: PortalState) -> None:
    games = GamesWorker(state, workers=1)
    games.borrow = 1  # as on 2 cores with the default workers, whatever this machine has
    lender = _Lender(state.folder, 1, 1)

    def look() -> int:  # the server's tick says it, the games child reads it
        games._lend(checks_idle(state))
        return lender()

    assert look() == 2  # no upload: the checks' core is idle
    up = state.add_upload("ada", b"# v1\n", "bot.py", min_interval=0.0)
    assert not checks_idle(state) and look() == 1  # its check waits
    state.set_check("ada", up.number, "accepted", "", rest=True)
    assert look() == 1  # the first verdict is in, the rest of its check runs on the checks' pool: still theirs
    state.set_check("ada", up.number, "accepted", "")
    assert checks_idle(state) and look() == 2
    # a re-upload before the rest ran: the replaced version's rest never runs, and must not stop the lending for good
    v2 = state.add_upload("ada", b"# v2\n", "bot.py", min_interval=0.0)
    state.set_check("ada", v2.number, "accepted", "", rest=True)
    v3 = state.add_upload("ada", b"# v3\n", "bot.py", min_interval=0.0)
    assert look() == 1
    state.set_check("ada", v3.number, "accepted", "", rest=True)
    assert look() == 1  # v3's rest is to come
    state.set_check("ada", v3.number, "accepted", "")
    assert (state.upload("ada", v2.number) or up).rest and look() == 2  # v2 keeps its rest flag, off the board
    # an upload the checker failed on waits for its retry: the games keep the core meanwhile
    v4 = state.add_upload("bob", b"# b1\n", "bot.py", min_interval=0.0)
    assert look() == 1
    state.note_failure("bob", v4.number, counted=False, retry_at=time.time() + 60)
    assert look() == 2
    games.borrow = 0  # nothing to lend (an explicit --workers): the child is never told the checks are idle
    assert look() == 1 and not (state.dir / LEND_NAME).exists()
    assert _Lender(state.folder / "elsewhere", 1, 1)() == 1  # no word from a server: no borrowing


def test_the_default_workers_lend_the_checks_core_and_an_explicit_count_does_not(state: PortalState) -> None:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    default = GamesWorker(state)
    assert default.workers == default_workers() and default.workers + default.borrow == max(cores, 1 + default.borrow)
    assert GamesWorker(state, workers=1).borrow == 0
    lent = GamesStatus(running=True, since=0.0, workers=1, borrow=1).text()
    assert "1 worker, 2 while no check runs" in lent
    assert "while no check" not in GamesStatus(running=True, since=0.0, workers=1).text()


def test_the_child_is_told_what_it_may_borrow_on_its_command_line(state: PortalState) -> None:
    """The borrowed workers go on the child's command line; a portal.sqlite that still holds the old setting opens."""
    state.set_setting("games_borrow", "1")  # what a portal of the previous release left
    state.close()
    again = PortalState(state.folder)
    try:
        games = GamesWorker(again, workers=1)
        games.borrow = 1
        assert games._command("f0", 7)[-2:] == ["--borrow", "1"]
        games.borrow = 0
        assert "--borrow" not in games._command("f0", 7)
    finally:
        again.close()


TINY = ('presets = ["rush"]\ntable_sizes = [2]\ngames = 4\nprecision = 200\nmax_games = 40\nseed = 5\n'
        'reference = ["GreedyBot", "RandomBot", "CountingBot"]\n')


def test_the_games_are_the_same_whatever_the_workers_and_their_lending(tmp_path: Path) -> None:
    flips = itertools.cycle([1, 2])
    stores = []
    for name, workers, busy in (("one", 1, None), ("lent", 2, lambda: next(flips))):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "tournament.toml").write_text(TINY)
        run_tournament(folder, workers=workers, progress=False, out=None, busy=busy)
        con = sqlite3.connect(folder / "results.sqlite")
        stores.append(sorted(con.execute("SELECT game_id, order_key, record_sha256 FROM games").fetchall()))
        con.close()
    assert stores[0] == stores[1]
    assert any(key.startswith("a") for _, key, _ in stores[0])  # adaptive batches too, planned from the games


def test_the_run_stops_on_the_measure_the_live_board_shows(tmp_path: Path) -> None:
    """The teacher's live board rates the run's games with the run's own fit: when the run says every two-sided
    interval is within the target, so does the board (its +- is the larger side of each interval)."""
    import math

    from cabo_kit.portal.live import StoreReader
    from cabo_kit.tournament.store import load_frames

    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "tournament.toml").write_text(TINY.replace("max_games = 40", "max_games = 400"))
    summary = run_tournament(folder, workers=1, progress=False, out=None)
    assert any("every two-sided interval within +-200 Elo" in note for note in summary.notes), summary.notes
    _, seats = load_frames(folder / "results.sqlite")
    versions = dict(zip(seats["bot"], seats["version"]))
    board = StoreReader(folder / "results.sqlite").fit(versions, None, 1000)
    halves = [max(elo - low, high - elo) for _, _, elo, low, high, *_ in board["rows"]
              if math.isfinite(low) and math.isfinite(high)]
    assert halves and max(halves) <= 200


def test_the_games_write_the_board_and_the_report_before_they_grade(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With grading, the leaderboard and the report come out when the tournament's games are played (their grade cells
    not graded yet, the teacher's page saying so while the grading games play), and again once those are stored;
    a run whose grading has nothing left to play writes them once."""
    import csv
    import json

    import cabo_kit.outputs
    import cabo_kit.tournament.grades
    from cabo_kit.portal.games import RATED_NAME, _play

    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "tournament.toml").write_text('presets = ["rush"]\ntable_sizes = [2]\ngames = 2\nreference = ["GreedyBot"]\n'
                                            'grading = ["RandomBot"]\n')
    good = (Path(__file__).parent / "fault_bots" / "good.py").read_bytes()
    state = PortalState(folder)
    state.sync_roster([Student("ada", "Ada"), Student("bob", "Bob")])
    for pid in ("ada", "bob"):
        up = state.add_upload(pid, good + f"\n# {pid}\n".encode(), f"{pid}.py", min_interval=0.0)
        state.set_check(pid, up.number, "accepted", "no problem found")
    state.close()
    seen: dict[str, str] = {}
    grade = cabo_kit.tournament.grades.play_grades

    def grading(where: Path, *args: object, **kw: object) -> object:  # as grading starts: what the teacher has
        seen["board"] = (where / "leaderboard.csv").read_text()
        seen["report"] = (where / "report.html").read_text()
        seen["rated"] = (where / "portal" / RATED_NAME).read_text()
        seen["inode"] = str((where / "leaderboard.csv").stat().st_ino)
        return grade(where, *args, **kw)  # type: ignore[arg-type]

    writes: list[Path] = []
    write = cabo_kit.outputs.write_outputs
    monkeypatch.setattr(cabo_kit.tournament.grades, "play_grades", grading)
    monkeypatch.setattr(cabo_kit.outputs, "write_outputs", lambda where, out=None: (writes.append(where), write(where, out))[1])

    def cells(text: str) -> list[str]:
        return [r["vs RandomBot"] for r in csv.DictReader(text.splitlines()) if r["bot"] in ("ada", "bob")]

    first = _play(folder, 1, fp="f1", out=lambda _line: None)
    assert first["played"] > 0 and len(writes) == 2
    assert cells(seen["board"]) == ["not graded yet"] * 2
    assert seen["report"].count("not graded yet") >= 2
    assert json.loads(seen["rated"])["fingerprint"] == "f1"
    graded = cells((folder / "leaderboard.csv").read_text())
    assert len(graded) == 2 and all(c.split(" ")[0] in ("above", "level", "below") for c in graded), graded
    assert (folder / "grades.csv").exists()
    # written to a temporary file renamed over the old one: a download never gets half a file
    assert str((folder / "leaderboard.csv").stat().st_ino) != seen["inode"] and not list(folder.glob("*.tmp"))
    writes.clear()
    again = _play(folder, 1, fp="f1", out=lambda _line: None)  # every game stored: grading plays nothing
    assert again["played"] == 0 and len(writes) == 1
    assert cells((folder / "leaderboard.csv").read_text()) == graded
    text = GamesStatus(running=True, since=0.0, workers=1, rated=time.time()).text()
    assert text.startswith("Grading (since ") and "the leaderboard and the report are up to date except the grades" in text


@pytest.mark.parametrize("executor, workers, lent", [("local", 2, True), ("dask", 1, False)])
def test_only_the_local_pool_is_lent_a_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, executor: str,
                                              workers: int, lent: bool) -> None:
    """Dask never asks busy (its cluster takes every task at once): a class played there keeps to its workers."""
    import cabo_kit.tournament.runner
    from cabo_kit.portal.games import _play

    (tmp_path / "tournament.toml").write_text(TINY + f'executor = "{executor}"\n')
    asked: dict[str, object] = {}

    class Asked(Exception):
        pass

    def run(folder: Path, **kw: object) -> None:
        asked.update(kw)
        raise Asked

    monkeypatch.setattr(cabo_kit.tournament.runner, "run_tournament", run)
    with pytest.raises(Asked):
        _play(tmp_path, 1, borrow=1, out=lambda _line: None)
    assert asked["workers"] == workers and isinstance(asked["busy"], _Lender) == lent
