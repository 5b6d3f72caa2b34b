"""Tournament charts and the self-contained HTML report.

The figure functions take the pandas frames of a tournament (see ``docs/tournaments.md``:
``seats`` one row per game and seat, ``games`` one row per game) or the tables computed from
them, and return plotly figures, so a notebook can show any of them on its own:

* :func:`leaderboard_figure` (from :func:`cabo_kit.results.ratings.fit_elo`),
* :func:`elo_history_figure` (from :func:`cabo_kit.results.ratings.elo_history`),
* :func:`pairwise_heatmap` (from ``seats``),
* :func:`outcome_figures` (from :func:`cabo_kit.results.outcomes.per_rule`),
* :func:`score_distribution` (from ``seats``).

:func:`write_report` puts them all in one ``report.html`` that works offline (plotly's
JavaScript is embedded once), with HTML tables and a results section per bot. It is safe to
show the class: faults appear as kinds and counts, rejected files by name; reasons, tracebacks,
printed output and copy flags go to the bots' own pages and the teacher's page
(:mod:`cabo_kit.pages`). Every text that comes from a bot file is escaped.

>>> import pandas as pd
>>> board = pd.DataFrame({"bot": ["A", "B"], "preset": "rush", "elo": [1100.0, 1000.0],
...                       "elo_low": [1050.0, 1000.0], "elo_high": [1150.0, 1000.0],
...                       "games": [10, 10], "win_rate": [0.7, 0.3]})
>>> leaderboard_figure(board).data[0].error_x.array.tolist()
[0.0, 50.0]
"""

from __future__ import annotations

import html
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from .faults import SHOWN_BYTES, SHOWN_LINES, first_lines

if TYPE_CHECKING:  # pragma: no cover - typing only; numpy, pandas and plotly load when a function runs
    import pandas as pd
    import plotly.graph_objects as go

__all__ = [
    "REPORT_MODULES", "elo_history_figure", "leaderboard_figure", "missing_report_modules", "outcome_figures",
    "pairwise_heatmap", "report_html", "score_distribution", "write_report",
]

REPORT_MODULES = ("numpy", "pandas", "plotly")
"""The libraries of the ``report`` extra: the ratings and the report need them."""


def missing_report_modules() -> list[str]:
    """The modules of the ``report`` extra (ratings and reports) that are not installed; the command line and the
    portal ask before they start what would need them.

    >>> isinstance(missing_report_modules(), list)
    True
    """
    import importlib.util

    return [m for m in REPORT_MODULES if importlib.util.find_spec(m) is None]

_HISTORY_POINTS = 300  # points kept per bot and preset in the Elo curve: enough to draw it, small in the file


def _label(name: object) -> str:
    """A bot name as plotly should show it: plotly reads ``<...>`` as markup, entities as text."""
    return html.escape(str(name), quote=False)


def _styled(fig: "go.Figure") -> "go.Figure":
    """A light look (white plot, grey grid) without naming a template: plotly validates a
    named template anew for every figure, which costs a quarter of a second each."""
    grid = {"gridcolor": "#e6e8ec", "linecolor": "#c9ced6", "zerolinecolor": "#c9ced6", "showline": True}
    fig.update_layout(plot_bgcolor="white", paper_bgcolor="white")
    fig.update_xaxes(**grid)
    fig.update_yaxes(**grid)
    return fig


def _palette(bots: Sequence[str]) -> dict[str, str]:
    import plotly.express as px

    colours = list(px.colors.qualitative.Dark24) + list(px.colors.qualitative.Alphabet)
    return {b: colours[i % len(colours)] for i, b in enumerate(sorted(bots))}


_FAULT_COLOURS = {"error": "#c0392b", "timeout": "#e67e22", "illegal": "#8e44ad", "crash": "#34495e"}
_PRESET_COLOURS = ("#4c6edb", "#e4572e", "#17a589", "#a05195", "#f3a712", "#5d6d7e")


def _preset_colours(presets: Sequence[str]) -> dict[str, str]:
    """One colour per preset, the same in every chart of a report."""
    return {p: _PRESET_COLOURS[i % len(_PRESET_COLOURS)] for i, p in enumerate(sorted(presets))}


def _presets(frame: "pd.DataFrame") -> list[str]:
    return [str(p) for p in sorted(frame["preset"].unique())] if len(frame) else []


def leaderboard_figure(board: "pd.DataFrame", title: str = "Elo by preset (95% bootstrap intervals)") -> "go.Figure":
    """The leaderboard as a dot plot with error bars: one panel per preset, best bot on top.

    ``board``: the frame of :func:`~cabo_kit.results.ratings.fit_elo`. A dashed line marks
    1000 (the mean of the field, or the anchor when the board was fitted with one). Each panel's
    axis spans the two-sided intervals (with a margin; a one-sided bound just beyond them is taken
    in), so a bot that almost never wins, whose estimate rests on the prior alone (say -1514),
    does not squeeze the class into a sliver: a one-sided bot is drawn as a bar from its bound
    to the panel's edge, an arrowhead at the edge and its text ("below 690") by the bound, on the
    side towards the middle of the axis (a bound beyond the class's other side is clipped to the
    edge, its text inside the panel), and one not bounded at all as that text alone. A bot without
    an interval (``bootstrap=0``: NaN ends) is a marker at its estimate, without a bar. The hover
    text keeps every number.

    >>> import pandas as pd
    >>> board = pd.DataFrame({"bot": ["A", "B", "Z"], "preset": "rush", "elo": [1040.0, 960.0, -1514.0],
    ...     "elo_low": [1000.0, 920.0, float("-inf")], "elo_high": [1080.0, 1000.0, 690.0],
    ...     "games": [40, 40, 40], "win_rate": [0.6, 0.4, 0.0]})
    >>> fig = leaderboard_figure(board)
    >>> [round(x) for x in fig.layout.xaxis.range], [t.name for t in fig.data][:1]   # Z at the left edge
    ([895, 1105], ['rush'])
    >>> [t.text for t in fig.data if t.mode == "text+markers"]
    [('below 690',)]
    """
    import numpy as np
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    presets = _presets(board)
    cols = max(len(presets), 1)
    fig = make_subplots(rows=1, cols=cols, subplot_titles=presets or ["no games"], horizontal_spacing=0.12)
    most = 1
    colour = "#1f4e9c"
    for c, preset in enumerate(presets, start=1):
        part = board[board["preset"] == preset].sort_values("elo", ascending=True)
        most = max(most, len(part))
        elo = part["elo"].to_numpy(dtype=float)
        low = part["elo_low"].to_numpy(dtype=float)
        high = part["elo_high"].to_numpy(dtype=float)
        two = np.isfinite(low) & np.isfinite(high)
        # No interval (bootstrap=0, or no replicate): a marker at the estimate, no bar; only +-inf is one-sided.
        bare = (np.isnan(low) | np.isnan(high)) & np.isfinite(elo)
        labels = [_label(b) for b in part["bot"]]
        lo, hi = _axis_span(elo, low, high, two, bare)
        hover = [
            f"{lab}<br>Elo {e:.0f} [{_num(a)}, {_num(b)}]<br>{g} games, win rate {w:.1%}"
            for lab, e, a, b, g, w in zip(labels, elo, low, high, part["games"], part["win_rate"])
        ]
        fig.add_trace(go.Scatter(
            x=elo[two], y=[lab for lab, t in zip(labels, two) if t], mode="markers", name=preset,
            marker={"size": 9, "color": colour},
            error_x={"type": "data", "symmetric": False, "array": (high - elo)[two],
                     "arrayminus": (elo - low)[two], "thickness": 1.5, "width": 4},
            hovertext=[h for h, t in zip(hover, two) if t], hoverinfo="text", showlegend=False,
        ), row=1, col=c)
        if bare.any():
            fig.add_trace(go.Scatter(
                x=elo[bare], y=[lab for lab, t in zip(labels, bare) if t], mode="markers", name=preset,
                marker={"size": 9, "color": colour}, hovertext=[h for h, t in zip(hover, bare) if t],
                hoverinfo="text", showlegend=False), row=1, col=c)
        # One-sided (or unbounded) bots: a bar from the bound to the edge, an arrowhead there, the words by the bound.
        for i in np.flatnonzero(~two & ~bare):
            below, above = np.isinf(low[i]) and np.isfinite(high[i]), np.isinf(high[i]) and np.isfinite(low[i])
            bound = high[i] if below else low[i] if above else float("nan")
            text = _interval(low[i], high[i])
            if below or above:
                at = min(max(bound, lo), hi)
                edge = lo if below else hi
                fig.add_trace(go.Scatter(
                    x=[edge, at], y=[labels[i]] * 2, mode="lines", line={"color": colour, "width": 1.5},
                    hoverinfo="skip", showlegend=False), row=1, col=c)
                fig.add_trace(go.Scatter(
                    x=[edge], y=[labels[i]], mode="markers",
                    marker={"symbol": "triangle-left" if below else "triangle-right", "size": 10, "color": colour},
                    hoverinfo="skip", showlegend=False), row=1, col=c)
            else:
                at = (lo + hi) / 2
            fig.add_trace(go.Scatter(
                x=[at], y=[labels[i]], mode="text+markers", text=[text], marker={"size": 4, "color": colour},
                # The words go towards the middle of the axis, so a bound beyond the class's side stays readable.
                textposition="middle right" if at <= (lo + hi) / 2 else "middle left",
                textfont={"color": colour, "size": 11}, hovertext=[hover[i]], hoverinfo="text", showlegend=False,
            ), row=1, col=c)
        fig.add_vline(x=1000, line={"dash": "dash", "color": "#999", "width": 1}, row=1, col=c)
        fig.update_yaxes(type="category", categoryorder="array", categoryarray=labels, row=1, col=c)
        fig.update_xaxes(title_text="Elo", range=[lo, hi], row=1, col=c)
    fig.update_layout(title=title, height=max(320, 24 * most + 140), margin={"l": 10, "r": 20, "t": 80, "b": 50},
                      )
    return _styled(fig)


