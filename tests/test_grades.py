"""Grades against a bar the teacher picks (issue 18, must 6): tournament.toml's ``grading``, the one-on-one
duplicate-deal matches, grades.csv, the leaderboard's column, and the games kept out of the ratings."""

from __future__ import annotations

import csv
import html
import random
import shutil
import sqlite3
from pathlib import Path

import pytest

from cabo_kit.cli import main
from cabo_kit.tournament import grades
from cabo_kit.tournament.config import ConfigError, TournamentConfig
from cabo_kit.tournament.grades import GRADES_CSV, GRADES_DB, decide, load_grades, play_grades
from cabo_kit.tournament.lock import FolderError
from cabo_kit.tournament.runner import run_tournament, write_outputs
from cabo_kit.tournament.store import DB_NAME, Store, load_frames
from cabo_kit.tournament.timing import TIMING_COLUMNS

ROOT = Path(__file__).resolve().parent.parent
BATCH, CAP = 4, 24  # deals between looks, games per file, bar and preset: small, so the tests stay quick
TOML = 'presets = ["rush"]\ntable_sizes = [2]\ngames = 2\nreference = ["RandomBot"]\n'


def _folder(root: Path, grading: bool) -> Path:
    folder = root / ("graded" if grading else "plain")
    (folder / "bots").mkdir(parents=True)
    counting = (ROOT / "bots" / "counting_bot.py").read_text()
    (folder / "bots" / "ann.py").write_text(counting.replace("class CountingBot(", "class AnnBot("))
    rand = (ROOT / "bots" / "random_bot.py").read_text()
    (folder / "bots" / "rex.py").write_text(rand.replace("class RandomBot(", "class RexBot("))
    shutil.copy(ROOT / "tests" / "fault_bots" / "raises.py", folder / "bots" / "zed.py")  # raises at its 2nd decision
    shutil.copy(ROOT / "tests" / "fault_bots" / "bad_syntax.py", folder / "bots" / "bad.py")  # rejected
    (folder / "tournament.toml").write_text(TOML + ('grading = ["RandomBot"]\n' if grading else ""))
    return folder


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A class (a renamed CountingBot, a renamed RandomBot, a file that raises, one that does not load) graded
    against RandomBot."""
    folder = _folder(tmp_path_factory.mktemp("grades"), grading=True)
    lines: list[str] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(grades, "BATCH_DEALS", BATCH)
        mp.setattr(grades, "MAX_GAMES", CAP)
        run_tournament(folder, workers=2, progress=False, out=lines.append)
        write_outputs(folder, out=None)
    return folder, lines


@pytest.fixture
def small(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grades, "BATCH_DEALS", BATCH)
    monkeypatch.setattr(grades, "MAX_GAMES", CAP)


def _grade(folder: Path, bot: str) -> grades.Grade:
    _, seats = load_frames(folder)
    versions = seats.drop_duplicates("bot").set_index("bot")["version"]
    (g,) = [g for g in load_grades(folder, [(bot, versions[bot])]) if g.bot == bot]
    return g


def _stored(folder: Path) -> int:
    con = sqlite3.connect(folder / GRADES_DB)
    try:
        return int(con.execute("SELECT count(*) FROM games").fetchone()[0])
    finally:
        con.close()


def test_stronger_file_is_above_and_a_copy_of_the_bar_is_level(graded, small) -> None:
    folder, lines = graded
    ann, rex = _grade(folder, "ann"), _grade(folder, "rex")
    assert ann.verdict == "above" and ann.low > 0.5 and 0 < ann.games < CAP and ann.games % (2 * BATCH) == 0
    # RandomBot's own code: the same deal from both seats mirrors, so every deal is shared and it ends level at the cap
    assert (rex.verdict, rex.games, rex.score) == ("level", CAP, 0.5)
    assert rex.low < 0.5 < rex.high and ann.faults == rex.faults == 0


def test_a_file_that_faults_is_below_with_its_faults_counted(graded, small) -> None:
    folder, lines = graded
    zed = _grade(folder, "zed")
    assert (zed.verdict, zed.score, zed.faults) == ("below", 0.0, zed.games) and zed.high < 0.5
    games = sum(_grade(folder, b).games for b in ("ann", "rex", "zed"))
    announced = next(line for line in lines if line.startswith("grading 3 files against RandomBot"))
    assert f"at most {3 * CAP} in all" in announced
    assert any(line.startswith(f"grading: {games} games played") and "1 rejected files (no grade)" in line
               for line in lines)
    assert _stored(folder) == games


def test_grades_csv_has_one_row_per_file(graded) -> None:
    folder, _ = graded
    with open(folder / GRADES_CSV, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["bot"] for r in rows] == ["ann", "bad", "rex", "zed"]  # the files only, not the reference bot
    assert list(rows[0]) == ["bot", "file", "vs_RandomBot", "vs_RandomBot_rush", "vs_RandomBot_rush_score",
                             "vs_RandomBot_rush_elo", "vs_RandomBot_rush_games", "vs_RandomBot_rush_faults"]
    ann, bad, rex, zed = rows
    assert (bad["file"], bad["vs_RandomBot"], bad["vs_RandomBot_rush_games"]) == ("bad.py", "rejected", "0")
    assert zed["vs_RandomBot_rush"] == "below" and zed["vs_RandomBot_rush_faults"] == zed["vs_RandomBot_rush_games"]
    assert (ann["file"], ann["vs_RandomBot"], ann["vs_RandomBot_rush"]) == ("ann.py", "above", "above")
    assert (rex["vs_RandomBot"], rex["vs_RandomBot_rush_games"]) == ("level", str(CAP))
    assert rex["vs_RandomBot_rush_score"].startswith("0.50 [") and rex["vs_RandomBot_rush_elo"].startswith("'+0 [")


def test_leaderboard_and_report_get_a_column_per_grading_bot(graded, small) -> None:
    folder, _ = graded
    with open(folder / "leaderboard.csv", newline="") as f:
        rows = {r["bot"]: r for r in csv.DictReader(f)}
    assert list(rows["ann"])[-1] == "vs RandomBot"
    ann = _grade(folder, "ann")
    assert rows["ann"]["vs RandomBot"] == f"above ({ann.elo_text()}, {ann.games} games)"
    assert rows["rex"]["vs RandomBot"].startswith("level (+0 [-") and rows["rex"]["vs RandomBot"].endswith(f"{CAP} games)")
    assert rows["RandomBot"]["vs RandomBot"] == ""  # a reference bot is not graded
    page = (folder / "report.html").read_text(encoding="utf-8")
    assert "<th>vs RandomBot</th>" in page and html.escape(rows["ann"]["vs RandomBot"], quote=False) in page


def test_grading_games_do_not_change_the_ratings(graded, tmp_path) -> None:
    folder, _ = graded
    plain = _folder(tmp_path, grading=False)
    run_tournament(plain, workers=2, progress=False, out=None)
    write_outputs(plain, out=None)
    with open(folder / "leaderboard.csv", newline="") as f:
        graded_rows = [r for r in csv.DictReader(f)]
    with open(plain / "leaderboard.csv", newline="") as f:
        plain_rows = [r for r in csv.DictReader(f)]
    timing = set(TIMING_COLUMNS)  # CPU times differ from run to run; the ratings must not
    assert ([{k: v for k, v in r.items() if k != "vs RandomBot" and k not in timing} for r in graded_rows]
            == [{k: v for k, v in r.items() if k not in timing} for r in plain_rows])
    games, _ = load_frames(folder / DB_NAME, current_only=False)
    assert len(games) == len(load_frames(plain / DB_NAME, current_only=False)[0])  # the main schedule's games only
    con = sqlite3.connect(folder / GRADES_DB)
    graded_ids = {r[0] for r in con.execute("SELECT game_id FROM games")}
    con.close()
    assert graded_ids and not graded_ids & set(games["game_id"])


def test_rerun_plays_nothing_and_a_killed_run_replays_only_what_is_missing(graded, small, tmp_path) -> None:
    src, _ = graded
    folder = tmp_path / "copy"
    shutil.copytree(src, folder)
    before = [_grade(folder, b) for b in ("ann", "rex", "zed")]
    lines: list[str] = []
    assert run_tournament(folder, workers=1, progress=False, out=lines.append).played == 0
    assert any(line.startswith("grading: 0 games played") for line in lines)
    with Store(folder / GRADES_DB) as store:  # as if the run had been killed before these two were stored
        gone = sorted(store.existing_ids())[:2]
        for gid in gone:
            store.delete_game(gid)
    lines.clear()
    run = play_grades(folder, workers=1, out=lines.append)
    # the opening line counts every game stored for these files, not only the batches complete before the kill
    left = sum(g.games for g in before) - 2
    assert any(line.startswith("grading 3 files") and f"({left} games stored)" in line for line in lines), lines
    assert run.played == 2 and _stored(folder) == sum(g.games for g in before)
    assert [_grade(folder, b) for b in ("ann", "rex", "zed")] == before  # the same seed, the same games, the same grades


def test_cli_grades_prints_the_table(graded, small, tmp_path, capsys) -> None:
    src, _ = graded
    folder = tmp_path / "copy"
    shutil.copytree(src, folder)
    (folder / GRADES_CSV).unlink()
    assert main(["tournament", "grades", str(folder), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "grading: 0 games played" in out and "ann  RandomBot  rush    above" in out
    assert "rex level with RandomBot" in out and "zed below RandomBot" in out and (folder / GRADES_CSV).exists()
    assert f"bad.py: rejected, no grade (the reason: cabo-kit check-bot {folder / 'bots' / 'bad.py'} --class {folder})" in out
    with Store(folder / GRADES_DB) as store:  # one game to play: off a terminal, progress is plain lines (stderr)
        store.delete_game(sorted(store.existing_ids())[0])
    assert main(["tournament", "grades", str(folder), "--workers", "1"]) == 0
    captured = capsys.readouterr()
    assert "grading: 1 games played" in captured.out and "grading: 1/1 games in " in captured.err
    (folder / "tournament.toml").write_text(TOML)
    assert main(["tournament", "grades", str(folder)]) == 2
    assert 'grading = ["GreedyBot"]' in capsys.readouterr().err


@pytest.mark.parametrize("value, message", [
    ('["GreedBot"]', "grading bot 'GreedBot' is not built in (did you mean 'GreedyBot'?); choose from RandomBot"),
    ('"GreedyBot"', 'write a list of built-in bot names, e.g. grading = ["GreedyBot"]'),
    ('["SimpleBot"]', "grading bot 'SimpleBot' is not built in"),
])
def test_config_errors(value: str, message: str, tmp_path) -> None:
    (tmp_path / "tournament.toml").write_text(f"grading = {value}\n")
    from cabo_kit.tournament.config import load_config

    with pytest.raises(ConfigError, match="^" + str(tmp_path / "tournament.toml").replace("\\", "\\\\") + ": ") as err:
        load_config(tmp_path)
    assert message in str(err.value)


def test_config_grading_default_and_two_player_presets() -> None:
    assert TournamentConfig().grading == ()
    cfg = TournamentConfig.from_dict({"grading": ["GreedyBot", "GreedyBot"], "table_sizes": [3]})
    assert cfg.grading == ("GreedyBot",)
    assert [e.preset for e in grades.graded_presets(cfg)] == ["deluxe", "rush"]  # traveller needs 3 players
    with pytest.raises(ConfigError, match="no preset here allows 2 players"):
        TournamentConfig.from_dict({"grading": ["GreedyBot"], "presets": ["traveller"], "table_sizes": [3]})


def test_decide_reads_batches_in_order() -> None:
    assert decide([1.0] * 20, batch=4, cap=40).verdict == "above"
    assert decide([0.0] * 20, batch=4, cap=40).verdict == "below"
    even = decide([0.5] * 20, batch=4, cap=40)
    assert (even.verdict, even.deals) == ("level", 20)
    waiting = decide([0.5] * 4 + [None] + [0.5] * 15, batch=4, cap=40)  # deal 5 not played: the second look waits
    assert (waiting.verdict, waiting.deals, waiting.needed) == ("", 4, 8)
    # what comes after the deciding batch is never read
    assert decide([1.0] * 12 + [0.0] * 8, batch=4, cap=40) == decide([1.0] * 12 + [None] * 8, batch=4, cap=40)


def test_looking_after_every_batch_keeps_false_calls_under_one_in_twenty() -> None:
    rng = random.Random(7)
    calls = 0
    for _ in range(300):  # two even players: independent games, each won half the time
        deals = [(int(rng.random() < 0.5) + int(rng.random() < 0.5)) / 2 for _ in range(100)]
        calls += decide(deals, batch=8, cap=200).verdict != "level"
    assert calls <= 15
    strong = [decide([(int(rng.random() < 0.75) + int(rng.random() < 0.75)) / 2 for _ in range(100)], batch=8, cap=200)
              for _ in range(50)]
    assert sum(d.verdict == "above" for d in strong) >= 45 and sum(d.deals for d in strong) < 50 * 100 / 2


def test_a_changed_file_is_graded_again_and_only_it(graded, small, tmp_path) -> None:
    src, _ = graded
    folder = tmp_path / "copy"
    shutil.copytree(src, folder)
    stored = _stored(folder)
    with open(folder / "bots" / "zed.py", "a") as f:
        f.write("# a new version\n")
    run = play_grades(folder, workers=1, out=None)
    zed = next(g for g in run.grades if g.bot == "zed")
    assert zed.verdict == "below" and run.played == zed.games and _stored(folder) == stored + zed.games


def test_a_seed_change_grades_on_the_new_seeds_deals_only(graded, small, tmp_path) -> None:
    src, _ = graded
    folder = tmp_path / "copy"
    shutil.copytree(src, folder)
    before = [_grade(folder, b) for b in ("ann", "rex", "zed")]
    stored = _stored(folder)
    old = _deal_seeds(folder)
    toml = folder / "tournament.toml"
    toml.write_text(toml.read_text() + "seed = 5\n")
    lines: list[str] = []
    run = play_grades(folder, workers=2, out=lines.append)
    assert any("0 of 3 grades already decided (0 games stored)" in line for line in lines), lines
    assert run.played == sum(g.games for g in run.grades) > 0 and _stored(folder) == stored + run.played
    new = {gid: ds for gid, ds in _deal_seeds(folder).items() if gid not in old}
    assert len(new) == run.played and not set(new.values()) & set(old.values())  # other deals, other games
    ann = next(g for g in run.grades if g.bot == "ann")
    assert ann.verdict == "above"
    toml.write_text(toml.read_text().replace("seed = 5\n", ""))  # back to seed 0: its games were kept, nothing to play
    again = play_grades(folder, workers=1, out=None)
    assert again.played == 0 and [_grade(folder, b) for b in ("ann", "rex", "zed")] == before


def _deal_seeds(folder: Path) -> dict[str, int]:
    con = sqlite3.connect(folder / GRADES_DB)
    try:
        return {gid: int(ds) for gid, ds in con.execute("SELECT game_id, deal_seed FROM games")}
    finally:
        con.close()


def test_a_file_named_after_a_grading_bot_or_a_builtin_anchor_is_rejected(tmp_path) -> None:
    from types import SimpleNamespace

    from cabo_kit.tournament.runner import collect_entrants

    (tmp_path / "bots").mkdir()
    for name in ("GreedyBot", "CountingBot", "ann"):
        (tmp_path / "bots" / f"{name}.py").write_text("")

    def loader(path: Path, limits: object) -> SimpleNamespace:  # no subprocess: only the names matter here
        return SimpleNamespace(name=path.stem, version="v1", path=path, class_name="X")

    cfg = TournamentConfig.from_dict({"reference": ["RandomBot"], "grading": ["GreedyBot"], "anchor": "CountingBot"})
    entrants, rejected = collect_entrants(tmp_path, cfg, loader)
    assert [b.name for b in entrants if b.kind == "file"] == ["ann"]
    assert sorted(f for f, _ in rejected) == ["CountingBot.py", "GreedyBot.py"]
    assert all("already taken (a reference bot, a grading bot or another file)" in why for _, why in rejected)


def test_the_elo_figure_is_the_shown_shares() -> None:
    g = grades.Grade("ann", "GreedyBot", "rush", "above", 64, 0.7, 0.68, 0.58, 0.79)
    assert g.elo_text() == f"{grades.elo_of(0.7):+.0f} [{grades.elo_of(0.58):+.0f}, {grades.elo_of(0.79):+.0f}]"
    # two files that won every game: no finite figure, each shows its own interval's lower bound (not one +492)
    a = grades.Grade("a", "GreedyBot", "rush", "above", 32, 1.0, 0.94, 0.84, 1.0)
    b = grades.Grade("b", "GreedyBot", "rush", "above", 64, 1.0, 0.97, 0.91, 1.0)
    assert (a.elo_text(), b.elo_text()) == (f"> +{grades.elo_of(0.84):.0f}", f"> +{grades.elo_of(0.91):.0f}")
    assert grades.Grade("z", "GreedyBot", "rush", "below", 32, 0.0, 0.06, 0.0, 0.16).elo_text() == "< -288"


def _formula_free(path: Path) -> list[list[str]]:
    """The file's rows; no cell a spreadsheet would run (a leading = + - @ on anything but a number: a numeric
    column's infinite interval bound is written as the number -inf)."""
    import re

    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    for row in rows:
        for cell in row:
            assert cell[:1] not in ("=", "+", "-", "@") or re.fullmatch(r"[+-]?(\d+(\.\d*)?|inf)", cell), (path.name, cell)
    return rows


