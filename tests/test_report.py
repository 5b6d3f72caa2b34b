"""The tournament report: figures from frames, and the self-contained, escaped HTML file.

The frames are made from real games (``cabo_kit.play_game`` with the reference bots, every
deal played in each seat rotation), with a few faults and a hostile bot name planted in them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

import cabo_kit as ck
from cabo_kit import report
from cabo_kit.tournament.outcomes import per_rule
from cabo_kit.tournament.ratings import elo_history, fit_elo

HOSTILE = "<script>alert(1)</script>"
TRACEBACK = 'Traceback (most recent call last):\n  File "bots/x.py", line 3, in choose\n    1/0\nZeroDivisionError: <b>division</b> by zero'


def frames_from_games(presets: tuple[str, ...] = ("deluxe", "rush"), deals: int = 3) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(games, seats)`` frames, as the store gives them, from real 3-player games."""
    lineup = [("RandomBot", ck.bots.RandomBot), ("GreedyBot", ck.bots.GreedyBot), ("Greedy2", ck.bots.GreedyBot)]
    games, seats = [], []
    index = 0
    for preset in presets:
        rules = ck.Rules.preset(preset)
        for d in range(deals):
            deal_seed = 1000 * d + len(preset)
            for rot in range(len(lineup)):
                order = lineup[rot:] + lineup[:rot]
                record = ck.play_game([cls() for _, cls in order], rules, seed=deal_seed)
                gid = f"{preset}-{d}-{rot}"
                ranks = record.ranking()
                k = len(record.winners)
                rounds = record.rounds
                for seat, (name, _cls) in enumerate(order):
                    stats = [r.stats[seat] for r in rounds]
                    seats.append({
                        "game_id": gid, "deal_id": f"{preset}-{d}", "game_index": index, "preset": preset, "rules": "{}",
                        "table_size": len(order), "seat": seat, "bot": name, "version": "abc123", "total": record.totals[seat],
                        "rank": ranks[seat], "win": 1.0 / k if seat in record.winners else 0.0, "status": "ok", "fault": "",
                        "rounds": len(rounds), "cabo_calls": sum(s["cabo_calls"] for s in stats),
                        "cabo_wins": sum(1 for r in rounds if r.caller == seat and r.caller_won),
                        "kamikaze": sum(seat in r.kamikaze for r in rounds),
                        "royal_roulette": sum(seat in r.royal_roulette for r in rounds),
                        "resets": sum(seat in r.resets for r in rounds), "snaps": sum(s["snaps"] for s in stats),
                        "snaps_right": sum(s["snaps_right"] for s in stats),
                        "failed_multi_exchanges": sum(s["failed_multi_exchanges"] for s in stats),
                        "powers_used": sum(s["peek"] + s["spy"] + s["swap"] + s["peek_swap"] + s["spy_swap"] for s in stats),
                        "deck_outs": sum(r.ended_by == "deck" for r in rounds),
                        "round_score_sum": sum(r.scores[seat] for r in rounds),
                    })
                games.append({"game_id": gid, "deal_id": f"{preset}-{d}", "game_index": index, "preset": preset,
                              "rules": "{}", "table_size": len(order), "deal_seed": deal_seed, "status": "ok",
                              "n_rounds": len(rounds), "record_sha256": "0" * 64})
                index += 1
    return pd.DataFrame(games), pd.DataFrame(seats)


@pytest.fixture(scope="module")
def frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    games, seats = frames_from_games()
    # Plant a hostile name and two faults (the faulting seat ranks last and does not win).
    seats.loc[seats["bot"] == "Greedy2", "bot"] = HOSTILE
    for gid, kind in (("deluxe-1-0", "error"), ("rush-2-1", "timeout")):
        rows = (seats["game_id"] == gid) & (seats["bot"] == HOSTILE)
        seats.loc[rows, ["status", "fault", "rank", "win"]] = [kind, TRACEBACK if kind == "error" else "no reply within 1.0 s",
                                                               3, 0.0]
        others = (seats["game_id"] == gid) & ~rows
        seats.loc[others, "rank"] = seats.loc[others, "total"].rank(method="min").astype(int)
        seats.loc[others, "win"] = (seats.loc[others, "rank"] == 1).astype(float)
        games.loc[games["game_id"] == gid, "status"] = "fault"
    rejected = pd.DataFrame({"file": ["broken.py", "two_classes.py"],
                             "reason": ["SyntaxError: invalid syntax (broken.py, line 4)",
                                        "defines 2 Bot classes (A, B): keep exactly one"]})
    return games, seats, rejected


