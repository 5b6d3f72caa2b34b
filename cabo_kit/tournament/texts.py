"""How the leaderboard, the report and the pages write a rating's interval and a rank's range: one wording
for all of them (the runner's table and the report both import it from here, neither from the other).

>>> interval_text(1050.4, 1149.6, sep=" – "), rank_text(2, 5)
('1050 – 1150', '2-5')
"""

from __future__ import annotations

import math

__all__ = ["interval_text", "rank_text"]


def interval_text(low: float, high: float, sep: str = "..") -> str:
    """A 95% interval as a reader sees it: ``1050..1150`` (``sep`` between the bounds; the report uses `` – ``), or
    one-sided (``below 1180``, ``above 1050``), ``not bounded``, ``-`` (no bootstrap).

    >>> interval_text(1050.4, 1149.6), interval_text(float("-inf"), 1180.0), interval_text(990.0, float("inf"))
    ('1050..1150', 'below 1180', 'above 990')
    """
    lo, hi = math.isinf(low), math.isinf(high)
    if lo and hi:
        return "not bounded"
    if lo:
        return f"below {high:.0f}"
    if hi:
        return f"above {low:.0f}"
    if low != low or high != high:  # NaN: no bootstrap
        return "-"
    return f"{low:.0f}{sep}{high:.0f}"


def rank_text(low: int, high: int) -> str:
    """A rank interval: ``3`` when the bootstrap leaves one place, ``2-5`` otherwise.

    >>> rank_text(3, 3), rank_text(2, 5)
    ('3', '2-5')
    """
    return f"{low}" if low == high else f"{low}-{high}"
