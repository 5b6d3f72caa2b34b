"""What each bot cost, read from the stored seats: CPU per decision, its median and 95th percentile, its share.

The tournament measures it (:class:`cabo_kit.tournament.timing.CpuTally`, in the worker or the bot's harness)
and the store keeps, per seat of a game, ``decisions`` (the ``choose()`` calls the bot answered: every
decision, the set-up look and the snap windows included; hooks are not decisions), ``cpu_s`` (its
CPU seconds over those calls and its hooks) and ``cpu_hist``, the decisions' CPU times in a fixed log-spaced
histogram (:data:`BINS_PER_DECADE` bins a decade from 1 µs; text ``"bin:count,..."``). Histograms add up
across games, so a bot's median and 95th percentile over a whole run are read from their sum, interpolated
inside a bin. This module only reads them: the report, the pages and the leaderboard use it.

>>> round(quantile(parse_hist("13:1,14:1,16:1,36:1"), 0.5) * 1e3, 3)      # ms: the 2nd of 4 times (30 us) is in bin 14
0.032
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["BINS_PER_DECADE", "N_BINS", "TIMING_COLUMNS", "bin_of", "parse_hist", "add_hists", "quantile",
           "bot_timing", "with_timing", "ms_text"]

BINS_PER_DECADE = 10
"""Histogram bins per decade of CPU time: a bin spans a factor 10 ** 0.1 (about 26%)."""
N_BINS = 8 * BINS_PER_DECADE
"""Bins from 1 µs to 100 s (the first also holds anything faster, the last anything slower)."""

TIMING_COLUMNS = ("decisions", "cpu_s", "cpu_ms_median", "cpu_ms_p95", "cpu_share")
"""The columns :func:`bot_timing` adds to a leaderboard (``cpu_share`` in %)."""


def bin_of(ns: int) -> int:
    """The histogram bin of a CPU time in nanoseconds.

    >>> bin_of(500), bin_of(1_000), bin_of(1_300), bin_of(1_000_000), bin_of(10 ** 12)
    (0, 0, 1, 30, 79)
    """
    if ns < 1_259:
        return 0
    return min(N_BINS - 1, int(BINS_PER_DECADE * math.log10(ns / 1_000)))


def parse_hist(text: Any) -> dict[int, int]:
    """A stored histogram's counts by bin (``{}`` for an empty or unknown one).

    >>> parse_hist("3:2,40:1"), parse_hist(None)
    ({3: 2, 40: 1}, {})
    """
    if not isinstance(text, str) or not text:
        return {}
    out: dict[int, int] = {}
    for part in text.split(","):
        b, _, c = part.partition(":")
        out[int(b)] = out.get(int(b), 0) + int(c)
    return out


def add_hists(texts: Iterable[Any]) -> dict[int, int]:
    """The sum of stored histograms (unknown ones skipped)."""
    total: dict[int, int] = {}
    for text in texts:
        for b, c in parse_hist(text).items():
            total[b] = total.get(b, 0) + c
    return total


def quantile(hist: Mapping[int, int], q: float) -> float:
    """The ``q`` quantile in seconds of a histogram's times, interpolated log-linearly inside its bin (NaN if empty).

    >>> round(quantile({30: 1}, 0.5) * 1e3, 3), quantile({}, 0.5)
    (1.122, nan)
    """
    n = sum(hist.values())
    if n == 0:
        return math.nan
    rank = q * n
    seen = 0
    for b in sorted(hist):
        c = hist[b]
        if seen + c >= rank:
            frac = (rank - seen) / c if c else 0.5
            return 1e-6 * 10 ** ((b + frac) / BINS_PER_DECADE)
        seen += c
    return 1e-6 * 10 ** ((max(hist) + 1) / BINS_PER_DECADE)


def bot_timing(seats: "pd.DataFrame", by: Sequence[str] = ("bot",)) -> "pd.DataFrame":
    """Each bot's CPU: ``decisions``, ``cpu_s``, ``cpu_ms_median``, ``cpu_ms_p95`` (per decision) and
    ``cpu_share`` (its CPU over all bots' CPU in the same ``by`` group but the bot, in %), grouped by ``by``.

    Only seats with a measurement count (a store written before cabo-kit measured CPU has none:
    such a bot's figures are NaN, "unknown", never 0).

    >>> import pandas as pd
    >>> seats = pd.DataFrame({"bot": ["a", "b", "a", "old"], "decisions": [10, 10, 12, None],
    ...     "cpu_s": [0.001, 0.003, 0.0012, None], "cpu_hist": ["40:10", "45:10", "40:12", None]})
    >>> t = bot_timing(seats)
    >>> print(t[["bot", "decisions", "cpu_share"]].to_string(index=False))
    bot  decisions  cpu_share
      a         22      42.31
      b         10      57.69
    old       <NA>        NaN
    """
    import pandas as pd

    keys = list(by)
    if "cpu_hist" not in seats.columns:
        seats = seats.assign(decisions=pd.NA, cpu_s=math.nan, cpu_hist=None)
    known = seats["cpu_hist"].map(lambda t: isinstance(t, str))
    rows = []
    for key, part in seats.groupby(keys, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        got = part[known.loc[part.index]]
        hist = add_hists(got["cpu_hist"])
        rows.append(dict(zip(keys, key), decisions=int(got["decisions"].sum()) if len(got) else pd.NA,
                         cpu_s=float(got["cpu_s"].sum()) if len(got) else math.nan,
                         cpu_ms_median=quantile(hist, 0.5) * 1e3, cpu_ms_p95=quantile(hist, 0.95) * 1e3))
    out = pd.DataFrame(rows, columns=[*keys, "decisions", "cpu_s", "cpu_ms_median", "cpu_ms_p95"])
    out["decisions"] = out["decisions"].astype("Int64")
    scope = [k for k in keys if k != "bot"]
    totals = out.groupby(scope)["cpu_s"].transform("sum") if scope else out["cpu_s"].sum()
    share = out["cpu_s"] / (totals if scope else float(totals)) * 100
    out["cpu_share"] = share.where(out["cpu_s"].notna() & (totals > 0)).round(2)
    return out


def with_timing(board: "pd.DataFrame", seats: "pd.DataFrame") -> "pd.DataFrame":
    """The leaderboard with :data:`TIMING_COLUMNS` added per preset and bot (``cpu_share``: the bot's share
    of all bots' CPU in that preset, in %); NaN where nothing was measured. The board's attrs are kept.

    >>> import pandas as pd
    >>> board = pd.DataFrame({"bot": ["a", "b"], "preset": "rush", "elo": [1010.0, 990.0]})
    >>> seats = pd.DataFrame({"bot": ["a", "b"], "preset": "rush", "decisions": [10, 10], "cpu_s": [0.001, 0.003],
    ...                       "cpu_hist": ["40:10", "45:10"]})
    >>> with_timing(board, seats)[["bot", "cpu_ms_median", "cpu_share"]].round(3).values.tolist()
    [['a', 11.22, 25.0], ['b', 35.481, 75.0]]
    """
    out = board.copy()
    out.attrs = dict(board.attrs)
    if not len(out) or not len(seats):
        for col in TIMING_COLUMNS:
            out[col] = math.nan
        out["decisions"] = out["decisions"].astype("Int64")
        return out
    timing = bot_timing(seats, ("preset", "bot")).set_index(["preset", "bot"])
    keys = list(zip(out["preset"], out["bot"]))
    import pandas as pd

    for col in TIMING_COLUMNS:
        values = [timing[col].get(k) if k in timing.index else None for k in keys]
        out[col] = pd.array(values, dtype="Int64") if col == "decisions" else pd.array(values, dtype="float64")
    return out


def ms_text(value: Any) -> str:
    """A CPU time in ms for a table: 3 significant figures, ``unknown`` when not measured.

    >>> ms_text(0.004213), ms_text(12.345), ms_text(float("nan"))
    ('0.00421', '12.3', 'unknown')
    """
    if value is None or value != value:
        return "unknown"
    return f"{value:.3g}" if value < 1000 else f"{value:,.0f}"
