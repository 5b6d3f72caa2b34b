"""How a bot's faults and printed output are shown, one way for ``check-bot`` and the tournament report.

Standard library only: the checker (:mod:`cabo_kit.tournament.check`), the report (:mod:`cabo_kit.report`)
and the pages (:mod:`cabo_kit.pages`) all import it, so none of them imports another for it; this is also
where a text loses this machine's paths (:func:`scrub_paths`) before a student reads it.

>>> fault_key("illegal", "In game 3 (rush, 2 players, seed 2, your seat 0), choose() at round 1, turn 4, phase "
...           "'drawn': choose() returned 'exchange 5', which is not legal now (legal now: discard)")
"illegal:choose(): choose() returned 'exchange #', which is not legal now"
"""

from __future__ import annotations

import os
import re
from pathlib import Path

__all__ = ["SHOWN_LINES", "SHOWN_BYTES", "fault_key", "first_lines", "last_line", "scrub_paths", "what_happened"]

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


_FRAME = re.compile(r'^(\s*)File "(.*)", line (\d+)(.*)$')
# A path starts only at the start of a line or after whitespace, a quote, "(", "=" or ":" (never inside a word:
# "a/b" is no path), so a scrub never swallows the text before it.
_START = r"""(?<![^\s"'(=:])"""
_PY_PATH = re.compile(_START + r'(?:[A-Za-z]:)?(?:[\\/][^\s"\'<>|:;,()\\/]+)+[\\/]([^\s"\'<>|:;,()\\/]+\.py)\b')
# The runner's folder of one match (tempfile.mkdtemp(prefix="cabo-match-")): it differs per worker and match.
_MATCH_DIR = re.compile(_START + r'(?:[A-Za-z]:)?(?:[\\/][^\s"\'<>|\\/]+)*[\\/]cabo-match-[A-Za-z0-9_]+[\\/]?')
# A folder of the path to the bot's own file: it may hold spaces ("class 3") but neither starts nor ends with one
# ("/a/b and then /srv/x/alice.py" is two paths, the second the file's).
_SEGMENT = r'[\\/][^\s"<>|\\/](?:[^\n"<>|\\/]*[^\s"<>|\\/])?'


def _places(folder: "str | os.PathLike[str] | None") -> list[tuple[str, str]]:
    """This machine's folders a text may name, longest first, with what replaces each."""
    import sys
    import sysconfig

    places: list[tuple[str, str]] = []
    if folder is not None:
        places += [(str(Path(folder).resolve()), "DIR"), (os.path.abspath(folder), "DIR")]
    for key in ("purelib", "platlib", "stdlib"):
        try:
            places.append((sysconfig.get_paths()[key], "<python>"))
        except KeyError:  # pragma: no cover - an unusual installation scheme
            pass
    # an editable (or source) install: the folder that holds the cabo_kit package
    root = Path(__file__).resolve().parent.parent
    places += [(str(root), "<cabo-kit>"), (sys.prefix, "<python>"), (sys.base_prefix, "<python>"),
               (os.path.expanduser("~"), "~")]
    return sorted(((p, n) for p, n in places if len(p) > 1), key=lambda p: -len(p[0]))


def scrub_paths(text: str, bot_file_name: "str | None" = None,
                folder: "str | os.PathLike[str] | None" = None) -> str:
    """``text`` (plain text, before any HTML escaping) without this machine's paths, for a page or a message a
    student reads: a traceback frame's file (``File "...", line N``) becomes its name, whatever characters the path
    holds; ``bot_file_name``'s path (the bot's file, its name may hold spaces or quotes) its name; any other path
    to a ``.py`` file its name; the runner's match folder (``.../cabo-match-XXXX/``) nothing; the tournament
    ``folder`` ``DIR``; the folder holding the cabo_kit package ``<cabo-kit>``; the Python installation
    ``<python>``; the home folder ``~``.

    >>> import os
    >>> scrub_paths('File "/tmp/cabo-match-k2_x/Tom\\'s bot.py", line 3 in ' + os.path.expanduser("~/a b/notes.txt"))
    'File "Tom\\'s bot.py", line 3 in ~/a b/notes.txt'
    >>> scrub_paths("cannot read /srv/class 3/bots/Tom's bot.py: denied", "Tom's bot.py")
    "cannot read Tom's bot.py: denied"
    """
    def frame(m: "re.Match[str]") -> str:
        return f'{m.group(1)}File "{os.path.basename(m.group(2).replace(chr(92), "/"))}", line {m.group(3)}{m.group(4)}'

    text = "\n".join(_FRAME.sub(frame, line) for line in text.split("\n"))
    if bot_file_name:
        text = re.sub(_START + r'(?:[A-Za-z]:)?(?:' + _SEGMENT + r')*?[\\/]' + re.escape(bot_file_name),
                      lambda m: bot_file_name, text)
    text = _MATCH_DIR.sub("", text)
    text = _PY_PATH.sub(r"\1", text)
    for path, name in _places(folder):
        text = text.replace(path, name)
    return text
