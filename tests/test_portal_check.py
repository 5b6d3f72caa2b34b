"""The isolated check of an upload (a subprocess running check-bot) and the worker that records it and installs the file."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from cabo_kit.portal.checker import REST_REJECTED, REST_RUNS, CheckOutcome, CheckProcess, CheckWorker, check_file
from cabo_kit.portal.roster import Student
from cabo_kit.portal.state import PortalState, Upload

BOTS = Path(__file__).parent / "fault_bots"
GOOD = (BOTS / "good.py").read_bytes()
RAISES = (BOTS / "raises.py").read_bytes()


@pytest.fixture
def state(tmp_path: Path) -> PortalState:
    s = PortalState(tmp_path)
    s.sync_roster([Student("alice", "Alice"), Student("bob", "Bob")])
    return s


def test_a_good_file_is_accepted_in_check_bots_sentences(tmp_path: Path) -> None:
    source = tmp_path / "1.py"
    source.write_bytes(GOOD)
    outcome = check_file(source, "my_bot.py", games=2)
    assert outcome.status == "accepted", outcome.text
    assert re.match(r"my_bot \(GoodBot\): \d+ games, \d+ decisions asked, played in its own process", outcome.text)
    assert "No problems found." in outcome.text


def test_a_rejection_names_the_line_of_the_students_own_file(tmp_path: Path) -> None:
    source = tmp_path / "1.py"
    source.write_bytes(RAISES)
    outcome = check_file(source, "my_bot.py", games=2)
    assert outcome.status == "rejected"
    assert 'File "my_bot.py", line 16, in compute' in outcome.text
    assert "ValueError: boom: the bot's own bug" in outcome.text
    assert "cabo-portal-check-" not in outcome.text and str(tmp_path) not in outcome.text


def test_a_file_without_a_bot_is_rejected_with_the_reason(tmp_path: Path) -> None:
    source = tmp_path / "1.py"
    source.write_text("x = 1\n")
    outcome = check_file(source, "homework.py", games=2)
    assert outcome.status == "rejected" and "homework.py has no Bot subclass of its own" in outcome.text


def test_a_check_that_overruns_is_stopped_and_rejected(tmp_path: Path) -> None:
    source = tmp_path / "1.py"
    source.write_bytes(GOOD)
    started = time.perf_counter()
    outcome = check_file(source, "slow.py", games=50, timeout=0.3)
    assert time.perf_counter() - started < 5
    assert outcome == CheckOutcome("rejected", "slow.py: the check took longer than 0.3 s and was stopped "
                                               "(does your bot take very long to load or to decide?)")


def test_the_worker_installs_accepted_files_and_keeps_the_last_good_one(state: PortalState) -> None:
    bots = state.folder / "bots"
    state.add_upload("alice", GOOD, "alice_bot.py", now=0.0)
    worker = CheckWorker(state, games=2)
    try:
        assert worker.run_pending() == 1
        first = state.uploads_of("alice")[0]
        assert first.status == "accepted" and first.result.startswith("alice_bot (GoodBot)")
        assert (bots / "alice.py").read_bytes() == GOOD and state.current("alice") == 1
        state.add_upload("alice", RAISES, "alice_bot.py", now=100.0)
        assert worker.run_pending() == 1
    finally:
        worker.stop()
    assert state.uploads_of("alice")[0].status == "rejected"
    assert (bots / "alice.py").read_bytes() == GOOD and state.current("alice") == 1  # the rejected one is not installed
    assert sorted(p.name for p in bots.iterdir()) == ["alice.py"]  # no temporary file left where the tournament looks


def test_an_older_upload_accepted_late_does_not_replace_a_newer_one(state: PortalState) -> None:
    state.add_upload("bob", b"# one\n", "b.py", now=0.0)
    state.add_upload("bob", b"# two\n", "b.py", now=100.0)
    assert state.set_check("bob", 2, "accepted", "ok") is True
    assert state.set_check("bob", 1, "accepted", "ok") is False
    assert (state.folder / "bots" / "bob.py").read_bytes() == b"# two\n" and state.current("bob") == 2


def test_recover_puts_back_the_current_file(state: PortalState) -> None:
    state.add_upload("bob", b"# one\n", "b.py", now=0.0)
    state.set_check("bob", 1, "accepted", "ok")
    target = state.folder / "bots" / "bob.py"
    target.write_bytes(b"# a later upload whose commit was lost\n")
    (state.folder / "bots" / "_bob.portal.tmp").write_bytes(b"half")
    removed = state.recover()
    assert target.read_bytes() == b"# one\n" and target in removed
    assert not (state.folder / "bots" / "_bob.portal.tmp").exists()


def test_the_worker_thread_checks_what_arrives_and_what_a_stopped_server_left(state: PortalState) -> None:
    state.add_upload("alice", b"# left by a stopped server\n", "a.py", now=0.0)
    seen: list[tuple[str, int]] = []

    def check(up: Upload) -> CheckOutcome:
        seen.append((up.person, up.number))
        return CheckOutcome("accepted" if up.person == "alice" else "rejected", f"checked {up.filename}")

    worker = CheckWorker(state, check=check, poll=30.0).start()
    try:
        deadline = time.monotonic() + 10
        while state.uploads_of("alice")[0].status == "checking" and time.monotonic() < deadline:
            time.sleep(0.02)
        state.add_upload("bob", b"# new\n", "b.py", now=1.0)
        worker.wake()  # without it the worker would look again only after 30 s
        while state.uploads_of("bob")[0].status == "checking" and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        worker.stop()
    assert seen == [("alice", 1), ("bob", 1)]
    assert [(u.status, u.result) for u in state.uploads_of("bob")] == [("rejected", "checked b.py")]
    assert state.current("alice") == 1 and state.current("bob") is None


SPY = '''
import os
import cabo_kit as ck

found = []
for path in {paths!r}:
    try:
        if os.path.isdir(path):
            found.append(path + " lists " + ",".join(sorted(os.listdir(path))))
        else:
            with open(path, "rb") as f:
                found.append(path + " reads " + repr(f.read(30)))
    except OSError:
        pass


class Spy(ck.Bot):
    def __init__(self):
        super().__init__()
        raise RuntimeError("FOUND " + " | ".join(found or ["nothing"]))

    def choose(self, observation, legal_actions):
        return legal_actions[0]
'''


@pytest.mark.skipif(not __import__("cabo_kit.portal.server", fromlist=["x"]).bots_get_own_uid(),
                    reason="bots get a uid of their own only when the server is root")
def test_a_checked_bot_cannot_read_the_class_data() -> None:
    """A file under check tries to read the links, the portal's store and uploads, and another student's bot file.
    The class folder itself is open to all (0755), as a teacher's folder usually is, and its tournament.toml is
    world-readable: the spy must read that (so "nothing else" means something) and nothing of the portal's."""
    import shutil
    import tempfile

    from cabo_kit.portal.links import write_links

    folder = Path(tempfile.mkdtemp(prefix="cabo-portal-spy-", dir="/tmp"))
    try:
        os.chmod(folder, 0o755)
        (folder / "tournament.toml").write_text("games = 4\n")
        os.chmod(folder / "tournament.toml", 0o644)
        state = PortalState(folder)
        links = state.sync_roster([Student("alice", "Alice"), Student("bob", "Bob")])
        write_links(folder, links, {}, "http://127.0.0.1:8765")
        state.add_upload("alice", b"# ALICE SOURCE\n", "a.py", now=0.0)
        state.set_check("alice", 1, "accepted", "ok")
        paths = [str(folder / "tournament.toml"), str(folder / "portal-links.csv"), str(folder / "portal"),
                 str(folder / "portal" / "portal.sqlite"), str(folder / "portal" / "uploads" / "alice" / "1.py"),
                 str(folder / "bots"), str(folder / "bots" / "alice.py")]
        spy = folder / "spy.py"
        spy.write_text(SPY.format(paths=paths))
        outcome = check_file(spy, "spy.py", games=1)
        state.close()
    finally:
        shutil.rmtree(folder)
    assert outcome.status == "rejected"
    said = re.search(r"FOUND (.*)", outcome.text)
    assert said, outcome.text
    assert said.group(1) == f"{paths[0]} reads b'games = 4\\n'", outcome.text


