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
from cabo_kit.table import CardTable
from cabo_kit.table.view import render_table, round_summary_html

CSS = (Path(ck.__file__).parent / "table" / "table.css").read_text("utf-8")

# Every box of text that must hold its text: (selector, what it is).
BOXES = [(".cabo-seat-head", "a seat's header"), (".cabo-seat", "a seat"), (".ck-power", "a power label"),
         (".cabo-status", "the status line"), (".cabo-header", "the title bar"), (".cabo-summary", "the scoring"),
         (".cabo-legend li", "a legend line")]

OVERFLOW_JS = """(boxes) => {
  const out = [];
  for (const [sel, what] of boxes) {
    for (const e of document.querySelectorAll(sel)) {
      if (e.scrollWidth > e.clientWidth + 1) out.push(`${what} (${sel}): ${e.scrollWidth} > ${e.clientWidth}: ${e.innerText.slice(0, 60)}`);
    }
  }
  // a seat's header, a summary's table: inside their parent's box
  for (const [inner, outer] of [[".cabo-seat-head", ".cabo-seat"], [".cabo-final", ".cabo-summary"]]) {
    for (const e of document.querySelectorAll(inner)) {
      const box = e.closest(outer).getBoundingClientRect(), r = e.getBoundingClientRect();
      if (r.left < box.left - 1 || r.right > box.right + 1) out.push(`${inner} runs out of ${outer}: ${e.innerText.slice(0, 60)}`);
    }
  }
  return out;
}"""


def draw(page: Any, html: str, legend: bool = False) -> None:
    page.set_content(f'<html><head><meta charset="utf-8"><style>{CSS}</style></head><body style="margin:8px">'
                     f'<div class="cabo-table">{html}</div></body></html>')
    if legend:
        page.click(".cabo-help > summary")


def table_html(preset: str, n: int, *, caller: int | None = 1, summary: str = "") -> str:
    """A real table of ``n`` players, the person holding power cards face up, a long bot label,
    seat 1 to play having called Cabo (the longest header)."""
    rules = ck.Rules.preset(preset).replace(min_players=2)
    opponents: list[Any] = [2, 3, 4, 1, 2][: n - 1]
    table = CardTable(rules, opponents=opponents, seed=3, pace=0)
    view = table.view
    kings = "KC KS JH 9D" if rules.deck == "standard" else "12 11 9 7"
    hands = list(view.hands)
    hands[0] = tuple(ck.Card.parse(c) for c in kings.split())
    labels = list(view.labels)
    labels[-1] = "StudentBotWithAVeryLongName"
    state = dataclasses.replace(view, hands=hands, face_up=[(True,) * 4] + list(view.face_up[1:]), labels=labels,
                                caller=caller, to_move=(1,), overlay=summary,
                                status="Bea called Cabo: this is your last turn. Click the deck or the discard pile to draw.")
    table.close()
    return render_table(state)


@pytest.mark.parametrize("preset, n", [("deluxe", 2), ("rush", 3), ("traveller", 4), ("rush", 5), ("traveller", 6)])
def test_no_text_runs_out_of_its_box(page: Any, artifacts: Path, preset: str, n: int) -> None:
    draw(page, table_html(preset, n), legend=True)
    assert page.locator(".cabo-legend").is_visible()
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
    draw(page, table_html("deluxe", 6, summary=summary))
    page.locator(".cabo-table").screenshot(path=str(artifacts / "layout-summary-6.png"))
    assert page.evaluate(OVERFLOW_JS, BOXES) == []
    cells = page.eval_on_selector_all(".cabo-final-row:first-child td", "es => es.map(e => e.innerText)")
    assert cells[2:] == ["sum 152", "scores 152", "total 188"], cells  # the columns after the long hand, shown
