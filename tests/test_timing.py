"""CPU per decision (issue 18, must 2): measured for isolated and trusted bots, stored, migrated, shown, estimated."""

from __future__ import annotations

import io
import math
import random
import shutil
import sqlite3
import time
from pathlib import Path

import pandas as pd
import pytest

from cabo_kit.tournament.isolation import IsolatedBot, Submission
from cabo_kit.tournament.progress import Progress
from cabo_kit.tournament.runner import estimate_tournament, format_leaderboard, run_tournament, write_outputs
from cabo_kit.tournament.store import DB_NAME, SCHEMA_VERSION, GameRow, SeatRow, Store, load_frames, load_record
from cabo_kit.tournament.timing import CpuTally, add_hists, bot_timing, parse_hist, quantile

HERE = Path(__file__).parent
V1 = HERE / "data" / "store_v1"
BOTS = HERE / "tournament_bots"

# Spends `ms` of its own CPU on every decision, then plays as GreedyBot.
BUSY = """import time
from cabo_kit.bots import GreedyBot


class Busy(GreedyBot):
    def choose(self, observation, legal_actions):
        t = time.thread_time()
        while time.thread_time() - t < {ms} / 1000:
            pass
        return super().choose(observation, legal_actions)
"""


def _folder(tmp_path: Path, busy_ms: float, games: int) -> Path:
    folder = tmp_path / "class"
    (folder / "bots").mkdir(parents=True)
    (folder / "tournament.toml").write_text(
        f'presets = ["rush"]\ntable_sizes = [2]\ngames = {games}\nreference = ["RandomBot"]\n')
    (folder / "bots" / "busy.py").write_text(BUSY.format(ms=busy_ms))
    shutil.copy(BOTS / "steady.py", folder / "bots" / "steady.py")
    return folder


def test_isolated_and_trusted_seats_store_their_timing_and_the_leaderboard_shows_it(tmp_path: Path, capsys) -> None:
    folder = _folder(tmp_path, busy_ms=1.0, games=2)
    summary = run_tournament(folder, workers=1, progress=True)  # stderr is not a terminal under pytest
    err = capsys.readouterr().err
    assert summary.played == 6
    # Off a terminal: plain progress lines, never a tqdm bar's carriage returns.
    assert "\r" not in err and "tournament: 6/6 games in " in err
    games, seats = load_frames(folder)
    assert seats["decisions"].dtype == "Int64" and seats["cpu_s"].notna().all() and seats["cpu_hist"].notna().all()
    assert games["seconds"].gt(0).all()
    for gid, part in seats.groupby("game_id"):
        record = load_record(folder, gid)
        for seat, decisions in zip(part["seat"], part["decisions"]):  # every choose() call is one action
            assert decisions == sum(1 for s, _ in record.actions if s == seat) > 0
    t = bot_timing(seats).set_index("bot")
    # busy (isolated) spends 1 ms a decision; RandomBot (trusted, measured in the worker) a few microseconds
    assert 0.9 <= t.loc["busy", "cpu_ms_median"] <= 1.5 and t.loc["busy", "cpu_ms_p95"] >= t.loc["busy", "cpu_ms_median"]
    assert t.loc["RandomBot", "cpu_ms_median"] < 0.2 < t.loc["busy", "cpu_ms_median"]
    assert t.loc["steady", "cpu_ms_median"] < t.loc["busy", "cpu_ms_median"]
    assert t.loc["busy", "cpu_share"] > 80 and math.isclose(t["cpu_share"].sum(), 100, abs_tol=0.05)
    assert t.loc["busy", "cpu_s"] >= t.loc["busy", "decisions"] * 0.001 * 0.95

    board, _ = write_outputs(folder, out=print)
    shown = capsys.readouterr().out
    assert "CPU ms/decision" in shown and "CPU share" in shown
    csv = pd.read_csv(folder / "leaderboard.csv")
    for col in ("decisions", "cpu_s", "cpu_ms_median", "cpu_ms_p95", "cpu_share"):
        assert csv[col].notna().all(), col
    by_bot = csv.set_index("bot")
    assert by_bot.loc["busy", "cpu_ms_median"] > 10 * by_bot.loc["RandomBot", "cpu_ms_median"]
    html = (folder / "report.html").read_text(encoding="utf-8")
    assert 'id="time"' in html and "CPU ms / decision" in html


