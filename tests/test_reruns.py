"""Issue 18, must 3: a late or changed file adds its own games and only what the intervals then need;
a killed rerun resumes to the same results; a chosen anchor keeps the Elo of unchanged bots."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cabo_kit.tournament.config import ConfigError
from cabo_kit.tournament.ratings import fit_elo
from cabo_kit.tournament.runner import run_tournament, write_outputs
from cabo_kit.tournament.store import Store, load_frames

from boards import board as stored_board

BOTS = Path(__file__).parent / "tournament_bots"
CLASS_BOTS = Path(__file__).parent / "class_bots"

CLASS_TOML = """
presets = ["rush"]
table_sizes = [3]
games = 6
seed = 5
precision = 60
reference = ["RandomBot", "CountingBot"]
anchor = "GreedyBot"
[limits]                 # generous: a timeout on a busy machine would change results
decision_s = 10.0
game_bank_s = 120.0
"""


def _scheduled(folder: Path) -> set[str]:
    con = sqlite3.connect(folder / "results.sqlite")
    try:
        return {r[0] for r in con.execute("SELECT game_id FROM scheduled")}
    finally:
        con.close()


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small class that reached +-60 Elo: steady.py and three built-in bots, GreedyBot the anchor."""
    folder = tmp_path_factory.mktemp("class")
    (folder / "bots").mkdir()
    shutil.copy(BOTS / "steady.py", folder / "bots")
    (folder / "tournament.toml").write_text(CLASS_TOML)
    first = run_tournament(folder, workers=2, progress=False, out=None)
    assert first.played > 60 and any("within +-60 Elo" in n for n in first.notes)
    write_outputs(folder, out=None)
    return folder


def _copy(finished: Path, to: Path) -> Path:
    shutil.copytree(finished, to)
    return to


def test_a_late_file_plays_its_own_games_and_keeps_every_stored_one(finished: Path, tmp_path: Path) -> None:
    folder = _copy(finished, tmp_path / "late")
    before = _scheduled(folder)
    old_board = pd.read_csv(folder / "leaderboard.csv").set_index("bot")
    shutil.copy(BOTS / "wanderer.py", folder / "bots")
    summary = run_tournament(folder, workers=2, progress=False, out=None)
    after = _scheduled(folder)
    assert before <= after  # every game of the first run counts again: its bots are unchanged
    seats = load_frames(folder)[1]
    new = seats[~seats["game_id"].isin(before)]
    with_late = set(new.loc[new["bot"] == "wanderer", "game_id"])
    # 5 bots at 3-player tables, 6 games each: the late bot's 3 balanced tables of 3 rotations.
    assert summary.played == new["game_id"].nunique() and len(with_late) >= 9
    # Anything else is what the intervals then need, far below re-planning the adaptive phase (which
    # re-played 75 of the 126 games of this class before).
    assert summary.played - len(with_late) <= 12 and summary.played < 0.3 * len(before)
    assert any("kept from earlier runs" in n for n in summary.notes)
    # The speed classes the adaptive batches used, from the seats' CPU: stored once per bot and version (the late
    # file's added by its first batch), the others' unchanged for the rerun.
    def classes(of: Path) -> dict:
        con = sqlite3.connect(of / "results.sqlite")
        try:
            return json.loads(con.execute("SELECT value FROM meta WHERE key='speed_classes'").fetchone()[0])["rush"]
        finally:
            con.close()

    versions = seats.groupby("bot")["version"].first()
    now, first = classes(folder), classes(finished)
    assert {b: list(v) for b, v in now.items()} == {b: [versions[b]] for b in versions.index}
    assert {b: v for b, v in now.items() if b != "wanderer"} == first and set(first) == set(versions.index) - {"wanderer"}
    assert run_tournament(folder, workers=1, progress=False, out=None).played == 0
    # The anchor stays 1000, and an unchanged bot moves only by what the new games say of it.
    board, _ = write_outputs(folder, out=None)
    assert board.set_index("bot").loc["GreedyBot", "elo"] == old_board.loc["GreedyBot", "elo"] == 1000.0
    assert abs(board.set_index("bot").loc["steady", "elo"] - old_board.loc["steady", "elo"]) < 10.0


