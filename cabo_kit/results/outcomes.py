"""Per-rule outcomes of a tournament: how each bot used (and suffered) each rule, per preset.

Counts come from the ``seats`` frame of the tournament store (one row per game and seat).
Every rate comes with a 95% interval:

* a proportion (``k`` successes out of ``n`` trials, at most one per trial: Cabo calls that
  won, rounds with a call, rounds ended by the deck, games with a fault, ...) gets the
  Wilson score interval (:func:`wilson`);
* a count that can happen several times per round (snaps tried, powers used, failed
  multi-exchanges) is a Poisson rate per round and gets the score interval of the Poisson
  mean (:func:`poisson_score`), Wilson's method applied to counts.

>>> import pandas as pd
>>> seats = pd.DataFrame({"bot": ["A", "A"], "preset": "deluxe", "game_id": ["g1", "g2"],
...     "status": ["ok", "timeout"], "rounds": [5, 3], "cabo_calls": [2, 1], "cabo_wins": [1, 1],
...     "kamikaze": 0, "royal_roulette": 0, "resets": [1, 0], "snaps": 0, "snaps_right": 0,
...     "failed_multi_exchanges": [1, 0], "powers_used": [4, 2], "deck_outs": [1, 0],
...     "round_score_sum": [40, 30], "total": [40, 30]})
>>> row = per_rule(seats).iloc[0]
>>> int(row["cabo_calls"]), round(float(row["cabo_success"]), 3), int(row["faults"]), int(row["faults_timeout"])
(3, 0.667, 1, 1)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - typing only
    import numpy as np
    import pandas as pd

__all__ = ["FAULT_KINDS", "RATES", "fair_win", "fault_flags", "per_rule", "poisson_score", "wilson"]

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""

FAULT_KINDS = ("error", "timeout", "illegal", "crash")
"""The seat statuses that mean the bot faulted (and so lost that game)."""

_NOT_A_FAULT = ("ok", "")


def fault_flags(seats: "pd.DataFrame") -> "tuple[np.ndarray, np.ndarray]":
    """Two boolean arrays over the rows of ``seats``: the seat faulted, and its game ended by a fault.

    A seat faulted when its ``status`` is anything but ``ok`` (a kind of :data:`FAULT_KINDS`);
    a game ended by a fault when any of its seats (rows of one ``game_id``) faulted. This is how
    every score of a tournament reads a game: a faulted game is a loss of the faulting seat
    against every other seat and nothing among the others, whose game did not end normally. A
    frame without ``status`` has no fault; without ``game_id`` each row is its own game.

    >>> import pandas as pd
    >>> seats = pd.DataFrame({"game_id": ["g1", "g1", "g1", "g2", "g2"],
    ...                       "status": ["ok", "timeout", "ok", "ok", "ok"]})
    >>> [a.tolist() for a in fault_flags(seats)]
    [[False, True, False, False, False], [True, True, True, False, False]]
    """
    import numpy as np

    if "status" not in seats.columns:
        none = np.zeros(len(seats), dtype=bool)
        return none, none.copy()
    faulter = ~seats["status"].fillna("ok").astype(str).isin(_NOT_A_FAULT).to_numpy()
    if "game_id" not in seats.columns:
        return faulter, faulter.copy()
    import pandas as pd

    flags = pd.Series(faulter, index=seats.index)
    in_faulted = flags.groupby(seats["game_id"].to_numpy(), sort=False).transform("max").to_numpy(dtype=bool)
    return faulter, in_faulted


def fair_win(seats: "pd.DataFrame") -> "np.ndarray":
    """Each seat's win share as every score reads it, derived from the statuses and ranks, not from a stored ``win``.

    (A hand-made frame without ``rank`` and ``game_id`` keeps its ``win`` column, with the faults
    applied as below.)

    A game that ended normally: ``1/k`` for each of its ``k`` seats of the best ``rank``, 0 for
    the others. A game that ended by a fault: 0 for the faulting seat (it lost to everyone) and
    NaN for the other seats: their game did not end, so it counts neither as a win nor as a loss
    in their win rate (``mean`` skips it). Stores written before this rule kept a shared win for
    the other seats at their totals at the fault; this reads them fairly.

    >>> import pandas as pd
    >>> seats = pd.DataFrame({"game_id": ["g1"] * 3 + ["g2"] * 3, "rank": [1, 3, 1, 1, 2, 3],
    ...                       "win": [0.5, 0.0, 0.5, 1.0, 0.0, 0.0],
    ...                       "status": ["ok", "error", "ok", "ok", "ok", "ok"]})
    >>> fair_win(seats).tolist()
    [nan, 0.0, nan, 1.0, 0.0, 0.0]
    """
    import numpy as np

    import pandas as pd

    faulter, in_faulted = fault_flags(seats)
    if "rank" in seats.columns and "game_id" in seats.columns:
        games = seats["game_id"].to_numpy()
        rank = seats["rank"].to_numpy(dtype=float)
        best = seats["rank"].groupby(games, sort=False).transform("min").to_numpy(dtype=float)
        first = rank == best
        tied = pd.Series(first, index=seats.index).groupby(games, sort=False).transform("sum").to_numpy(dtype=float)
        win = np.where(first, 1.0 / np.maximum(tied, 1.0), 0.0)
    else:
        win = seats["win"].to_numpy(dtype=float).copy()
    win[in_faulted] = np.nan
    win[faulter] = 0.0
    return win

RATES: dict[str, tuple[str, str, str, str, str | None]] = {
    # name: (numerator column, denominator column, interval kind, what it means, the rule it needs)
    "cabo_success": ("cabo_wins", "cabo_calls", "wilson", "Cabo calls that won the round", None),
    "cabo_rate": ("cabo_calls", "rounds", "wilson", "rounds in which the bot called Cabo", None),
    "kamikaze_rate": ("kamikaze", "rounds", "wilson", "rounds ended with a Kamikaze hand", "kamikaze"),
    "royal_roulette_rate": ("royal_roulette", "rounds", "wilson", "rounds ended with Royal Roulette", "royal_roulette"),
    "reset_rate": ("resets", "rounds", "wilson", "rounds after which the total was reset to 50", "reset_at_100"),
    "snap_accuracy": ("snaps_right", "snaps", "wilson", "snaps that matched", "snapping"),
    "snaps_per_round": ("snaps", "rounds", "poisson", "snaps tried per round", "snapping"),
    "failed_multi_per_round": ("failed_multi_exchanges", "rounds", "poisson", "failed multi-exchanges per round",
                               "multi_exchange"),
    "multi_failure_rate": ("failed_multi_exchanges", "multi_exchanges", "wilson", "multi-exchanges that failed",
                           "multi_exchange"),
    "powers_per_round": ("powers_used", "rounds", "poisson", "powers used per round", None),
    "deck_out_rate": ("deck_outs", "rounds", "wilson", "rounds ended by the deck running out", None),
    "fault_rate": ("faults", "games", "wilson", "games lost to a fault of this bot", None),
}
"""Every rate :func:`per_rule` reports: ``name -> (numerator, denominator, interval, meaning, rule)``.
``rule`` names the :class:`~cabo_kit.rules.Rules` field that must be on for the rate to mean
anything (Kamikaze only exists in deluxe, say); where the preset's rules have it off, the rate
and its interval are NaN. ``multi_failure_rate`` appears only when the frame has a
``multi_exchanges`` column."""


def _rule_flags(seats: "pd.DataFrame") -> dict[str, dict[str, bool]]:
    """``{preset: {rules field: on?}}`` for the fields :data:`RATES` depend on (on if any variant has it on)."""
    import json

    from ..rules import Rules

    fields = {rule for *_, rule in RATES.values() if rule}
    flags: dict[str, dict[str, bool]] = {}
    pairs = seats[["preset", "rules"]].drop_duplicates() if "rules" in seats.columns else seats[["preset"]].drop_duplicates()
    for row in pairs.itertuples(index=False):
        preset = str(row.preset)
        try:
            rules = Rules.preset(preset)
            diff = json.loads(getattr(row, "rules", "{}") or "{}")
            if diff:
                rules = rules.replace(**diff)
        except (ValueError, TypeError, KeyError):
            continue  # a preset this version does not know: show every rate rather than guess
        mine = flags.setdefault(preset, dict.fromkeys(fields, False))
        for f in fields:
            mine[f] = mine[f] or bool(getattr(rules, f, True))
    return flags


_COUNTS = (
    "rounds", "cabo_calls", "cabo_wins", "kamikaze", "royal_roulette", "resets", "snaps", "snaps_right",
    "failed_multi_exchanges", "powers_used", "deck_outs", "round_score_sum",
)


def wilson(k: "np.ndarray | float", n: "np.ndarray | float", z: float = Z95) -> "tuple[np.ndarray, np.ndarray]":
    """The Wilson score interval of a proportion ``k / n`` (vectorised; NaN where ``n == 0``).

    >>> low, high = wilson(0, 10)
    >>> round(float(low), 4), round(float(high), 4)
    (0.0, 0.2775)
    >>> low, high = wilson(5, 10)
    >>> round(float(low), 4), round(float(high), 4)
    (0.2366, 0.7634)
    """
    import numpy as np

    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        z2 = z * z
        centre = (p + z2 / (2 * n)) / (1 + z2 / n)
        half = z * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
        low = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        high = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    return low, high


def poisson_score(k: "np.ndarray | float", n: "np.ndarray | float", z: float = Z95) -> "tuple[np.ndarray, np.ndarray]":
    """The score interval of a Poisson rate: ``k`` events over an exposure of ``n`` (e.g. rounds).

    Solves ``(k - n r)^2 = z^2 n r`` for the rate ``r``; NaN where ``n == 0``.

    >>> low, high = poisson_score(0, 10)
    >>> round(float(low), 4), round(float(high), 4)
    (0.0, 0.3841)
    """
    import numpy as np

    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        z2 = z * z
        centre = k + z2 / 2
        half = z * np.sqrt(k + z2 / 4)
        low = np.where(n > 0, np.maximum((centre - half) / n, 0.0), np.nan)
        high = np.where(n > 0, (centre + half) / n, np.nan)
    return low, high


def per_rule(seats: "pd.DataFrame", z: float = Z95) -> "pd.DataFrame":
    """Per bot and preset: counts, rates with 95% intervals, and faults by kind.

    One row per ``(bot, preset)``, sorted by preset then bot. Columns: ``bot, preset, games``,
    the summed counts (``rounds, cabo_calls, cabo_wins, kamikaze, royal_roulette, resets,
    snaps, snaps_right, failed_multi_exchanges, powers_used, deck_outs``), ``mean_round_score``
    (sum of round scores / rounds), ``mean_total`` (final totals of the games that ended normally:
    a game stopped by a fault has none; NaN if no game of the bot ended normally), ``faults`` and
    ``faults_<kind>`` for each of :data:`FAULT_KINDS`, and for each rate in :data:`RATES` the
    columns ``<rate>``, ``<rate>_low``, ``<rate>_high`` (NaN when its denominator is 0, e.g.
    the success rate of a bot that never called Cabo, or when the preset's rules do not have
    the rule: no Kamikaze rate in rush).

    >>> import pandas as pd
    >>> seats = pd.DataFrame({"bot": "A", "preset": "rush", "game_id": ["g1"], "status": ["ok"],
    ...     "rounds": [4], "cabo_calls": [0], "cabo_wins": [0], "kamikaze": 0, "royal_roulette": 0,
    ...     "resets": 0, "snaps": [3], "snaps_right": [2], "failed_multi_exchanges": 0,
    ...     "powers_used": [5], "deck_outs": 0, "round_score_sum": [28], "total": [28]})
    >>> row = per_rule(seats).iloc[0]
    >>> round(float(row["snap_accuracy"]), 3), float(row["mean_round_score"]), bool(pd.isna(row["cabo_success"]))
    (0.667, 7.0, True)
    """
    import numpy as np
    import pandas as pd

    needed = ("bot", "preset", "status") + _COUNTS
    missing = [c for c in needed if c not in seats.columns]
    if missing:
        raise ValueError(
            f"per_rule needs the seats frame's columns {list(needed)}; missing {missing} "
            f"(load the frame with cabo_kit.tournament.store.load_frames)"
        )
    counts = list(_COUNTS) + (["multi_exchanges"] if "multi_exchanges" in seats.columns else [])
    df = seats[["bot", "preset", "status"] + counts + (["total"] if "total" in seats.columns else [])].copy()
    if "total" in df.columns:
        # A faulted game stopped early: its totals are nobody's final total.
        df["total"] = df["total"].astype(float).where(~fault_flags(seats)[1])
    df["games"] = 1
    df["faults"] = fault_flags(df)[0].astype(int)
    for kind in FAULT_KINDS:
        df[f"faults_{kind}"] = (df["status"] == kind).astype(int)
    summed = ["games"] + counts + ["faults"] + [f"faults_{kind}" for kind in FAULT_KINDS]
    grouped = df.groupby(["preset", "bot"], sort=True)
    out = grouped[summed].sum()
    if "total" in df.columns:
        out["mean_total"] = grouped["total"].mean()
    out["mean_round_score"] = out["round_score_sum"] / out["rounds"].where(out["rounds"] > 0)
    flags = _rule_flags(seats)
    presets = out.index.get_level_values("preset")
    for name, (num, den, kind, _meaning, rule) in RATES.items():
        if num not in out.columns or den not in out.columns:
            continue
        k = out[num].to_numpy(dtype=float)
        n = out[den].to_numpy(dtype=float)
        if rule is not None:
            applies = np.array([flags.get(str(p), {}).get(rule, True) for p in presets], dtype=bool)
            n = np.where(applies, n, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[name] = np.where(n > 0, k / np.where(n > 0, n, 1.0), np.nan)
        low, high = (wilson if kind == "wilson" else poisson_score)(k, n, z)
        out[f"{name}_low"] = low
        out[f"{name}_high"] = high
    out = out.reset_index()
    front = ["bot", "preset", "games"]
    return out[front + [c for c in out.columns if c not in front]]

