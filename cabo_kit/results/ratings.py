"""Ratings of a tournament's bots: Bradley-Terry Elo with bootstrap intervals, online Elo, OpenSkill.

Every function takes the ``seats`` frame of the tournament store (one row per game and seat;
see ``docs/tournaments.md``) and rates each preset on its own: results are never pooled
across presets, because a bot's strength under deluxe rules says nothing about rush.

A game of ``k`` players is read as its ``k(k-1)/2`` pairwise outcomes: the lower ``rank``
beats the higher, an equal rank is a draw (half a win each). Pairs of seats held by the same
bot are skipped. A game that a bot's fault ended (a seat's ``status`` other than ``ok``) is a
loss of the faulting seat against every other seat and nothing among the others, whose game
did not end normally; this is read from the statuses, so a store written before this rule is
scored the same way (:func:`~cabo_kit.results.outcomes.fault_flags`).

>>> import pandas as pd
>>> seats = pd.DataFrame({
...     "game_id": ["g1", "g1", "g2", "g2"], "deal_id": ["d1", "d1", "d1", "d1"],
...     "game_index": [0, 0, 1, 1], "preset": "rush", "bot": ["A", "B", "B", "A"],
...     "rank": [1, 2, 2, 1], "win": [1.0, 0.0, 0.0, 1.0]})
>>> board = fit_elo(seats, anchor="B", bootstrap=20)
>>> board[["bot", "elo", "games", "win_rate"]].round(0)
  bot     elo  games  win_rate
0   A  1686.0      2       1.0
1   B  1000.0      2       0.0

By default (``anchor=None``) the ratings are centred on the field: the mean of the bots whose
ratings the results bound on both sides is 1000, and a bot separated from them by a gap that
only rare upsets measure gets a one-sided bound (see :func:`fit_elo`).
"""

from __future__ import annotations

import math
import warnings
import zlib
from typing import TYPE_CHECKING, Any

from .outcomes import fair_win, fault_flags

if TYPE_CHECKING:  # pragma: no cover - typing only; numpy/pandas load when a function runs
    import numpy as np
    import pandas as pd

__all__ = [
    "BOARD_COLUMNS", "ELO_SCALE", "GAP_EVIDENCE", "PRIOR_GAMES", "UPSET_SHARE", "anchor_shift", "field_tiers",
    "half_width", "precision_needs", "bradley_terry", "elo_history", "fit_elo", "openskill", "openskill_ratings",
    "pairwise_outcomes", "pairwise_table", "ranks_of",
]

ELO_SCALE = 400.0 / math.log(10.0)
"""Elo points per unit of Bradley-Terry log-strength (a 400-point gap means 10:1 odds)."""

PRIOR_GAMES = 0.1
"""Weight of the regularising prior: each bot plays this many virtual comparisons, drawn,
against a virtual opponent of log-strength 0. It keeps a bot that never lost (or never won)
at a finite rating (about ``ELO_SCALE * ln(2 n / PRIOR_GAMES)`` above its opponents after
``n`` straight wins).

It is kept small because it is not negligible where it matters most: a bot's distance to a
much stronger group is measured only by its rare wins against it ("upsets"), and a prior of
``a`` virtual games lends each bot about ``a / 2`` virtual wins, i.e. ``a / 2`` upsets' worth
of evidence per bot. With ``a = 1`` a group of 10 weak copies got 5 virtual upsets against a
handful of real ones: in a simulated class of 10 random-like bots 1400 Elo below 20 others
(about 4 real upsets at 640 games per bot) the weak bots were rated 95 Elo too high and their
95% intervals covered the truth 9% of the time; with ``a = 0.1`` the bias is gone (-1 Elo) and
the intervals, honestly much wider, cover about 85%. Where upsets are plentiful (gaps of a few
hundred Elo) the prior changes nothing visible. (``benchmarks/elo_precision.py --coverage``.)"""

UPSET_SHARE = 0.02
"""Below this share of upsets a gap between two groups of bots counts as measured on one side only.

Sort a preset's bots by Elo and cut the list anywhere: the comparisons across the cut won by the
lower part are upsets. When they are under 2% of the comparisons across the cut (a gap of about
680 Elo or more), the gap's size rests on those few upsets alone: its standard error in Elo is
about ``174 / sqrt(upsets)``, so a ±50 interval would need some 45 upsets, i.e. thousands of games
that tell nothing else (the random copies of a class: 23 upsets in 53,000 comparisons in rush). The
bots on the smaller side of such a cut get an honest one-sided bound ("below 310": the upper end
of their bootstrap interval, which the upsets do not affect much), the larger side is the field
that the ratings are centred on, and a precision target never waits on a one-sided bound."""

GAP_EVIDENCE = 50
"""Comparisons across a cut below which :func:`field_tiers` declares no gap, whatever the upsets.

After a handful of games two close bots can easily show no upset (a bot that won its 4 games
against another): that is no evidence of a gap only rare upsets can measure, and declaring one
would leave the loser out of the field and out of a precision target. With 50 comparisons and
no upset, a true upset rate of 10% would have shown one with 99.5% probability."""

_SEATS_NEEDED = ("game_id", "deal_id", "preset", "bot", "rank")


def _require(seats: "pd.DataFrame", columns: tuple[str, ...], what: str) -> None:
    missing = [c for c in columns if c not in seats.columns]
    if missing:
        raise ValueError(
            f"{what} needs the seats frame's columns {list(columns)}; missing {missing} "
            f"(load the frame with cabo_kit.tournament.store.load_frames)"
        )


