"""How the leaderboard, the report and the pages write a rating's interval, a rank's range and a duration: one
wording for all of them (the runner's table and the report both import it from here, neither from the other).

>>> interval_text(1050.4, 1149.6, sep=" – "), rank_text(2, 5)
('1050 – 1150', '2-5')
"""

from __future__ import annotations

import math

__all__ = ["interval_text", "rank_text", "about", "short_duration"]


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


def about(seconds: float) -> str:
    """A duration as a reader plans with it: ``about 40 seconds``, ``about 12 minutes``, ``about 2.5 hours``;
    ``under a second``.

    >>> about(38.2), about(725), about(9000), about(0.4), about(1.2)
    ('about 40 seconds', 'about 12 minutes', 'about 2.5 hours', 'under a second', 'about 1 second')
    """
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        n = round(seconds / 5) * 5 if seconds >= 10 else round(seconds)
        return f"about {n} second{'s' if n != 1 else ''}"
    if seconds < 90 * 60:
        return f"about {round(seconds / 60)} minutes"
    return f"about {seconds / 3600:.1f} hours"


def short_duration(seconds: float) -> str:
    """A progress line's duration: ``45 s``, ``6 min``, ``1 h 12 min``.

    >>> short_duration(44.6), short_duration(372), short_duration(4330)
    ('45 s', '6 min', '1 h 12 min')
    """
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60)} min"