def test_csv_cells_never_become_formulas_and_the_estimate_counts_grading(tmp_path, monkeypatch) -> None:
    from cabo_kit.tournament.runner import estimate_tournament

    folder = tmp_path / "class"
    (folder / "bots").mkdir(parents=True)
    rand = (ROOT / "bots" / "random_bot.py").read_text()
    names = ["=1+2", "@SUM(1,2)", "-bad"]
    for i, name in enumerate(names):
        (folder / "bots" / f"{name}.py").write_text(rand.replace("class RandomBot(", f"class Student{i}("))
    (folder / "tournament.toml").write_text('presets = ["rush"]\ntable_sizes = [2]\ngames = 2\n'
                                             'reference = ["GreedyBot"]\ngrading = ["GreedyBot"]\n')
    said: list[str] = []
    est = estimate_tournament(folder, workers=2, out=said.append)  # the default cap: 400 games a grade at most
    assert (est.grading, est.grading_max) == (3 * 160, 3 * 400) and est.grading_seconds > 0
    assert est.total_seconds == est.seconds + est.grading_seconds
    line = next(x for x in said if x.startswith("estimate: about "))
    assert "+ about 480 grading games, at most 1,200)" in line
    assert any(x.startswith("  grading (one on one") for x in said)
    monkeypatch.setattr(grades, "BATCH_DEALS", BATCH)
    monkeypatch.setattr(grades, "MAX_GAMES", 8)
    run_tournament(folder, workers=2, progress=False, out=None)
    board, _ = write_outputs(folder, out=None)
    rows = _formula_free(folder / "leaderboard.csv")
    head = rows[0]
    bots = {r[head.index("bot")] for r in rows[1:]}
    assert bots == {"'=1+2", "'@SUM(1,2)", "'-bad", "GreedyBot"}
    assert all(float(r[head.index("elo")]) == float(r[head.index("elo")]) for r in rows[1:])  # numbers stay numbers
    rows = _formula_free(folder / GRADES_CSV)
    assert sorted(r[1] for r in rows[1:]) == ["'-bad.py", "'=1+2.py", "'@SUM(1,2).py"]
    elo = [r[rows[0].index("vs_GreedyBot_rush_elo")] for r in rows[1:]]
    assert all(e.startswith(("'+", "'-", "<", ">")) for e in elo), elo
    assert estimate_tournament(folder, workers=2, out=None).grading_max == 0  # every grade decided: none left


