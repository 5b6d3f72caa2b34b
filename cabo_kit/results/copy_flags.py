"""The copy check's findings as the tournament folder keeps them (``DIR/copies.json``): read by the report and the
teacher's page. :func:`cabo_kit.tournament.copies.find_copies` writes them (it plays the probe games).

>>> str(CopyFlag("alice", "CountingBot", True, 150, 150))
'alice.py plays like CountingBot (reference): 100% of 150 decisions'
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["COPIES_FILE", "CopyFlag", "load_flags"]

COPIES_FILE = "copies.json"
"""The copy check's file in the tournament folder: the flags of its last run and the cached answers."""


@dataclass(frozen=True)
class CopyFlag:
    """Two bots that answered alike: ``a`` (a file's name) plays like ``b`` (a file, or a reference bot if
    ``reference``) on ``agreed`` of the ``decisions`` where at least one of them departs from the defaults."""

    a: str
    b: str
    reference: bool
    agreed: int
    decisions: int

    @property
    def share(self) -> float:
        return self.agreed / self.decisions if self.decisions else 0.0

    @property
    def percent(self) -> str:
        """The share as a whole percentage; "100%" only for a full match."""
        return _percent(self.share)

    def __str__(self) -> str:
        other = f"{self.b} (reference)" if self.reference else f"{self.b}.py"
        return f"{self.a}.py plays like {other}: {self.percent} of {self.decisions} decisions"


def _percent(share: float) -> str:
    # 99.6% must not print as "100%": only a full match does
    return "100%" if share >= 1 else f"{min(share * 100, 99.0):.0f}%"


def load_flags(folder: "str | os.PathLike[str]") -> dict[str, Any] | None:
    """The flags of the last :func:`find_copies` on ``folder`` (from ``copies.json``), or ``None`` if it never ran.

    >>> import tempfile
    >>> load_flags(tempfile.mkdtemp()) is None
    True
    """
    try:
        data = json.loads((Path(folder) / COPIES_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or "flags" not in data:
        return None
    return {k: data.get(k) for k in ("flags", "checked", "threshold", "decisions")}