def test_under_the_anchor_an_unchanged_bot_moves_less_than_centred_when_a_file_joins(finished: Path, tmp_path: Path) -> None:
    """Real runs: a late file below the field's mean (a renamed counting bot, rated ~920 against GreedyBot) lowers
    that mean, so centred on the field every other bot rises; anchored on GreedyBot, steady stays where it was."""
    folder = _copy(finished, tmp_path / "late_good")
    before = load_frames(folder)[1]
    shutil.copy(CLASS_BOTS / "counting_renamed.py", folder / "bots")
    run_tournament(folder, workers=2, progress=False, out=None)
    after = load_frames(folder)[1]
    assert "counting_renamed" in set(after["bot"])

    def moved(anchor: str | None) -> float:
        old, new = (fit_elo(f, anchor=anchor).set_index("bot").loc["steady", "elo"] for f in (before, after))
        return float(new - old)

    anchored, centred = moved("GreedyBot"), moved(None)
    assert abs(anchored) < 10.0 < abs(centred)  # measured: 0 against +35


def test_a_store_of_another_seed_is_refused_before_anything_is_played(finished: Path, tmp_path: Path) -> None:
    """A game's id does not hold the seed: the store records it, and a run with another seed stops with the fix
    instead of counting the old seed's games (all combinations and adaptive batches have the same ids)."""
    folder = _copy(finished, tmp_path / "reseeded")
    db = folder / "results.sqlite"
    con = sqlite3.connect(db)
    assert con.execute("SELECT value FROM meta WHERE key='seed'").fetchone() == ("5",)
    games = con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    con.close()
    toml = folder / "tournament.toml"
    toml.write_text(CLASS_TOML.replace("seed = 5", "seed = 6"))
    with pytest.raises(ConfigError) as caught:
        run_tournament(folder, workers=1, progress=False, out=None)
    assert str(caught.value) == (
        f"{db} holds games of seed 5; {toml} says seed = 6: set seed = 5 to go on with them, or move results.sqlite "
        f"aside (mv {db} {folder / 'results-seed-5.sqlite'}) to start over")
    from cabo_kit.tournament.runner import estimate_tournament

    with pytest.raises(ConfigError) as estimated:  # the estimate reads the same check (and writes nothing)
        estimate_tournament(folder, workers=1, out=None)
    assert str(estimated.value) == str(caught.value)
    from cabo_kit.tournament.config import TournamentConfig
    from cabo_kit.tournament.runner import _seed_refusal

    bare = tmp_path / "bare"  # no tournament.toml: the default seed 0, and no file to blame
    bare.mkdir()
    theirs, refusal = _seed_refusal("5", dict, TournamentConfig(), [], bare / "results.sqlite")
    assert theirs == 5 and "holds games of seed 5; this run uses the default seed 0 (no tournament.toml): " in refusal
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == games
    con.close()


def _change(folder: Path) -> None:
    (folder / "bots" / "steady.py").write_text((BOTS / "steady.py").read_text() + "\n# revised\n")