def test_markup_a_bot_raises_or_prints_is_shown_as_text_on_every_page(state: PortalState) -> None:
    """A real check of a file whose exception and output carry markup; the student's and the teacher's pages show it as text."""
    from starlette.testclient import TestClient

    from cabo_kit.portal.app import create_app

    hostile = (b"import cabo_kit as ck\n\n\nclass Xss(ck.Bot):\n    def choose(self, observation, legal_actions):\n"
               b"        print('<img src=x onerror=alert(1)>')\n"
               b"        raise ValueError('<script>alert(document.cookie)</script>')\n")
    state.add_upload("alice", hostile, "<b>x</b>.py", now=0.0)
    worker = CheckWorker(state, games=1)
    try:
        assert worker.run_pending() == 1
    finally:
        worker.stop()
    up = state.uploads_of("alice")[0]
    assert up.status == "rejected" and "<script>alert(document.cookie)</script>" in up.result  # stored as the bot said it
    assert "<img src=x onerror=alert(1)>" in up.result  # its printed output is reported too
    links = state.sync_roster([Student("alice", "Alice"), Student("bob", "Bob")])  # no new links: take fresh ones
    alice_link, teacher_link = state.reissue("alice"), state.reissue("_teacher")
    assert links == {}
    app = create_app(state)
    pages = []
    for link, path in ((alice_link, "/"), (teacher_link, "/teacher")):
        client = TestClient(app)
        assert client.get(f"/signin/{link}").status_code == 200
        pages.append(client.get(path).text)
    for page in pages:
        assert "&lt;script&gt;alert(document.cookie)&lt;/script&gt;" in page and "&lt;img src=x onerror=alert(1)&gt;" in page
        assert "<script>alert" not in page and "<img src=x" not in page and "<b>x</b>" not in page


