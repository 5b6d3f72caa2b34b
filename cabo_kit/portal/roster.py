"""The class roster: who may sign in to the portal (a CSV of ``id,name``, one student a line).

An id names the student's bot in the tournament (``bots/<id>.py``), so it is checked as the
tournament needs it: 1 to 40 of ``a-z``, ``0-9``, ``_``, not starting with ``_`` (the
tournament skips such files, and the portal keeps those names for itself), and not the name of a
reference bot in any letter case. A first line ``id,name`` is a header; blank lines are
skipped; an empty name falls back to the id. Every problem names its line and the fix.

>>> roster = parse_roster("id,name\\nada,Ada Lovelace\\nalan,\\n")
>>> [(s.id, s.name) for s in roster]
[('ada', 'Ada Lovelace'), ('alan', 'alan')]
>>> parse_roster("Ada,Ada Lovelace\\n", "roster.csv")
Traceback (most recent call last):
...
cabo_kit.portal.roster.RosterError: roster.csv line 1: the id 'Ada' is not valid: use 1 to 40 of a-z, 0-9 and _ (lower case, not starting with _), e.g. 'ada'
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Student", "RosterError", "parse_roster", "load_roster", "ID_PATTERN", "reserved_names"]

ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9_]{0,39}")
"""A roster id: what ``[a-z0-9_]{1,40}`` allows, less a leading ``_``."""

_MAX_NAME = 100


class RosterError(ValueError):
    """The roster cannot be used: the message names the file, the line and the fix."""


@dataclass(frozen=True)
class Student:
    """One roster entry: ``id`` (the bot's name in the tournament) and the ``name`` shown to people."""

    id: str
    name: str


def reserved_names() -> frozenset[str]:
    """The names no student may take, lower case: every name :mod:`cabo_kit.bots` exports.

    >>> "greedybot" in reserved_names()
    True
    """
    from .. import bots

    return frozenset(n.lower() for n in bots.__all__)


def _suggest(text: str) -> str:
    fixed = re.sub(r"[^a-z0-9_]+", "_", text.strip().lower()).strip("_")[:40]
    return f", e.g. {fixed!r}" if fixed and ID_PATTERN.fullmatch(fixed) else ""


def parse_roster(text: str, source: str = "the roster") -> list[Student]:
    """The students of a roster's CSV text; raises :class:`RosterError` naming ``source`` and the line."""
    reserved = reserved_names()
    students: list[Student] = []
    seen: dict[str, int] = {}
    rows = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    try:
        for row in rows:
            line = rows.line_num
            cells = [c.strip() for c in row]
            if not any(cells):
                continue
            if not students and not seen and [c.lower() for c in cells] == ["id", "name"]:
                seen[""] = line  # the header: not a student
                continue
            where = f"{source} line {line}"
            if len(cells) > 2:
                raise RosterError(f"{where}: {len(cells)} fields where 2 are expected (id,name): "
                                  "put a name that contains a comma in double quotes")
            sid, name = cells[0], (cells[1] if len(cells) > 1 else "")
            if not ID_PATTERN.fullmatch(sid):
                raise RosterError(f"{where}: the id {sid!r} is not valid: use 1 to 40 of a-z, 0-9 and _ "
                                  f"(lower case, not starting with _){_suggest(sid)}")
            if sid in reserved:
                raise RosterError(f"{where}: the id {sid!r} is a reference bot's name (the tournament could not tell "
                                  f"them apart): choose another, e.g. {sid + '_1'!r}")
            if sid in seen:
                raise RosterError(f"{where}: the id {sid!r} is already on line {seen[sid]}: every student needs an id of their own")
            if any(ord(c) < 32 for c in name) or len(name) > _MAX_NAME:
                raise RosterError(f"{where}: the name of {sid!r} is longer than {_MAX_NAME} characters or holds a control "
                                  "character: shorten it")
            seen[sid] = line
            students.append(Student(sid, name or sid))
    except csv.Error as exc:
        raise RosterError(f"{source} line {rows.line_num}: not valid CSV ({exc}): write one student a line as id,name") from None
    return students


def load_roster(path: str | Path) -> list[Student]:
    """The students of the roster file at ``path`` (UTF-8, a BOM allowed); see :func:`parse_roster`."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RosterError(f"cannot read the roster {path}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise RosterError(f"{path} line {line}: not UTF-8 text: save the roster as CSV UTF-8") from None
    students = parse_roster(text, str(path))
    if not students:
        raise RosterError(f"{path} names no student: write one a line as id,name (e.g. ada,Ada Lovelace)")
    return students
