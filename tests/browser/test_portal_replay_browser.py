"""A student's replay page in a real browser (chromium through Playwright): uvicorn on 127.0.0.1, ``cabo-kit serve``.

The replay is server-rendered under the portal's Content-Security-Policy (no inline script, no inline
style): the page must load with nothing blocked, the card table styled by its own stylesheet (the seats
placed by class), and the step links must move through the game. Without chromium or Playwright the test
skips (under CI=true it fails).
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

import harness  # tests/browser/harness.py: chromium through Playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from portal_process import read_links, start_serve  # noqa: E402  (tests/portal_process.py)



@pytest.fixture
def served_game(tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    """A class folder whose store holds one game of ada's (seat 1 of 3), served: the address, ada's link, the game id."""
    harness.require_browser()
    pytest.importorskip("uvicorn")
    import cabo_kit as ck
    from cabo_kit.tournament.store import GameRow, SeatRow, Store

    folder = tmp_path / "class"
    folder.mkdir()
    record = ck.play_game([ck.bots.GreedyBot(), ck.bots.RandomBot(), ck.bots.GreedyBot()], ck.Rules.preset("rush"), seed=3)
    bots = ["GreedyBot", "ada", "bob"]
    record.bots = bots
    ranks = record.ranking()
    gid = "a1" * 12
    with Store(folder / "results.sqlite") as store:
        store.add_game(GameRow(gid, "d1", "00001:x:0", "rush", "{}", 3, 3, 0, "ok", len(record.rounds),
                               record.to_json().encode()),
                       [SeatRow(s, b, "v1", record.totals[s], ranks[s], 1.0 if ranks[s] == 1 else 0.0, "ok", "", {})
                        for s, b in enumerate(bots)])
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name\nada,Ada Lovelace\nbob,Bob\n")
    port = harness.free_port()
    log = tmp_path / "server.log"
    proc = start_serve(folder, roster, port, log)
    try:
        links = read_links(folder)
        yield f"http://127.0.0.1:{port}", links["ada"], gid
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=20)


def test_a_replay_renders_under_the_csp_and_steps_by_links(served_game: tuple[str, str, str], browser: Any) -> None:
    base, link, gid = served_game
    page = browser.new_context().new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(link)
    page.click(f'#cabo-portal-games a[href$="/games/{gid}"]')  # from the student's page's list of games
    page.wait_for_selector('#cabo-portal-replay[data-seat="1"][data-step="0"]')
    page.click("#cabo-portal-replay-nav a:text-is('forward 10')")
    page.wait_for_selector('#cabo-portal-replay[data-step="10"]')
    page.click("#cabo-portal-replay-nav a[rel=next]")
    page.wait_for_selector('#cabo-portal-replay[data-step="11"]')
    styled = page.evaluate("""() => {
        const you = document.querySelector('#cabo-portal-replay .cabo-seat.cabo-you');
        const card = document.querySelector('#cabo-portal-replay .cabo-hand .ck-card');
        return [getComputedStyle(you).gridRowStart, getComputedStyle(card).width,
                getComputedStyle(document.querySelector('#cabo-portal-replay .cabo-felt')).display];
    }""")
    assert styled == ["b", "46px", "grid"], styled  # table.css loaded, the seats placed by class
    assert page.inner_text(".cabo-seat.cabo-you .cabo-name") == "You"
    page.fill("#cabo-portal-replay-nav input[name=step]", "5")
    page.click("#cabo-portal-replay-nav button")
    page.wait_for_selector('#cabo-portal-replay[data-step="5"]')
    page.click("#cabo-portal-replay-nav a:text-is('end')")
    page.wait_for_selector(".replay-summary")  # the end: every hand shown in the game's summary
    assert "Game over" in page.inner_text(".replay-summary")
    assert problems == [], problems  # nothing the CSP blocked, no script error
