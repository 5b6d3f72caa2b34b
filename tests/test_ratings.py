"""Ratings and per-rule outcomes on synthetic tournaments with known strengths.

Games are simulated from a Plackett-Luce model (whose pairwise marginals are exactly
Bradley-Terry) with a seeded generator, as duplicate deals: every deal is played in every
seat rotation, the rotations sharing a ``deal_id``, as the tournament runner does.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from cabo_kit.tournament.outcomes import per_rule, poisson_score, wilson
from cabo_kit.tournament.ratings import (
    ELO_SCALE, PRIOR_GAMES, bradley_terry, elo_history, fit_elo, openskill_ratings, pairwise_outcomes, pairwise_table,
)

TRUE = {"RandomBot": 1000.0, "Basic": 1100.0, "Careful": 1200.0, "Counter": 1350.0, "Shark": 1500.0}


def simulate(elos: dict[str, float], deals: int, table: int = 4, preset: str = "deluxe", seed: int = 0,
             start_index: int = 0) -> pd.DataFrame:
    """A seats frame of ``deals`` duplicate deals, each played in all ``table`` rotations."""
    rng = np.random.default_rng(seed)
    names = list(elos)
    log_strength = np.array([elos[b] / ELO_SCALE for b in names])
    rows = []
    index = start_index
    for d in range(deals):
        pick = rng.choice(len(names), size=table, replace=False)
        for r in range(table):
            order = np.roll(pick, r)
            # Gumbel-max sampling of a Plackett-Luce ranking: sort by strength plus Gumbel noise.
            keys = log_strength[order] + rng.gumbel(size=table)
            ranks = np.empty(table, dtype=int)
            ranks[np.argsort(-keys)] = np.arange(1, table + 1)
            for seat, (b, rank) in enumerate(zip(order, ranks)):
                rows.append({"game_id": f"{preset}-{d}-{r}", "deal_id": f"{preset}-{d}", "game_index": index,
                             "preset": preset, "seat": seat, "bot": names[b], "rank": int(rank),
                             "win": float(rank == 1)})
            index += 1
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def known() -> pd.DataFrame:
    return simulate(TRUE, deals=400, seed=11)


def test_recovers_known_strengths(known: pd.DataFrame) -> None:
    board = fit_elo(known, anchor="RandomBot", bootstrap=200, seed=3)
    assert list(board["bot"]) == sorted(TRUE, key=TRUE.get, reverse=True)
    fitted = dict(zip(board["bot"], board["elo"]))
    for bot, truth in TRUE.items():
        assert abs(fitted[bot] - truth) < 40, (bot, fitted[bot], truth)
    others = board[board["bot"] != "RandomBot"]
    assert ((others["elo_low"] <= others["bot"].map(TRUE)) & (others["bot"].map(TRUE) <= others["elo_high"])).all()
    width = others["elo_high"] - others["elo_low"]
    assert (width > 10).all() and (width < 120).all()
    assert list(board.columns) == ["bot", "preset", "elo", "elo_low", "elo_high", "rank", "rank_low", "rank_high",
                                   "games", "win_rate"]
    assert (board["games"] == known.groupby("bot").size().reindex(board["bot"]).to_numpy()).all()


def test_intervals_cover_the_truth_about_95_percent_of_the_time() -> None:
    covered = total = 0
    for rep in range(10):
        seats = simulate(TRUE, deals=60, seed=100 + rep)
        board = fit_elo(seats, anchor="RandomBot", bootstrap=100, seed=rep)
        others = board[board["bot"] != "RandomBot"]
        truth = others["bot"].map(TRUE)
        covered += int(((others["elo_low"] <= truth) & (truth <= others["elo_high"])).sum())
        total += len(others)
    assert covered / total >= 0.85, f"only {covered} of {total} intervals cover the true Elo"


def test_anchor_is_1000_and_mean_is_1000_without_it(known: pd.DataFrame) -> None:
    board = fit_elo(known, anchor="RandomBot", bootstrap=30)
    anchor = board[board["bot"] == "RandomBot"].iloc[0]
    assert (anchor["elo"], anchor["elo_low"], anchor["elo_high"]) == (1000.0, 1000.0, 1000.0)
    no_random = known[known["game_id"].isin(known.groupby("game_id").filter(lambda g: "RandomBot" not in set(g["bot"]))["game_id"])]
    board = fit_elo(no_random, bootstrap=30)
    assert "RandomBot" not in set(board["bot"])
    assert board["elo"].mean() == pytest.approx(1000.0)
    # Another anchor may be named; the gaps between bots do not depend on the anchor.
    other = fit_elo(known, anchor="Shark", bootstrap=0)
    base = fit_elo(known, bootstrap=0)
    assert float(other.loc[other["bot"] == "Shark", "elo"].iloc[0]) == 1000.0
    gap = lambda b: float(b.loc[b["bot"] == "Counter", "elo"].iloc[0] - b.loc[b["bot"] == "Basic", "elo"].iloc[0])  # noqa: E731
    assert gap(other) == pytest.approx(gap(base))


def test_presets_are_rated_separately_never_pooled() -> None:
    reverse = {b: 2500.0 - e for b, e in TRUE.items()}
    deluxe = simulate(TRUE, deals=150, preset="deluxe", seed=1)
    rush = simulate(reverse, deals=150, preset="rush", seed=2, start_index=len(deluxe))
    both = fit_elo(pd.concat([deluxe, rush], ignore_index=True), bootstrap=50, seed=9)
    assert list(both[both["preset"] == "deluxe"]["bot"]) == sorted(TRUE, key=TRUE.get, reverse=True)
    assert list(both[both["preset"] == "rush"]["bot"]) == sorted(TRUE, key=TRUE.get)
    alone = fit_elo(rush, bootstrap=50, seed=9)
    together = both[both["preset"] == "rush"].reset_index(drop=True)
    pd.testing.assert_frame_equal(together, alone)


def test_bootstrap_resamples_whole_deals() -> None:
    # One game per deal, versus the same deals each played four times with the same result:
    # if the bootstrap draws deals, the four copies move together and the intervals are the same
    # (the prior scaled with the copies keeps the fits identical).
    single = simulate(TRUE, deals=80, table=4, seed=5)
    single = single[single["game_id"].str.endswith("-0")].reset_index(drop=True)
    copies = []
    for c in range(4):
        part = single.copy()
        part["game_id"] = part["game_id"] + f"-copy{c}"
        copies.append(part)
    four = pd.concat(copies, ignore_index=True)
    a = fit_elo(single, bootstrap=80, seed=4, prior_games=1.0)
    b = fit_elo(four, bootstrap=80, seed=4, prior_games=4.0)
    np.testing.assert_allclose(a[["elo", "elo_low", "elo_high"]].to_numpy(), b[["elo", "elo_low", "elo_high"]].to_numpy(),
                               atol=1e-6)
    # Resampling games instead (each copy its own deal) would wrongly halve the intervals.
    four_deals = four.assign(deal_id=four["game_id"])
    c = fit_elo(four_deals, bootstrap=80, seed=4, prior_games=4.0)
    wide = (b["elo_high"] - b["elo_low"])[b["bot"] != "RandomBot"].mean()
    narrow = (c["elo_high"] - c["elo_low"])[c["bot"] != "RandomBot"].mean()
    assert narrow < 0.7 * wide


def game_rows(results: list[tuple[str, str, int, int]], preset: str = "rush") -> pd.DataFrame:
    """Two-player games from ``(bot_a, bot_b, rank_a, rank_b)``, each its own deal."""
    rows = []
    for g, (a, b, ra, rb) in enumerate(results):
        k = 2 if ra == rb else 1
        for seat, (bot, rank, other) in enumerate(((a, ra, rb), (b, rb, ra))):
            rows.append({"game_id": f"g{g}", "deal_id": f"d{g}", "game_index": g, "preset": preset, "seat": seat,
                         "bot": bot, "rank": rank, "win": (1.0 / k) if rank <= other else 0.0})
    return pd.DataFrame(rows)


def test_draws_count_half_a_win() -> None:
    even = game_rows([("A", "B", 1, 1)] * 6)
    board = fit_elo(even, anchor="A", bootstrap=20)
    assert board["elo"].tolist() == pytest.approx([1000.0, 1000.0])
    assert board["win_rate"].tolist() == pytest.approx([0.5, 0.5])
    # 3 wins and 2 draws: 4 of 5 points, so the unregularised fit gives odds of 4:1.
    mixed = game_rows([("A", "B", 1, 2)] * 3 + [("A", "B", 1, 1)] * 2)
    board = fit_elo(mixed, anchor="B", bootstrap=0, prior_games=0.0)
    assert float(board.loc[board["bot"] == "A", "elo"].iloc[0]) == pytest.approx(1000.0 + 400.0 * math.log10(4.0))
    pairs = pairwise_outcomes(mixed)
    assert sorted(pairs["score"].tolist()) == [0.5, 0.5, 1.0, 1.0, 1.0]


def test_unbeaten_bot_gets_a_finite_rating() -> None:
    seats = game_rows([("Ace", "B", 1, 2)] * 20 + [("B", "C", 1, 2), ("C", "B", 1, 2)] * 5)
    board = fit_elo(seats, anchor="B", bootstrap=50)
    assert np.isfinite(board[["elo", "elo_low"]].to_numpy()).all()
    # The estimate is finite (the prior), but no loss was seen: the interval is open above.
    assert board["elo_high"].iloc[0] == np.inf and np.isfinite(board["elo_high"].iloc[1:]).all()
    assert board["bot"].iloc[0] == "Ace" and board["elo"].iloc[0] > 1400
    assert board["elo"].iloc[0] < 1000 + ELO_SCALE * math.log(2 * 20 / PRIOR_GAMES) + 50


def test_bradley_terry_matches_the_closed_form() -> None:
    # Two bots: the maximum-likelihood log-odds are log(wins / losses).
    theta = bradley_terry(np.array([[0.0, 30.0], [10.0, 0.0]]), prior_games=0.0)
    assert theta[0] - theta[1] == pytest.approx(math.log(3.0))
    # A consistent three-bot set: strengths 4:2:1 with expected win counts recovered exactly.
    s = np.array([4.0, 2.0, 1.0])
    wins = 120 * s[:, None] / (s[:, None] + s[None, :])
    np.fill_diagonal(wins, 0.0)
    theta = bradley_terry(wins, prior_games=0.0)
    assert theta - theta[2] == pytest.approx(np.log(s / s[2]))


def test_same_seed_same_table_other_seed_other_intervals(known: pd.DataFrame) -> None:
    a = fit_elo(known, bootstrap=60, seed=7)
    b = fit_elo(known.sample(frac=1.0, random_state=1), bootstrap=60, seed=7)  # row order must not matter
    pd.testing.assert_frame_equal(a, b)
    c = fit_elo(known, bootstrap=60, seed=8)
    assert a["elo"].tolist() == c["elo"].tolist()
    assert a["elo_low"].tolist() != c["elo_low"].tolist()


def test_elo_history_moves_game_by_game_per_preset() -> None:
    seats = pd.concat([game_rows([("A", "B", 1, 2)] * 3, preset="rush"),
                       game_rows([("A", "B", 2, 1)], preset="deluxe")], ignore_index=True)
    history = elo_history(seats)
    assert list(history.columns) == ["preset", "game_index", "game_id", "bot", "elo"]
    rush_a = history[(history["preset"] == "rush") & (history["bot"] == "A")]["elo"].tolist()
    assert rush_a[0] == pytest.approx(1008.0) and rush_a[0] < rush_a[1] < rush_a[2]
    deluxe = history[history["preset"] == "deluxe"].set_index("bot")["elo"]
    assert deluxe["A"] == pytest.approx(992.0) and deluxe["B"] == pytest.approx(1008.0)  # rush did not carry over


def test_elo_history_ends_in_the_true_order(known: pd.DataFrame) -> None:
    last = elo_history(known).groupby("bot")["elo"].last()
    assert list(last.sort_values(ascending=False).index) == sorted(TRUE, key=TRUE.get, reverse=True)


def test_openskill_agrees_on_the_order(known: pd.DataFrame) -> None:
    skill = openskill_ratings(known)
    assert list(skill.columns) == ["bot", "preset", "mu", "sigma", "ordinal", "games"]
    assert list(skill.sort_values("mu", ascending=False)["bot"]) == sorted(TRUE, key=TRUE.get, reverse=True)
    assert (skill["sigma"] < 25 / 3).all()


def test_pairwise_table_is_consistent(known: pd.DataFrame) -> None:
    table = pairwise_table(known).set_index(["bot", "opponent"])
    assert table.loc[("Shark", "RandomBot"), "rate"] > 0.8
    for (bot, opp), row in table.iterrows():
        back = table.loc[(opp, bot)]
        assert row["games"] == back["games"] and row["rate"] + back["rate"] == pytest.approx(1.0)


def test_wilson_interval_known_values() -> None:
    # Newcombe (1998), example 81/263: Wilson interval 0.2553 to 0.3662.
    low, high = wilson(81, 263)
    assert (round(float(low), 4), round(float(high), 4)) == (0.2553, 0.3662)
    low, high = wilson(np.array([0, 5, 10, 0]), np.array([10, 10, 10, 0]))
    assert low[:3] == pytest.approx([0.0, 0.2366, 0.7225], abs=1e-4)
    assert high[:3] == pytest.approx([0.2775, 0.7634, 1.0], abs=1e-4)
    assert np.isnan(low[3]) and np.isnan(high[3])
    low, high = poisson_score(4, 2)
    assert (float(low), float(high)) == pytest.approx(((5.9208 - 1.96 * math.sqrt(4.9604)) / 2,
                                                       (5.9208 + 1.96 * math.sqrt(4.9604)) / 2), abs=1e-3)


def outcome_seats() -> pd.DataFrame:
    base = {"kamikaze": 0, "royal_roulette": 0, "resets": 0, "snaps": 0, "snaps_right": 0, "deck_outs": 0,
            "failed_multi_exchanges": 0, "powers_used": 0, "cabo_calls": 0, "cabo_wins": 0, "fault": ""}
    rows = [
        dict(base, bot="A", preset="deluxe", game_id="g1", status="ok", rounds=10, cabo_calls=4, cabo_wins=3, kamikaze=1,
             resets=1, deck_outs=2, failed_multi_exchanges=3, powers_used=7, round_score_sum=80, total=80),
        dict(base, bot="A", preset="deluxe", game_id="g2", status="timeout", rounds=5, cabo_calls=1, cabo_wins=0,
             powers_used=2, round_score_sum=45, total=45, fault="took 1.2 s"),
        dict(base, bot="A", preset="rush", game_id="g3", status="ok", rounds=8, snaps=6, snaps_right=5, cabo_calls=2,
             cabo_wins=2, round_score_sum=60, total=60),
        dict(base, bot="B", preset="deluxe", game_id="g1", status="error", rounds=10, round_score_sum=130, total=130,
             fault="Traceback ...\nZeroDivisionError"),
    ]
    return pd.DataFrame(rows)


def test_per_rule_counts_rates_and_intervals() -> None:
    out = per_rule(outcome_seats()).set_index(["preset", "bot"])
    a = out.loc[("deluxe", "A")]
    assert (a["games"], a["rounds"], a["cabo_calls"], a["cabo_wins"]) == (2, 15, 5, 3)
    assert a["cabo_success"] == pytest.approx(0.6)
    low, high = wilson(3, 5)
    assert (a["cabo_success_low"], a["cabo_success_high"]) == pytest.approx((float(low), float(high)))
    assert a["cabo_rate"] == pytest.approx(5 / 15) and a["kamikaze_rate"] == pytest.approx(1 / 15)
    assert a["reset_rate"] == pytest.approx(1 / 15) and a["deck_out_rate"] == pytest.approx(2 / 15)
    assert a["failed_multi_per_round"] == pytest.approx(3 / 15) and a["powers_per_round"] == pytest.approx(9 / 15)
    assert a["mean_round_score"] == pytest.approx(125 / 15)
    assert math.isnan(a["mean_total"])  # a fault stopped both its deluxe games (g1: B's, g2: its own): no final total
    assert (a["faults"], a["faults_timeout"], a["faults_error"]) == (1, 1, 0)
    assert a["fault_rate"] == pytest.approx(0.5)
    assert math.isnan(a["snap_accuracy"])  # never snapped: no rate, no interval
    r = out.loc[("rush", "A")]
    assert r["snap_accuracy"] == pytest.approx(5 / 6) and r["snaps_per_round"] == pytest.approx(6 / 8)
    assert r["mean_total"] == pytest.approx(60.0)
    assert r["cabo_success_low"] == pytest.approx(float(wilson(2, 2)[0]))
    b = out.loc[("deluxe", "B")]
    assert (b["faults_error"], b["fault_rate"]) == (1, 1.0)
    assert math.isnan(b["cabo_success"])


def test_per_rule_uses_multi_exchanges_when_present() -> None:
    seats = outcome_seats().assign(multi_exchanges=[6, 0, 0, 1])
    out = per_rule(seats).set_index(["preset", "bot"])
    assert out.loc[("deluxe", "A"), "multi_failure_rate"] == pytest.approx(0.5)
    assert "multi_failure_rate" not in per_rule(outcome_seats()).columns


def test_missing_columns_are_named() -> None:
    with pytest.raises(ValueError, match="missing \\['rank'\\]"):
        fit_elo(pd.DataFrame({"game_id": [], "deal_id": [], "preset": [], "bot": [], "win": []}))
    with pytest.raises(ValueError, match="snaps_right"):
        per_rule(outcome_seats().drop(columns=["snaps_right"]))


def test_rates_of_rules_a_preset_does_not_have_are_left_out() -> None:
    seats = outcome_seats()
    seats.loc[seats["preset"] == "rush", "kamikaze"] = 0
    out = per_rule(seats.assign(rules="{}")).set_index(["preset", "bot"])
    rush, deluxe = out.loc[("rush", "A")], out.loc[("deluxe", "A")]
    # Rush has no Kamikaze, no reset to 50, no multi-exchange; deluxe has no snapping.
    for rate in ("kamikaze_rate", "reset_rate", "failed_multi_per_round", "royal_roulette_rate"):
        assert math.isnan(rush[rate]) and math.isnan(rush[f"{rate}_low"])
    assert math.isnan(deluxe["snaps_per_round"]) and math.isnan(deluxe["royal_roulette_rate"])
    assert deluxe["kamikaze_rate"] == pytest.approx(1 / 15) and rush["snaps_per_round"] == pytest.approx(6 / 8)
    # A rules override that turns a rule on makes its rate count again.
    seats.loc[seats["preset"] == "rush", "rules"] = '{"kamikaze": true}'
    seats.loc[seats["preset"] != "rush", "rules"] = "{}"
    assert per_rule(seats).set_index(["preset", "bot"]).loc[("rush", "A"), "kamikaze_rate"] == 0.0


def test_bradley_terry_survives_absent_bot_started_far_away() -> None:
    # Bot 2 has no comparisons (as in a bootstrap replicate that drew none of its deals) and
    # starts at a huge rating; bot 0 never lost. Plain Newton overshot on the logistic's flat
    # tail here, overflowed np.exp and hit a singular Hessian.
    wins = np.array([[0.0, 12.0, 0.0, 6.0], [0.0, 0.0, 0.0, 3.0], [0.0, 0.0, 0.0, 0.0], [0.0, 5.0, 0.0, 0.0]])
    with np.errstate(all="raise"):
        theta = bradley_terry(wins, start=np.array([0.5, -2.0, 40.0, 0.0]))
    assert np.all(np.isfinite(theta))
    assert abs(theta[2]) < 1e-6  # only the prior speaks for it: a draw against log-strength 0
    assert theta[0] > theta[3] > theta[1]
    # The optimum: the gradient of the penalised log-likelihood vanishes.
    p = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
    grad = wins.sum(axis=1) - ((wins + wins.T) * p).sum(axis=1) + PRIOR_GAMES * (0.5 - 1.0 / (1.0 + np.exp(-theta)))
    assert np.max(np.abs(grad)) < 1e-6


def test_fit_elo_thirty_bots_sparse_bootstrap_unanchored() -> None:
    # A class of 30 with few deals: many bootstrap replicates leave bots out or unbeaten.
    # This exact frame raised LinAlgError("Singular matrix") in the bootstrap.
    elos = {f"b{i:02d}": 1000.0 + (i % 3) * 300 for i in range(30)}
    seats = simulate(elos, deals=15, seed=19)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        board = fit_elo(seats, anchor=None, bootstrap=100, seed=0)
    assert len(board) == seats["bot"].nunique()
    assert np.all(np.isfinite(board[["elo", "elo_low", "elo_high"]].to_numpy()))
    assert (board["elo_low"] <= board["elo"] + 1e-9).all() and (board["elo"] <= board["elo_high"] + 1e-9).all()
    assert abs(board["elo"].mean() - 1000.0) < 1e-6


def test_prior_does_not_pull_a_separated_group_towards_the_others() -> None:
    # The class of the speed benchmark under rush-like rules: 10 weak copies 1400 Elo below 20
    # others, 68 comparisons per pair (about 640 games per bot), wins at their expected values,
    # so the only error left is the prior's pull. The weak group's distance is measured by about
    # 4 upsets; a prior of one virtual game per bot (5 virtual upsets for the group) compressed it.
    truth = np.r_[np.zeros(10), np.full(20, 1400.0)] / ELO_SCALE
    p = 1.0 / (1.0 + np.exp(-(truth[:, None] - truth[None, :])))
    wins = 68.0 * p
    np.fill_diagonal(wins, 0.0)
    assert wins[:10, 10:].sum() == pytest.approx(4.3, abs=0.1)

    def gap(prior: float) -> float:
        theta = bradley_terry(wins, prior_games=prior) * ELO_SCALE
        return float(theta[10:].mean() - theta[:10].mean())

    assert abs(gap(PRIOR_GAMES) - 1400.0) < 25.0
    assert gap(1.0) < 1400.0 - 100.0  # the old weight: 134 Elo short


def test_batched_bootstrap_fits_equal_one_at_a_time_fits() -> None:
    # fit_elo fits its replicates in stacks; each must be the fit bradley_terry gives alone,
    # whatever else is in the stack (an absent bot, an unbeaten one, a far start).
    from cabo_kit.tournament.ratings import _bradley_terry_batch

    rng = np.random.default_rng(4)
    stack = rng.poisson(3.0, size=(6, 5, 5)).astype(float)
    stack[:, np.arange(5), np.arange(5)] = 0.0
    stack[1, 2, :] = stack[1, :, 2] = 0.0  # bot 2 absent
    stack[2, :, 0] = 0.0  # bot 0 never lost
    starts = rng.normal(size=(6, 5))
    starts[3, 4] = 40.0
    batched = _bradley_terry_batch(stack, PRIOR_GAMES, starts)
    for r in range(6):
        np.testing.assert_allclose(batched[r], bradley_terry(stack[r], start=starts[r]), atol=1e-9)


def test_a_bot_that_never_wins_has_an_interval_open_below() -> None:
    """Every bootstrap replicate repeats a clean sweep; a point interval would claim a certainty the data lack."""
    import pandas as pd

    from cabo_kit.tournament.runner import format_leaderboard

    rows = []
    for g in range(12):  # A beats B and C in every game; B and C split their games
        order = ["A", "B", "C"] if g % 2 else ["A", "C", "B"]
        for rank, bot in enumerate(order, 1):
            rows.append({"game_id": f"g{g}", "deal_id": f"d{g // 2}", "game_index": g, "preset": "rush",
                         "bot": bot, "rank": rank, "win": float(rank == 1)})
    board = fit_elo(pd.DataFrame(rows), anchor="B", bootstrap=50).set_index("bot")
    assert board.loc["A", "elo_high"] == float("inf") and np.isfinite(board.loc["A", "elo_low"])
    assert board.loc["B", "elo_low"] == board.loc["B", "elo_high"] == 1000.0  # the anchor is fixed by definition
    assert np.isfinite(board.loc["C", "elo_low"]) and np.isfinite(board.loc["C", "elo_high"])
    text = format_leaderboard(board.reset_index())
    assert f"above {board.loc['A', 'elo_low']:.0f}" in text and "almost never won (lost)" in text


def test_when_the_anchor_never_wins_nobody_above_it_is_bounded() -> None:
    """The upset-starved case: R (the anchor) always last, A and B split the rest. Nothing measures how
    far above R they are, so their intervals must be open above, not narrow around a prior-made centre."""
    rows = []
    for g in range(30):
        order = ["A", "B", "R"] if g % 2 else ["B", "A", "R"]
        for rank, bot in enumerate(order, 1):
            rows.append({"game_id": f"g{g}", "deal_id": f"d{g}", "game_index": g, "preset": "rush",
                         "bot": bot, "rank": rank, "win": float(rank == 1)})
    board = fit_elo(pd.DataFrame(rows), anchor="R", bootstrap=50).set_index("bot")
    assert board.loc["A", "elo_high"] == board.loc["B", "elo_high"] == np.inf
    assert np.isfinite(board.loc["A", "elo_low"]) and np.isfinite(board.loc["B", "elo_low"])
    centred = fit_elo(pd.DataFrame(rows), anchor=None, bootstrap=50).set_index("bot")
    assert centred.loc["R", "elo_low"] == -np.inf and np.isfinite(centred.loc["R", "elo_high"])


def test_field_centring_gives_the_strong_bots_their_own_uncertainty() -> None:
    """Issue 11, must 1 and 3: weak copies 1400 Elo below the rest no longer inflate everyone's interval."""
    elos = {"W1": 0.0, "W2": 0.0, "W3": 0.0, "A": 1400.0, "B": 1450.0, "C": 1500.0, "D": 1550.0}
    seats = simulate(elos, deals=300, seed=5)
    board = fit_elo(seats, bootstrap=200, seed=1).set_index("bot")
    strong, weak = ["A", "B", "C", "D"], ["W1", "W2", "W3"]
    assert board.loc[strong, "elo"].mean() == pytest.approx(1000.0)
    # The weak bots get an honest one-sided bound: below their upper end, which lies above the truth.
    assert (board.loc[weak, "elo_low"] == -np.inf).all()
    truth = pd.Series(elos) - np.mean([elos[b] for b in strong]) + 1000.0
    assert (board.loc[weak, "elo_high"] >= truth[weak]).all() and (board.loc[weak, "elo_high"] < 600).all()
    # The strong bots' intervals are two-sided and narrow; anchored on a weak bot they carry its gap.
    centred = (board.loc[strong, "elo_high"] - board.loc[strong, "elo_low"]) / 2
    anchored = fit_elo(seats, anchor="W1", bootstrap=200, seed=1).set_index("bot")
    wide = (anchored.loc[strong, "elo_high"] - anchored.loc[strong, "elo_low"]) / 2
    assert centred.max() < 60 and (wide.min() > 2 * centred.max() or np.isinf(wide).all())
    assert ((board.loc[strong, "elo_low"] <= truth[strong]) & (truth[strong] <= board.loc[strong, "elo_high"])).sum() >= 3
    # upset_share=0 centres on every bot (the old unanchored behaviour): with no upset seen, nothing
    # then bounds the strong bots above the mean.
    every = fit_elo(seats, bootstrap=50, seed=1, upset_share=0.0).set_index("bot")
    assert every["elo"].mean() == pytest.approx(1000.0) and (every.loc[strong, "elo_high"] == np.inf).all()