def _axis_span(elo: "Any", low: "Any", high: "Any", two: "Any", bare: "Any" = None) -> tuple[float, float]:
    """A panel's Elo axis: the two-sided intervals and the estimates without an interval (``bare``), one-sided
    bounds that lie within a quarter of that span beyond them, and a margin; with neither, every finite bound
    and estimate."""
    import numpy as np

    bare = np.zeros(len(elo), dtype=bool) if bare is None else bare
    if two.any() or bare.any():
        lo = float(min(np.min(low[two], initial=np.inf), np.min(elo[bare], initial=np.inf)))
        hi = float(max(np.max(high[two], initial=-np.inf), np.max(elo[bare], initial=-np.inf)))
        two = two | bare
        span = max(hi - lo, 100.0)
        bounds = np.r_[low[~two], high[~two]]
        bounds = bounds[np.isfinite(bounds)]
        lo = min([lo, *[float(b) for b in bounds if lo - span / 4 <= b < lo]])
        hi = max([hi, *[float(b) for b in bounds if hi < b <= hi + span / 4]])
    else:
        values = np.r_[elo, low, high]
        values = values[np.isfinite(values)]
        lo, hi = (float(values.min()), float(values.max())) if len(values) else (900.0, 1100.0)
    pad = max(0.08 * (hi - lo), 25.0)
    return lo - pad, hi + pad


def elo_history_figure(history: "pd.DataFrame", title: str = "Online Elo over the games") -> "go.Figure":
    """Each bot's online Elo after each of its games: one panel per preset, one line per bot.

    ``history``: the frame of :func:`~cabo_kit.results.ratings.elo_history`. Long curves are
    thinned to at most 300 evenly spaced points per bot and preset (the last point kept);
    clicking a bot in the legend hides it in every panel.

    >>> import pandas as pd
    >>> history = pd.DataFrame({"preset": "rush", "game_index": [0, 0, 1, 1], "game_id": ["g", "g", "h", "h"],
    ...                         "bot": ["A", "B", "A", "B"], "elo": [1008.0, 992.0, 1015.0, 985.0]})
    >>> sorted(trace.name for trace in elo_history_figure(history).data)
    ['A', 'B']
    """
    import numpy as np
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    presets = _presets(history)
    rows = max(len(presets), 1)
    panel, gap = 330, 90  # pixels: a panel, and the room for its axis title and the next panel's title
    fig = make_subplots(rows=rows, cols=1, subplot_titles=presets or ["no games"],
                        vertical_spacing=gap / (rows * panel + (rows - 1) * gap) if rows > 1 else 0.0)
    colours = _palette([str(b) for b in history["bot"].unique()]) if len(history) else {}
    shown: set[str] = set()
    for r, preset in enumerate(presets, start=1):
        part = history[history["preset"] == preset]
        # Count this preset's games from 1: schedule indices interleave the presets.
        part = part.assign(game=part["game_index"].rank(method="dense").astype(int))
        for bot, curve in part.groupby("bot", sort=True):
            bot = str(bot)
            if len(curve) > _HISTORY_POINTS:
                keep = np.unique(np.linspace(0, len(curve) - 1, _HISTORY_POINTS).round().astype(int))
                curve = curve.iloc[keep]
            fig.add_trace(go.Scatter(
                x=curve["game"], y=curve["elo"], mode="lines", name=_label(bot), legendgroup=bot,
                showlegend=bot not in shown, line={"color": colours[bot], "width": 1.5},
                hovertemplate=f"{_label(bot)}<br>game %{{x}}<br>Elo %{{y:.0f}}<extra>{html.escape(preset)}</extra>",
            ), row=r, col=1)
            shown.add(bot)
        fig.update_xaxes(title_text=f"{html.escape(preset)} games played (schedule order)", row=r, col=1)
        fig.update_yaxes(title_text="Elo", row=r, col=1)
    fig.update_layout(title=title, height=130 + rows * panel + (rows - 1) * gap,
                      margin={"l": 10, "r": 10, "t": 80, "b": 40})
    return _styled(fig)