def test_a_changed_file_replays_its_games_keeps_the_others_and_a_killed_rerun_resumes_to_the_same(
        finished: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = _copy(finished, tmp_path / "whole")
    killed = _copy(finished, tmp_path / "killed")
    before = load_frames(whole)[1]
    kept = set(before["game_id"]) - set(before.loc[before["bot"] == "steady", "game_id"])
    _change(whole)
    summary = run_tournament(whole, workers=2, progress=False, out=None)
    seats = load_frames(whole)[1]
    assert kept <= set(seats["game_id"])  # the games without the changed file all count
    new = seats[~seats["game_id"].isin(set(before["game_id"]))]
    mine = new.loc[new["bot"] == "steady", "game_id"].nunique()
    # Its own games again, and the others only what their intervals, which lost steady's old games, need.
    assert summary.played == new["game_id"].nunique() <= mine + len(kept) + 12
    assert seats.loc[seats["bot"] == "steady", "version"].nunique() == 1
    # The same rerun killed inside its adaptive batches, then run again: the same games, the same leaderboard.
    _change(killed)
    real_add, count = Store.add_game, [0]

    def add_then_die(self: Store, game: object, seats: object) -> bool:
        count[0] += 1
        if count[0] > summary.played // 2:
            raise KeyboardInterrupt
        return real_add(self, game, seats)  # type: ignore[arg-type]

    with monkeypatch.context() as m:
        m.setattr(Store, "add_game", add_then_die)
        with pytest.raises(KeyboardInterrupt):
            run_tournament(killed, workers=2, progress=False, out=None)
    resumed = run_tournament(killed, workers=1, progress=False, out=None)
    assert resumed.played == summary.played - summary.played // 2
    assert _scheduled(killed) == _scheduled(whole)
    write_outputs(whole, out=None)
    write_outputs(killed, out=None)
    assert stored_board(killed) == stored_board(whole)


def _pairs(rows: list[tuple[str, str, int]], rng: np.random.Generator, strength: dict[str, float]) -> list[dict]:
    """Two-player games between the given pairs (a, b, how many), won by a Bradley-Terry draw."""
    out = []
    for a, b, n in rows:
        for _ in range(n):
            g = len(out) // 2
            p = 1.0 / (1.0 + 10.0 ** ((strength[b] - strength[a]) / 400.0))
            first = rng.random() < p
            for bot, won in ((a, first), (b, not first)):
                out.append({"game_id": f"g{g}", "deal_id": f"d{g}", "game_index": g, "preset": "rush",
                            "bot": bot, "rank": 1 if won else 2, "win": float(won)})
    return out


def test_an_anchor_keeps_unchanged_bots_where_they_were_when_a_strong_file_joins() -> None:
    """The late bot L (300 Elo above them) plays only the anchor G: its games tell nothing about A, B, C against G,
    so anchored on G their Elo must stay put; centred on the field it drops, because the field's mean rose."""
    strength = {"A": 1100.0, "B": 1000.0, "C": 950.0, "G": 1000.0, "L": 1300.0}
    rng = np.random.default_rng(7)
    pairs = [(a, b, 40) for i, a in enumerate("ABCG") for b in "ABCG"[i + 1:]]
    old = pd.DataFrame(_pairs(pairs, rng, strength))
    late = pd.DataFrame(_pairs([("L", "G", 60)], rng, strength))
    late = late.assign(game_id="late" + late["game_id"], deal_id="late" + late["deal_id"])
    both = pd.concat([old, late], ignore_index=True)
    anchored = [fit_elo(f, anchor="G", bootstrap=0).set_index("bot")["elo"] for f in (old, both)]
    centred = [fit_elo(f, bootstrap=0).set_index("bot")["elo"] for f in (old, both)]
    assert anchored[0]["G"] == anchored[1]["G"] == 1000.0
    for bot in "ABC":
        assert abs(anchored[1][bot] - anchored[0][bot]) < 1.0  # only the tiny prior couples them
        assert centred[0][bot] - centred[1][bot] > 40.0       # the field's mean moved by L's entry


def test_the_anchor_setting_is_checked_with_the_fix(tmp_path: Path) -> None:
    from cabo_kit.tournament.config import ConfigError, TournamentConfig

    cfg = TournamentConfig.from_dict({"anchor": "GreedyBot"})  # a built-in anchor plays as a reference bot
    assert cfg.anchor == "GreedyBot" and cfg.reference == ("RandomBot", "GreedyBot")
    assert TournamentConfig.from_dict({}).anchor == ""
    with pytest.raises(ConfigError, match='anchor = 3: write the name of a bot, e.g. anchor = "GreedyBot"'):
        TournamentConfig.from_dict({"anchor": 3})
    folder = tmp_path / "t"
    (folder / "bots").mkdir(parents=True)
    (folder / "tournament.toml").write_text('presets = ["rush"]\ntable_sizes = [2]\ngames = 2\n'
                                            'reference = ["RandomBot", "GreedyBot"]\nanchor = "alice"\n')
    with pytest.raises(ConfigError, match=r"anchor = 'alice' is not playing: no bots/alice.py; write the name of a "
                                          r"bot that plays \(RandomBot, GreedyBot\)"):
        run_tournament(folder, workers=1, progress=False, out=None)
    assert sorted(p.name for p in folder.iterdir()) == ["bots", "tournament.toml"]  # nothing written


def test_a_late_file_that_lost_its_few_games_is_measured_not_left_one_sided() -> None:
    """0 wins in 9 games puts a late file across a gap ("below X"), but X still lies inside the field (above the
    anchor): more games must say where it is. A bot that lost hundreds of games sits below the field: never waited on."""
    from cabo_kit.tournament.ratings import precision_needs

    strength = {"A": 1100.0, "B": 1000.0, "C": 950.0, "G": 1000.0, "R": 0.0}
    rng = np.random.default_rng(3)
    rows = _pairs([(a, b, 40) for i, a in enumerate("ABCG") for b in "ABCG"[i + 1:]]
                  + [(b, "R", 60) for b in "ABCG"], rng, strength)
    seats = pd.DataFrame(rows)
    late = []
    for g, opp in enumerate(["A", "B", "G"] * 3):  # the late file L lost all 9 of its games, on 3 deals
        for bot, rank in ((opp, 1), ("L", 2)):
            late.append({"game_id": f"late{g}", "deal_id": f"late{g // 3}", "game_index": 10_000 + g, "preset": "rush",
                         "bot": bot, "rank": rank, "win": float(rank == 1)})
    seats = pd.concat([seats, pd.DataFrame(late)], ignore_index=True)
    board = fit_elo(seats, anchor="G", bootstrap=200)
    rows_of = board.set_index("bot")
    assert rows_of.loc["L", "elo_low"] == -np.inf and rows_of.loc["L", "elo_high"] > 1000.0  # "below X", X above G
    needs = precision_needs(board, "rush")
    assert needs["L"][1] == np.inf  # it still needs games
    assert rows_of.loc["R", "elo_low"] == -np.inf and np.isnan(needs["R"][1])  # far below: a one-sided bound, done


def test_names_that_are_not_bots_are_refused_with_the_choices() -> None:
    """cabo_kit.bots.__all__ also lists functions and tables (by_level, LEVELS): not bots to play or grade against."""
    from cabo_kit.tournament.config import TournamentConfig, builtin_bots

    assert builtin_bots() == ["RandomBot", "GreedyBot", "CountingBot", "SearchBot"]
    for key, value in (("reference", ["by_level"]), ("reference", ["LEVELS"]), ("grading", ["by_level"])):
        with pytest.raises(ConfigError, match=f"^tournament.toml: {key} bot "
                                              f"'{value[0]}' is not built in.*choose from RandomBot, GreedyBot, CountingBot, SearchBot"):
            TournamentConfig.from_dict({key: value})
    cfg = TournamentConfig.from_dict({"anchor": "by_level"}, "my-class/tournament.toml")
    assert cfg.reference == ("RandomBot",)  # not added as a reference bot (it would crash the run)
    with pytest.raises(ConfigError, match=r"^my-class/tournament.toml: anchor = 'by_level' is not playing: no bots/by_level.py"):
        cfg.check_anchor(["RandomBot", "alice"])


def test_reporting_uses_the_configured_anchor_and_says_when_it_has_no_games(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from cabo_kit import pages
    from cabo_kit.tournament import ratings

    folder = tmp_path / "t"
    folder.mkdir()
    toml = folder / "tournament.toml"
    toml.write_text('presets = ["rush"]\ntable_sizes = [2]\ngames = 2\nreference = ["RandomBot", "CountingBot"]\n')
    run_tournament(folder, workers=1, progress=False, out=None)
    toml.write_text(toml.read_text() + 'anchor = "GreedyBot"\n')  # chosen after the games were played
    said: list[str] = []
    board, _ = write_outputs(folder, out=said.append)
    assert f"note: anchor = 'GreedyBot' ({toml}) has no games in the store: the Elo is centred on the field" in said[0]
    assert "GreedyBot" not in set(board["bot"])
    # The pages fit their own board with the configured anchor too (a built-in that played: RandomBot).
    toml.write_text(toml.read_text().replace('anchor = "GreedyBot"', 'anchor = "RandomBot"'))
    anchors: list[object] = []
    real = ratings.fit_elo
    monkeypatch.setattr(ratings, "fit_elo", lambda seats, *a, **kw: anchors.append(kw.get("anchor")) or real(seats, *a, **kw))
    pages.write_pages(folder)
    assert anchors == ["RandomBot"]