def pairwise_outcomes(seats: "pd.DataFrame") -> "pd.DataFrame":
    """Every pairwise outcome inside every game: one row per pair of seats held by different bots.

    Columns: ``preset, game_id, deal_id, game_index, a, b, score`` where ``score`` is
    1 if ``a`` ranked better than ``b``, 0.5 on equal rank, 0 otherwise; ``a < b`` by name.
    In a game ended by a fault only the faulting seat's pairs are there, each a loss of the
    faulting seat, whatever the ranks (here Y faulted in g2, so X and Z have no result in it):

    >>> import pandas as pd
    >>> seats = pd.DataFrame({"game_id": ["g"] * 3, "deal_id": ["d"] * 3, "preset": "rush",
    ...                       "bot": ["X", "Y", "Z"], "rank": [2, 1, 2]})
    >>> pairwise_outcomes(seats)[["a", "b", "score"]]
       a  b  score
    0  X  Y    0.0
    1  X  Z    0.5
    2  Y  Z    1.0
    >>> g2 = seats.assign(game_id="g2", rank=[1, 3, 2], status=["ok", "timeout", "ok"])
    >>> pairwise_outcomes(g2)[["a", "b", "score"]]
       a  b  score
    0  X  Y    1.0
    1  Y  Z    0.0
    """
    import numpy as np
    import pandas as pd

    _require(seats, _SEATS_NEEDED, "pairwise_outcomes")
    cols = ["preset", "game_id", "deal_id", "a", "b", "score", "game_index"]
    if seats.empty:
        return pd.DataFrame({c: pd.Series(dtype=float if c == "score" else object) for c in cols})
    df = seats.copy()
    if "game_index" not in df.columns:
        df["game_index"] = 0
    if "seat" not in df.columns:
        df["seat"] = df.groupby("game_id", sort=False).cumcount()
    df = df.sort_values(["game_id", "seat"], kind="stable").reset_index(drop=True)
    faulter, in_faulted = fault_flags(df)
    sizes = df.groupby("game_id", sort=False)["bot"].transform("size").to_numpy()
    parts: list[pd.DataFrame] = []
    # Games of one table size reshape into a (games, size) block: all pairs at once, no Python loop per game.
    for size in np.unique(sizes):
        if size < 2:
            continue
        of_size = sizes == size
        block = df[of_size]
        n_games = len(block) // size
        bots = block["bot"].to_numpy(dtype=object).reshape(n_games, size)
        ranks = block["rank"].to_numpy(dtype=float).reshape(n_games, size)
        faulted = faulter[of_size].reshape(n_games, size)
        first = block.iloc[::size]
        ia, ib = np.triu_indices(size, k=1)
        ba, bb = bots[:, ia].ravel(), bots[:, ib].ravel()
        ra, rb = ranks[:, ia].ravel(), ranks[:, ib].ravel()
        fa, fb = faulted[:, ia].ravel(), faulted[:, ib].ravel()
        score = np.where(ra < rb, 1.0, np.where(ra == rb, 0.5, 0.0))
        # A game ended by a fault: its faulting seat lost to every other seat, whatever the
        # totals when it stopped; the other seats' game did not end, so their pairs say nothing.
        game_faulted = np.repeat(in_faulted[of_size][::size], len(ia))
        score = np.where(game_faulted, np.where(fa, 0.0, 1.0), score)
        counts = ~game_faulted | (fa != fb)
        swap = ba > bb
        a = np.where(swap, bb, ba)
        b = np.where(swap, ba, bb)
        score = np.where(swap, 1.0 - score, score)
        rep = len(ia)
        parts.append(pd.DataFrame({
            "preset": np.repeat(first["preset"].to_numpy(dtype=object), rep)[counts],
            "game_id": np.repeat(first["game_id"].to_numpy(dtype=object), rep)[counts],
            "deal_id": np.repeat(first["deal_id"].to_numpy(dtype=object), rep)[counts],
            "a": a[counts], "b": b[counts], "score": score[counts],
            "game_index": np.repeat(first["game_index"].to_numpy(), rep)[counts],
        }))
    if not parts:
        return pd.DataFrame({c: pd.Series(dtype=float if c == "score" else object) for c in cols})
    out = pd.concat(parts, ignore_index=True)
    out = out[out["a"] != out["b"]]
    return out.sort_values(["preset", "game_index", "game_id", "a", "b"], kind="stable").reset_index(drop=True)[cols]


def bradley_terry(
    wins: "np.ndarray", prior_games: float = PRIOR_GAMES, start: "np.ndarray | None" = None
) -> "np.ndarray":
    """Maximum-likelihood Bradley-Terry log-strengths from a matrix of (possibly fractional) wins.

    ``wins[i, j]`` is how often ``i`` beat ``j`` (a draw adds 0.5 to both cells). Returns
    ``theta`` with ``P(i beats j) = 1 / (1 + exp(theta[j] - theta[i]))``. The fit is Newton's
    method with step halving on the log-likelihood plus the prior of :data:`PRIOR_GAMES`
    (drawn virtual games against a fixed opponent at 0), which makes the problem strictly
    concave: the optimum exists, is unique and finite even for an unbeaten bot or a
    disconnected comparison graph.

    >>> import numpy as np
    >>> theta = bradley_terry(np.array([[0.0, 30.0], [10.0, 0.0]]), prior_games=0.0)
    >>> round(float(theta[0] - theta[1]), 4) == round(math.log(3.0), 4)
    True
    """
    import numpy as np

    w = np.asarray(wins, dtype=float)
    n = w.shape[0] if w.ndim == 2 else -1
    if w.shape != (n, n):
        raise ValueError(f"bradley_terry needs a square wins matrix, got shape {w.shape}")
    first = np.zeros((1, n)) if start is None else np.array(start, dtype=float).reshape(1, n)
    return _bradley_terry_batch(w[None], prior_games, first)[0]


