"""The portal in a real browser (Debian's chromium through Playwright, as the card table's tests): uvicorn on 127.0.0.1.

A student opens their sign-in link, uploads a file through the file input and sees the check's
verdict appear (the page's script, under the portal's Content-Security-Policy, follows the
check); the portal's own games worker plays the accepted file (a tiny ``tournament.toml``: one
preset, 2-player tables, a few games against RandomBot) and its row appears on the leaderboard
another student has open, and the student's own rating on their page, without a reload
(Server-Sent Events). The teacher pauses the games; a second upload by drag and drop takes the
old version's row off that board (the new version has played nothing); resumed, the games worker
plays the new version and the row comes back. The teacher sets a deadline and a late upload is
refused on the page. Without chromium or Playwright the test skips (under CI=true it fails).
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

import harness  # tests/browser/harness.py: chromium through Playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from portal_process import read_links, start_serve  # noqa: E402  (tests/portal_process.py)

ROOT = Path(__file__).resolve().parents[2]
GOOD = (ROOT / "tests" / "fault_bots" / "good.py").read_bytes()
# The class's tournament: small enough that the games worker stores a file's games within seconds on a busy machine
TOURNAMENT = 'presets = ["rush"]\ntable_sizes = [2]\ngames = 4\nreference = ["RandomBot"]\nseed = 19\n'


@pytest.fixture
def portal(tmp_path: Path) -> Iterator[tuple[str, dict[str, str], Path]]:
    """``cabo-kit serve`` on a free port: its address, everyone's sign-in link, and the class folder."""
    harness.require_browser()
    pytest.importorskip("uvicorn")

    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "tournament.toml").write_text(TOURNAMENT)
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name\nada,Ada Lovelace\nbob,Bob\n")
    port = harness.free_port()
    log = tmp_path / "server.log"
    proc = start_serve(folder, roster, port, log, "--check-games", "2", "--upload-interval", "1",
                       "--workers", "1")
    try:
        links = read_links(folder)
        yield f"http://127.0.0.1:{port}", links, folder
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)


