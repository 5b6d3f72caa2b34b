"""Faults scored fairly (issue 17, must 2): a faulted game is a loss of the faulting seat against
every other seat and nothing among the others, in Elo, online Elo, head to head, OpenSkill, win
rates, mean totals and the score chart; read from the statuses, so old stores are rescored.

The central test plays a real class with a bot that faults at its first decision in every game:
every other bot's Elo must be within 2 points of, and rank the same as, its Elo fitted from the
same store with that bot's games removed. Only APIs that existed before the change are imported
at the top, so the file also runs (and that test fails) against the earlier scoring.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cabo_kit.tournament.ratings import (
    ELO_SCALE, elo_history, fit_elo, openskill_ratings, pairwise_table, precision_needs,
)
from cabo_kit.tournament.runner import run_tournament
from cabo_kit.tournament.store import load_frames

HERE = Path(__file__).parent

FAULTER = '''"""Faults at its first decision in every game."""

import cabo_kit as ck


class Faulter(ck.Bot):
    def choose(self, observation, legal_actions):
        raise RuntimeError("the bot's own bug, at its first decision")
'''

CLASS_TOML = """
presets = ["rush"]
table_sizes = [3]
games = 24
seed = 3
reference = ["GreedyBot", "CountingBot"]
"""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A class of five at 3-player tables (60 real games): three submitted files, one of which
    faults at once in each of its 36 games, and two reference bots."""
    folder = tmp_path_factory.mktemp("class")
    (folder / "bots").mkdir()
    (folder / "bots" / "faulter.py").write_text(FAULTER)
    for name in ("steady.py", "cautious.py"):
        (folder / "bots" / name).write_text((HERE / "tournament_bots" / name).read_text())
    (folder / "tournament.toml").write_text(CLASS_TOML)
    summary = run_tournament(folder, workers=2, progress=False, out=None)
    assert summary.played == 60 and summary.faults == 36
    return folder


def without(seats: pd.DataFrame, bot: str) -> pd.DataFrame:
    """The frame with every game ``bot`` sat in removed."""
    return seats[~seats["game_id"].isin(set(seats.loc[seats["bot"] == bot, "game_id"]))]


def test_a_bot_faulting_every_game_changes_no_other_bots_rating(played: Path) -> None:
    _, seats = load_frames(played)
    assert set(seats.loc[seats["bot"] == "faulter", "status"]) == {"error"}
    full = fit_elo(seats, bootstrap=200, seed=1).set_index("bot")
    alone = fit_elo(without(seats, "faulter"), bootstrap=200, seed=1).set_index("bot")
    others = list(alone.index)
    assert sorted(others) == ["CountingBot", "GreedyBot", "cautious", "steady"]
    gaps = {b: round(float(full.loc[b, "elo"] - alone.loc[b, "elo"]), 1) for b in others}
    assert all(abs(g) <= 2.0 for g in gaps.values()), gaps
    assert [int(full.loc[b, "rank"]) for b in others] == [int(alone.loc[b, "rank"]) for b in others]
    # Their win rates leave the games the fault stopped out; the faulting bot lost all of its games.
    assert full.loc[others, "win_rate"].tolist() == alone.loc[others, "win_rate"].tolist()
    assert int(full.loc["faulter", "rank"]) == 5 and full.loc["faulter", "win_rate"] == 0.0
    assert full.loc["faulter", "elo_low"] == -np.inf  # it never won: an upper bound only
    assert int(full.loc["faulter", "games"]) == 36
    # A precision target (the adaptive scheduler) never waits on it, and waits on the others as before.
    # (The games a bot still needs come from bootstrap intervals of 60 games: with 200 resamples they move by
    # 20-40 games from one seed to another, so these fits take 1,000 and compare within a quarter.)
    full = fit_elo(seats, bootstrap=1000, seed=1)
    alone = fit_elo(without(seats, "faulter"), bootstrap=1000, seed=1)
    needs = precision_needs(full, "rush")
    assert np.isnan(needs["faulter"][1])
    assert {b: needs[b][1] for b in others} == pytest.approx({b: needs_alone[1] for b, needs_alone in
                                                              precision_needs(alone, "rush").items()}, rel=0.25)


def old_shares(seats: pd.DataFrame) -> pd.Series:
    """The win shares stored before the fix: in a faulted game the other seats shared the win at their standing."""
    stopped = seats.groupby("game_id")["status"].transform(lambda s: (s != "ok").any())
    live = seats["status"] == "ok"
    best = seats["rank"].where(live).groupby(seats["game_id"]).transform("min")
    first = live & (seats["rank"] == best)
    share = 1.0 / first.groupby(seats["game_id"]).transform("sum")
    return seats["win"].where(~stopped, first.astype(float) * share)


