"""Pieces of the portal's pages rendered once and kept until what they show changes.

With 200 students the teacher's page lists 200 roster rows, up to 200 rejected uploads and a
board of 200 rows: rendering them all at every request made it the one slow page. The app keeps
each piece in :class:`Fragments` under a key that changes exactly when its data does: the
roster and the rejected uploads under :meth:`~cabo_kit.portal.state.PortalState.changes` (a
counter in ``portal.sqlite`` that every change of a person or an upload moves, whichever process
made it) and the games' counts; the board's rows under the live board's snapshot number and the
audience it was named for. :func:`board_rows` renders rows as the template did (escaped text),
so a student's page reuses the rows every student shares and renders only their own.

>>> kept = Fragments()
>>> kept.get("roster", (1,), lambda: Markup("<tr>one</tr>"))
Markup('<tr>one</tr>')
>>> kept.get("roster", (1,), lambda: Markup("<tr>not rendered again</tr>"))
Markup('<tr>one</tr>')
>>> board_rows([{"bot": "ada", "preset": "rush", "rank": "1", "name": "Ada <b>", "elo": "1012", "interval": "pending",
...              "games": 40, "mine": True}])
Markup('<tr data-bot="ada" data-preset="rush" class="mine"><td>rush</td><td>1</td><td>Ada &lt;b&gt;</td><td>1012</td><td>pending</td><td>40</td></tr>\\n')
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping

from markupsafe import Markup, escape

__all__ = ["Fragments", "board_rows", "board_row"]

_CELLS = ("preset", "rank", "name", "elo", "interval", "games")


class Fragments:
    """Rendered HTML by name, each kept with the key it was made for: :meth:`get` makes it again when the key differs."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[object, Any]] = {}

    def get(self, name: str, key: object, make: Callable[[], Any]) -> Any:
        found = self._kept.get(name)
        if found is not None and found[0] == key:
            return found[1]
        made = make()
        self._kept[name] = (key, made)
        return made


def board_row(row: Mapping[str, Any]) -> str:
    """One leaderboard row (hooks ``data-bot`` and ``data-preset``; ``class="mine"`` on the reader's own), every value
    escaped."""
    mine = ' class="mine"' if row.get("mine") else ""
    cells = "".join(f"<td>{escape(row[c])}</td>" for c in _CELLS)
    return f'<tr data-bot="{escape(row["bot"])}" data-preset="{escape(row["preset"])}"{mine}>{cells}</tr>\n'


def board_rows(rows: Iterable[Mapping[str, Any]]) -> Markup:
    """The leaderboard's rows as one piece of HTML."""
    return Markup("".join(board_row(r) for r in rows))