@pytest.fixture(scope="module")
def page(frames: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame], tmp_path_factory: pytest.TempPathFactory) -> str:
    path = report.write_report(frames, tmp_path_factory.mktemp("rep") / "report.html", title="Class <3B> tournament",
                               bootstrap=40)
    return path.read_text(encoding="utf-8")


def test_report_is_self_contained(page: str) -> None:
    import plotly.offline

    assert page.startswith("<!DOCTYPE html>")
    assert page.count(plotly.offline.get_plotlyjs()[:2000]) == 1  # plotly's JavaScript, embedded exactly once
    assert not re.search(r"<script[^>]*\bsrc\s*=", page, flags=re.I)
    assert not re.search(r"<link[^>]*\bhref\s*=\s*[\"']?https?:", page, flags=re.I)
    assert page.count('class="plotly-graph-div"') >= 5


def test_report_has_every_section(page: str) -> None:
    for anchor in ("leaderboard", "history", "pairwise", "outcomes", "scores", "problems", "bots"):
        assert f'id="{anchor}"' in page
    for title in ("Elo by preset", "Online Elo over the games", "Head to head", "Cabo calls that won the round",
                  "Final game totals"):
        assert title in page


def test_report_has_a_section_per_bot_with_faults_and_losses(page: str, frames: tuple[pd.DataFrame, ...]) -> None:
    sections = re.findall(r'<section class="bot" id="bot-\d+"><h3>(.*?)</h3>(.*?)</section>', page, flags=re.S)
    assert sorted(name for name, _ in sections) == sorted(["GreedyBot", "RandomBot", "&lt;script&gt;alert(1)&lt;/script&gt;"])
    body = {name: text for name, text in sections}
    hostile = body["&lt;script&gt;alert(1)&lt;/script&gt;"]
    # Its faults as kinds and counts only: the traceback and the reason are on its own page, not here.
    assert "Faults (2)</h4><p>1 error, 1 timeout.</p>" in hostile
    assert "ZeroDivisionError" not in hostile and "no reply within 1.0 s" not in hostile
    assert "Faults (0)" in body["GreedyBot"]
    assert "Worst losses" in body["RandomBot"] and "deal seed" in body["RandomBot"]
    # The worst loss listed first is the game where RandomBot finished furthest behind.
    seats = frames[1]
    mine = seats[(seats["bot"] == "RandomBot") & (seats["rank"] > 1)]
    behind = mine["total"] - mine["game_id"].map(seats.groupby("game_id")["total"].min())
    worst_game = mine.loc[behind.idxmax(), "game_id"]
    losses = body["RandomBot"].split("Worst losses")[1]
    assert losses.index(f"<code>{worst_game}</code>") == losses.index("<code>")


def test_report_names_rejected_files_and_counts_faults_without_their_reasons(page: str) -> None:
    problems = page.split('id="problems"')[1].split('id="bots"')[0]
    assert "<code>broken.py</code>" in problems and "<code>two_classes.py</code>" in problems
    assert "SyntaxError" not in problems and "keep exactly one" not in problems  # reasons: on teacher.html
    assert "<th>error</th><th>timeout</th>" in problems  # counts per bot and kind
    assert "no reply within 1.0 s" not in page and "ZeroDivisionError" not in page and "Traceback" not in page


def test_report_escapes_hostile_text(page: str) -> None:
    assert HOSTILE not in page
    assert "<b>division</b>" not in page
    assert "Class &lt;3B&gt; tournament" in page
    # Inside the figures' JSON the name is escaped too (plotly shows entities as text).
    scripts = re.findall(r"<script[^>]*>(.*?)</script>", page, flags=re.S)
    assert not any("alert(1)</" in s for s in scripts)


def test_leaderboard_table_matches_the_fit(page: str, frames: tuple[pd.DataFrame, ...]) -> None:
    board = fit_elo(frames[1], bootstrap=40)
    leaderboard = page.split('id="leaderboard"')[1].split('id="history"')[0]
    assert "plausible rank</th>" in leaderboard
    for _, row in board.iterrows():
        assert f"{row['elo']:.0f}</td>" in leaderboard
        assert f"{row['elo_low']:.0f} – {row['elo_high']:.0f}" in leaderboard
        ranks = str(row["rank_low"]) if row["rank_low"] == row["rank_high"] else f"{row['rank_low']}–{row['rank_high']}"
        assert f"<td>{ranks}</td>" in leaderboard or f'>{ranks}</td>' in leaderboard