def test_several_check_threads_check_each_upload_once(tmp_path: Path) -> None:
    import threading

    state = PortalState(tmp_path)
    ids = [f"s{i}" for i in range(6)]
    state.sync_roster([Student(i, i) for i in ids])
    for n, sid in enumerate(ids):
        state.add_upload(sid, f"# {sid}\n".encode(), "a.py", now=float(n))
        state.add_upload(sid, f"# {sid} again\n".encode(), "a.py", now=100.0 + n)
    seen: list[tuple[str, int]] = []
    guard = threading.Lock()

    def check(up: Upload) -> CheckOutcome:
        time.sleep(0.01)
        with guard:
            seen.append((up.person, up.number))
        return CheckOutcome("accepted", "")

    worker = CheckWorker(state, check=check, threads=3, poll=0.05).start()
    try:
        deadline = time.monotonic() + 10
        while state.pending_checks() and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        worker.stop()
    assert sorted(seen) == sorted((sid, n) for sid in ids for n in (1, 2))
    assert all(state.current(sid) == 2 for sid in ids)  # the newer upload is the bot, whichever check ended last
    assert all((tmp_path / "bots" / f"{sid}.py").read_text() == f"# {sid} again\n" for sid in ids)
    state.close()


def test_a_check_process_checks_file_after_file_and_starts_afresh_after_an_overrun(tmp_path: Path) -> None:
    good, hangs = tmp_path / "good.py", tmp_path / "hangs.py"
    good.write_bytes(GOOD)
    hangs.write_bytes(b"import time\ntime.sleep(60)\n")
    process = CheckProcess(nice=0)
    try:
        first = check_file(good, "a.py", games=1, timing=False, process=process)
        pid = process.proc.pid if process.proc else None
        second = check_file(good, "b.py", games=1, timing=False, process=process)
        assert first.status == second.status == "accepted" and not first.complete  # no time estimate yet
        assert second.text.startswith("b (GoodBot): 2 games") and "Time:" not in second.text
        assert process.proc is not None and process.proc.pid == pid and process.jobs == 2  # the same process
        started = time.perf_counter()
        stuck = check_file(hangs, "hangs.py", games=1, timeout=1.0, process=process)
        assert time.perf_counter() - started < 5 and stuck.status == "rejected" and "longer than 1 s" in stuck.text
        assert process.proc is None  # ended with what it started
        again = check_file(good, "c.py", games=1, process=process)  # a new process, and the whole check
        assert again.status == "accepted" and again.complete and "\nTime: " in again.text
        assert process.proc is not None and process.proc.pid != pid
    finally:
        process.close()
    assert process.proc is None