def _bradley_terry_batch(w: "np.ndarray", prior_games: float, start: "np.ndarray") -> "np.ndarray":
    """:func:`bradley_terry` for a stack of wins matrices ``w[r]`` at once (the bootstrap's replicates).

    Each replicate follows exactly the scalar method (its own Newton steps, trust region and
    step halving), so a replicate's result does not depend on the others in the stack; the
    work is batched only to spare the Python loop.
    """
    import numpy as np

    reps, n = w.shape[0], w.shape[1]
    games = w + w.transpose(0, 2, 1)
    won = w.sum(axis=2)
    a = float(prior_games)
    theta = np.array(start, dtype=float).reshape(reps, n)
    diag = np.arange(n)

    def objective(t: "np.ndarray", rows: "np.ndarray") -> "np.ndarray":
        d = t[:, :, None] - t[:, None, :]
        # log P(i beats j) = -log(1 + exp(-(ti - tj))), summed over i's wins.
        ll = -(w[rows] * np.logaddexp(0.0, -d)).sum(axis=(1, 2))
        ll += a * (0.5 * t - np.logaddexp(0.0, t)).sum(axis=1)
        return ll

    value = objective(theta, np.arange(reps))
    active = np.ones(reps, dtype=bool)
    for _ in range(200):
        rows = np.flatnonzero(active)
        if len(rows) == 0:
            break
        t = theta[rows]
        d = t[:, :, None] - t[:, None, :]
        p = _sigmoid(d)
        q = _sigmoid(t)
        g = games[rows]
        grad = won[rows] - (g * p).sum(axis=2) + a * (0.5 - q)
        curv = g * p * p.transpose(0, 2, 1)
        # The negated Hessian: a graph Laplacian plus the prior's diagonal, positive semi-definite.
        neg_hess = -curv
        neg_hess[:, diag, diag] += curv.sum(axis=2) + a * q * (1.0 - q)
        if a <= 0.0:
            # Without the prior the likelihood is flat along theta + c: pin the mean.
            neg_hess = neg_hess + 1.0 / max(n, 1)
        step, ok = _newton_steps(neg_hess, grad)
        # A trust region: a Newton step on the flat tails of the logistic can be astronomically
        # long (e.g. a bot with no games in a bootstrap replicate, started far from 0).
        longest = np.max(np.abs(step), axis=1) if n else np.zeros(len(rows))
        step = step * np.where(longest > _MAX_STEP, _MAX_STEP / np.maximum(longest, _MAX_STEP), 1.0)[:, None]
        scale = np.ones(len(rows))
        improved = np.zeros(len(rows), dtype=bool)
        pending = ok.copy()
        new_value = value[rows].copy()
        while pending.any():
            idx = np.flatnonzero(pending)
            trial = t[idx] + scale[idx, None] * step[idx]
            trial_value = objective(trial, rows[idx])
            better = trial_value >= value[rows[idx]] - 1e-12
            good = idx[better]
            improved[good] = True
            new_value[good] = trial_value[better]
            pending[good] = False
            worse = idx[~better]
            scale[worse] *= 0.5
            pending[worse[scale[worse] < 1e-8]] = False
        moved = scale[:, None] * step
        done = ~improved | (np.max(np.abs(moved), axis=1, initial=0.0) < 1e-10)
        upd = rows[improved]
        theta[upd] = t[improved] + moved[improved]
        value[upd] = new_value[improved]
        active[rows[done]] = False
    if a <= 0.0:
        theta = theta - theta.mean(axis=1, keepdims=True)
    return theta


_MAX_STEP = 4.0
"""Longest Newton step, in log-strength units (about 700 Elo), that :func:`bradley_terry` takes at once."""


_BATCH_CELLS = 1_000_000
"""How many wins-matrix cells :func:`fit_elo` fits at once (replicates x bots x bots): bounds the memory."""


