"""CSV cells a spreadsheet will not run: a text cell that starts like a formula is written as text.

A spreadsheet (Excel, LibreOffice, Google Sheets) takes a cell starting with ``=``, ``+``, ``-`` or
``@`` (or a tab or carriage return, which some strip first) for a formula, so a student's file named
``=HYPERLINK(...).py`` would run in the teacher's spreadsheet. **The rule**: such a *text* cell gets a
``'`` in front (the spreadsheet shows the text without it); a *number* (a numeric column, or a text
cell that is just a decimal number such as ``-12.5``) is a number, not a formula, and is left as it is.
Every CSV the kit writes for people goes through it: ``leaderboard.csv``, ``grades.csv``,
``portal-links.csv``. Plain Python, no web or pandas import.

>>> safe_cell("=1+2.py"), safe_cell("@SUM(1,2)"), safe_cell("-bad"), safe_cell("+85 [+40, +130]")
("'=1+2.py", "'@SUM(1,2)", "'-bad", "'+85 [+40, +130]")
>>> safe_cell("-12.5"), safe_cell("ann"), safe_cell(""), safe_cell("-inf")
('-12.5', 'ann', '', "'-inf")
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["safe_cell", "safe_frame", "FORMULA_STARTS"]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""What a cell starts with when a spreadsheet may take it for a formula."""
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def safe_cell(text: str) -> str:
    """``text`` as a spreadsheet shows it as text: a ``'`` before a leading ``=``, ``+``, ``-``, ``@``, tab or
    carriage return, unless the whole cell is a decimal number.

    >>> safe_cell("=HYPERLINK(1)"), safe_cell("Ada"), safe_cell("+3")
    ("'=HYPERLINK(1)", 'Ada', '+3')
    """
    if text[:1] in FORMULA_STARTS and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def safe_frame(frame: "pd.DataFrame") -> "pd.DataFrame":
    """A copy of ``frame`` with :func:`safe_cell` applied to every text cell (numeric columns and missing
    values unchanged): what ``to_csv`` should write.

    >>> import pandas as pd
    >>> safe_frame(pd.DataFrame({"bot": ["=1+2", "ann"], "elo": [-12.5, 1000.0]})).values.tolist()
    [["'=1+2", -12.5], ['ann', 1000.0]]
    """
    out = frame.copy()
    out.attrs = dict(frame.attrs)
    for col in out.columns:
        if out[col].dtype == object or str(out[col].dtype) in ("string", "str"):
            out[col] = [safe_cell(v) if isinstance(v, str) else v for v in out[col]]
    return out