def test_the_rest_runs_once_no_first_verdict_waits_and_a_late_rejection_brings_back_the_version_before(
        state: PortalState) -> None:
    """The first verdict accepts (the file plays at once, the page says the rest runs); the rest rejects it: the upload
    leaves the tournament, the student's version before it comes back, and the page shows the rest's sentences."""
    from starlette.testclient import TestClient

    from cabo_kit.portal.app import create_app

    def first(up: Upload) -> CheckOutcome:
        return CheckOutcome("accepted", f"first verdict of {up.number}\n{REST_RUNS}", complete=False)

    def rest(up: Upload) -> CheckOutcome:
        if up.number == 2:
            return CheckOutcome("rejected", f"far slower\n{REST_REJECTED}")
        return CheckOutcome("accepted", f"complete check of {up.number}")

    changed: list[int | None] = []
    worker = CheckWorker(state, check=first, rest=rest)
    worker.on_accepted = lambda: changed.append(state.current("alice"))
    state.add_upload("alice", b"# v1\n", "a.py", now=0.0)
    assert worker.run_pending() == 1 and state.current("alice") == 1
    state.add_upload("alice", b"# v2\n", "a.py", now=100.0)
    state.add_upload("bob", b"# b1\n", "b.py", now=100.0)
    assert worker.run_rests() == 0  # first verdicts wait: the rests go after them
    assert worker.run_pending() == 2 and state.current("alice") == 2 and changed == [1, 2, 2]  # bob's too
    v2 = state.uploads_of("alice")[0]
    # alice's v1 is no longer her current file: its rest is skipped (it comes back if v2's rest rejects v2)
    assert v2.status == "accepted" and v2.rest and [u.number for u in state.pending_rests()] == [2, 1]
    link = state.reissue("alice")
    client = TestClient(create_app(state))
    assert client.get(f"/signin/{link}").status_code == 200
    page = client.get("/").text
    assert 'data-status="accepted" data-number="2" data-rest="running"' in page and "the rest of the check runs" in page
    assert client.get("/check").json() == {"number": 2, "status": "accepted", "result": v2.result, "rest": True}
    assert worker.run_rests() == 3 and state.pending_rests() == []
    assert (state.folder / "bots" / "alice.py").read_bytes() == b"# v1\n" and state.current("alice") == 1
    assert changed == [1, 2, 2, 1]  # the games were told: the file changed back (only then)
    assert [(u.number, u.status, u.rest, u.result) for u in state.uploads_of("alice")] == [
        (2, "rejected", False, f"far slower\n{REST_REJECTED}"), (1, "accepted", False, "complete check of 1")]
    page = client.get("/").text
    assert 'data-status="rejected" data-number="2">' in page and "then rejected by the rest of the check" in page
    assert "rest" not in client.get("/check").json()


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="pins the check to one core (Linux)")
def test_a_far_slower_bot_is_accepted_by_the_first_verdict_and_rejected_by_the_rest(state: PortalState) -> None:
    """Only the rest times the reference bots: a bot 60 ms a draw (no game lost; minutes more for the class) plays
    until the rest finds it far slower; then the student's good version plays again. The check is pinned to one core
    (the class's time is modelled on the cores the check may use), so it is far slower on any machine."""
    sleepy = (b"import time\nimport cabo_kit as ck\n\n\nclass Sleepy(ck.SimpleBot):\n    def draw(self, obs):\n"
              b"        time.sleep(0.06)\n        return super().draw(obs)\n")
    state.add_upload("alice", GOOD, "good.py", now=0.0)
    state.add_upload("alice", sleepy, "sleepy.py", now=100.0)
    worker = CheckWorker(state, games=1, nice=0, rest_nice=0)
    cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cores)})  # this thread's: its check processes inherit it
    try:
        assert worker.run_pending() == 2
        assert [(u.status, u.rest) for u in state.uploads_of("alice")] == [("accepted", True)] * 2
        assert state.current("alice") == 2 and state.uploads_of("alice")[0].result.endswith(REST_RUNS)
        assert worker.run_rests() == 2
    finally:
        os.sched_setaffinity(0, cores)
        worker.stop()
    slow, good = state.uploads_of("alice")
    assert (good.status, good.rest) == ("accepted", False) and "\nTime: " in good.result
    assert (slow.status, slow.rest) == ("rejected", False) and slow.result.endswith(REST_REJECTED)
    assert "Your bot is far slower than the reference bots." in slow.result
    assert state.current("alice") == 1 and (state.folder / "bots" / "alice.py").read_bytes() == GOOD


@pytest.mark.parametrize("name", ["textwrap.py", "json.py"])
def test_an_upload_named_like_a_module_the_checker_imports_never_runs_in_the_check_process(tmp_path: Path,
                                                                                             name: str) -> None:
    """`python -c` imports from its working directory first: the check process never runs where a file under check
    lies, so a file named like a module it imports is played isolated as any other, never imported by the checker."""
    marker = tmp_path / "ran-in-the-check-process"
    source = tmp_path / "1.py"
    source.write_text(f"if __name__ == {name[:-3]!r}:  # imported as that module, not played as a bot\n"
                      f"    open({str(marker)!r}, 'w').close()\n" + GOOD.decode())
    outcome = check_file(source, name, games=1, timing=False)
    assert not marker.exists()
    assert outcome.status == "accepted", outcome.text