def pairwise_heatmap(seats: "pd.DataFrame", preset: str | None = None,
                     title: str = "Head to head: how often the row bot beat the column bot",
                     order: "pd.DataFrame | None" = None) -> "go.Figure":
    """Pairwise win rates between bots that shared tables, from the ranks in those games.

    Cell (row, column) is the share of shared games in which the row bot ranked better than
    the column bot (an equal rank counts a half); the hover shows how many games that is.
    Bots are ordered as in ``order`` (a leaderboard from
    :func:`~cabo_kit.results.ratings.fit_elo`: best Elo at the top), else by their mean
    head-to-head rate. One panel per preset (or only ``preset``).

    >>> import pandas as pd
    >>> seats = pd.DataFrame({"game_id": ["g", "g"], "deal_id": "d", "game_index": 0, "preset": "rush",
    ...                       "bot": ["A", "B"], "rank": [1, 2]})
    >>> [list(row) for row in pairwise_heatmap(seats).data[0].z]
    [[None, 1.0], [0.0, None]]
    """
    import numpy as np
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from .results.ratings import pairwise_table

    table = pairwise_table(seats)
    presets = [preset] if preset is not None else _presets(seats)
    rows = max(len(presets), 1)
    sizes = [max(1, table[table["preset"] == p]["bot"].nunique()) for p in presets] or [1]
    longest = max((len(str(b)) for b in table["bot"].unique()), default=4)
    # Room in pixels: each panel 26 px a bot; below each, its slanted bot names and the next title.
    panels = [max(140, 26 * n) for n in sizes]
    gap = min(220, 40 + 5 * longest)
    area = sum(panels) + gap * (rows - 1)
    fig = make_subplots(rows=rows, cols=1, subplot_titles=presets or ["no games"],
                        row_heights=[p / sum(panels) for p in panels], vertical_spacing=gap / area if rows > 1 else 0.0)
    for r, name in enumerate(presets, start=1):
        part = table[table["preset"] == name]
        strength = part.groupby("bot")["rate"].mean().sort_values(ascending=False, kind="stable")
        bots = [str(b) for b in strength.index]
        if order is not None:
            ranked = [str(b) for b in order[order["preset"] == name].sort_values("elo", ascending=False)["bot"]]
            bots = [b for b in ranked if b in strength.index] + [b for b in bots if b not in ranked]
        at = {b: i for i, b in enumerate(bots)}
        z = np.full((len(bots), len(bots)), np.nan)
        n = np.zeros((len(bots), len(bots)), dtype=int)
        for bot, opp, games, rate in zip(part["bot"], part["opponent"], part["games"], part["rate"]):
            z[at[str(bot)], at[str(opp)]] = rate
            n[at[str(bot)], at[str(opp)]] = games
        labels = [_label(b) for b in bots]
        custom = np.dstack([n, np.array([[lab] * len(bots) for lab in labels], dtype=object),
                            np.array([labels] * len(bots), dtype=object)]) if bots else None
        zlist = [[None if np.isnan(v) else float(v) for v in row] for row in z]
        fig.add_trace(go.Heatmap(
            z=zlist, x=labels, y=labels, zmin=0.0, zmax=1.0, zmid=0.5, colorscale="RdBu", coloraxis="coloraxis",
            customdata=custom, xgap=1, ygap=1, texttemplate="%{z:.0%}" if len(bots) <= 12 else None,
            hovertemplate="%{customdata[1]} beat %{customdata[2]}<br>in %{z:.0%} of %{customdata[0]} shared games<extra></extra>",
        ), row=r, col=1)
        fig.update_yaxes(autorange="reversed", type="category", row=r, col=1)
        fig.update_xaxes(type="category", tickangle=-45, row=r, col=1)
    fig.update_layout(title=title, height=90 + area + gap,
                      coloraxis={"colorscale": "RdBu", "cmin": 0.0, "cmax": 1.0, "colorbar": {"title": {"text": "win rate"}}},
                      margin={"l": 10, "r": 10, "t": 90, "b": gap})
    return _styled(fig)


_OUTCOME_TITLES = {
    "cabo_success": "Cabo calls that won the round",
    "cabo_rate": "Rounds in which the bot called Cabo",
    "kamikaze_rate": "Rounds with a Kamikaze hand",
    "royal_roulette_rate": "Rounds with Royal Roulette",
    "reset_rate": "Resets to 50 per round",
    "snap_accuracy": "Snaps that matched",
    "snaps_per_round": "Snaps tried per round",
    "failed_multi_per_round": "Failed multi-exchanges per round",
    "multi_failure_rate": "Multi-exchanges that failed",
    "powers_per_round": "Powers used per round",
    "deck_out_rate": "Rounds ended by the deck running out",
    "fault_rate": "Games lost to a fault",
}


def outcome_figures(outcomes: "pd.DataFrame") -> "dict[str, go.Figure]":
    """Per-rule outcome charts: one bar chart per rate (bots across, a colour per preset, 95% intervals).

    ``outcomes``: the frame of :func:`~cabo_kit.results.outcomes.per_rule`. Returns
    ``{name: figure}`` in a fixed order: every rate of :data:`~cabo_kit.results.outcomes.RATES`
    that has at least one defined value, then ``mean_round_score`` and ``faults`` (by kind).

    >>> import pandas as pd
    >>> from cabo_kit.results.outcomes import per_rule
    >>> seats = pd.DataFrame({"bot": ["A"], "preset": "rush", "game_id": ["g"], "status": ["ok"],
    ...     "rounds": [4], "cabo_calls": [2], "cabo_wins": [1], "kamikaze": 0, "royal_roulette": 0, "resets": 0,
    ...     "snaps": [3], "snaps_right": [2], "failed_multi_exchanges": 0, "powers_used": [5], "deck_outs": 0,
    ...     "round_score_sum": [28], "total": [28]})
    >>> "cabo_success" in outcome_figures(per_rule(seats))
    True
    """
    import numpy as np
    import plotly.graph_objects as go

    from .results.outcomes import FAULT_KINDS, RATES

    figures: dict[str, go.Figure] = {}
    presets = _presets(outcomes)
    bots = sorted(str(b) for b in outcomes["bot"].unique()) if len(outcomes) else []
    labels = {b: _label(b) for b in bots}
    colour = _preset_colours(presets)
    height = 380 if len(bots) <= 12 else 460

    axis = {"gridcolor": "#e6e8ec", "linecolor": "#c9ced6", "zerolinecolor": "#c9ced6", "showline": True}

    def chart(traces: list[dict[str, Any]], title: str, ytitle: str, tickformat: str | None, barmode: str) -> go.Figure:
        # One constructor call: plotly validates the whole figure once instead of once per update.
        return go.Figure({"data": traces, "layout": {
            "title": {"text": title}, "barmode": barmode, "height": height, "plot_bgcolor": "white",
            "paper_bgcolor": "white", "yaxis": dict(axis, title={"text": ytitle}, tickformat=tickformat, rangemode="tozero"),
            "xaxis": dict(axis, type="category", tickangle=-45), "margin": {"l": 10, "r": 10, "t": 60, "b": 40},
            "showlegend": True,  # also for a single preset: the legend says which preset the bars are
            "legend": {"orientation": "h", "y": 1.02, "x": 1, "xanchor": "right", "yanchor": "bottom"}}})

    def bars(column: str, title: str, ytitle: str, percent: bool, with_interval: bool) -> go.Figure:
        traces = []
        top = 0.0
        for preset in presets:
            part = outcomes[outcomes["preset"] == preset].set_index("bot").reindex(bots)
            y = part[column].to_numpy(dtype=float)
            if np.isnan(y).all():
                continue  # the rule does not exist in this preset
            trace: dict[str, Any] = {"type": "bar", "x": [labels[b] for b in bots], "y": y, "name": preset,
                                     "marker": {"color": colour[preset]}}
            if with_interval:
                low = part[f"{column}_low"].to_numpy(dtype=float)
                high = part[f"{column}_high"].to_numpy(dtype=float)
                trace["error_y"] = {"type": "data", "symmetric": False, "array": np.nan_to_num(high - y),
                                    "arrayminus": np.nan_to_num(y - low), "thickness": 1.2, "width": 3}
                top = max(top, float(np.nanmax(high)) if not np.isnan(high).all() else 0.0)
            fmt = ".1%" if percent else ".3f"
            trace["hovertemplate"] = f"%{{x}}<br>{html.escape(preset)}: %{{y:{fmt}}}<extra></extra>"
            traces.append(trace)
        # Whole percents repeat on an axis that stops below 10% ("1%, 1%, 2%"): show a decimal there.
        return chart(traces, title, ytitle, (".1%" if top < 0.1 else ".0%") if percent else None, "group")

    for name, (_num, _den, kind, meaning, _rule) in RATES.items():
        if name not in outcomes.columns or not outcomes[name].notna().any():
            continue
        percent = kind == "wilson"
        figures[name] = bars(name, _OUTCOME_TITLES.get(name, meaning), "share" if percent else "per round", percent, True)
    if "mean_round_score" in outcomes.columns and outcomes["mean_round_score"].notna().any():
        figures["mean_round_score"] = bars("mean_round_score", "Mean round score (lower is better)", "points", False, False)
    if len(outcomes):
        traces = []
        for kind in FAULT_KINDS:
            per_bot = outcomes.groupby("bot")[f"faults_{kind}"].sum().reindex(bots).fillna(0)
            traces.append({"type": "bar", "x": [labels[b] for b in bots], "y": per_bot.to_numpy(dtype=float), "name": kind,
                           "marker": {"color": _FAULT_COLOURS.get(kind, "#7f8c8d")},
                           "hovertemplate": f"%{{x}}: %{{y}} {kind}<extra></extra>"})
        figures["faults"] = chart(traces, "Faults by kind (all presets)", "games", None, "stack")
    return figures


