"""Whole tournaments: faults and rejected files recorded, resume after kill -9, determinism, Dask = pool."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cabo_kit.cli import main
from cabo_kit.tournament.config import ConfigError, load_config
from cabo_kit.tournament.executors import DASK_HINT, ExecutorError, make_executor
from cabo_kit.tournament.runner import final_ranking, run_tournament, write_outputs
from cabo_kit.tournament.store import TIMING, load_frames, load_record, load_rejected
from cabo_kit.tournament.timing import TIMING_COLUMNS

from boards import board as stored_board

HERE = Path(__file__).parent
BOTS = HERE / "tournament_bots"
ROOT = HERE.parent


def make_folder(path: Path, toml: str, files: list[str]) -> Path:
    (path / "bots").mkdir(parents=True)
    for name in files:
        shutil.copy(BOTS / name, path / "bots" / name)
    (path / "tournament.toml").write_text(toml)
    return path


FAULTS_TOML = """
presets = ["rush"]
table_sizes = [2]
games = 10
seed = 4
reference = ["RandomBot"]
[limits]
decision_s = 0.3
game_bank_s = 1.0
"""


def test_faults_and_rejected_files_are_recorded_and_the_tournament_completes(tmp_path: Path) -> None:
    folder = make_folder(tmp_path / "t", FAULTS_TOML, [
        "steady.py", "raises_late.py", "illegal_move.py", "dozes.py", "vanishes.py", "broken_syntax.py", "two_bots.py"])
    lines: list[str] = []
    summary = run_tournament(folder, workers=2, progress=False, out=lines.append)
    assert any(line.startswith("rejected broken_syntax.py: line ") and "SyntaxError" in line for line in lines), lines
    last = lines[-1]  # the summary names the bots at fault and how often
    assert "28 with a fault (" in last and "dozes: " in last and "vanishes: " in last and "steady" not in last, last
    games, seats = load_frames(folder)
    # 6 bots at 2-player tables, 10 games each: every pair once, in 2 rotations = 30 games
    assert summary.played == len(games) == 30 and summary.scheduled == 30
    assert sorted(seats.bot.unique()) == ["RandomBot", "dozes", "illegal_move", "raises_late", "steady", "vanishes"]
    assert set(seats.groupby("bot").size()) == {10}
    expected = {"raises_late": ("error", "ZeroDivisionError"), "illegal_move": ("illegal", "peek 40"),
                "dozes": ("timeout", "0.3"), "vanishes": ("crash", "code 3")}
    good_games = set(seats[seats.bot.isin(["steady", "RandomBot"])].game_id)
    for bot, (kind, words) in expected.items():
        mine = seats[(seats.bot == bot) & seats.game_id.isin(good_games)]
        assert len(mine) == 4 and set(mine.status) == {kind}, bot  # against a good bot it faults every game
        assert all(words in f for f in mine.fault), bot
        assert (mine["rank"] == 2).all() and (mine.win == 0).all()
        assert set(seats[seats.bot == bot].status) <= {kind, "ok"}  # "ok" when the other fault bot failed first
    good = seats[seats.bot.isin(["steady", "RandomBot"])]
    assert set(good.status) == {"ok"} and set(good.fault) == {""}
    fault_games = games[games.status == "fault"]
    assert len(fault_games) == 28  # only steady vs RandomBot (two rotations) ends without a fault
    ended = seats.game_id.isin(set(games.game_id[games.status == "ok"]))
    assert (seats[ended].groupby("game_id").win.sum() == 1).all()
    # a faulted game is a loss of the faulting seat and no result for the other (its win share is NaN)
    assert seats[~ended & (seats.status == "ok")].win.isna().all()
    # a faulted game stops at the fault, and the record says so
    gid = seats[(seats.bot == "dozes")].game_id.iloc[0]
    record = load_record(folder, gid)
    assert record.info["fault"]["kind"] == "timeout" and record.info["fault"]["bot"] == "dozes"
    assert not record.winners  # the game did not reach its end
    rejected = load_rejected(folder)
    assert rejected.file.tolist() == ["broken_syntax.py", "two_bots.py"]
    assert "SyntaxError" in rejected.reason[0] and "several" in rejected.reason[1]


def test_final_ranking_puts_the_faulting_seat_last_and_uses_the_tie_break() -> None:
    assert final_ranking([5, 10, 10, 7], [1, 2, 3, 0], 3) == ([1, 2, 3, 4], [0.0, 0.0, 0.0, 0.0])  # no winner
    assert final_ranking([10, 10, 12], [4, 4, 0], None) == ([1, 1, 3], [0.5, 0.5, 0.0])


DET_TOML = """
presets = ["rush"]
table_sizes = [3]
games = 6
seed = 11
reference = ["RandomBot", "GreedyBot"]
[limits]                 # generous: a timeout on a busy machine would change results
decision_s = 10.0
game_bank_s = 120.0
"""


def _seats(folder: Path) -> object:
    """The stored seats without their CPU columns (a measurement, like the board's)."""
    return load_frames(folder)[1].drop(columns=list(TIMING))


def _det_run(folder: Path, workers: int) -> tuple[bytes, object]:
    run_tournament(folder, workers=workers, progress=False, out=None)
    write_outputs(folder, out=None)
    return stored_board(folder), _seats(folder)


def test_same_seed_same_leaderboard_bytes_with_one_and_two_workers(tmp_path: Path) -> None:
    a = make_folder(tmp_path / "a", DET_TOML, ["wanderer.py"])
    b = make_folder(tmp_path / "b", DET_TOML, ["wanderer.py"])
    board_a, seats_a = _det_run(a, 1)
    board_b, seats_b = _det_run(b, 2)
    assert board_a == board_b
    assert seats_a.equals(seats_b)
    assert board_a.splitlines()[0] == b"bot,preset,elo,elo_low,elo_high,rank,rank_low,rank_high,games,win_rate"
    assert (a / "leaderboard.csv").read_text().splitlines()[0].endswith(",".join(TIMING_COLUMNS))
    assert (a / "report.html").stat().st_size > 10_000
    c = make_folder(tmp_path / "c", DET_TOML.replace("seed = 11", "seed = 12"), ["wanderer.py"])
    assert not _det_run(c, 2)[1].equals(seats_a)  # another seed deals other games


def test_a_late_submission_or_a_changed_file_plays_only_what_is_missing(tmp_path: Path) -> None:
    toml = 'presets = ["rush"]\ntable_sizes = [2]\ngames = 8\nreference = ["RandomBot", "GreedyBot"]\n'
    folder = make_folder(tmp_path / "t", toml, ["wanderer.py"])
    first = run_tournament(folder, workers=2, progress=False, out=None)
    assert first.played == 12  # 3 bots: all 3 pairs, 2 deals each, 2 rotations
    shutil.copy(BOTS / "steady.py", folder / "bots" / "steady.py")
    second = run_tournament(folder, workers=2, progress=False, out=None)
    # 4 bots: the 6 pairs, 2 deals each; the 3 old pairs' deals are the same games as before
    assert second.scheduled == 24 and second.skipped == 12 and second.played == 12
    (folder / "bots" / "steady.py").write_text((BOTS / "steady.py").read_text() + "\n# revised\n")
    third = run_tournament(folder, workers=2, progress=False, out=None)
    games, seats = load_frames(folder)
    assert third.played == int((seats.bot == "steady").sum()) == 12  # only steady's games, nothing else
    assert seats[seats.bot == "steady"].version.nunique() == 1
    assert run_tournament(folder, workers=1, progress=False, out=None).played == 0


KILL_TOML = 'presets = ["rush"]\ntable_sizes = [2]\ngames = 200\nseed = 2\nreference = ["RandomBot", "GreedyBot"]\n'


def _count(db: Path) -> int:
    try:
        con = sqlite3.connect(db, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def test_resume_after_kill_9_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    killed = make_folder(tmp_path / "killed", KILL_TOML, [])
    whole = make_folder(tmp_path / "whole", KILL_TOML, [])
    cmd = [sys.executable, "-m", "cabo_kit.cli", "tournament", "run", str(killed), "--workers", "2", "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 60
        while _count(killed / "results.sqlite") < 40 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, "the run finished before it could be killed: raise games in KILL_TOML"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the pool workers the killed runner left behind
        except ProcessLookupError:
            pass
    stored = _count(killed / "results.sqlite")
    assert 40 <= stored < 200
    resumed = run_tournament(killed, workers=2, progress=False, out=None)
    assert resumed.skipped == stored and resumed.played == 200 - stored
    con = sqlite3.connect(killed / "results.sqlite")
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    n, unique = con.execute("SELECT COUNT(*), COUNT(DISTINCT game_id) FROM games").fetchone()
    assert n == unique == 200
    assert con.execute("SELECT COUNT(*) FROM seats").fetchone()[0] == 400
    con.close()
    run_tournament(whole, workers=1, progress=False, out=None)
    write_outputs(killed, out=None)
    write_outputs(whole, out=None)
    assert stored_board(killed) == stored_board(whole)
    assert _seats(killed).equals(_seats(whole))


def test_dask_executor_matches_the_process_pool_or_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "distributed", None)  # as if the extra were missing
        with pytest.raises(ExecutorError, match=r'pip install "cabo-kit\[dask\]"'):
            make_executor("dask")
        assert 'cabo-kit[dask]' in DASK_HINT
    try:
        import distributed  # noqa: F401
    except ImportError:
        folder = make_folder(tmp_path / "d", DET_TOML, [])
        assert main(["tournament", "run", str(folder), "--executor", "dask", "--no-progress"]) == 2
        return
    pool = make_folder(tmp_path / "pool", DET_TOML, ["wanderer.py"])
    dask = make_folder(tmp_path / "dask", DET_TOML, ["wanderer.py"])
    board_pool, seats_pool = _det_run(pool, 2)
    summary = run_tournament(dask, workers=2, executor="dask", progress=False, out=None)
    assert summary.executor == "dask" and summary.played == len(seats_pool) // 3
    write_outputs(dask, out=None)
    assert stored_board(dask) == board_pool
    assert _seats(dask).equals(seats_pool)


def test_config_defaults_in_one_line_and_bad_keys_named(tmp_path: Path) -> None:
    cfg, note = load_config(tmp_path)
    assert "no tournament.toml" in note and "defaults" in note and "\n" not in note
    assert [p.preset for p in cfg.presets] == ["deluxe", "rush", "traveller"] and cfg.reference == ("RandomBot",)
    cases = {
        "games = 0": "games = 0: write a whole number >= 1",
        'presets = ["rsuh"]': "did you mean 'rush'",
        "table_sizes = [9]": "table_sizes has 9",
        "[limits]\ndecision = 1": "unknown key limits.decision (did you mean 'decision_s'?)",
        'executor = "slurm"': "choose one of 'local', 'dask'",
        'presets = [{preset = "deluxe", hand_sise = 6}]': "did you mean 'hand_size'",
        'reference = ["Randombot"]': "did you mean 'RandomBot'",
        "games = ": "not valid TOML",
    }
    for text, message in cases.items():
        (tmp_path / "tournament.toml").write_text(text + "\n")
        with pytest.raises(ConfigError, match=None) as info:
            load_config(tmp_path)
        assert message in str(info.value), (text, str(info.value))
    (tmp_path / "tournament.toml").write_text('presets = [{preset = "deluxe", hand_size = 6}]\n')
    assert load_config(tmp_path)[0].presets[0].rules_json == '{"hand_size":6}'


def test_a_tournament_toml_not_in_utf8_is_a_config_error_that_says_so(tmp_path: Path) -> None:
    """Notepad's "Unicode" (UTF-16 with a BOM) is named, not a crash; a UTF-8 BOM is read as UTF-8."""
    path = tmp_path / "tournament.toml"
    path.write_bytes("games = 3\n".encode("utf-16"))
    with pytest.raises(ConfigError, match="tournament.toml is not UTF-8: save it as UTF-8"):
        load_config(tmp_path)
    path.write_bytes("games = 3\n".encode("utf-8-sig"))
    assert load_config(tmp_path)[0].games == 3


def test_cli_runs_and_reports_a_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = make_folder(tmp_path / "cli", 'presets = ["rush"]\ntable_sizes = [2]\ngames = 2\nreference = ["RandomBot", "GreedyBot"]\n', [])
    assert main(["tournament", "run", str(folder), "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "GreedyBot" in out and "report:" in out and (folder / "report.html").exists()
    (folder / "leaderboard.csv").unlink()
    assert main(["tournament", "report", str(folder)]) == 0
    assert (folder / "leaderboard.csv").read_text().startswith("bot,preset,elo")
    (folder / "tournament.toml").write_text("gmaes = 3\n")
    assert main(["tournament", "run", str(folder)]) == 2
    assert "unknown key 'gmaes' (did you mean 'games'?)" in capsys.readouterr().err


def test_a_table_larger_than_the_class_is_said_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "alice.py").write_text(
        "import cabo_kit as ck\n\nclass Alice(ck.Bot):\n    def choose(self, o, legal):\n        return legal[0]\n"
    )
    from cabo_kit.tournament.runner import run_tournament

    # No game at all (issue 17): an error before anything is written, not a run that "succeeds" with 0 games.
    with pytest.raises(ConfigError, match=r"no game to play: a 4-player table needs 4 different bots and 2 can play "
                                          r"\(alice, RandomBot\).*table_sizes = \[2\]"):
        run_tournament(tmp_path, games=4, workers=1, progress=False, out=None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bots"]
    (tmp_path / "tournament.toml").write_text("table_sizes = [2, 4]\npresets = [\"rush\"]\n")
    lines: list[str] = []
    summary = run_tournament(tmp_path, games=2, workers=1, progress=False, out=lines.append)
    assert summary.played == 2  # some sizes play: the others are a note
    assert "no 4-player games: a 4-player table needs 4 different bots and 2 are playing" in "\n".join(lines)


def test_round_summaries_given_to_tournament_bots_leave_out_losing_snap_claims() -> None:
    # RULES.md §7: losing snap claims are seen by no one, so the round summary a bot receives
    # (on_round_end) must not count them; the runner's game loop must use the players' copy.
    import cabo_kit as ck
    from cabo_kit.play import bot_random
    from cabo_kit.tournament.runner import play_one

    class Listener(ck.bots.RandomBot):
        def __init__(self) -> None:
            super().__init__()
            self.stats_keys: list[set[str]] = []

        def on_round_end(self, result: ck.RoundResult) -> None:
            self.stats_keys.extend(set(s) for s in result.stats)

    bots = [Listener() for _ in range(3)]
    for seat, bot in enumerate(bots):
        bot.random = bot_random(5, seat)
    game = ck.Game(ck.Rules.preset("rush"), 5, 3)
    assert play_one(game, bots, ["a", "b", "c"]) == (None, "", "")
    keys = [k for bot in bots for k in bot.stats_keys]
    assert keys and all("snap_claims" not in k and "snaps" in k for k in keys)
    assert all("snap_claims" in s for r in game.results for s in r.stats)  # the record keeps the count


def test_a_folder_where_fewer_than_two_bots_can_play_is_refused_and_left_untouched(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ConfigError, match=r"only RandomBot can play \(no bot files in .*bots\): a table needs"):
        run_tournament(empty, progress=False, out=None)
    assert list(empty.iterdir()) == []  # no store, logs or report written
    broken = make_folder(tmp_path / "broken", 'reference = ["RandomBot"]\n', ["broken_syntax.py"])
    with pytest.raises(ConfigError, match=r"rejected broken_syntax.py: line \d+: SyntaxError"):
        run_tournament(broken, progress=False, out=None)
    assert sorted(p.name for p in broken.iterdir()) == ["bots", "tournament.toml"]


ADAPTIVE_TOML = """
presets = ["rush"]
table_sizes = [3]
games = 6
seed = 5
precision = 45
reference = ["RandomBot", "GreedyBot", "CountingBot"]
[limits]                 # generous: a timeout on a busy machine would change results
decision_s = 10.0
game_bank_s = 120.0
"""


def _order_keys(folder: Path) -> list[str]:
    con = sqlite3.connect(folder / "results.sqlite")
    try:
        return [r[0] for r in con.execute(
            "SELECT order_key FROM games WHERE game_id IN (SELECT game_id FROM scheduled) ORDER BY order_key")]
    finally:
        con.close()


def test_adaptive_run_reaches_the_target_the_same_way_with_one_or_two_workers(tmp_path: Path) -> None:
    """Issue 11, must 4: balanced seeding, then batches of similar-strength tables until every two-sided
    interval is within the target; one seed gives the same games and leaderboard, byte for byte."""
    from cabo_kit.tournament.ratings import fit_elo, half_width

    a = make_folder(tmp_path / "a", ADAPTIVE_TOML, ["steady.py"])
    b = make_folder(tmp_path / "b", ADAPTIVE_TOML, ["steady.py"])
    first = run_tournament(a, workers=1, progress=False, out=None)
    board_a, seats_a = _det_run(b, 2)
    write_outputs(a, out=None)
    assert stored_board(a) == board_a
    assert _seats(a).equals(seats_a)
    keys = _order_keys(a)
    seeding = [k for k in keys if not k.startswith("a")]
    adaptive = [k for k in keys if k.startswith("a")]
    assert len(seeding) == 12 and len(adaptive) > 30  # the balanced part alone does not reach +-45
    board = fit_elo(seats_a)
    assert half_width(board).max() <= 45.0
    assert any("every two-sided interval within +-45 Elo" in n for n in first.notes)
    # RandomBot ends below the field (one-sided) once enough comparisons show the gap; from then on the
    # adaptive tables leave it out, so it plays far fewer adaptive games than the others.
    random_row = board[board["bot"] == "RandomBot"].iloc[0]
    assert random_row["elo_low"] == float("-inf") and random_row["elo"] < random_row["elo_high"] < float("inf")
    con = sqlite3.connect(a / "results.sqlite")
    per_bot = dict(con.execute("SELECT s.bot, COUNT(*) FROM seats s JOIN games g ON g.game_id = s.game_id "
                               "WHERE g.order_key LIKE 'a%' GROUP BY s.bot").fetchall())
    con.close()
    assert per_bot.get("RandomBot", 0) * 2 < min(n for b, n in per_bot.items() if b != "RandomBot")
    again = run_tournament(a, workers=2, progress=False, out=None)
    assert again.played == 0 and again.skipped == len(keys)


def test_adaptive_run_stops_at_the_game_budget_and_says_so(tmp_path: Path) -> None:
    folder = make_folder(tmp_path / "t", ADAPTIVE_TOML.replace("precision = 45", "precision = 10"), ["steady.py"])
    summary = run_tournament(folder, workers=2, max_games=30, progress=False, out=None)
    assert any("game budget (max_games = 30) is reached" in n and "raise max_games" in n for n in summary.notes)
    games = load_frames(folder)[1].groupby("bot").size()
    assert games.max() <= 30 and games.max() > 6  # nobody is seated past the budget


def test_resume_after_kill_9_in_the_adaptive_phase_gives_the_same_leaderboard(tmp_path: Path) -> None:
    toml = ADAPTIVE_TOML.replace("precision = 45", "precision = 30")
    killed = make_folder(tmp_path / "killed", toml, ["steady.py"])
    whole = make_folder(tmp_path / "whole", toml, ["steady.py"])
    cmd = [sys.executable, "-m", "cabo_kit.cli", "tournament", "run", str(killed), "--workers", "2", "--no-progress"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 60
        while _count(killed / "results.sqlite") < 40 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert proc.poll() is None, "the run finished before it could be killed: lower precision in the test"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    stored = _count(killed / "results.sqlite")
    resumed = run_tournament(killed, workers=2, progress=False, out=None)
    assert resumed.skipped >= stored - 12 and resumed.played > 0
    run_tournament(whole, workers=1, progress=False, out=None)
    write_outputs(killed, out=None)
    write_outputs(whole, out=None)
    assert stored_board(killed) == stored_board(whole)
    assert _order_keys(killed) == _order_keys(whole)


def test_adaptive_dask_run_matches_the_process_pool(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    pool = make_folder(tmp_path / "pool", ADAPTIVE_TOML, ["steady.py"])
    dask = make_folder(tmp_path / "dask", ADAPTIVE_TOML, ["steady.py"])
    board_pool, seats_pool = _det_run(pool, 2)
    run_tournament(dask, workers=2, executor="dask", progress=False, out=None)
    write_outputs(dask, out=None)
    assert stored_board(dask) == board_pool
    assert _seats(dask).equals(seats_pool)


def test_precision_settings_are_checked_with_the_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cabo_kit.tournament.config import TournamentConfig

    assert TournamentConfig.from_dict({"precision": 50, "max_games": 400}).precision == 50.0
    for text, message in {"precision = -5": "precision = -5: write the Elo half-width to reach, e.g. precision = 50",
                          'precision = "tight"': "precision = 'tight'", "max_games = 0": "max_games = 0: write a whole number >= 1",
                          "precison = 50": "did you mean 'precision'?"}.items():
        with pytest.raises(ConfigError) as info:
            TournamentConfig.from_dict(__import__("tomllib").loads(text) if sys.version_info >= (3, 11) else {})
        assert message in str(info.value), (text, str(info.value))
    folder = make_folder(tmp_path / "f", 'presets = ["rush"]\ntable_sizes = [2]\ngames = 2\nreference = ["RandomBot", "GreedyBot"]\n', [])
    assert main(["tournament", "run", str(folder), "--until", "tight", "--no-progress"]) == 2
    assert "'tight' is not an Elo half-width: write e.g. --until 50" in capsys.readouterr().err
    (folder / "tournament.toml").write_text('presets = ["rush"]\ntable_sizes = [2]\ngames = 2\n'
                                           'reference = ["RandomBot", "GreedyBot", "CountingBot"]\n')
    assert main(["tournament", "run", str(folder), "--until", "20", "--max-games", "12", "--workers", "1",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "then adaptively until every two-sided interval is within +-20 Elo" in out
    assert "rush: the game budget (max_games = 12) is reached" in out and "rank" in out