def test_a_bot_that_never_loses_is_rated_above_the_field() -> None:
    from cabo_kit.tournament.ratings import field_tiers

    wins = np.array([[0.0, 40.0, 40.0, 40.0], [0.0, 0.0, 30.0, 25.0], [0.0, 20.0, 0.0, 30.0], [0.0, 25.0, 20.0, 0.0]])
    tiers = field_tiers(wins, np.array([900.0, 10.0, 0.0, -10.0]))
    assert tiers.tolist() == [1, 0, 0, 0]
    # Two groups of the same size: the higher one is the field.
    wins2 = np.array([[0.0, 30.0, 50.0, 50.0], [30.0, 0.0, 50.0, 50.0], [0.0, 0.0, 0.0, 30.0], [0.0, 0.0, 30.0, 0.0]])
    assert field_tiers(wins2, np.array([1.0, 1.0, 0.0, 0.0])).tolist() == [0, 0, -1, -1]
    # 3% upsets is a gap measured on both sides: one field.
    wins3 = wins2.copy()
    wins3[2:, :2] = 1.5
    assert field_tiers(wins3, np.array([1.0, 1.0, 0.0, 0.0])).tolist() == [0, 0, 0, 0]


def test_rank_intervals_come_from_the_bootstrap_and_contain_the_place() -> None:
    """Issue 11, must 2: far apart bots have one plausible place, near equals share a range."""
    elos = {"P": 1000.0, "Q": 1005.0, "R": 1300.0, "S": 1600.0}
    seats = simulate(elos, deals=200, seed=8)
    board = fit_elo(seats, bootstrap=200, seed=2).set_index("bot")
    assert board.loc["S", ["rank", "rank_low", "rank_high"]].tolist() == [1, 1, 1]
    assert board.loc["R", ["rank", "rank_low", "rank_high"]].tolist() == [2, 2, 2]
    assert board.loc["P", "rank_low"] == board.loc["Q", "rank_low"] == 3
    assert board.loc["P", "rank_high"] == board.loc["Q", "rank_high"] == 4
    assert ((board["rank_low"] <= board["rank"]) & (board["rank"] <= board["rank_high"])).all()
    # Places do not depend on the centring.
    anchored = fit_elo(seats, anchor="P", bootstrap=200, seed=2).set_index("bot")
    assert anchored[["rank_low", "rank_high"]].equals(board[["rank_low", "rank_high"]])


def test_half_width_ignores_one_sided_bounds() -> None:
    from cabo_kit.tournament.ratings import half_width

    board = pd.DataFrame({"elo": [1000.0, 980.0, 200.0], "elo_low": [950.0, 970.0, -np.inf],
                          "elo_high": [1030.0, 1040.0, 400.0]})
    assert half_width(board).tolist()[:2] == [50.0, 60.0] and np.isnan(half_width(board).iloc[2])


def test_a_few_games_without_an_upset_are_no_gap() -> None:
    """Four games that one bot won against another say nothing about a gap only rare upsets could measure."""
    from cabo_kit.tournament.ratings import GAP_EVIDENCE, field_tiers

    wins = np.array([[0.0, 4.0], [0.0, 0.0]])
    assert field_tiers(wins, np.array([500.0, 0.0])).tolist() == [0, 0]
    wins[0, 1] = GAP_EVIDENCE
    assert field_tiers(wins, np.array([500.0, 0.0])).tolist() == [0, -1]
    assert field_tiers(np.zeros((2, 2)), np.array([1.0, 0.0])).tolist() == [0, -1]  # never compared: a gap