def score_distribution(seats: "pd.DataFrame", title: str = "Final game totals (lower is better)") -> "go.Figure":
    """Box plots of each bot's final game totals, a colour per preset.

    A game that a fault stopped (a seat's ``status`` other than ``ok``) has no final totals: its
    seats are left out, and the title says how many games that is (a bot that faults at once
    would otherwise show its 0 points as the best totals).

    >>> import pandas as pd
    >>> seats = pd.DataFrame({"bot": ["A", "B", "A", "B"], "preset": "rush", "total": [40, 101, 55, 99]})
    >>> [trace.name for trace in score_distribution(seats).data]
    ['rush']
    >>> stopped = seats.assign(game_id=["g1", "g1", "g2", "g2"], status=["ok", "ok", "error", "ok"])
    >>> fig = score_distribution(stopped)
    >>> [int(y) for y in fig.data[0].y], fig.layout.title.text
    ([40, 101], 'Final game totals (lower is better; 1 game ended by a fault left out)')
    """
    import plotly.graph_objects as go

    from .results.outcomes import fault_flags

    stopped = fault_flags(seats)[1]
    if stopped.any():
        n_stopped = int(seats.loc[stopped, "game_id"].nunique()) if "game_id" in seats.columns else int(stopped.sum())
        note = f"{n_stopped} game{'s' if n_stopped != 1 else ''} ended by a fault left out"
        title = title[:-1] + f"; {note})" if title.endswith(")") else f"{title} ({note})"
        seats = seats[~stopped]
    fig = go.Figure()
    colour = _preset_colours(_presets(seats))
    for preset in _presets(seats):
        part = seats[seats["preset"] == preset].sort_values("bot", kind="stable")
        fig.add_trace(go.Box(x=[_label(b) for b in part["bot"]], y=part["total"], name=preset, boxmean=True,
                             marker={"size": 3, "color": colour[preset]}, line={"width": 1.2}))
    fig.update_layout(title=title, boxmode="group", height=460,
                      yaxis={"title": "final total"}, xaxis={"type": "category", "tickangle": -45},
                      margin={"l": 10, "r": 10, "t": 60, "b": 40},
                      legend={"orientation": "h", "y": 1.02, "x": 1, "xanchor": "right", "yanchor": "bottom"})
    return _styled(fig)


# ---------------------------------------------------------------------------------------- HTML

_CSS = """
body{font-family:ui-sans-serif,system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
main{max-width:1320px;margin:0 auto;padding:16px 28px 60px}
h1{margin:.4em 0 .2em}h2{margin-top:1.8em;border-bottom:2px solid #d9dde5;padding-bottom:.2em}
h3{margin:1.2em 0 .4em}
nav{background:#fff;border:1px solid #d9dde5;border-radius:6px;padding:8px 14px;margin:10px 0}
nav a{margin-right:14px;white-space:nowrap}
.summary{color:#445}
.card{background:#fff;border:1px solid #d9dde5;border-radius:6px;padding:10px 14px;margin:12px 0}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:12px}
.grid.wide{grid-template-columns:1fr}
.tables{display:flex;flex-wrap:wrap;gap:0 28px;align-items:flex-start}
.grid>.card{min-width:0;overflow:hidden;margin:0}
table{border-collapse:collapse;margin:6px 0 12px;background:#fff;font-size:14px}
th,td{border:1px solid #d9dde5;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef1f6}td.num{text-align:right;font-variant-numeric:tabular-nums}
pre{background:#f3f4f7;border:1px solid #e1e4ea;padding:8px;overflow:auto;max-height:360px;font-size:12px;white-space:pre-wrap;word-break:break-word}
details>summary{cursor:pointer}
.bad{color:#a11}.muted{color:#667}
section.bot{background:#fff;border:1px solid #d9dde5;border-radius:6px;padding:6px 16px 12px;margin:18px 0}
section.bot h3{border-bottom:1px solid #e1e4ea}
code{background:#f3f4f7;padding:0 3px;border-radius:3px}
"""


def _esc(text: object) -> str:
    return html.escape("" if text is None else str(text), quote=True)


def _num(value: object, fmt: str = "{:.0f}") -> str:
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return _esc(value)
    if v != v:  # NaN
        return "–"
    if v in (float("inf"), float("-inf")):  # an interval open on that side (no win, or no loss, seen)
        return "∞" if v > 0 else "−∞"
    return fmt.format(v)


def _interval(low: object, high: object) -> str:
    """A 95% interval in the report: ``950 – 1050``, or one-sided (``below 310``, ``above 1400``).

    >>> _interval(950.0, 1050.0), _interval(float("-inf"), 310.0)
    ('950 – 1050', 'below 310')
    """
    from .results.texts import interval_text

    return interval_text(float(low), float(high), sep=" – ")  # type: ignore[arg-type]