def test_a_store_with_the_old_shared_wins_is_rescored_the_same(played: Path, tmp_path: Path) -> None:
    from cabo_kit.tournament.outcomes import fault_flags

    _, seats = load_frames(played)
    old = tmp_path / "results.sqlite"
    with sqlite3.connect(played / "results.sqlite") as src, sqlite3.connect(old) as dst:
        src.backup(dst)
    # Rewrite the stored shares as the earlier runner wrote them (the other seats shared the win).
    with sqlite3.connect(old) as con:
        raw = pd.read_sql_query("SELECT game_id, seat, rank, status, win FROM seats", con)
        raw["win"] = old_shares(raw)
        con.executemany("UPDATE seats SET win=? WHERE game_id=? AND seat=?",
                        list(zip(raw["win"], raw["game_id"], raw["seat"])))
        assert con.execute("SELECT SUM(win) FROM seats WHERE status='ok' AND game_id IN "
                           "(SELECT game_id FROM games WHERE status='fault')").fetchone()[0] == 36.0
    _, reread = load_frames(old)
    pd.testing.assert_frame_equal(reread, seats)  # load_frames scores from the statuses, not the stored shares
    board = fit_elo(reread, bootstrap=200, seed=1)
    assert board.to_csv(index=False) == fit_elo(seats, bootstrap=200, seed=1).to_csv(index=False)
    stopped = fault_flags(reread)[1]
    assert reread.loc[stopped & (reread["status"] == "ok"), "win"].isna().all()


def test_every_score_ignores_the_standing_of_the_other_seats_when_a_fault_stopped_the_game(played: Path) -> None:
    _, seats = load_frames(played)
    stopped = seats["game_id"].isin(set(seats.loc[seats["status"] != "ok", "game_id"]))
    rng = np.random.default_rng(5)
    # Any standing (rank, total, stored share) of the other seats at the fault: the same scores.
    shuffled = seats.copy()
    others = stopped & (seats["status"] == "ok")
    shuffled.loc[others, "rank"] = rng.integers(1, 3, size=int(others.sum()))
    shuffled.loc[others, "win"] = rng.random(int(others.sum()))
    shuffled.loc[others, "total"] = rng.integers(0, 90, size=int(others.sum()))
    same = [lambda f: fit_elo(f, bootstrap=50, seed=2), elo_history, pairwise_table, openskill_ratings]
    for score in same:
        pd.testing.assert_frame_equal(score(shuffled), score(seats))
    # Head to head: each other bot beat the faulting one in every game they shared.
    table = pairwise_table(seats).set_index(["bot", "opponent"])
    for b in ("CountingBot", "GreedyBot", "cautious", "steady"):
        assert table.loc[(b, "faulter"), "rate"] == 1.0 and table.loc[("faulter", b), "rate"] == 0.0
    # OpenSkill agrees on the order of the other bots with and without the faulting bot's games.
    skill = openskill_ratings(seats)
    alone = openskill_ratings(without(seats, "faulter"))
    assert [b for b in skill["bot"] if b != "faulter"] == list(alone["bot"]) and skill["bot"].iloc[-1] == "faulter"


def test_the_report_leaves_stopped_games_out_of_totals_and_places(played: Path) -> None:
    from cabo_kit.report import report_html, score_distribution
    from cabo_kit.tournament.outcomes import per_rule

    games, seats = load_frames(played)
    fig = score_distribution(seats)
    assert "36 games ended by a fault left out" in fig.layout.title.text
    shown = {str(x) for trace in fig.data for x in trace.x}
    assert "faulter" not in shown and len(fig.data[0].y) == len(seats) - 3 * 36
    outcomes = per_rule(seats).set_index("bot")
    assert np.isnan(outcomes.loc["faulter", "mean_total"]) and outcomes.loc["faulter", "fault_rate"] == 1.0
    ended = seats[~seats["game_id"].isin(set(games.loc[games["status"] == "fault", "game_id"]))]
    assert outcomes.loc["steady", "mean_total"] == pytest.approx(ended.loc[ended["bot"] == "steady", "total"].mean())
    page = report_html(games, seats, bootstrap=20)
    section = page.split('<h3>faulter</h3>')[1].split("</section>")[0]
    # preset, games, Elo, place, win rate, first places, mean rank, mean total, faults
    cells = [c for c in section.split("<tbody>")[1].split("</tr>")[0].split("<td")[1:]]
    text = [c.split(">", 1)[1].split("</td>")[0] for c in cells]
    assert text[1] == "36" and text[4:] == ["0.0%", "0", "3.00", "–", "36"], text
    assert "None: a fault stopped each of its games (listed with the faults)." in section


