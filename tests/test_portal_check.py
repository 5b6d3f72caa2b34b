"""The isolated check of an upload (a subprocess running check-bot) and the worker that records it and installs the file."""

from __future__ import annotations

import json
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
        assert first.status == "accepted" and first.result.startswith("alice (GoodBot)")  # as bots/alice.py plays
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


# ---------------------------------------------------------------- review of issue 19: items 3, 4, 5, 9, 10


def test_the_rest_of_a_version_no_longer_current_is_skipped(state: PortalState) -> None:
    """v1 and v2 accepted by their first verdicts: only v2 (the current file) gets the rest; v1's plays nowhere."""
    seen: list[int] = []

    def rest(up: Upload) -> CheckOutcome:
        seen.append(up.number)
        return CheckOutcome("accepted", f"complete check of {up.number}")

    worker = CheckWorker(state, check=lambda up: CheckOutcome("accepted", "first", complete=False), rest=rest)
    state.add_upload("alice", b"# v1\n", "a.py", now=0.0)
    state.add_upload("alice", b"# v2\n", "a.py", now=100.0)
    assert worker.run_pending() == 2 and state.current("alice") == 2
    assert worker.run_rests() == 1 and seen == [2] and state.pending_rests() == []
    assert [(u.number, u.rest) for u in state.uploads_of("alice")] == [(2, False), (1, True)]


_READY = "import sys\nprint('{\"ready\": true}', flush=True)\nsys.stdin.readline()\n"  # then the job is read
FAILING_CHECKERS = {  # the program, what the error says, whether it was during the job (counted)
    "exits at once": ("import sys; sys.exit(3)", "stopped as it started (exit status 3)", False),
    "never ready": ("import time; time.sleep(30)", "did not start within 1 s", False),
    "ends during the job": (_READY + "sys.exit(0)", "ended during the check (exit status 0)", True),
    "killed during the job": (_READY + "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
                              "ended during the check (exit status -9)", True),
    "raises": ("import cabo_kit.tournament.check as c\nc.check_bot_cli = lambda *a, **k: 1 / 0\n"
               "from cabo_kit.portal.checker import _serve_checks\n_serve_checks()", "ZeroDivisionError", True),
}


