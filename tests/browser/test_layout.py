"""The card table's layout in chromium, without a server: pictures of real tables (2 to 6 players,
long names, power cards, a 6-player round's scoring with a 16-card hand) drawn with the table's
stylesheet, and no text may run out of its box. About a second in all.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

import cabo_kit as ck
from harness import BOXES, OVERFLOW_JS
from cabo_kit.table import CardTable
from cabo_kit.table.view import render_table, round_summary_html

CSS = (Path(ck.__file__).parent / "table" / "table.css").read_text("utf-8")

def draw(page: Any, html: str, legend: bool = False) -> None:
    page.set_content(f'<html><head><meta charset="utf-8"><style>{CSS}</style></head><body style="margin:8px">'
                     f'<div class="cabo-table">{html}</div></body></html>')
    if legend:
        page.click(".cabo-help > summary")


class Caller(ck.Bot):
    """Calls Cabo as soon as it may."""

    def choose(self, obs: ck.Observation, legal: Any) -> ck.Action:
        return ck.CallCabo() if ck.CallCabo() in legal else legal[0]


def table_html(preset: str, n: int, *, summary: str = "") -> tuple[str, str]:
    """A real table of ``n`` players at the person's last turn (Bea, seat 1, called Cabo: the longest
    header), then made harder to fit: the person holds power cards face up, a bot has a long label."""
    rules = ck.Rules.preset(preset).replace(min_players=2)
    opponents: list[Any] = [Caller(), 3, 4, 1, 2][: n - 1]
    table = CardTable(rules, opponents=opponents, seed=3, pace=0, start_player=1)
    for _ in range(20):
        if table.status.startswith("Bea called Cabo: this is your last turn"):
            break
        clickable = table.clickable()
        fresh = sorted(clickable - table.view.selected)
        table.click("btn:pass" if "btn:pass" in clickable else fresh[0])
    else:
        pytest.fail(f"no last turn: {table.status!r}")
    view = table.view
    kings = "KC KS JH 9D" if rules.deck == "standard" else "12 11 9 7"
    hands = list(view.hands)
    hands[0] = tuple(ck.Card.parse(c) for c in kings.split())
    labels = list(view.labels)
    labels[-1] = "StudentBotWithAVeryLongName"
    state = dataclasses.replace(view, hands=hands, face_up=[(True,) * 4] + list(view.face_up[1:]), labels=labels,
                                to_move=(1,), overlay=summary)
    table.close()
    return render_table(state), view.status


@pytest.mark.parametrize("preset, n", [("deluxe", 2), ("rush", 3), ("traveller", 4), ("rush", 5), ("traveller", 6)])
def test_no_text_runs_out_of_its_box(page: Any, artifacts: Path, preset: str, n: int) -> None:
    html, status = table_html(preset, n)
    draw(page, html, legend=True)
    assert page.locator(".cabo-legend").is_visible()
    assert page.inner_text(".cabo-status").startswith("Bea called Cabo: this is your last turn. Click the deck")
    page.screenshot(path=str(artifacts / f"layout-{preset}-{n}.png"), full_page=True)
    powers = page.eval_on_selector_all(".cabo-s0-p0 .ck-power, .cabo-s0-p1 .ck-power", "es => es.map(e => e.innerText)")
    assert powers and all("swap" in p for p in powers), powers  # peek+swap / spy+swap (or swap): whole
    assert page.evaluate(OVERFLOW_JS, BOXES) == []


def test_a_six_player_scoring_with_a_16_card_hand_fits_its_box(page: Any, artifacts: Path) -> None:
    long = [ck.Card.parse(c) for c in "13 13 12 12 11 11 10 10 9 9 8 8 7 7 6 6".split()]
    hands = [long] + [[ck.Card.parse(c) for c in "1 2 3 4".split()]] * 5
    result = ck.RoundResult(
        index=2, start_player=0, caller=1, caller_won=True, ended_by="cabo", final_hands=hands,
        totals=[sum(c.value or 0 for c in h) for h in hands], scores=[152, 0, 10, 10, 10, 10],
        game_totals=[188, 40, 60, 61, 62, 63], kamikaze=[], royal_roulette=[], resets=[], turns=30, snap_windows=0,
        stats=[{}] * 6)
    names = ["You", "Bea", "Cy", "Dee", "Eli", "Flo"]
    rules = ck.Rules.preset("deluxe")
    powers = {c.text: rules.power_of(c) for c in set(rules.full_deck(6))}
    summary = round_summary_html(result, names, powers, over=True, winners=[1], rules=rules)
    draw(page, table_html("deluxe", 6, summary=summary)[0])
    page.locator(".cabo-table").screenshot(path=str(artifacts / "layout-summary-6.png"))
    assert page.evaluate(OVERFLOW_JS, BOXES) == []
    cells = page.eval_on_selector_all(".cabo-final-row:first-child td", "es => es.map(e => e.innerText)")
    assert cells[2:] == ["sum 152", "scores 152", "total 188"], cells  # the columns after the long hand, shown
