"""A stored game drawn as one seat saw it, step by step, for the portal's replay page (server-rendered, no script).

:func:`seat_frame` draws the game after its first ``step`` actions with the card table's own
renderer (:func:`cabo_kit.table.draw.render_table`, the table of notebooks and of ``Replay``) and
its own picture of the game (:func:`cabo_kit.table.picture.table_state` for that seat): the hands
are that seat's observation (an unseen card is a back, ``??``), the log is the events as that
seat saw them, and other hands are shown face up only in the summary of a round that has ended.
The deal's seed is not shown (it would give every card).

The page's Content-Security-Policy allows no inline style, so the table's two ``style="grid-area:..."``
attributes become classes (``cabo-area-b``...; ``static/replay.css`` places them).

>>> import cabo_kit as ck
>>> record = ck.play_game([ck.bots.GreedyBot(), ck.bots.RandomBot()], ck.Rules.preset("rush"), seed=5)
>>> frame = seat_frame(record, 0, 3, ["alice", "RandomBot"])
>>> frame.step, frame.steps == len(record.actions), "style=" in frame.table, 'data-card="??"' in frame.table
(3, True, False, True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..record import GameRecord

__all__ = ["SeatFrame", "seat_frame"]

_AREA = re.compile(r'" style="grid-area:([a-z]{1,2})"')
_RULES_LINK = re.compile(r'<a class="cabo-rules-link"[^>]*>.*?</a>')


@dataclass(frozen=True)
class SeatFrame:
    """One step of a replay: ``table`` (HTML of the card table), ``summary`` (HTML of the round that ended at this
    step, or of the game when it is over; ``""`` otherwise), ``status`` (the step in words), ``step`` (actions
    played, clamped to ``0..steps``), ``steps`` (the game's actions), ``round`` (from 1)."""

    table: str
    summary: str
    status: str
    step: int
    steps: int
    round: int


def seat_frame(record: "GameRecord", seat: int, step: int, names: Sequence[str], me: str = "You") -> SeatFrame:
    """The game of ``record`` after ``step`` actions as ``seat`` saw it; ``names``: what to call each seat (the
    seat's own is shown as ``me``: "You" for the student, their name for the teacher)."""
    from ..table.draw import render_table, round_summary_html
    from ..table.picture import describe, powers_of, table_state

    steps = len(record.actions)
    step = max(0, min(steps, int(step)))
    names = [me if s == seat else str(n) for s, n in enumerate(names)]
    game = record.replay(max(0, step - 1))
    rounds_before = len(game.results)
    mark = game.event_count
    if step:
        who, action = record.actions[step - 1]
        game.apply(action, who)
    last = [describe(e, seat, names) for e in game.events_seen(seat, since=mark)] if step else []
    log = [describe(e, seat, names) for e in game.events_seen(seat)[-60:]]
    summary = ""
    if game.is_over or len(game.results) > rounds_before:  # a round ended at this step: every hand is shown
        summary = round_summary_html(game.results[-1].for_players(), names, powers_of(record.rules, record.n_players),
                                     over=game.is_over, winners=game.winners, rules=record.rules)
    status = f"Action {step} of {steps}: " + (" ".join(last) if last else "the deal.")
    # the table's picture as the seat knows it, built where the card table builds its own (no seed: it gives every card)
    state = table_state(game, seat, names, status, log=log)
    table = _RULES_LINK.sub("", _AREA.sub(r' cabo-area-\1"', render_table(state)))
    return SeatFrame(table, summary, status, step, steps, state.round + 1)
