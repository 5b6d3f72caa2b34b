"""Pieces of the portal's pages rendered once and kept until what they show changes.

With 200 students the teacher's page lists 200 roster rows, up to 200 rejected uploads and a
board of 200 rows: rendering them all at every request made it the one slow page. The app keeps
each piece in :class:`Fragments` under a key that changes exactly when its data does: the
roster and the rejected uploads under :meth:`~cabo_kit.portal.state.PortalState.changes` (a
counter in ``portal.sqlite`` that every change of a person or an upload moves, whichever process
made it); the board's rows under the live board's snapshot number and the audience it was named
for. What changes while games run is left out of the kept roster: each row's games and faults
cells (:func:`counts_cells`, at the roster template's :data:`COUNTS` mark) are rendered at every
request, so a running class does not make the roster be rendered again every few seconds. When a
person or an upload changes, :class:`Rows` renders again only the rows whose student's state
changed (a check that ends changes one row of 200), keyed by what each row shows.
:func:`board_row` renders a row as the template did (escaped text), so a student's page reuses the
rows every student shares and renders only their own.

>>> kept = Fragments()
>>> kept.get("roster", (1,), lambda: Markup("<tr>one</tr>"))
Markup('<tr>one</tr>')
>>> kept.get("roster", (1,), lambda: Markup("<tr>not rendered again</tr>"))
Markup('<tr>one</tr>')
>>> rows, made = Rows(), []
>>> def make(n: int) -> str:
...     made.append(n)
...     return f"<tr>{n}</tr>"
>>> rows.get([("ada", 1, 1), ("bob", 2, 2)], make), rows.get([("ada", 1, 1), ("bob", 3, 3)], make), made
(['<tr>1</tr>', '<tr>2</tr>'], ['<tr>1</tr>', '<tr>3</tr>'], [1, 2, 3])
>>> print(board_row({"bot": "ada", "preset": "rush", "rank": "1", "name": "Ada <b>", "elo": "1012",
...                  "interval": "pending", "games": 40, "mine": True}), end="")
<tr data-bot="ada" data-preset="rush" class="mine"><td>rush</td><td>1</td><td>Ada &lt;b&gt;</td><td>1012</td><td>pending</td><td>40</td></tr>
>>> print(with_counts(["<tr><td>ada</td>", "</tr>\\n<tr><td>bob</td>", "</tr>"], ["ada", "bob"],
...                   lambda pid: counts_cells("/class", pid, {"ada": 12}.get(pid, 0), {"ada": 1}.get(pid, 0))))
<tr><td>ada</td><td>12</td><td class="faults" data-faults="1"><a href="/class/teacher/students/ada/faults">1</a></td></tr>
<tr><td>bob</td><td>0</td><td class="faults" data-faults="0">0</td></tr>
"""

from __future__ import annotations

from typing import Any, Callable, Hashable, Iterable, Mapping, Sequence, TypeVar

from markupsafe import Markup, escape

__all__ = ["Fragments", "Rows", "board_row", "COUNTS", "counts_cells", "with_counts"]

T = TypeVar("T")

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


class Rows:
    """Rendered rows by id, each kept with the key it was made for (what the row shows): :meth:`get` renders again
    only the rows whose key changed, and forgets the ids no longer asked for."""

    def __init__(self) -> None:
        self._kept: dict[Hashable, tuple[Hashable, str]] = {}

    def get(self, items: Iterable[tuple[Hashable, Hashable, T]], make: Callable[[T], str]) -> list[str]:
        """The rows of ``items`` (``(id, key, data)``, in order), each ``make(data)`` unless kept under that key."""
        kept, fresh, out = self._kept, {}, []
        for rid, key, data in items:
            found = kept.get(rid)
            html = found[1] if found is not None and found[0] == key else make(data)
            fresh[rid] = (key, html)
            out.append(html)
        self._kept = fresh
        return out


def board_row(row: Mapping[str, Any]) -> str:
    """One leaderboard row (hooks ``data-bot`` and ``data-preset``; ``class="mine"`` on the reader's own), every value
    escaped."""
    mine = ' class="mine"' if row.get("mine") else ""
    cells = "".join(f"<td>{escape(row[c])}</td>" for c in _CELLS)
    return f'<tr data-bot="{escape(row["bot"])}" data-preset="{escape(row["preset"])}"{mine}>{cells}</tr>\n'


COUNTS = "<!--cabo-counts-->"
"""Where a roster row of ``teacher_roster.html`` takes its games and faults cells (no escaped text can contain it)."""


def counts_cells(root: str, pid: str, games: int | None, faults: int) -> str:
    """A roster row's games and faults cells (``games`` ``None``: this server plays no games, both left empty); the
    faults link to the student's faults page."""
    if games is None:
        return '<td></td><td class="faults" data-faults="0"></td>'
    shown = f'<a href="{escape(root)}/teacher/students/{escape(pid)}/faults">{faults}</a>' if faults else "0"
    return f'<td>{games}</td><td class="faults" data-faults="{faults}">{shown}</td>'


def with_counts(pieces: Sequence[str], ids: Sequence[str], cells: Callable[[str], str]) -> Markup:
    """The kept roster (``pieces``: its HTML cut at each row's :data:`COUNTS` mark; ``ids``: the rows' students)
    with each row's cells of ``cells(id)`` put back in."""
    if len(pieces) != len(ids) + 1:
        raise ValueError(f"{len(ids)} roster rows but {len(pieces) - 1} places for their counts")
    out = [pieces[0]]
    for pid, after in zip(ids, pieces[1:]):
        out += (cells(pid), after)
    return Markup("".join(out))