def test_the_estimate_prices_grading_on_every_worker_and_times_a_bar_that_is_not_a_reference_bot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tournament's games all stored, grading left: the grading games run on every worker (as play_grades
    plays them), not on the one a finished tournament would need; GreedyBot, not a reference bot, has no stored
    timing: the estimate times it in a sample, and without one says it was priced as the median bot."""
    from cabo_kit.tournament import executors, runner

    folder = tmp_path / "bar"
    (folder / "bots").mkdir(parents=True)
    rand = (ROOT / "bots" / "random_bot.py").read_text()
    for name in ("ann", "bea"):
        (folder / "bots" / f"{name}.py").write_text(rand.replace("class RandomBot(", f"class {name.title()}Bot("))
    (folder / "tournament.toml").write_text(TOML)
    run_tournament(folder, workers=1, progress=False, out=None)
    (folder / "tournament.toml").write_text(TOML + 'grading = ["GreedyBot"]\n')  # no grading game played yet
    monkeypatch.setattr(executors, "default_workers", lambda: 4)
    asked: list[int] = []
    estimate = runner._estimate

    def spy(*args, **kw):  # type: ignore[no-untyped-def]
        asked.append(args[7])  # the workers it prices with
        return estimate(*args, **kw)

    monkeypatch.setattr(runner, "_estimate", spy)
    said: list[str] = []
    est = runner.estimate_tournament(folder, workers=3, out=said.append)
    assert est.games == 0 and est.grading == 2 * 160 and asked == [3]
    assert any("and each grading bot one on one; not stored" in line for line in said), said
    assert "GreedyBot" not in est.unknown  # timed by the sample
    cfg = TournamentConfig.from_dict({"presets": ["rush"], "table_sizes": [2], "games": 2,
                                      "reference": ["RandomBot"], "grading": ["GreedyBot"]})
    entrants, _ = runner.collect_entrants(folder, cfg)
    model = runner._stored_model(folder, entrants)
    assert model is not None and not model.knows("GreedyBot")
    one, three = (estimate(model, [], cfg, entrants, None, 0.0, 100, w, "local", "", folder) for w in (1, 3))
    assert three.grading_seconds == pytest.approx(one.grading_seconds / 3) and one.grading_seconds > 0
    assert one.unknown == ["GreedyBot"]  # priced as the median bot, and said so
    assert any("not timed yet, priced as the median bot: GreedyBot" in line for line in one.lines())


def test_a_failed_leaderboard_write_leaves_no_half_file(graded, small, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk while leaderboard.csv is written: the error names it, the old board stays, no .tmp is left."""
    import pandas as pd

    folder, _ = graded
    before = (folder / "leaderboard.csv").read_bytes()

    def full_disk(self: pd.DataFrame, path: Path, **kw: object) -> None:
        Path(path).write_text("name,elo\nhalf")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pd.DataFrame, "to_csv", full_disk)
    with pytest.raises(FolderError, match="could not write leaderboard.csv.*No space left"):
        write_outputs(folder, out=None)
    assert not (folder / "leaderboard.csv.tmp").exists()
    assert (folder / "leaderboard.csv").read_bytes() == before