def _sigmoid(x: "np.ndarray") -> "np.ndarray":
    """``1 / (1 + exp(-x))`` without overflow for any finite ``x``."""
    import numpy as np

    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _newton_steps(neg_hess: "np.ndarray", grad: "np.ndarray") -> "tuple[np.ndarray, np.ndarray]":
    """Solve ``neg_hess[r] @ step[r] = grad[r]`` for each replicate; a tiny ridge keeps a (nearly) singular system solvable.

    Returns the steps and which are usable: a replicate with a non-finite gradient or step is
    not (its fit ends there).
    """
    import numpy as np

    reps, n = grad.shape
    ok = np.isfinite(grad).all(axis=1) & np.isfinite(neg_hess).all(axis=(1, 2))
    step = np.zeros_like(grad)
    if not ok.any():
        return step, ok
    h, g = neg_hess[ok], grad[ok]
    trace = np.trace(h, axis1=1, axis2=2)
    ridge = 1e-9 * np.maximum(1.0, trace / max(n, 1))
    system = h + ridge[:, None, None] * np.eye(n)
    try:
        solved = np.linalg.solve(system, g[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:
        solved = np.stack([np.linalg.lstsq(m, v, rcond=None)[0] for m, v in zip(system, g)])
    step[ok] = solved
    ok &= np.isfinite(step).all(axis=1)
    step[~ok] = 0.0
    return step, ok


def anchor_shift(elo: "np.ndarray", bots: list[str], anchor: "str | np.ndarray | None") -> "np.ndarray":
    """Shift Elo rows (last axis = bots) so ``anchor`` sits at 1000: a bot's name, or a boolean mask of
    the bots whose mean is 1000 (``None``: all of them). :func:`fit_elo` centres its ratings with it; the portal's
    live board (:mod:`cabo_kit.portal.live`) does the same to its own point fits.

    >>> import numpy as np
    >>> anchor_shift(np.array([1200.0, 1400.0]), ["A", "B"], "B").tolist()
    [800.0, 1000.0]
    >>> anchor_shift(np.array([1200.0, 1400.0, 0.0]), ["A", "B", "C"], np.array([True, True, False])).tolist()
    [900.0, 1100.0, -300.0]
    """
    import numpy as np

    if isinstance(anchor, str):
        if anchor in bots:
            return elo - elo[..., [bots.index(anchor)]] + 1000.0
        anchor = None
    if anchor is None or not np.any(anchor):
        return elo - np.nanmean(elo, axis=-1, keepdims=True) + 1000.0
    with warnings.catch_warnings():  # a replicate that drew none of the field's deals stays NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        centre = np.nanmean(elo[..., np.asarray(anchor, dtype=bool)], axis=-1, keepdims=True)
    return elo - centre + 1000.0


def field_tiers(wins: "np.ndarray", elo: "np.ndarray", upset_share: float = UPSET_SHARE,
                core: int | None = None) -> "np.ndarray":
    """Which bots form the field (0), and which sit above (1) or below (-1) it across a one-sided gap.

    ``wins[i, j]``: comparisons ``i`` won against ``j`` (draws half each), ``elo`` the estimates.
    The bots are sorted by ``elo``; a cut of that list is a gap when the lower part won under
    ``upset_share`` of at least :data:`GAP_EVIDENCE` comparisons across it (or there were none). The gaps split the list
    into groups; the largest group (the higher one on a tie) is the field, or the group of bot
    ``core`` when given (a named anchor: the bots its results measure), and the bots above and
    below it are rated on one side only (:data:`UPSET_SHARE` says why).

    >>> import numpy as np
    >>> wins = np.array([[0, 60, 300], [40, 0, 300], [1, 1, 0]])   # C won 2 of 600 against A and B
    >>> field_tiers(wins, np.array([1100.0, 1060.0, 300.0])).tolist()
    [0, 0, -1]
    >>> field_tiers(wins, np.array([1100.0, 1060.0, 300.0]), core=2).tolist()   # measured from C: A and B above
    [1, 1, 0]
    """
    import numpy as np

    w = np.asarray(wins, dtype=float)
    n = len(elo)
    tier = np.zeros(n, dtype=np.int64)
    if n < 2:
        return tier
    order = sorted(range(n), key=lambda i: (-float(elo[i]), i))
    cuts = []
    for c in range(1, n):
        upper, lower = order[:c], order[c:]
        upsets = float(w[np.ix_(lower, upper)].sum())
        total = upsets + float(w[np.ix_(upper, lower)].sum())
        if total <= 0.0 or (total >= GAP_EVIDENCE and upsets < upset_share * total):
            cuts.append(c)
    bounds = [0, *cuts, n]
    groups = [(bounds[g + 1] - bounds[g], -g, g) for g in range(len(bounds) - 1)]
    if core is None:
        _, _, group = max(groups)
    else:
        at = order.index(core)
        group = max(g for g in range(len(bounds) - 1) if bounds[g] <= at)
    for pos, i in enumerate(order):
        tier[i] = 1 if pos < bounds[group] else -1 if pos >= bounds[group + 1] else 0
    return tier


def half_width(board: "pd.DataFrame") -> "pd.Series":
    """Each row's half-width ``max(elo - elo_low, elo_high - elo)``; NaN for a one-sided or missing interval.

    This is the "±" a precision target compares (``precision = 50``: every finite value <= 50).

    >>> import pandas as pd
    >>> b = pd.DataFrame({"elo": [1000.0, 300.0], "elo_low": [960.0, float("-inf")], "elo_high": [1050.0, 500.0]})
    >>> half_width(b).tolist()
    [50.0, nan]
    """
    import numpy as np

    h = np.maximum(board["elo"] - board["elo_low"], board["elo_high"] - board["elo"])
    return h.where(np.isfinite(h))


def _unbounded(wins: "np.ndarray", anchor: "int | np.ndarray | None") -> tuple["np.ndarray", "np.ndarray"]:
    """Which ratings the results leave unbounded above, and which below (as boolean arrays).

    ``wins[x, y] > 0`` (``x`` beat ``y`` at least once; a draw counts both ways) is an edge
    ``x -> y``. A rating can rise without limit while no one outside a group containing it
    ever beat anyone inside: ``b`` is bounded above only if the anchor reaches ``b`` along such
    edges (a chain of wins from the anchor down to ``b``), and below only if ``b`` reaches the
    anchor. Without an anchor (the mean at 1000) every bot must reach, and be reached by, all
    the others.

    >>> import numpy as np
    >>> wins = np.array([[0, 2, 0], [0, 0, 1], [0, 0, 0]])   # 0 beat 1 beat 2
    >>> above, below = _unbounded(wins, anchor=1)
    >>> above.tolist(), below.tolist()                      # nothing bounds 0 above or 2 below
    ([True, False, False], [False, False, True])
    """
    import numpy as np

    beat = np.asarray(wins) > 0
    n = beat.shape[0]

    def reach(start: int, edges: "np.ndarray") -> "np.ndarray":
        seen = np.zeros(n, dtype=bool)
        seen[start] = True
        frontier = seen.copy()
        while frontier.any():
            nxt = edges[frontier].any(axis=0) & ~seen
            seen |= nxt
            frontier = nxt
        return seen

    above = np.zeros(n, dtype=bool)
    below = np.zeros(n, dtype=bool)
    if anchor is not None and not isinstance(anchor, np.ndarray):
        above = ~reach(anchor, beat)      # not reached by the anchor's chains of wins
        below = ~reach(anchor, beat.T)    # no chain of wins from the bot to the anchor
        above[anchor] = below[anchor] = False
        return above, below
    field = np.ones(n, dtype=bool) if anchor is None else np.asarray(anchor, dtype=bool)
    for c in np.flatnonzero(field):
        above |= ~reach(int(c), beat)     # some bot of the field never (even indirectly) beat it
        below |= ~reach(int(c), beat.T)   # it never (even indirectly) beat some bot of the field
    return above, below


def fit_elo(
    seats: "pd.DataFrame",
    anchor: str | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    prior_games: float = PRIOR_GAMES,
    level: float = 0.95,
    upset_share: float = UPSET_SHARE,
) -> "pd.DataFrame":
    """Elo per bot and preset from a Bradley-Terry fit, with bootstrap confidence and rank intervals.

    For each preset: the pairwise outcomes of its games (:func:`pairwise_outcomes`) are fitted
    by :func:`bradley_terry` and turned into Elo points (:data:`ELO_SCALE`). By default
    (``anchor=None``) they are centred on the field: :func:`field_tiers` finds the bots that rare
    upsets alone separate from the rest (under ``upset_share`` of the comparisons across the
    gap), the mean of the others is 1000, and the separated bots get a one-sided interval
    (``elo_low = -inf``: "below ``elo_high``", or ``elo_high = inf``: "above ``elo_low``"). So a
    bot's interval carries its own uncertainty, not that of a gap it is not part of; the
    estimate of a separated bot stays in the table (``upset_share=0`` centres on every bot).
    With ``anchor`` a bot's name, that bot is 1000 instead (where it played that preset) and
    every interval is relative to it: a bot's rating then keeps its value when others join, but
    its interval carries the anchor's uncertainty too; the field is the anchor's group, and the
    bots that rare upsets alone separate from it are one-sided as above. The interval is the percentile interval of ``bootstrap`` refits on the preset's deals drawn
    with replacement: a deal's seat rotations always move together, so the interval
    accounts for deals that favour one seat or one hand (the deals a fault stopped in every
    rotation, which hold only the faulting seats' losses to the others, are drawn apart from
    the other deals, each group to its own size: a bot that only faults then does not widen the
    others' intervals; the price is that the number of such deals is fixed in every replicate,
    so a bot that faults now and then gets a somewhat narrower interval than a plain
    bootstrap would give it). The default 1000 replicates keep the
    Monte Carlo noise of the 2.5% and 97.5% quantiles small (with 200, each end rests on about
    five replicates: its half-width wobbles by some 7%, which lowered the coverage of a simulated
    class from 94% to 92% and widened its widest interval). Each replicate is centred the same
    way (on the same bots), so a named anchor's own interval is [1000, 1000]. ``rank`` is a bot's
    place by Elo (1 best) and ``rank_low``..``rank_high`` its plausible places: the same
    percentiles of its place in each replicate (as Chatbot Arena shows ranks); a place does not
    depend on the centring. The
    replicates of a preset are drawn from ``numpy.random.default_rng([seed, crc32(preset)])``:
    the same frame and seed give the same table, and a preset's numbers do not depend on
    which other presets the frame holds.

    Where the results bound a rating on one side only, that end is infinite: besides the
    separated bots above, ``elo_low = -inf`` for a bot that never won a comparison (or whose
    wins never lead, through chains of wins, to the anchor or the field), ``elo_high = inf`` for
    one never beaten (see :func:`_unbounded`); the estimate itself stays finite, held by the prior.

    Columns: ``bot, preset, elo, elo_low, elo_high, rank, rank_low, rank_high, games, win_rate``
    (``games``: every game the bot sat in; ``win_rate``: the mean of
    :func:`~cabo_kit.results.outcomes.fair_win`, where a shared win counts 1/k, the bot's own
    faulted games count as lost and the games another seat's fault ended are left out), sorted by preset, then Elo,
    best first. ``board.attrs["field"]`` maps each preset to its field's bots (the anchor's group with a
    named anchor).

    >>> import pandas as pd
    >>> rows = []
    >>> for g, (first, second) in enumerate([("A", "B"), ("A", "B"), ("B", "A")]):
    ...     for bot, rank in ((first, 1), (second, 2)):
    ...         rows.append({"game_id": f"g{g}", "deal_id": f"d{g}", "game_index": g,
    ...                      "preset": "deluxe", "bot": bot, "rank": rank, "win": float(rank == 1)})
    >>> board = fit_elo(pd.DataFrame(rows), anchor="B", bootstrap=50)
    >>> list(board["bot"]), float(board["elo"].iloc[1]), board["rank"].tolist()
    (['A', 'B'], 1000.0, [1, 2])
    """
    import numpy as np
    import pandas as pd

    _require(seats, _SEATS_NEEDED, "fit_elo")
    if bootstrap < 0:
        raise ValueError(f"bootstrap must be >= 0 replicates, got {bootstrap}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1 (0.95 for 95% intervals), got {level}")
    pairs = pairwise_outcomes(seats)
    seats = seats.assign(win=fair_win(seats))
    tail = (1.0 - level) / 2.0
    frames: list[pd.DataFrame] = []
    fields: dict[str, list[str]] = {}
    for preset in sorted(seats["preset"].unique()):
        mine = seats[seats["preset"] == preset]
        bots = sorted(mine["bot"].unique())
        n = len(bots)
        index = {b: i for i, b in enumerate(bots)}
        pp = pairs[pairs["preset"] == preset]
        ia = pp["a"].map(index).to_numpy(dtype=np.int64)
        ib = pp["b"].map(index).to_numpy(dtype=np.int64)
        sc = pp["score"].to_numpy(dtype=float)
        deal_codes, deals = pd.factorize(mine["deal_id"], sort=True)
        # Deals a fault stopped in every rotation hold only the faulting seats' losses. The bootstrap
        # draws them and the other deals separately (as two strata of fixed size): drawn together, the
        # replicates would hold more or fewer of the deals that rate the other bots, widening those
        # bots' intervals by a bot that only faulted.
        stopped = np.bincount(deal_codes, weights=fault_flags(mine)[1].astype(float), minlength=len(deals))
        rows_of_deal = np.bincount(deal_codes, minlength=len(deals))
        strata = [d for d in (np.flatnonzero(stopped < rows_of_deal), np.flatnonzero(stopped == rows_of_deal)) if len(d)]
        deal_of_pair = pd.Index(deals).get_indexer(pp["deal_id"])
        n_deals = len(deals)
        cells_ab = ia * n + ib
        cells_ba = ib * n + ia

        def wins_matrix(weight: "np.ndarray | None") -> "np.ndarray":
            wa = sc if weight is None else sc * weight
            wb = (1.0 - sc) if weight is None else (1.0 - sc) * weight
            flat = np.bincount(cells_ab, weights=wa, minlength=n * n) + np.bincount(cells_ba, weights=wb, minlength=n * n)
            return flat.reshape(n, n)

        full = wins_matrix(None)
        theta = bradley_terry(full, prior_games=prior_games)
        # Each preset draws from its own stream, so adding a preset never changes another's intervals.
        rng = np.random.default_rng([seed, zlib.crc32(str(preset).encode())])
        centre: "str | np.ndarray | None" = anchor
        if anchor is not None and anchor in bots:
            tier = field_tiers(full, theta, upset_share, core=bots.index(anchor))
        else:
            tier = field_tiers(full, theta, upset_share)
            centre = tier == 0
        elo = anchor_shift(theta * ELO_SCALE, bots, centre)
        rank = ranks_of(elo[None, :])[0]
        low = np.full(n, np.nan)
        high = np.full(n, np.nan)
        rank_low = rank.astype(float)
        rank_high = rank.astype(float)
        if bootstrap > 0 and n_deals > 0 and n > 1:
            reps = np.full((bootstrap, n), np.nan)
            # Which bots appear in which deal: a bot absent from a replicate has no rating in it.
            seat_bot = mine["bot"].map(index).to_numpy(dtype=np.int64)
            present = np.zeros((n_deals, n), dtype=bool)
            present[deal_codes, seat_bot] = True
            # Replicates are fitted in stacks (one batched Newton fit each), drawn in replicate order.
            chunk = max(1, _BATCH_CELLS // max(n * n, 1))
            for first in range(0, bootstrap, chunk):
                size = min(chunk, bootstrap - first)
                counts = np.stack([np.bincount(_draw(rng, strata), minlength=n_deals).astype(float) for _ in range(size)])
                absent = (counts @ present) == 0
                stack = np.stack([wins_matrix(c[deal_of_pair]) for c in counts])
                # An absent bot's optimum is 0 (only the prior): start it there, not at its full-data rating.
                t = _bradley_terry_batch(stack, prior_games, np.where(absent, 0.0, theta[None, :]))
                block = t * ELO_SCALE
                block[absent] = np.nan
                reps[first:first + size] = block
            reps = anchor_shift(reps, bots, centre)
            places = ranks_of(reps)
            with np.errstate(all="ignore"):
                ok = ~np.all(np.isnan(reps), axis=0)
                low[ok] = np.nanquantile(reps[:, ok], tail, axis=0)
                high[ok] = np.nanquantile(reps[:, ok], 1.0 - tail, axis=0)
                rank_low[ok] = np.minimum(rank[ok], np.nanquantile(places[:, ok], tail, axis=0, method="lower"))
                rank_high[ok] = np.maximum(rank[ok], np.nanquantile(places[:, ok], 1.0 - tail, axis=0, method="higher"))
            # Where the results do not bound a rating on one side, every replicate repeats the
            # same sweep and the bootstrap would show a false, narrow interval: open that side.
            above, below = _unbounded(full, bots.index(anchor) if anchor is not None and anchor in bots else tier == 0)
            low[below | (tier < 0)] = -np.inf
            high[above | (tier > 0)] = np.inf
            if (tier != 0).any():
                low, high = _separated_bounds(tier, elo, low, high, ia, ib, sc, deal_of_pair, 1.0 - tail)
        fields[str(preset)] = [b for b, t in zip(bots, tier) if t == 0]
        stats = mine.groupby("bot")["win"].agg(["size", "mean"]).reindex(bots)
        frames.append(pd.DataFrame({
            "bot": bots, "preset": preset, "elo": elo, "elo_low": low, "elo_high": high,
            "rank": rank.astype(np.int64), "rank_low": rank_low.astype(np.int64), "rank_high": rank_high.astype(np.int64),
            "games": stats["size"].to_numpy(dtype=np.int64), "win_rate": stats["mean"].to_numpy(dtype=float),
        }))
    if not frames:
        return pd.DataFrame({c: [] for c in BOARD_COLUMNS})
    board = pd.concat(frames, ignore_index=True)
    board = board.sort_values(["preset", "elo", "bot"], ascending=[True, False, True], kind="stable")
    board = board.reset_index(drop=True)
    board.attrs["field"] = fields
    return board


def _draw(rng: "np.random.Generator", strata: "list[np.ndarray]") -> "np.ndarray":
    """One bootstrap replicate's deals: each stratum (deal indices, ascending) resampled with replacement to its own size.

    With a single stratum of all ``n`` deals this is exactly ``rng.integers(0, n, size=n)``, the
    draws of a tournament without faults.
    """
    import numpy as np

    return np.concatenate([d[rng.integers(0, len(d), size=len(d))] for d in strata])


def _separated_bounds(
    tier: "np.ndarray", elo: "np.ndarray", low: "np.ndarray", high: "np.ndarray", ia: "np.ndarray", ib: "np.ndarray",
    score: "np.ndarray", deal: "np.ndarray", confidence: float,
) -> "tuple[np.ndarray, np.ndarray]":
    """The one-sided bound of each bot outside the field, from its upsets against the field.

    The bootstrap cannot be trusted there: with a handful of upsets (or none) the estimate of the
    gap rests on the prior, and every replicate repeats it. Instead: ``u`` upsets in ``n`` deals
    against the field (a deal's comparisons, all rotations, count as one trial with the fraction
    won, because they are not independent), the Wilson upper bound ``p`` of the upset rate at
    ``confidence``, and the bound ``mean Elo of the field bots it met + ELO_SCALE * logit(p)``
    (below the field; mirrored above). Under Bradley-Terry the upset rate against a mix of
    opponents is at least that against their mean (Jensen), so the bound errs on the safe side.
    The wider of this and the bootstrap's end is kept.
    """
    from statistics import NormalDist

    import numpy as np

    from .outcomes import wilson

    low, high = low.copy(), high.copy()
    field = tier == 0
    for b in np.flatnonzero(tier != 0):
        mine_a = (ia == b) & field[ib]
        mine_b = (ib == b) & field[ia]
        won = np.r_[score[mine_a], 1.0 - score[mine_b]]
        opp = np.r_[ib[mine_a], ia[mine_b]]
        deals = np.r_[deal[mine_a], deal[mine_b]]
        if len(won) == 0:
            low[b], high[b] = -np.inf, np.inf
            continue
        codes, inverse = np.unique(deals, return_inverse=True)
        per_deal = np.bincount(inverse, weights=won) / np.bincount(inverse)
        n = len(codes)
        upsets = float(per_deal.sum()) if tier[b] < 0 else float(n - per_deal.sum())
        p = float(wilson(upsets, n, z=NormalDist().inv_cdf(confidence))[1])
        p = min(max(p, 1e-12), 1.0 - 1e-12)
        gap = ELO_SCALE * math.log(p / (1.0 - p))
        centre = float(np.mean(elo[opp]))
        if tier[b] < 0:
            high[b] = max(high[b], centre + gap) if np.isfinite(high[b]) else high[b]
        else:
            low[b] = min(low[b], centre - gap) if np.isfinite(low[b]) else low[b]
    return low, high


def precision_needs(board: "pd.DataFrame", preset: str) -> dict[str, tuple[float, float, int]]:
    """What a precision target waits on in one preset: ``bot -> (elo, half-width, games)``.

    The half-width is :func:`half_width`'s for a two-sided interval, ``inf`` for a bot that more
    games must measure, NaN for one that needs none: a bot outside the field whose one-sided bound
    stays outside the field's range (below its lowest two-sided estimate, or above its highest) is
    never waited on. ``inf`` is a bot of the field that the results do not bound yet (it never won,
    or never lost, in the few games so far), and a bot outside it whose bound still reaches into
    the field's range: a late file that lost its 9 games can be "below 1110" while the field (and
    a named anchor at 1000) sits lower; its few games do not show yet where it lies. This is
    what :func:`~cabo_kit.tournament.schedule.adaptive_matches` takes.

    >>> import pandas as pd
    >>> inf = float("inf")
    >>> b = pd.DataFrame({"bot": ["a", "b", "late", "z"], "preset": "rush", "elo": [1040.0, 960.0, 700.0, 200.0],
    ...     "elo_low": [1000.0, 900.0, -inf, -inf], "elo_high": [inf, 1010.0, 1110.0, 500.0], "games": [8, 8, 9, 8]})
    >>> b.attrs["field"] = {"rush": ["a", "b"]}
    >>> precision_needs(b, "rush")
    {'a': (1040.0, inf, 8), 'b': (960.0, 60.0, 8), 'late': (700.0, inf, 9), 'z': (200.0, nan, 8)}
    """
    import numpy as np

    mine = board[board["preset"] == preset]
    field = set(board.attrs.get("field", {}).get(preset, mine["bot"]))
    halves = half_width(mine)
    measured = [float(e) for b, e, h in zip(mine["bot"], mine["elo"], halves) if b in field and h == h]
    lowest, highest = (min(measured), max(measured)) if measured else (math.inf, -math.inf)
    out = {}
    for b, e, h, g, lo, hi in zip(mine["bot"], mine["elo"], halves, mine["games"], mine["elo_low"], mine["elo_high"]):
        if h != h:
            below, above = bool(np.isinf(lo) and lo < 0), bool(np.isinf(hi) and hi > 0)
            if b in field or (below and above) or (below and hi > lowest) or (above and lo < highest):
                h = math.inf
        out[str(b)] = (float(e), float(h), int(g))
    return out


BOARD_COLUMNS = ("bot", "preset", "elo", "elo_low", "elo_high", "rank", "rank_low", "rank_high", "games", "win_rate")
"""The columns of :func:`fit_elo`'s leaderboard (and of ``leaderboard.csv``), in order."""


def ranks_of(elo: "np.ndarray") -> "np.ndarray":
    """Each bot's place in each row of Elo ratings (1 + how many rate strictly higher: equal ratings share a place);
    NaN where the rating is NaN. :func:`fit_elo`'s ``rank`` and the places of its bootstrap replicates.

    >>> import numpy as np
    >>> ranks_of(np.array([[900.0, 1100.0, 900.0, np.nan]])).tolist()
    [[2.0, 1.0, 2.0, nan]]
    """
    import numpy as np

    e = np.asarray(elo, dtype=float)
    with np.errstate(invalid="ignore"):
        higher = (e[..., None, :] > e[..., :, None]).sum(axis=-1)
    return np.where(np.isnan(e), np.nan, 1.0 + higher)


_anchor_shift, _ranks = anchor_shift, ranks_of  # the old private names (old callers)


def elo_history(seats: "pd.DataFrame", k: float = 16.0, start: float = 1000.0) -> "pd.DataFrame":
    """An online Elo, game by game in ``game_index`` order, per preset: the "rating over time" chart.

    Every bot starts at ``start``. After a game of ``m`` players each pairwise outcome moves
    both bots by ``k / (m - 1) * (score - expected)``, so a game moves a bot by at most ``k``
    whatever the table size. A game ended by a fault has only the faulting seat's pairs (its
    losses), as in :func:`pairwise_outcomes`. Unlike :func:`fit_elo` this depends on the order of the games; it
    shows how ratings settled, not the final verdict.

    Returns one row per game and bot that played it: ``preset, game_index, game_id, bot, elo``
    (the rating after that game).

    >>> import pandas as pd
    >>> seats = pd.DataFrame({"game_id": ["g1", "g1"], "deal_id": "d", "game_index": 0,
    ...                       "preset": "rush", "bot": ["A", "B"], "rank": [1, 2]})
    >>> elo_history(seats)[["bot", "elo"]]
      bot     elo
    0   A  1008.0
    1   B   992.0
    """
    import pandas as pd

    ratings_by_preset: dict[str, dict[str, float]] = {}
    _require(seats, _SEATS_NEEDED + ("game_index",), "elo_history")
    rows: list[tuple[Any, ...]] = []
    for preset, gi, gid, bots, ranks, faulted in _games_in_order(seats):
        m = len(bots)
        if m < 2:
            continue
        rating = ratings_by_preset.setdefault(preset, {})
        before = {b: rating.get(b, start) for b in bots}
        delta = dict.fromkeys(bots, 0.0)
        stopped = any(faulted)
        for i in range(m):
            for j in range(i + 1, m):
                a, b = bots[i], bots[j]
                if a == b or (stopped and faulted[i] == faulted[j]):
                    continue  # the same bot; or two seats whose game a fault stopped: no result between them
                expected = 1.0 / (1.0 + 10.0 ** ((before[b] - before[a]) / 400.0))
                if stopped:
                    score = 0.0 if faulted[i] else 1.0
                else:
                    score = 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
                change = k / (m - 1) * (score - expected)
                delta[a] += change
                delta[b] -= change
        for b in dict.fromkeys(bots):
            rating[b] = before[b] + delta[b]
            rows.append((preset, gi, gid, b, rating[b]))
    return pd.DataFrame(rows, columns=["preset", "game_index", "game_id", "bot", "elo"])


def _games_in_order(seats: "pd.DataFrame") -> "list[tuple[str, int, str, list[str], list[float], list[bool]]]":
    """``(preset, game_index, game_id, bots, ranks, faulted)`` per game (lists by seat), by preset then ``game_index``.

    ``faulted[s]``: seat ``s`` faulted, which ended the game (:func:`~cabo_kit.results.outcomes.fault_flags`).
    """
    import numpy as np

    order = ["preset", "game_index", "game_id"] + (["seat"] if "seat" in seats.columns else [])
    df = seats.sort_values(order, kind="stable")
    gid = df["game_id"].to_numpy(dtype=object)
    preset = df["preset"].to_numpy(dtype=object)
    gi = df["game_index"].to_numpy()
    bots = [str(b) for b in df["bot"]]
    ranks = df["rank"].to_numpy(dtype=float).tolist()
    faulter = fault_flags(df)[0].tolist()
    starts = np.flatnonzero(np.r_[True, (gid[1:] != gid[:-1]) | (preset[1:] != preset[:-1])])
    ends = np.r_[starts[1:], len(df)]
    return [(str(preset[s]), int(gi[s]), str(gid[s]), bots[s:e], ranks[s:e], faulter[s:e])
            for s, e in zip(starts.tolist(), ends.tolist())]


def pairwise_table(seats: "pd.DataFrame") -> "pd.DataFrame":
    """Head-to-head results between every two bots that shared a table, per preset.

    One row per ordered pair: ``preset, bot, opponent, games, score, rate`` where ``score``
    counts wins of ``bot`` over ``opponent`` in shared games (a draw, i.e. an equal rank,
    counts a half) and ``rate = score / games``. A game ended by a fault counts only between the
    faulting seat and each other seat (:func:`pairwise_outcomes`).

    >>> import pandas as pd
    >>> seats = pd.DataFrame({"game_id": ["g1", "g1", "g2", "g2"], "deal_id": "d", "game_index": [0, 0, 1, 1],
    ...                       "preset": "rush", "bot": ["A", "B", "A", "B"], "rank": [1, 2, 1, 1]})
    >>> pairwise_table(seats)[["bot", "opponent", "games", "rate"]]
      bot opponent  games  rate
    0   A        B      2  0.75
    1   B        A      2  0.25
    """
    import pandas as pd

    pairs = pairwise_outcomes(seats)
    forward = pairs[["preset", "a", "b", "score"]].rename(columns={"a": "bot", "b": "opponent"})
    backward = pairs[["preset", "b", "a"]].rename(columns={"b": "bot", "a": "opponent"})
    backward = backward.assign(score=1.0 - pairs["score"].to_numpy())
    both = pd.concat([forward, backward], ignore_index=True)
    table = both.groupby(["preset", "bot", "opponent"], sort=True)["score"].agg(games="size", score="sum").reset_index()
    table["rate"] = table["score"] / table["games"]
    return table


def openskill_ratings(seats: "pd.DataFrame") -> "pd.DataFrame":
    """A second opinion: OpenSkill's Plackett-Luce model over the games, in ``game_index`` order, per preset.

    Each game updates its players from its full ranking (equal ranks are ties); a game ended by
    a fault updates only the faulting seat's pairs, each a two-player loss of it. Columns:
    ``bot, preset, mu, sigma, ordinal, games`` (``ordinal = mu - 3 sigma``, a conservative
    skill), sorted by preset, then ordinal, best first. Needs the ``openskill`` package
    (``pip install 'cabo-kit[report]'``).

    >>> import pandas as pd
    >>> seats = pd.DataFrame({"game_id": ["g1", "g1"], "deal_id": "d", "game_index": 0,
    ...                       "preset": "rush", "bot": ["A", "B"], "rank": [1, 2]})
    >>> list(openskill_ratings(seats)["bot"])
    ['A', 'B']
    """
    import pandas as pd

    try:
        from openskill.models import PlackettLuce
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("openskill_ratings needs the openskill package: pip install 'cabo-kit[report]'") from exc
    _require(seats, _SEATS_NEEDED + ("game_index",), "openskill_ratings")
    out: list[dict[str, Any]] = []
    model = PlackettLuce()
    ratings: dict[str, dict[str, Any]] = {}
    played: dict[str, dict[str, int]] = {}
    for preset, _gi, _gid, bots, ranks, faulted in _games_in_order(seats):
        if len(bots) < 2 or len(set(bots)) < len(bots):
            continue
        mine = ratings.setdefault(preset, {})
        count = played.setdefault(preset, {})
        before = {b: mine[b] if b in mine else model.rating(name=b) for b in bots}
        if any(faulted):
            # Stopped by a fault: each other seat beat the faulting one, as a two-player game
            # against its rating before this game (so the seat order does not matter for them);
            # the faulting seat takes those losses one after the other; nothing among the others.
            new = dict(before)
            for f in [b for b, bad in zip(bots, faulted) if bad]:
                for o in [b for b, bad in zip(bots, faulted) if not bad]:
                    new[o] = model.rate([[new[o]], [before[f]]], ranks=[1, 2])[0][0]
                    new[f] = model.rate([[before[o]], [new[f]]], ranks=[1, 2])[1][0]
        else:
            updated = model.rate([[before[b]] for b in bots], ranks=ranks)
            new = {b: team[0] for b, team in zip(bots, updated)}
        for b in bots:
            mine[b] = new[b]
            count[b] = count.get(b, 0) + 1
    for preset in sorted(ratings):
        for b, r in ratings[preset].items():
            out.append({"bot": b, "preset": preset, "mu": float(r.mu), "sigma": float(r.sigma),
                        "ordinal": float(r.mu - 3.0 * r.sigma), "games": played[preset][b]})
    frame = pd.DataFrame(out, columns=["bot", "preset", "mu", "sigma", "ordinal", "games"])
    frame = frame.sort_values(["preset", "ordinal", "bot"], ascending=[True, False, True], kind="stable")
    return frame.reset_index(drop=True)


openskill = openskill_ratings
"""The name the tournament notes use for :func:`openskill_ratings`."""