def _rank_range(row: Any) -> str:
    """A bot's plausible places (``2–4``), or its place where the board has no rank interval."""
    if "rank_low" in row.index and row["rank_low"] == row["rank_low"]:
        low, high = int(row["rank_low"]), int(row["rank_high"])
        return str(low) if low == high else f"{low}–{high}"
    return _num(row.get("rank", float("nan")))


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[bool] | None = None) -> str:
    """An HTML table; ``rows`` hold HTML that the caller has already escaped."""
    numeric = numeric or [False] * len(header)
    head = "".join(f"<th>{_esc(h)}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{c}</td>' if numeric[i] else f"<td>{c}</td>" for i, c in enumerate(row)) + "</tr>"
        for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


class _Figures:
    """Turns figures into HTML divs with stable ids (the same tournament gives the same file)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, fig: "go.Figure") -> str:
        self.count += 1
        import plotly.io as pio

        # The figure was validated as it was built: skip plotly's second validation pass (slow).
        return pio.to_html(fig.to_dict(), full_html=False, include_plotlyjs=False, div_id=f"figure-{self.count}",
                           config={"displaylogo": False, "responsive": True}, validate=False)


_LOG = re.compile(r"(.+)-[0-9a-f]{12}\.log")


def log_files(logs_dir: "str | os.PathLike[str]") -> dict[str, list[Path]]:
    """The tournament's non-empty log files (``logs/BOT-DEAL.log``, one per bot and deal) by bot, oldest first:
    the folder listed once, each file looked at once.

    >>> import tempfile, pathlib
    >>> logs = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (logs / "ada-0123456789ab.log").write_text("hello\\n")
    >>> _ = (logs / "ada_2-0123456789ab.log").write_text("")
    >>> {bot: [p.name for p in files] for bot, files in log_files(logs).items()}
    {'ada': ['ada-0123456789ab.log']}
    """
    found: dict[str, list[tuple[float, str, Path]]] = {}
    try:
        with os.scandir(logs_dir) as entries:
            for entry in entries:
                m = _LOG.fullmatch(entry.name)
                if m is None:
                    continue
                st = entry.stat()
                if st.st_size > 0:
                    found.setdefault(m.group(1), []).append((st.st_mtime, entry.name, Path(entry.path)))
    except OSError:
        return {}
    return {bot: [p for _, _, p in sorted(files)] for bot, files in found.items()}


def printed_html(bot: str, logs_dir: "str | os.PathLike[str]", files: "list[Path] | None" = None,
                 clean: "Callable[[str], str] | None" = None) -> str:
    """What a bot printed in the tournament: its first lines (at most 20 or 4 KiB), from ``logs/BOT-DEAL.log``
    (one file per deal, holding every game of that deal); ``files``: the bot's, from :func:`log_files`;
    ``clean``: applied to the text before it is escaped (:func:`cabo_kit.pages.scrub_paths`, say).

    >>> import tempfile, pathlib
    >>> logs = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (logs / "ada-0123456789ab.log").write_text("hello\\n" * 30)
    >>> html = printed_html("ada", logs)
    >>> html.count("hello"), "in 1 deal " in html
    (20, True)
    """
    if files is None:
        files = log_files(logs_dir).get(bot, [])
    if not files:
        return "<h4>Printed output</h4><p>None.</p>"
    text = ""
    for path in files:
        with open(path, "rb") as f:
            text += f.read(SHOWN_BYTES - len(text.encode())).decode("utf-8", "replace")
        if text and not text.endswith("\n"):
            text += "\n"
        if len(text.encode()) >= SHOWN_BYTES or text.count("\n") >= SHOWN_LINES:
            break
    n = len(files)
    shown = "\n".join(first_lines(text))
    if clean is not None:
        shown = clean(shown)
    return (f"<h4>Printed output</h4><p>It printed in {n} deal{'s' if n != 1 else ''} (the files "
            f"<code>{_esc(Path(logs_dir).name)}/{_esc(bot)}-*.log</code>, one per deal); the first lines:</p>"
            f"<pre>{_esc(shown)}</pre>")


def _as_frames(source: Any) -> "tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]":
    import pandas as pd

    if isinstance(source, (str, os.PathLike)):
        from .tournament.store import load_frames, load_rejected

        path = Path(source)
        games, seats = load_frames(path)
        return games, seats, load_rejected(path)
    if isinstance(source, (tuple, list)) and len(source) in (2, 3):
        games, seats = source[0], source[1]
        rejected = source[2] if len(source) == 3 else None
        if rejected is None:
            rejected = pd.DataFrame({"file": [], "reason": []})
        elif not isinstance(rejected, pd.DataFrame):
            rejected = pd.DataFrame(list(rejected), columns=["file", "reason"])
        if not isinstance(games, pd.DataFrame) or not isinstance(seats, pd.DataFrame):
            raise TypeError("write_report needs (games, seats[, rejected]) as pandas DataFrames, or a results store path")
        return games, seats, rejected
    raise TypeError(
        f"write_report needs a results store path or a (games, seats, rejected) tuple of frames, got {type(source).__name__}"
    )


def report_html(
    games: "pd.DataFrame",
    seats: "pd.DataFrame",
    rejected: "pd.DataFrame | None" = None,
    title: str = "Cabo tournament",
    board: "pd.DataFrame | None" = None,
    anchor: str | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    worst: int = 5,
) -> str:
    """The whole report as one HTML string (see :func:`write_report`, which saves it).

    Safe to show the class: ranks, intervals, results, and per bot its faults' kinds and counts;
    never a reason, a traceback, printed output or a path of this machine (those are on the
    bots' own pages and the teacher's page: :mod:`cabo_kit.pages`).

    >>> import pandas as pd
    >>> seats = pd.DataFrame({"game_id": ["g", "g"], "deal_id": "d", "game_index": 0, "preset": "rush",
    ...     "rules": "{}", "table_size": 2, "seat": [0, 1], "bot": ["A", "B"], "version": "v", "total": [30, 101],
    ...     "rank": [1, 2], "win": [1.0, 0.0], "status": "ok", "fault": "", "rounds": 3, "cabo_calls": [1, 0],
    ...     "cabo_wins": [1, 0], "kamikaze": 0, "royal_roulette": 0, "resets": 0, "snaps": 0, "snaps_right": 0,
    ...     "failed_multi_exchanges": 0, "powers_used": [2, 1], "deck_outs": 0, "round_score_sum": [30, 101]})
    >>> games = pd.DataFrame({"game_id": ["g"], "deal_id": "d", "game_index": 0, "preset": "rush", "rules": "{}",
    ...     "table_size": 2, "deal_seed": 7, "status": "ok", "n_rounds": 3, "record_sha256": "x"})
    >>> page = report_html(games, seats, bootstrap=10)
    >>> page.startswith("<!DOCTYPE html>"), 'id="bot-1"' in page
    (True, True)
    """
    import pandas as pd
    import plotly.offline

    from .results.outcomes import per_rule
    from .results.ratings import elo_history, fit_elo, openskill_ratings

    # Scored from the statuses (as the ratings do), whatever shares a hand-made or old frame holds.
    seats = _scored(seats)
    if rejected is None:
        rejected = pd.DataFrame({"file": [], "reason": []})
    fitted_here = board is None
    if board is None:
        board = fit_elo(seats, anchor=anchor, bootstrap=bootstrap, seed=seed)
    from .results.timing import ms_text, with_timing

    if "cpu_ms_median" not in board.columns and "cpu_hist" in seats.columns:
        board = with_timing(board, seats)
    timed = "cpu_ms_median" in board.columns
    outcomes = per_rule(seats) if len(seats) else None
    try:
        skill = openskill_ratings(seats) if len(seats) else None
    except ImportError:
        skill = None
    fig = _Figures()
    bots = sorted(str(b) for b in seats["bot"].unique()) if len(seats) else []
    anchor_of = {b: f"bot-{i + 1}" for i, b in enumerate(bots)}
    presets = _presets(seats)

    def bot_link(name: object) -> str:
        target = anchor_of.get(str(name))
        return f'<a href="#{target}">{_esc(name)}</a>' if target else _esc(name)

    faults = seats[seats["status"] != "ok"] if len(seats) else seats
    n_fault_games = int(games["status"].ne("ok").sum()) if len(games) and "status" in games.columns else len(faults)
    seed_of = dict(zip(games["game_id"], games["deal_seed"])) if len(games) and "deal_seed" in games.columns else {}

    parts: list[str] = []
    nav = [("leaderboard", "Leaderboard"), ("history", "Elo over games"), ("pairwise", "Head to head"),
           ("outcomes", "Per-rule outcomes"), ("scores", "Scores"), ("problems", "Rejected files and faults"),
           ("bots", "Bots"), ("time", "Time")]
    parts.append(f"<h1>{_esc(title)}</h1>")
    parts.append(
        f'<p class="summary">{len(games)} games, {len(bots)} bots, presets: {_esc(", ".join(presets)) or "none"}; '
        f"{n_fault_games} games ended by a fault (each scored as a loss of the faulting bot against every other "
        "seat and no result among the others; their totals are left out of the score charts); "
        f"{len(rejected)} files rejected. "
        "Ratings are per preset, never pooled; "
        + (f"Elo anchored so that {_esc(anchor)} is 1000 where it played (elsewhere the field's mean is 1000).</p>"
           if anchor else "Elo centred on the field: the mean of the bots rated on both sides is 1000. "
           "A bot that almost never wins (or never loses) against the others gets a one-sided bound "
           "(such as &ldquo;below 700&rdquo;: its rating is somewhere under that), because only rare upsets measure its distance.</p>")
    )
    parts.append("<nav>" + "".join(f'<a href="#{k}">{_esc(v)}</a>' for k, v in nav) + "</nav>")

    # Leaderboard
    parts.append('<h2 id="leaderboard">Leaderboard</h2>')
    if len(board):
        parts.append('<div class="card">' + fig(leaderboard_figure(board)) + "</div>")
        parts.append('<div class="tables">')
        for preset in _presets(board):
            part = board[board["preset"] == preset].reset_index(drop=True)
            header = ["#", "bot", "Elo", "95% interval", "plausible rank", "games", "win rate"]
            if timed:
                header += ["CPU ms / decision", "p95", "CPU share"]
            extra = skill is not None and len(skill) > 0
            if skill is not None and extra:
                header += ["OpenSkill μ ± σ"]
                sk = skill[skill["preset"] == preset].set_index("bot")
            rows = []
            for i, r in part.iterrows():
                row = [str(i + 1), bot_link(r["bot"]), _num(r["elo"]), _interval(r["elo_low"], r["elo_high"]),
                       _rank_range(r), _num(r["games"]), _num(r["win_rate"], "{:.1%}")]
                if timed:
                    row += [ms_text(r["cpu_ms_median"]), ms_text(r["cpu_ms_p95"]),
                            "unknown" if r["cpu_share"] != r["cpu_share"] else f'{r["cpu_share"]:.1f}%']
                if extra:
                    row.append(f'{sk.loc[r["bot"], "mu"]:.1f} ± {sk.loc[r["bot"], "sigma"]:.1f}' if r["bot"] in sk.index else "–")
                rows.append(row)
            numeric = [True, False] + [True] * (len(header) - 2)
            graded = [c for c in board.columns if str(c).startswith("vs ")]  # grades.grade_columns: one per grading bot
            header, numeric = header + graded, numeric + [False] * len(graded)
            for row, (_, r) in zip(rows, part.iterrows()):
                row += [_esc(r[c]) if isinstance(r[c], str) and r[c] else "–" for c in graded]
            parts.append(f"<div><h3>{_esc(preset)}</h3>" + _table(header, rows, numeric) + "</div>")
        parts.append("</div>")
        parts.append('<p class="muted">Elo: maximum-likelihood Bradley-Terry fit of the pairwise results inside '
                     "each game (lower rank wins, equal rank is a draw); intervals: percentiles of "
                     f"{str(bootstrap) + ' ' if fitted_here else ''}refits on deals resampled with replacement (a deal's seat rotations stay together). "
                     "Plausible rank: the same percentiles of the bot's place in each refit (as Chatbot Arena "
                     "shows ranks). One-sided bounds: the Wilson bound of the bot's upsets per deal against the field. "
                     "Win rate: a shared win counts 1/k; a bot's own faulted games count as lost, and a game "
                     "another seat's fault stopped is left out of it (games counts every game). "
                     "OpenSkill: Plackett-Luce, a second opinion."
                     + (" CPU: the bot's own CPU time per decision (median and 95th percentile, in ms) and its share "
                        "of all bots' CPU in the preset (<a href=\"#time\">Time</a>)." if timed else "") + "</p>")
        if any(str(c).startswith("vs ") for c in board.columns):
            parts.append('<p class="muted">vs BOT: each file\'s grade against that bot one on one in this preset '
                         "(above, level or below: whether the 95% interval of its score share excludes an even match), "
                         "the Elo difference with its interval, and the games of those separate matches, which the "
                         "ratings above do not use.</p>")
    else:
        parts.append("<p>No games yet.</p>")

    # Elo over games
    parts.append('<h2 id="history">Elo over games</h2>')
    if len(seats):
        parts.append('<div class="card">' + fig(elo_history_figure(elo_history(seats))) + "</div>")
        parts.append('<p class="muted">An online Elo (K = 16) updated game by game in schedule order, '
                     "to show how the ratings settled; the leaderboard's fit does not depend on the order.</p>")

    # Pairwise
    parts.append('<h2 id="pairwise">Head to head</h2>')
    if len(seats):
        parts.append("".join('<div class="card">' + fig(pairwise_heatmap(seats, preset=p, order=board, title=f"Head to head, {_esc(p)}: "
                                                                       "how often the row bot beat the column bot"))
                             + "</div>" for p in presets))

    # Outcomes
    parts.append('<h2 id="outcomes">Per-rule outcomes</h2>')
    if outcomes is not None:
        figures = outcome_figures(outcomes)
        # Many bots: one chart a row, or the grouped bars get too thin to read.
        grid = "grid wide" if outcomes["bot"].nunique() > 12 else "grid"
        parts.append(f'<div class="{grid}">' + "".join(f'<div class="card">{fig(f)}</div>' for f in figures.values()) + "</div>")
        parts.append('<p class="muted">Error bars: 95% Wilson intervals for shares; score intervals of a Poisson '
                     "rate for counts per round.</p>")
        cols = ["games", "rounds", "cabo_calls", "cabo_wins", "kamikaze", "royal_roulette", "resets", "snaps",
                "snaps_right", "failed_multi_exchanges", "powers_used", "deck_outs", "faults"]
        rows = [[_esc(r["preset"]), bot_link(r["bot"])] + [_num(r[c]) for c in cols] + [_num(r["mean_round_score"], "{:.1f}")]
                for _, r in outcomes.iterrows()]
        parts.append("<details><summary>Counts as a table</summary>"
                     + _table(["preset", "bot"] + [c.replace("_", " ") for c in cols] + ["mean round score"], rows,
                              [False, False] + [True] * (len(cols) + 1)) + "</details>")

    # Scores
    parts.append('<h2 id="scores">Scores</h2>')
    if len(seats):
        parts.append('<div class="card">' + fig(score_distribution(seats)) + "</div>")

    # Rejected files and faults: names, kinds and counts only (reasons, tracebacks and printed output quote
    # students' code: they are on teacher.html and each bot's own page)
    parts.append('<h2 id="problems">Rejected files and faults</h2>')
    parts.append("<h3>Rejected files</h3>")
    if len(rejected):
        parts.append(f"<p>{len(rejected)} file{'s' if len(rejected) != 1 else ''} did not load and did not play: "
                     + ", ".join(f"<code>{_esc(f)}</code>" for f in rejected["file"])
                     + '. <span class="muted">Why: on the teacher\'s page.</span></p>')
    else:
        parts.append("<p>None: every file loaded.</p>")
    parts.append("<h3>Faults</h3>")
    if len(faults):
        parts.append(fault_counts_html(faults, bot_link))
        parts.append('<p class="muted">Games lost to a fault of the bot, by kind: error (it raised), timeout, illegal '
                     "(an answer the rules do not allow now), crash (its process died). Each author gets a page with "
                     "every fault of their bot: where it happened, the rule broken, what the bot saw, its traceback "
                     "and how to replay it.</p>")
    else:
        parts.append("<p>None: no bot raised, timed out, played an illegal action or crashed.</p>")

    # Bot sections: results only
    parts.append('<h2 id="bots">Bots</h2>')
    parts.append("<p>" + " · ".join(bot_link(b) for b in bots) + "</p>")
    overviews = bot_overviews(seats, board, outcomes, seed_of, worst)
    for b in bots:
        mine = seats[seats["bot"] == b]
        mf = mine[mine["status"] != "ok"]
        counts = mf["status"].value_counts()
        said = ", ".join(f"{int(counts[k])} {_esc(k)}" for k in _kinds(counts.index))
        parts.append(f'<section class="bot" id="{anchor_of[b]}"><h3>{_esc(b)}</h3>{overviews.get(b, "")}'
                     f"<h4>Faults ({len(mf)})</h4><p>{said + '.' if len(mf) else 'None.'}</p></section>")

    parts.append(time_section(games, seats))

    script = plotly.offline.get_plotlyjs()
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{_esc(title)}</title>"
        f"<style>{_CSS}</style><script type=\"text/javascript\">{script}</script></head>"
        "<body><main>\n" + "\n".join(parts) + "\n</main></body></html>\n"
    )


def _kinds(kinds: Any) -> list[str]:
    """Fault kinds in the order of :data:`~cabo_kit.results.outcomes.FAULT_KINDS`, then any other."""
    from .results.outcomes import FAULT_KINDS

    have = [str(k) for k in kinds]
    return [k for k in FAULT_KINDS if k in have] + sorted(k for k in have if k not in FAULT_KINDS)


def fault_counts_html(faults: "pd.DataFrame", name: Callable[[Any], str] | None = None) -> str:
    """Faults per bot and kind as a table: counts and games only, never a reason (the public report shows it).

    >>> import pandas as pd
    >>> f = pd.DataFrame({"bot": ["a", "a", "b"], "game_id": ["g1", "g2", "g1"], "status": ["crash", "error", "crash"],
    ...                   "fault": ["secret", "secret", "secret"]})
    >>> html = fault_counts_html(f)
    >>> "secret" in html, "<td>a</td>" in html
    (False, True)
    """
    name = name or _esc
    kinds = _kinds(faults["status"].unique())
    rows = []
    for bot, mine in faults.groupby("bot", sort=True):
        counts = mine["status"].value_counts()
        rows.append([name(bot)] + [str(int(counts.get(k, 0))) for k in kinds] + [str(len(mine))])
    return _table(["bot"] + kinds + ["games lost to a fault"], rows, [False] + [True] * (len(kinds) + 1))


def _scored(seats: "pd.DataFrame") -> "pd.DataFrame":
    """``seats`` with the scores every table reads: ``win`` from the statuses, ``_faulter``, ``_stopped``."""
    from .results.outcomes import fair_win, fault_flags

    if not len(seats) or "_stopped" in seats.columns:
        return seats
    faulter, stopped = fault_flags(seats)
    return seats.assign(win=fair_win(seats), _faulter=faulter, _stopped=stopped)


def bot_overviews(seats: "pd.DataFrame", board: "pd.DataFrame", outcomes: "pd.DataFrame | None",
                  seed_of: dict[Any, Any] | None = None, worst: int = 5) -> dict[str, str]:
    """Each bot's results as HTML: per preset its games, Elo, place, win rate, ...; its per-rule outcomes; its worst
    losses. Numbers and game ids only (no reason, no printed output): the report's bot sections and the bots' own
    pages show them.
    """
    from .results.outcomes import RATES

    seats = _scored(seats)
    seed_of = seed_of or {}
    out_of: dict[str, str] = {}
    if not len(seats):
        return out_of
    ended = seats[~seats["_stopped"]]
    best = ended.groupby("game_id")["total"].min()
    winner = ended[ended["rank"] == ended.groupby("game_id")["rank"].transform("min")].groupby("game_id")["bot"].agg(
        lambda s: ", ".join(str(x) for x in s))
    for b in sorted(str(x) for x in seats["bot"].unique()):
        mine = seats[seats["bot"] == b]
        out = []
        versions = sorted(str(v) for v in mine["version"].unique()) if "version" in mine.columns else []
        if versions:
            out.append(f'<p class="muted">file version {_esc(", ".join(versions))}</p>')
        rows = []
        for preset in sorted(mine["preset"].unique()):
            m = mine[mine["preset"] == preset]
            r = board[(board["bot"] == b) & (board["preset"] == preset)]
            elo = (f'{_num(r["elo"].iloc[0])} ({_interval(r["elo_low"].iloc[0], r["elo_high"].iloc[0])})'
                   if len(r) else "–")
            place = _rank_range(r.iloc[0]) if len(r) else "–"
            done = m[~m["_stopped"]]  # games that ended normally
            firsts = int((done["rank"] == 1).sum())
            ranked = m[~m["_stopped"] | m["_faulter"]]  # its own faults rank it last; another's fault: no place
            rows.append([_esc(preset), str(len(m)), elo, f"{place} of {int((board['preset'] == preset).sum())}",
                         _num(m["win"].mean(), "{:.1%}"), str(firsts), _num(ranked["rank"].mean(), "{:.2f}"),
                         _num(done["total"].mean(), "{:.1f}"), str(int((m["status"] != "ok").sum()))])
        out.append(_table(["preset", "games", "Elo [95%]", "place", "win rate", "first places", "mean rank",
                           "mean total", "faults"], rows, [False, True, True, True, True, True, True, True, True]))
        if outcomes is not None:
            mo = outcomes[outcomes["bot"] == b]
            rrows = []
            for name, (_num_col, den, kind, meaning, _rule) in RATES.items():
                if name not in mo.columns:
                    continue
                cells = []
                for preset in sorted(mo["preset"].unique()):
                    r = mo[mo["preset"] == preset].iloc[0]
                    if r[name] != r[name]:
                        cells.append("–")
                    elif kind == "wilson":
                        cells.append(f'{r[name]:.1%} [{r[name + "_low"]:.1%}, {r[name + "_high"]:.1%}] of {int(r[den])}')
                    else:
                        cells.append(f'{r[name]:.3f} [{r[name + "_low"]:.3f}, {r[name + "_high"]:.3f}]')
                if any(c != "–" for c in cells):
                    rrows.append([_esc(meaning)] + cells)
            if rrows:
                out.append("<details><summary>Per-rule outcomes (95% intervals)</summary>"
                           + _table(["rate"] + [_esc(p) for p in sorted(mo["preset"].unique())], rrows) + "</details>")
        lost = mine[(mine["rank"] > 1) & ~mine["_stopped"]].copy()  # a faulted game is listed with the faults
        out.append(f"<h4>Worst losses (up to {worst})</h4>")
        if len(lost):
            lost["behind"] = lost["total"].to_numpy() - lost["game_id"].map(best).to_numpy()
            lost = lost.sort_values(["behind", "rank", "game_index"], ascending=[False, False, True], kind="stable").head(worst)
            rows = [[f'<code>{_esc(r["game_id"])}</code>', _esc(r["preset"]), _esc(seed_of.get(r["game_id"], "?")),
                     f'{int(r["rank"])} of {int(r["table_size"]) if "table_size" in r else "?"}', _num(r["total"]),
                     f'{_num(best[r["game_id"]])} ({_esc(winner.get(r["game_id"], ""))})', _num(r["behind"]),
                     _esc(r["status"])] for _, r in lost.iterrows()]
            out.append(_table(["game", "preset", "deal seed", "rank", "its total", "winning total (winner)", "behind",
                               "status"], rows, [False, False, True, True, True, True, True, False]))
        elif mine["_stopped"].any():
            own = int(mine["_faulter"].sum())
            other = int((mine["_stopped"] & ~mine["_faulter"]).sum())
            why = ("listed with the faults" if not other else f"{own} by its own fault, listed with the faults, and "
                   f"{other} by another bot's fault, not rated for it" if own else "by another bot's fault: not rated for it")
            out.append(f"<p>None in the games that ended normally ({own + other} stopped by a fault: {why}).</p>"
                       if (~mine["_stopped"]).any() else f"<p>None: a fault stopped each of its games ({why}).</p>")
        else:
            out.append("<p>None: it never ranked below first.</p>")
        out_of[b] = "".join(out)
    return out_of


def time_section(games: "pd.DataFrame", seats: "pd.DataFrame") -> str:
    """The report's "Time" section: each bot's CPU over the whole run (decisions, CPU per decision, its share)."""
    import pandas as pd

    from .results.texts import short_duration
    from .results.timing import bot_timing, ms_text

    head = '<h2 id="time">Time</h2>'
    if not len(seats) or "cpu_hist" not in seats.columns:
        return head + "<p>No timing: these games were stored before cabo-kit measured CPU.</p>"
    t = bot_timing(seats).sort_values("cpu_s", ascending=False, na_position="last")
    rows = [[_esc(r["bot"]), "unknown" if pd.isna(r["decisions"]) else f'{int(r["decisions"]):,}',
             "unknown" if r["cpu_s"] != r["cpu_s"] else f'{r["cpu_s"]:.2f}', ms_text(r["cpu_ms_median"]),
             ms_text(r["cpu_ms_p95"]), "unknown" if r["cpu_share"] != r["cpu_share"] else f'{r["cpu_share"]:.1f}%']
            for _, r in t.iterrows()]
    timed = games["seconds"].dropna() if "seconds" in games.columns else games.iloc[:0]
    unknown = int(seats["cpu_hist"].isna().sum())
    note = (f'<p class="muted">Every bot\'s own CPU time, measured where it runs (a submitted file in its isolated '
            "process, a reference bot in the worker): decisions are its <code>choose()</code> calls (the set-up "
            "look and snap windows included), CPU counts its hooks too."
            + (f" The {len(timed)} timed games took {short_duration(float(timed.sum()))} of worker time in all "
               "(bots, engine and processes)." if len(timed) else "")
            + (f" {unknown} seats of games stored before cabo-kit measured CPU count as unknown, not as 0." if unknown else "")
            + "</p>")
    return head + _table(["bot", "decisions", "CPU s", "CPU ms / decision", "p95", "share of the run"], rows,
                         [False, True, True, True, True, True]) + note


def copies_section(folder: "str | os.PathLike[str] | None") -> str:
    """The report's "Possible copies" section, from the last ``cabo-kit tournament copies`` on ``folder``.

    >>> import tempfile
    >>> "cabo-kit tournament copies" in copies_section(tempfile.mkdtemp())
    True
    """
    from .results.copy_flags import CopyFlag, load_flags

    head = '<h2 id="copies">Possible copies</h2>'
    data = load_flags(folder) if folder is not None else None
    if data is None:
        return head + ("<p>Not checked: <code>cabo-kit tournament copies DIR</code> compares every file with the "
                       "reference bots and with each other, and this section shows what it found.</p>")
    flags = [CopyFlag(f["a"], f["b"], bool(f["reference"]), int(f["agreed"]), int(f["decisions"])) for f in data["flags"] or []]
    note = (f'<p class="muted">{len(data["checked"] or [])} files checked on the same {data["decisions"]} probe decisions; '
            f"a pair is listed when it agrees on {float(data['threshold']) * 100:.0f}% or more of the decisions where at "
            "least one of the two departs from SimpleBot's defaults (independent bots: under 50%).</p>")
    if not flags:
        return head + "<p>None: no file plays like a reference bot or like another file.</p>" + note
    rows = [[f"<code>{_esc(f.a)}.py</code>", _esc(f"{f.b} (reference)" if f.reference else f"{f.b}.py"),
             f.percent, str(f.decisions)] for f in flags]
    return head + _table(["file", "plays like", "agreement", "decisions"], rows, [False, False, True, True]) + note


def write_report(
    source: Any,
    out_path: str | os.PathLike[str],
    title: str = "Cabo tournament",
    board: "pd.DataFrame | None" = None,
    anchor: str | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    worst: int = 5,
) -> Path:
    """Write the tournament's self-contained HTML report to ``out_path`` and return its path.

    ``source`` is either a results store (the SQLite file or the tournament folder; frames are
    read with :func:`cabo_kit.tournament.store.load_frames` and ``load_rejected``) or a
    ``(games, seats, rejected)`` tuple of frames (``rejected``: a frame with ``file, reason``,
    a list of ``(file, reason)`` pairs, or left out). Pass ``board`` (from
    :func:`~cabo_kit.results.ratings.fit_elo`) to reuse a fit already made; otherwise it is
    fitted with ``anchor``, ``bootstrap`` and ``seed``. The file embeds plotly's JavaScript
    once, so it opens offline; the same frames and seed give the same bytes.

    >>> import os, tempfile
    >>> import pandas as pd
    >>> seats = pd.DataFrame({"game_id": ["g", "g"], "deal_id": "d", "game_index": 0, "preset": "rush",
    ...     "rules": "{}", "table_size": 2, "seat": [0, 1], "bot": ["A", "B"], "version": "v", "total": [30, 101],
    ...     "rank": [1, 2], "win": [1.0, 0.0], "status": "ok", "fault": "", "rounds": 3, "cabo_calls": [1, 0],
    ...     "cabo_wins": [1, 0], "kamikaze": 0, "royal_roulette": 0, "resets": 0, "snaps": 0, "snaps_right": 0,
    ...     "failed_multi_exchanges": 0, "powers_used": [2, 1], "deck_outs": 0, "round_score_sum": [30, 101]})
    >>> games = seats.drop_duplicates("game_id")[["game_id", "deal_id", "game_index", "preset"]].assign(deal_seed=7, status="ok")
    >>> path = write_report((games, seats, [("bad.py", "SyntaxError")]), os.path.join(tempfile.mkdtemp(), "report.html"))
    >>> "bad.py" in path.read_text(encoding="utf-8")
    True
    """
    games, seats, rejected = _as_frames(source)
    page = report_html(games, seats, rejected, title=title, board=board, anchor=anchor, bootstrap=bootstrap,
                       seed=seed, worst=worst)
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, out)
    return out