def test_a_store_of_schema_1_migrates_and_its_timing_is_unknown_not_zero(tmp_path: Path) -> None:
    folder = tmp_path / "old"
    shutil.copytree(V1, folder)
    db = folder / DB_NAME
    before_games, before = load_frames(folder, current_only=False)  # a reader never migrates
    assert before["decisions"].isna().all() and before["cpu_s"].isna().all() and before_games["seconds"].isna().all()
    with Store(db) as store:  # the writer migrates
        row = GameRow("new", "d", "99999:x:0", "rush", "{}", 2, 1, 0, "ok", 1, b"{}", seconds=0.25)
        seats = [SeatRow(0, "a", "v", 10, 1, 1.0, "ok", "", {}, 12, 0.003, "30:12"),
                 SeatRow(1, "b", "v", 20, 2, 0.0, "ok", "", {}, 11, 0.001, "20:11")]
        assert store.add_game(row, seats)
    con = sqlite3.connect(db)
    assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone() == (str(SCHEMA_VERSION),)
    assert {"decisions", "cpu_s", "cpu_hist"} <= {r[1] for r in con.execute("PRAGMA table_info(seats)")}
    con.close()
    games, after = load_frames(folder, current_only=False)
    old = after[after["game_id"] != "new"].reset_index(drop=True)
    assert len(old) == len(before) and old["decisions"].isna().all() and old["cpu_s"].isna().all()
    assert old.drop(columns=["game_index"]).equals(before.drop(columns=["game_index"]))
    new = after[after["game_id"] == "new"]
    assert list(new["decisions"]) == [12, 11] and games.set_index("game_id").loc["new", "seconds"] == 0.25
    t = bot_timing(after).set_index("bot")
    assert t.loc["a", "decisions"] == 12 and t["decisions"].isna().sum() == len(t) - 2  # old bots: unknown
    # The terminal leaderboard says "unknown" for them, never 0.
    from cabo_kit.tournament.ratings import fit_elo
    from cabo_kit.tournament.timing import with_timing

    text = format_leaderboard(with_timing(fit_elo(after[after["game_id"] != "new"]), after))
    rows = text.splitlines()[2:2 + after[after["game_id"] != "new"]["bot"].nunique()]
    assert rows and all(row.split()[-3:] == ["unknown"] * 3 for row in rows), text


def test_the_estimate_is_within_a_factor_2_of_the_run_and_stores_nothing(tmp_path: Path) -> None:
    folder = _folder(tmp_path, busy_ms=1.5, games=4)  # CPU-dominated: busy spends 1.5 ms of each of its decisions
    lines: list[str] = []
    est = estimate_tournament(folder, workers=1, out=lines.append)
    assert not (folder / DB_NAME).exists()
    assert est.games == 6 and est.workers == 1 and any(line.startswith("estimate: about ") for line in lines)
    assert est.per_bot["busy"] > 20 * est.per_bot["RandomBot"]
    said: list[str] = []
    started = time.perf_counter()
    summary = run_tournament(folder, workers=1, progress=False, out=said.append)
    took = time.perf_counter() - started
    assert summary.played == 6
    assert 0.5 <= est.total_seconds / took <= 2.0, (est.total_seconds, took)
    # The run timed its first batch (games of the run, stored) and said the estimate early on.
    assert any(line.startswith("estimate: about ") and "from the first" in line for line in said)
    # A later run with more games prices them from the store's timings, before playing.
    said.clear()
    run_tournament(folder, workers=1, progress=False, out=said.append, games=6)
    first = next(i for i, line in enumerate(said) if line.startswith("estimate: "))
    assert "from the stored games' timings" in said[first] and not any("games played" in s for s in said[:first])