def test_a_bot_below_the_field_is_shown_with_its_bound(frames: tuple[pd.DataFrame, ...]) -> None:
    games, seats, rejected = frames
    board = fit_elo(seats, bootstrap=40)
    weak = board.index[board["bot"] == board["bot"].iloc[-1]][0]
    board.loc[weak, "elo_low"] = float("-inf")  # as fit_elo marks a bot separated below the field
    page = report.report_html(games, seats, rejected, board=board)
    leaderboard = page.split('id="leaderboard"')[1].split('id="history"')[0]
    assert f"below {board.loc[weak, 'elo_high']:.0f}" in leaderboard
    assert "centred on the field" in page and "one-sided bound" in page


def test_report_is_deterministic(frames: tuple[pd.DataFrame, ...], page: str, tmp_path: Path) -> None:
    again = report.write_report(frames, tmp_path / "again.html", title="Class <3B> tournament", bootstrap=40)
    assert again.read_text(encoding="utf-8") == page


def test_figures_from_frames(frames: tuple[pd.DataFrame, ...]) -> None:
    games, seats, _ = frames
    board = fit_elo(seats, bootstrap=20)
    lead = report.leaderboard_figure(board)
    assert [t.name for t in lead.data] == ["deluxe", "rush"]
    deluxe = board[board["preset"] == "deluxe"].sort_values("elo")
    assert list(lead.data[0].x) == pytest.approx(deluxe["elo"].tolist())
    assert list(lead.data[0].error_x.arrayminus) == pytest.approx((deluxe["elo"] - deluxe["elo_low"]).tolist())
    hist = report.elo_history_figure(elo_history(seats))
    assert {t.name for t in hist.data} == {"RandomBot", "GreedyBot", "&lt;script&gt;alert(1)&lt;/script&gt;"}
    heat = report.pairwise_heatmap(seats, preset="rush")
    z = heat.data[0].z
    n = len(z)
    assert all(z[i][i] is None for i in range(n))
    assert all(z[i][j] + z[j][i] == pytest.approx(1.0) for i in range(n) for j in range(n) if i != j)
    outs = report.outcome_figures(per_rule(seats))
    assert {"cabo_success", "cabo_rate", "fault_rate", "mean_round_score", "faults"} <= set(outs)
    assert "snap_accuracy" in outs  # rush snaps
    box = report.score_distribution(seats)
    # The two games a fault stopped have no final totals: their 3 seats each are left out, and the title says so.
    assert sum(len(t.y) for t in box.data) == len(seats) - 2 * 3
    assert "2 games ended by a fault left out" in box.layout.title.text


def test_write_report_from_a_results_store(frames: tuple[pd.DataFrame, ...], tmp_path: Path) -> None:
    from cabo_kit.tournament.store import COUNTS, GameRow, SeatRow, Store

    games, seats, rejected = frames
    db = tmp_path / "results.sqlite"
    with Store(db) as store:
        for _, g in games.iterrows():
            rows = seats[seats["game_id"] == g["game_id"]]
            store.add_game(
                GameRow(g["game_id"], g["deal_id"], f"{g['game_index']:05d}", g["preset"], "{}", int(g["table_size"]),
                        int(g["deal_seed"]), 0, g["status"], int(g["n_rounds"]), b"{}"),
                [SeatRow(int(s["seat"]), s["bot"], s["version"], int(s["total"]), int(s["rank"]), float(s["win"]),
                         s["status"], s["fault"], {c: int(s[c]) for c in COUNTS}) for _, s in rows.iterrows()],
            )
        store.set_rejected(list(rejected.itertuples(index=False, name=None)))
    out = report.write_report(db, tmp_path / "report.html", bootstrap=10).read_text(encoding="utf-8")
    assert "broken.py" in out and "ZeroDivisionError" not in out and HOSTILE not in out
    assert out.count('<section class="bot"') == 3


def test_bad_source_is_explained(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="results store path or a \\(games, seats, rejected\\)"):
        report.write_report(42, tmp_path / "r.html")


def test_importing_cabo_kit_does_not_load_the_report_stack() -> None:
    import subprocess
    import sys

    code = "import sys, cabo_kit; print(any(m in sys.modules for m in ('pandas', 'numpy', 'plotly', 'cabo_kit.report')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"


