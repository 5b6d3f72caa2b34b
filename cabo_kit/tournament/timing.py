"""What each bot costs: CPU per decision, kept per seat of each stored game, and a run's expected duration.

A bot's CPU time is measured around each of its calls where the bot runs: in its harness
process for a submitted file (``time.thread_time_ns``: it has one thread; sent back with each reply), in the worker
for a trusted reference bot (``time.thread_time_ns``). It is only recorded: the limits stay wall
time, and a number a bot's own process reports is never enforced (it is capped at the call's wall
time, so a bot can make itself look cheaper, not dearer).

Per seat of a game the store keeps ``decisions`` (the ``choose()`` calls the bot answered: every
decision, the set-up look and the snap windows included; hooks are not decisions), ``cpu_s`` (its
CPU seconds over those calls and its hooks: ``on_game_start``, the round hooks, ``on_game_end``)
and ``cpu_hist``, the decisions' CPU times in a fixed log-spaced histogram (:data:`BINS_PER_DECADE`
bins a decade from 1 µs; text ``"bin:count,..."``; read by :mod:`cabo_kit.results.timing`). Histograms add up across games, so a bot's
median and 95th percentile over a whole run are read from their sum, interpolated inside a bin.

>>> tally = CpuTally()
>>> for ns in (20_000, 30_000, 40_000, 5_000_000):
...     tally.decision(ns)
>>> tally.other(1_000)
>>> tally.decisions, round(tally.cpu_s, 6), tally.hist_text()
(4, 0.005091, '13:1,14:1,16:1,36:1')
>>> round(quantile(parse_hist(tally.hist_text()), 0.5) * 1e3, 3)      # ms: the 2nd of 4 times (30 us) is in bin 14
0.032
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from ..results.texts import about, short_duration
from ..results.timing import (  # noqa: F401 - read from the store in results/; also imported from here
    BINS_PER_DECADE, N_BINS, TIMING_COLUMNS, add_hists, bin_of, bot_timing, ms_text, parse_hist, quantile, with_timing,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CpuTally", "BINS_PER_DECADE", "N_BINS", "bin_of", "parse_hist", "add_hists", "quantile", "bot_timing",
    "CostModel", "Estimate", "about", "short_duration", "TIMING_COLUMNS", "ROUND_ROBIN_C", "ANCHOR_FACTOR",
    "expected_games", "with_timing", "ms_text",
]

ROUND_ROBIN_C = 650.0
"""A balanced schedule's widest two-sided half-width times ``sqrt(games per bot)`` in the measured class
(docs/performance.md, "How many games for ±50": ±47 at 192 games, ±55 at 128): the prior an estimate uses for
the games an adaptive run adds before any rating exists."""
ANCHOR_FACTOR = 2.3
"""How many times the games a run anchored on a bot (``anchor = "GreedyBot"``) needs for the same precision as
one centred on the field: every interval then also carries the anchor's own uncertainty (measured: 294 games
against 126 for ``precision = 45`` in a small class, docs/performance.md, "Late and changed files")."""


def expected_games(target: float, anchored: bool = False) -> int:
    """Games per bot, preset and table size an adaptive run is expected to play until every two-sided interval
    is within ±``target`` Elo (0 without a target): ``(ROUND_ROBIN_C / target)²``, times :data:`ANCHOR_FACTOR`
    when the ratings are anchored on a bot. A rough prior, before any rating exists: the seeding games count
    among them, and ``max_games`` caps them (the callers' part). ``tournament run --estimate`` and
    ``check-bot --class`` both use it.

    >>> expected_games(50), expected_games(50, anchored=True), expected_games(100), expected_games(0)
    (169, 389, 43, 0)
    """
    if target <= 0:
        return 0
    return math.ceil((ROUND_ROBIN_C / target) ** 2 * (ANCHOR_FACTOR if anchored else 1.0))


class CpuTally:
    """One bot's CPU over one game: decisions, total CPU (decisions and hooks), and the decisions' histogram."""

    __slots__ = ("decisions", "cpu_ns", "bins")

    def __init__(self) -> None:
        self.decisions = 0
        self.cpu_ns = 0
        self.bins: dict[int, int] = {}

    def decision(self, ns: int) -> None:
        """Count one ``choose()`` call that took ``ns`` CPU nanoseconds."""
        self.decisions += 1
        self.cpu_ns += ns
        b = 0 if ns < 1_259 else min(N_BINS - 1, int(BINS_PER_DECADE * math.log10(ns / 1_000)))
        bins = self.bins
        bins[b] = bins.get(b, 0) + 1

    def other(self, ns: int) -> None:
        """Count a hook's CPU (not a decision)."""
        self.cpu_ns += ns

    @property
    def cpu_s(self) -> float:
        return self.cpu_ns / 1e9

    def hist_text(self) -> str:
        """The histogram as stored: ``"bin:count"`` pairs by bin, comma-separated (``""``: no decision)."""
        return ",".join(f"{b}:{c}" for b, c in sorted(self.bins.items()))



# ------------------------------------------------------------------ the cost model of an estimate


Group = tuple[str, str, int]  # preset, rules (JSON of the overrides), table size


@dataclass
class CostModel:
    """What a game costs, from timed games: each bot's CPU per game in a group (preset, rules, table
    size), how much wall time a CPU second takes here (``ratio``: 1 on an idle machine), and the rest
    of a game's wall time (engine, processes) per group.

    :meth:`game_seconds` of a game not measured in its group falls back to the bot's CPU per decision
    times the group's decisions per seat, then to the median bot of the group (``unknown`` lists
    the bots without any measurement).
    """

    bot_game: dict[tuple[str, Group], float] = field(default_factory=dict)
    bot_decision: dict[str, float] = field(default_factory=dict)
    group_decisions: dict[Group, float] = field(default_factory=dict)
    overhead: dict[Group, float] = field(default_factory=dict)
    games: int = 0
    ratio: float = 1.0

    @classmethod
    def fit(cls, games: "pd.DataFrame", seats: "pd.DataFrame") -> "CostModel":
        """From frames as :func:`~cabo_kit.tournament.store.load_frames` returns them (games: ``seconds``;
        seats: ``decisions``, ``cpu_s``); rows without a measurement are skipped."""
        model = cls()
        if not len(seats) or "cpu_s" not in seats.columns or "seconds" not in games.columns:
            return model
        s = seats[seats["cpu_s"].notna() & seats["decisions"].notna()]
        g = games[games["seconds"].notna()]
        if not len(s):
            return model
        s = s.assign(_d=s["decisions"].astype(float), _c=s["cpu_s"].astype(float))
        for (bot, preset, rules, k), part in s.groupby(["bot", "preset", "rules", "table_size"]):
            model.bot_game[(str(bot), (str(preset), str(rules), int(k)))] = float(part["_c"].mean())
        for bot, part in s.groupby("bot"):
            d = part["_d"].sum()
            if d > 0:
                model.bot_decision[str(bot)] = float(part["_c"].sum() / d)
        for (preset, rules, k), part in s.groupby(["preset", "rules", "table_size"]):
            model.group_decisions[(str(preset), str(rules), int(k))] = float(part["_d"].mean())
        cpu = s.groupby("game_id")["_c"].sum()
        g = g[g["game_id"].isin(cpu.index)]
        model.games = len(g)
        # A game's wall time = ratio * (rest + its bots' CPU): the rest (engine, processes) is the least a game
        # of the group took beyond its bots' CPU, and the ratio (a busy machine stretches everything: 1 to 4)
        # makes the timed games' sum come out exactly.
        g = g.assign(_cpu=g["game_id"].map(cpu).astype(float), _w=g["seconds"].astype(float))
        g = g.assign(_rest=(g["_w"] - g["_cpu"]).clip(lower=0.0))
        for (preset, rules, k), part in g.groupby(["preset", "rules", "table_size"]):
            model.overhead[(str(preset), str(rules), int(k))] = float(part["_rest"].min())
        base = sum(model.overhead[(str(p), str(r), int(k))] for p, r, k in zip(g["preset"], g["rules"], g["table_size"]))
        base += float(g["_cpu"].sum())
        if base > 0:
            model.ratio = min(4.0, max(1.0, float(g["_w"].sum()) / base))
        return model

    def knows(self, bot: str) -> bool:
        return bot in self.bot_decision

    def bot_seconds(self, bot: str, group: Group) -> float:
        """The bot's expected CPU seconds in one game of ``group``."""
        got = self.bot_game.get((bot, group))
        if got is not None:
            return got
        per = self.bot_decision.get(bot)
        decisions = self.group_decisions.get(group)
        if decisions is None and self.group_decisions:
            decisions = sorted(self.group_decisions.values())[len(self.group_decisions) // 2]
        if per is not None and decisions is not None:
            return per * decisions
        known = sorted(v for (b, gr), v in self.bot_game.items() if gr == group) or sorted(self.bot_game.values())
        return known[len(known) // 2] if known else 0.0

    def rest_seconds(self, group: Group) -> float:
        """A game's wall time beyond its bots' CPU (the engine, starting processes) in ``group``."""
        if group in self.overhead:
            return self.overhead[group]
        same = [v for g, v in self.overhead.items() if g[2] == group[2]] or list(self.overhead.values())
        return sum(same) / len(same) if same else 0.05

    def game_seconds(self, group: Group, lineup: Sequence[str]) -> float:
        """The expected wall seconds of one game of ``group`` with the bots of ``lineup``."""
        return self.ratio * (self.rest_seconds(group) + sum(self.bot_seconds(b, group) for b in lineup))


@dataclass
class Estimate:
    """How long a run should take: ``games`` still to play (balanced schedule), ``adaptive`` (the
    expected adaptive games with a precision target, rough; ``adaptive_max`` within the game budget),
    ``seconds`` (expected wall time of them all on ``workers``), ``grading`` (the one-on-one grading games
    expected after them, rough; ``grading_max`` at most; ``grading_seconds``, ``grading_max_seconds``), ``per_bot`` (each bot's CPU seconds per
    game, averaged over the groups it plays), ``unknown`` (bots no timing covers: priced as the median bot)
    and ``sampled`` (the timed games it rests on).
    """

    games: int
    seconds: float
    workers: int
    adaptive: int = 0
    adaptive_max: int = 0
    adaptive_seconds: float = 0.0
    grading: int = 0
    grading_max: int = 0
    grading_seconds: float = 0.0
    grading_max_seconds: float = 0.0
    per_bot: dict[str, float] = field(default_factory=dict)
    per_game: float = 0.0
    unknown: list[str] = field(default_factory=list)
    sampled: int = 0
    source: str = ""

    @property
    def total_seconds(self) -> float:
        return self.seconds + self.adaptive_seconds + self.grading_seconds

    def headline(self) -> str:
        """``about 12 minutes (1,752 games on 2 workers)``; with grading, its games after a ``+``:

        >>> Estimate(games=6, seconds=1.2, workers=2, grading=320, grading_max=800, grading_seconds=16.0).headline()
        'about 15 seconds (6 games on 2 workers + about 320 grading games, at most 800)'
        """
        games = self.games + self.adaptive
        plus = (f": {self.games:,} balanced, about {self.adaptive:,} adaptive, at most {self.adaptive_max:,} "
                "within max_games" if self.adaptive_max else "")
        grading = (f" + about {self.grading:,} grading games, at most {self.grading_max:,}" if self.grading_max else "")
        return (f"{about(self.total_seconds)} ({games:,} games on {self.workers} worker{'s' if self.workers != 1 else ''}"
                f"{plus}{grading})")

    def lines(self) -> list[str]:
        """The estimate as a run prints it: the headline, then each bot's CPU per game, dearest first."""
        out = [f"estimate: {self.headline()}; {self.per_game * 1e3:.0f} ms a game on average"
               + (f" ({self.source})" if self.source else "")]
        if self.per_bot:
            dear = sorted(self.per_bot.items(), key=lambda kv: -kv[1])
            total = sum(self.per_bot.values()) or 1.0
            shown = ", ".join(f"{b} {v * 1e3:.1f} ms" + (f" ({v / total:.0%})" if v / total >= 0.2 else "")
                              for b, v in dear[:6])
            if len(dear) > 6:
                shown += f", {len(dear) - 6} more at {dear[6][1] * 1e3:.1f} ms or less"
            out.append("  CPU per game: " + shown)
        if self.grading_max:
            out.append(f"  grading (one on one, after the tournament's games): about {self.grading:,} games in "
                       f"{about(self.grading_seconds)}, at most {self.grading_max:,} in "
                       f"{about(self.grading_max_seconds)} (a grade stops once its interval decides)")
        if self.unknown:
            out.append(f"  not timed yet, priced as the median bot: {', '.join(self.unknown)}")
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())
