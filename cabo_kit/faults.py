"""How a bot's faults and printed output are shown, one way for ``check-bot`` and the tournament report.

Standard library only: the checker (:mod:`cabo_kit.tournament.check`) and the report
(:mod:`cabo_kit.report`) both import it.

>>> fault_key("illegal", "In game 3 (rush, 2 players, seed 2, your seat 0), choose() at round 1, turn 4, phase "
...           "'drawn': choose() returned 'exchange 5', which is not legal now (legal now: discard)")
"illegal:choose(): choose() returned 'exchange #', which is not legal now"
"""

from __future__ import annotations

import re

__all__ = ["SHOWN_LINES", "SHOWN_BYTES", "fault_key", "first_lines", "last_line", "what_happened"]

SHOWN_LINES, SHOWN_BYTES = 20, 4096
"""How much of a bot's printed output is shown: at most this many first lines and bytes."""

_NUMBERS = re.compile(r"\d+(\.\d+)?")
_WHEN = re.compile(r"choose\(\) at round \d+, turn \d+, phase '\w+'")


def last_line(text: object, width: int | None = None) -> str:
    """The last non-blank line of ``text`` (a traceback's says what went wrong), cut to ``width`` characters.

    >>> last_line("Traceback (most recent call last):\\n  ...\\nValueError: boom\\n"), last_line("abcdef", 4)
    ('ValueError: boom', 'abc…')
    """
    lines = [ln for ln in str(text).strip().splitlines() if ln.strip()]
    line = lines[-1].strip() if lines else ""
    return line if width is None or len(line) <= width else line[: width - 1] + "…"


def what_happened(text: object, width: int | None = None) -> str:
    """A fault's last line without where it happened (``In game 3 (...), ``, the round and turn of a ``choose()``).

    >>> what_happened("In game 2 (deluxe, 2 players, seed 1, your seat 1), choose() at round 1, turn 0, phase 'look': boom")
    'choose(): boom'
    """
    line = last_line(text)
    if line.startswith("In game "):
        line = line.split("), ", 1)[-1]
    line = _WHEN.sub("choose()", line)
    return line if width is None or len(line) <= width else line[: width - 1] + "…"


def fault_key(kind: object, text: object) -> str:
    """What makes two faults the same: their kind and what happened, numbers and the legal moves left out.

    >>> fault_key("illegal", "choose() returned 'exchange 5', which is not legal now: there is no position 5 in your"
    ...           " hand: you hold 4 cards (positions 0 to 3) (legal now: discard, exchange 0)")
    "illegal:choose() returned 'exchange #', which is not legal now: there is no position # in your hand: you hold # cards (positions # to #)"
    """
    line = what_happened(text).split(" (legal now:")[0].split(" [your ")[0]
    return f"{kind}:" + _NUMBERS.sub("#", line)


def first_lines(text: str, lines: int = SHOWN_LINES, size: int = SHOWN_BYTES) -> list[str]:
    """The first ``lines`` lines of ``text`` within ``size`` bytes (no more of a bot's output is shown).

    >>> first_lines("a\\nb\\nc\\n", lines=2)
    ['a', 'b']
    """
    return text.encode("utf-8", "replace")[:size].decode("utf-8", "ignore").splitlines()[:lines]