def test_the_histogram_median_and_p95_are_within_a_bin_of_the_exact_ones() -> None:
    rng = random.Random(18)
    tallies = [CpuTally() for _ in range(5)]
    times = [int(rng.lognormvariate(math.log(40_000), 1.2)) for _ in range(5000)]
    for i, ns in enumerate(times):
        tallies[i % 5].decision(ns)
    total = add_hists(t.hist_text() for t in tallies)  # as stored per seat, summed per bot
    assert sum(total.values()) == 5000 == sum(sum(parse_hist(t.hist_text()).values()) for t in tallies)
    exact = sorted(times)
    for q in (0.5, 0.95):
        got, want = quantile(total, q) * 1e9, exact[int(q * len(exact))]
        assert abs(math.log10(got / want)) < 0.1, (q, got, want)  # within one bin (a factor 10 ** 0.1)


def test_an_isolated_bots_reported_cpu_is_capped_at_the_calls_wall_time() -> None:
    bot = IsolatedBot(Submission("x", "v", Path("x.py"), "X"))
    bot._account({"h": 10 ** 12}, 10 ** 12, 0.002, True)  # a bot claiming 1000 s for a 2 ms call
    assert bot.cpu.decisions == 1 and bot.cpu.cpu_s <= 0.002
    bot._account({}, -5, 0.002, True)  # nonsense counts as 0
    assert bot.cpu.decisions == 2 and bot.cpu.cpu_s <= 0.002


def test_progress_off_a_terminal_prints_plain_lines_with_the_time_left() -> None:
    out = io.StringIO()
    bar = Progress(10, "tournament", stream=out, every_s=3600)
    for _ in range(10):
        bar.update()
    bar.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 10  # a line at each tenth (none at the last: the closing line says it)
    assert lines[0].startswith("tournament: 1/10 games, ") and "elapsed, about " in lines[0] and lines[0].endswith(" left")
    assert lines[-1].startswith("tournament: 10/10 games in ")


@pytest.mark.parametrize("ns, expected", [(999, 0), (1_258, 0), (1_259, 1), (10_000, 10), (10 ** 15, 79)])
def test_bins(ns: int, expected: int) -> None:
    tally = CpuTally()
    tally.decision(ns)
    assert tally.bins == {expected: 1}


def test_cli_estimate_prints_the_expected_duration_and_writes_nothing(tmp_path: Path, capsys) -> None:
    from cabo_kit.cli import main

    folder = tmp_path / "refs"
    folder.mkdir()
    (folder / "tournament.toml").write_text('presets = ["rush"]\ntable_sizes = [2]\ngames = 2\n'
                                             'reference = ["RandomBot", "GreedyBot"]\nprecision = 50\n')
    assert main(["tournament", "run", str(folder), "--estimate", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("estimate: about "))
    # 2 balanced games, then the adaptive ones a precision of 50 would add (rough), capped by max_games
    assert "games on 1 worker: 2 balanced, about " in line and " adaptive, at most 1,998 within max_games" in line  # 2 bots x 1,998 more / 2 seats
    assert sorted(p.name for p in folder.iterdir()) == ["tournament.toml"]


def test_the_grading_line_says_its_durations_in_words_under_a_second_too() -> None:
    from cabo_kit.tournament.timing import Estimate

    est = Estimate(games=6, seconds=1.2, workers=2, grading=4, grading_max=10, grading_seconds=0.3,
                   grading_max_seconds=45.0)
    line = next(x for x in est.lines() if x.startswith("  grading"))
    assert "about 4 games in under a second, at most 10 in about 45 seconds" in line, line
