"""JupyterLab smoke test: open play.ipynb, Run All, and the card table answers clicks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness import SimplePlayer, TablePage, delete_sessions

KERNEL_IDLE = ".jp-StatusBar-TextItem[title^='Change kernel']"


def test_run_all_shows_a_table_that_answers_clicks(lab: tuple[str, str], page: Any, artifacts: Path) -> None:
    base, token = lab
    try:
        page.goto(f"{base}/lab/tree/play.ipynb?token={token}&reset")
        # Wait for a real kernel: before it, Run All would open a "Select Kernel" dialog.
        page.wait_for_function(
            f"() => (document.querySelector(\"{KERNEL_IDLE}\") || {{}}).innerText === 'Python 3 (ipykernel) | Idle'",
            timeout=60_000)
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").click()
        page.locator("li.lm-Menu-item[data-command='runmenu:run-all']").click()
        table = TablePage(page)
        table.wait_for_table(60)
        first = table.snapshot()
        player, snap = SimplePlayer(), first
        for _ in range(4):  # the look: click own cards until two are shown
            key = player.choose(snap)
            assert key is not None, f"nothing to click: {snap['status']!r}"
            assert table.click(key) is not None, f"clicking .{key} changed nothing in JupyterLab"
            snap = table.snapshot()
            if any(c["known"] for c in snap["cards"]):
                break
        page.screenshot(path=str(artifacts / "lab.png"))
        assert snap["seq"] > first["seq"] and snap["status"] != first["status"], \
            f"the table did not move on: {first['status']!r} -> {snap['status']!r}"
        assert sum(c["known"] for c in snap["cards"] if c["seat"] == 0) == 2, "the two cards looked at are shown"
        # The keyboard works too: the deck takes the focus, Enter draws.
        assert "cabo-deck" in snap["clickable"], f"after the look (pace 0) the person draws: {snap['status']!r}"
        page.focus(".cabo-table .cabo-deck")
        page.keyboard.press("Enter")
        page.wait_for_function("(seq) => +document.querySelector('.cabo-table').dataset.seq > seq", arg=snap["seq"])
        drawn = table.snapshot()
        assert drawn["status"] != snap["status"] and "cabo-btn-discard" in drawn["clickable"], drawn["status"]
    finally:
        delete_sessions(base, token)