@pytest.mark.parametrize("kind", FAILING_CHECKERS)
def test_a_failure_of_the_checker_itself_is_never_the_students_verdict(tmp_path: Path, kind: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A check process that does not start: tried once more in a fresh process. One that ends, is killed or raises
    during the file's check, in a fresh process: the file may be the cause, so not tried again at once, and
    ``counted``. Either way CheckerError (no verdict), and nothing of it is left running."""
    from cabo_kit.portal import checker

    program, said, counted = FAILING_CHECKERS[kind]
    monkeypatch.setattr(checker, "_PROGRAM", program)
    source = tmp_path / "1.py"
    source.write_bytes(GOOD)
    started: list[int] = []
    process = CheckProcess(nice=0, start_s=1.0 if kind == "never ready" else 60.0,
                           running=lambda p, alive: started.append(p.pid) if alive else None)
    with pytest.raises(checker.CheckerError, match=re.escape(said)) as failed:
        check_file(source, "my_bot.py", games=1, process=process)
    assert failed.value.counted is counted
    assert len(started) == (1 if counted else 2) and process.proc is None  # a second try was a fresh process; all ended
    assert all(not Path(f"/proc/{pid}").exists() for pid in started) or not Path("/proc/self").exists()


def test_a_kept_process_that_ends_during_a_check_is_not_the_files_doing_and_is_tried_afresh(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process that checked a file before may have been ended by what another file left: not counted against this
    one, which is checked again at once in a fresh process."""
    from cabo_kit.portal import checker

    monkeypatch.setattr(checker, "_PROGRAM", "import json, sys\nprint('{\"ready\": true}', flush=True)\n"
                        "for n, line in enumerate(sys.stdin):\n    if n == 1:\n        sys.exit(5)\n"
                        "    print(json.dumps({'code': 0, 'text': f'checked {json.loads(line)[\"path\"].rsplit(\"/\", 1)[1]}'}), "
                        "flush=True)\n")
    source = tmp_path / "1.py"
    source.write_bytes(GOOD)
    started: list[int] = []
    process = CheckProcess(nice=0, running=lambda p, alive: started.append(p.pid) if alive else None)
    try:
        assert check_file(source, "a.py", games=1, process=process).text == "checked a.py"
        assert check_file(source, "b.py", games=1, process=process).text == "checked b.py"  # its second job: ended
    finally:
        process.close()
    assert len(started) == 2


def test_a_checker_that_failed_once_is_given_a_fresh_process_and_judges_the_file(tmp_path: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from cabo_kit.portal import checker

    marker = tmp_path / "failed-once"
    monkeypatch.setattr(checker, "_PROGRAM", f"import os, sys\nif not os.path.exists({str(marker)!r}):\n"
                                             f"    open({str(marker)!r}, 'w').close()\n    sys.exit(3)\n"
                                             f"{checker._PROGRAM}\n")
    source = tmp_path / "1.py"
    source.write_bytes(GOOD)
    outcome = check_file(source, "my_bot.py", games=1, timing=False)
    assert marker.exists() and outcome.status == "accepted", outcome.text


def test_an_upload_the_checker_failed_stays_checking_is_logged_and_is_checked_at_the_next_start(
        state: PortalState, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    from cabo_kit.portal import checker

    real = checker._PROGRAM
    monkeypatch.setattr(checker, "_PROGRAM", "import sys; sys.exit(3)")
    state.add_upload("alice", GOOD, "alice_bot.py", now=0.0)
    worker = CheckWorker(state, games=1, retry_after=3600.0)
    try:
        with caplog.at_level("WARNING", logger="cabo_kit.portal"):
            assert worker.run_pending() == 0
            assert worker.run_pending() == 0  # not tried again before retry_after
        up = state.uploads_of("alice")[0]
        assert (up.status, up.result) == ("checking", checker.CHECKER_FAILED.format(when="in 60 minutes")) \
            and state.current("alice") is None
        from starlette.testclient import TestClient

        from cabo_kit.portal.app import create_app

        client = TestClient(create_app(state))
        assert client.get(f"/signin/{state.reissue('alice')}").status_code == 200
        page = client.get("/").text  # the student's page: still checking, and why
        assert 'data-status="running"' in page and "The checker itself failed on the server (not because of your " \
            "file)" in page
        assert [r.getMessage() for r in caplog.records] == [
            "cabo-kit serve: the checker failed twice, so upload 1 of alice was not checked (no fault of the file: it "
            "stays 'checking', and is checked again in 3600 s or at the next start): the check process stopped as it "
            "started (exit status 3)"]
    finally:
        worker.stop()
    monkeypatch.setattr(checker, "_PROGRAM", real)
    again = CheckWorker(state, games=1)  # the next start
    try:
        assert again.run_pending() == 1
    finally:
        again.stop()
    assert state.uploads_of("alice")[0].status == "accepted" and state.current("alice") == 1


def test_a_rest_the_checker_failed_keeps_the_first_verdict_and_a_failed_first_verdict_holds_no_rest(
        state: PortalState, caplog: pytest.LogCaptureFixture) -> None:
    from cabo_kit.portal.checker import CheckerError

    rests: list[int] = []

    def first(up: Upload) -> CheckOutcome:
        if up.person == "bob":
            raise CheckerError("the check process did not start within 120 s")
        return CheckOutcome("accepted", "first verdict", complete=False)

    def rest(up: Upload) -> CheckOutcome:
        rests.append(up.number)
        if len(rests) == 1:
            raise CheckerError("the check process ended during the check (exit status -9)")
        return CheckOutcome("accepted", "the whole check")

    worker = CheckWorker(state, check=first, rest=rest, retry_after=2.0)
    state.add_upload("alice", b"# a\n", "a.py", now=0.0)
    state.add_upload("bob", b"# b\n", "b.py", now=0.0)
    with caplog.at_level("WARNING", logger="cabo_kit.portal"):
        assert worker.run_pending() == 1 and worker.run_rests() == 0  # bob's first waits 2 s: alice's rest is tried
    alice = state.uploads_of("alice")[0]
    assert (alice.status, alice.rest, alice.result) == ("accepted", True, "first verdict") and rests == [1]
    assert state.uploads_of("bob")[0].status == "checking"
    assert "upload 1 of alice was not given the rest of its check (no fault of the file: it keeps its first verdict, " \
           "and the rest is tried again in 2 s or at the next start): the check process ended" in caplog.text
    time.sleep(2.1)
    assert worker.run_pending() == 0 and worker.run_rests() == 1  # bob failed again; alice's rest is tried again
    alice = state.uploads_of("alice")[0]
    assert (alice.status, alice.rest, alice.result) == ("accepted", False, "the whole check") and rests == [1, 1]


def test_after_max_jobs_the_next_process_is_started_ahead_and_the_old_one_ends_in_the_background(
        tmp_path: Path) -> None:
    """No check waits for a process to start or to end: the successor starts ``ahead`` checks before the old one's
    last, whose end the check that reached the count does not wait for."""
    good = tmp_path / "good.py"
    good.write_bytes(GOOD)
    events: list[tuple[int, bool]] = []
    process = CheckProcess(nice=0, max_jobs=3, ahead=2, running=lambda p, alive: events.append((p.pid, alive)))
    try:
        assert check_file(good, "a.py", games=1, timing=False, process=process).status == "accepted"
        first = process.proc
        assert first is not None and events == [(first.pid, True)]
        assert check_file(good, "b.py", games=1, timing=False, process=process).status == "accepted"
        assert process.proc is first and process._next is not None
        successor = process._next[0]
        assert events == [(first.pid, True), (successor.pid, True)]  # started beside b's check, 2 before the count
        assert check_file(good, "b2.py", games=1, timing=False, process=process).status == "accepted"  # the 3rd job
        assert process.proc is None and process._next is not None and process._next[0] is successor
        until = time.monotonic() + 10
        while (first.pid, False) not in events and time.monotonic() < until:
            time.sleep(0.02)
        assert (first.pid, False) in events and first.poll() is not None  # it ended by itself, in the background
        assert check_file(good, "c.py", games=1, timing=False, process=process).status == "accepted"
        assert process.proc is successor and [pid for pid, alive in events if alive] == [first.pid, successor.pid]
    finally:
        process.close()
    assert events[-1] == (successor.pid, False)


HOSTILE = '''
import builtins, os, sys, threading
import cabo_kit as ck

LEFT = []


def attempt(what, act):
    try:
        act()
        LEFT.append(what)
    except BaseException:
        pass


def sleeper():
    import time
    time.sleep(3600)


def fork():
    if os.fork() == 0:
        sleeper()
        os._exit(0)


def leave_state():
    import cabo_kit.tournament.check as check
    import cabo_kit.tournament.isolation as isolation
    attempt("cwd", lambda: os.chdir("/"))
    attempt("environ", lambda: os.environ.update(PYTHONPATH="/nowhere", CABO_PORTAL_FOLDER="/nowhere"))
    attempt("check_bot", lambda: setattr(check, "check_bot", lambda *a, **k: None))
    attempt("isolation", lambda: setattr(isolation, "IsolatedBot", None))
    attempt("Bot.choose", lambda: setattr(ck.Bot, "choose", lambda self, observation, legal_actions: "cabo"))
    attempt("SimpleBot.draw", lambda: setattr(ck.SimpleBot, "draw", None))
    attempt("builtins", lambda: setattr(builtins, "SIGNAL_FROM_A_BOT", 1))
    attempt("sys.modules", lambda: sys.modules.__setitem__("json", None))
    attempt("recursion", lambda: sys.setrecursionlimit(40))
    attempt("thread", lambda: threading.Thread(target=sleeper, daemon=True).start())
    attempt("fork", fork)
    attempt("json.py", lambda: open(os.path.join(os.getcwd(), "json.py"), "w").write("raise SystemExit(9)\\n"))


leave_state()
print("LEFT", ",".join(LEFT))


class Hostile(ck.Bot):
    def choose(self, observation, legal_actions):
        leave_state()
        return legal_actions[0]
'''


def _under(pid: int) -> set[tuple[int, bytes]]:
    """The processes under ``pid`` (pid and command line; a check process's isolation harness server is one)."""
    found: set[tuple[int, bytes]] = set()
    for tasks in Path(f"/proc/{pid}/task").glob("*/children"):
        for child in map(int, tasks.read_text().split()):
            try:
                found.add((child, Path(f"/proc/{child}/cmdline").read_bytes()))
            except OSError:  # gone meanwhile
                continue
            found |= _under(child)
    return found


# The check process, with a note after each check of what a file must not change in it (read from inside: a change
# to os.environ does not show in /proc/PID/environ): its working folder, environment and threads.
_NOTED = """import json, os, threading
import cabo_kit.tournament.check as check
checked = check.check_bot_cli
def noted(*args, **kwargs):
    code = checked(*args, **kwargs)
    with open({path!r}, "a") as f:
        f.write(json.dumps([os.getcwd(), dict(os.environ), sorted(t.name for t in threading.enumerate())]) + "\\n")
    return code
check.check_bot_cli = noted
"""


def test_a_hostile_file_leaves_nothing_in_a_kept_check_process_for_the_next_students_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that patches the kit's modules, writes globals, changes its cwd and environment, starts a thread and a
    process and drops a json.py, in its load and every decision, is checked in a kept check process; the next
    student's good file there gets the very verdict its first check (a fresh process's) gave it, and the process
    itself keeps its working folder, environment, threads and processes (none left by the file)."""
    from cabo_kit.portal import checker

    def plain(text: str) -> list[str]:  # without the timings and the notes on slow decisions, which vary with the load
        return [re.sub(r"slowest decision [\d.]+ ms", "slowest decision", line) for line in text.splitlines()
                if not line.startswith(("Note:", " "))]

    def settled(pid: int, wanted: set[tuple[int, bytes]]) -> set[tuple[int, bytes]]:
        until = time.monotonic() + 5  # a game's bot process may take a moment to be reaped
        while (now := _under(pid)) != wanted and time.monotonic() < until:
            time.sleep(0.1)
        return now

    notes = tmp_path / "notes.jsonl"
    monkeypatch.setattr(checker, "_PROGRAM", _NOTED.format(path=str(notes)) + checker._PROGRAM)
    good, hostile = tmp_path / "good.py", tmp_path / "hostile.py"
    good.write_bytes(GOOD)
    hostile.write_text(HOSTILE)
    process = CheckProcess(nice=0)
    linux = Path("/proc/self").exists()
    try:
        fresh = check_file(good, "bob_bot.py", games=2, timing=False, process=process)  # its first check
        assert fresh.status == "accepted" and "No problems found." in fresh.text, fresh.text
        pid = process.proc.pid if process.proc else 0
        before = settled(pid, _under(pid)) if linux else set()
        attack = check_file(hostile, "mallory.py", games=2, timing=False, process=process)
        assert process.proc is not None and process.proc.pid == pid  # the same process checked both
        assert not linux or settled(pid, before) == before
        after = check_file(good, "bob_bot.py", games=2, timing=False, process=process)
        assert process.proc is not None and process.proc.pid == pid
        assert not linux or settled(pid, before) == before
    finally:
        process.close()
    # the attempts ran, in the hostile file's own process: what it did there is what it printed
    assert "LEFT cwd,environ,check_bot,isolation,Bot.choose,SimpleBot.draw,builtins,sys.modules,recursion" in attack.text
    assert (after.status, plain(after.text)) == (fresh.status, plain(fresh.text))
    assert plain(after.text)[0].startswith("bob_bot (GoodBot): 3 games, ") and plain(after.text)[-1] == "No problems found."
    noted = [json.loads(line) for line in notes.read_text().splitlines()]
    assert len(noted) == 3 and noted[0] == noted[1] == noted[2] and noted[0][0] == "/"


CLASS_TOML = 'presets = ["rush"]\ntable_sizes = [2]\n[limits]\ndecision_s = 0.5\n'


def test_checks_play_the_class_tournaments_rules_and_a_bad_config_holds_them_for_the_teacher(
        state: PortalState, caplog: pytest.LogCaptureFixture) -> None:
    toml = state.folder / "tournament.toml"
    toml.write_text(CLASS_TOML)
    state.add_upload("alice", GOOD, "alice_bot.py", now=0.0)
    worker = CheckWorker(state, games=1, retry_after=0.0)
    try:
        assert worker.run_pending() == 1
        first = state.uploads_of("alice")[0]
        assert first.status == "accepted", first.result
        assert "Checked with the settings of the class's tournament.toml: rush; 2 players; limits 0.5 s a decision" \
            in first.result and str(state.folder) not in first.result
        toml.write_text("gmaes = 3\n")  # the teacher's typo: no check can play the class's rules
        state.add_upload("alice", GOOD, "alice_bot.py", now=100.0)
        state.add_upload("bob", GOOD, "bob_bot.py", now=100.0)
        with caplog.at_level("WARNING", logger="cabo_kit.portal"):
            assert worker.run_pending() == 0 and worker.run_pending() == 0
        from cabo_kit.portal.checker import CHECKER_WAITS

        assert [(u.status, u.result) for u in state.pending_checks()] == [("checking", CHECKER_WAITS)] * 2
        said = [r.getMessage() for r in caplog.records]
        assert len(said) == 1 and "the class's tournament.toml cannot be used, so upload" in said[0], said
        assert "unknown key 'gmaes' (did you mean 'games'?)" in said[0]
        toml.write_text(CLASS_TOML)  # fixed: the uploads are checked at the next look
        assert worker.run_pending() == 2
    finally:
        worker.stop()
    assert [u.status for u in state.uploads_of("alice")] == ["accepted", "accepted"]


# ---------------------------------------------------------------- review of issue 19, second round: item 1

KILLER = '''
import os
import signal

import cabo_kit as ck


def check_process():
    """The check process up this bot's chain of parents (it names itself on its command line), as a hostile file
    finds it; only that one is killed (never another test's)."""
    pid = os.getpid()
    for _ in range(8):
        with open(f"/proc/{pid}/stat") as f:
            pid = int(f.read().rsplit(")", 1)[1].split()[1])
        if pid <= 1:
            return None
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            if b"cabo-portal-check-process" in f.read():
                return pid
    return None


found = check_process()
if found is not None:
    os.kill(found, signal.SIGKILL)


class Killer(ck.Bot):
    def choose(self, observation, legal_actions):
        return legal_actions[0]
'''


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="the killer finds its check process through /proc")
def test_a_file_that_kills_its_check_process_is_rejected_after_three_fresh_tries(
        state: PortalState, monkeypatch: pytest.MonkeyPatch) -> None:
    """--same-user-bots: a file that finds its check process and kills it (not hiding from the check). Each time
    it stays 'checking' with a page that says so, out of the games' waiting; the third time, in a fresh process
    each, it is rejected with the reason, and bob's good file is checked meanwhile."""
    from cabo_kit.portal import checker

    # Bots under the check process's own user id, as with --same-user-bots (as root they would get one of their own)
    monkeypatch.setattr(checker, "_PROGRAM", f"import os\nos.geteuid = lambda: 1000\n{checker._PROGRAM}")
    state.add_upload("alice", KILLER.encode(), "killer.py", now=0.0)
    state.add_upload("bob", GOOD, "bob_bot.py", now=1.0)
    started: list[int] = []
    worker = CheckWorker(state, games=1, retry_after=0.0)
    real = worker._process

    def process(nice: int) -> CheckProcess:
        proc = real(nice)
        proc.running = lambda p, alive: started.append(p.pid) if alive else None
        return proc

    monkeypatch.setattr(worker, "_process", process)
    try:
        for failures in (1, 2):
            assert worker.run_pending() == (1 if failures == 1 else 0)  # bob's verdict in the first round
            alice = state.uploads_of("alice")[0]
            waits = checker.CHECK_ENDED_WAITS.format(when="at once", times=3)
            assert (alice.status, alice.failures, alice.result) == ("checking", failures, waits)
            assert alice.retry_at is not None and state.pending_checks(retrying=False) == []  # it holds no game
        assert worker.run_pending() == 1
    finally:
        worker.stop()
    alice, bob = state.uploads_of("alice")[0], state.uploads_of("bob")[0]
    assert bob.status == "accepted", bob.result
    assert (alice.status, alice.failures, alice.retry_at) == ("rejected", 0, None)
    assert alice.result == checker.CHECK_ENDED.format(name="alice.py", times=3, code=-9)
    assert "was ended each of the 3 times it checked this file (exit status -9)" in alice.result
    assert len(started) == 4 and state.pending_checks() == []  # alice's three in fresh processes, and bob's


def test_a_rest_that_ends_its_process_three_times_rejects_the_file_and_brings_back_the_version_before(
        state: PortalState, caplog: pytest.LogCaptureFixture) -> None:
    """A file that kills its check process only in the rest (niced 15) is accepted by the first verdict; the rest's
    three counted failures reject it as a rest does, the version before plays again, and no rest is left."""
    from cabo_kit.portal.checker import CHECK_ENDED, CheckerError

    def rest(up: Upload) -> CheckOutcome:
        if up.number == 2:
            raise CheckerError("the check process ended during the check (exit status -9)", counted=True, code=-9)
        return CheckOutcome("accepted", "the whole check")

    worker = CheckWorker(state, check=lambda up: CheckOutcome("accepted", "first", complete=False), rest=rest,
                         retry_after=0.0)
    state.add_upload("alice", b"# v1\n", "a.py", now=0.0)
    assert worker.run_pending() == 1 and worker.run_rests() == 1 and state.current("alice") == 1
    state.add_upload("alice", b"# v2\n", "a.py", now=100.0)
    assert worker.run_pending() == 1 and state.current("alice") == 2
    with caplog.at_level("WARNING", logger="cabo_kit.portal"):
        assert worker.run_rests() == 0 and worker.run_rests() == 0
        v2 = state.uploads_of("alice")[0]
        assert (v2.status, v2.rest, v2.failures, v2.result) == ("accepted", True, 2, "first")  # its first verdict
        assert state.pending_rests(retrying=False) == []  # the final run does not wait for it
        assert worker.run_rests() == 1
    v2 = state.uploads_of("alice")[0]
    assert (v2.status, v2.rest) == ("rejected", False) and state.pending_rests() == []
    assert v2.result == CHECK_ENDED.format(name="alice.py", times=3, code=-9) + "\n" + REST_REJECTED
    assert state.current("alice") == 1 and (state.folder / "bots" / "alice.py").read_bytes() == b"# v1\n"
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 3 and "1 of 3 times" in said[0] and "2 of 3 times" in said[1], said
    assert said[2].startswith("cabo-kit serve: upload 2 of alice is rejected: the check process ended each of the 3 "
                              "times it checked it (the rest of its check)"), said


def test_failures_not_counted_never_reject_and_a_restart_tries_at_once_keeping_the_count(state: PortalState) -> None:
    """The checker failing to start (or a class's mistake) is never the file's: tried for ever, never rejected. A new
    worker (a restart) tries every waiting upload at once; the counted failures stay."""
    from cabo_kit.portal.checker import CheckerError

    def check(up: Upload) -> CheckOutcome:
        if up.person == "bob":
            raise CheckerError("the check process ended during the check (exit status 0)", counted=True, code=0)
        raise CheckerError("the check process did not start within 120 s")

    worker = CheckWorker(state, check=check, retry_after=0.0)
    state.add_upload("alice", b"# a\n", "a.py", now=0.0)
    state.add_upload("bob", b"# b\n", "b.py", now=0.0)
    assert [worker.run_pending() for _ in range(5)] == [0, 0, 1, 0, 0]  # bob's third counted failure rejects it
    alice, bob = state.uploads_of("alice")[0], state.uploads_of("bob")[0]
    assert (alice.status, alice.failures) == ("checking", 0) and bob.status == "rejected"
    state.note_failure("alice", 1, counted=True, retry_at=time.time() + 3600)
    assert state.pending_checks(retrying=False) == []
    CheckWorker(state, check=check)  # the next start
    alice = state.uploads_of("alice")[0]
    assert (alice.failures, alice.retry_at) == (1, None) and state.pending_checks(retrying=False) == [alice]


def test_a_store_made_before_the_failures_were_counted_opens_with_none(tmp_path: Path) -> None:
    import sqlite3

    state = PortalState(tmp_path)
    state.sync_roster([Student("alice", "Alice")])
    state.add_upload("alice", b"# v1\n", "a.py", now=0.0)
    state.close()
    con = sqlite3.connect(tmp_path / "portal" / "portal.sqlite")  # as an older kit left it (SQLite >= 3.35)
    con.execute("ALTER TABLE uploads DROP COLUMN retry_at")
    con.execute("ALTER TABLE uploads DROP COLUMN failures")
    con.commit()
    con.close()
    state = PortalState(tmp_path)
    try:
        up = state.pending_checks()[0]
        assert (up.number, up.failures, up.retry_at) == (1, 0, None)
        assert state.note_failure("alice", 1, counted=True, retry_at=5.0) == 1
    finally:
        state.close()


# ---------------------------------------------------------------- item 2


def test_a_tournament_toml_not_in_utf8_holds_the_checks_for_the_teacher_and_never_ends_the_check_process(
        state: PortalState, caplog: pytest.LogCaptureFixture) -> None:
    from cabo_kit.portal.checker import CHECKER_WAITS

    (state.folder / "tournament.toml").write_bytes(CLASS_TOML.encode("utf-16"))  # Notepad's "Unicode"
    state.add_upload("alice", GOOD, "alice_bot.py", now=0.0)
    worker = CheckWorker(state, games=1, retry_after=0.0)
    try:
        with caplog.at_level("WARNING", logger="cabo_kit.portal"):
            assert worker.run_pending() == 0 and worker.run_pending() == 0
        up = state.uploads_of("alice")[0]
        assert (up.status, up.result, up.failures) == ("checking", CHECKER_WAITS, 0)  # never counted against the file
        said = [r.getMessage() for r in caplog.records]
        assert len(said) == 1 and "tournament.toml is not UTF-8: save it as UTF-8" in said[0], said
        (state.folder / "tournament.toml").write_text(CLASS_TOML)
        assert worker.run_pending() == 1
    finally:
        worker.stop()
    assert state.uploads_of("alice")[0].status == "accepted"


# ---------------------------------------------------------------- item 3


def test_an_upload_is_checked_under_the_name_it_plays_under_and_the_class_counts_it_once(state: PortalState) -> None:
    """An upload named RandomBot.py plays as bots/alice.py: no clash with the reference bot. The class is bob's
    file and alice's (her current file is the one this upload replaces): a 2-file class, not 3."""
    (state.folder / "tournament.toml").write_text(CLASS_TOML)
    state.add_upload("alice", GOOD, "alice_bot.py", now=0.0)
    state.add_upload("bob", GOOD, "bob_bot.py", now=0.0)
    worker = CheckWorker(state, games=1)
    try:
        assert worker.run_pending() == 2 and state.current("alice") == 1
        state.add_upload("alice", GOOD + b"\n# v2\n", "RandomBot.py", now=100.0)
        assert worker.run_pending() == 1
        v2 = state.uploads_of("alice")[0]
        assert v2.status == "accepted" and "the built-in reference bot" not in v2.result, v2.result
        assert v2.result.startswith("alice (GoodBot): ")
        assert worker.run_rests() == 2  # bob's and alice's v2 (v1 is no longer current)
    finally:
        worker.stop()
    for up in (state.uploads_of("alice")[0], state.uploads_of("bob")[0]):
        assert up.status == "accepted" and "to a 2-file class" in up.result, up.result


# ---------------------------------------------------------------- item 7


def test_a_stuck_upload_says_its_real_delay_and_is_logged_at_1_2_4_8_failures(
        state: PortalState, caplog: pytest.LogCaptureFixture) -> None:
    from cabo_kit.portal.checker import CHECKER_FAILED, CheckerError

    def check(up: Upload) -> CheckOutcome:
        raise CheckerError("the check process did not start within 120 s")

    worker = CheckWorker(state, check=check, retry_after=30.0)
    state.add_upload("alice", b"# a\n", "a.py", now=0.0)
    with caplog.at_level("WARNING", logger="cabo_kit.portal"):
        for _ in range(9):
            state.clear_retries()  # due at once (as 30 s later)
            assert worker.run_pending() == 0
    up = state.uploads_of("alice")[0]
    assert up.result == CHECKER_FAILED.format(when="in 30 seconds") and "it is checked again in 30 seconds." in up.result
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 4, said
    assert "again in 30 s or at the next start): the check" in said[0]
    assert [re.search(r"\((\d+) failures so far: logged again at (\d+)\)", m).groups() for m in said[1:]] == [  # type: ignore[union-attr]
        ("2", "4"), ("4", "8"), ("8", "16")]


# ---------------------------------------------------------------- item 9


def test_a_fault_in_a_round_of_checks_is_logged_and_the_next_upload_still_gets_its_verdict(
        state: PortalState, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """The portal's store locked once as a round begins: the check thread logs it and goes on. An upload that cannot
    be read once is not judged then (tried again), and the uploads behind it are checked in the same round."""
    import sqlite3

    real = state.pending_checks
    faults = [sqlite3.OperationalError("database is locked")]

    def pending(retrying: bool = True) -> list[Upload]:
        if faults:
            raise faults.pop()
        return real(retrying)

    unreadable = {("alice", 1)}

    def check(up: Upload) -> CheckOutcome:
        if (up.person, up.number) in unreadable:
            unreadable.clear()
            raise OSError(5, "Input/output error")
        return CheckOutcome("accepted", "checked")

    monkeypatch.setattr(state, "pending_checks", pending)
    worker = CheckWorker(state, check=check, poll=0.05, retry_after=0.0)
    with caplog.at_level("WARNING", logger="cabo_kit.portal"):
        worker.start()
        try:
            state.add_upload("alice", b"# a\n", "a.py", now=0.0)
            state.add_upload("bob", b"# b\n", "b.py", now=0.0)
            worker.wake()
            deadline = time.monotonic() + 20
            while real() and time.monotonic() < deadline:
                time.sleep(0.02)
        finally:
            worker.stop()
    assert [u.status for u in (state.uploads_of("alice")[0], state.uploads_of("bob")[0])] == ["accepted"] * 2
    said = [r.getMessage() for r in caplog.records]
    assert said[0] == ("cabo-kit serve: a round of checks failed (OperationalError: database is locked; 1 time so far); "
                       "the checks go on at the next round"), said
    assert said[1].startswith("cabo-kit serve: the checker failed, so upload 1 of alice was not checked (no fault of the "
                              "file") and said[1].endswith(": OSError: [Errno 5] Input/output error"), said