def test_upload_check_and_deadline_in_a_browser(portal: tuple[str, dict[str, str], Path], browser: Any,
                                               tmp_path: Path) -> None:
    """The session's chromium (tests/browser/conftest.py): a second Playwright in one process cannot start."""
    base, links, folder = portal
    bot = tmp_path / "my_bot.py"
    bot.write_bytes(GOOD)
    student = browser.new_context().new_page()
    problems: list[str] = []
    student.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    student.on("pageerror", lambda e: problems.append(str(e)))
    student.goto(links["ada"])
    assert student.url == base + "/"  # signed in, at an address without the token
    student.set_input_files("#cabo-portal-upload", str(bot))
    student.click("#cabo-portal-submit")
    student.wait_for_selector('#cabo-portal-check[data-status="accepted"]', timeout=60_000)
    assert "ada (GoodBot)" in student.inner_text("#cabo-portal-check")  # checked as bots/ada.py plays
    # the page reloads itself once more when the rest of the check ends (portal.js); from then on it does not
    student.wait_for_selector('#cabo-portal-check[data-status="accepted"]:not([data-rest])', timeout=60_000)
    # bob has the leaderboard open; the portal's games worker plays ada's accepted file: her row appears on it
    other = browser.new_context().new_page()
    other.on("pageerror", lambda e: problems.append(str(e)))
    other.goto(links["bob"])
    other.evaluate("window.caboNoReload = true")
    student.evaluate("window.caboNoReload = true")
    row = other.wait_for_selector('#cabo-portal-board tr[data-bot="ada"][data-preset="rush"]', timeout=60_000)
    assert "Ada Lovelace" in row.inner_text()
    assert int(row.query_selector("td:last-child").inner_text()) > 0  # her games, stored by the worker
    assert stored_games(folder, "ada") > 0
    student.wait_for_selector('#cabo-portal-rating tr[data-preset="rush"]', timeout=20_000)
    assert other.evaluate("window.caboNoReload") is True and student.evaluate("window.caboNoReload") is True
    # the teacher pauses the games, so the next version plays nothing until they resume
    teacher = browser.new_context().new_page()
    teacher.on("pageerror", lambda e: problems.append(str(e)))
    teacher.goto(links["_teacher"])
    assert teacher.url == base + "/teacher"
    teacher.click("#cabo-portal-pause")
    reload_until(teacher, '#cabo-portal-run[data-state="paused"]')  # the worker's state, once it has stopped the run
    # a second version by drag and drop onto the upload area
    time.sleep(1.1)  # the upload interval
    drop_file(student, "#cabo-portal-dropzone", "dropped.py", GOOD.decode() + "\n# v2\n")
    student.wait_for_selector('#cabo-portal-check[data-number="2"][data-status="accepted"]', timeout=60_000)
    assert (folder / "bots" / "ada.py").read_bytes().endswith(b"# v2\n")
    # the new version has played no game: the old one's row leaves bob's board, still without a reload
    other.wait_for_selector('#cabo-portal-board tr[data-bot="ada"]', state="detached", timeout=20_000)
    assert other.evaluate("window.caboNoReload") is True
    # resumed, the games worker plays the new version: the row comes back
    teacher.click("#cabo-portal-resume")
    reload_until(teacher, "#cabo-portal-pause")
    other.wait_for_selector('#cabo-portal-board tr[data-bot="ada"][data-preset="rush"]', timeout=60_000)
    assert other.evaluate("window.caboNoReload") is True
    # the teacher sets a deadline that has passed: a late upload is refused on the page
    past = time.strftime("%Y-%m-%d %H:%M", time.localtime(time.time() - 120))
    teacher.fill("#cabo-portal-deadline-input", past)
    teacher.click("form[action$='/teacher/deadline'] button")
    teacher.wait_for_selector("#cabo-portal-deadline")
    student.goto(base + "/")
    assert past in student.inner_text("#cabo-portal-deadline")
    time.sleep(1.1)
    student.set_input_files("#cabo-portal-upload", str(bot))
    student.click("#cabo-portal-submit")
    student.wait_for_load_state()
    assert "has passed: uploads are closed" in student.inner_text("main")
    # no script error and nothing the CSP blocked (the refused upload's 403 is the one failed load)
    assert [p for p in problems if "status of 403" not in p] == [], problems


def stored_games(folder: Path, bot: str) -> int:
    """How many games of ``bot`` the tournament's store holds (the games worker writes them; the test never does)."""
    import sqlite3

    con = sqlite3.connect(f"file:{folder / 'results.sqlite'}?mode=ro", uri=True, timeout=10)
    try:
        return int(con.execute("SELECT COUNT(*) FROM seats WHERE bot = ?", (bot,)).fetchone()[0])
    finally:
        con.close()


def reload_until(page: Any, selector: str, timeout: float = 20.0) -> None:
    """Reload ``page`` until it shows ``selector`` (the teacher's page is not live: the games' state is per request)."""
    end = time.monotonic() + timeout
    while page.query_selector(selector) is None:
        assert time.monotonic() < end, f"{selector} not on {page.url} after {timeout:.0f} s: {page.inner_text('main')}"
        time.sleep(0.3)
        page.reload()


def drop_file(page: Any, selector: str, name: str, text: str) -> None:
    """Drop a file on ``selector`` as a person dragging it from their desktop would."""
    page.evaluate("""([selector, name, text]) => {
        const data = new DataTransfer();
        data.items.add(new File([text], name, {type: "text/x-python"}));
        const zone = document.querySelector(selector);
        zone.dispatchEvent(new DragEvent("dragover", {dataTransfer: data, bubbles: true, cancelable: true}));
        zone.dispatchEvent(new DragEvent("drop", {dataTransfer: data, bubbles: true, cancelable: true}));
    }""", [selector, name, text])