def class_with_a_late_faulter(seed: int) -> pd.DataFrame:
    """A synthetic class at 4-player tables (every deal in all rotations), where ``Crasher`` sits in a
    third of the tables and faults at a random moment of each of its games: the other seats then
    hold a random standing with the shared win the earlier runner stored."""
    rng = np.random.default_rng(seed)
    elos = {"Random": 600.0, "Basic": 950.0, "Careful": 1000.0, "Counter": 1100.0, "Shark": 1250.0, "Crasher": 900.0}
    names = list(elos)
    strength = np.array([elos[b] / ELO_SCALE for b in names])
    rows = []
    index = 0
    for d in range(240):
        pick = rng.choice(len(names), size=4, replace=False)
        for r in range(4):
            order = np.roll(pick, r)
            crash = [names[b] == "Crasher" for b in order]
            keys = strength[order] + rng.gumbel(size=4)
            if any(crash):
                keys = rng.random(4)  # the standing when the game stopped: anything
                keys[crash.index(True)] = -1.0
            ranks = np.empty(4, dtype=int)
            ranks[np.argsort(-keys)] = np.arange(1, 5)
            for seat, (b, rank) in enumerate(zip(order, ranks)):
                rows.append({"game_id": f"g{d}-{r}", "deal_id": f"d{d}", "game_index": index, "preset": "deluxe",
                             "seat": seat, "bot": names[b], "rank": int(rank), "win": float(rank == 1),
                             "status": "error" if names[b] == "Crasher" else "ok"})
            index += 1
    return pd.DataFrame(rows)


def test_a_synthetic_class_with_a_faulter_at_four_player_tables() -> None:
    seats = class_with_a_late_faulter(seed=8)
    full = fit_elo(seats, bootstrap=100).set_index("bot")
    alone = fit_elo(without(seats, "Crasher"), bootstrap=100).set_index("bot")
    for b in alone.index:
        assert abs(full.loc[b, "elo"] - alone.loc[b, "elo"]) <= 2.0, (b, full.loc[b, "elo"], alone.loc[b, "elo"])
        assert full.loc[b, "rank"] == alone.loc[b, "rank"] and full.loc[b, "win_rate"] == alone.loc[b, "win_rate"]
    assert full["rank"].idxmax() == "Crasher"


def test_online_elo_moves_only_the_pairs_with_the_faulting_seat() -> None:
    # One 3-player game: A ahead of B when C faulted. C loses to both; A and B have no result.
    seats = pd.DataFrame({"game_id": "g", "deal_id": "d", "game_index": 0, "preset": "rush", "seat": [0, 1, 2],
                          "bot": ["A", "B", "C"], "rank": [1, 2, 3], "win": [1.0, 0.0, 0.0],
                          "status": ["ok", "ok", "timeout"]})
    after = dict(zip(*elo_history(seats, k=16.0)[["bot", "elo"]].to_numpy().T))
    assert after == {"A": 1004.0, "B": 1004.0, "C": 992.0}
    normal = seats.assign(status="ok")  # the same ranks in a game that ended: A beat B too
    after = dict(zip(*elo_history(normal, k=16.0)[["bot", "elo"]].to_numpy().T))
    assert after == {"A": 1008.0, "B": 1000.0, "C": 992.0}


def test_win_shares_come_from_the_statuses() -> None:
    from cabo_kit.tournament.outcomes import fair_win
    from cabo_kit.tournament.runner import final_ranking

    seats = pd.DataFrame({"game_id": ["g1"] * 2 + ["g2"] * 3 + ["g3"] * 3, "rank": [1, 2, 1, 1, 3, 1, 1, 3],
                          "win": [1.0, 0.0, 0.5, 0.5, 0.0, 0.5, 0.5, 0.0],
                          "status": ["ok", "crash", "ok", "ok", "illegal", "ok", "ok", "ok"]})
    assert np.array_equal(fair_win(seats), [np.nan, 0.0, np.nan, np.nan, 0.0, 0.5, 0.5, 0.0], equal_nan=True)
    # The runner stores no winner for a game a fault stopped (its record has none either).
    assert final_ranking([0, 0, 0], None, 1) == ([1, 3, 1], [0.0, 0.0, 0.0])
