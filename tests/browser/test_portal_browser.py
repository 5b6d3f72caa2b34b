"""The portal in a real browser (Debian's chromium through Playwright, as the card table's tests): uvicorn on 127.0.0.1.

A student opens their sign-in link, uploads a file through the file input and sees the check's
verdict appear (the page's script, under the portal's Content-Security-Policy, follows the
check); once games of the accepted file are stored, its row appears on the leaderboard another
student has open, and the student's own rating on their page, without a reload (Server-Sent
Events); a second upload by drag and drop takes the old version's row off that board; the
teacher sets a deadline and a late upload is refused on the page. Without chromium or Playwright the test skips (under CI=true it fails).
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


@pytest.fixture
def portal(tmp_path: Path) -> Iterator[tuple[str, dict[str, str], Path]]:
    """``cabo-kit serve`` on a free port: its address, everyone's sign-in link, and the class folder."""
    harness.require_browser()
    pytest.importorskip("uvicorn")

    folder = tmp_path / "class"
    folder.mkdir()
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name\nada,Ada Lovelace\nbob,Bob\n")
    port = harness.free_port()
    log = tmp_path / "server.log"
    proc = start_serve(folder, roster, port, log, "--check-games", "2", "--upload-interval", "1")
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
    assert "my_bot (GoodBot)" in student.inner_text("#cabo-portal-check")
    # bob has the leaderboard open; games of ada's accepted file are stored (as the tournament worker does)
    other = browser.new_context().new_page()
    other.on("pageerror", lambda e: problems.append(str(e)))
    other.goto(links["bob"])
    other.evaluate("window.caboNoReload = true")
    student.evaluate("window.caboNoReload = true")
    assert other.query_selector('#cabo-portal-board tr[data-bot="ada"]') is None
    store_games(folder, 12)
    row = other.wait_for_selector('#cabo-portal-board tr[data-bot="ada"][data-preset]', timeout=20_000)
    assert "Ada Lovelace" in row.inner_text()
    student.wait_for_selector('#cabo-portal-rating tr[data-preset]', timeout=20_000)
    assert other.evaluate("window.caboNoReload") is True and student.evaluate("window.caboNoReload") is True
    # a second version by drag and drop onto the upload area
    time.sleep(1.1)  # the upload interval
    drop_file(student, "#cabo-portal-dropzone", "dropped.py", GOOD.decode() + "\n# v2\n")
    student.wait_for_selector('#cabo-portal-check[data-number="2"][data-status="accepted"]', timeout=60_000)
    assert (folder / "bots" / "ada.py").read_bytes().endswith(b"# v2\n")
    # the new version has played no game: the old one's row leaves bob's board, still without a reload
    other.wait_for_selector('#cabo-portal-board tr[data-bot="ada"]', state="detached", timeout=20_000)
    assert other.evaluate("window.caboNoReload") is True
    # the teacher sets a deadline that has passed: a late upload is refused on the page
    teacher = browser.new_context().new_page()
    teacher.goto(links["_teacher"])
    assert teacher.url == base + "/teacher"
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


def store_games(folder: Path, n: int) -> None:
    """Store ``n`` made-up games of the folder's current versions (ada's file and the reference bots)."""
    import random

    from cabo_kit.portal.live import FolderVersions
    from cabo_kit.tournament.store import GameRow, SeatRow, Store

    versions = FolderVersions(folder)()
    rng = random.Random(1)
    with Store(folder / "results.sqlite") as store:
        for i in range(n):
            table = ["ada", "RandomBot"]  # the reference bot of a folder without tournament.toml
            rng.shuffle(table)
            seats = [SeatRow(k, b, versions[b], 10 * k, k + 1, float(k == 0), "ok", "") for k, b in enumerate(table)]
            store.add_game(GameRow(f"browser-{i}", f"d{i}", f"{i:05d}:x:0", "deluxe", "{}", 2, i, 0, "ok", 1, b"{}"), seats)


def drop_file(page: Any, selector: str, name: str, text: str) -> None:
    """Drop a file on ``selector`` as a person dragging it from their desktop would."""
    page.evaluate("""([selector, name, text]) => {
        const data = new DataTransfer();
        data.items.add(new File([text], name, {type: "text/x-python"}));
        const zone = document.querySelector(selector);
        zone.dispatchEvent(new DragEvent("dragover", {dataTransfer: data, bubbles: true, cancelable: true}));
        zone.dispatchEvent(new DragEvent("drop", {dataTransfer: data, bubbles: true, cancelable: true}));
    }""", [selector, name, text])