def test_a_bot_that_never_wins_does_not_stretch_the_leaderboard_axis() -> None:
    """Issue 18, must 3: the axis comes from the two-sided bots; the one-sided one sits at the edge with its text."""
    board = pd.DataFrame({
        "bot": ["A", "B", "C", "D", "never_wins", "unbeaten"], "preset": "rush",
        "elo": [1060.0, 1010.0, 980.0, 950.0, -1514.0, 2400.0],
        "elo_low": [1010.0, 960.0, 930.0, 900.0, float("-inf"), 1150.0],
        "elo_high": [1110.0, 1060.0, 1030.0, 1000.0, 690.0, float("inf")],
        "games": 96, "win_rate": [0.4, 0.3, 0.2, 0.1, 0.0, 0.9]})
    fig = report.leaderboard_figure(board)
    low, high = fig.layout.xaxis.range
    assert 800 < low < 900 and 1150 < high < 1250  # the class fills the panel (the bound 1150 is taken in)
    texts = {t.text[0]: t.x[0] for t in fig.data if t.mode == "text+markers"}
    assert texts == {"below 690": low, "above 1150": 1150.0}  # 690 is clipped to the edge, 1150 is drawn
    arrows = [t for t in fig.data if t.mode == "markers" and t.marker.symbol in ("triangle-left", "triangle-right")]
    assert sorted((t.marker.symbol, t.x[0]) for t in arrows) == [("triangle-left", low), ("triangle-right", high)]


def test_a_bound_beyond_the_other_side_keeps_its_words_inside_the_panel() -> None:
    """A "below X" whose X lies above the axis (a late file that lost its few games), and an "above X" whose X
    lies below it: each is clipped to the far edge, its words point back into the panel."""
    inf = float("inf")
    board = pd.DataFrame({
        "bot": ["A", "B", "C", "late_low", "late_high"], "preset": "rush",
        "elo": [1060.0, 1000.0, 950.0, 700.0, 1300.0],
        "elo_low": [1010.0, 950.0, 900.0, -inf, 700.0], "elo_high": [1110.0, 1050.0, 1000.0, 1500.0, inf],
        "games": 9, "win_rate": [0.5, 0.4, 0.3, 0.0, 1.0]})
    fig = report.leaderboard_figure(board)
    low, high = fig.layout.xaxis.range
    words = {t.text[0]: (t.x[0], t.textposition) for t in fig.data if t.mode == "text+markers"}
    assert words == {"below 1500": (high, "middle left"), "above 700": (low, "middle right")}
    # The usual side: a bound by the left edge has its words to the right, and mirrored.
    usual = report.leaderboard_figure(board.assign(elo_high=[1110.0, 1050.0, 1000.0, 890.0, inf],
                                                   elo_low=[1010.0, 950.0, 900.0, -inf, 1120.0]))
    assert sorted(t.textposition for t in usual.data if t.mode == "text+markers") == ["middle left", "middle right"]


def test_a_board_without_intervals_keeps_its_estimates() -> None:
    """bootstrap=0 gives NaN ends: every bot is a marker at its estimate, without a bar; only +-inf is one-sided."""
    nan = float("nan")
    board = pd.DataFrame({"bot": ["A", "B", "C"], "preset": "rush", "elo": [1150.0, 1000.0, 850.0],
                          "elo_low": [nan, nan, -float("inf")], "elo_high": [nan, nan, 700.0],
                          "games": 10, "win_rate": [0.6, 0.4, 0.0]})
    fig = report.leaderboard_figure(board)
    plain = [t for t in fig.data if t.mode == "markers" and t.marker.symbol is None and t.error_x.array is None]
    assert sorted(x for t in plain for x in t.x) == [1000.0, 1150.0]
    low, high = fig.layout.xaxis.range
    assert low < 1000.0 and high > 1150.0
    assert [t.text[0] for t in fig.data if t.mode == "text+markers"] == ["below 700"]
    fitted = fit_elo(_frames_for_board(), bootstrap=0)
    figure = report.leaderboard_figure(fitted)
    shown = sorted(x for t in figure.data if t.mode == "markers" and t.marker.symbol is None for x in t.x)
    assert fitted["elo_low"].isna().all() and shown == sorted(fitted["elo"].tolist())


def _frames_for_board() -> pd.DataFrame:
    rows = []
    for g, (first, second) in enumerate([("A", "B"), ("B", "A"), ("A", "B"), ("B", "C"), ("C", "A")]):
        for bot, rank in ((first, 1), (second, 2)):
            rows.append({"game_id": f"g{g}", "deal_id": f"d{g}", "game_index": g, "preset": "rush",
                         "bot": bot, "rank": rank, "win": float(rank == 1)})
    return pd.DataFrame(rows)
